#!/usr/bin/env python3
"""A 10 MB document edited at 48 edits/s: small range edits stay cheap (no
copy or scan of the whole text per edit), so requests sent among the edits
are answered promptly. Asserts every request is answered within a wide
bound and prints the request latency (median, max).

usage: big_document_test.py TSOCHECK_BIN SAMPLES_DIR INPUTS_DIR [--edits N] [--rate R] [--mb M] [--bound S]
"""
import argparse, os, random, shutil, statistics, sys, tempfile, threading, time

import protocol_test as P
from protocol_test import Client, check

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("samples")
ap.add_argument("inputs")
ap.add_argument("--edits", type=int, default=500)
ap.add_argument("--rate", type=float, default=48, help="edits per second")
ap.add_argument("--mb", type=float, default=10, help="document size")
ap.add_argument("--bound", type=float, default=5, help="the slowest request's latency allowed, seconds")
args = ap.parse_args()

root = tempfile.mkdtemp(prefix="tsocheck-big-document-")
try:
    path = os.path.join(root, "big.c")
    line = "/* a line of a large generated file, padded to sixty-four bytes */\n"
    nlines = int(args.mb * 1024 * 1024 / len(line))
    text = "int tsocheck_big_document;\n" + line * nlines
    with open(path, "w") as f:
        f.write(text)
    uri = "file://" + path
    c = Client(root, options={"timeLimit": 5})
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}})

    # Responses stamped as they arrive (a thread of their own).
    arrived = {}
    stop = threading.Event()

    def drain():
        while not stop.is_set():
            try:
                m = c.q.get(timeout=0.1)
            except Exception:
                continue
            if m is None:
                return
            if "id" in m and "method" not in m:
                arrived[m["id"]] = time.time()
            elif "id" in m:  # a request of the server's: answer it
                c.send({"jsonrpc": "2.0", "id": m["id"], "result": None})

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    rng = random.Random(7)
    sent = {}
    start = time.time()
    for k in range(args.edits):
        ln = rng.randrange(1, nlines)
        edit = {"range": {"start": {"line": ln, "character": 3}, "end": {"line": ln, "character": 4}}, "text": "A"}
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": k + 2}, "contentChanges": [edit]})
        if k % 10 == 5:
            c.next_id += 1
            sent[c.next_id] = time.time()
            c.send({"jsonrpc": "2.0", "id": c.next_id, "method": "textDocument/hover",
                    "params": {"textDocument": {"uri": uri}, "position": {"line": ln, "character": 0}}})
        # At the rate asked for (a late sender does not try to catch up).
        time.sleep(max(0.0, start + (k + 1) / args.rate - time.time()))
    end = time.time() + 60
    while len([i for i in sent if i in arrived]) < len(sent) and time.time() < end:
        time.sleep(0.05)
    stop.set()
    lat = [arrived[i] - s for i, s in sent.items() if i in arrived]
    check(len(lat) == len(sent), "every request among the edits is answered (%d of %d)" % (len(lat), len(sent)))
    if lat:
        print("big document: %.1f MB, %d edits at %.0f/s: request latency median %.3f s, max %.3f s"
              % (len(text) / 1048576, args.edits, args.rate, statistics.median(lat), max(lat)))
        check(max(lat) < args.bound, "the slowest request is answered within %.0f s (%.3f s)" % (args.bound, max(lat)))
    c.close()
finally:
    shutil.rmtree(root, ignore_errors=True)

P.finish()

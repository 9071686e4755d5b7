#!/usr/bin/env python3
"""Fuzz driver for `tsocheck lsp`: sends N mutated or hostile LSP
messages (random JSON types in every field, invalid UTF-8, deep nesting, bad
framing, %FF URIs, odd positions and commands) to the real server, then checks
that it still answers a final request and has not died. Prints the cases
tried, the peak RSS, and the seed; a failing seed reproduces the run.

usage: lsp_fuzz.py TSOCHECK_BIN SAMPLES_DIR [--cases N] [--seed S]
  ctest runs a short mode (--cases 300); run it by hand with --cases 20000.
"""
import argparse, json, os, queue, random, shutil, subprocess, sys, tempfile, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("samples")
ap.add_argument("--cases", type=int, default=300)
ap.add_argument("--seed", type=int, default=None)
a = ap.parse_args()
seed = a.seed if a.seed is not None else int(time.time())
rng = random.Random(seed)

root = tempfile.mkdtemp(prefix="tsocheck-fuzz-")
os.environ["XDG_CACHE_HOME"] = os.path.join(root, "cache")
src = os.path.join(root, "dekker.c")
shutil.copy(os.path.join(a.samples, "dekker_buggy.c"), src)
URI = "file://" + src
TEXT = open(src).read()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rpc_pipe import RpcPipe  # noqa: E402

peer = RpcPipe([a.bin, "lsp"])
p, q, raw, send = peer.proc, peer.queue, peer.raw, peer.send


def wait_id(i, timeout):
    def want(m):
        if "method" in m and "id" in m:  # server->client request: answer it
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})
        return m.get("id") == i and "method" not in m
    return peer.wait(want, timeout)


def pos():
    return {"line": rng.randrange(0, 40), "character": rng.randrange(0, 30)}


SEEDS = [
    lambda: {"method": "textDocument/didChange", "params": {"textDocument": {"uri": URI, "version": rng.randrange(2, 1 << 30)},
                                                          "contentChanges": [{"range": {"start": pos(), "end": pos()}, "text": rng.choice(["", " ", "x", "\n", "é😀"])}]}},
    lambda: {"id": rng.randrange(1 << 20), "method": "textDocument/codeLens", "params": {"textDocument": {"uri": URI}}},
    lambda: {"id": rng.randrange(1 << 20), "method": "textDocument/hover", "params": {"textDocument": {"uri": URI}, "position": pos()}},
    lambda: {"id": rng.randrange(1 << 20), "method": "textDocument/codeAction",
             "params": {"textDocument": {"uri": URI}, "range": {"start": pos(), "end": pos()}, "context": {"diagnostics": []}}},
    lambda: {"id": rng.randrange(1 << 20), "method": "tsocheck/trace", "params": {"uri": URI, "function": "dekker"}},
    lambda: {"id": rng.randrange(1 << 20), "method": "workspace/executeCommand",
             "params": {"command": rng.choice(["tsocheck.recheck", "tsocheck.showTrace", "tsocheck.runWithModel", "x"]),
                        "arguments": [URI, "dekker", rng.choice(["SC", "TSO", "PSO", "ARM"])]}},
    lambda: {"method": "$/cancelRequest", "params": {"id": rng.randrange(1 << 20)}},
    lambda: {"method": "workspace/didChangeConfiguration",
             "params": {"settings": {"tsocheck": {rng.choice(["model", "timeLimit", "maxWorkers", "fenceStyle", "loopBound", "checkOn"]):
                                                  rng.choice(["tso", 0, 1, -1, None, True, "bogus", 2.5, [], {}])}}}},
    lambda: {"method": "textDocument/didOpen", "params": {"textDocument": {"uri": rng.choice([URI, "file://host/x.c", "file:///tmp/%FF%FE.c", "untitled:1"]),
                                                                           "languageId": "c", "version": 1, "text": TEXT}}},
    lambda: {"method": "textDocument/didSave", "params": {"textDocument": {"uri": URI}}},
]

HOSTILE = [None, True, False, 0, -1, 2 ** 63, 1.5, "", "\udcff", "x" * 1000, [], {}, [[[]]], {"a": {"b": {}}}]


def mutate_value(v, depth=0):
    if depth > 4 or rng.random() < 0.15:
        return rng.choice(HOSTILE)
    if isinstance(v, dict):
        v = dict(v)
        if v and rng.random() < 0.5:
            k = rng.choice(list(v))
            if rng.random() < 0.2:
                del v[k]
            else:
                v[k] = mutate_value(v[k], depth + 1)
        return v
    if isinstance(v, list):
        return [mutate_value(x, depth + 1) for x in v]
    return v


def encode(m):
    try:
        return json.dumps(m).encode("utf-8", "surrogateescape")
    except (UnicodeEncodeError, ValueError):
        return json.dumps(m, ensure_ascii=True).encode()


def bytes_mutation(b):
    b = bytearray(b)
    for _ in range(rng.randrange(1, 4)):
        if not b:
            break
        i = rng.randrange(len(b))
        op = rng.randrange(4)
        if op == 0:
            b[i] = rng.randrange(256)
        elif op == 1:
            del b[i:i + rng.randrange(1, 8)]
        elif op == 2:
            b[i:i] = rng.choice([b"\xff", b"[", b"{", b"\"", b"\\", b"\x00", b"\r\n"])
        else:
            b = b[:i]
    return bytes(b)


def case():
    m = {"jsonrpc": "2.0", **rng.choice(SEEDS)()}
    kind = rng.randrange(10)
    if kind < 4:
        m = mutate_value(m)
        send(encode(m))
    elif kind < 6:
        send(bytes_mutation(encode(m)))
    elif kind == 6:  # framing
        b = encode(m)
        raw(rng.choice([b"Content-Length: %d\r\n\r\n" % max(0, len(b) - rng.randrange(1, 10)) + b,
                        b"Content-Length: %d\n\n" % len(b) + b,
                        b"Content-Length: %d\r\n\r\n" % (len(b) + rng.randrange(1, 100)) + b,
                        b"Content-Length: 99999999999999\r\n\r\n" + b,
                        b"Content-Type: x\r\n\r\n" + b,
                        b"garbage\r\n" + b]))
    elif kind == 7:  # deep nesting somewhere
        d = rng.choice([1000, 50000, 300000])
        send(b'{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":' + b"[" * d + b"]" * d + b"}")
    elif kind == 8:  # invalid UTF-8 in strings
        b = encode(m).replace(b"dekker", b"dek\xffker", 1)
        send(b)
    else:
        send(encode(m))


init = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"processId": None, "rootUri": "file://" + root, "capabilities": {}, "initializationOptions": {"timeLimit": 2}}}
send(init)
ok = wait_id("init", 20) is not None
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
      "params": {"textDocument": {"uri": URI, "languageId": "c", "version": 1, "text": TEXT}}})
t0 = time.time()
sent = 0
for i in range(a.cases):
    if p.poll() is not None:
        break
    try:
        case()
        sent += 1
    except BrokenPipeError:
        break
    while not q.empty():  # keep the pipe drained
        m = q.get()
        if m is None:
            break
        if "method" in m and "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})
try:
    send({"jsonrpc": "2.0", "id": "final", "method": "textDocument/codeLens", "params": {"textDocument": {"uri": URI}}})
    final = wait_id("final", 60)
except BrokenPipeError:
    final = None
rss = 0
try:
    rss = int([l for l in open("/proc/%d/status" % p.pid) if l.startswith("VmHWM:")][0].split()[1])
except (OSError, IndexError):
    pass
alive = p.poll() is None
p.kill()
p.wait()
shutil.rmtree(root, ignore_errors=True)
print("lsp fuzz: seed %d, %d/%d cases sent in %.1f s, peak RSS %d MB, final request %s, server %s" %
      (seed, sent, a.cases, time.time() - t0, rss // 1024, "answered" if final else "LOST", "alive" if alive else "DEAD"))
sys.exit(0 if ok and sent == a.cases and final is not None and alive else 1)

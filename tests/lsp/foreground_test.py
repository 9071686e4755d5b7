#!/usr/bin/env python3
"""The check in front of the user goes first, with one worker busy.

- In a file of four slow checks and a small one, an edit inside the small
  check re-checks it first: its verdict is published before any of the slow
  checks' results.
- With a slow file being checked, a document opened afterwards is checked
  at once (in the front slot, kept for the document in front of the user):
  its diagnostics come before the slow file's.
- With two slow files being checked (one on the only pool worker, the other
  in front), a small document opened afterwards is checked at once: the
  check in front is demoted (it goes on, not cancelled) and the small
  document's diagnostics come within a wide bound, long before either slow
  check could end (they have no time limit).

Prints the latency of the check in front of the user.

usage: foreground_test.py TSOCHECK_BIN SAMPLES_DIR INPUTS_DIR
"""
import os, random, shutil, sys, tempfile, time

import protocol_test as P
from protocol_test import Client, check, copy, line_of



def publish_of(uri, version=None):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                      and (version is None or m["params"].get("version") == version))


def checking(uri):
    return lambda m: m.get("method") == "tsocheck/status" and m["params"]["uri"] == uri and m["params"]["checking"]


def checked_log(path, version):
    return lambda m: (m.get("method") == "window/logMessage"
                      and m["params"]["message"].startswith("checked %s v%d:" % (path, version)))


def options():
    # A setting of its own (no outcome change): results cached by an earlier run do not answer.
    return {"maxWorkers": 1, "timeLimit": 3, "fenceTimeLimit": 30 + random.random()}


def check_at_the_cursor_first(root):
    src = copy(root, os.path.join(P.INPUTS, "slow_checks.c"))
    c = Client(root, options=options())
    uri = c.open(src, version=1)
    check(c.wait(checking(uri), 30) is not None, "the slow file is being checked")
    first = line_of(src, "TSOCHECK void small(void)")
    last = line_of(src, "assert(r1 == 1 || r2 == 1);")
    # An edit inside the small check (it still fails under TSO).
    text = open(src).read().replace("assert(r1 == 1 || r2 == 1);", "assert(r2 == 1 || r1 == 1);")
    edit = {"range": {"start": {"line": last, "character": 0}, "end": {"line": last + 1, "character": 0}},
            "text": "  assert(r2 == 1 || r1 == 1);\n"}
    t0 = time.time()
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [edit]})

    def small_error(m):
        return publish_of(uri, 2)(m) and any(
            d["severity"] == 1 and first <= d["range"]["start"]["line"] <= last + 1 for d in m["params"]["diagnostics"])

    m = c.wait(small_error, 120)
    latency = time.time() - t0
    check(m is not None, "the edited check's violation is published")
    if m:
        codes = [d.get("code") for d in m["params"]["diagnostics"]]
        check("timeout" not in codes, "the edited check is published before any slow check ends (codes %s)" % codes)
        check(not any(checked_log(src, 2)(x) for x in c.seen), "... and before the file's run ends")
    done = c.wait(checked_log(src, 2), 120)
    total = time.time() - t0
    check(done is not None, "the whole file is checked after the edit")
    print("latency: the edited check %.2f s, the whole file %.2f s" % (latency, total))
    final = c.wait(publish_of(uri, 2), 10) if done else None
    if final:
        codes = [d.get("code") for d in final["params"]["diagnostics"]]
        check(codes.count("timeout") == 4, "the final publish has the four slow checks' timeouts (%s)" % codes)
    c.close()
    return latency, total


def document_in_front_first(root):
    slow = copy(root, os.path.join(P.INPUTS, "slow_checks.c"), "busy.c")
    small = copy(root, os.path.join(P.SAMPLES, "dekker_buggy.c"), "in_front.c")
    c = Client(root, options=options())
    suri = c.open(slow)
    check(c.wait(checking(suri), 30) is not None, "the slow file is being checked on the only worker")
    t0 = time.time()
    uri = c.open(small)
    m = c.wait(lambda m: publish_of(uri)(m) or checked_log(slow, 1)(m), 120)
    latency = time.time() - t0
    check(m is not None and publish_of(uri)(m),
          "the document opened last is published before the slow file's check ends (%.2f s)" % latency)
    if not any(checked_log(slow, 1)(x) for x in c.seen):
        c.wait(checked_log(slow, 1), 120)
    total = time.time() - t0
    print("latency: the document in front %.2f s, the slow file %.2f s" % (latency, total))
    c.close()
    return latency, total


def replaced(path):
    return lambda m: m.get("method") == "window/logMessage" and m["params"]["message"].startswith(
        "check of %s v1 replaced by" % path)


def front_check_demoted(root):
    # No time limit: slow.c's check runs for minutes (its search is not over
    # after 60 s on an idle machine).
    opts = {"maxWorkers": 1, "timeLimit": 0, "fenceTimeLimit": 30 + random.random()}
    pool = copy(root, os.path.join(P.INPUTS, "slow.c"), "slow_pool.c")
    front = copy(root, os.path.join(P.INPUTS, "slow.c"), "slow_front.c")
    small = copy(root, os.path.join(P.SAMPLES, "dekker_buggy.c"), "small_front.c")
    c = Client(root, options=opts)
    puri = c.open(pool)
    check(c.wait(checking(puri), 30) is not None, "the first slow file is being checked")
    furi = c.open(front)  # the first one is demoted into the free pool slot
    check(c.wait(checking(furi), 30) is not None, "the second slow file is being checked, in front")
    t0 = time.time()
    uri = c.open(small)  # the second one is demoted beyond the pool
    slow_end = lambda m: (checked_log(pool, 1)(m) or checked_log(front, 1)(m) or replaced(pool)(m)
                          or replaced(front)(m))
    m = c.wait(lambda m: publish_of(uri)(m) or slow_end(m), 60)
    latency = time.time() - t0
    check(m is not None and publish_of(uri)(m),
          "the small document opened last is published while both slow checks run (%.2f s)" % latency)
    check(latency < 20, "... within 20 s (%.2f s)" % latency)
    # Both slow checks go on: neither is cancelled nor over.
    m = c.wait(slow_end, 2)
    check(m is None and not any(slow_end(x) for x in c.seen),
          "the demoted check goes on: neither slow check is cancelled or over")
    print("latency: the document in front, with two slow checks running: %.2f s" % latency)
    c.close()
    return latency


root = tempfile.mkdtemp(prefix="tsocheck-foreground-")
try:
    check_at_the_cursor_first(root)
    document_in_front_first(root)
    front_check_demoted(root)
finally:
    shutil.rmtree(root, ignore_errors=True)

P.finish()

#!/usr/bin/env python3
"""Language-server timings against its targets, best of N rounds:
initialize -> first diagnostics on a sample (fresh check), an edit inside one
check function (only that one is re-checked), an edit elsewhere (every check
from the cache), reopen in a new server (disk cache), a first open 300 ms
after a new server started (as an editor opens its first file after its own
start-up; the check of a copy not in the cache), and the peak RSS.

usage: lsp_bench.py TSOCHECK_BIN [SAMPLE.c] [ROUNDS]
Defaults: samples/peterson_buggy.c for the fresh check, tests/lsp/inputs/
two_checks.c for the edits, 3 rounds. The debounce is set to 0 ms so the
figures are the server's own work (the default 300 ms debounce adds to the
edit timings in an editor). Figures only: nothing passes or fails here.
"""
import os, shutil, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "lsp"))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lsp", "tsocheck")
SAMPLE = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "samples", "peterson_buggy.c")
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
TWO = os.path.join(ROOT, "tests", "lsp", "inputs", "two_checks.c")
sys.argv = [sys.argv[0], BIN, "", ""]
import protocol_test as pt  # noqa: E402  (the protocol test's client)

OPTS = {"debounceMs": 0}


def ms(t0):
    return (time.time() - t0) * 1000


def edit(c, uri, version, line, start, end, text):
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                        "contentChanges": [{"range": {"start": {"line": line, "character": start},
                                                                      "end": {"line": line, "character": end}},
                                                            "text": text}]})


def round_once():
    root = tempfile.mkdtemp(prefix="tsocheck-bench-")
    out = {}
    try:
        sample = shutil.copy(SAMPLE, root)
        two = shutil.copy(TWO, root)
        t0 = time.time()
        c = pt.Client(root, options=OPTS)
        uri = c.open(sample)
        d = c.diagnostics(uri, timeout=60)
        out["fresh"] = ms(t0) if d else None

        turi = c.open(two)
        c.diagnostics(turi, timeout=60)
        ml = pt.line_of(two, "assert(seen == 1)")
        t0 = time.time()
        edit(c, turi, 2, ml, 17, 18, "0")  # inside message_passing only
        d = c.diagnostics(turi, version=2, timeout=60)
        out["inside"] = ms(t0) if d else None
        log = c.log_with("two_checks.c v2:")
        out["inside_log"] = log["params"]["message"] if log else "?"
        t0 = time.time()
        edit(c, turi, 3, 0, 0, 0, " ")  # outside every check function
        d = c.diagnostics(turi, version=3, timeout=60)
        out["outside"] = ms(t0) if d else None
        log = c.log_with("two_checks.c v3:")
        out["outside_log"] = log["params"]["message"] if log else "?"
        rss = [l for l in open("/proc/%d/status" % c.p.pid) if l.startswith("VmHWM")][0].split()[1]
        out["rss_mb"] = int(rss) / 1024
        c.close()

        t0 = time.time()
        c = pt.Client(root, options=OPTS)
        uri = c.open(sample)
        d = c.diagnostics(uri, timeout=60)
        out["reopen"] = ms(t0) if d else None
        c.close()

        # An editor opens its first file some time after the server started
        # (its own start-up): the server may use that time (a spare worker).
        other = shutil.copy(SAMPLE, os.path.join(root, "later_" + os.path.basename(SAMPLE)))
        c = pt.Client(root, options=OPTS)
        time.sleep(0.3)
        t0 = time.time()
        uri = c.open(other)
        d = c.diagnostics(uri, timeout=60)
        out["later"] = ms(t0) if d else None
        c.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return out


def main():
    rounds = [round_once() for _ in range(ROUNDS)]

    def best(k):
        v = [r[k] for r in rounds if r.get(k) is not None]
        return min(v) if v else None

    rows = [
        ("initialize -> first diagnostics (fresh check of %s)" % os.path.basename(SAMPLE), best("fresh"), 1000),
        ("edit inside one check -> refreshed diagnostics", best("inside"), 1000),
        ("edit outside the checks -> diagnostics (all cached)", best("outside"), 300),
        ("new server, reopen -> diagnostics from the disk cache", best("reopen"), 300),
        ("new server, first open 300 ms after start -> diagnostics", best("later"), 1000),
    ]
    print("language server, best of %d rounds (debounce 0 ms)" % ROUNDS)
    for name, v, target in rows:
        if v is None:
            print("  %-58s  no diagnostics (timeout)" % name)
        else:
            print("  %-58s %7.0f ms   target %5d ms   ratio %.2f" % (name, v, target, v / target))
    print("  inside-edit log:  %s" % rounds[-1].get("inside_log"))
    print("  outside-edit log: %s" % rounds[-1].get("outside_log"))
    rss = max(r.get("rss_mb", 0) for r in rounds)
    print("  %-58s %7.0f MB   target   200 MB   ratio %.2f" % ("server peak RSS", rss, rss / 200))


if __name__ == "__main__":
    main()

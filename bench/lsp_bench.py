#!/usr/bin/env python3
"""Language-server timings: initialize -> first diagnostics on a sample, an edit
inside one function (refresh, debounce included), reopen from the disk cache,
and the server's peak RSS.  usage: lsp_bench.py TSOCHECK_BIN SAMPLE.c"""
import os, shutil, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "lsp"))
sys.argv = [sys.argv[0], sys.argv[1], "", ""] + sys.argv[2:]
import protocol_test as pt

root = tempfile.mkdtemp()
src = shutil.copy(sys.argv[4], root)
t0 = time.time()
c = pt.Client(root)
uri = c.open(src)
c.diagnostics(uri)
print("initialize -> first diagnostics: %.0f ms" % ((time.time() - t0) * 1000))
t0 = time.time()
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                    "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                                                  "end": {"line": 0, "character": 0}}, "text": " "}]})
c.diagnostics(uri, version=2)
print("edit outside the checks (cached) -> refreshed diagnostics (300 ms debounce included): %.0f ms" % ((time.time() - t0) * 1000))
rss = [l for l in open("/proc/%d/status" % c.p.pid) if l.startswith("VmHWM")][0].split()[1]
print("server peak RSS: %d MB" % (int(rss) // 1024))
c.close()
t0 = time.time()
c = pt.Client(root)
uri = c.open(src)
c.diagnostics(uri)
print("new server, reopen -> diagnostics from the disk cache: %.0f ms" % ((time.time() - t0) * 1000))
c.close()
shutil.rmtree(root)

#!/usr/bin/env python3
"""Hostile clients and workspaces against the real `tsocheck lsp`:
malformed frames, deep nesting, bad initialize params, invalid UTF-8 in paths,
tampered/odd cache entries, odd compile_commands.json, many runWithModel calls.
Every case ends with the server still answering.

usage: robustness_test.py TSOCHECK_BIN SAMPLES_DIR INPUTS_DIR
"""
import json, os, shutil, subprocess, sys, tempfile, time

import protocol_test as P
from protocol_test import Client, check, copy

failures = P.failures


def alive(c, what):
    r = c.request("shutdown", None, timeout=10)
    check(r is not None and "result" in r and c.p.poll() is None, "still serving after " + what)


def body(m):
    return json.dumps(m).encode()


def framing(root):
    c = Client(root)
    for what, junk in (("a short Content-Length", lambda b: b"Content-Length: 5\r\n\r\n" + b),
                       ("an LF-only header", lambda b: b"Content-Length: %d\n\n" % len(b) + b),
                       ("a too long Content-Length", lambda b: b"Content-Length: 100000\r\n\r\n" + b),
                       ("an oversized Content-Length", lambda b: b"Content-Length: 99999999999999\r\n\r\n" + b),
                       ("junk between frames", lambda b: b"}}garbage\r\n")):
        c.raw(junk(body({"jsonrpc": "2.0", "id": "junk", "method": "textDocument/codeLens", "params": {}})))
        r = c.request("no/such", {}, timeout=5)
        check(r is not None and r["error"]["code"] == -32601, "the request after %s is answered" % what)
    # Deep nesting: ParseError, nothing crashes.
    deep_id = b'{"jsonrpc":"2.0","id":' + b"[" * 50000 + b"]" * 50000 + b',"method":"x"}'
    c.raw(b"Content-Length: %d\r\n\r\n" % len(deep_id) + deep_id)
    r = c.wait(lambda m: "error" in m and m.get("id") is None and "nested" in m["error"]["message"], 5)
    check(r is not None and r["error"]["code"] == -32700, "50,000-deep id: ParseError")
    deep_cancel = b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":' + b"[" * 50000 + b"]" * 50000 + b"}}"
    c.raw(b"Content-Length: %d\r\n\r\n" % len(deep_cancel) + deep_cancel)
    deep_params = b'{"jsonrpc":"2.0","method":"initialized","params":' + b"{" * 1000000 + b"}"
    c.raw(b"Content-Length: %d\r\n\r\n" % len(deep_params) + deep_params)
    r = c.request("no/such", {}, timeout=10)
    check(r is not None and r["error"]["code"] == -32601, "served after deep $/cancelRequest id and 1M-deep params")
    alive(c, "malformed frames and deep nesting")
    c.close()


def initialize_params(root):
    p = subprocess.Popen([P.BIN, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    c = Client.__new__(Client)
    c.p, c.next_id, c.root = p, 100, root
    import queue, threading
    c.q = queue.Queue()
    threading.Thread(target=c._read, daemon=True).start()
    for bad in ([], "x", None, 5):
        r = c.request("initialize", bad, timeout=5)
        check(r is not None and r.get("error", {}).get("code") == -32602, "initialize with %r params: InvalidParams" % (bad,))
    r = c.request("textDocument/codeLens", {"textDocument": {"uri": "file:///x.c"}}, timeout=5)
    check(r is not None and r.get("error", {}).get("code") == -32002, "a failed initialize leaves the server uninitialized")
    r = c.request("initialize", {"processId": None, "rootUri": "file://" + root, "capabilities": {}}, timeout=5)
    check(r is not None and "result" in r, "a later valid initialize works")
    c.notify("initialized", {})
    uri = c.open(copy(root, os.path.join(P.SAMPLES, "dekker_buggy.c"), "init_dekker.c"))
    d = c.diagnostics(uri, timeout=30)
    check(d is not None and any(x["severity"] == 1 for x in d["params"]["diagnostics"]),
          "documents are checked after the late initialize")
    # Smaller items: `true` as a line number, a remote file URI, a bogus fenceStyle.
    for method, params in (("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": True, "character": 0}}),
                           ("textDocument/codeAction", {"textDocument": {"uri": uri}, "context": {"diagnostics": []},
                                                        "range": {"start": {"line": True, "character": 0},
                                                                  "end": {"line": 1, "character": 0}}})):
        r = c.request(method, params, timeout=5)
        check(r is not None and r.get("error", {}).get("code") == -32602, method + " with line `true`: InvalidParams")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": "file://host/x.c", "languageId": "c", "version": 1,
                                                       "text": "int x;\n"}})
    m = c.log_with("file://host/x.c", timeout=5)
    check(m is not None and "local" in m["params"]["message"], "a file URI with a host is refused clearly")
    c.notify("workspace/didChangeConfiguration", {"settings": {"tsocheck": {"fenceStyle": "bogus"}}})
    m = c.wait(lambda m: m.get("method") == "window/showMessage" and "fenceStyle" in m["params"]["message"], 5)
    check(m is not None and m["params"]["type"] == 2, "fenceStyle \"bogus\": a showMessage warning")
    # A file without a check function is not "a file that does not compile".
    nc = os.path.join(root, "nocheck.c")
    open(nc, "w").write("int x;\nvoid plain(void) { x = 1; }\n")
    nuri = c.open(nc)
    d = c.diagnostics(nuri, timeout=30)
    check(d is not None and not any("does not compile" in x["message"] for x in d["params"]["diagnostics"]),
          "no check function is not reported as a compile failure")
    alive(c, "bad initialize params")
    c.close()


def hostile_workspace(root):
    ws = os.path.join(root, "ws")
    os.makedirs(ws)
    two = copy(ws, os.path.join(P.INPUTS, "two_checks.c"))
    results = os.path.join(os.environ["XDG_CACHE_HOME"], "tsocheck", "results")
    c = Client(ws)
    uri = c.open(two)
    check(c.log_with("two_checks.c v1: 2 checked, 0 from cache", 30) is not None, "fresh cache: both checks run")
    c.close()
    entries = sorted(f for f in os.listdir(results) if f.endswith(".json"))
    check(len(entries) >= 2, "entries written to the user cache (%d)" % len(entries))
    check(not os.path.exists(os.path.join(ws, ".tsocheck")), "nothing written into the workspace")
    # Wrong field types, and a forged verdict with the entry's MAC line kept:
    # a miss each, never an abort. (An entry: "tsocheck-cache 1 MAC" and the JSON.)
    def entry(f):
        head, _, text = open(os.path.join(results, f)).read().partition("\n")
        return head, json.loads(text)
    mine = [f for f in entries if entry(f)[1].get("file") == two]
    for bad in ({"status": "verified"}, {"executions": "many"}, {"status": 5}, {"function": 7},
                {"robustness": {"robust": "yes"}}):
        for f in mine:
            head, j = entry(f)
            j.update(bad)
            open(os.path.join(results, f), "w").write(head + "\n" + json.dumps(j))
        c = Client(ws)
        c.open(two)
        m = c.log_with("two_checks.c v1:", 30)
        check(m is not None and "2 checked, 0 from cache" in m["params"]["message"],
              "cache entries with %s are misses" % json.dumps(bad))
        alive(c, "a bad cache entry %s" % json.dumps(bad))
        c.close()
    # FIFOs and /dev/stdin symlinks as cache entries or compile_commands.json never block.
    for f in mine:
        os.unlink(os.path.join(results, f))
        os.mkfifo(os.path.join(results, f))
    os.symlink("/dev/stdin", os.path.join(ws, "compile_commands.json"))
    c = Client(ws)
    u = c.open(two)
    d = c.diagnostics(u, timeout=30)
    check(d is not None and len([x for x in d["params"]["diagnostics"] if x["severity"] == 1]) == 1,
          "FIFO cache entries and a /dev/stdin compile_commands.json: checked anyway")
    alive(c, "FIFOs in the workspace and the cache")
    c.close()
    os.unlink(os.path.join(ws, "compile_commands.json"))
    json.dump([{"directory": 5, "file": two, "command": "cc -DX=1 two_checks.c"}],
              open(os.path.join(ws, "compile_commands.json"), "w"))
    c = Client(ws)
    u = c.open(two)
    d = c.diagnostics(u, timeout=30)
    check(d is not None and len([x for x in d["params"]["diagnostics"] if x["severity"] == 1]) == 1,
          "compile_commands.json with a non-string directory: ignored, file checked")
    # runWithModel many times: answered, threads bounded (the worker pool).
    ids = []
    for i in range(30):
        c.next_id += 1
        ids.append(c.next_id)
        c.send({"jsonrpc": "2.0", "id": c.next_id, "method": "workspace/executeCommand",
                "params": {"command": "tsocheck.runWithModel", "arguments": [u, "message_passing", "SC"]}})
    threads = int([l for l in open("/proc/%d/status" % c.p.pid) if l.startswith("Threads:")][0].split()[1])
    got = set()
    # Each answer is a short check; the wide bound holds on a loaded 2-core machine.
    end = time.time() + 300
    while len(got) < len(ids) and time.time() < end:
        m = c.wait(lambda m: m.get("id") in ids and "method" not in m, 5)
        if m:
            got.add(m["id"])
    check(len(got) == len(ids), "30 runWithModel requests answered (%d)" % len(got))
    check(threads <= 8, "runWithModel uses the worker pool (%d threads)" % threads)
    alive(c, "compile_commands.json with wrong types and 30 runWithModel calls")
    c.close()
    # Invalid UTF-8 in a path (%FF in the URI) reaches the cache write: no crash.
    c = Client(ws)
    bad_uri = "file://" + ws + "/%FF%FEbad.c"
    c.notify("textDocument/didOpen", {"textDocument": {"uri": bad_uri, "languageId": "c", "version": 1,
                                                       "text": open(os.path.join(P.SAMPLES, "dekker_buggy.c")).read()}})
    d = c.diagnostics(bad_uri, timeout=30)
    check(d is not None, "a %FF path is checked and published")
    line_uri = c.open(copy(ws, os.path.join(P.SAMPLES, "dekker_buggy.c"), "line_directive.c"))
    text = '#line 18 "\\xff\\xfe.c"\n' + open(os.path.join(P.SAMPLES, "dekker_buggy.c")).read()
    c.notify("textDocument/didChange", {"textDocument": {"uri": line_uri, "version": 2}, "contentChanges": [{"text": text}]})
    d = c.diagnostics(line_uri, version=2, timeout=30)
    check(d is not None, "a #line directive naming a non-UTF-8 file: published")
    alive(c, "invalid UTF-8 in paths")
    c.close()


def time_limit(root):
    ws = os.path.join(root, "tl")
    os.makedirs(ws)
    slow = copy(ws, os.path.join(P.INPUTS, "slow.c"))
    # (5 s: the limit also covers compiling the file, slow on a loaded machine.)
    c = Client(ws, options={"timeLimit": 5})
    u = c.open(slow)
    d = c.diagnostics(u, timeout=90)
    msgs = [x for x in (d["params"]["diagnostics"] if d else []) if x.get("code") == "timeout"]
    check(len(msgs) == 1 and "raise tsocheck.timeLimit" in msgs[0]["message"],
          "a background check stops at the time limit and says how to raise it")
    alive(c, "a timeout")
    c.close()
    # One pool worker busy with a slow check: the document opened last (in
    # front of the user) is still checked (which of the two small documents
    # comes first depends on which worker the slow one took; the order is
    # tested in foreground_test.py).
    c = Client(ws, options={"timeLimit": 3, "maxWorkers": 1})
    c.open(slow)
    time.sleep(0.5)
    c.open(copy(ws, os.path.join(P.SAMPLES, "dekker_buggy.c"), "first.c"))
    last = c.open(copy(ws, os.path.join(P.SAMPLES, "dekker_buggy.c"), "last.c"))
    d = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == last, 60)
    check(d is not None, "the document opened last is checked while the pool worker is busy")
    c.close()


def children(pid):
    """Live child processes of pid (the frontend workers of a server)."""
    out = subprocess.run(["ps", "-o", "pid=,stat=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if l.split()[1:2] != ["Z"]]


def frontend_bounds(root):
    """The compiler phase runs in a worker process: the time limit, the memory
    limit and a newer edit stop it (a macro-expansion bomb: Clang alone needs
    minutes and gigabytes), and the server keeps serving."""
    ws = os.path.join(root, "fb")
    os.makedirs(ws)
    bomb = copy(ws, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "inputs", "macro_bomb.c"))
    for options, text in (({"timeLimit": 1}, "the compiler did not finish within the time limit (1 s)"),
                          ({"timeLimit": 0, "memoryLimit": 64}, "the compiler used more than 64 MiB of memory")):
        c = Client(ws, options=options)
        u = c.open(bomb)
        d = c.diagnostics(u, timeout=60)
        msgs = [x["message"] for x in (d["params"]["diagnostics"] if d else []) if x["severity"] == 1]
        check(len(msgs) == 1 and text in msgs[0], "frontend stopped: " + text + " (got %s)" % msgs)
        alive(c, "a stopped frontend")
        c.close()
    # No time limit: the edit that replaces the bomb stops its compiler.
    c = Client(ws, options={"timeLimit": 0})
    u = c.open(bomb)
    time.sleep(1)
    first = [l.split()[0] for l in children(c.p.pid)]
    check(len(first) == 2, "the frontend worker runs in its own process (a spare waits beside it)")
    fixed = open(os.path.join(P.SAMPLES, "dekker_buggy.c")).read()
    c.notify("textDocument/didChange", {"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": fixed}]})
    m = c.log_with("check of " + bomb + " v1 replaced by an edit", timeout=30)
    check(m is not None, "a newer edit cancels the compiler phase")
    d = c.diagnostics(u, version=2, timeout=60)
    errs = [x for x in (d["params"]["diagnostics"] if d else []) if x["severity"] == 1]
    check(len(errs) == 1 and errs[0]["code"] == "tso-assertion", "the edited document is checked after the cancellation")
    # The verdict is published before fence synthesis (whose re-check of the
    # edited source lowers it again): wait for the check's end.
    c.wait(lambda m: m.get("method") == "tsocheck/status" and m["params"]["uri"] == u and not m["params"]["checking"], 60)
    last = [l.split()[0] for l in children(c.p.pid)]
    check(len(last) == 1 and last[0] not in first, "no frontend worker is left behind (a new spare waits)")
    alive(c, "a cancelled frontend")
    c.close()


def dap():
    """The debug adapter shares the framing and the nesting limit."""
    p = subprocess.Popen([P.BIN, "dap"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    deep = b'{"seq":1,"type":"request","command":"launch","arguments":' + b'{"a":' * 300000 + b"1" + b"}" * 300000 + b"}"
    init = json.dumps({"seq": 2, "type": "request", "command": "initialize", "arguments": {"adapterID": "tsocheck"}}).encode()
    data = b"Content-Length: %d\r\n\r\n" % len(deep) + deep
    data += b"Content-Length: 5\r\n\r\n" + init  # a short length, then a valid request
    data += b"Content-Length: %d\r\n\r\n" % len(init) + init
    out, _ = p.communicate(data, timeout=30)
    msgs = []
    while b"\r\n\r\n" in out:
        h, rest = out.split(b"\r\n\r\n", 1)
        n = int(h.split(b":")[1])
        msgs.append(json.loads(rest[:n]))
        out = rest[n:]
    check(p.returncode is not None and p.returncode >= 0, "dap: no crash on 300k-deep launch arguments (exit %s)" % p.returncode)
    check(any(m.get("type") == "response" and m.get("command") == "initialize" and m.get("success") for m in msgs),
          "dap: the initialize after a deep launch and a short frame is answered")


def main():
    root = tempfile.mkdtemp(prefix="tsocheck-robust-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(root, "xdg-cache")
    try:
        framing(root)
        dap()
        initialize_params(root)
        hostile_workspace(root)
        time_limit(root)
        frontend_bounds(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

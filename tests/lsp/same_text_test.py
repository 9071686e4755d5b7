#!/usr/bin/env python3
"""One trace, one wording: the CLI's text report, the language server
(diagnostic, related information, hover, tsocheck/trace) and the debug adapter
(stack frames, console) show the step labels, buffer lines and violation
summary the report JSON carries, word for word.

usage: same_text_test.py TSOCHECK_BIN SAMPLES_DIR
"""
import json, os, queue, subprocess, sys, threading, time

from framing import frame, messages, read_into

BIN, SAMPLES = sys.argv[1], os.path.abspath(sys.argv[2])
FILE = os.path.join(SAMPLES, "peterson_buggy.c")
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


class Peer:
    """A Content-Length framed JSON peer over pipes (LSP and DAP alike)."""

    def __init__(self, args):
        self.p = subprocess.Popen([BIN] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        read_into(self.p.stdout, self.q)

    def send(self, m):
        self.p.stdin.write(frame(m))
        self.p.stdin.flush()

    def wait(self, pred, timeout=60, seen=None):
        for m in messages(self.q, timeout):
            if seen is not None:
                seen.append(m)
            if pred(m):
                return m
        return None

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def cli():
    j = json.loads(subprocess.run([BIN, "check", FILE, "--model", "tso", "--json"], capture_output=True,
                                  text=True).stdout)
    text = subprocess.run([BIN, "check", FILE, "--model", "tso"], capture_output=True, text=True).stdout
    return j["results"][0], text


def lsp(check_json):
    c = Peer(["lsp"])
    ids = iter(range(1, 1000))

    def request(method, params):
        i = next(ids)
        c.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return c.wait(lambda m: m.get("id") == i and "method" not in m)

    try:
        request("initialize", {"processId": os.getpid(), "rootUri": "file://" + SAMPLES, "capabilities": {},
                               "initializationOptions": {"model": "tso", "fences": False}})
        c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        uri = "file://" + FILE
        c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": open(FILE).read()}}})
        d = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                   and any(x.get("severity") == 1 for x in m["params"]["diagnostics"]))
        check(d is not None, "the server publishes the violation")
        if d is None:
            return
        err = [x for x in d["params"]["diagnostics"] if x.get("severity") == 1][0]
        labels = [s["label"] for s in check_json["violation"]["trace"]]
        summary = check_json["violation"]["summary"]
        check([r["message"] for r in err["relatedInformation"]] == labels,
              "LSP related information: one entry per step, the report's labels in order")
        check(all(line in err["message"] for line in summary[1:]),
              "LSP diagnostic: the summary's stale read and buffers")
        trace = request("workspace/executeCommand", {"command": "tsocheck.showTrace",
                                                     "arguments": [uri, check_json["function"]]})
        steps = ((trace or {}).get("result") or {}).get("violation", {}).get("trace", [])
        check([s.get("label") for s in steps] == labels and
              [s.get("buffers_text") for s in steps] == [s["buffers_text"] for s in check_json["violation"]["trace"]],
              "LSP trace payload: the same labels and buffer lines")
        line = check_json["violation"]["line"] - 1
        h = request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": 2}})
        md = (((h or {}).get("result") or {}).get("contents") or {}).get("value", "")
        check(all(l in md for l in summary), "LSP hover on the failing line: every summary line")
        last = [s for s in check_json["violation"]["trace"] if s["line"] == line + 1]
        check(bool(last) and md.find(summary[-1]) < md.find(last[0]["label"]),
              "LSP hover: the summary before the steps")
        link = md.find("](command:tsocheck.showTrace?")
        check(md.find(summary[-1]) < link < md.find(last[0]["label"]) if last else False,
              "LSP hover: the command that opens the trace between the summary and the steps")
        # The check function's own line (its TSOCHECK annotation): the summary too.
        h = request("textDocument/hover", {"textDocument": {"uri": uri},
                                           "position": {"line": check_json["line"] - 1, "character": 0}})
        md = (((h or {}).get("result") or {}).get("contents") or {}).get("value", "")
        check(md.find(summary[0]) >= 0 and all(l in md for l in summary) and "command:tsocheck.showTrace?" in md,
              "LSP hover on the check's annotation line: the summary and the trace command")
        # A line of no step and no check: no hover.
        h = request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
        check(h is not None and h.get("result") is None, "LSP hover elsewhere: none")
    finally:
        c.close()


def dap(check_json):
    a = Peer(["dap"])
    seq = iter(range(1, 100000))
    seen = []

    def request(command, args=None):
        i = next(seq)
        a.send({"seq": i, "type": "request", "command": command, "arguments": args or {}})
        return a.wait(lambda m: m.get("type") == "response" and m.get("request_seq") == i, seen=seen)

    used = set()

    def stopped():
        """The next stop not taken yet (it may have come while a response was awaited)."""
        is_stop = lambda m: m.get("type") == "event" and m.get("event") == "stopped"
        for k, m in enumerate(seen):
            if k not in used and is_stop(m):
                used.add(k)
                return m
        m = a.wait(is_stop, seen=seen)
        used.add(len(seen) - 1)
        return m

    try:
        request("initialize", {"adapterID": "tsocheck"})
        i = next(seq)
        a.send({"seq": i, "type": "request", "command": "launch",
                "arguments": {"program": FILE, "model": "tso", "function": check_json["function"],
                              "stopOnEntry": True}})
        request("configurationDone")
        ev = stopped()
        trace = check_json["violation"]["trace"]
        names = []
        for k in range(len(trace)):
            if ev is None:
                break
            frames = request("stackTrace", {"threadId": ev["body"]["threadId"]})["body"]["stackFrames"]
            names.append(frames[0]["name"])
            if k + 1 < len(trace):
                request("next", {"threadId": ev["body"]["threadId"]})
                ev = stopped()
        check(names == [s["label"] for s in trace], "DAP stack frames: the report's label at every step")
        console = "".join(m["body"]["output"] for m in seen if m.get("event") == "output")
        check(all(l in console for l in check_json["violation"]["summary"]), "DAP console: the summary")
    finally:
        a.close()


def main():
    j, text = cli()
    v = j.get("violation") or {}
    trace = v.get("trace", [])
    check(j["status"] == "violation" and len(trace) > 5, "the sample violates under TSO")
    summary = v.get("summary", [])
    check(len(summary) == 3 and summary[1].startswith("stale read: "), "the report has a 3-line summary")
    buffered = [s for s in trace if s.get("buffers_text")]
    check(bool(buffered), "some steps have buffers")
    # CLI text: the summary lines, then one line per step with its label and buffers.
    lines = text.split("\n")
    check(all(("  " + l) in lines for l in summary), "CLI text: the summary lines")
    at = 0
    ok = True
    for s in trace:
        while at < len(lines) and not lines[at].startswith("  " + s["label"] + " "):
            at += 1
        if at == len(lines) or (s["buffers_text"] and "buffers: " + s["buffers_text"] not in lines[at]):
            ok = False
            break
    check(ok, "CLI text: every step's label and buffers, in order")
    lsp(j)
    dap(j)
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)


main()

#!/usr/bin/env python3
"""The answer first, the fix second (issue 14): `tsocheck lsp` publishes a
check's violation as soon as the exploration finds it — without fence hints —
and publishes again, with the fence hints (and code actions), when fence
synthesis ends. Both publishes carry the same document version.

usage: answer_first_test.py TSOCHECK_BIN SAMPLES_DIR
"""
import json, os, queue, random, shutil, subprocess, sys, tempfile, threading, time

BIN, SAMPLES = sys.argv[1:3]
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


class Client:
    def __init__(self, root, options):
        self.p = subprocess.Popen([BIN, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.q = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"processId": os.getpid(), "rootUri": "file://" + root, "capabilities": {},
                              "initializationOptions": options}})
        self.wait(lambda m: m.get("id") == 1)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def _read(self):
        while True:
            h = b""
            while not h.endswith(b"\r\n\r\n"):
                c = self.p.stdout.read(1)
                if not c:
                    self.q.put(None)
                    return
                h += c
            n = int(h.split(b"Content-Length:")[1].split(b"\r\n")[0])
            self.q.put(json.loads(self.p.stdout.read(n)))

    def send(self, m):
        b = json.dumps(m).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
        self.p.stdin.flush()

    def wait(self, pred, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            try:
                m = self.q.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                break
            if m is None:
                return None
            self.seen.append(m)
            if pred(m):
                return m
        return None

    def close(self):
        self.send({"jsonrpc": "2.0", "id": 99, "method": "shutdown", "params": None})
        self.wait(lambda m: m.get("id") == 99, 10)
        self.send({"jsonrpc": "2.0", "method": "exit", "params": {}})
        self.p.wait(timeout=10)


root = tempfile.mkdtemp(prefix="tsocheck-answer-first-")
try:
    src = os.path.join(root, "peterson_buggy.c")
    shutil.copy(os.path.join(SAMPLES, "peterson_buggy.c"), src)
    uri = "file://" + src
    # A fence time limit of its own: a result cached by an earlier run (other
    # settings) cannot answer, so this run explores and synthesizes.
    c = Client(root, {"fenceTimeLimit": 30 + random.random()})
    text = open(src).read()
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "c", "version": 3, "text": text}}})

    def publish(m):
        return m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri

    def has_fence(m):
        return any(d.get("code") == "fence" for d in m["params"]["diagnostics"])

    final = c.wait(lambda m: publish(m) and has_fence(m), 120)
    check(final is not None, "a publish with fence hints arrives")
    pubs = [m for m in c.seen if publish(m)]
    check(len(pubs) >= 2, "the diagnostics are published twice (%d publishes)" % len(pubs))
    if pubs:
        first = pubs[0]["params"]
        errors = [d for d in first["diagnostics"] if d.get("severity") == 1]
        check(len(errors) >= 1, "the first publish has the violation's Error")
        check(not any(d.get("code") == "fence" for d in first["diagnostics"]), "the first publish has no fence hint")
        check(first.get("version") == 3, "the first publish is for the document's version")
        if final:
            check(final["params"].get("version") == 3, "the publish with the fence hints is for the same version")
            check(pubs.index(final) > 0, "the fence hints come in a later publish than the verdict")
            # Same violation in both.
            ferr = [d for d in final["params"]["diagnostics"] if d.get("severity") == 1]
            check([d["range"] for d in ferr] == [d["range"] for d in errors], "the violation's Error is the same in both")
    c.close()
finally:
    shutil.rmtree(root, ignore_errors=True)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all passed")

#!/usr/bin/env python3
"""Debugger step latency: `tsocheck dap` on a sample, 100 steps (next to the
end of the trace, then stepBack to the start, and so on), each timed from the
request to the answers a client like VS Code waits for before it shows the
stop: the `stopped` event, then threads, stackTrace of every thread, scopes,
the variables of every scope and tsocheckState.

usage: dap_steps.py [TSOCHECK_BIN] [SAMPLE.c] [STEPS] [--model M] [--function F] [--from-end]
Without SAMPLE: samples/peterson_buggy.c (29 steps) from its first step, and
bench/programs/dap_long_trace.c (~2,000 steps; its check takes a few seconds)
from its violation, stepping back first. Defaults: build/lsp/tsocheck, 100
steps; --from-end starts a given SAMPLE at its violation.
Prints the trace length, then the median and the maximum of the step alone
(request -> stopped) and of the step with the refresh. Figures only: nothing
passes or fails here.
"""
import argparse, json, os, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class Adapter:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "dap"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.seq = 1
        self.events = []

    def _read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the adapter closed its output")
            line = line.strip()
            if not line:
                break
            k, _, v = line.partition(b":")
            if k.lower() == b"content-length":
                length = int(v)
        return json.loads(self.p.stdout.read(length))

    def send(self, command, arguments=None):
        m = {"seq": self.seq, "type": "request", "command": command, "arguments": arguments or {}}
        self.seq += 1
        body = json.dumps(m).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()
        return m["seq"]

    def request(self, command, arguments=None):
        seq = self.send(command, arguments)
        while True:
            m = self._read()
            if m.get("type") == "response" and m.get("request_seq") == seq:
                if not m.get("success"):
                    raise RuntimeError(f"{command}: {m.get('message')}")
                return m.get("body", {})
            if m.get("type") == "event":
                self.events.append(m)

    def wait_event(self, name):
        for i, e in enumerate(self.events):
            if e.get("event") == name:
                return self.events.pop(i)
        while True:
            m = self._read()
            if m.get("type") == "event":
                if m.get("event") == name:
                    return m
                self.events.append(m)

    def close(self):
        try:
            self.request("disconnect")
        except Exception:
            pass
        self.p.stdin.close()
        self.p.wait(timeout=10)


def refresh(a):
    """What VS Code asks after a stop."""
    threads = a.request("threads")["threads"]
    for t in threads:
        a.request("stackTrace", {"threadId": t["id"], "startFrame": 0, "levels": 20})
    for s in a.request("scopes", {"frameId": threads[0]["id"]})["scopes"]:
        a.request("variables", {"variablesReference": s["variablesReference"]})
    a.request("tsocheckState")


def run_case(binary, sample, steps, model=None, function=None, from_end=False):
    a = Adapter(binary)
    a.request("initialize", {"adapterID": "tsocheck", "linesStartAt1": True, "columnsStartAt1": True})
    launch = {"program": os.path.abspath(sample), "stopOnEntry": not from_end}
    if model:
        launch["model"] = model
    if function:
        launch["function"] = function
    t0 = time.perf_counter()
    a.request("launch", launch)
    a.request("configurationDone")
    a.wait_event("stopped")
    launch_ms = (time.perf_counter() - t0) * 1000
    first = a.request("tsocheckState")
    total = first["total"]

    step_only, with_refresh = [], []
    pos = first["step"]
    forward = pos + 1 < total
    for _ in range(steps):
        if forward and pos + 1 >= total:
            forward = False
        elif not forward and pos == 0:
            forward = True
        t0 = time.perf_counter()
        a.send("next" if forward else "stepBack", {"threadId": 1})
        a.wait_event("stopped")
        t1 = time.perf_counter()
        refresh(a)
        t2 = time.perf_counter()
        pos += 1 if forward else -1
        step_only.append((t1 - t0) * 1000)
        with_refresh.append((t2 - t0) * 1000)
    a.close()

    name = os.path.relpath(sample, ROOT) if os.path.abspath(sample).startswith(ROOT) else sample
    print(f"{name}: {total} trace steps, launch (check + first stop) {launch_ms:.0f} ms, "
          f"{steps} steps (next/stepBack) from step {first['step'] + 1}")
    for label, xs in (("step (request -> stopped)", step_only), ("step + refresh (as VS Code asks)", with_refresh)):
        print(f"  {label:34s} median {statistics.median(xs):8.2f} ms   max {max(xs):8.2f} ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "lsp", "tsocheck"))
    ap.add_argument("sample", nargs="?")
    ap.add_argument("steps", nargs="?", type=int, default=100)
    ap.add_argument("--model")
    ap.add_argument("--function")
    ap.add_argument("--from-end", action="store_true")
    o = ap.parse_args()
    if o.sample:
        run_case(o.binary, o.sample, o.steps, o.model, o.function, o.from_end)
        return 0
    # Default: a short trace from its start, a ~2,000-step trace from its end.
    run_case(o.binary, os.path.join(ROOT, "samples", "peterson_buggy.c"), o.steps)
    run_case(o.binary, os.path.join(HERE, "programs", "dap_long_trace.c"), o.steps, from_end=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fuzz driver for `tsocheck dap`: a real launch of a buggy sample,
then N mutated or hostile DAP requests (random JSON types in arguments,
deep nesting, bad framing, invalid UTF-8); the adapter must stay up and answer
a final `threads` request.

usage: dap_fuzz.py TSOCHECK_BIN SAMPLES_DIR [--cases N] [--seed S]
"""
import argparse, json, os, queue, random, subprocess, sys, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("samples")
ap.add_argument("--cases", type=int, default=300)
ap.add_argument("--seed", type=int, default=None)
a = ap.parse_args()
seed = a.seed if a.seed is not None else int(time.time())
rng = random.Random(seed)
PROGRAM = os.path.join(a.samples, "dekker_buggy.c")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rpc_pipe import RpcPipe  # noqa: E402

peer = RpcPipe([a.bin, "dap"])
p, q, raw, send = peer.proc, peer.queue, peer.raw, peer.send
seq = [0]


def request(command, arguments):
    seq[0] += 1
    return {"seq": seq[0], "type": "request", "command": command, "arguments": arguments}


def wait_response(s, timeout):
    return peer.wait(lambda m: m.get("type") == "response" and m.get("request_seq") == s, timeout)


HOSTILE = [None, True, 0, -1, 2 ** 63, 1.5, "", "x" * 1000, [], {}, [[[]]], {"a": {}}]
COMMANDS = [("next", {"threadId": 1}), ("stepBack", {"threadId": 1}), ("continue", {"threadId": 1}),
            ("reverseContinue", {"threadId": 1}), ("stackTrace", {"threadId": 1}), ("scopes", {"frameId": 0}),
            ("variables", {"variablesReference": 1}), ("evaluate", {"expression": "flag[0]", "context": "watch"}),
            ("setBreakpoints", {"source": {"path": PROGRAM}, "breakpoints": [{"line": 20}]}), ("threads", {}),
            ("exceptionInfo", {"threadId": 1}), ("tsocheckState", {}), ("restart", {"arguments": {"program": PROGRAM}}),
            ("launch", {"program": PROGRAM, "model": "tso"}), ("initialize", {"adapterID": "x"})]


def mutate(v, depth=0):
    if depth > 3 or rng.random() < 0.2:
        return rng.choice(HOSTILE)
    if isinstance(v, dict):
        v = dict(v)
        if v:
            k = rng.choice(list(v))
            v[k] = mutate(v[k], depth + 1)
        return v
    return v


s0 = request("initialize", {"adapterID": "tsocheck", "linesStartAt1": True})
send(s0)
ok = wait_response(s0["seq"], 20) is not None
send(request("launch", {"program": PROGRAM, "model": "tso"}))
send(request("configurationDone", {}))
sent = 0
t0 = time.time()
for i in range(a.cases):
    if p.poll() is not None:
        break
    cmd, args = rng.choice(COMMANDS)
    m = request(cmd, args)
    kind = rng.randrange(8)
    try:
        if kind < 4:
            m["arguments"] = mutate(m["arguments"])
            send(m)
        elif kind == 4:
            d = rng.choice([1000, 300000])
            send(b'{"seq":1,"type":"request","command":"launch","arguments":' + b'{"a":' * d + b"1" + b"}" * d + b"}")
        elif kind == 5:
            b = json.dumps(m).encode()
            raw(rng.choice([b"Content-Length: %d\r\n\r\n" % max(0, len(b) - 3) + b,
                            b"Content-Length: %d\r\n\r\n" % (len(b) + 50) + b, b"junk\r\n" + b]))
        elif kind == 6:
            send(json.dumps(m).encode().replace(b"program", b"pro\xffgram", 1))
        else:
            send(m)
        sent += 1
    except BrokenPipeError:
        break
    while not q.empty():
        if q.get() is None:
            break
final = request("threads", {})
try:
    send(final)
    r = wait_response(final["seq"], 60)
except BrokenPipeError:
    r = None
alive = p.poll() is None
p.kill()
p.wait()
print("dap fuzz: seed %d, %d/%d cases sent in %.1f s, final request %s, adapter %s" %
      (seed, sent, a.cases, time.time() - t0, "answered" if r else "LOST", "alive" if alive else "DEAD"))
sys.exit(0 if ok and sent == a.cases and r is not None and alive else 1)

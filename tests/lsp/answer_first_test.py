#!/usr/bin/env python3
"""The answer first, the fix second: `tsocheck lsp` publishes a
check's violation as soon as the exploration finds it — without fence hints —
and publishes again, with the fence hints (and code actions), when fence
synthesis ends. Both publishes carry the same document version.

usage: answer_first_test.py TSOCHECK_BIN SAMPLES_DIR INPUTS_DIR
"""
import os, random, shutil, sys, tempfile

import protocol_test as P
from protocol_test import Client, check

SAMPLES = P.SAMPLES
failures = P.failures


root = tempfile.mkdtemp(prefix="tsocheck-answer-first-")
try:
    src = os.path.join(root, "peterson_buggy.c")
    shutil.copy(os.path.join(SAMPLES, "peterson_buggy.c"), src)
    uri = "file://" + src
    # A fence time limit of its own: a result cached by an earlier run (other
    # settings) cannot answer, so this run explores and synthesizes.
    c = Client(root, options={"fenceTimeLimit": 30 + random.random()})
    c.open(src, version=3)

    def publish(m):
        return m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri

    def has_fence(m):
        return any(d.get("code") == "fence" for d in m["params"]["diagnostics"])

    final = c.wait(lambda m: publish(m) and has_fence(m), 120)
    rounds = [m for m in c.seen if m.get("method") == "window/logMessage"
              and "fence synthesis round 1" in m["params"]["message"]]
    check(len(rounds) >= 1, "the synthesis rounds are logged as they end")
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

P.finish()

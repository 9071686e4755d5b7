#!/usr/bin/env python3
"""Where does it break, in the editor: with the setting compareModels the
language server also checks each check under the listed models and shows the
line `SC ✓  TSO ✓  PSO ✓  RC11 ✗` (the CLI's `--model sc,tso,pso,rc11` line
for the same file) in the check's code lens, its hover and tsocheck/status,
after the chosen model's diagnostics, which stay the chosen model's. The line
of an older text is never shown; an unchanged file is compared from the
cache; a setting change re-checks; without the setting there is no line.

usage: compare_models_test.py TSOCHECK_BIN SAMPLES_DIR INPUTS_DIR
"""
import json, os, shutil, subprocess, sys, tempfile

import protocol_test as P
from protocol_test import Client, check, copy, line_of

BIN, SAMPLES = P.BIN, P.SAMPLES
ALL = ["sc", "tso", "pso", "rc11"]


def cli_line(path, models):
    """The CLI's summary line of the file's first check under `models`."""
    out = subprocess.run([BIN, "check", path, "--model", ",".join(models), "--json"], capture_output=True, text=True)
    return json.loads(out.stdout)["models"][0]["summary"]


def publishes(c, uri):
    return [m["params"] for m in c.seen if m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri]


def status_with_models(c, uri, timeout=90):
    """The next tsocheck/status of uri whose checks carry the models line."""
    m = c.wait(lambda m: m.get("method") == "tsocheck/status" and m["params"]["uri"] == uri
               and not m["params"]["checking"] and any("models" in x for x in m["params"]["checks"]), timeout)
    return m["params"] if m else None


def lens_titles(c, uri):
    r = c.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    return [l["command"]["title"] for l in (r or {}).get("result") or []]


def hover_text(c, uri, line):
    r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": 6}})
    res = (r or {}).get("result")
    return res["contents"]["value"] if res else ""


def main():
    root = tempfile.mkdtemp(prefix="tsocheck-compare-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(root, ".xdg-cache")
    path = copy(root, os.path.join(SAMPLES, "c11_mp_relaxed_buggy.c"), "mp.c")
    want = cli_line(path, ALL)
    check(want == "SC ✓  TSO ✓  PSO ✓  RC11 ✗", "the CLI's line for the sample: %r" % want)
    fn_line = line_of(path, "c11_message_passing")

    # --- the four models, chosen TSO -------------------------------------------------
    c = Client(root, progress=True, options={"tsocheck": {"model": "tso", "compareModels": ALL}})
    try:
        uri = c.open(path)
        st = status_with_models(c, uri)
        check(st is not None and [x.get("models") for x in st["checks"]] == [want],
              "tsocheck/status carries the line: %s" % (st and st["checks"]))
        check(st is not None and st["file"]["state"] == "verified" and st["checks"][0]["model"] == "TSO",
              "the file's state is the chosen model's: %s" % (st and st["file"]))
        pubs = publishes(c, uri)
        check(len(pubs) >= 1 and all(p["diagnostics"] == [] for p in pubs),
              "diagnostics are TSO's (none), published before the line; the other models publish none: %s" % pubs)
        titles = lens_titles(c, uri)
        check(want in titles, "a lens shows the line: %s" % titles)
        check(any(t.startswith("✓ verified under TSO") for t in titles), "the verdict lens is TSO's: %s" % titles)
        h = hover_text(c, uri, fn_line)
        check("`c11_message_passing` under each model: `%s`" % want in h, "the hover on the check shows the line: %r" % h)

        # An edit: until the new text is compared, no line (the old one is of the old text).
        text = open(path).read()
        n = text.count("\n")
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 0}}, "text": "\n"}]})
        titles = lens_titles(c, uri)
        check(want not in titles, "right after an edit the old line is not shown: %s" % titles)
        check("under each model" not in hover_text(c, uri, fn_line), "nor in the hover")
        st = status_with_models(c, uri)
        check(st is not None and st["checks"][0]["models"] == want, "the edited text is compared again")
        # Same program (a blank line at the end): every model's verdict from the cache.
        done = c.log_with("compared %s v2 under each model" % path)
        done = done and done["params"]["message"]
        check(done and "0 checked, 3 from cache" in done, "an unchanged program costs nothing: %s" % done)
        check(want in lens_titles(c, uri), "the lens shows the line again")

        # A setting change re-checks; the chosen model, when not listed, goes in at its place.
        # Another chosen model: it is part of the line, and the diagnostics are its own.
        for model, listed, line in (("tso", ["sc", "rc11"], "SC ✓  TSO ✓  RC11 ✗"),
                                    ("rc11", ["tso", "pso"], "TSO ✓  PSO ✓  RC11 ✗")):
            c.notify("workspace/didChangeConfiguration",
                     {"settings": {"tsocheck": {"model": model, "compareModels": listed}}})
            st = status_with_models(c, uri)
            got = st and st["checks"][0]["models"]
            cli = cli_line(path, sorted(set(listed + [model]), key=ALL.index))
            check(got == cli == line, "%s with %s: %r (the CLI: %r)" % (model, listed, got, cli))
        pubs = publishes(c, uri)
        errs = [d for d in pubs[-1]["diagnostics"] if d["severity"] == 1] if pubs else []
        check(len(errs) == 1 and errs[0]["code"] == "rc11-assertion", "the diagnostics follow the chosen model (RC11)")

        # Off again: no line, and a bad value is refused by name.
        c.notify("workspace/didChangeConfiguration", {"settings": {"tsocheck": {"model": "tso", "compareModels": []}}})
        P.checked(c, uri)
        titles = lens_titles(c, uri)
        check(not any("✓  " in t or "✗  " in t for t in titles), "setting emptied: no line in the lens: %s" % titles)
        c.notify("workspace/didChangeConfiguration", {"settings": {"tsocheck": {"compareModels": "sc,tso"}}})
        m = c.wait(lambda m: m.get("method") == "window/showMessage" and "compareModels" in m["params"]["message"], 10)
        check(m is not None and "compareModels must be a list of" in m["params"]["message"],
              "a bad compareModels value is refused: %s" % (m and m["params"]["message"]))
    finally:
        c.close()

    # --- without the setting: no line --------------------------------------------------
    c = Client(root, options={"tsocheck": {"model": "tso"}})
    try:
        uri = c.open(path)
        st = P.checked(c, uri, timeout=90)
        check(st is not None and not any("models" in x for x in st["params"]["checks"]), "no line in tsocheck/status")
        titles = lens_titles(c, uri)
        check(want not in titles and not any("SC ✓" in t for t in titles), "no line in the lens: %s" % titles)
        check("under each model" not in hover_text(c, uri, fn_line), "no line in the hover")
    finally:
        c.close()

    shutil.rmtree(root, ignore_errors=True)
    P.finish()


if __name__ == "__main__":
    main()

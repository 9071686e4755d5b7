#!/usr/bin/env python3
"""The editors' settings against the option schema: the keys and choices of
`tsocheck options --json` (service/check_options.cpp and the language server's
own settings) are the `tsocheck.*` settings vscode-extension/package.json
contributes (with their enums and value types), the keys
vscode-extension/src/settings.ts sends, and the README's option table.

usage: settings_keys_test.py TSOCHECK_BIN SOURCE_DIR
"""
import json, os, re, subprocess, sys

BIN, SRC = sys.argv[1:3]
failures = []

# Settings the VS Code client reads itself; the server never sees them.
CLIENT_OWN = {"serverPath", "debugAdapterPath", "trace.server"}
# How a value kind is typed in package.json.
TYPES = {"switch": {"boolean"}, "count": {"integer"}, "mib": {"integer"}, "seconds": {"number"},
         "range": {"integer", "string"}, "nondet-range": {"string"}, "path": {"string"}, "choice": {"string"}}


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


schema = json.loads(subprocess.run([BIN, "options", "--json"], capture_output=True, text=True, check=True).stdout)
options = schema["options"]
editor = {o["key"]: o for o in options if o["editor_setting"]}
server = {s["key"]: s for s in schema["server"]}
expected = set(editor) | set(server)
check(len(editor) > 10 and "model" in editor and "checkOn" in server, "the schema lists the options")

# package.json
pkg = json.load(open(os.path.join(SRC, "vscode-extension/package.json")))
conf = pkg["contributes"]["configuration"]
props = {}
for c in (conf if isinstance(conf, list) else [conf]):
    props.update(c["properties"])
keys = {k[len("tsocheck."):]: v for k, v in props.items() if k.startswith("tsocheck.")}
check(set(keys) - CLIENT_OWN == expected,
      "package.json's tsocheck.* settings are the schema's: missing %s, unknown %s"
      % (sorted(expected - set(keys)), sorted(set(keys) - CLIENT_OWN - expected)))
for k, spec in sorted({**editor, **server}.items()):
    if k not in keys:
        continue
    enum = [e for e in keys[k].get("enum", []) if e is not None and e != "default"]
    if spec.get("choices"):
        check(enum == spec["choices"], "tsocheck.%s: enum %s is the schema's %s" % (k, enum, spec["choices"]))
    else:
        check(not enum, "tsocheck.%s: no enum (the schema has no choices)" % k)
    if "items" in spec:  # a list setting: an array of the schema's items
        items = keys[k].get("items", {})
        check(keys[k]["type"] == "array" and items.get("enum") == spec["items"],
              "tsocheck.%s: an array of %s, as the schema's items %s" % (k, items.get("enum"), spec["items"]))
    if "kind" in spec:
        types = keys[k]["type"] if isinstance(keys[k]["type"], list) else [keys[k]["type"]]
        check(TYPES[spec["kind"]] <= set(types) and set(types) <= TYPES[spec["kind"]] | {"null"},
              "tsocheck.%s: type %s fits a %s" % (k, types, spec["kind"]))

# settings.ts: the keys the client sends the server.
ts = open(os.path.join(SRC, "vscode-extension/src/settings.ts")).read()
m = re.search(r"serverSettingKeys\s*=\s*\[(.*?)\]\s*as const", ts, re.S)
sent = set(re.findall(r"'([^']+)'", m.group(1))) if m else set()
check(sent == expected, "settings.ts sends the schema's keys: missing %s, unknown %s"
      % (sorted(expected - sent), sorted(sent - expected)))

# README: the option table (command line | annotation | editor setting / debug
# launch) names every option at each door, and the server's settings.
readme = open(os.path.join(SRC, "README.md")).read()
start = readme.find("| command line | annotation | editor setting / debug launch |")
rows = []
for line in readme[start:].split("\n")[2:]:
    if not line.strip().startswith("|"):
        break
    rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
check(start >= 0 and len(rows) > 10, "README has the option table")
flags = {f for r in rows for f in re.findall(r"`(--[a-z-]+)", r[0])}
names = {n for r in rows for n in re.findall(r"`([a-z_]+)[=`]", r[1])}
settings = {n for r in rows for n in re.findall(r"`([a-zA-Z]+)`", r[2])}
want = {o["negation"] or o["flag"] for o in options}
check(flags == want, "README table: the command-line flags (a switch's negation for one with it): missing %s, unknown %s"
      % (sorted(want - flags), sorted(flags - want)))
check(names == {o["annotation"] for o in options if o["annotation"]},
      "README table: the annotation names: missing %s, unknown %s"
      % (sorted({o["annotation"] for o in options if o["annotation"]} - names),
         sorted(names - {o["annotation"] for o in options if o["annotation"]})))
check(settings == {o["key"] for o in options}, "README table: the settings keys: missing %s, unknown %s"
      % (sorted({o["key"] for o in options} - settings), sorted(settings - {o["key"] for o in options})))
for k in server:
    check(("`%s`" % k) in readme, "README names the server setting " + k)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)

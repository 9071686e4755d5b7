#!/usr/bin/env python3
"""--memory-limit holds for all the checks of a run together: a file of
cheap checks and one that would outgrow the limit, run under
--memory-limit 200. Every cheap check has its result, the hungry one is
reported as stopped at the limit, and the memory the run gained stays
within 20% of the limit (the state search ends when the process passes it,
not only at its own estimate of what it holds; the figure is printed).

usage: memory_limit_test.py TSOCHECK_BIN INPUTS_DIR
"""
import json, os, subprocess, sys

BIN, INPUTS = sys.argv[1:3]
LIMIT = 200
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def run(*args):
    p = subprocess.run([BIN, "check", "--json", "--time-limit", "120"] + list(args), capture_output=True, text=True)
    return json.loads(p.stdout)


base = run(os.path.join(INPUTS, "mp_no_assert.c"))
startup = base["stats"]["explorer_peak_rss_kb"] / 1024
j = run("--memory-limit", str(LIMIT), os.path.join(INPUTS, "memory_hog.c"))
by = {r["function"]: r for r in j["results"]}
check(by.get("cheap_first", {}).get("status") == "verified", "the check before the hungry one has its result")
check(by.get("cheap_last", {}).get("status") == "verified", "the check after the hungry one has its result")
hungry = by.get("hungry", {})
text = json.dumps(hungry)
stopped = hungry.get("status") == "error" and "used more than %d MiB of memory together" % LIMIT in text
cut = hungry.get("status") == "bounded" and "state memory limit (%d MiB" % LIMIT in text
check(stopped or cut, "the hungry check is reported as stopped at the limit (%s)" % hungry.get("status"))
used = j["stats"]["explorer_peak_rss_kb"] / 1024 - startup
print("memory limit %d MiB: the checks used %.0f MiB at the peak (start-up %.0f MiB)" % (LIMIT, used, startup))
check(used < 1.2 * LIMIT, "the run stays within 20%% of the limit (%.0f MiB)" % used)
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all passed")

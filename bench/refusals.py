#!/usr/bin/env python3
"""How much of an existing test suite tsocheck accepts.

Runs `tsocheck check --main` on every C file given (or found under the given
directories; for GenMC's tests, the `variants/*.c` files, which include the
test body and have the `main`), with a time limit per file, and prints:
the number of files per outcome (verified, violation, bounded, timeout,
refused: an `error` status or a compile error), the refusal rate, and the
refusal reasons grouped by their message (file:line:col and names dropped),
most frequent first. Figures only: nothing passes or fails.

  bench/refusals.py [--time-limit S] [--jobs N] [--tsocheck BIN] [--list] DIR_OR_FILE...

A peer's suite is not part of this project: fetch it first (e.g. GenMC's
tests/correct and tests/wrong; their -D flags are read from the test's
args.*.in, as GenMC's own runner does).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def files_of(paths):
    out = []
    for p in paths:
        if os.path.isfile(p):
            out.append(p)
            continue
        for root, _, names in os.walk(p):
            for n in names:
                if not n.endswith(".c"):
                    continue
                # GenMC's layout: the test body sits next to `variants/`, whose files include it.
                if os.path.isdir(os.path.join(root, "variants")):
                    continue
                out.append(os.path.join(root, n))
    return sorted(out)


def reason_of(message):
    m = re.sub(r"\S+\.[ch]:\d+(:\d+)?", "<loc>", message)
    m = re.sub(r"`[^`]*`", "`…`", m)
    m = re.sub(r"'[^']*'", "'…'", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m.strip()[:110]


def defines_for(path):
    """GenMC's layout: the test's -D flags sit in args.*.in next to `variants/`
    (e.g. "-lapor  | -DN=2"); the first file's defines are used."""
    d = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    if os.path.basename(os.path.dirname(os.path.abspath(path))) != "variants":
        return []
    for name in sorted(os.listdir(d)):
        if name.startswith("args.") and name.endswith(".in"):
            with open(os.path.join(d, name), errors="replace") as f:
                for line in f:
                    flags = re.findall(r"-D\S+", line)
                    if flags:
                        return flags
    return []


def run_one(binary, path, time_limit):
    cmd = [binary, "check", "--main", "--no-fences", "--json", "--time-limit", str(time_limit), path]
    defines = defines_for(path)
    if defines:
        cmd += ["--"] + defines
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit * 4 + 30)
    except subprocess.TimeoutExpired:
        return path, "hang", "the process outlived 4x its time limit"
    try:
        j = json.loads(p.stdout)
    except json.JSONDecodeError:
        return path, "crash" if p.returncode not in (0, 1, 2) else "refused", (p.stderr or p.stdout).strip()[:300]
    if j.get("errors"):
        e = j["errors"][0]
        diags = e.get("diagnostics") or []
        msg = e.get("message", "")
        if diags:
            msg = diags[0].get("message", msg)
        return path, "refused", msg
    res = j.get("results", [])
    main = [r for r in res if r.get("function") == "main"] or res
    if not main:
        return path, "refused", "no check function"
    r = main[0]
    if r["status"] == "error":
        return path, "refused", (r.get("error") or {}).get("message") or r.get("message", "")
    return path, r["status"], r.get("message", "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--time-limit", type=float, default=2)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--tsocheck", default=os.path.join(HERE, "..", "build", "lsp", "tsocheck"))
    ap.add_argument("--list", action="store_true", help="also list every refused file with its reason")
    a = ap.parse_args()
    files = files_of(a.paths)
    if not files:
        sys.exit("no C files found")
    outcomes = collections.Counter()
    reasons = collections.Counter()
    examples = {}
    refused = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for path, status, msg in ex.map(lambda f: run_one(a.tsocheck, f, a.time_limit), files):
            outcomes[status] += 1
            if status in ("refused", "crash", "hang"):
                r = reason_of(msg)
                reasons[r] += 1
                examples.setdefault(r, path)
                refused.append((path, msg))
    n = len(files)
    print(f"{n} files, time limit {a.time_limit:g} s each")
    for k in ("verified", "violation", "bounded", "timeout", "refused", "crash", "hang"):
        if outcomes[k]:
            print(f"  {k:<10} {outcomes[k]:5d}  {100.0 * outcomes[k] / n:5.1f}%")
    bad = outcomes["refused"] + outcomes["crash"] + outcomes["hang"]
    print(f"refusal rate: {100.0 * bad / n:.1f}% ({bad} of {n})")
    if reasons:
        print("reasons (count, reason, one example):")
        for r, c in reasons.most_common():
            print(f"  {c:4d}  {r}\n        {examples[r]}")
    if a.list:
        for path, msg in refused:
            print(f"{path}: {msg}")


if __name__ == "__main__":
    main()

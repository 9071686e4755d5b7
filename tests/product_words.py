#!/usr/bin/env python3
"""Product files speak of the product only.

Every file git tracks in the source tree (code, comments, tests, samples,
bench scripts, README, ARCHITECTURE, CHANGELOG, bench/RESULTS) is read, and a
line fails when it names something a reader of the product cannot look up:

  * a tracker number: the word "issue" or "issues" followed by a number (with
    or without '#'), or '#' and a number after a word that cites a ticket
    (fixes, closes, resolves, see, refs, pr, bug, ticket) or inside
    parentheses on its own, as in "(#<n>)";
  * a work-log number: "stop" or "stops" followed by a number;
  * a paper cited by its file in the paper collection: "seed" followed by a
    zero-padded three-digit number (the collection numbers its papers from
    zero with three digits) or the file's name itself, three digits, '_' and
    sixteen hex digits.

A random seed is legitimate product text: the fuzzers, the soak and the
property tests print "seed <n>" with the number as generated, never
zero-padded, so "seed 4101", "soak seed 430037" and "seeds 1..300" pass.
Cite a paper by its authors or short name instead (ARCHITECTURE.md,
"References", gives each once in full).

Usage: product_words.py SOURCE_DIR       check the tracked files
       product_words.py --self-test      check the patterns on fixed lines
Exit status: 0 clean, 1 a forbidden mention (each printed as file:line),
77 when SOURCE_DIR is not a git checkout (nothing to list).
"""

import re
import subprocess
import sys

PATTERNS = [
    ("tracker number", re.compile(r"\bissues?\s*#?\s*\d+", re.IGNORECASE)),
    ("tracker number", re.compile(
        r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|see|refs?|pr|pull request|bug|ticket)\s+#\d+",
        re.IGNORECASE)),
    ("tracker number", re.compile(r"\(#\d+\)")),
    ("work-log number", re.compile(r"\bstops?\s+\d+", re.IGNORECASE)),
    ("paper by file number", re.compile(r"\bseeds?\s+0\d\d\b", re.IGNORECASE)),
    ("paper file name", re.compile(r"\b\d{3}_[0-9a-f]{16}\b")),
]

# Lines the patterns must flag, and lines they must let through.
# The forbidden lines are written with placeholders ({n}: a number, {p}: a
# zero-padded paper number, {h}: sixteen hex digits) so that this file does
# not flag itself.
SELF_TEST_BAD = [s.format(n="14", p="004", h="a4a12dc295013366") for s in [
    "the order before issue {n}",
    "Issue {n}: a loop",
    "(issue #{n})",
    "see #{n} for the rest",
    "fixed in (#{n})",
    "measured until stop {n}",
    "Stops {n} and 41 measured it",
    "seed {p}'s Figure 1",
    "Seed {p}, Buster",
    "seeds {p}/002",
    "see 003_{h}.txt",
]]
SELF_TEST_GOOD = [
    "fuzz seed 4101 found it",
    "(soak seed 430037)",
    "Seeds 1..1000 run in the property test",
    "INFO(\"seed \" << seed)",
    "#include <stdatomic.h>",
    "color: #333;",
    "printf(\"%#08x\", v);",
    "the search stops at the first error",
    "a thread that never stops, 2 threads",
    "no issue with it",
    "Buster's slack (Marmanis et al., TACAS 2023)",
]


def findings(line):
    return [what for what, rx in PATTERNS if rx.search(line)]


def self_test():
    ok = True
    for line in SELF_TEST_BAD:
        if not findings(line):
            print(f"self-test: not flagged: {line!r}")
            ok = False
    for line in SELF_TEST_GOOD:
        if findings(line):
            print(f"self-test: wrongly flagged: {line!r}")
            ok = False
    return ok


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    if argv[1] == "--self-test":
        return 0 if self_test() else 1
    if not self_test():
        return 1
    root = argv[1]
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        print(f"{root}: not a git checkout; nothing to check")
        return 77
    bad = 0
    for name in filter(None, out.decode("utf-8", "replace").split("\0")):
        try:
            with open(f"{root}/{name}", "rb") as f:
                data = f.read()
        except OSError:
            continue  # listed but absent (deleted in the work tree)
        if b"\0" in data:
            continue  # binary
        text = data.decode("utf-8", "replace")
        for no, line in enumerate(text.splitlines(), 1):
            for what in findings(line):
                print(f"{name}:{no}: {what}: {line.strip()[:160]}")
                bad += 1
    if bad:
        print(f"{bad} line(s) name a tracker, work-log or paper-file number; "
              "say what the thing checks, or cite the paper by its authors")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

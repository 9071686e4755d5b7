#!/usr/bin/env bash
# Time to the answer and time to the fix: szymanski, Lamport's fast
# mutex and the bakery with plain (non-atomic) accesses (bench/programs/
# *_plain.c) under TSO and PSO. Per program and model: when the verdict line
# appeared on stdout (s), when the run ended with the fix (s), the fence
# synthesis rounds, the fences offered and how synthesis ended. With
# OLD=/path/to/tsocheck (e.g. a build of main) the same for that binary, in the
# same run. Figures only: nothing passes or fails.
#   bench/fences.sh [--quick] [-- extra tsocheck args, e.g. --fence-time-limit 30]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/lsp/tsocheck
[ -x "$bin" ] || cmake --build build --target tsocheck
quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
[ "${1:-}" = "--" ] && shift
# label | file | -D defines
programs=(
  "szymanski|szymanski_plain.c|-DROUNDS=1"
  "szymanski(2)|szymanski_plain.c|-DROUNDS=2"
  "lamport|lamport_plain.c|-DROUNDS=1"
  "lamport(2)|lamport_plain.c|-DROUNDS=2"
  "bakery(2thr)|bakery_plain.c|-DN=2"
  "bakery(3thr)|bakery_plain.c|-DN=3"
)
if [ "$quick" = 0 ]; then
  programs+=(
    "lamport(3)|lamport_plain.c|-DROUNDS=3"
    "bakery(3thr,2)|bakery_plain.c|-DN=3 -DROUNDS=2"
  )
fi
bins=("new=$bin")
[ -n "${OLD:-}" ] && bins+=("old=$OLD")
printf '%-15s %-4s %-4s %9s %9s %7s %7s  %s\n' program model bin verdict_s fix_s rounds fences ending
for p in "${programs[@]}"; do
  IFS='|' read -r label file defines <<<"$p"
  for model in tso pso; do
    for b in "${bins[@]}"; do
      name=${b%%=*}; exe=${b#*=}
      # shellcheck disable=SC2086
      python3 - "$exe" "bench/programs/$file" "$model" "$label" "$name" "$@" -- $defines <<'PY'
import re, subprocess, sys, time
exe, src, model, label, name = sys.argv[1:6]
rest = sys.argv[6:]
cut = rest.index("--")
extra, defines = rest[:cut], rest[cut + 1:]
t0 = time.monotonic()
p = subprocess.Popen([exe, "check", src, "--model", model] + extra + ["--"] + defines,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
verdict = None
out = []
for line in p.stdout:
    if verdict is None and re.search(r": (VIOLATION|verified|bounded|timeout|error) under ", line):
        verdict = time.monotonic() - t0
    out.append(line)
p.wait()
end = time.monotonic() - t0
text = "".join(out)
m = re.search(r"fix: insert (\d+) fence", text)
fences = m.group(1) if m else "-"
m = re.search(r"(?:found in|after) ([\d,]+) rounds?", text)
rounds = m.group(1) if m else "-"
ending = "fixed" if m and fences != "-" else "-"
for key, word in (("not known to be the fewest", "fixed, not minimal"), ("fence synthesis stopped", "stopped (fence time limit)"),
                  ("gave up", "gave up"), ("no fix offered", "no fix offered"), ("no fence can fix it", "SC violation")):
    if key in text:
        ending = word
        break
if "VIOLATION" not in text:
    ending = "no violation"
print("%-15s %-4s %-4s %9.2f %9.2f %7s %7s  %s" % (label, model, name, verdict if verdict is not None else end, end,
                                                  rounds, fences, ending))
PY
    done
  done
done

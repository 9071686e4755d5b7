#!/usr/bin/env bash
# The cost of --robustness: the same checks with and without it (best of 3
# check times, --keep-going --no-fences so both explore every execution), the
# ratio, and the robustness verdict. Figures only: nothing passes or fails.
#   bench/robustness.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--no-build" ] || scripts/setup.sh >&2
bin=build/lsp/tsocheck

run() {  # label model file [-- clang args]
  local label=$1 model=$2 file=$3
  shift 3
  python3 - "$bin" "$label" "$model" "$file" "$@" <<'EOF'
import json, subprocess, sys
bin, label, model, file, *extra = sys.argv[1:]
def times(robust):
    best, last = None, None
    for _ in range(3):
        args = [bin, "check", file, "--json", "--keep-going", "--no-fences", "--model", model]
        if robust:
            args.append("--robustness")
        out = subprocess.run(args + extra, capture_output=True, text=True).stdout
        j = json.loads(out[out.index("{"):])
        ms = sum(r["elapsed_ms"] for r in j["results"])
        best = ms if best is None else min(best, ms)
        last = j["results"]
    return best, last
plain, _ = times(False)
rob, res = times(True)
execs = sum(r["executions"] for r in res)
verdict = ",".join("robust" if r["robustness"] and r["robustness"]["robust"] else "NOT robust" for r in res)
print("%-30s %-4s %9d %10.2f %10.2f %7.2f  %s" % (label, model.upper(), execs, plain, rob, rob / plain if plain else 0, verdict))
EOF
}

printf '%-30s %-4s %9s %10s %10s %7s  %s\n' program mdl execs plain_ms robust_ms ratio verdict
for f in samples/*_fixed.c samples/litmus/*.c; do
  for m in tso pso; do run "$(basename "$f")" "$m" "$f"; done
done
run "counters 3 threads x 2" tso bench/programs/counters.c -- -DTHREADS=3 -DROUNDS=2
run "counters 5 threads x 1" tso bench/programs/counters.c -- -DTHREADS=5 -DROUNDS=1
run "indexer 3 threads x 3" tso bench/programs/indexer.c -- -DTHREADS=3 -DPER_THREAD=3

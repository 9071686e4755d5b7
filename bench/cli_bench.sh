#!/usr/bin/env bash
# Times `tsocheck check` on every bundled sample and on larger programs with
# tens of thousands of executions. Prints parse+lower time, check time,
# executions/s and peak memory per run. Figures only: nothing passes or fails.
#   bench/cli_bench.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--no-build" ] || scripts/setup.sh >&2
bin=build/lsp/tsocheck

run() {  # label file [args...]
  local label=$1 file=$2
  shift 2
  "$bin" check "$file" --json --keep-going "$@" 2>/dev/null | python3 -c '
import json, sys
label = sys.argv[1]
j = json.load(sys.stdin)
rss = j.get("stats", {}).get("peak_rss_kb", 0) / 1024
for r in j["results"]:
    ms = r["elapsed_ms"]
    rate = r["executions"] / (ms / 1000) if ms > 0 else float("inf")
    print("%-34s %-4s %-10s %9d %9.1f %10.1f %11.0f %8.1f" % (label, r["model"], r["status"], r["executions"], r["lower_ms"], ms, rate, rss))
' "$label" || true
}

printf '%-34s %-4s %-10s %9s %9s %10s %11s %8s\n' program model status execs lower_ms check_ms execs/s rss_MB
for f in samples/*.c samples/litmus/*.c; do
  run "$(basename "$f")" "$f" --model tso
done
run "counters 3 threads x 2" bench/programs/counters.c --model tso -- -DTHREADS=3 -DROUNDS=2
run "counters 5 threads x 1" bench/programs/counters.c --model tso -- -DTHREADS=5 -DROUNDS=1
run "counters 5 threads x 1 (SC)" bench/programs/counters.c --model sc -- -DTHREADS=5 -DROUNDS=1
run "indexer 3 threads x 3" bench/programs/indexer.c --model tso -- -DTHREADS=3 -DPER_THREAD=3
run "counters 3 threads x 3" bench/programs/counters.c --model tso -- -DTHREADS=3 -DROUNDS=3

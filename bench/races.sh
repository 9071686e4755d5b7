#!/usr/bin/env bash
# Cost of the data-race check: the same check with and without it
# (--no-race-check), alternating, best of R runs each, in one run. Prints
# per program and model: executions, races reported, CPU seconds with and
# without, and the ratio. Figures only: nothing passes or fails.
#   bench/races.sh [--quick]     (--quick: 3 runs each instead of 5)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/lsp/tsocheck
[ -x "$bin" ] || cmake --build build --target tsocheck
runs=5
[ "${1:-}" = "--quick" ] && runs=3

# label | file | model | -D defines (programs with plain accesses)
programs=(
  "fib_bench(6)|fib_bench.c|sc|-DNUM=6"
  "fib_bench(6)|fib_bench.c|tso|-DNUM=6"
  "lastzero(13)|lastzero.c|tso|-DN=13"
  "counters(3x3)|counters.c|tso|-DTHREADS=3 -DROUNDS=3"
)

cpu() {  # user+sys seconds of one check
  local out
  out=$( { /usr/bin/time -f "%U %S" "$bin" check --no-fences --json "$@" >/tmp/tsocheck-races-bench.json; } 2>&1 | tail -1)
  awk '{printf "%.3f", $1 + $2}' <<<"$out"
}

printf "%-14s %-4s %10s %6s %9s %9s %7s\n" program model executions races "with(s)" "without" ratio
for p in "${programs[@]}"; do
  IFS='|' read -r label file model defs <<<"$p"
  args=(--model "$model" "bench/programs/$file" -- $defs)
  best_on=999999 best_off=999999
  for ((i = 0; i < runs; i++)); do
    t=$(cpu "${args[@]}"); best_on=$(awk -v a="$t" -v b="$best_on" 'BEGIN{print (a<b)?a:b}')
    execs=$(python3 -c "import json; r=json.load(open('/tmp/tsocheck-races-bench.json'))['results'][0]; print(r['executions'], sum(1 for v in r['violations'] if v['kind']=='race'))")
    t=$("$bin" --version >/dev/null 2>&1; cpu --no-race-check "${args[@]}"); best_off=$(awk -v a="$t" -v b="$best_off" 'BEGIN{print (a<b)?a:b}')
  done
  read -r n races <<<"$execs"
  printf "%-14s %-4s %10s %6s %9.3f %9.3f %7.2f\n" "$label" "$model" "$n" "$races" "$best_on" "$best_off" \
    "$(awk -v a="$best_on" -v b="$best_off" 'BEGIN{print (b>0)?a/b:0}')"
done
rm -f /tmp/tsocheck-races-bench.json

#!/usr/bin/env bash
# Parallel exploration (--jobs): per program and model, executions and wall
# time with one worker and with N (default: the machine's cores), the
# speedup, the CPU time and peak RSS of both, and whether the results agree
# (status, executions, blocked, events). Runs alternate between the two
# settings; the best of R runs (default 3) is shown. Figures only.
#   bench/jobs.sh [--quick] [N] [R]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/lsp/tsocheck
[ -x "$bin" ] || cmake --build build --target tsocheck
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
jobs="${1:-$(nproc)}"
reps="${2:-3}"

# label | file | model | tsocheck args | -D defines
programs=(
  "fib_bench(5)|fib_bench.c|tso||-DNUM=5"
  "lastzero(15)|lastzero.c|sc|--loop-bound 17|-DN=15"
  "indexer(15)|indexer_classic.c|sc||-DN=15"
  "readers(13)|readers.c|tso||-DN=13"
  "szymanski|szymanski_plain.c|tso|--keep-going|"
)
if [ "$quick" = 0 ]; then
  programs+=(
    "lastzero(15)|lastzero.c|tso|--loop-bound 17|-DN=15"
    "fib_bench(6)|fib_bench.c|sc||-DNUM=6"
    "counters(3x3)|counters.c|tso||"
  )
fi

run() {  # jobs model args defines file -> "status executions blocked events wall_s cpu_s rss_mb"
  local j=$1 model=$2 args=$3 defs=$4 file=$5 out tm
  out=$(mktemp) tm=$(mktemp)
  # shellcheck disable=SC2086
  /usr/bin/time -o "$tm" -f "%e %U %S %M" "$bin" check --json --no-fences --jobs "$j" --model "$model" $args \
    "bench/programs/$file" -- $defs >"$out" 2>/dev/null || true
  python3 - "$out" "$tm" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))["results"][0]
    e, u, s, m = open(sys.argv[2]).read().split()[-4:]
    print(r["status"], r["executions"], r.get("blocked", 0), r.get("events", 0), e, "%.2f" % (float(u) + float(s)),
          "%.0f" % (int(m) / 1024))
except Exception:
    print("? 0 0 0 0 0 0")
PY
  rm -f "$out" "$tm"
}

printf '%-14s %-4s %10s %9s %9s %8s %9s %9s %7s %7s %s\n' program model executions "1 job s" "$jobs jobs s" speedup \
  "cpu1 s" "cpu$jobs s" "MB 1" "MB $jobs" same
for p in "${programs[@]}"; do
  IFS='|' read -r label file model args defs <<<"$p"
  best1=999999 bestN=999999
  for ((i = 0; i < reps; i++)); do
    read -r st1 ex1 bl1 ev1 w1 c1 m1 < <(run 1 "$model" "$args" "$defs" "$file")
    read -r stN exN blN evN wN cN mN < <(run "$jobs" "$model" "$args" "$defs" "$file")
    best1=$(python3 -c "print(min($best1, $w1))")
    bestN=$(python3 -c "print(min($bestN, $wN))")
  done
  same=yes
  [ "$st1 $ex1 $bl1 $ev1" = "$stN $exN $blN $evN" ] || same="NO ($st1 $ex1 $bl1 $ev1 / $stN $exN $blN $evN)"
  printf '%-14s %-4s %10s %9.2f %9.2f %7.2fx %9s %9s %7s %7s %s\n' "$label" "$model" "$ex1" "$best1" "$bestN" \
    "$(python3 -c "print($best1 / max($bestN, 0.001))")" "$c1" "$cN" "$m1" "$mN" "$same"
done

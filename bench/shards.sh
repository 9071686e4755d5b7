#!/usr/bin/env bash
# Sharding a long check (--shard I/N, tsocheck merge): per program,
#  * one run (--jobs 1) against N shards (--jobs 1 each) run two at a time on
#    this machine: wall times, the speedup, and the imbalance (the largest
#    shard's CPU time over the mean);
#  * simulated scaling to 8, 16, 32 and 64 shards: each shard run alone, its
#    CPU time recorded; the projected makespan is the largest shard's time
#    (as if every shard had a machine of its own), the speedup is the single
#    run's CPU time over it;
#  * that the merged report agrees with the single run (status, executions).
# Figures only.
#   bench/shards.sh [--quick] [N]    (N: shards run two at a time, default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TSOCHECK:-build/lsp/tsocheck}  # (TSOCHECK=path: another build)
[ -x "$bin" ] || cmake --build build --target tsocheck
quick=0 n=4
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    *[!0-9]* | "") echo "usage: bench/shards.sh [--quick] [N]" >&2; exit 2 ;;
    *) n=$a ;;
  esac
done
sims=(8 16 32 64)
[ "$quick" = 1 ] && sims=(8 16)

# label | file | model | tsocheck args | -D defines
programs=(
  "indexer(15)|indexer_classic.c|sc|--keep-going|-DN=15"
  "szymanski|szymanski_plain.c|tso|--keep-going|"
  "fib_bench(5)|fib_bench.c|tso|--keep-going|-DNUM=5"
)
[ "$quick" = 1 ] && programs=("${programs[0]}")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shard index count model args defines file out -> "wall cpu" (count 0: the whole check)
run() {
  local i=$1 c=$2 model=$3 args=$4 defs=$5 file=$6 out=$7 tm shard=()
  tm=$(mktemp -p "$tmp")
  [ "$c" -gt 0 ] && shard=(--shard "$i/$c")
  # shellcheck disable=SC2086
  /usr/bin/time -o "$tm" -f "%e %U %S" "$bin" check --json --no-fences --jobs 1 --model "$model" $args \
    "${shard[@]}" "bench/programs/$file" -- $defs >"$out" 2>/dev/null || true
  read -r e u s < <(tail -1 "$tm")
  echo "$e $(python3 -c "print('%.2f' % ($u + $s))")"
}

field() {  # report.json -> "status executions"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r['executions'])" "$1" \
    2>/dev/null || echo "? ?"
}

echo "shards.sh: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-13s %-4s %10s %8s %8s | %3s %8s %7s %9s %6s\n' program model executions "1 run s" "cpu s" N "wall s" speedup \
  imbalance same
for p in "${programs[@]}"; do
  IFS='|' read -r label file model args defs <<<"$p"
  read -r w1 c1 < <(run 0 0 "$model" "$args" "$defs" "$file" "$tmp/single.json")
  read -r st1 ex1 < <(field "$tmp/single.json")
  # N shards, two at a time.
  start=$(date +%s.%N)
  for ((i = 0; i < n; i++)); do echo "$i"; done |
    xargs -P 2 -I{} bash -c "$(declare -f run); bin=$bin tmp=$tmp; run {} $n '$model' '$args' '$defs' '$file' $tmp/shard-{}.json > $tmp/t{}" 
  wall=$(python3 -c "import time; print('%.2f' % (time.time() - $start))")
  cpus=$(for ((i = 0; i < n; i++)); do cut -d' ' -f2 "$tmp/t$i"; done | tr '\n' ' ')
  imb=$(python3 -c "x=[float(v) for v in '$cpus'.split()]; print('%.2f' % (max(x) / max(sum(x) / len(x), 1e-9)))")
  "$bin" merge "$tmp"/shard-*.json >"$tmp/merged.json" 2>/dev/null || true
  read -r stm exm < <(field "$tmp/merged.json")
  same=yes
  [ "$st1 $ex1" = "$stm $exm" ] || same="NO ($stm $exm)"
  printf '%-13s %-4s %10s %8s %8s | %3s %8s %6.2fx %9s %6s\n' "$label" "$model" "$ex1" "$w1" "$c1" "$n" "$wall" \
    "$(python3 -c "print($w1 / max($wall, 0.001))")" "$imb" "$same"
  rm -f "$tmp"/shard-*.json "$tmp"/t*
  # Simulated scaling: each shard alone.
  for m in "${sims[@]}"; do
    cpus=()
    for ((i = 0; i < m; i++)); do
      read -r _ c < <(run "$i" "$m" "$model" "$args" "$defs" "$file" "$tmp/x.json")
      cpus+=("$c")
    done
    python3 - "$label" "$model" "$m" "$c1" "${cpus[@]}" <<'PY'
import sys
label, model, m, single = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
x = [float(v) for v in sys.argv[5:]]
span, mean = max(x), sum(x) / len(x)
print("%-13s %-4s simulated %3d shards: makespan %6.2f s (sum %7.2f s, mean %5.2f s), speedup %5.2fx, imbalance %5.2f"
      % (label, model, m, span, sum(x), mean, single / max(span, 1e-9), span / max(mean, 1e-9)))
PY
  done
done

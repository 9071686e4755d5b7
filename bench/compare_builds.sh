#!/usr/bin/env bash
# Two builds of tsocheck side by side on the comparison programs (bench/programs/,
# the same list as bench/peers.sh): executions (they must be equal), blocked (old/new),
# CPU seconds of each and the ratio new/old, peak RSS of each. Figures only.
# Programs with a violation run with --keep-going: the executions before the
# first violation depend on the exploration order, the totals do not.
#   BASE=/path/to/old/tsocheck bench/compare_builds.sh [--quick] [--runs N]
#     [--instructions] [--only LABEL_PREFIX]
# (e.g. build an older commit in a worktree: git worktree add /tmp/base REV &&
#  cmake -S /tmp/base -B /tmp/base/build -G Ninja && cmake --build /tmp/base/build --target tsocheck)
# --instructions: also the instructions the tsocheck process executes
# (bench/instructions.sh), in millions, and their ratio new/old. --only: the rows
# whose label starts with the prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
new=${NEW:-build/lsp/tsocheck}
old=${BASE:?set BASE to the tsocheck binary to compare with}
quick=0 runs=1 instr=0 only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --runs) runs=$2; shift ;;
    --instructions) instr=1 ;;
    --only) only=$2; shift ;;
  esac
  shift
done
# label | file | model | tsocheck args | -D defines
programs=(
  "readers(13)|readers.c|tso||-DN=13"
  "indexer(15)|indexer_classic.c|sc||-DN=15"
  "indexer(15)|indexer_classic.c|tso||-DN=15"
  "lastzero(15)|lastzero.c|sc|--loop-bound 17|-DN=15"
  "lastzero(15)|lastzero.c|tso|--loop-bound 17|-DN=15"
  "fib_bench(5)|fib_bench.c|sc||-DNUM=5"
  "fib_bench(5)|fib_bench.c|tso||-DNUM=5"
  "fib_bench(5)|fib_bench.c|pso||-DNUM=5"
  "idx_mutex(3)|indexer_mutex.c|sc||-DN=3"
  "2lockq(5+3)|twolock_queue.c|sc||-DE=5 -DD=3"
  "2lockq(5+3)|twolock_queue.c|tso||-DE=5 -DD=3"
  "lamport(2)|lamport_plain.c|tso|--keep-going|-DROUNDS=2"
  "dekker(2)|dekker_plain.c|tso|--keep-going|"
  "casrot(9)|casrot.c|sc||-DN=9"
  "counters(3x2)|counters.c|tso||-DTHREADS=3 -DROUNDS=2"
  "fanout|fanout.c|sc||"
  "fanout|fanout.c|tso||"
  # spin-heavy: blocked executions (stale waits and frozen spins, CheckOptions::Testing::pruneStaleWaits)
  "ttas(5)|ttas.c|sc||-DN=5"
  "ttas(5)|ttas.c|tso||-DN=5"
  "peterson(x4)f|peterson_plain.c|tso||-DROUNDS=4 -DFENCED"
  "szymanski(2)f|szymanski_plain.c|tso||-DROUNDS=2 -DFENCED"
  "dekker(4)f|dekker_plain.c|tso||-DROUNDS=4 -DFENCED"
  "lamport(2)f|lamport_plain.c|pso||-DROUNDS=2 -DFENCED"
  "parker(5)f|samples/parker_fixed.c|tso||-DVALUES=5"
)
[ "$quick" = 1 ] && programs=("${programs[@]:0:4}")

measure() {  # binary args... -> "cpu_s rss_kb" (best CPU of $runs runs)
  local best="" rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%U %S %M" -o /tmp/tsocheck-cmp.$$ "$@" >/dev/null 2>&1 || true
    read -r u s m < <(tail -1 /tmp/tsocheck-cmp.$$)  # (a failing check adds a line before)
    c=$(python3 -c "print('%.2f' % ($u + $s))")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $c < $best else 1)"; then best=$c; fi
    rss=$m
  done
  rm -f /tmp/tsocheck-cmp.$$
  echo "$best $rss"
}
execs() {  # binary check args... -> "executions blocked"
  "$1" "$2" --json "${@:3}" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print(r["executions"], r.get("blocked", 0))' 2>/dev/null || echo "? ?"
}

printf '%-14s %-4s %10s %15s %5s %8s %8s %7s %8s %8s' program model execs blocked_old/new same old_s new_s new/old old_MB new_MB
[ "$instr" = 1 ] && printf ' %10s %10s %7s' old_Minstr new_Minstr new/old
echo
for p in "${programs[@]}"; do
  IFS='|' read -r label file model args defines <<<"$p"
  [[ "$label" == "$only"* ]] || continue
  src="bench/programs/$file"
  [[ "$file" == */* ]] && src="$file"  # (a sample, from the repository's top)
  # shellcheck disable=SC2086,SC2206
  common=(check "$src" --no-fences --jobs 1 --model "$model" $args -- $defines)
  read -r e1 b1 < <(execs "$old" "${common[@]}")
  read -r e2 b2 < <(execs "$new" "${common[@]}")
  same=yes  # (the executions; blocked ones may go)
  [ "$e1" = "$e2" ] || same=NO
  # (Going on past errors, an execution that would end in an error inside a
  # graph left as a stale wait is not explored: `fewer`, not a mismatch, when
  # the new build leaves more such graphs; the differential tests compare the
  # executions without an error and the kinds of violation.)
  [[ "$same" = NO && "$args" == *--keep-going* && "$e2" -lt "$e1" ]] && same=fewer
  read -r so ro < <(measure "$old" "${common[@]}")
  read -r sn rn < <(measure "$new" "${common[@]}")
  ratio=$(python3 -c "print('%.2f' % ($sn / max($so, 0.01)))")
  printf '%-14s %-4s %10s %15s %5s %8s %8s %7s %8.1f %8.1f' "$label" "$model" "$e2" "$b1/$b2" "$same" "$so" "$sn" "$ratio" \
    "$(python3 -c "print($ro / 1024)")" "$(python3 -c "print($rn / 1024)")"
  if [ "$instr" = 1 ]; then
    io=$(bench/instructions.sh "$old" "${common[@]}")
    in=$(bench/instructions.sh "$new" "${common[@]}")
    ir=$(python3 -c "print('%.3f' % ($in / $io))" 2>/dev/null || echo -)
    printf ' %10s %10s %7s' "$io" "$in" "$ir"
  fi
  echo
done

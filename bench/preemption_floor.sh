#!/usr/bin/env bash
# The floor of preemption bounding against what the bounded search explores:
# per client and bound k, the Shasha–Snir classes whose minimum preemption
# count is at most k (the naive explorer, build/bench/preemption_floor: what
# any complete and optimal bounded search must explore) and the executions
# `tsocheck check --preemption-bound k` explores (one execution per class
# within the bound plus what the slack min(N-2, D) keeps, engine/preemption.h),
# both as shares of all classes (the unbounded run's executions).
#   bench/preemption_floor.sh [BINARY]
# The naive explorer's cache of subtrees is capped (preemption_floor
# --max-cached, about 0.8 GB): ttas(5) needs it uncapped, 17 GB and 5 minutes
# (`build/bench/preemption_floor build/lsp/tsocheck-frontend
# bench/programs/ttas.c --max-cached 0 -- -DN=5`), so it is not in the list.
# "dropped": the bound pruned nothing in its probe and the search went on
# without it (CheckOptions::boundProbe), so it explored every class.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/lsp/tsocheck}"
[ -x "$bin" ] && [ -x build/bench/preemption_floor ] || cmake --build build --target tsocheck tsocheck-frontend preemption_floor
worker="$(dirname "$bin")/tsocheck-frontend"

# label | file | model | -D defines
clients=(
  "ttas(3)|bench/programs/ttas.c|sc|-DN=3"
  "ttas(4)|bench/programs/ttas.c|sc|-DN=4"
  "ttas(3)|bench/programs/ttas.c|tso|-DN=3"
  "treiber(2)|bench/programs/treiber.c|sc|-DN=2"
  "treiber(2)|bench/programs/treiber.c|tso|-DN=2"
  "2lockq(2+2)|bench/programs/twolock_queue.c|sc|-DE=2 -DD=2"
  "idx_mutex(2)|bench/programs/indexer_mutex.c|sc|-DN=2"
  "parker|samples/parker_fixed.c|sc|"
  "parker|samples/parker_fixed.c|tso|"
  "peterson|samples/peterson_fixed.c|tso|"
  "szymanski|samples/szymanski_fixed.c|tso|"
)

printf '%-13s %-4s %5s %9s %9s %8s %9s %8s %s\n' client model bound floor floor% explored explored% "x floor" note
for c in "${clients[@]}"; do
  IFS='|' read -r label file model defs <<<"$c"
  # shellcheck disable=SC2086
  if ! floor=$(build/bench/preemption_floor "$worker" "$file" --model "$model" --time-limit 300 -- $defs); then
    printf '%-13s %-4s %s\n' "$label" "$model" "floor: $(tail -1 <<<"$floor")"
    continue
  fi
  total=$(head -1 <<<"$floor" | awk '{print $1}')
  maxk=$(tail -1 <<<"$floor" | sed -E 's/^bound ([0-9]+):.*/\1/')
  for k in $(seq 0 "$maxk"); do
    within=$(grep "^bound $k:" <<<"$floor" | sed -E 's/.*, ([0-9]+) within the bound.*/\1/')
    # shellcheck disable=SC2086
    out=$("$bin" check "$file" --model "$model" --jobs 1 --no-fences --preemption-bound "$k" -- $defs 2>&1 || true)
    execs=$(head -1 <<<"$out" | sed -nE 's/.* ([0-9,]+) executions.*/\1/p' | tr -d ,)
    note=""
    grep -q "went on without it" <<<"$out" && note="dropped"
    awk -v l="$label" -v m="$model" -v k="$k" -v f="$within" -v t="$total" -v e="${execs:-0}" -v n="$note" 'BEGIN {
      printf "%-13s %-4s %5d %9d %8.2f%% %8d %8.2f%% %8.2f %s\n", l, m, k, f, 100 * f / t, e, 100 * e / t, (f ? e / f : 0), n }'
  done
done

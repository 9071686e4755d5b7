#!/usr/bin/env bash
# RC11 side by side with GenMC v0.11 on GenMC's own test programs: its litmus
# tests (tests/correct/litmus), its synthetic C11 programs
# (tests/correct/synthetic) and the programs it must find wrong
# (tests/wrong/safety, tests/wrong/racy). Each variant runs as GenMC's test
# driver runs it (main starts the threads and returns without joining them:
# tsocheck gets --main --no-exit-ends-program so the threads run on, as under
# GenMC), once per line of its args.rc11.mo.in.
# Per row: executions and blocked executions of both, the count GenMC's tree
# expects (expected.rc11.mo.in), whether the complete executions agree, both
# verdicts, both CPU times (getrusage, one run each unless REPEAT_CPU is set)
# and the ratio tsocheck/GenMC. Rows tsocheck refuses are listed at the end
# with the reason. Figures only: nothing passes or fails.
#   GENMC_SRC=/path/to/genmc-v0.11 [GENMC=its genmc binary] [TSOCHECK=...]
#   bench/rc11_peers.sh [--quick] [regex over "dir/variant"]
#   (--quick: the first args line of each program only; GENMC: default
#   $GENMC_SRC/genmc, then genmc on PATH; without it only the expected counts
#   are compared)
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TSOCHECK:-build/lsp/tsocheck}
[ -x "$bin" ] || cmake --build build --target tsocheck
gsrc=${GENMC_SRC:?set GENMC_SRC to a GenMC v0.11 source tree (its tests/ hold the programs)}
genmc=${GENMC:-}
[ -z "$genmc" ] && [ -x "$gsrc/genmc" ] && genmc="$gsrc/genmc"
[ -z "$genmc" ] && genmc=$(command -v genmc || true)
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
filter=${1:-.}
export REPEAT_CPU=${REPEAT_CPU:-0}
limit=${PEER_TIMEOUT:-120}
# shellcheck source=bench/cpu_timing.sh
source bench/cpu_timing.sh
out=/tmp/tsocheck-peers-out.$$
refusals=()
rows=0 agree=0 differ=0 over=0 half=0

printf '%-34s %9s %7s %9s %7s %9s %-5s %-10s %-10s %8s %8s %6s\n' \
  test execs blocked genmc g_blk expected agree verdict g_verdict cpu_s g_cpu_s ratio
for dir in "$gsrc"/tests/correct/litmus/*/ "$gsrc"/tests/correct/synthetic/*/ "$gsrc"/tests/wrong/safety/*/ \
           "$gsrc"/tests/wrong/racy/*/; do
  dir=${dir%/}
  [ -d "$dir/variants" ] || continue
  group=$(basename "$(dirname "$dir")")/$(basename "$dir")
  # args lines ("genmc args | clang args") and their expected counts
  args=("|")
  expect=("$(head -n 1 "$dir/expected.rc11.mo.in" 2>/dev/null || echo -)")
  if [ -f "$dir/args.rc11.mo.in" ]; then
    mapfile -t args <"$dir/args.rc11.mo.in"
    mapfile -t expect < <(cat "$dir/expected.rc11.mo.in" 2>/dev/null || true)
  fi
  [ "$quick" = 1 ] && args=("${args[0]}")
  for i in "${!args[@]}"; do
    gargs=$(echo "${args[$i]}" | cut -f1 -d'|')
    cargs=$(echo "${args[$i]}" | cut -f2 -d'|')
    expected=${expect[$i]:--}
    n=$(echo "$cargs" | sed -n 's/.*-DN=\([0-9]*\).*/(\1)/p')
    for v in "$dir"/variants/*.c; do
      label="$group/$(basename "$v" .c)$n"
      [[ "$label" =~ $filter ]] || continue
      # shellcheck disable=SC2086
      read -r secs _ _ < <(repeat_cpu timeout "$limit" "$bin" check "$v" --main --no-exit-ends-program --model rc11 \
        --json -- $cargs)
      read -r status execs blocked why < <(python3 -c '
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception:
    print("timeout - - no report (time limit or crash)"); sys.exit()
if not j.get("results"):
    e = (j.get("errors") or [{}])[0]
    d = (e.get("diagnostics") or [{}])[0]
    print("error - -", " ".join((d.get("message") or e.get("message") or "no check").split())[:160]); sys.exit()
r = j["results"][0]
kinds = sorted({v["kind"] for v in r.get("violations", []) if v.get("severity") != "warning"})
st = r["status"] + ("(" + ",".join(kinds) + ")" if r["status"] == "violation" and kinds else "")
print(st, r.get("executions", "-"), r.get("blocked", 0), " ".join(r.get("message", "").split())[:160])' "$out")
      rm -f "$out"
      if [[ "$status" == error* ]]; then
        refusals+=("$label: $why")
        continue
      fi
      gexecs=- gblocked=- gverdict=- gsecs=- ratio=-
      if [ -n "$genmc" ]; then
        # shellcheck disable=SC2086
        read -r gsecs _ gx < <(repeat_cpu timeout "$limit" "$genmc" --rc11 --disable-estimation $gargs -- $cargs "$v")
        gexecs=$(awk '/complete executions explored/ { print $NF }' "$out")
        gblocked=$(awk '/blocked executions seen/ { print $NF }' "$out")
        if grep -q 'No errors were detected' "$out"; then gverdict=verified
        elif grep -qi 'race' "$out" && grep -q 'Error detected' "$out"; then gverdict='violation(race)'
        elif grep -q 'Error detected' "$out"; then gverdict=violation
        elif [ "$gx" = 124 ]; then gverdict=timeout
        else gverdict=fail; fi
        gexecs=${gexecs:--}; gblocked=${gblocked:-0}
        ratio=$(ratio "$secs" "$gsecs")
        rm -f "$out"
      fi
      ref=$gexecs
      [ "$ref" = - ] && ref=$expected
      ok=-
      if [ "$status" = verified ] && [ "$ref" != - ]; then
        if [ "$execs" = "$ref" ]; then ok=yes; agree=$((agree + 1)); else ok=NO; differ=$((differ + 1)); fi
      fi
      rows=$((rows + 1))
      if [ "$ratio" != - ] && python3 -c "import sys; sys.exit(0 if max($secs, float('$gsecs' or 0)) > 0.3 else 1)" 2>/dev/null; then
        over=$((over + 1))
        python3 -c "import sys; sys.exit(0 if $secs <= 0.5 * float('$gsecs') else 1)" 2>/dev/null && half=$((half + 1))
      fi
      printf '%-34s %9s %7s %9s %7s %9s %-5s %-10s %-10s %8s %8s %6s\n' "$label" "$execs" "$blocked" "$gexecs" \
        "$gblocked" "$expected" "$ok" "$status" "$gverdict" "$secs" "$gsecs" "$ratio"
    done
  done
done
echo
echo "rows: $rows; complete executions agree: $agree, differ: $differ (verified rows with a reference count)"
echo "rows over 0.3 s CPU: $over, of which tsocheck takes at most half of GenMC's CPU time: $half"
[ -n "$genmc" ] || echo "(no GenMC binary: set GENMC, or build it in GENMC_SRC, to compare side by side)"
if [ "${#refusals[@]}" -gt 0 ]; then
  echo "refused by tsocheck (${#refusals[@]}):"
  printf '  %s\n' "${refusals[@]}"
fi

#!/usr/bin/env bash
# Benchmark programs of the kinds GenMC and Nidhugg are measured on, written
# for tsocheck (bench/programs/), with the execution counts the peers report
# for the same shapes. Prints per program and model: executions (and whether
# they match the expected count), CPU seconds (cpu_s: without the race
# check, as the peers run — GenMC with --disable-race-detection, Nidhugg has
# none — and the time the ratios use; races_s: with it, tsocheck's default),
# executions/s and peak RSS —
# blocked executions (driven toward 0) — and, when peer binaries are found ($GENMC / $NIDHUGGC, or genmc / nidhuggc
# on PATH), their CPU seconds and the ratio tsocheck/peer in the same run
# (measured with GenMC v0.11.0 and Nidhugg master 0aea4d23 built against LLVM 14; the
# peers compile bench/peer_include/tsocheck.h and start at the check function:
# GenMC's --program-entry-function, Nidhugg's -D<check>=main).
# A label ending in ! is a program with a bug: the time is to its first
# violation (fences off), the peers' too. (Those programs use plain ints, and
# GenMC optimises its input: it hoists a plain load out of a loop, a data race
# allows that, so on lamport_plain.c it reports a violation even under SC,
# where tsocheck, which keeps every C access in program order, verifies it.
# The rows compare the time to a report, not the reports.)
# Under the peers' columns, fail: the peer crashed or refused the program;
# viol: the peer reports a violation on a row without ! (one tsocheck
# verifies), so it answered another question and no ratio is printed.
# Figures only: nothing passes or fails.
#   [TSOCHECK=path/to/tsocheck] bench/peers.sh [--quick]
#   (--quick: the smaller parameters only; TSOCHECK: another build, e.g. the
#   one before a change, against the same peers)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TSOCHECK:-build/lsp/tsocheck}
[ -x "$bin" ] || cmake --build build --target tsocheck
genmc="${GENMC:-$(command -v genmc || true)}"
nidhugg="${NIDHUGGC:-$(command -v nidhuggc || true)}"
quick=0
[ "${1:-}" = "--quick" ] && quick=1

# label | file | model | expected executions (- when no peer figure) | tsocheck args | -D defines
#   [| GenMC's own flags: --disable-ipr where its in-place revisiting stops at
#   the programs' unordered plain writes ("treated as an error due to IPR")]
programs=(
  "readers(13)|readers.c|sc|8192||-DN=13"
  "readers(13)|readers.c|tso|8192||-DN=13"
  "indexer(13)|indexer_classic.c|sc|64||-DN=13"
  "indexer(13)|indexer_classic.c|tso|64||-DN=13"
  "lastzero(10)|lastzero.c|sc|-|--loop-bound 12|-DN=10"
  "fib_bench(4)|fib_bench.c|sc|-||-DNUM=4"
  "fib_bench(4)|fib_bench.c|tso|-||-DNUM=4"
  "idx_mutex(3)|indexer_mutex.c|sc|-||-DN=3"
  "2lockq(5+3)|twolock_queue.c|sc|-||-DE=5 -DD=3"
  "2lockq(5+3)|twolock_queue.c|tso|-||-DE=5 -DD=3"
  "casrot(9)|casrot.c|sc|8597||-DN=9"
  "casrot(9)|casrot.c|tso|8597||-DN=9"
  "counters(3x2)|counters.c|sc|-||-DTHREADS=3 -DROUNDS=2"
  "counters(3x2)|counters.c|tso|-||-DTHREADS=3 -DROUNDS=2"
  # PSO: Nidhugg only (GenMC has no PSO).
  "readers(13)|readers.c|pso|8192||-DN=13"
  "fib_bench(4)|fib_bench.c|pso|-||-DNUM=4"
  "2lockq(5+3)|twolock_queue.c|pso|-||-DE=5 -DD=3"
  "casrot(9)|casrot.c|pso|8597||-DN=9"
  # Mutual exclusion with plain accesses, broken under TSO: the time to the
  # first violation (executions: those explored up to it).
  "szymanski(2)!|szymanski_plain.c|tso|-||-DROUNDS=2"
  "lamport(1)!|lamport_plain.c|tso|-||-DROUNDS=1|--disable-ipr"
  "dekker(2)!|dekker_plain.c|tso|-||-DROUNDS=2|--disable-ipr"
  "peterson(3)!|peterson_plain.c|tso|-||-DN=3"
  "bakery(3)!|bakery_plain.c|tso|-||-DN=3"
  # The same locks repaired with fences (bench/programs/fence.h: -DFENCED),
  # safe under all three models, and the other TACAS'15 shapes (pgsql,
  # parker: samples/parker_*.c) and the generated chains (mpchain, sbchain).
  # A label ending in f is a fenced (or fixed) variant. Expected counts: GenMC's and Nidhugg's where they
  # agree (Nidhugg's alone under PSO; its TSO count for parker differs: it
  # counts reads-from classes). Blocked executions: no more than GenMC's, fewer
  # than Nidhugg's (stale waits and frozen spins end their graph: explorer.h
  # staleWait, freezesSpin; before, they equalled Nidhugg's). szymanski's exit loop carries the value it read into the
  # next iteration (`seen = flag; while (2 <= seen && flag <= 3) seen =
  # flag;`): an iteration that only re-reads it stops the thread (frontend/
  # README.md, spin loops), as GenMC's spin-assume does: both count 5,315
  # (14,801 before tsocheck dropped those iterations). Nidhugg runs out of
  # memory on it, and its loop transformation breaks on peterson ("PHI nodes
  # not grouped").
  "dekker(3)f|dekker_plain.c|sc|1344||-DROUNDS=3 -DFENCED"
  "dekker(3)f|dekker_plain.c|tso|1344||-DROUNDS=3 -DFENCED"
  "dekker(3)f|dekker_plain.c|pso|1344||-DROUNDS=3 -DFENCED"
  "lamport(2)f|lamport_plain.c|sc|1906||-DROUNDS=2 -DFENCED|--disable-ipr"
  "lamport(2)f|lamport_plain.c|tso|1906||-DROUNDS=2 -DFENCED|--disable-ipr"
  "lamport(2)f|lamport_plain.c|pso|4642||-DROUNDS=2 -DFENCED|--disable-ipr"
  "peterson(x4)f|peterson_plain.c|sc|1676||-DROUNDS=4 -DFENCED"
  "peterson(x4)f|peterson_plain.c|tso|1676||-DROUNDS=4 -DFENCED"
  "peterson(x4)f|peterson_plain.c|pso|-||-DROUNDS=4 -DFENCED"
  "szymanski(2)f|szymanski_plain.c|sc|5315||-DROUNDS=2 -DFENCED"
  "szymanski(2)f|szymanski_plain.c|tso|5315||-DROUNDS=2 -DFENCED"
  "szymanski(2)f|szymanski_plain.c|pso|-||-DROUNDS=2 -DFENCED"
  "pgsql(2)f|pgsql.c|pso|1||-DROUNDS=2 -DFENCED"
  "pgsql(2)!|pgsql.c|pso|-||-DROUNDS=2"
  "parker(4)f|samples/parker_fixed.c|sc|3598||-DVALUES=4"
  "parker(4)f|samples/parker_fixed.c|tso|3598||-DVALUES=4"
  "parker(4)f|samples/parker_fixed.c|pso|-||-DVALUES=4"
  "parker(4)!|samples/parker_buggy.c|tso|-||-DVALUES=4"
  "mpchain(5x3)|mpchain.c|sc|32000||-DN=5 -DROUNDS=3"
  "mpchain(5x3)|mpchain.c|tso|32000||-DN=5 -DROUNDS=3"
  "mpchain(5x3)f|mpchain.c|pso|-||-DN=5 -DROUNDS=3 -DFENCED"
  "mpchain(5x3)!|mpchain.c|pso|-||-DN=5 -DROUNDS=3"
  "sbchain(4)|sbchain.c|sc|15||-DN=4"
  "sbchain(5x2)f|sbchain.c|sc|6751||-DN=5 -DROUNDS=2 -DFENCED"
  "sbchain(5x2)f|sbchain.c|tso|6751||-DN=5 -DROUNDS=2 -DFENCED"
  "sbchain(5x2)f|sbchain.c|pso|6751||-DN=5 -DROUNDS=2 -DFENCED"
  "sbchain(5x2)!|sbchain.c|tso|-||-DN=5 -DROUNDS=2"
)
if [ "$quick" = 0 ]; then
  programs+=(
    "indexer(15)|indexer_classic.c|sc|4096||-DN=15"
    "indexer(15)|indexer_classic.c|tso|4096||-DN=15"
    "lastzero(15)|lastzero.c|sc|147456|--loop-bound 17|-DN=15"
    "lastzero(15)|lastzero.c|tso|147456|--loop-bound 17|-DN=15"
    "fib_bench(5)|fib_bench.c|sc|-||-DNUM=5"
    "fib_bench(5)|fib_bench.c|tso|-||-DNUM=5"
    "counters(3x3)|counters.c|sc|-||-DTHREADS=3 -DROUNDS=3"
    "counters(3x3)|counters.c|tso|-||-DTHREADS=3 -DROUNDS=3"
    "fanout|fanout.c|sc|69112||"
    "fanout|fanout.c|tso|69112||"
    "fanout|fanout.c|pso|69112||"
    "dekker(4)f|dekker_plain.c|sc|26797||-DROUNDS=4 -DFENCED"
    "dekker(4)f|dekker_plain.c|tso|26797||-DROUNDS=4 -DFENCED"
    "dekker(4)f|dekker_plain.c|pso|26797||-DROUNDS=4 -DFENCED"
    "lamport(3)f|lamport_plain.c|sc|-||-DROUNDS=3 -DFENCED|--disable-ipr"
    "lamport(3)f|lamport_plain.c|tso|-||-DROUNDS=3 -DFENCED|--disable-ipr"
    "parker(5)f|samples/parker_fixed.c|sc|37107||-DVALUES=5"
    "parker(5)f|samples/parker_fixed.c|tso|37107||-DVALUES=5"
    "sbchain(6x2)f|sbchain.c|sc|42559||-DN=6 -DROUNDS=2 -DFENCED"
    "sbchain(6x2)f|sbchain.c|tso|42559||-DN=6 -DROUNDS=2 -DFENCED"
  )
fi

# repeat_cpu, cpu, peer_cpu, ratio: bench/cpu_timing.sh.
# shellcheck source=bench/cpu_timing.sh
source bench/cpu_timing.sh

printf '%-14s %-4s %10s %8s %10s %-5s %8s %8s %10s %8s %9s %9s\n' program model execs blocked expected ok cpu_s races_s execs/s rss_MB genmc_x nidhugg_x
for p in "${programs[@]}"; do
  IFS='|' read -r label file model expected args defines genmc_flags <<<"$p"
  PEER_SAFE=1
  [[ "$label" == *! ]] && PEER_SAFE=0
  src="bench/programs/$file"
  [[ "$file" == */* ]] && src="$file"  # (a sample, from the repository's top)
  entry=$(sed -n 's/^TSOCHECK void \([A-Za-z_0-9]*\)(.*/\1/p' "$src" | head -1)  # the check function
  # shellcheck disable=SC2086
  json=$("$bin" check "$src" --json --no-fences --model "$model" $args -- $defines 2>/dev/null || true)
  read -r execs blocked < <(printf '%s' "$json" | python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print(r["executions"], r.get("blocked", 0))' 2>/dev/null || echo "? ?")
  # shellcheck disable=SC2086
  # Like the peers (GenMC with --disable-race-detection; Nidhugg looks for
  # none), without the race check; races_s: with it, tsocheck's default.
  read -r secs rss < <(cpu "$bin" check "$src" --no-fences --no-race-check --model "$model" $args -- $defines)
  read -r rsecs _ < <(cpu "$bin" check "$src" --no-fences --model "$model" $args -- $defines)
  ok="-"
  [ "$expected" != "-" ] && { [ "$execs" = "$expected" ] && ok=yes || ok=NO; }
  rate=$(python3 -c "print('%.0f' % ($execs / max($secs, 0.001)))" 2>/dev/null || echo "?")
  gx="-"; nx="-"
  if [ -n "$genmc" ] && [ "$model" != pso ]; then
    # shellcheck disable=SC2086
    gs=$(peer_cpu "$genmc" "--$model" $genmc_flags --disable-estimation --disable-mm-detector --disable-race-detection \
      --program-entry-function="$entry" -- -I bench/peer_include $defines "$src")
    gx=$(ratio "$secs" "$gs")
  fi
  if [ -n "$nidhugg" ]; then
    # shellcheck disable=SC2086
    # (Nidhugg always starts at main.)
    ns=$(peer_cpu "$nidhugg" -O0 -I bench/peer_include $defines "-D$entry=main" -- "--$model" --no-check-mutex-init "$src")
    nx=$(ratio "$secs" "$ns")
  fi
  printf '%-14s %-4s %10s %8s %10s %-5s %8s %8s %10s %8.1f %9s %9s\n' "$label" "$model" "$execs" "$blocked" "$expected" "$ok" "$secs" "$rsecs" "$rate" \
    "$(python3 -c "print($rss / 1024)")" "$gx" "$nx"
done
rm -f /tmp/tsocheck-peers-out.$$
[ -n "$genmc$nidhugg" ] || echo "(no GenMC or Nidhugg found: set GENMC / NIDHUGGC to compare side by side)"

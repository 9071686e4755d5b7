#!/usr/bin/env bash
# Bugs early: executions explored before the first violation, and
# the exploration's seconds to it (fence synthesis off), for every
# --explore-order, on the mutual-exclusion programs with plain accesses
# (bench/programs/*_plain.c: szymanski, Lamport's fast mutex, the bakery,
# Dekker, Peterson's filter lock) under TSO and PSO, a deep SC/TSO bug
# (fib_bench with SV-COMP's bound) and the samples. A cell is
# "executions+blocked seconds". `genmc` is the figure reported for
# GenMC (szymanski, TSO), where known. With --totals: every execution
# (--keep-going) per order instead, and whether they agree (the orders must
# explore the same executions; a run stopped by its time limit, 120 s unless
# the extra arguments give one, says `-`). Figures only: nothing passes or fails.
#   bench/first_bug.sh [--quick] [--totals] [-- extra tsocheck args]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/lsp/tsocheck
[ -x "$bin" ] || cmake --build build --target tsocheck
quick=0 totals=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --totals) totals=1 ;;
    --) shift; break ;;
    *) echo "usage: bench/first_bug.sh [--quick] [--totals] [-- tsocheck args]" >&2; exit 2 ;;
  esac
  shift
done
# label | file | -D defines | models | GenMC's executions before the violation per model
programs=(
  "szymanski(1)|bench/programs/szymanski_plain.c|-DROUNDS=1|tso pso|"
  "szymanski(2)|bench/programs/szymanski_plain.c|-DROUNDS=2|tso pso|tso=3881"
  "lamport(1)|bench/programs/lamport_plain.c|-DROUNDS=1|tso pso|"
  "lamport(3)|bench/programs/lamport_plain.c|-DROUNDS=3|tso pso|"
  "bakery(2thr)|bench/programs/bakery_plain.c|-DN=2|tso pso|"
  "bakery(3thr)|bench/programs/bakery_plain.c|-DN=3|tso pso|"
  "bakery(3thr,2)|bench/programs/bakery_plain.c|-DN=3 -DROUNDS=2|tso pso|"
  "dekker(2)|bench/programs/dekker_plain.c|-DROUNDS=2|tso pso|"
  "peterson(3thr)|bench/programs/peterson_plain.c|-DN=3|tso pso|"
  "fib_bench(5)|bench/programs/fib_bench.c|-DNUM=5 -DBOUND=144|sc tso|"
)
if [ "$quick" = 0 ]; then
  programs+=(
    "lamport(2)|bench/programs/lamport_plain.c|-DROUNDS=2|tso pso|"
    "bakery(2thr,2)|bench/programs/bakery_plain.c|-DN=2 -DROUNDS=2|tso pso|"
    "dekker(1)|bench/programs/dekker_plain.c|-DROUNDS=1|tso pso|"
    "dekker(3)|bench/programs/dekker_plain.c|-DROUNDS=3|tso pso|"
    "peterson(2thr,2)|bench/programs/peterson_plain.c|-DN=2 -DROUNDS=2|tso pso|"
    "peterson(3thr,2)|bench/programs/peterson_plain.c|-DN=3 -DROUNDS=2|tso pso|"
    "peterson(4thr)|bench/programs/peterson_plain.c|-DN=4|tso pso|"
    "fib_bench(4)|bench/programs/fib_bench.c|-DNUM=4 -DBOUND=55|sc tso|"
    "fib_bench(6)|bench/programs/fib_bench.c|-DNUM=6 -DBOUND=377|sc tso|"
    "dekker_buggy|samples/dekker_buggy.c||tso pso|"
    "peterson_buggy|samples/peterson_buggy.c||tso pso|"
    "szymanski_buggy|samples/szymanski_buggy.c||tso pso|"
    "bakery_buggy|samples/bakery_buggy.c||tso pso|"
    "late_violation|tests/cli/inputs/late_violation.c||tso|"
  )
fi
orders=(forward revisits-first stale-first)
python3 - "$bin" "$totals" "${orders[*]}" "$*" "${programs[@]}" <<'PY'
import json, math, subprocess, sys
exe, totals, orders, extra = sys.argv[1], sys.argv[2] == "1", sys.argv[3].split(), sys.argv[4].split()
programs = [p.split("|") for p in sys.argv[5:]]

def run(src, model, order, defines):
    args = [exe, "check", src, "--model", model, "--no-fences", "--jobs", "1", "--json", "--explore-order", order]
    if totals:
        args.append("--keep-going")
        if "--time-limit" not in extra:
            args += ["--time-limit", "120"]
    out = subprocess.run(args + extra + ["--"] + defines, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    try:
        r = json.loads(out)["results"][0]
    except (ValueError, KeyError, IndexError):
        return None
    return r

width = 24
head = "%-17s %-4s" % ("program", "model") + "".join("%*s" % (width, o) for o in orders)
print(head + ("%8s" % "same" if totals else "%8s" % "genmc"))
logs = {o: 0.0 for o in orders}
rows = 0
for label, src, defines, models, genmc in programs:
    ref = dict(g.split("=") for g in genmc.split()) if genmc else {}
    for model in models.split():
        cells, keys = [], []
        for o in orders:
            r = run(src, model, o, defines.split())
            if r is None:
                cells.append("?")
                keys.append(None)
                continue
            n = r["executions"] + r.get("blocked", 0)
            mark = "" if r["status"] == "violation" else r["status"][0] + " "
            cells.append("%s%d+%d %.3fs" % (mark, r["executions"], r.get("blocked", 0), r["elapsed_ms"] / 1000))
            timed_out = any("time limit" in m for m in r.get("limits", []))
            if timed_out:
                cells[-1] = "(time limit)"
            keys.append((timed_out, r["status"], r["executions"], r.get("blocked", 0)) if totals else n)
        line = "%-17s %-4s" % (label, model) + "".join("%*s" % (width, c) for c in cells)
        if totals:
            if None in keys or any(k[0] for k in keys):
                line += "%8s" % "-"
            else:
                line += "%8s" % ("yes" if len(set(keys)) == 1 else "NO")
        else:
            line += "%8s" % ref.get(model, "-")
            if None not in keys:
                rows += 1
                for o, n in zip(orders, keys):
                    logs[o] += math.log((n + 1) / (keys[0] + 1))
        print(line, flush=True)
if not totals and rows:
    print("%-22s" % "geomean vs forward" + "".join("%*.2f" % (width, math.exp(logs[o] / rows)) for o in orders))
PY

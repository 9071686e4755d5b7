#!/usr/bin/env bash
# Memory and speed on long executions (memory per execution
# length): bench/programs/rmw_loops.c (3 threads looping fetch_add;
# fetch_sub on one counter) at loop bounds that give 2,000 to 10,000 events
# per thread, each run for a fixed time with one worker. Prints executions
# ended (all are cut at the loop bound), events added, events/s and peak RSS,
# for this build and, with BASE=/path/to/old/tsocheck, for another build in
# the same run (and the ratios new/old). Figures only: nothing completes.
#   [BASE=old/tsocheck] bench/long_executions.sh [SECONDS]
# (RSS is the peak of the process tree: at least the frontend worker's ~85 MB,
#  most of it the LLVM/Clang libraries it loads; the check process itself
#  starts at about 4 MB.)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
new=${NEW:-build/lsp/tsocheck}
old=${BASE:-}
[ -x "$new" ] || cmake --build build --target tsocheck

run() {  # binary loop_bound -> "ended events rss_mb"
  local out rss
  out=$( { /usr/bin/time -f "RSS %M" "$1" check bench/programs/rmw_loops.c --json --jobs 1 --no-fences \
            --time-limit "$secs" --memory-limit 65536 --loop-bound "$2" 2>&1 1>&3 | grep '^RSS' >&4; } 3>&1 4>/tmp/long_exec_rss.$$ )
  rss=$(awk '{print $2}' /tmp/long_exec_rss.$$)
  rm -f /tmp/long_exec_rss.$$
  python3 -c 'import json,sys
r=json.loads(sys.argv[1])["results"][0]
print(r["executions"]+r["cut"]+r["blocked"], r["events"], "%.1f" % (int(sys.argv[2])/1024))' "$out" "$rss"
}

div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b == 0 ? 0 : a / b) }'; }

printf '%-10s %-7s %12s %14s %12s %9s\n' events/th build executions events events/s rss_MB
for lb in 1000 2500 5000; do
  read -r ne nv nr < <(run "$new" "$lb")
  printf '%-10s %-7s %12s %14s %12.0f %9s\n' "$((2 * lb))" new "$ne" "$nv" "$(div "$nv" "$secs")" "$nr"
  if [ -n "$old" ]; then
    read -r oe ov or < <(run "$old" "$lb")
    printf '%-10s %-7s %12s %14s %12.0f %9s   events new/old %.2f, rss new/old %.2f\n' "$((2 * lb))" old "$oe" "$ov" \
      "$(div "$ov" "$secs")" "$or" "$(div "$nv" "$ov")" "$(div "$nr" "$or")"
  fi
done

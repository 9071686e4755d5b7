#!/usr/bin/env bash
# How far the hard limits overshoot: --time-limit on a large lowering (a
# macro-expansion bomb: the compiler phase) and on a long exploration, and
# --memory-limit on a check whose state space outgrows it (the resident
# memory the checks used above the process's start-up size, against the
# limit). Figures only: nothing passes or fails.
#   bench/limits.sh [TSOCHECK_BIN] [SECONDS] [MIB]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/lsp/tsocheck}
secs=${2:-4}
mib=${3:-200}
python3 - "$bin" "$secs" "$mib" <<'PY'
import json, subprocess, sys, time
bin, secs, mib = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])

def run(args):
    t0 = time.time()
    p = subprocess.run([bin, "check", "--json"] + args, capture_output=True, text=True)
    wall = time.time() - t0
    try:
        j = json.loads(p.stdout)
    except ValueError:
        j = {}
    return wall, j

for label, args in (("large lowering (macro bomb)", ["tests/cli/inputs/macro_bomb.c"]),
                    ("long exploration", ["tests/cli/inputs/long_executions.c", "--loop-bound", "2000"])):
    wall, _ = run(["--time-limit", "%g" % secs, "--memory-limit", "65536"] + args)
    print("time limit %g s, %s: %.2f s wall, overshoot %+.2f s" % (secs, label, wall, wall - secs))

_, base = run(["--time-limit", "60", "tests/cli/inputs/mp_no_assert.c"])
startup = base.get("stats", {}).get("explorer_peak_rss_kb", 0) / 1024
wall, j = run(["--time-limit", "120", "--memory-limit", str(mib), "tests/cli/inputs/memory_hog.c"])
peak = j.get("stats", {}).get("explorer_peak_rss_kb", 0) / 1024
hungry = [r for r in j.get("results", []) if r.get("function") == "hungry"]
status = hungry[0]["status"] if hungry else "?"
used = peak - startup
print("memory limit %d MiB: peak resident %.0f MiB, start-up %.0f MiB, used by the checks %.0f MiB "
      "(overshoot %+.0f%%), the hungry check: %s, %.1f s" % (mib, peak, startup, used, 100 * (used - mib) / mib, status, wall))
PY

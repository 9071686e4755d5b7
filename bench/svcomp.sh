#!/usr/bin/env bash
# SV-COMP tasks of one folder, checked with SV-COMP's semantics: every task
# (a .yml naming its input file, .c or .i, and the expected verdict of the
# unreach-call property) runs as
#   tsocheck check TASK --main --model sc --abort end --deadlocks warning --time-limit 30 --json
# (--model from the .yml's `options: memory_model:` when it has one; tasks
# without an unreach-call property are left out). Prints one line per task
# (expected verdict, status, wall seconds, outcome), then the counts: correct,
# false alarm (a violation where none is expected), missed (verified where
# one is expected), timeout, other (bounded, error), and the times (sum,
# median, largest) of the answered tasks. Figures only: nothing passes or fails.
#   bench/svcomp.sh DIR [--time-limit S] [--model M] [--filter GLOB] [-- EXTRA TSOCHECK FLAGS]
#   TSOCHECK=path/to/tsocheck overrides the binary (default build/lsp/tsocheck).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -ge 1 ] || { echo "usage: bench/svcomp.sh DIR [--time-limit S] [--model M] [--filter GLOB] [-- FLAGS]" >&2; exit 2; }
dir=$1
shift
limit=30 model= filter='*' extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time-limit) limit=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "bench/svcomp.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
bin=${TSOCHECK:-$root/build/lsp/tsocheck}
[ -x "$bin" ] || (cd "$root" && cmake --build build --target tsocheck tsocheck-frontend)
[ -d "$dir" ] || { echo "bench/svcomp.sh: no folder $dir" >&2; exit 2; }

# The task's input file, expected verdict (true/false) and model, or nothing.
task_info() {
  python3 - "$1" <<'EOF'
import os, re, sys
yml = sys.argv[1]
text = open(yml).read()
inp = re.search(r"^input_files:\s*'?([^'\n]+)'?", text, re.M)
prop = re.search(r"property_file:\s*\S*unreach-call\.prp\s*\n\s*expected_verdict:\s*(true|false)", text)
model = re.search(r"^\s*memory_model:\s*(\w+)", text, re.M)
if inp and prop:
    print(os.path.join(os.path.dirname(yml), inp.group(1).strip()), prop.group(1), model.group(1).lower() if model else "")
EOF
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
results=()
printf "%-48s %-8s %-10s %8s  %s\n" task expected status wall_s outcome
for yml in "$dir"/$filter.yml; do
  [ -f "$yml" ] || continue
  info=$(task_info "$yml")
  [ -n "$info" ] || continue
  read -r file expected taskModel <<<"$info"
  [ -f "$file" ] || { echo "bench/svcomp.sh: $yml names a missing $file" >&2; continue; }
  m=${model:-${taskModel:-sc}}
  start=$(date +%s.%N)
  # (Exit 1 is a violation: the JSON says which.)
  "$bin" check "$file" --main --model "$m" --abort end --deadlocks warning --time-limit "$limit" --no-fences \
    --json "${extra[@]}" >"$out" 2>/dev/null || true
  wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)")
  status=$(python3 - "$out" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))["results"]
    st = [x.get("status", "error") for x in r]
    print("violation" if "violation" in st else st[0] if st else "error")
except Exception:
    print("error")
EOF
)
  case "$expected:$status" in
    false:violation | true:verified) outcome=correct ;;
    true:violation) outcome=false-alarm ;;
    false:verified) outcome=missed ;;
    *:timeout) outcome=timeout ;;
    *) outcome=other ;;
  esac
  results+=("$outcome $wall")
  printf "%-48s %-8s %-10s %8s  %s\n" "$(basename "$yml" .yml)" "$expected" "$status" "$wall" "$outcome"
done
printf '%s\n' "${results[@]}" | python3 -c '
import sys, statistics
rows = [l.split() for l in sys.stdin if l.strip()]
count = {k: 0 for k in ("correct", "false-alarm", "missed", "timeout", "other")}
for o, _ in rows: count[o] += 1
answered = [float(w) for o, w in rows if o in ("correct", "false-alarm", "missed")]
print(f"tasks {len(rows)}: " + ", ".join(f"{k} {v}" for k, v in count.items()))
if answered:
    print(f"answered: wall sum {sum(answered):.1f} s, median {statistics.median(answered):.2f} s, largest {max(answered):.2f} s")
'

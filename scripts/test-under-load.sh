#!/usr/bin/env bash
# Runs the timing-sensitive tests while `stress-ng --cpu N` (default 4: load
# about 6-8 on a 2-core machine, besides the tests themselves) keeps every
# core busy: time limits, deadlines, stopped and killed frontend workers,
# the scheduler's stop and cancel, the per-sample time bound, the language
# server's background time limit, the check in front of the user, a large
# document edited fast. Their margins are meant to hold there.
#   scripts/test-under-load.sh [CPU_WORKERS]
# Builds what it needs into ./build (configured like scripts/setup.sh) and
# installs stress-ng with apt-get when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
workers="${1:-4}"
if ! command -v stress-ng >/dev/null 2>&1; then
  echo "test-under-load: installing stress-ng"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends stress-ng
fi
scripts/setup.sh tsocheck engine_tests frontend_tests cli_tests lsp_unit_tests
tests='time limit|one deadline|hard limit|200000-term|compiler phase|frontend worker|workers:|samples have their documented verdicts|lsp_robustness|lsp_foreground|lsp_big_document'
stress-ng --cpu "$workers" --timeout 3600s --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null; wait "$stress" 2>/dev/null || true' EXIT
sleep 2
echo "test-under-load: stress-ng --cpu $workers running; load $(cut -d' ' -f1 /proc/loadavg)"
status=0
ctest --test-dir build -R "$tests" --output-on-failure || status=$?
echo "test-under-load: load at the end $(cut -d' ' -f1 /proc/loadavg)"
exit "$status"

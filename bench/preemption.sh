#!/usr/bin/env bash
# Preemption bounding: executions and time at bounds 0..3 against the
# unbounded run, SC/TSO/PSO, on programs with 5 worker threads (+ main).
# Extra arguments go to preemption_bench (`--quick`, or `INCS LIGHT`).
#   bench/preemption.sh [--no-build] [args...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--no-build" ]; then shift; else scripts/setup.sh >&2; fi
exec build/bench/preemption_bench "$@"

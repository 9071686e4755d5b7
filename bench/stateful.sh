#!/usr/bin/env bash
# Stateless graph explorer vs the breadth-first state space vs the stateful
# DPOR (--stateful), in one run: Yang et al.'s Figure 1, spin/exchange loops, a
# bounded buffer, loop-free independent threads (states, transitions, time,
# ratios), then buffer-bound deepening. Sets up and builds first
# (scripts/setup.sh); extra arguments go to state_bench (`--quick`,
# `--time-limit S`). Timings are informational only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >&2
exec build/bench/state_bench "$@"

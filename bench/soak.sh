#!/usr/bin/env bash
# Long differential soak: graph explorer vs naive explorer vs state space on
# the stress families (tests/engine/stress_programs.h), SC/TSO/PSO, k in {1,2}, RC11
# (and random programs with every C11 memory order under RC11);
# also atomic sections, programs that end while threads still run and
# preemption bounds (tests/engine/soak_main.cpp).
#   bench/soak.sh [MINUTES]   (default 30)
# Prints programs checked, mismatches, and the first mismatching program.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-30}"
[ -x build/tests/tsocheck-soak ] || cmake --build build --target tsocheck-soak
exec build/tests/tsocheck-soak --minutes "$minutes"

#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs engine_bench. Extra
# arguments go to engine_bench, e.g. `bench/run.sh --quick` or
# `bench/run.sh --budget 30 --only rw`. Prints figures; timings are
# informational only, nothing here passes or fails on speed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >&2
exec build/bench/engine_bench "$@"

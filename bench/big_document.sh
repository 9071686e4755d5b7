#!/usr/bin/env bash
# A 10 MB document edited at 48 edits/s in `tsocheck lsp`: the latency
# (median, max) of hover requests sent among 500 small range edits.
# Figures only: nothing passes or fails.
#   bench/big_document.sh [TSOCHECK_BIN] [--edits N] [--rate R] [--mb M]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/lsp/tsocheck
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then bin=$1; shift; fi
python3 tests/lsp/big_document_test.py "$bin" samples tests/lsp/inputs --bound 1e9 "$@" | grep '^big document:'

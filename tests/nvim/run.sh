#!/bin/sh
# Headless Neovim end-to-end test: run.sh TSOCHECK_BIN SAMPLES_DIR
# Exit 77 (ctest: skipped) when nvim is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"

start "$1"
cp "$2/dekker_buggy.c" "$dir/"
cd "$dir" || exit 1
TSOCHECK_BIN="$bin" TSOCHECK_E2E_OUT="$dir/result.txt" \
  timeout 90 nvim --headless -u "$here/init.lua" "$dir/dekker_buggy.c"
verdict

#!/bin/sh
# Headless Neovim test of the line of verdicts under each model:
#   models_run.sh TSOCHECK_BIN SAMPLES_DIR
# models_test.lua opens a copy of c11_mp_relaxed_buggy.c with the module set
# up for model=tso and compareModels = { sc, tso, pso, rc11 }.
# Exit 77 (ctest: skipped) when nvim is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"

start "$1"
cp "$2/c11_mp_relaxed_buggy.c" "$dir/c11_mp.c"
cd "$dir" || exit 1
TSOCHECK_BIN="$bin" TSOCHECK_TREE="$tree" TSOCHECK_E2E_OUT="$dir/result.txt" \
  timeout 100 nvim --headless --noplugin -n -i NONE -u "$here/models_test.lua" "$dir/c11_mp.c"
verdict

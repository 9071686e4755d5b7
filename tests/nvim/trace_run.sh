#!/bin/sh
# Headless Neovim test of nvim/lua/tsocheck (trace walking):
#   trace_run.sh TSOCHECK_BIN SAMPLES_DIR
# Exit 77 (ctest: skipped) when nvim is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"

start "$1"
cp "$2/litmus/sb.c" "$2/litmus/sb_fenced.c" "$here/braces.c" "$dir/"
cd "$dir" || exit 1
# The reference trace: what the CLI reports for the same file.
"$bin" check sb.c --json >ref.json
TSOCHECK_BIN="$bin" TSOCHECK_E2E_OUT="$dir/result.txt" TSOCHECK_REF="$dir/ref.json" \
  TSOCHECK_FENCED="$dir/sb_fenced.c" TSOCHECK_BRACES="$dir/braces.c" TSOCHECK_NVIM_DIR="$tree/nvim" \
  timeout 100 nvim --headless --noplugin -n -i NONE -u "$here/trace_test.lua" "$dir/sb.c"
verdict

#!/bin/sh
# Headless Neovim test of :TsocheckPicture (nvim/lua/tsocheck/picture.lua):
#   picture_run.sh TSOCHECK_BIN SAMPLES_DIR
# Exit 77 (ctest: skipped) when nvim is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"

start "$1"
cp "$2/litmus/sb.c" "$dir/"
cd "$dir" || exit 1
TSOCHECK_BIN="$bin" TSOCHECK_E2E_OUT="$dir/result.txt" TSOCHECK_NVIM_DIR="$tree/nvim" \
  timeout 100 nvim --headless --noplugin -n -i NONE -u "$here/picture_test.lua" "$dir/sb.c"
verdict

#!/bin/sh
# Headless Neovim test of the README's nvim-dap configuration for `tsocheck dap`
# with a minimal DAP client standing in for nvim-dap (not packaged in Debian):
#   dap_run.sh TSOCHECK_BIN SAMPLES_DIR
# Exit 77 (ctest: skipped) when nvim is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"

start "$1"
cp "$2/litmus/sb.c" "$dir/"
# The README's nvim-dap block (the first ```lua block after its introduction).
readme_lua "$tree/README.md" 'nvim-dap (after the `setup()` above' >"$dir/dap.lua"
[ -s "$dir/dap.lua" ] || { echo "FAIL: no nvim-dap block in README.md"; exit 1; }
server_path "$bin" "$dir"
cd "$dir" || exit 1
PATH="$path" TSOCHECK_E2E_OUT="$dir/result.txt" TSOCHECK_DAP_SNIPPET="$dir/dap.lua" \
  TSOCHECK_NVIM_DIR="$tree/nvim" TSOCHECK_EXPECT_BIN="$expect" \
  timeout 100 nvim --headless --noplugin -n -i NONE -u "$here/dap_test.lua" "$dir/sb.c"
verdict

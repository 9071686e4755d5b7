#!/bin/sh
# Headless Neovim test of `:checkhealth tsocheck` and of the help file:
#   health_run.sh TSOCHECK_BIN SAMPLES_DIR
# Exit 77 (ctest: skipped) when nvim is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"

start "$1"
mkdir "$dir/src"
cp "$2/litmus/sb.c" "$dir/src/"
printf '[{"directory": "%s", "file": "src/sb.c", "command": "cc -c src/sb.c"}]\n' "$dir" >"$dir/compile_commands.json"
mkdir "$dir/rt" && cp -R "$tree/nvim/doc" "$dir/rt/"
server_path "$bin" "$dir"
cd "$dir" || exit 1
PATH="$path" TSOCHECK_E2E_OUT="$dir/result.txt" TSOCHECK_NVIM_DIR="$tree/nvim" \
  TSOCHECK_EXPECT_BIN="$expect" TSOCHECK_EXPECT_SOURCE="$source" TSOCHECK_DB="$dir/compile_commands.json" \
  TSOCHECK_HELP_RT="$dir/rt" \
  timeout 100 nvim --headless --noplugin -n -i NONE -u "$here/health_test.lua" "$dir/src/sb.c"
verdict

#!/bin/sh
# Headless Neovim end-to-end test: run.sh TSOCHECK_BIN SAMPLES_DIR
# Exit 77 (ctest: skipped) when nvim is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
command -v nvim >/dev/null 2>&1 || skip_or_fail "nvim not found (scripts/setup.sh installs Debian's neovim)"

dir=$(mktemp -d)
cp "$2/dekker_buggy.c" "$dir/"
cd "$dir" || exit 1
TSOCHECK_BIN="$1" TSOCHECK_E2E_OUT="$dir/result.txt" \
  timeout 90 nvim --headless -u "$(dirname "$0")/init.lua" "$dir/dekker_buggy.c"
cat "$dir/result.txt" 2>/dev/null
grep -q '^PASS' "$dir/result.txt" 2>/dev/null
status=$?
rm -rf "$dir"
exit $status

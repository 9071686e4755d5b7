#!/bin/sh
# Headless Neovim test of nvim/lua/tsocheck as set up by the READMEs:
#   module_run.sh TSOCHECK_BIN SAMPLES_DIR
# Runs module_test.lua once with the Neovim snippet of README.md and once with
# the one of nvim/README.md, verbatim but for '/path/to/tsocheck'.
# Exit 77 (ctest: skipped) when nvim is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"

start "$1"
cp "$2/litmus/sb.c" "$2/litmus/sb_fenced.c" "$here/../lsp/inputs/slow.c" "$here/../lsp/inputs/slow_worker.h" "$dir/"
sed 's/^TSOCHECK void store_buffering/TSOCHECK_WITH("model=sc") void store_buffering/' "$2/litmus/sb.c" >"$dir/sb_sc.c"
grep -q 'TSOCHECK_WITH("model=sc")' "$dir/sb_sc.c" || { echo "FAIL: could not annotate sb.c"; exit 1; }
# A bounded result (no violation with store buffers of at most 0 entries) and
# a file that does not compile: neither may read "verified".
sed 's/^TSOCHECK void /TSOCHECK_WITH("buffer_bound=0") void /' "$2/litmus/sb_fenced.c" >"$dir/sb_bounded.c"
grep -q 'buffer_bound=0' "$dir/sb_bounded.c" || { echo "FAIL: could not annotate sb_fenced.c"; exit 1; }
printf '#include <tsocheck.h>\nTSOCHECK void f(void) { undeclared_name = 1; }\n' >"$dir/broken.c"
# A copy of the module in a tree without a build (the "no binary" case).
mkdir -p "$dir/tree" && cp -R "$tree/nvim" "$dir/tree/"
readme_lua "$tree/README.md" 'Neovim (0.7+, built-in client)' >"$dir/readme.lua"
readme_lua "$tree/nvim/README.md" '# tsocheck.nvim' >"$dir/module_readme.lua"
# PATH without tsocheck; the binary is found as the clone's development build
# when the test runs on build/lsp/tsocheck, else through PATH.
server_path "$bin" "$dir"
cd "$dir" || exit 1
status=0
for s in readme module_readme; do
  [ -s "$dir/$s.lua" ] || { echo "FAIL: no lua snippet found for $s"; status=1; continue; }
  keymaps=0; [ $s = readme ] && keymaps=1
  # The no-binary case must not find tsocheck on PATH: run it without $dir/bin.
  PATH="$path" TSOCHECK_E2E_OUT="$dir/$s.txt" TSOCHECK_SNIPPET="$dir/$s.lua" \
    TSOCHECK_COPY="$dir/tree/nvim" TSOCHECK_EXPECT_BIN="$expect" \
    TSOCHECK_EXPECT_SOURCE="$source" TSOCHECK_SC="$dir/sb_sc.c" TSOCHECK_FENCED="$dir/sb_fenced.c" \
    TSOCHECK_SLOW="$dir/slow.c" TSOCHECK_KEYMAPS=$keymaps \
    TSOCHECK_BOUNDED="$dir/sb_bounded.c" TSOCHECK_BROKEN="$dir/broken.c" \
    timeout 150 nvim --headless --noplugin -n -i NONE -u "$here/module_test.lua" "$dir/sb.c"
  echo "== $s"
  cat "$dir/$s.txt" 2>/dev/null || echo "FAIL nvim wrote no result (crash or timeout)"
  grep -q '^PASS' "$dir/$s.txt" 2>/dev/null || status=1
done
cd / && rm -rf "$dir"
exit $status

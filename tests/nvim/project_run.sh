#!/bin/sh
# Headless Neovim test of samples/project, a program of several files:
#   project_run.sh TSOCHECK_BIN SAMPLES_DIR
# A copy of the project gets its compile database from CMake (build/, as the
# project's README says; the editor is pointed at it with the compileCommandsDir
# setting), then project_test.lua opens the harness.
# Exit 77 (ctest: skipped) when nvim or cmake is not installed, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"
command -v cmake >/dev/null 2>&1 || skip_or_fail "cmake not found (the project's compile database comes from CMake)"

start "$1"
mkdir "$dir/project"
cp -R "$2/project/include" "$2/project/src" "$2/project/tests" "$2/project/CMakeLists.txt" "$dir/project/"
cmake -S "$dir/project" -B "$dir/project/build" >"$dir/cmake.log" 2>&1 ||
  { echo "FAIL: cmake could not configure the project copy"; cat "$dir/cmake.log"; rm -rf "$dir"; exit 1; }
[ -f "$dir/project/build/compile_commands.json" ] || { echo "FAIL: CMake wrote no compile database"; rm -rf "$dir"; exit 1; }
cd "$dir/project" || exit 1
XDG_CACHE_HOME="$dir/cache" TSOCHECK_BIN="$bin" TSOCHECK_TREE="$tree" TSOCHECK_E2E_OUT="$dir/result.txt" \
  TSOCHECK_PROJECT="$dir/project" \
  timeout 200 nvim --headless --noplugin -n -i NONE -u "$here/project_test.lua" "$dir/project/tests/test_spsc.c"
verdict

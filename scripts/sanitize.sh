#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run (CMake preset `asan`,
# build-asan/): builds the command, its frontend worker and the test binaries
# named below with -fsanitize=address,undefined (UBSan errors abort), then
# runs the engine unit tests, the language server's unit tests (asio's
# allocator included), the CLI corpus (cli_tests: the samples and the
# inputs under every model) and the fuzzers' short modes. Any sanitizer
# report fails the run. CI runs it after scripts/test.sh.
#   scripts/sanitize.sh
# The subset: the engine tests but the six tagged [differential] (the
# three-way and RC11 comparisons with the naive explorer, which the normal
# build and the soak run), with the unbounded random-program comparisons on
# the first 100 of their 1,000 programs (TSOCHECK_PROPERTY_SEEDS; the
# preemption-bound ones keep their 300: fewer may prune nothing, which their
# tests reject); the CLI corpus without the tests of limits (below).
# Not part of scripts/test.sh: an ASan build of the Clang-facing files is
# slow (about 3x the normal build's CPU time) and its tests run 2-5x slower.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake --preset asan "${launcher[@]}" >/dev/null
cmake --build build-asan -j "$(nproc)" --target tsocheck engine_tests lsp_unit_tests cli_tests
# Leaks at exit are not errors here (the worker and the CLI end with _exit).
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export TSOCHECK_PROPERTY_SEEDS="${TSOCHECK_PROPERTY_SEEDS:-100}"
status=0
run() {
  local start=$SECONDS
  echo "sanitize: $*"
  "$@" || status=1
  echo "sanitize: $(($SECONDS - start)) s"
}
run build-asan/tests/engine_tests '~[differential]'
run build-asan/tests/lsp/lsp_unit_tests
# The CLI corpus; not the tests of time, memory and stack limits (ASan's
# slowdown, its reserved address space and its larger frames change what
# they measure: a 200,000-term expression passes the default memory limit
# while compiling).
run build-asan/tests/cli/cli_tests '~[limits]~[frontend-bounds]~[state-memory]'
run ctest --test-dir build-asan -R '_fuzz_short$' --output-on-failure
exit "$status"

#!/bin/sh
# ctest dap_protocol: run.sh TSOCHECK_BIN SAMPLES_DIR. Exits 77 (skipped) when
# node or the test's npm packages are missing (`npm ci` in this directory),
# unless $CI is set.
dir=$(cd "$(dirname "$0")" && pwd)
# With $CI set a missing install is a failure: CI must run this test.
skip() {
  if [ -n "${CI:-}" ]; then echo "FAIL: $1 (CI is set, so this test must run)"; exit 1; fi
  echo "SKIP: $1"; exit 77
}
command -v node >/dev/null 2>&1 || skip "node not found"
[ -d "$dir/node_modules/@vscode/debugadapter-testsupport" ] || skip "$dir/node_modules missing (run npm ci there)"

TSOCHECK_BIN="$1" TSOCHECK_SAMPLES="$2" exec node --test "$dir/dap_protocol.test.js"

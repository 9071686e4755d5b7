#!/bin/sh
# ctest dap_protocol: run.sh TSOCHECK_BIN SAMPLES_DIR. Exits 77 (skipped) when
# node or the test's npm packages are missing (`npm ci` in this directory).
dir=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then echo "SKIP: node not found"; exit 77; fi
if [ ! -d "$dir/node_modules/@vscode/debugadapter-testsupport" ]; then
  echo "SKIP: $dir/node_modules missing (run npm ci there)"; exit 77
fi
TSOCHECK_BIN="$1" TSOCHECK_SAMPLES="$2" exec node --test "$dir/dap_protocol.test.js"

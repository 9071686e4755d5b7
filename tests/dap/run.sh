#!/bin/sh
# ctest dap_protocol: run.sh TSOCHECK_BIN SAMPLES_DIR. Exits 77 (skipped) when
# node or the test's npm packages are missing (`npm ci` in this directory),
# unless $CI is set.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/../skip_or_fail.sh"
command -v node >/dev/null 2>&1 || skip_or_fail "node not found"
[ -d "$dir/node_modules/@vscode/debugadapter-testsupport" ] || skip_or_fail "$dir/node_modules missing (run npm ci there)"

TSOCHECK_BIN="$1" TSOCHECK_SAMPLES="$2" exec node --test "$dir/dap_protocol.test.js"

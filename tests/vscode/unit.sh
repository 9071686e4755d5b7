#!/bin/sh
# ctest vscode_unit: the extension's pure helpers under Node's test runner
# (`npm run test:unit` in vscode-extension/, no VS Code needed); with the
# tsocheck binary as $1, also the tests that read a real report from it.
# Exits 77 (skipped) without node or the extension's npm packages, unless
# $CI is set.
ext=$(cd "$(dirname "$0")/../../vscode-extension" && pwd)
. "$(dirname "$0")/../skip_or_fail.sh"
command -v npm >/dev/null 2>&1 || skip_or_fail "npm not found"
[ -d "$ext/node_modules" ] || skip_or_fail "$ext/node_modules missing (npm ci there)"
[ -n "$1" ] && TSOCHECK_BIN=$1 && export TSOCHECK_BIN
cd "$ext" && exec npm run -s test:unit

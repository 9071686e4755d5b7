#!/bin/sh
# ctest vscode_unit: the extension's pure helpers under Node's test runner
# (`npm run test:unit` in vscode-extension/, no VS Code needed). Exits 77
# (skipped) without node or the extension's npm packages, unless $CI is set.
ext=$(cd "$(dirname "$0")/../../vscode-extension" && pwd)
skip() {
  if [ -n "${CI:-}" ]; then echo "FAIL: $1 (CI is set, so this test must run)"; exit 1; fi
  echo "SKIP: $1"; exit 77
}
command -v npm >/dev/null 2>&1 || skip "npm not found"
[ -d "$ext/node_modules" ] || skip "$ext/node_modules missing (npm ci there)"
cd "$ext" && exec npm run -s test:unit

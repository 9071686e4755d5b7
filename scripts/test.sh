#!/usr/bin/env bash
# Sets everything up and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# code-server (a real VS Code) and Chromium for the VS Code tests; cached
# under ~/.cache/tsocheck after the first run.
# Without it (e.g. Node other than 20) the VS Code tests skip, or fail when
# $CI is set; every other test still runs.
scripts/install-code-server.sh >/dev/null ||
  echo "test: code-server is not installed; the VS Code tests will skip (fail with CI set)" >&2
ctest --test-dir build --output-on-failure -j "$(nproc)"

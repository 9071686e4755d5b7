#!/usr/bin/env bash
# Sets everything up and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# code-server (a real VS Code) and Chromium for the VS Code tests; cached
# under ~/.cache/tsocheck after the first run.
scripts/install-code-server.sh >/dev/null
ctest --test-dir build --output-on-failure -j "$(nproc)"

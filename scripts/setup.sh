#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks and builds tsocheck into ./build.
#   scripts/setup.sh              every target (the tests too) and the Node parts
#   scripts/setup.sh TARGET...    only those build targets, no Node parts (e.g.
#                                 `tsocheck`, which builds its frontend worker)
# Both configure ./build the same way, so a later full setup builds only what
# is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build catch2 nlohmann-json3-dev libasio-dev libssl-dev neovim chromium
          llvm-19-dev libclang-19-dev clang-19 libclang-cpp19-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if [ $# -gt 0 ]; then
  cmake --build build -j "$(nproc)" --target "$@"
  echo "setup: built $*"
  exit 0
fi
cmake --build build -j "$(nproc)"

# Node parts: the VS Code extension (built and packaged into a .vsix) and the
# npm packages of the Node-driven tests. `npm ci` only when a lock file is
# newer than its installed tree.
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing nodejs and npm (code-server's VS Code tests want Node 20)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
for d in vscode-extension tests/dap tests/vscode; do
  if [ ! -f "$d/node_modules/.package-lock.json" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
    echo "setup: npm ci in $d"
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
(cd vscode-extension && npm run -s build >/dev/null && npm run -s package >/dev/null)
echo "setup: built build/lsp/tsocheck and vscode-extension/tsocheck-0.1.0.vsix"

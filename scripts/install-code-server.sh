#!/usr/bin/env bash
# Installs code-server (VS Code in a browser) plus Debian's Chromium for the
# VS Code end-to-end tests in tests/vscode/.  Idempotent: a second run on the
# same machine does nothing but print where the binary is.
#
#   scripts/install-code-server.sh          # install if needed, print binary path
#   scripts/install-code-server.sh --print  # only print the path (exit 1 if absent)
#
# Install location: ${TSOCHECK_CACHE_DIR:-$HOME/.cache/tsocheck}/code-server-<version>;
# concurrent runs take turns (a flock on code-server-<version>.lock beside it).
# The last line printed on stdout is the absolute path of the code-server binary.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3            # = VS Code 1.100.3, the newest line on Node 20
RIPGREP_PKG_VERSIONS=(1.15.11)         # @vscode/ripgrep versions code-server pulls in
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
CACHE_DIR="${TSOCHECK_CACHE_DIR:-$HOME/.cache/tsocheck}"
DEST="$CACHE_DIR/code-server-$CODE_SERVER_VERSION"
BIN="$DEST/node_modules/.bin/code-server"
MARKER="$DEST/.tsocheck-install-complete"

die() { echo "install-code-server: ERROR: $*" >&2; exit 1; }
log() { echo "install-code-server: $*" >&2; }

installed() { [ -f "$MARKER" ] && [ -x "$BIN" ]; }

if [ "${1:-}" = "--print" ]; then
  installed || exit 1
  echo "$BIN"; exit 0
fi

# --- One install at a time ------------------------------------------------
# Two runs at once (parallel test jobs) would wipe and fill the same folder:
# the second waits for the first, then finds the install complete. The lock
# is released when this script exits.
command -v flock >/dev/null || die "flock not found (package util-linux)"
mkdir -p "$CACHE_DIR"
LOCK="$CACHE_DIR/code-server-$CODE_SERVER_VERSION.lock"
exec 9>"$LOCK"
if ! flock -n 9; then
  log "another install holds $LOCK: waiting for it (at most ${TSOCHECK_INSTALL_WAIT:-1800} s)"
  flock -w "${TSOCHECK_INSTALL_WAIT:-1800}" 9 || die "still locked after ${TSOCHECK_INSTALL_WAIT:-1800} s: $LOCK"
fi

# --- Debian packages -------------------------------------------------------
packages=(libkrb5-dev pkg-config ripgrep chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
    || die "apt-get install ${missing[*]} failed"
fi
[ -x /usr/bin/rg ] || die "/usr/bin/rg missing although package ripgrep is installed"
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium missing although package chromium is installed"

if installed; then
  log "code-server $CODE_SERVER_VERSION already installed"
  echo "$BIN"; exit 0
fi

# --- Node / npm ------------------------------------------------------------
command -v node >/dev/null || die "node not found (code-server $CODE_SERVER_VERSION needs Node 20)"
command -v npm  >/dev/null || die "npm not found"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" = 20 ] || die "code-server $CODE_SERVER_VERSION needs Node 20, found $(node --version)"
# node-gyp builds a native module (kerberos); point it at the installed Node's
# headers, or it tries to download them from nodejs.org.
node_prefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
[ -f "$node_prefix/include/node/common.gypi" ] \
  || die "Node headers not found in $node_prefix/include/node (needed to build code-server's native modules offline)"

# --- code-server -----------------------------------------------------------
# Install in place (paths may get baked in); the marker is written last, so an
# interrupted install is wiped and redone on the next run.
rm -rf "$DEST"
mkdir -p "$DEST"
STAGE="$DEST"
WORK_TMP="$(mktemp -d)"
cleanup() { rm -rf "$WORK_TMP"; installed || rm -rf "$DEST"; }
trap cleanup EXIT

# @vscode/ripgrep's postinstall downloads rg from GitHub unless the release
# tarball is already in $TMPDIR/vscode-ripgrep-cache-<pkg version>/.  The
# tarball holds a single `rg` at its root; build it from Debian's ripgrep.
mkdir -p "$WORK_TMP/rg"
cp /usr/bin/rg "$WORK_TMP/rg/rg"
for v in "${RIPGREP_PKG_VERSIONS[@]}"; do
  mkdir -p "$WORK_TMP/vscode-ripgrep-cache-$v"
  tar -czf "$WORK_TMP/vscode-ripgrep-cache-$v/$RIPGREP_ASSET" -C "$WORK_TMP/rg" rg
done

log "installing code-server $CODE_SERVER_VERSION from npm into $DEST (takes a few minutes)"
start=$(date +%s)
if ! TMPDIR="$WORK_TMP" \
     npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir="$node_prefix" \
     npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false \
     npm install --prefix "$STAGE" --no-save --loglevel=error "code-server@$CODE_SERVER_VERSION" \
     > "$WORK_TMP/npm.log" 2>&1; then
  tail -n 60 "$WORK_TMP/npm.log" >&2
  die "npm install code-server@$CODE_SERVER_VERSION failed (log above)"
fi
[ -x "$STAGE/node_modules/.bin/code-server" ] || die "npm succeeded but no code-server binary in $STAGE"

# Every bundled @vscode/ripgrep must have its rg, or search breaks silently.
while IFS= read -r d; do
  [ -x "$d/bin/rg" ] || die "$d/bin/rg missing after install (ripgrep cache version mismatch?)"
done < <(find "$STAGE" -type d -path '*/@vscode/ripgrep' -prune)

# (XDG dirs in the scratch dir: code-server writes a default config on any run.)
XDG_CONFIG_HOME="$WORK_TMP/xdg" XDG_DATA_HOME="$WORK_TMP/xdg" \
  "$STAGE/node_modules/.bin/code-server" --version > "$WORK_TMP/version.txt" 2>&1 \
  || die "installed code-server does not run: $(tail -n 3 "$WORK_TMP/version.txt")"

touch "$MARKER"
log "installed in $(( $(date +%s) - start )) s"
echo "$BIN"

#!/usr/bin/env bash
# ctest vscode_install_lock: scripts/install-code-server.sh takes turns. With
# another run holding the install lock, a second run waits (and says so), then
# finds the install complete and prints its binary instead of wiping the
# folder the first run fills. Runs on a fake complete install in a temporary
# cache folder (no download). Exit 77 (skipped) when the Debian packages the
# script checks first are absent and $CI is unset.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/../skip_or_fail.sh"
script="$HERE/../../scripts/install-code-server.sh"
for p in libkrb5-dev pkg-config ripgrep chromium; do
  dpkg -s "$p" >/dev/null 2>&1 || skip_or_fail "Debian package $p not installed (scripts/install-code-server.sh installs it)"
done
command -v flock >/dev/null || skip_or_fail "flock not found"
version=$(sed -n 's/^CODE_SERVER_VERSION=\([^ ]*\).*/\1/p' "$script")
[ -n "$version" ] || { echo "FAIL: no CODE_SERVER_VERSION in $script"; exit 1; }
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
dest="$cache/code-server-$version"
mkdir -p "$dest/node_modules/.bin"
printf '#!/bin/sh\necho fake\n' >"$dest/node_modules/.bin/code-server"
chmod +x "$dest/node_modules/.bin/code-server"
touch "$dest/.tsocheck-install-complete"
fail=0
# Another install holds the lock for 3 s.
flock "$cache/code-server-$version.lock" sleep 3 &
holder=$!
sleep 0.5
t0=$(date +%s.%N)
out=$(TSOCHECK_CACHE_DIR="$cache" "$script" 2>"$cache/stderr")
rc=$?
t1=$(date +%s.%N)
wait "$holder"
waited=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
[ $rc -eq 0 ] || { echo "FAIL: exit $rc: $(cat "$cache/stderr")"; fail=1; }
[ "$(echo "$out" | tail -n 1)" = "$dest/node_modules/.bin/code-server" ] || { echo "FAIL: printed '$out'"; fail=1; }
grep -q "another install holds" "$cache/stderr" || { echo "FAIL: did not say it waits: $(cat "$cache/stderr")"; fail=1; }
# It waited for the holder (about 2.5 s; wall-clock, so only a lower bound).
awk -v w="$waited" 'BEGIN { exit !(w >= 2) }' || { echo "FAIL: returned after $waited s, before the lock was released"; fail=1; }
[ -f "$dest/.tsocheck-install-complete" ] || { echo "FAIL: the complete install was removed"; fail=1; }
# A lock held past TSOCHECK_INSTALL_WAIT: a clear error, the install untouched.
flock "$cache/code-server-$version.lock" sleep 4 &
holder=$!
sleep 0.5
TSOCHECK_CACHE_DIR="$cache" TSOCHECK_INSTALL_WAIT=1 "$script" >/dev/null 2>"$cache/stderr2"
rc=$?
wait "$holder"
[ $rc -ne 0 ] && grep -q "still locked after 1 s" "$cache/stderr2" || { echo "FAIL: timeout: exit $rc, $(cat "$cache/stderr2")"; fail=1; }
[ -f "$dest/.tsocheck-install-complete" ] || { echo "FAIL: the install was removed after the timeout"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: a second install waited $waited s for the lock, then found the install complete"
exit $fail

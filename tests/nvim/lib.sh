# Shared by the Neovim test drivers (sourced; POSIX sh).

# readme_lua FILE START: the first ```lua block after the line containing
# START in FILE, with '/path/to/tsocheck' replaced by the clone ($tree).
readme_lua() {
  awk -v start="$2" 'f == 0 && index($0, start) { f = 1; next }
                     f == 1 && /^```lua/ { f = 2; next }
                     f == 2 && /^```/ { exit }
                     f == 2 { print }' "$1" | sed "s|/path/to/tsocheck|$tree|g"
}

# server_path BIN DIR: sets $path to a PATH without tsocheck on it, unless BIN
# is not the clone's development build (then DIR/bin/tsocheck links to BIN and
# is on $path); $expect is the binary the module should find, $source how
# ("development" or "PATH").
server_path() {
  path=/usr/local/bin:/usr/bin:/bin
  if [ "$1" -ef "$tree/build/lsp/tsocheck" ]; then
    expect="$tree/build/lsp/tsocheck" source=development
  else
    mkdir "$2/bin" && ln -s "$1" "$2/bin/tsocheck"
    expect="$2/bin/tsocheck" source=PATH path="$path:$2/bin"
  fi
}

# start BIN: the preamble of a headless test driver run as `X_run.sh BIN
# SAMPLES`: skipped (77) without nvim; $here (this folder), $tree (the
# clone), $bin (BIN made absolute) and $dir (a fresh temporary folder).
start() {
  command -v nvim >/dev/null 2>&1 || skip_or_fail "nvim not found (scripts/setup.sh installs Debian's neovim)"
  here=$(cd "$(dirname "$0")" && pwd)
  tree=$(cd "$here/../.." && pwd)
  bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  dir=$(mktemp -d)
}

# verdict: prints what the test wrote to $dir/result.txt, removes $dir and
# exits 0 when it holds a PASS line.
verdict() {
  cat "$dir/result.txt" 2>/dev/null || echo "FAIL nvim wrote no result (crash or timeout)"
  grep -q '^PASS' "$dir/result.txt" 2>/dev/null
  status=$?
  cd / && rm -rf "$dir"
  exit $status
}

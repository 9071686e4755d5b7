#!/bin/sh
# Lists every function longer than a threshold (default 120 lines) in the
# project's C++ sources, longest first: "lines file:start name".
# Uses Universal Ctags' end-of-definition field; a lambda counts as part of
# the function that holds it.
# Usage: scripts/long-functions.sh [threshold] [dir ...]
set -eu
cd "$(dirname "$0")/.."
limit=${1:-120}
[ $# -gt 0 ] && shift
dirs=${*:-engine frontend service lsp dap cli jsonrpc}
# shellcheck disable=SC2086
ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x --_xformat='%F %n %{end} %{scope}::%N' \
      -f - $dirs 2>/dev/null |
  awk -v limit="$limit" '$3 != "" { len = $3 - $2 + 1; if (len > limit) printf "%5d %s:%s %s\n", len, $1, $2, $4 }' |
  sed 's/ ::/ /' | sort -rn

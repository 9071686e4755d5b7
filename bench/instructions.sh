#!/usr/bin/env bash
# The instructions a command's own process executes, in millions, counted
# under valgrind's callgrind (about 45x slower; child processes such as the
# frontend worker are left out): the same from run to run, where CPU time on
# a shared machine varies by 10-30%. Prints - without valgrind. The command's
# exit status does not matter (a check with a violation exits 1).
#   bench/instructions.sh COMMAND [ARGS...]
set -uo pipefail
command -v valgrind >/dev/null || { echo -; exit 0; }
{ valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null || true; } |
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' |
  python3 -c 'import sys; v=sys.stdin.read().split(); print("%.1f" % (int(v[0]) / 1e6) if v else "-")'

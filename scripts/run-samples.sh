#!/usr/bin/env bash
# Sets everything up, then runs the main job: `tsocheck check` on every
# bundled sample under the default model (TSO). Extra arguments go to
# tsocheck (e.g. --model pso, --json). Buggy samples report violations; the
# script fails only if tsocheck itself reports a usage or input error.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh tsocheck  # the command and its frontend worker: no test binaries
status=0
build/lsp/tsocheck check samples/*.c samples/litmus/*.c "$@" || status=$?
# samples/project: a CMake project (queue in src/, harness in tests/). CMake
# writes its compile database (absolute paths of this checkout) into
# build/; the harness is linked with the file that defines the queue. Once
# as it is (a PSO bug), once with -DSPSC_FIXED=ON.
for variant in buggy fixed; do
  db=build/samples-project-$variant
  flag=OFF; [ "$variant" = fixed ] && flag=ON
  cmake -S samples/project -B "$db" -DSPSC_FIXED=$flag >/dev/null
  s=0
  build/lsp/tsocheck check samples/project/tests/test_spsc.c --compile-commands-dir "$db" "$@" || s=$?
  if [ "$s" -gt "$status" ]; then status=$s; fi
done
if [ "$status" -eq 2 ]; then
  echo "run-samples: tsocheck reported an input error" >&2
  exit 2
fi
echo "run-samples: done (violations above are the buggy samples' bugs)"

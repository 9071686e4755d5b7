#!/usr/bin/env bash
# The fixed cost of one `tsocheck check`, taken apart (bench/RESULTS.md,
# "startup.sh"). CPU milliseconds (user + system, the
# process and every process it waited for, as getrusage counts them), the
# mean and the minimum of R runs (default 30), for:
#   - an empty C++ program, the same linked with libLLVM, and with
#     libclang-cpp and libLLVM as the frontend worker is (what loading the
#     shared libraries costs before a line of the product runs);
#   - `tsocheck --version` (the CLI process alone) and `tsocheck-frontend`
#     on an empty request (the worker's start and exit, no Clang);
#   - whole checks: a harness with no #include, the same with <assert.h>,
#     <pthread.h> and <stdatomic.h>, and the Lamport lock's first violation
#     under TSO (bench/peers.sh's lamport(1)! row);
#   - GenMC on the same three harnesses, when $GENMC (or genmc on PATH) is
#     there.
# Then the floor that no change inside the product can go below while the
# libraries are shared (the loaded libraries plus the CLI process) against
# half of GenMC's time. Figures only: nothing passes or fails.
#   [GENMC=path] bench/startup.sh [R]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/lsp/tsocheck
worker=build/lsp/tsocheck-frontend
{ [ -x "$bin" ] && [ -x "$worker" ]; } || cmake --build build --target tsocheck tsocheck-frontend
genmc="${GENMC:-$(command -v genmc || true)}"
reps="${1:-30}"
libdir=$( (llvm-config-19 --libdir || echo /usr/lib/llvm-19/lib) 2>/dev/null)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'int main() { return 0; }' >"$tmp/empty.cpp"
c++ -O2 "$tmp/empty.cpp" -o "$tmp/empty"
c++ -O2 "$tmp/empty.cpp" -o "$tmp/empty_llvm" -Wl,--no-as-needed -L"$libdir" -lLLVM -Wl,-rpath,"$libdir"
c++ -O2 "$tmp/empty.cpp" -o "$tmp/empty_clang" -Wl,--no-as-needed -L"$libdir" -lclang-cpp -lLLVM \
  -Wl,-rpath,"$libdir"
cat >"$tmp/trivial.c" <<'EOF'
int x;
__attribute__((annotate("tsocheck"))) void check(void) { x = 1; }
EOF
cat >"$tmp/headers.c" <<'EOF'
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
atomic_int x;
static void *writer(void *arg) { atomic_store(&x, 1); return arg; }
__attribute__((annotate("tsocheck"))) void check(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  pthread_join(t, 0);
  assert(atomic_load(&x) == 1);
}
EOF
: >"$tmp/empty_request"

# label, stdin file, command... -> "label mean min"
measure() {
  python3 - "$reps" "$@" <<'PY'
import os, resource, subprocess, sys
reps, label, stdin, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
times = []
for _ in range(reps):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdin) as f:
        subprocess.run(cmd, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    times.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
print("%-46s %8.2f %8.2f" % (label, sum(times) / len(times), min(times)))
PY
}

lamport=(bench/programs/lamport_plain.c --no-fences --no-race-check --model tso -- -DROUNDS=1)
printf '%-46s %8s %8s\n' "CPU ms (R=$reps)" mean min
{
  measure "empty program" /dev/null "$tmp/empty"
  measure "empty program + libLLVM" /dev/null "$tmp/empty_llvm"
  measure "empty program + libclang-cpp + libLLVM" /dev/null "$tmp/empty_clang"
  measure "tsocheck --version" /dev/null "$bin" --version
  measure "tsocheck-frontend, empty request" "$tmp/empty_request" "$worker" __lower
  measure "check: no #include" /dev/null "$bin" check "$tmp/trivial.c" --no-fences --no-race-check
  measure "check: assert.h pthread.h stdatomic.h" /dev/null "$bin" check "$tmp/headers.c" --no-fences --no-race-check
  measure "check: lamport(1)! tso" /dev/null "$bin" check "${lamport[@]}"
  if [ -n "$genmc" ]; then
    g=("$genmc" --disable-estimation --disable-mm-detector --disable-race-detection)  # as bench/peers.sh runs it
    measure "GenMC: no #include" /dev/null "${g[@]}" --program-entry-function=check -- "$tmp/trivial.c"
    measure "GenMC: assert.h pthread.h stdatomic.h" /dev/null "${g[@]}" --program-entry-function=check -- \
      "$tmp/headers.c"
    measure "GenMC: lamport(1)! tso" /dev/null "${g[@]}" --tso --program-entry-function=lamport_plain -- \
      -I bench/peer_include -DROUNDS=1 bench/programs/lamport_plain.c
  fi
} | tee "$tmp/rows"
python3 - "$tmp/rows" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    label, mean = line[:46].strip(), float(line[46:].split()[0])
    rows[label] = mean
libs = rows["empty program + libclang-cpp + libLLVM"]
cli = rows["tsocheck --version"]
print()
print("floor while the libraries are shared (libraries + CLI): %.2f ms" % (libs + cli))
print("Clang and lowering, no #include (check - worker start - CLI): %.2f ms" %
      (rows["check: no #include"] - rows["tsocheck-frontend, empty request"] - cli))
print("the three headers: %.2f ms" % (rows["check: assert.h pthread.h stdatomic.h"] - rows["check: no #include"]))
for what in ("no #include", "assert.h pthread.h stdatomic.h", "lamport(1)! tso"):
    g = rows.get("GenMC: " + what)
    if g:
        print("%-34s tsocheck/GenMC %.2f; half of GenMC %.2f ms, the floor is %.2f of GenMC" %
              (what + ":", rows["check: " + what] / g, g / 2, (libs + cli) / g))
PY

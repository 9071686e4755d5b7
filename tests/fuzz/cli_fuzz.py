#!/usr/bin/env python3
"""Fuzz driver for `tsocheck check`: mutates the bundled samples
(byte flips, deletions, duplicated lines, hostile snippets: invalid UTF-8,
huge arrays, deep expressions, long identifiers, odd annotations) and runs the
CLI with --json and --sarif under a time limit. Every run must end (no hang),
with exit 0/1/2 (no abort, no signal) and parseable JSON.

usage: cli_fuzz.py TSOCHECK_BIN SAMPLES_DIR [--cases N] [--seed S] [--no-memory-limit]
  ctest runs a short mode (--cases 25); by hand: --cases 2000.
"""
import argparse, glob, json, os, random, resource, shutil, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("samples")
ap.add_argument("--cases", type=int, default=25)
ap.add_argument("--seed", type=int, default=None)
ap.add_argument("--no-memory-limit", action="store_true", help="for ASan builds (they reserve terabytes of shadow)")
a = ap.parse_args()
seed = a.seed if a.seed is not None else int(time.time())
rng = random.Random(seed)
samples = sorted(glob.glob(os.path.join(a.samples, "*.c")))

SNIPPETS = [
    b'\nint huge_arr[100000000000];\n',
    b'\nchar latin1[] = "caf\xe9";\n',
    b'\n#line 18 "\xff\xfe.c"\n',
    b'\nTSOCHECK_WITH("\xff model=tso") void extra(void) { }\n',
    b'\nint deep = ' + b'(' * 300 + b'1' + b')' * 300 + b';\n',
    b'\nint ' + b'x' * 5000 + b';\n',
    b'\nvoid u(void) { undeclared_' + b'y' * 20000 + b' = 1; }\n',
    b'\nTSOCHECK void empty(void) { }\n',
    b'\nTSOCHECK void spin(void) { for (;;) { } }\n',
    b'\n#define A(x) x x x x x x x x\n',
    b'\n\x00\x01\x02\n',
    b'\nstatic void *t(void *p) { return p; }\n',
]


def mutate(b):
    b = bytearray(b)
    for _ in range(rng.randrange(1, 5)):
        op = rng.randrange(5)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(i, len(b) - 1)] = rng.randrange(256)
        elif op == 1:
            del b[i:i + rng.randrange(1, 40)]
        elif op == 2:
            lines = bytes(b).split(b"\n")
            k = rng.randrange(len(lines))
            lines.insert(k, lines[rng.randrange(len(lines))])
            b = bytearray(b"\n".join(lines))
        else:
            b[i:i] = rng.choice(SNIPPETS)
    return bytes(b)


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


root = tempfile.mkdtemp(prefix="tsocheck-clifuzz-")
bad = []
t0 = time.time()
for n in range(a.cases):
    src = rng.choice(samples)
    data = mutate(open(src, "rb").read())
    f = os.path.join(root, "m%d.c" % n)
    open(f, "wb").write(data)
    sarif = f + ".sarif"
    try:
        r = subprocess.run([a.bin, "check", "--json", "--sarif", sarif, "--time-limit", "2", f],
                           capture_output=True, timeout=60,
                           preexec_fn=None if a.no_memory_limit else limit_memory)
    except subprocess.TimeoutExpired:
        bad.append((f, "hang"))
        continue
    if r.returncode not in (0, 1, 2):
        bad.append((f, "exit %d" % r.returncode))
        continue
    try:
        json.loads(r.stdout)
    except ValueError:
        bad.append((f, "stdout is not JSON"))
        continue
    if r.returncode != 2 and not os.path.exists(sarif):
        bad.append((f, "no SARIF"))
for f, why in bad:
    keep = os.path.join(tempfile.gettempdir(), "tsocheck-clifuzz-" + os.path.basename(f))
    shutil.copy(f, keep)
    print("FAIL:", why, "- kept as", keep)
shutil.rmtree(root, ignore_errors=True)
print("cli fuzz: seed %d, %d mutants in %.1f s, %d failure(s)" % (seed, a.cases, time.time() - t0, len(bad)))
sys.exit(1 if bad else 0)

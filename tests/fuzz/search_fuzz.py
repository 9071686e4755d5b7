#!/usr/bin/env python3
"""Differential fuzz driver for the searches behind `tsocheck check`: mutates
the bundled samples so that they still compile (memory orders, constants and
comparisons changed, statements dropped — joins among them —, statements
inserted: fences, mutex pairs, spins on a global of the fuzzer's, thread
exits, exit(), assertions, RMWs, spawns of a thread of the fuzzer's with or
without a join) and checks each mutant through the whole pipeline:

  * the graph explorer against itself with two workers and the other
    exploration orders (same verdict; when verified, the same executions and
    blocked executions), against a preemption bound no run reaches and, under
    TSO/PSO, buffer-bound deepening (same verdict where both are definite),
    and against the state space (`--stateful`, same verdict);
  * with --native R: the mutant compiled by the system C compiler and run R
    times on this machine; an assertion that fails natively on x86 while
    `--model tso` says verified (graph explorer or `--stateful`) is a false
    `verified`.

A check that reports an engine error (a self-check, a crash of the
explorer) fails too. Found this way: `--stateful` said verified
where main returned without joining a thread that could still change what
main read, and reported non-termination for a spin with an mfence between
its reads.

usage: search_fuzz.py TSOCHECK_BIN SAMPLES_DIR [--cases N | --minutes M] [--seed S] [--native R] [--keep DIR]
  ctest runs a short mode; by hand e.g. --minutes 30 --native 300.
"""
import argparse, glob, json, os, random, re, shutil, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("samples")
ap.add_argument("--cases", type=int, default=20)
ap.add_argument("--minutes", type=float, default=0)
ap.add_argument("--seed", type=int, default=None)
ap.add_argument("--native", type=int, default=0, help="native runs per mutant (0: no native oracle)")
ap.add_argument("--keep", default=tempfile.gettempdir(), help="where failing mutants are kept")
a = ap.parse_args()
seed = a.seed if a.seed is not None else int(time.time())
rng = random.Random(seed)
files = sorted(glob.glob(os.path.join(a.samples, "*.c")) + glob.glob(os.path.join(a.samples, "litmus", "*.c")))
files = [f for f in files if "TSOCHECK" in open(f).read()]
include = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "frontend", "include")

ORDERS = ["memory_order_relaxed", "memory_order_acquire", "memory_order_release", "memory_order_acq_rel",
          "memory_order_seq_cst"]
STMTS = ["atomic_thread_fence(memory_order_seq_cst);", '__asm__ __volatile__("mfence" ::: "memory");',
         "if (0) { }", "sched_yield();", "pthread_mutex_lock(&fz_m); pthread_mutex_unlock(&fz_m);",
         "if (fz_g) { fz_g = 0; }", "fz_g = 1;", "while (fz_g == 2) ;",
         "while (fz_g == 2) { atomic_thread_fence(memory_order_seq_cst); }", "if (fz_g == 1) pthread_exit(0);",
         "{ int fz_v = fz_g; assert(fz_v != 3); }", "fz_g = 2; fz_g = 0;",
         "atomic_fetch_add(&fz_a, 1);", "{ int fz_e = 0; atomic_compare_exchange_strong(&fz_a, &fz_e, 2); }",
         "if (atomic_exchange(&fz_a, 3) == 3) fz_g = 3;",
         "{ pthread_t fz_t; pthread_create(&fz_t, 0, fz_thread, 0); }",
         "{ pthread_t fz_t; pthread_create(&fz_t, 0, fz_thread, 0); pthread_join(fz_t, 0); }",
         "if (fz_g == 3) exit(0);"]
PRELUDE = ("#include <sched.h>\n#include <stdatomic.h>\n#include <stdlib.h>\n"
           "static pthread_mutex_t fz_m = PTHREAD_MUTEX_INITIALIZER;\nstatic int fz_g;\nstatic atomic_int fz_a;\n"
           "static void *fz_thread(void *p) { fz_g = 1; atomic_fetch_add(&fz_a, 1); return p; }\n")


def mutate(s):
    i = s.find("#include <pthread.h>")
    if i >= 0:
        j = s.index("\n", i) + 1
        s = s[:j] + PRELUDE + s[j:]
    for _ in range(rng.randrange(1, 5)):
        k = rng.randrange(5)
        if k == 0:
            ms = list(re.finditer(r"memory_order_\w+", s))
            if ms:
                m = rng.choice(ms)
                s = s[:m.start()] + rng.choice(ORDERS) + s[m.end():]
        elif k == 1:  # an integer literal outside preprocessor lines
            ms = [m for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", s)
                  if "#" not in s[s.rfind("\n", 0, m.start()):m.start()]]
            if ms:
                m = rng.choice(ms)
                v = int(m.group(1))
                s = s[:m.start()] + str(rng.choice([0, 1, 2, 3, v + 1, max(0, v - 1)])) + s[m.end():]
        elif k == 2:
            ms = list(re.finditer(r" (==|!=|<=|>=|<|>) ", s))
            if ms:
                m = rng.choice(ms)
                s = s[:m.start()] + " " + rng.choice(["==", "!=", "<=", ">=", "<", ">"]) + " " + s[m.end():]
        elif k == 3:  # a statement inside a function body
            ms = list(re.finditer(r";\n(?=  )", s))
            if ms:
                m = rng.choice(ms)
                s = s[:m.end()] + "  " + rng.choice(STMTS) + "\n" + s[m.end():]
        else:  # drop a call statement (a join, a store, a fence, ...)
            lines = s.split("\n")
            cand = [i for i, l in enumerate(lines) if l.strip().endswith(";") and "(" in l and
                    not l.strip().startswith(("#", "static", "int ", "TSOCHECK", "pthread_t", "return"))]
            if cand:
                del lines[rng.choice(cand)]
                s = "\n".join(lines)
    return s


def check(f, args):
    """(results by function, None) or (None, what went wrong)."""
    try:
        r = subprocess.run([a.bin, "check", f, "--json", "--no-fences", "--time-limit", "10"] + args,
                           capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "hang"
    if r.returncode not in (0, 1, 2):
        return None, "exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace")[-300:])
    try:
        j = json.loads(r.stdout)
    except ValueError:
        return None, "stdout is not JSON"
    return {x.get("function"): x for x in j.get("results", [])}, None


def engine_error(res):
    msg = res.get("message") or ""
    return res.get("status") == "error" and re.search(r"self-check|engine|internal|logic_error", msg)


def differential(f, model):
    problems = []
    base = ["--model", model, "--loop-bound", "4", "--jobs", "1"]
    ref, err = check(f, base)
    if err:
        return [err]
    for fn, r in ref.items():
        if engine_error(r):
            problems.append("%s: engine error: %s" % (fn, r.get("message")))
    counted = [["--jobs", "2"], ["--explore-order", "stale-first"], ["--explore-order", "revisits-first"]]
    verdict_only = [["--stateful"], ["--preemption-bound", "12"]]
    if model != "sc":
        verdict_only.append(["--buffer-bound", "0..3"])
    for extra in counted + verdict_only:
        other, err = check(f, base + extra)
        if err:
            problems.append("%s: %s" % (" ".join(extra), err))
            continue
        for fn, r in ref.items():
            o = other.get(fn)
            if not o:
                continue
            if engine_error(o):
                problems.append("%s %s: engine error: %s" % (" ".join(extra), fn, o.get("message")))
            a_, b_ = r.get("status"), o.get("status")
            if {a_, b_} <= {"verified", "violation"} and a_ != b_:
                problems.append("%s %s: %s, %s without it" % (" ".join(extra), fn, b_, a_))
            elif extra in counted and a_ == b_ == "verified" and \
                    (r.get("executions"), r.get("blocked")) != (o.get("executions"), o.get("blocked")):
                problems.append("%s %s: %s/%s executions/blocked, %s/%s without it" % (
                    " ".join(extra), fn, o.get("executions"), o.get("blocked"), r.get("executions"), r.get("blocked")))
    return problems


def native(f, s):
    m = re.search(r"TSOCHECK(?:_WITH\([^)]*\))?\s+void\s+(\w+)\s*\(\s*void\s*\)", s)
    if not m:
        return []
    harness = m.group(1)
    src = f[:-2] + "_native.c"
    exe = f[:-2] + "_native"
    open(src, "w").write(s + "\nint main(void) { %s(); return 0; }\n" % harness)
    if subprocess.run(["cc", "-O0", "-pthread", "-w", "-I", include, src, "-o", exe], capture_output=True).returncode:
        return []
    failed = None
    for _ in range(a.native):
        try:
            p = subprocess.run([exe], capture_output=True, timeout=1)
        except subprocess.TimeoutExpired:
            continue
        if p.returncode != 0 and b"Assertion" in p.stderr:
            failed = p.stderr.decode(errors="replace").strip()[-160:]
            break
    if not failed:
        return []
    problems = []
    for extra in ([], ["--stateful"]):
        res, err = check(f, ["--model", "tso", "--jobs", "1"] + extra)
        if res and res.get(harness, {}).get("status") == "verified":
            problems.append("false verified under TSO %s: natively %s" % (" ".join(extra) or "(graph explorer)", failed))
    return problems


root = tempfile.mkdtemp(prefix="tsocheck-searchfuzz-")
t0 = time.time()
n = bad = 0
kept = []
while (a.minutes > 0 and time.time() - t0 < a.minutes * 60) or (a.minutes <= 0 and n < a.cases):
    n += 1
    s = mutate(open(rng.choice(files)).read())
    f = os.path.join(root, "m%d.c" % n)
    open(f, "w").write(s)
    model = rng.choice(["sc", "tso", "pso"])
    problems = differential(f, model) + (native(f, s) if a.native else [])
    if problems:
        bad += 1
        os.makedirs(a.keep, exist_ok=True)
        keep = os.path.join(a.keep, "tsocheck-searchfuzz-%d-%d.c" % (seed, n))
        shutil.copy(f, keep)
        kept.append(keep)
        print("FAIL (%s): %s" % (model, keep))
        for p in problems:
            print("  " + p)
        sys.stdout.flush()
shutil.rmtree(root, ignore_errors=True)
print("search fuzz: seed %d, %d mutants in %.1f s, %d failing" % (seed, n, time.time() - t0, bad))
sys.exit(1 if bad else 0)

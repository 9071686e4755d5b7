#!/usr/bin/env python3
"""A split check merges into the single run's report.

Runs `tsocheck check --shard I/N --json` as N separate processes (N = 1, 2,
3, 7) on random C programs and on samples and benchmark programs under SC,
TSO, PSO (and RC11 for the C11 samples), merges them with `tsocheck merge`
and compares the result with one `tsocheck check --json` run: every field
but the times (counts, status and message, the violations and their traces,
limits). `tsocheck merge --fix` on failing samples gives the single run's
report with its fix, and refuses a file edited since the shards ran. Then
checks that mismatched shards are refused: another program, other options,
a missing index, an index given twice, different counts.

usage: shards_test.py TSOCHECK SOURCE_DIR [--quick]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

TIMES = {"elapsed_ms", "lower_ms"}


def run(cmd, ok=(0, 1)):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode not in ok:
        raise SystemExit("FAIL: %s exited %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p


def without_times(doc):
    doc = json.loads(json.dumps(doc))
    doc.pop("stats", None)
    for r in doc["results"]:
        for k in TIMES:
            r.pop(k, None)
    return doc


def random_program(seed):
    """A small C program: 2-3 threads of stores, loads and fences on shared
    volatile ints; main joins them and asserts a condition on what they read."""
    rnd = random.Random(seed)
    nloc = rnd.randint(1, 3)
    threads = []
    reads = []
    for t in range(rnd.randint(2, 3)):
        body = []
        for i in range(rnd.randint(1, 4)):
            loc = "x%d" % rnd.randrange(nloc)
            op = rnd.random()
            if op < 0.45:
                body.append("  %s = %d;" % (loc, rnd.randint(1, 2)))
            elif op < 0.9:
                r = "r%d_%d" % (t, i)
                reads.append(r)
                body.append("  %s = %s;" % (r, loc))
            else:
                body.append("  atomic_thread_fence(memory_order_seq_cst);")
        threads.append(body)
    cond = " && ".join("%s == %d" % (r, rnd.randint(0, 2)) for r in rnd.sample(reads, min(2, len(reads)))) or "1"
    out = ["#include <assert.h>", "#include <pthread.h>", "#include <stdatomic.h>", "#include <tsocheck.h>", ""]
    out += ["volatile int x%d;" % i for i in range(nloc)]
    out += ["volatile int %s;" % r for r in reads]
    for t, body in enumerate(threads):
        out += ["static void *t%d(void *arg) {" % t] + body + ["  return NULL;", "}"]
    out += ["TSOCHECK void random_check(void) {", "  pthread_t th[%d];" % len(threads)]
    out += ["  pthread_create(&th[%d], NULL, t%d, NULL);" % (t, t) for t in range(len(threads))]
    out += ["  pthread_join(th[%d], NULL);" % t for t in range(len(threads))]
    out += ["  assert(!(%s));" % cond, "}"]
    return "\n".join(out) + "\n"


def shards(tsocheck, tmp, path, args, count, depth=None, tag="s"):
    """Runs `count` shard processes side by side; their report files."""
    files, procs = [], []
    extra = ["--shard-depth", str(depth)] if depth else []
    for i in range(count):
        f = os.path.join(tmp, "%s-%d-of-%d.json" % (tag, i, count))
        out = open(f, "w")
        procs.append((subprocess.Popen([tsocheck, "check", path, "--json", "--shard", "%d/%d" % (i, count)] +
                                       extra + args, stdout=out, stderr=subprocess.PIPE, text=True), out))
        files.append(f)
    for p, out in procs:
        _, err = p.communicate(timeout=600)
        out.close()
        if p.returncode not in (0, 1):
            raise SystemExit("FAIL: shard of %s %s exited %d\n%s" % (path, args, p.returncode, err))
    return files


def check_case(tsocheck, tmp, path, args, counts, depths):
    single = without_times(json.loads(run([tsocheck, "check", path, "--json", "--jobs", "1"] + args).stdout))
    for depth in depths:
        for n in counts:
            files = shards(tsocheck, tmp, path, args, n, depth)
            merged = json.loads(run([tsocheck, "merge"] + files).stdout)
            if without_times(merged) != single:
                a = json.dumps(single, indent=1, sort_keys=True).splitlines()
                b = json.dumps(without_times(merged), indent=1, sort_keys=True).splitlines()
                diff = [l for l in __import__("difflib").unified_diff(a, b, "single", "merged", lineterm="")]
                raise SystemExit("FAIL: %s %s, %d shards cut at depth %s: the merge differs from the single run\n%s"
                                 % (path, " ".join(args), n, depth, "\n".join(diff[:60])))
    return single


def fix_case(tsocheck, tmp, path, args, counts):
    """`tsocheck merge --fix` gives the single run's report, fix included."""
    def plain(doc):
        doc = without_times(doc)
        for r in doc["results"]:
            if r.get("fence_synthesis"):
                r["fence_synthesis"].pop("seconds", None)
        return doc
    single = plain(json.loads(run([tsocheck, "check", path, "--json", "--jobs", "1"] + args).stdout))
    if not any(r["fences"] for r in single["results"]):
        raise SystemExit("FAIL: %s %s: the single run offers no fix to compare with" % (path, args))
    for n in counts:
        files = shards(tsocheck, tmp, path, args, n, tag="fix")
        p = run([tsocheck, "merge", "--fix", "--jobs", "1"] + files)
        merged = plain(json.loads(p.stdout))
        if merged != single:
            a = json.dumps(single, indent=1, sort_keys=True).splitlines()
            b = json.dumps(merged, indent=1, sort_keys=True).splitlines()
            diff = [l for l in __import__("difflib").unified_diff(a, b, "single", "merge --fix", lineterm="")]
            raise SystemExit("FAIL: %s %s, %d shards: merge --fix differs from the single run\n%s"
                             % (path, " ".join(args), n, "\n".join(diff[:60])))
        if "counterexample found again" not in p.stderr:
            raise SystemExit("FAIL: merge --fix of %s did not say where it found the counterexample: %s"
                             % (path, p.stderr))


def expect_refusal(tsocheck, files, words):
    p = run([tsocheck, "merge"] + files, ok=(2,))
    if words not in p.stderr:
        raise SystemExit("FAIL: merge of %s: expected a refusal naming `%s`, got: %s" % (files, words, p.stderr))


def main():
    tsocheck, src = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    counts = [1, 2, 3, 7]
    cases = 0
    with tempfile.TemporaryDirectory() as tmp:
        # Random programs, each model, stopping at the first violation and going on.
        for seed in range(2 if quick else 10):
            path = os.path.join(tmp, "random%d.c" % seed)
            with open(path, "w") as f:
                f.write(random_program(seed))
            for model in ["sc", "tso", "pso"]:
                for more in ([], ["--keep-going"]):
                    check_case(tsocheck, tmp, path, ["--model", model, "--no-fences"] + more, counts, [3, None])
                    cases += 1
        # Samples and benchmark programs.
        programs = [
            ("samples/peterson_buggy.c", ["sc", "tso", "pso"]),
            ("samples/dekker_buggy.c", ["sc", "tso", "pso"]),
            ("samples/mp_buggy.c", ["sc", "tso", "pso"]),
            ("samples/c11_mp_relaxed_buggy.c", ["rc11"]),
            ("samples/c11_mp_relaxed_fixed.c", ["rc11"]),
            ("samples/ticket_lock_buggy.c", ["tso", "pso"]),
            ("bench/programs/indexer.c", ["tso"]),
            ("bench/programs/sbchain.c", ["pso"]),
        ]
        if quick:
            programs = [programs[0], programs[3], programs[6], programs[7]]
        for rel, models in programs:
            for model in models:
                for more in ([], ["--keep-going"]):
                    check_case(tsocheck, tmp, os.path.join(src, rel), ["--model", model, "--no-fences"] + more,
                               counts, [None])
                    cases += 1
        # The fix after the merge is the single run's fix.
        fixes = [("samples/peterson_buggy.c", "tso"), ("samples/mp_buggy.c", "pso"),
                 ("samples/c11_mp_relaxed_buggy.c", "rc11"), ("samples/dekker_buggy.c", "pso")]
        for rel, model in (fixes[:3] if quick else fixes):
            fix_case(tsocheck, tmp, os.path.join(src, rel), ["--model", model], [2, 7])
            cases += 1
        # A file edited after the shards ran: merge --fix refuses rather than
        # fix another program (its edits would land on the wrong lines).
        edited = os.path.join(tmp, "edited.c")
        with open(os.path.join(src, "samples/peterson_buggy.c")) as f:
            text = f.read()
        with open(edited, "w") as f:
            f.write(text)
        before = shards(tsocheck, tmp, edited, ["--model", "tso"], 2, tag="e")
        with open(edited, "w") as f:
            f.write("\n" + text)
        p = run([tsocheck, "merge", "--fix"] + before, ok=(2,))
        if "fingerprint differs" not in p.stderr:
            raise SystemExit("FAIL: merge --fix of an edited file was not refused: " + p.stderr)
        run([tsocheck, "merge"] + before)  # (the merge itself needs no file)
        p = run([tsocheck, "merge", "--jobs", "1"] + before, ok=(2,))
        if "need --fix" not in p.stderr:
            raise SystemExit("FAIL: merge --jobs without --fix was not refused: " + p.stderr)
        # Refusals.
        a = os.path.join(src, "samples/mp_buggy.c")
        b = os.path.join(src, "samples/mp_fixed.c")
        two = shards(tsocheck, tmp, a, ["--model", "pso"], 2, tag="a")
        other_program = shards(tsocheck, tmp, b, ["--model", "pso"], 2, tag="b")
        other_options = shards(tsocheck, tmp, a, ["--model", "tso"], 2, tag="c")
        three = shards(tsocheck, tmp, a, ["--model", "pso"], 3, tag="d")
        expect_refusal(tsocheck, [two[0], other_program[1]], "different checks")
        expect_refusal(tsocheck, [two[0], other_options[1]], "fingerprints differ")
        expect_refusal(tsocheck, [two[0]], "shard 1/2 is missing")
        expect_refusal(tsocheck, [two[0], two[0], two[1]], "shard 0/2 is given twice")
        expect_refusal(tsocheck, [two[0], three[1], three[2]], "split the check differently")
        # A search that cannot be split says why, in the report of every shard.
        for opts, words in [(["--stateful"], "visited states"), (["--robustness"], "one witness"),
                            (["--preemption-bound", "1"], "preemption bound"),
                            (["--buffer-bound", "0..2"], "deepening")]:
            p = run([tsocheck, "check", a, "--json", "--shard", "0/2"] + opts, ok=(0, 1, 2))
            if words not in p.stdout:
                raise SystemExit("FAIL: --shard with %s was not refused naming `%s`:\n%s" % (opts, words, p.stdout[:2000]))
        p = run([tsocheck, "check", a, "--shard", "2/2"], ok=(2,))
        if "INDEX/COUNT" not in p.stderr:
            raise SystemExit("FAIL: --shard 2/2 was not refused: " + p.stderr)
    print("ok: %d cases merged (and fixed) equal to the single run; mismatched shards and edited files refused" % cases)


if __name__ == "__main__":
    main()

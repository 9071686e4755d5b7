// Random small concurrent programs for property tests: a main thread spawns
// 2-4 threads (2 most often) and joins them all (or, with mainReads, the
// first only, then reads the first location and returns); each thread performs a few
// accesses to 1-3 shared 4-byte globals (stores of small constants, loads,
// Full/StoreStore fences, fetch-add/xchg/cas, a branch on a loaded value)
// and finally stores everything it has read, packed one byte per value, into
// its own 8-byte result global, so that final memory distinguishes outcomes.
// Two times out of three the threads start from a critical cycle (SB, MP, LB,
// 2+2W, ... shapes) so that weak behaviours are common.
#pragma once

#include <cstdint>

#include "engine/ir.h"

namespace tsocheck::testing {

struct RandomProgramSpec {
  uint32_t minThreads = 2, maxThreads = 4;      // threads besides main
  uint32_t minAccesses = 1, maxAccesses = 5;    // shared accesses per thread (branch arms
                                                // included); at most 8 values are recorded
  uint32_t minLocations = 1, maxLocations = 3;  // shared 4-byte globals
  uint32_t maxFencesPerThread = 2;
  bool fences = true;    // Full and StoreStore fences
  bool rmws = true;      // fetch-add, xchg, cas
  bool branches = true;  // if (r == c) { ... } else { ... } on a loaded value
  // Every access and fence gets a random C11 memory order (loads relaxed /
  // acquire / seq_cst, stores relaxed / release / seq_cst, RMWs any (a CAS also a failure
  // order: relaxed / acquire / seq_cst, whatever its success order), fences
  // acquire / release / acq_rel / seq_cst): programs for RC11. Off, the
  // generator draws exactly what it drew before (orders stay seq_cst).
  bool memoryOrders = false;
  // A third of the loads and stores become plain C accesses (Instr
  // kPlainAccess, MemOrder::NonAtomic: data races are possible), relaxed
  // accesses get the flags the lowering gives them (ir.h kRelaxedAccess,
  // kRmwNoAcquire / kRmwNoRelease: no matching fence in the thread's
  // function), and each thread's operations source lines of their own
  // (1000 * thread + k). Off, the generator draws exactly what it drew before.
  bool plainAccesses = false;
  // Budget on a rough estimate of the naive explorer's state space (product
  // over threads of their step counts, flushes included, times a crude bound
  // on the number of traces). Thread bodies over budget are regenerated with
  // a decreasing cap on accesses (thread and location counts are kept); after
  // maxAttempts the smallest candidate is used. 10000: ~1-2 ms per program
  // and model for the naive explorer, rarely more than 100 ms.
  double maxStates = 10000;
  // > 0: each thread runs its body in a counting loop this many times (the
  // budget above is for one iteration). Values read are OR-ed into the result.
  uint32_t loopIterations = 0;
  // Threads 2, 4, ... first spin-wait (load + assume as an idle iteration)
  // until the first location leaves its initial value.
  bool spinAwaits = false;
  // Atomic sections (Op::AtomicBegin/AtomicEnd) around runs of 2+ top-level
  // operations in two threads out of three, nested one time in four, and one
  // time in three (where there is room) a second section of two operations
  // right before the first.
  bool atomicSections = false;
  // main joins only the first thread, then copies the first location into
  // the global res0 and returns: the program ends while the other threads
  // may still run (CheckOptions::exitEndsProgram); every other thread first
  // stores to a global of its own, a step nothing races with. The naive
  // explorer does not model that end.
  bool mainReads = false;
  uint32_t maxAttempts = 100;
};

// The small programs of the state-space property tests (the BFS has to
// finish on them): up to 3 threads of up to 3 accesses, a budget of 2,000.
inline RandomProgramSpec smallSpec() {
  RandomProgramSpec s;
  s.maxAccesses = 3;
  s.maxThreads = 3;
  s.maxStates = 2000;
  return s;
}

// Deterministic: the same seed and spec always give the same program.
Program randomProgram(uint64_t seed, const RandomProgramSpec& spec = RandomProgramSpec{});

}  // namespace tsocheck::testing

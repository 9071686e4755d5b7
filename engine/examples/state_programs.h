// Programs for the benchmarks (bench/state_bench.cpp, bench/engine_bench.cpp)
// and tests (tests/engine/sdpor_test.cpp, explorer_test.cpp), written with the
// builder API.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/builder.h"
#include "engine/ir.h"

namespace tsocheck::examples {

// Figure 1 of Yang et al., Efficient Stateful DPOR (SPIN 2008): two threads,
// each n times lock; d = d + 1; unlock;
// main asserts d == 2n.
Program figure1(int n);

// T threads, `iters` critical sections each incrementing a counter behind a
// test-and-set lock. rawLoop: `while (xchg(&lock, 1)) ;` as a real loop;
// otherwise the frontend's spin-await form (xchg; assume(old == 0) as an
// idle iteration).
Program spinlock(int threads, int iters, bool rawLoop);

// A bounded buffer of 2 slots, one producer and one consumer moving `items`
// items, waiting with spin-awaits on the count.
Program boundedBuffer(int items);

// T threads, `steps` rounds each of: store to its own global, load a global
// of its own (readBack: the one just stored, served by its store buffer
// under TSO/PSO; otherwise one nobody writes), store the value to a third.
// Loop-free, independent threads.
Program independent(int threads, int steps, bool readBack);

// A `main` that spawns every worker (one function each), joins them all and
// returns 0, from source line `line` on (advanced); the program's entry.
void emitMain(ProgramBuilder& pb, const std::vector<uint32_t>& workers, uint32_t& line);

// Readers and writers of one location: W writers (writer0..) store x = w+1
// once, R readers (reader0..) load x twice; main spawns and joins them all.
// Every (coherence order, reads-from) combination is consistent, and a
// reader's two loads see coherence-ordered writes: W! * C(W+2, 2)^R
// executions under every model (readersWritersCount).
Program readersWriters(unsigned writers, unsigned readers);
uint64_t readersWritersCount(unsigned writers, unsigned readers);

}  // namespace tsocheck::examples

// Programs for the explicit-state searches' benchmark (bench/state_bench.cpp)
// and tests (tests/engine/sdpor_test.cpp), written with the builder API.
#pragma once

#include "engine/ir.h"

namespace tsocheck::examples {

// Seed 004's Figure 1: two threads, each n times lock; d = d + 1; unlock;
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

}  // namespace tsocheck::examples

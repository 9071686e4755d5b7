// A naive RC11 data-race check for tests: happens-before built from the
// definitions (Lahav et al., "Repairing sequential consistency in C/C++11",
// PLDI 2017; release sequences as in C++20) as boolean matrices over one
// execution's events, closed by brute force, and every racing pair listed.
// The reference the race detector (engine/races.h) is compared with under
// RC11; it shares no code with engine/rc11.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/graph.h"
#include "engine/ir.h"
#include "engine/memory_model.h"

namespace tsocheck::testing {

// One event of an execution, as the oracle needs it.
struct HbEvent {
  enum Kind { Access, Fence, Spawn, Join, Other } kind = Other;
  bool reads = false, writes = false;  // an access's parts (an RMW: both)
  bool lock = false, unlock = false;   // a lock or trylock / an unlock (acquire / release RMWs whatever `order`)
  MemOrder order = MemOrder::SeqCst;   // NonAtomic: a plain access; a failed CAS: its failure order
  Addr addr = 0;
  int32_t rfThread = -1;  // reads: the write read (thread -1: the initial value)
  uint32_t rfIndex = 0;
  uint32_t other = 0;     // Spawn: the child thread; Join: the joined thread
  SourceLoc loc;
};
using HbExecution = std::vector<std::vector<HbEvent>>;  // per thread, in program order

// Boolean relation matrices over n nodes: r[a][b] when a is related to b.
using Relation = std::vector<std::vector<bool>>;
Relation composeRelations(const Relation& a, const Relation& b);
// RC11's synchronises-with from its parts over one set of nodes (the naive
// explorer's RC11 check uses it too), the node kinds given by predicates:
// sw = [E⊒rel]; ([F]; sb)?; rs; rf; [R⊒rlx]; (sb; [F])?; [E⊒acq].
Relation rc11SynchronisesWith(const Relation& sb, const Relation& rs, const Relation& rf,
                              const std::function<bool(size_t)>& releasing, const std::function<bool(size_t)>& acquiring,
                              const std::function<bool(size_t)>& fence, const std::function<bool(size_t)>& atomic);

struct OracleRace {
  uint32_t thread1, index1, thread2, index2;  // thread1 < thread2
};

// Every pair of accesses of different threads to one address, one a write,
// one plain, that RC11's hb orders neither way.
std::vector<OracleRace> rc11RacesByMatrices(const HbExecution& x);

// An explorer's graph as an execution (threads never spawned are empty).
HbExecution hbExecutionOf(const Graph& g);

}  // namespace tsocheck::testing

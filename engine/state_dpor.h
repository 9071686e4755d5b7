// Visible operations of the explicit-state machine (engine/state_space.cpp)
// for its stateful dynamic partial-order reduction (Yang et al., SDPOR): what a
// transition touches, when two transitions are dependent, and the visible
// operation dependency graph that summarises what can follow a visited state.
//
// An actor is what takes transitions: a thread's program steps, or its store
// buffer's flushes (under PSO one actor per thread and address, since heads
// of different addresses flush in either order). An operation is the
// abstract identity of a transition: actor, class, address range and flags,
// never values, so that two transitions with equal operations are dependent
// with the same other transitions.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/ir.h"

namespace tsocheck::sdpor {

enum class OpClass : uint8_t {
  Local,     // only the thread's own state: nondet choice, entering an atomic section
  Read,      // a load: reads memory, or the thread's own buffer when it holds the address
  Write,     // writes memory (a store under SC, a flush)
  Update,    // reads and writes memory (rmw, lock, trylock, unlock)
  Buffered,  // a store entering the thread's buffer (memory untouched)
  Fence,     // a fence (needs an empty buffer, or a PSO store-store barrier)
  Spawn,     // creates thread `other`
  Join,      // waits for thread `other` to exit
  Exit,
  Free,      // frees [addr, addr + size)
  BlockSize, // reads the size of the heap block at addr (realloc)
  Global,    // dependent with every transition of every other actor
};

struct Op {
  uint32_t actor = 0;
  uint32_t thread = 0;
  OpClass cls = OpClass::Local;
  bool flush = false;       // a store buffer's flush (else a program step)
  bool needsEmpty = false;  // enabled only with the thread's buffer empty
  bool section = false;     // taken inside (or entering) an atomic section
  bool mayBlock = false;    // a buffered store that a full bounded buffer holds back
  bool barrier = false;     // a flush while the buffer holds a PSO store-store
                            // barrier: it may make later entries heads
  Addr addr = 0;
  uint64_t size = 0;
  uint32_t other = 0;       // Spawn: the child; Join: the target
  bool operator==(const Op& o) const;
};

// Whether swapping a and b (different actors) could change the result or
// enable/disable one of them. Conservative: accesses to memory owned by a
// thread (its stack, thread-locals, heap) depend on every program step of
// that thread, whose invisible steps (returns, mallocs) decide whether they
// are valid.
bool dependent(const Op& a, const Op& b);

// False when a and b can never be enabled in the same state (a thread's
// flush and its own step that needs an empty buffer; a spawn and the child's
// steps; a join and the joined thread's steps): no race to reverse.
bool mayBeCoEnabled(const Op& a, const Op& b);

// Interned operations and the visible operation dependency graph: an edge
// a -> b when b was pending (enabled or not) in a state that a transition
// with operation a entered. Everything that can happen after a state is
// reachable in it from the operations pending there, as far as the search
// has explored.
class OpGraph {
 public:
  uint32_t intern(const Op& op);
  const Op& op(uint32_t id) const { return ops_[id]; }
  size_t size() const { return ops_.size(); }
  void addEdge(uint32_t from, uint32_t to);
  // dependent(op(a), op(b)), and races: also mayBeCoEnabled, a race the
  // search may have to reverse. Kept per pair of the first kPairsCached
  // operations (the search asks about the same pairs again and again).
  bool dependent(uint32_t a, uint32_t b) { return pair(a, b) & kDependent; }
  bool races(uint32_t a, uint32_t b) { return pair(a, b) & kRaces; }
  // Bit q of the row: races(a, q), for every operation interned so far; null
  // once there are more than kPairsCached operations (ask races() instead).
  const std::vector<uint64_t>* raceRow(uint32_t a);
  // Every operation reachable from `from` (themselves included).
  std::vector<uint32_t> reach(const std::vector<uint32_t>& from);
  uint64_t bytes() const;

 private:
  struct Hash {
    size_t operator()(const Op& o) const;
  };
  std::vector<Op> ops_;
  std::unordered_map<Op, uint32_t, Hash> ids_;
  std::vector<std::vector<uint32_t>> next_;
  std::unordered_set<uint64_t> edges_;
  std::vector<uint32_t> mark_;
  uint32_t stamp_ = 0;
  static constexpr uint32_t kPairsCached = 2048;
  static constexpr uint8_t kKnown = 1, kDependent = 2, kRaces = 4;
  uint8_t pair(uint32_t a, uint32_t b);
  // pair() answers, row a at a * pairDim_ (0: not yet known); the dimension
  // doubles as operations are interned, up to kPairsCached.
  std::vector<uint8_t> pairs_;
  uint32_t pairDim_ = 0;
  std::vector<std::vector<uint64_t>> raceRows_;
  std::vector<uint32_t> raceRowDone_;  // operations each row covers
};

// The thread that owns addr (stack, thread-local or heap window), or -1 for
// globals and anything else.
int64_t regionOwner(Addr addr);

}  // namespace tsocheck::sdpor

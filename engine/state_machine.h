// The machine the state-space searches run on (internal to engine/: only
// state_space.cpp, state_bfs.cpp and stateful_dpor.cpp include it). A state
// is every thread's local state and store buffer, the memory touched and the
// freed blocks; StateMachine enumerates a state's successors (thread steps
// and flushes), judges errors and final states, and keeps the limits. The
// two searches built on it decide which successors are entered and in what
// order: BfsSearch (every reachable state, breadth-first; what the deepening
// needs) and DporSearch (Yang et al.'s stateful DPOR, depth-first).
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/spawn_ids.h"
#include "engine/state_space.h"

namespace tsocheck {
namespace states {

constexpr size_t kMaxRecentReads = 64;

struct BufEntry {
  Addr addr = 0;
  Value value = 0;
  uint8_t size = 0;
  uint32_t epoch = 0;  // PSO: store-store barriers passed before this store
  SourceLoc loc;       // of the store (for the flush step in traces; not in the key)
  uint32_t function = 0, pc = 0;  // the store instruction (likewise)
  int32_t storeDepth = -1;  // DPOR: the stack depth of the store's transition (likewise)
};

struct Thread {
  std::optional<ThreadState> ts;  // empty: slot not (yet) used
  bool exited = false;
  uint32_t spawned = 0;           // spawn ordinal
  uint32_t epoch = 0;             // PSO barrier epoch of the next store
  std::vector<BufEntry> buf;      // oldest first
  // The reads made since the last non-reading action (for spin-loop deadlocks).
  std::vector<std::pair<Addr, Value>> recentReads;
  int32_t spawnDepth = -1;  // DPOR: the stack depth of the spawn that made it (not in the key)
};

struct Cell {
  Addr addr = 0;
  uint8_t size = 0;
  Value value = 0;
};

struct State {
  std::vector<Thread> th;
  std::vector<Cell> mem;  // sorted by address; every location accessed so far
  std::vector<std::pair<Addr, uint64_t>> freed;  // freed heap blocks
};

// One transition on the path to a state (node 0 is the initial state).
struct Node {
  uint32_t parent = 0;
  uint32_t thread = 0;
  StepKind kind = StepKind::ThreadStart;
  bool hasAddr = false, hasValue = false, buffered = false, hidden = false;
  Addr addr = 0;
  Value value = 0;
  SourceLoc loc;
  uint32_t function = TraceStep::kNoEvent, pc = 0;  // the instruction (kNoEvent: none)
};


template <class T>
inline void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// The reads a spin-blocked thread's idle iteration made (what decides whether
// it spins forever). For running threads they are not part of the state: the
// values an iteration read are in its registers, and keeping a history would
// make every retry of an exchange loop a new state.
inline void putSpinReads(std::string& out, const Thread& th) {
  const Action& p = th.ts->pending();
  if (th.exited || p.kind != ActionKind::Blocked || p.value == 0) return;
  const size_t want = std::min<size_t>(std::max<uint32_t>(p.target, 1), th.recentReads.size());
  put(out, uint32_t(want));
  for (size_t i = th.recentReads.size() - want; i < th.recentReads.size(); ++i) {
    put(out, th.recentReads[i].first);
    put(out, th.recentReads[i].second);
  }
}

// Bytes a hash-set/map entry holding a string of n bytes takes: the node
// (link, string header, cached hash: one 64-byte chunk), its share of the
// bucket array, and the string's own chunk unless it is stored inline.
constexpr uint64_t entryBytes(size_t n) { return 64 + 16 + (n < 16 ? 0 : (n + 1 + 8 + 15) / 16 * 16); }

// Heap and inline bytes of a queued state.
inline uint64_t stateBytes(const State& s) {
  uint64_t n = sizeof(State) + sizeof(std::pair<State, uint32_t>) + s.th.capacity() * sizeof(Thread) +
               s.mem.capacity() * sizeof(Cell) + s.freed.capacity() * sizeof(std::pair<Addr, uint64_t>);
  for (const Thread& th : s.th) {
    n += th.buf.capacity() * sizeof(BufEntry) + th.recentReads.capacity() * sizeof(std::pair<Addr, Value>);
    if (th.ts) n += th.ts->heapBytes();
  }
  return n;
}

// The thread inside an atomic section, or -1: while there is one, only it
// steps (every store buffer still flushes: the memory system drains buffers
// whatever the scheduler does).
inline int sectionOwner(const State& s) {
  for (uint32_t t = 0; t < s.th.size(); ++t)
    if (s.th[t].ts && !s.th[t].exited && s.th[t].ts->inAtomic()) return int(t);
  return -1;
}

// A successor of a state, as the expansion makes it.
struct Child {
  State s;
  Node x;
};

// The successors of a state, the judgement of errors and final states, the
// state key and the limits: everything both searches share. A search
// subclass supplies explore() (the order states are entered in) and emit()
// (where a successor goes), and may take a reduced step.
class StateMachine {
 public:
  StateMachine(const Program& prog, const StateSpaceOptions& opts) : prog_(prog), opts_(opts) {}
  virtual ~StateMachine() = default;
  // The whole search: the initial state to explore(), then the verdict.
  StateSpaceResult run();

 protected:
  // Enter the states reachable from init; set res_.states.
  virtual void explore(State&& init) = 0;
  // A successor of the state being expanded.
  virtual void emit(State&& c, const Node& x) = 0;
  // Whether s was expanded with a single step (a persistent set of one); the
  // default never reduces.
  virtual bool reducedStep(const State&, uint32_t) { return false; }
  // Bytes the search holds beyond the shared tables (its queue or stack).
  virtual uint64_t searchBytes() const { return 0; }
  // The depth of the transition being made (the DPOR's stack; 0 otherwise).
  virtual int32_t depth() const { return 0; }

  bool buffered() const { return opts_.memoryModel().buffersStores(); }
  std::string key(const State& s);
  uint32_t localId(const ThreadState& ts);
  std::string projection(const State& s) const;
  // Successors of s go to emit(). False when s showed an error (reported) or
  // the search stopped.
  bool expand(const State& s, uint32_t node);
  bool stepThread(const State& s, uint32_t node, uint32_t t, bool& any, bool& cutHere);
  bool stepAccess(const State& s, uint32_t node, uint32_t t, bool& any);
  bool stepLocked(const State& s, uint32_t node, uint32_t t, bool& any);
  bool stepThreadControl(const State& s, uint32_t node, uint32_t t, bool& any);
  bool stepFree(const State& s, uint32_t node, uint32_t t, bool& any);
  bool flushSteps(const State& s, uint32_t node, bool& any);
  std::vector<size_t> flushHeads(const Thread& th) const;
  const HeapBlock* heapBlock(const State& s, Addr p) const;
  Node stepNode(uint32_t node, uint32_t t, StepKind k, const Action& a) const;

  // Memory: a cell for (a, size), created on first access; nullptr after an
  // engine error (mixed sizes) was reported.
  Cell* cell(State& s, Addr a, uint8_t size, const SourceLoc& loc);
  // Empty when thread t may access [a, a+size); otherwise the memory error.
  std::string accessError(const State& s, Addr a, uint64_t size) const;
  bool validAccess(const State& s, uint32_t node, uint32_t t, const Action& a);
  Value readValue(State& s, uint32_t t, Cell& c, bool* fromBuffer) const;
  void noteRead(Thread& th, Addr a, Value v) const;

  // No step is possible (owner: the thread inside an atomic section, or -1).
  void finalState(const State& s, uint32_t node, int owner);
  void reportError(const State& s, uint32_t node, const Node* last, uint32_t t, ErrorKind kind,
                   const std::string& msg, const SourceLoc& loc, bool deadlock);
  void engineError(const std::string& msg, const SourceLoc& loc);
  void noteLimit(const std::string& what);

  // Estimated bytes held: keys, local-state ids, projections and trace nodes
  // (heldBytes_), the states waiting to be expanded (queuedBytes_) and the
  // search's own tables.
  uint64_t heldBytes() const {
    return opts_.memoryInUse + heldBytes_ + queuedBytes_ + nodes_.capacity() * sizeof(Node) + searchBytes();
  }

  const Program& prog_;
  const StateSpaceOptions& opts_;
  StateSpaceResult res_;
  std::unordered_map<std::string, uint32_t> localIds_;
  std::string scratch_;
  uint64_t heldBytes_ = 0, queuedBytes_ = 0, peakBytes_ = 0;
  std::vector<Node> nodes_;  // the transitions on the paths to states (node 0: the initial state)
  SpawnIds spawnIds_;
  bool stopped_ = false, timedOut_ = false, stateLimit_ = false, memoryLimit_ = false;
  std::chrono::steady_clock::time_point start_;
  Limits limits_;  // opts_.check.limits with the deadline and cancel flag the threads poll
};

// The two searches (state_bfs.cpp, stateful_dpor.cpp).
StateSpaceResult runBfs(const Program& prog, const StateSpaceOptions& opts);
StateSpaceResult runDpor(const Program& prog, const StateSpaceOptions& opts);

}  // namespace states
}  // namespace tsocheck

#include "engine/state_space.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <tuple>
#include <unordered_map>

#include "engine/hangs.h"
#include "engine/memory_check.h"
#include "engine/spawn_ids.h"
#include "engine/state_dpor.h"

namespace tsocheck {

namespace {

constexpr Value kEBusy = 16;
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
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// The reads a spin-blocked thread's idle iteration made (what decides whether
// it spins forever). For running threads they are not part of the state: the
// values an iteration read are in its registers, and keeping a history would
// make every retry of an exchange loop a new state.
void putSpinReads(std::string& out, const Thread& th) {
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
uint64_t stateBytes(const State& s) {
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
int sectionOwner(const State& s) {
  for (uint32_t t = 0; t < s.th.size(); ++t)
    if (s.th[t].ts && !s.th[t].exited && s.th[t].ts->inAtomic()) return int(t);
  return -1;
}

// A successor of a state, as the expansion makes it.
struct Child {
  State s;
  Node x;
};

// The stateful DPOR's records (runDpor).
struct StateInfo {
  uint32_t lowlink = 0;  // Tarjan: smallest state id known reachable and still in an open component
  int32_t depth = -1;    // its frame on the search stack, -1 once popped
  bool open = true;      // on Tarjan's stack: its strongly connected component is not finished
};

struct PendingOp {
  uint32_t actor = 0, op = 0;
  // The transition on the stack that enabled it when its actor has none of
  // its own since: the store a flush empties, the spawn of a thread.
  int32_t cause = -1;
};

struct Frame {
  State s;
  uint32_t node = 0, id = 0;
  std::vector<Child> children;
  std::vector<uint32_t> childActor;
  std::vector<PendingOp> pending;  // every actor's next operation (enabled or not)
  std::vector<uint32_t> enabled, backtrack, done;  // actors, sorted
  // The transition being explored: its actor, operation, next child (a
  // choice has several), vector clock and count among its actor's events.
  static constexpr uint32_t kNone = ~0u;
  uint32_t actor = kNone, op = 0;
  size_t nextChild = 0;
  std::vector<uint32_t> clock;
  uint32_t count = 0;
  int32_t prevLast = -1;  // lastEvent_[actor] before this event
  uint64_t bytes = 0;
};

class Search {
 public:
  Search(const Program& prog, const StateSpaceOptions& opts) : prog_(prog), opts_(opts) {}
  StateSpaceResult run();

 private:
  bool buffered() const { return opts_.memoryModel().buffersStores(); }
  std::string key(const State& s);
  uint32_t localId(const ThreadState& ts);
  std::string projection(const State& s) const;
  // Successors of s go to emit(): into the BFS queue (push), or into sink_
  // (the DPOR's frame). False when s showed an error (reported) or the search stopped.
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
  void emit(State&& c, const Node& x);
  bool reducedStep(const State& s, uint32_t node);
  void push(State&& s, const Node& step);

  // Stateful DPOR (StateSpaceOptions::search == Search::Dpor).
  void runBfs(State&& init);
  void runDpor(State&& init);
  void enterState(State&& s, uint32_t node, uint32_t enteringOp);
  void revisit(uint32_t id, const State& s, const std::vector<PendingOp>& pend);
  int32_t futureCause(const State& s, const sdpor::Op& q);
  bool nextTransition(Frame& f);
  void popFrame();
  void beginEvent(Frame& f, uint32_t actor);
  void endEvent(Frame& f);
  void raceCheck(const std::vector<PendingOp>& pend);
  // Whether the transition at stack depth i happens before the next one of
  // `actor` (whose enabling transition is at depth `cause`, or -1).
  bool happensBefore(size_t i, uint32_t actor, int32_t cause) const;
  void addBacktrack(Frame& f, uint32_t actor);
  void expandFully(Frame& f);
  std::vector<PendingOp> pendingOps(const State& s);
  sdpor::Op describe(const State& s, uint32_t t, int owner);
  uint32_t actorId(uint32_t thread, bool flush, Addr addr);
  uint32_t actorOf(const Node& x);

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

  const Program& prog_;
  const StateSpaceOptions& opts_;
  StateSpaceResult res_;
  std::unordered_set<std::string> visited_;
  std::unordered_map<std::string, uint32_t> localIds_;
  std::string scratch_;
  // Estimated bytes held: keys, local-state ids, projections and trace nodes
  // (heldBytes_), and the states waiting in the queue (queuedBytes_).
  uint64_t heldBytes() const {
    return opts_.memoryInUse + heldBytes_ + queuedBytes_ + nodes_.capacity() * sizeof(Node) + graph_.bytes();
  }
  uint64_t heldBytes_ = 0, queuedBytes_ = 0, peakBytes_ = 0;
  std::vector<Node> nodes_;
  std::deque<std::pair<State, uint32_t>> queue_;
  SpawnIds spawnIds_;
  bool stopped_ = false, timedOut_ = false, stateLimit_ = false, memoryLimit_ = false;
  std::chrono::steady_clock::time_point start_;
  Limits limits_;  // opts_.check.limits with the deadline and cancel flag the threads poll
  std::vector<Child>* sink_ = nullptr;
  // Stateful DPOR: states by key (id = Tarjan index), the search stack,
  // Tarjan's stack, actors, operations and their dependency graph.
  std::unordered_map<std::string, uint32_t> stateIds_;
  std::vector<StateInfo> infos_;
  std::vector<Frame> frames_;
  std::vector<uint32_t> tarjan_;
  std::map<std::tuple<uint32_t, bool, Addr>, uint32_t> actors_;
  std::vector<int32_t> lastEvent_;  // per actor: frame of its latest event on the stack, -1 none
  sdpor::OpGraph graph_;
};

uint32_t Search::localId(const ThreadState& ts) {
  // Light-weight local-state ids (Yang et al.): a thread's local state is interned
  // once and the global state key holds its id, so keys stay short and a
  // local state shared by many global states is stored once.
  scratch_.clear();
  ts.appendKey(scratch_);
  auto it = localIds_.find(scratch_);
  if (it != localIds_.end()) return it->second;
  const uint32_t id = uint32_t(localIds_.size());
  localIds_.emplace(scratch_, id);
  heldBytes_ += entryBytes(scratch_.size()) + 8;
  return id;
}

std::string Search::key(const State& s) {
  std::string out;
  out.reserve(128);
  put(out, uint32_t(s.th.size()));
  for (const Thread& th : s.th) {
    put(out, uint8_t(th.ts ? 1 + th.exited : 0));
    if (!th.ts) continue;
    put(out, localId(*th.ts));
    put(out, th.spawned);
    const uint32_t base = th.buf.empty() ? th.epoch : th.buf.front().epoch;
    put(out, th.epoch - base);
    put(out, uint32_t(th.buf.size()));
    for (const BufEntry& e : th.buf) {
      put(out, e.addr);
      put(out, e.value);
      put(out, e.size);
      put(out, e.epoch - base);
    }
    putSpinReads(out, th);
  }
  put(out, uint32_t(s.mem.size()));
  for (const Cell& c : s.mem) {
    put(out, c.addr);
    put(out, c.size);
    put(out, c.value);
  }
  put(out, uint32_t(s.freed.size()));
  for (const auto& [a, n] : s.freed) {
    put(out, a);
    put(out, n);
  }
  return out;
}

std::string Search::projection(const State& s) const {
  // Theorem 1's projection: everything but the buffers, which contribute only
  // their newest pending write per address.
  std::string out;
  out.reserve(512);
  put(out, uint32_t(s.th.size()));
  std::vector<std::pair<Addr, Value>> last;
  for (const Thread& th : s.th) {
    put(out, uint8_t(th.ts ? 1 + th.exited : 0));
    if (!th.ts) continue;
    th.ts->appendKey(out);
    put(out, th.spawned);
    last.clear();
    for (const BufEntry& e : th.buf) {
      auto it = std::find_if(last.begin(), last.end(), [&](const auto& x) { return x.first == e.addr; });
      if (it == last.end()) last.push_back({e.addr, e.value});
      else it->second = e.value;
    }
    std::sort(last.begin(), last.end());
    put(out, uint32_t(last.size()));
    for (const auto& [a, v] : last) {
      put(out, a);
      put(out, v);
    }
    putSpinReads(out, th);
  }
  put(out, uint32_t(s.mem.size()));
  for (const Cell& c : s.mem) {
    put(out, c.addr);
    put(out, c.value);
  }
  put(out, uint32_t(s.freed.size()));
  for (const auto& [a, n] : s.freed) put(out, a);
  return out;
}

void Search::push(State&& s, const Node& step) {
  if (stopped_) return;
  std::string k = key(s);
  if (visited_.count(k)) return;
  if (visited_.size() >= opts_.maxStates) {
    stateLimit_ = true;
    return;
  }
  // The memory ceiling counts what the search holds: the visited keys (with
  // the hash table's per-entry overhead), the projections, the trace nodes
  // and the queued states themselves, which are the largest part.
  const uint64_t queued = stateBytes(s);
  uint64_t added = entryBytes(k.size()) + queued;
  std::string p;
  if (opts_.collectProjections) {
    p = projection(s);
    added += entryBytes(p.size());
  }
  if (heldBytes() + added > limits_.stateMemoryBytes) {
    stateLimit_ = memoryLimit_ = true;
    return;
  }
  heldBytes_ += added - queued;
  queuedBytes_ += queued;
  peakBytes_ = std::max(peakBytes_, heldBytes());
  if (opts_.collectProjections) res_.projections.insert(std::move(p));
  visited_.insert(std::move(k));
  nodes_.push_back(step);
  queue_.emplace_back(std::move(s), uint32_t(nodes_.size() - 1));
}

std::string Search::accessError(const State& s, Addr a, uint64_t size) const {
  std::string err = invalidAccess(
      prog_, a, size,
      [&](uint64_t t) -> const ThreadState* { return t < s.th.size() && s.th[t].ts ? &*s.th[t].ts : nullptr; },
      opts_.check.exitEndsProgram);
  if (!err.empty()) return err;
  for (const auto& [p, n] : s.freed)
    if (a >= p && a < p + std::max<uint64_t>(n, 1))
      return "use after free: " + addressName(prog_, a) + " was freed before";
  return "";
}

void Search::engineError(const std::string& msg, const SourceLoc& loc) {
  res_.result.status = Status::Error;
  res_.result.message = prog_.locString(loc) + ": " + msg;
  stopped_ = true;
}

Cell* Search::cell(State& s, Addr a, uint8_t size, const SourceLoc& loc) {
  auto it = std::lower_bound(s.mem.begin(), s.mem.end(), a, [](const Cell& c, Addr x) { return c.addr < x; });
  const Cell* clash = nullptr;
  if (it != s.mem.end() && it->addr == a) {
    if (it->size == size) return &*it;
    clash = &*it;
  } else if (it != s.mem.begin() && (it - 1)->addr + (it - 1)->size > a) {
    clash = &*(it - 1);
  } else if (it != s.mem.end() && it->addr < a + size) {
    clash = &*it;
  }
  if (clash) {
    engineError("unsupported: mixed-size or overlapping accesses to the same memory (" + std::to_string(size) +
                    "-byte access to " + addressName(prog_, a) + " overlaps a " + std::to_string(clash->size) +
                    "-byte access to " + addressName(prog_, clash->addr) + ")",
                loc);
    return nullptr;
  }
  return &*s.mem.insert(it, Cell{a, size, initialMemoryValue(prog_, a, size)});
}

Value Search::readValue(State& s, uint32_t t, Cell& c, bool* fromBuffer) const {
  const auto& buf = s.th[t].buf;
  for (auto it = buf.rbegin(); it != buf.rend(); ++it)
    if (it->addr == c.addr) {
      *fromBuffer = true;
      return it->value;
    }
  *fromBuffer = false;
  return c.value;
}

// (A fence forgets no reads: it is no effect, so a spin's idle iteration
// may have fences between its reads, and the hang check and the state key
// take its last reads whatever lies between them, as the graph explorer's
// idleReadsStale does. A store, an RMW that changed memory, a spawn, join,
// exit or free is an effect: no idle iteration spans it.)
void Search::noteRead(Thread& th, Addr a, Value v) const {
  if (th.recentReads.size() >= kMaxRecentReads) th.recentReads.erase(th.recentReads.begin());
  th.recentReads.push_back({a, v});
}

void Search::noteLimit(const std::string& what) {
  auto& l = res_.result.limitsHit;
  if (l.size() < 8 && std::find(l.begin(), l.end(), what) == l.end()) l.push_back(what);
}

// Partial-order reduction for the stateful search (off while collecting the
// fixpoint projections, which need every reachable state). A store entering
// a thread's own buffer (TSO/PSO, buffer not full) or a full fence with an
// empty buffer changes only that thread's local state and buffer: no other
// thread can observe or disable it, and it commutes with the thread's own
// flushes (a flush removes the oldest entry, the store appends). So {that
// step} is a persistent set and is explored alone, provided that
//  * its successor is not an error/limit state of the thread (it must be
//    invisible to what is checked),
//  * no thread is at an error or a limit here (reported/counted by a full
//    expansion), and
//  * its successor is new: a step into an already visited state expands
//    fully, so every cycle of the reduced graph holds a fully expanded state
//    (the cycle proviso; nothing is postponed forever).
// Terminal states (executions, deadlocks) and error states stay reachable.
bool Search::reducedStep(const State& s, uint32_t node) {
  if (!opts_.reduce || opts_.collectProjections || !buffered()) return false;
  for (const Thread& th : s.th)
    if (th.ts && !th.exited &&
        (th.ts->pending().kind == ActionKind::Error || th.ts->pending().kind == ActionKind::Limit))
      return false;
  for (uint32_t t = 0; t < s.th.size(); ++t) {
    const Thread& th = s.th[t];
    if (!th.ts || th.exited) continue;
    const Action& a = th.ts->pending();
    const bool store = a.kind == ActionKind::Store &&
                       (opts_.check.bufferBound < 0 || th.buf.size() < size_t(opts_.check.bufferBound)) &&
                       accessError(s, a.addr, a.size).empty();
    const bool fence = a.kind == ActionKind::Fence && a.fence == FenceKind::Full && th.buf.empty();
    if (!store && !fence) continue;
    State c = s;
    Thread& ct = c.th[t];
    Node x;
    x.parent = node;
    x.thread = t;
    x.loc = a.loc;
    x.function = a.function;
    x.pc = a.pc;
    if (store) {
      Cell* cl = cell(c, a.addr, a.size, a.loc);
      if (!cl) return true;  // engine error reported
      const Value v = maskToSize(a.value, a.size);
      ct.buf.push_back(BufEntry{a.addr, v, a.size, ct.epoch, a.loc, a.function, a.pc});
      x.kind = StepKind::Store;
      x.hasAddr = x.hasValue = x.buffered = true;
      x.addr = a.addr;
      x.value = v;
      ct.recentReads.clear();
    } else {
      x.kind = StepKind::Fence;  // (no effect: an idle iteration keeps its reads across it, noteRead)
    }
    ct.ts->complete(0);
    const ActionKind next = ct.ts->pending().kind;
    if (next == ActionKind::Error || next == ActionKind::Limit) continue;
    if (visited_.count(key(c))) continue;
    push(std::move(c), x);
    return true;
  }
  return false;
}

// A transition by thread t from s, with the trace fields of its action.
Node Search::stepNode(uint32_t node, uint32_t t, StepKind k, const Action& a) const {
  Node x;
  x.parent = node;
  x.thread = t;
  x.kind = k;
  x.loc = a.loc;
  x.function = a.function;
  x.pc = a.pc;
  return x;
}

void Search::emit(State&& c, const Node& x) {
  if (sink_) {
    sink_->push_back(Child{std::move(c), x});
    return;
  }
  ++res_.transitions;
  push(std::move(c), x);
}

bool Search::expand(const State& s, uint32_t node) {
  const int owner = sectionOwner(s);
  if (!sink_ && owner < 0 && reducedStep(s, node)) return true;
  bool any = false, cutHere = false;
  for (uint32_t t = 0; t < s.th.size() && !stopped_; ++t) {
    if (!s.th[t].ts || s.th[t].exited || (owner >= 0 && t != uint32_t(owner))) continue;
    if (!stepThread(s, node, t, any, cutHere)) return false;
  }
  if (stopped_) return false;
  if (buffered() && !flushSteps(s, node, any)) return false;
  if (cutHere) ++res_.result.cut;
  if (!any && !cutHere && !stopped_) finalState(s, node, owner);
  return !stopped_;
}

// Thread t's pending action from s: its successors (none when it waits), or
// false when the action is an error (reported) and s must not be expanded.
bool Search::stepThread(const State& s, uint32_t node, uint32_t t, bool& any, bool& cutHere) {
  const Thread& th = s.th[t];
  const Action& a = th.ts->pending();
  if (!th.buf.empty() && MemoryModel::drainsBuffer(a)) return true;  // waits for its buffer(s) to drain
  switch (a.kind) {
    case ActionKind::AtomicBegin: {
      State c = s;
      c.th[t].ts->complete(0);
      any = true;
      emit(std::move(c), stepNode(node, t, StepKind::Atomic, a));
      return true;
    }
    case ActionKind::Error:
      reportError(s, node, nullptr, t, a.error, a.message, a.loc, false);
      return false;
    case ActionKind::Limit:
      if (th.ts->stoppedByTime()) {  // the deadline passed while the thread ran
        timedOut_ = stopped_ = true;
        return false;
      }
      cutHere = true;
      noteLimit(a.message + " at " + prog_.locString(a.loc));
      return true;
    case ActionKind::Blocked:
      return true;
    case ActionKind::Choice:
      if (a.limited && !res_.result.nondetLimited) {
        res_.result.nondetLimited = true;
        noteLimit(nondetRangeText(opts_.check.limits) + " at " + prog_.locString(a.loc));
      }
      for (Value i = 0; i <= a.value; ++i) {
        const Value v = choiceValue(a, i);
        State c = s;
        c.th[t].ts->complete(v);
        Node x = stepNode(node, t, StepKind::Nondet, a);
        x.hasValue = true;
        x.value = v;
        any = true;
        emit(std::move(c), x);
      }
      return true;
    case ActionKind::Load:
    case ActionKind::Store:
      return stepAccess(s, node, t, any);
    case ActionKind::Rmw:
    case ActionKind::Lock:
    case ActionKind::TryLock:
    case ActionKind::Unlock:
      return stepLocked(s, node, t, any);
    case ActionKind::Fence: {
      State c = s;
      Thread& ct = c.th[t];
      if (a.fence == FenceKind::StoreStore && opts_.memoryModel().storeStoreBarrierOrdersFlushes() &&
          !ct.buf.empty())
        ++ct.epoch;
      ct.ts->complete(0);  // (the reads before it stay: noteRead)
      any = true;
      emit(std::move(c), stepNode(node, t, StepKind::Fence, a));
      return true;
    }
    case ActionKind::Spawn:
    case ActionKind::Join:
    case ActionKind::Exit:
      return stepThreadControl(s, node, t, any);
    case ActionKind::Free:
    case ActionKind::BlockSize:
      return stepFree(s, node, t, any);
  }
  return true;
}

// False (the memory error reported) when thread t's access a is invalid in s.
bool Search::validAccess(const State& s, uint32_t node, uint32_t t, const Action& a) {
  const std::string err = accessError(s, a.addr, a.size);
  if (err.empty()) return true;
  reportError(s, node, nullptr, t, ErrorKind::Memory, err, a.loc, false);
  return false;
}

bool Search::stepAccess(const State& s, uint32_t node, uint32_t t, bool& any) {
  const Thread& th = s.th[t];
  const Action& a = th.ts->pending();
  const bool load = a.kind == ActionKind::Load;
  if (!load && buffered() && opts_.check.bufferBound > 0 && th.buf.size() >= size_t(opts_.check.bufferBound)) return true;
  if (!validAccess(s, node, t, a)) return false;
  State c = s;
  Cell* cl = cell(c, a.addr, a.size, a.loc);
  if (!cl) return false;
  Thread& ct = c.th[t];
  Node x;
  if (load) {
    bool fromBuf = false;
    Value v = readValue(c, t, *cl, &fromBuf);
    noteRead(ct, a.addr, v);
    ct.ts->complete(v);
    x = stepNode(node, t, fromBuf ? StepKind::LoadBuf : StepKind::LoadMem, a);
    x.value = v;
  } else {
    const Value v = maskToSize(a.value, a.size);
    if (buffered())
      ct.buf.push_back(BufEntry{a.addr, v, a.size, ct.epoch, a.loc, a.function, a.pc, int32_t(frames_.size())});
    else cl->value = v;
    ct.recentReads.clear();
    ct.ts->complete(0);
    x = stepNode(node, t, StepKind::Store, a);
    x.value = v;
    x.buffered = buffered();
  }
  x.hasAddr = x.hasValue = true;
  x.addr = a.addr;
  any = true;
  emit(std::move(c), x);
  return true;
}

bool Search::stepLocked(const State& s, uint32_t node, uint32_t t, bool& any) {
  const Thread& th = s.th[t];
  const Action& a = th.ts->pending();
  if (!validAccess(s, node, t, a)) return false;
  State c = s;
  Cell* cl = cell(c, a.addr, a.size, a.loc);
  if (!cl) return false;
  const Value old = cl->value;
  bool writes = true;
  Value wv = 0, result = 0;
  StepKind k = StepKind::Rmw;
  if (a.kind == ActionKind::Rmw) {
    wv = rmwResult(a.rmw, old, a.value, a.expected, a.size, &writes);
    result = old;
  } else if (std::string err = destroyedMutexUse(prog_,
                                                   a.kind == ActionKind::Lock      ? "pthread_mutex_lock"
                                                   : a.kind == ActionKind::TryLock ? "pthread_mutex_trylock"
                                                                                   : "pthread_mutex_unlock",
                                                   old, a.addr);
             !err.empty()) {
    reportError(s, node, nullptr, t, ErrorKind::Memory, err, a.loc, false);
    return false;
  } else if (a.kind == ActionKind::Lock) {
    if (old != 0) return true;  // waits while the mutex is held
    wv = t + 1;
    k = StepKind::Lock;
  } else if (a.kind == ActionKind::TryLock) {
    writes = old == 0;
    wv = t + 1;
    result = writes ? 0 : kEBusy;
    k = StepKind::TryLock;
  } else {
    k = StepKind::Unlock;
    if (old != t + 1) {
      reportError(s, node, nullptr, t, ErrorKind::Memory,
                  "pthread_mutex_unlock of a mutex this thread does not hold (" + addressName(prog_, a.addr) + ")",
                  a.loc, false);
      return false;
    }
  }
  if (writes) cl->value = maskToSize(wv, a.size);
  Thread& ct = c.th[t];
  noteRead(ct, a.addr, old);
  // A re-run of a spin iteration reads the thread's own writes: the
  // hang check compares memory with them, not with the older values
  // (as the graph explorer ignores the thread's own later writes).
  if (writes)
    for (auto& [addr, v] : ct.recentReads)
      if (addr == a.addr) v = cl->value;
  ct.ts->complete(result);
  Node x = stepNode(node, t, k, a);
  x.hasAddr = x.hasValue = true;
  x.addr = a.addr;
  x.value = writes ? cl->value : old;
  any = true;
  emit(std::move(c), x);
  return true;
}

bool Search::stepThreadControl(const State& s, uint32_t node, uint32_t t, bool& any) {
  const Thread& th = s.th[t];
  const Action& a = th.ts->pending();
  const uint32_t n = uint32_t(s.th.size());
  if (a.kind == ActionKind::Join) {
    const uint32_t tgt = a.target;
    if (tgt >= n || tgt == t || !s.th[tgt].ts) {
      reportError(s, node, nullptr, t, ErrorKind::Memory,
                  tgt == t ? "a thread joins itself" : "pthread_join on an invalid thread id " + std::to_string(tgt),
                  a.loc, false);
      return false;
    }
    if (!s.th[tgt].exited) return true;
  }
  State c = s;
  Thread* ct = &c.th[t];
  Node x = stepNode(node, t, StepKind::Exit, a);
  if (a.kind == ActionKind::Spawn) {
    const uint32_t child = spawnIds_.id(t, ct->spawned);
    if (c.th.size() <= child) c.th.resize(child + 1);
    ct = &c.th[t];  // (the resize may have moved it)
    Thread& ch = c.th[child];
    ch = Thread{};
    ch.ts.emplace(prog_, child, a.func, a.value, limits_);
    ch.spawnDepth = int32_t(frames_.size());
    ++ct->spawned;
    ct->recentReads.clear();
    ct->ts->complete(child);
    x.kind = StepKind::Spawn;
    x.hasValue = true;
    x.value = child;
  } else if (a.kind == ActionKind::Join) {
    const Value ev = s.th[a.target].ts->exitValue();
    ct->recentReads.clear();
    ct->ts->complete(ev);
    x.kind = StepKind::Join;
    x.hasValue = true;
    x.value = ev;
  } else {
    ct->exited = true;
    ct->recentReads.clear();
    if (opts_.check.exitEndsProgram && endsProgram(prog_, t, a.function, a.pc))
      for (Thread& o : c.th)  // the program ends: every thread stops, buffered stores die with it
        if (o.ts) {
          o.exited = true;
          o.buf.clear();
          o.recentReads.clear();
        }
  }
  any = true;
  emit(std::move(c), x);
  return true;
}

bool Search::stepFree(const State& s, uint32_t node, uint32_t t, bool& any) {
  const Thread& th = s.th[t];
  const Action& a = th.ts->pending();
  const bool isFree = a.kind == ActionKind::Free;
  const Addr p = a.addr;
  const HeapBlock* b = heapBlock(s, p);
  const char* what = isFree ? "free() of a pointer that malloc did not return ("
                            : "realloc() of a pointer that malloc did not return (";
  if (!b || b->addr != p) {
    reportError(s, node, nullptr, t, ErrorKind::Memory, what + addressName(prog_, p) + ")", a.loc, false);
    return false;
  }
  for (const auto& f : s.freed)
    if (f.first == p) {
      reportError(s, node, nullptr, t, ErrorKind::Memory,
                  (isFree ? "double free of " : "realloc() of freed memory (") + addressName(prog_, p) +
                      (isFree ? "" : ")"),
                  a.loc, false);
      return false;
    }
  State c = s;
  Thread& ct = c.th[t];
  const uint64_t size = b->size;
  if (isFree) c.freed.insert(std::upper_bound(c.freed.begin(), c.freed.end(), std::make_pair(p, size)), {p, size});
  ct.recentReads.clear();
  ct.ts->complete(isFree ? 0 : size);
  Node x = stepNode(node, t, StepKind::Free, a);
  x.hidden = !isFree;  // a block-size query is local: not a trace step
  x.hasAddr = isFree;
  x.addr = p;
  any = true;
  emit(std::move(c), x);
  return true;
}

const HeapBlock* Search::heapBlock(const State& s, Addr p) const {
  if (p < layout::kHeapBase) return nullptr;
  const uint64_t owner = (p - layout::kHeapBase) / layout::kThreadStride;
  return owner < s.th.size() && s.th[owner].ts ? s.th[owner].ts->heapBlockAt(p) : nullptr;
}

// The buffer heads that may flush: the oldest entry under TSO; under PSO the
// oldest entry of each address among those before the first store-store barrier.
std::vector<size_t> Search::flushHeads(const Thread& th) const {
  std::vector<size_t> heads;
  const auto& buf = th.buf;
  if (buf.empty()) return heads;
  if (!opts_.memoryModel().perLocationBuffers()) {
    heads.push_back(0);
    return heads;
  }
  for (size_t i = 0; i < buf.size() && buf[i].epoch == buf.front().epoch; ++i) {
    bool first = true;
    for (size_t j = 0; j < i; ++j) first = first && buf[j].addr != buf[i].addr;
    if (first) heads.push_back(i);
  }
  return heads;
}

// Flushes: the memory system's steps (every buffer flushes during an atomic
// section too). False when one is an error (reported).
bool Search::flushSteps(const State& s, uint32_t node, bool& any) {
  for (uint32_t t = 0; t < s.th.size() && !stopped_; ++t) {
    for (size_t i : flushHeads(s.th[t])) {
      const BufEntry e = s.th[t].buf[i];
      Node x;
      x.parent = node;
      x.thread = t;
      x.kind = StepKind::Flush;
      x.loc = e.loc;
      x.function = e.function;
      x.pc = e.pc;
      x.hasAddr = x.hasValue = true;
      x.addr = e.addr;
      x.value = e.value;
      any = true;
      for (const auto& [p, sz] : s.freed)
        if (e.addr >= p && e.addr < p + std::max<uint64_t>(sz, 1)) {
          reportError(s, node, &x, t, ErrorKind::Memory,
                      "use after free: a buffered store to " + addressName(prog_, e.addr) +
                          " reaches memory after the block was freed",
                      e.loc, false);
          return false;
        }
      State c = s;
      Thread& ct = c.th[t];
      ct.buf.erase(ct.buf.begin() + long(i));
      if (ct.buf.empty()) ct.epoch = 0;
      auto it = std::lower_bound(c.mem.begin(), c.mem.end(), e.addr,
                                 [](const Cell& cc, Addr a) { return cc.addr < a; });
      it->value = e.value;  // the cell exists: the store created it
      emit(std::move(c), x);
    }
  }
  return true;
}

void Search::finalState(const State& s, uint32_t node, int owner) {
  bool allDone = true;
  for (const Thread& th : s.th)
    if (th.ts && !th.exited) allDone = false;
  auto record = [&](bool blocked) {
    if (!opts_.check.onExecution) return;
    ExecutionInfo info;
    info.blocked = blocked;
    for (const Cell& c : s.mem) info.finalMemory.emplace_back(c.addr, c.value);
    opts_.check.onExecution(info);
  };
  if (allDone) {
    ++res_.result.executions;
    record(false);
    return;
  }
  // Every live thread waits (buffers are empty here: a flush is always possible).
  auto memValue = [&](Addr a) {
    for (const Cell& c : s.mem)
      if (c.addr == a) return c.value;
    return Value(0);
  };
  if (owner >= 0) {
    // Stuck inside an atomic section: nothing else may run (hangs.h sectionEnd).
    const ExecutionEnd end = sectionEnd(prog_, uint32_t(owner), s.th[owner].ts->pending());
    if (end.kind != ExecutionEnd::Kind::Hang) {
      ++res_.result.blocked;
      record(true);
      return;
    }
    reportError(s, node, nullptr, end.thread, end.error, end.message, end.loc, true);
    return;
  }
  // As in the graph explorer (engine/hangs.h): blocked, or a deadlock, or
  // non-termination.
  bool stale = false;
  std::vector<Waiter> waiters;
  for (uint32_t u = 0; u < s.th.size() && !stale; ++u) {
    const Thread& th = s.th[u];
    if (!th.ts || th.exited) continue;
    const Action& p = th.ts->pending();
    Waiter w;
    if (p.kind == ActionKind::Lock) {
      w.thread = u;
      w.loc = p.loc;
      w.kind = Waiter::Kind::Mutex;
      w.mutex = p.addr;
    } else {
      // The idle iteration's reads (reads only, so all in recentReads) must
      // all still see the current value for the spin to last forever.
      auto idleReadsStale = [&](uint32_t n) {
        const size_t want = std::min<size_t>(n, th.recentReads.size());
        for (size_t i = th.recentReads.size() - want; i < th.recentReads.size(); ++i)
          if (memValue(th.recentReads[i].first) != th.recentReads[i].second) return true;
        return false;
      };
      if (!waiterAt(u, p, idleReadsStale, w, &stale)) continue;
    }
    waiters.push_back(std::move(w));
  }
  // (A program that ended has every thread exited: it never gets here.)
  const ExecutionEnd end = classifyEnd(prog_, waiters, stale, false);
  if (end.kind != ExecutionEnd::Kind::Hang) {
    ++res_.result.blocked;
    record(true);
    return;
  }
  reportError(s, node, nullptr, end.thread, end.error, end.message, end.loc, true);
}

void Search::reportError(const State& s, uint32_t node, const Node* last, uint32_t t, ErrorKind kind,
                         const std::string& msg, const SourceLoc& loc, bool deadlock) {
  // Deadlocks and non-termination end this path, not the search; the
  // erroneous execution counts (never "violation after 0 executions").
  const bool hang = isHang(kind);
  if (opts_.check.stopAtFirstError && !hang) stopped_ = true;
  ++res_.result.executions;
  if (hang && opts_.check.deadlocks == DeadlockMode::Ignore) return;
  for (const Violation& o : res_.result.violations)
    if (o.kind == kind) return;
  std::vector<Node> path;
  if (last) path.push_back(*last);
  for (uint32_t x = node; x != 0; x = nodes_[x].parent) path.push_back(nodes_[x]);
  std::reverse(path.begin(), path.end());
  Violation v;
  v.kind = kind;
  v.message = msg;
  v.thread = t;
  v.loc = loc;
  v.warning = hang && opts_.check.deadlocks == DeadlockMode::Warning;
  std::vector<std::vector<BufferEntry>> bufs(s.th.size());
  auto add = [&](uint32_t thread, StepKind k, const SourceLoc& l, const std::string& note,
                 uint32_t function = TraceStep::kNoEvent, uint32_t pc = 0) -> TraceStep& {
    TraceStep st;
    st.function = function;
    st.pc = pc;
    st.step = uint32_t(v.trace.size() + 1);
    st.thread = thread;
    st.kind = k;
    st.loc = l;
    st.note = note;
    st.buffers = bufs;
    v.trace.push_back(std::move(st));
    return v.trace.back();
  };
  // Event numbers per thread (TraceStep::event), as the graph explorer gives
  // them: one per thread step in program order; a flush names its store's
  // (fence synthesis pairs them: engine/fences.h). bufEvents[t][i] is the
  // event of bufs[t][i].
  std::vector<uint32_t> events(s.th.size(), 0);
  std::vector<std::vector<uint32_t>> bufEvents(s.th.size());
  for (const Node& x : path) {
    if (bufs.size() <= x.thread) {
      bufs.resize(x.thread + 1);
      bufEvents.resize(x.thread + 1);
      events.resize(x.thread + 1, 0);
    }
    auto& b = bufs[x.thread];
    auto& be = bufEvents[x.thread];
    uint32_t ev = TraceStep::kNoEvent;
    if (x.kind == StepKind::Flush) {
      auto it = std::find_if(b.begin(), b.end(), [&](const BufferEntry& e) { return e.addr == x.addr; });
      if (it != b.end()) {
        const size_t i = size_t(it - b.begin());
        ev = be[i];
        b.erase(it);
        be.erase(be.begin() + std::ptrdiff_t(i));
      }
    } else {
      ev = events[x.thread]++;
      if (x.kind == StepKind::Store && x.buffered) {
        b.push_back(BufferEntry{x.addr, x.value, addressName(prog_, x.addr),
                                x.hidden ? 0 : uint32_t(v.trace.size() + 1)});
        be.push_back(ev);
      }
    }
    if (x.hidden) continue;
    std::string note = x.kind == StepKind::LoadBuf ? "from its own buffer" : "";
    TraceStep& st = add(x.thread, x.kind, x.loc, note, x.function, x.pc);
    st.event = ev;
    st.hasAddr = x.hasAddr;
    st.hasValue = x.hasValue;
    st.addr = x.addr;
    st.value = x.value;
    if (x.hasAddr) st.addrName = addressName(prog_, x.addr);
    if (x.kind == StepKind::Spawn) st.spawned = uint32_t(x.value);
  }
  const int owner = deadlock ? sectionOwner(s) : -1;
  if (deadlock)
    for (uint32_t u = 0; u < s.th.size(); ++u)
      if (s.th[u].ts && !s.th[u].exited) {
        const Action& p = s.th[u].ts->pending();
        add(u, StepKind::Blocked, p.loc,
            owner >= 0 && uint32_t(owner) != u ? "waits: T" + std::to_string(owner) + " is inside an atomic section"
                                                : std::string("blocked"),
            p.function, p.pc);
      }
  // The failing step: the thread's pending action, unless the error is the
  // step just taken (`last`, e.g. a flush after a free).
  const Action* failing = t < s.th.size() && s.th[t].ts && !last ? &s.th[t].ts->pending() : nullptr;
  add(t, StepKind::Error, loc, msg, last ? last->function : failing ? failing->function : TraceStep::kNoEvent,
      last ? last->pc : failing ? failing->pc : 0);
  annotateStaleReads(v.trace);
  res_.result.addViolation(std::move(v));
}

// ---------------------------------------------------------------------------
// Stateful DPOR (Yang et al., SDPOR). A depth-first search over the same
// transitions as the BFS (thread steps; flushes as their own actors), with
//  * dynamic backtrack sets (Flanagan–Godefroid): entering a state, every
//    actor's next operation is checked against the stack for the latest
//    dependent, possibly co-enabled transition that does not happen before
//    the actor (vector clocks); the actor, or every enabled actor when it is
//    not enabled there, joins that state's backtrack set;
//  * a visited-state table: a transition into a state seen before is not
//    explored again. Instead the operations that may follow it are taken
//    from the visible operation dependency graph (state_dpor.h: everything
//    reachable from the operations pending there) and each is checked
//    against the whole stack like a pending operation — at every dependent
//    transition, not only the latest, as its happens-before is not known;
//  * the cycle proviso: the states of an unfinished strongly connected
//    component (Tarjan's lowlinks over state ids) have not been explored
//    below the revisited state yet, so every stack state from that
//    component's root up is expanded fully (which also keeps any transition
//    from being postponed around a cycle forever).
// Every state is expanded as in the BFS (errors and final states are judged
// on the whole state); only the successors in the backtrack sets are entered.
// ---------------------------------------------------------------------------

uint32_t Search::actorId(uint32_t thread, bool flush, Addr addr) {
  const auto k = std::make_tuple(thread, flush, opts_.memoryModel().perLocationBuffers() && flush ? addr : Addr(0));
  auto it = actors_.find(k);
  if (it != actors_.end()) return it->second;
  const uint32_t id = uint32_t(actors_.size());
  actors_.emplace(k, id);
  lastEvent_.push_back(-1);
  return id;
}

uint32_t Search::actorOf(const Node& x) { return actorId(x.thread, x.kind == StepKind::Flush, x.addr); }

sdpor::Op Search::describe(const State& s, uint32_t t, int owner) {
  using sdpor::OpClass;
  const Thread& th = s.th[t];
  const Action& a = th.ts->pending();
  sdpor::Op o;
  o.thread = t;
  o.actor = actorId(t, false, 0);
  o.section = owner == int(t) || a.kind == ActionKind::AtomicBegin;
  o.addr = a.addr;
  o.size = a.size;
  o.needsEmpty = MemoryModel::drainsBuffer(a);
  switch (a.kind) {
    case ActionKind::Load:  // from memory or from its own buffer: one operation (state_dpor.h)
      o.cls = OpClass::Read;
      break;
    case ActionKind::Store:
      o.cls = buffered() ? OpClass::Buffered : OpClass::Write;
      o.mayBlock = buffered() && opts_.check.bufferBound > 0;
      break;
    case ActionKind::Rmw:
    case ActionKind::Lock:
    case ActionKind::TryLock:
    case ActionKind::Unlock:
      o.cls = OpClass::Update;
      break;
    case ActionKind::Fence:
      o.cls = OpClass::Fence;
      o.size = 0;
      break;
    case ActionKind::Spawn:
      o.cls = OpClass::Spawn;
      o.other = spawnIds_.id(t, th.spawned);
      o.size = 0;
      break;
    case ActionKind::Join:
      o.cls = OpClass::Join;
      o.other = a.target;
      o.size = 0;
      break;
    case ActionKind::Exit:
      o.cls = opts_.check.exitEndsProgram && endsProgram(prog_, t, a.function, a.pc) ? OpClass::Global : OpClass::Exit;
      o.size = 0;
      break;
    case ActionKind::Free:
    case ActionKind::BlockSize: {
      const HeapBlock* b = heapBlock(s, a.addr);
      o.cls = a.kind == ActionKind::Free ? OpClass::Free : OpClass::BlockSize;
      o.size = a.kind == ActionKind::Free && b ? std::max<uint64_t>(b->size, 1) : 1;
      break;
    }
    default:  // Choice, AtomicBegin
      o.cls = OpClass::Local;
      o.addr = 0;
      o.size = 0;
      break;
  }
  return o;
}

std::vector<PendingOp> Search::pendingOps(const State& s) {
  std::vector<PendingOp> out;
  const int owner = sectionOwner(s);
  for (uint32_t t = 0; t < s.th.size(); ++t) {
    const Thread& th = s.th[t];
    if (!th.ts || th.exited) continue;
    const ActionKind k = th.ts->pending().kind;
    if (k != ActionKind::Error && k != ActionKind::Limit && k != ActionKind::Blocked) {
      const sdpor::Op o = describe(s, t, owner);
      out.push_back({o.actor, graph_.intern(o), lastEvent_[o.actor] < 0 ? th.spawnDepth : -1});
    }
    if (!buffered()) continue;
    for (size_t i : flushHeads(th)) {
      const BufEntry& e = th.buf[i];
      sdpor::Op o;
      o.thread = t;
      o.flush = true;
      o.actor = actorId(t, true, e.addr);
      o.cls = sdpor::OpClass::Write;
      o.addr = e.addr;
      o.size = e.size;
      o.barrier = th.buf.back().epoch != th.buf.front().epoch;
      out.push_back({o.actor, graph_.intern(o), e.storeDepth});
    }
  }
  return out;
}

bool Search::happensBefore(size_t i, uint32_t actor, int32_t cause) const {
  auto before = [&](int32_t j) {
    if (j < 0) return false;
    if (size_t(j) == i) return true;
    const std::vector<uint32_t>& c = frames_[size_t(j)].clock;
    const uint32_t a = frames_[i].actor;
    return a < c.size() && c[a] >= frames_[i].count;
  };
  return before(lastEvent_[actor]) || before(cause);
}

void Search::addBacktrack(Frame& f, uint32_t actor) {
  auto add = [&](uint32_t a) {
    auto it = std::lower_bound(f.backtrack.begin(), f.backtrack.end(), a);
    if (it == f.backtrack.end() || *it != a) f.backtrack.insert(it, a);
  };
  if (std::binary_search(f.enabled.begin(), f.enabled.end(), actor)) add(actor);
  else
    for (uint32_t a : f.enabled) add(a);
}

void Search::expandFully(Frame& f) {
  for (uint32_t a : f.enabled) addBacktrack(f, a);
}

// Flanagan–Godefroid's check for the operations pending in a new state
// (the stack holds the transitions that led there).
void Search::raceCheck(const std::vector<PendingOp>& pend) {
  const size_t n = frames_.size();
  if (n == 0) return;
  const Frame& prev = frames_.back();
  for (const PendingOp& p : pend) {
    // An operation that was already pending before the last transition, of
    // an actor that did not move, was checked against the older ones then.
    bool unchanged = prev.actor != p.actor;
    if (unchanged)
      unchanged = std::any_of(prev.pending.begin(), prev.pending.end(),
                              [&](const PendingOp& o) { return o.actor == p.actor && o.op == p.op && o.cause == p.cause; });
    for (size_t i = n; i-- > (unchanged ? n - 1 : 0);) {
      Frame& f = frames_[i];
      if (f.actor == p.actor) continue;
      if (!graph_.races(f.op, p.op) || happensBefore(i, p.actor, p.cause)) continue;
      addBacktrack(f, p.actor);
      break;
    }
  }
}

// A transition that may come after state s (revisited) with operation q
// happens after the stack transition this returns (or -1): a flush after the
// store of the oldest entry it can empty (or, with none buffered, after its
// thread's latest step, which precedes any future store); a thread not yet
// started after its parent's latest step, which precedes the spawn.
int32_t Search::futureCause(const State& s, const sdpor::Op& q) {
  if (q.thread < s.th.size() && s.th[q.thread].ts) {
    const Thread& th = s.th[q.thread];
    if (!q.flush) return lastEvent_[q.actor] < 0 ? th.spawnDepth : -1;
    for (const BufEntry& e : th.buf)
      if (!opts_.memoryModel().perLocationBuffers() || e.addr == q.addr) return e.storeDepth;
    return lastEvent_[actorId(q.thread, false, 0)];
  }
  if (const std::optional<uint32_t> parent = spawnIds_.parentOf(q.thread)) return lastEvent_[actorId(*parent, false, 0)];
  return -1;
}

// A transition into state `id`, seen before: what may follow it races with
// the stack (see above), and an unfinished component makes the cycle's stack
// states expand fully.
void Search::revisit(uint32_t id, const State& s, const std::vector<PendingOp>& pend) {
  ++res_.revisits;
  std::vector<uint32_t> start;
  for (const PendingOp& p : pend) start.push_back(p.op);
  const std::vector<uint32_t> after = graph_.reach(start);
  // The operations that may follow, as a bit set over operation ids, and
  // when each may happen (futureCause).
  std::vector<uint64_t> afterBits((graph_.size() + 63) / 64, 0);
  std::vector<int32_t> causes(graph_.size(), -1);
  for (uint32_t u : after) {
    afterBits[u / 64] |= uint64_t(1) << (u % 64);
    causes[u] = futureCause(s, graph_.op(u));
  }
  // u races with frame i's transition: its actor joins the frame's backtrack
  // set unless u happens after the transition. (A frame whose backtrack set
  // holds every enabled actor can gain nothing, nor can one that already
  // holds u's enabled actor: both are skipped.)
  auto check = [&](size_t i, uint32_t u) {
    Frame& f = frames_[i];
    const uint32_t actor = graph_.op(u).actor;
    if (f.actor == actor || (std::binary_search(f.backtrack.begin(), f.backtrack.end(), actor) &&
                             std::binary_search(f.enabled.begin(), f.enabled.end(), actor)))
      return;
    if (!happensBefore(i, actor, causes[u])) addBacktrack(f, actor);
  };
  for (size_t i = frames_.size(); i-- > 0;) {
    Frame& f = frames_[i];
    if (f.backtrack.size() >= f.enabled.size()) continue;
    if (const std::vector<uint64_t>* row = graph_.raceRow(f.op)) {
      for (size_t w = 0; w < afterBits.size() && f.backtrack.size() < f.enabled.size(); ++w)
        for (uint64_t bits = (*row)[w] & afterBits[w]; bits && f.backtrack.size() < f.enabled.size();
             bits &= bits - 1)
          check(i, uint32_t(w * 64 + uint32_t(__builtin_ctzll(bits))));
    } else {
      for (size_t k = 0; k < after.size() && f.backtrack.size() < f.enabled.size(); ++k)
        if (graph_.races(f.op, after[k])) check(i, after[k]);
    }
  }
  if (!infos_[id].open) return;
  StateInfo& top = infos_[frames_.back().id];
  top.lowlink = std::min(top.lowlink, id);
  uint32_t r = id;
  while (infos_[r].lowlink != r) r = infos_[r].lowlink;
  const int32_t from = infos_[r].depth >= 0 ? infos_[r].depth : 0;
  for (size_t i = size_t(from); i < frames_.size(); ++i) expandFully(frames_[i]);
}

void Search::enterState(State&& s, uint32_t node, uint32_t enteringOp) {
  std::string k = key(s);
  std::vector<PendingOp> pend = pendingOps(s);
  // An exit that ends the program (OpClass::Global) stops every other
  // actor: their operations pending before it are pending in no state
  // after it, yet they race with it (running one of them first may let it
  // write what the exiting thread read). They are checked as if still
  // pending here, and the dependency graph gets their edges, so that a
  // later revisit of this state checks them too; the frame keeps only the
  // first `live`, which are. (Another transition never takes an operation
  // away from an actor that did not move.)
  const size_t live = pend.size();
  if (!frames_.empty() && enteringOp != Frame::kNone && graph_.op(enteringOp).cls == sdpor::OpClass::Global) {
    const Frame& prev = frames_.back();
    for (const PendingOp& p : prev.pending)
      if (p.actor != prev.actor &&
          std::none_of(pend.begin(), pend.begin() + ptrdiff_t(live), [&](const PendingOp& q) { return q.actor == p.actor; }))
        pend.push_back(p);
  }
  if (enteringOp != Frame::kNone)
    for (const PendingOp& p : pend) graph_.addEdge(enteringOp, p.op);
  if (auto it = stateIds_.find(k); it != stateIds_.end()) {
    nodes_.pop_back();
    revisit(it->second, s, pend);
    return;
  }
  Frame f;
  // The visited key and its record stay; the frame (state, successors) goes when popped.
  const uint64_t kept = entryBytes(k.size()) + sizeof(StateInfo);
  f.bytes = stateBytes(s);
  if (stateIds_.size() >= opts_.maxStates || heldBytes() + kept + f.bytes > limits_.stateMemoryBytes) {
    stateLimit_ = true;
    memoryLimit_ = memoryLimit_ || stateIds_.size() < opts_.maxStates;
    nodes_.pop_back();
    return;
  }
  raceCheck(pend);
  pend.resize(live);
  heldBytes_ += kept;
  f.id = uint32_t(infos_.size());
  stateIds_.emplace(std::move(k), f.id);
  StateInfo info;
  info.lowlink = f.id;
  info.depth = int32_t(frames_.size());
  infos_.push_back(info);
  tarjan_.push_back(f.id);
  f.node = node;
  f.pending = std::move(pend);
  ++res_.result.events;
  if (opts_.check.onProgress && (res_.result.events & 255) == 0) opts_.check.onProgress(res_.result.executions);
  sink_ = &f.children;
  const bool ok = expand(s, node);
  sink_ = nullptr;
  f.s = std::move(s);
  if (!ok) f.children.clear();  // an error ends this path (as in the BFS)
  for (const Child& c : f.children) {
    f.childActor.push_back(actorOf(c.x));
    f.bytes += stateBytes(c.s);
  }
  f.enabled = f.childActor;
  std::sort(f.enabled.begin(), f.enabled.end());
  f.enabled.erase(std::unique(f.enabled.begin(), f.enabled.end()), f.enabled.end());
  if (!f.enabled.empty()) {
    // Go on with the actor that moved last where it can (fewer switches).
    const uint32_t last = frames_.empty() ? Frame::kNone : frames_.back().actor;
    f.backtrack.push_back(std::binary_search(f.enabled.begin(), f.enabled.end(), last) ? last : f.enabled[0]);
  }
  queuedBytes_ += f.bytes;
  peakBytes_ = std::max(peakBytes_, heldBytes());
  frames_.push_back(std::move(f));
}

void Search::beginEvent(Frame& f, uint32_t actor) {
  f.actor = actor;
  f.nextChild = 0;
  f.op = 0;
  int32_t cause = -1;
  for (const PendingOp& p : f.pending)
    if (p.actor == actor) {
      f.op = p.op;
      cause = p.cause;
    }
  const size_t depth = size_t(&f - frames_.data());
  // Vector clock: the actor's previous event and every earlier dependent one.
  f.prevLast = lastEvent_[actor];
  f.clock.assign(actors_.size(), 0);
  if (f.prevLast >= 0) {
    const auto& c = frames_[size_t(f.prevLast)].clock;
    std::copy(c.begin(), c.end(), f.clock.begin());
  }
  for (size_t j = 0; j < depth; ++j) {
    const Frame& g = frames_[j];
    if (g.actor == actor || (int32_t(j) != cause && !graph_.dependent(g.op, f.op))) continue;
    for (size_t a = 0; a < g.clock.size(); ++a) f.clock[a] = std::max(f.clock[a], g.clock[a]);
  }
  f.count = (f.prevLast >= 0 ? frames_[size_t(f.prevLast)].count : 0) + 1;
  f.clock[actor] = f.count;
  lastEvent_[actor] = int32_t(depth);
}

void Search::endEvent(Frame& f) {
  if (f.actor == Frame::kNone) return;
  lastEvent_[f.actor] = f.prevLast;
}

// The next successor of f to enter: the current actor's next child (a
// choice has one per value), else the first actor of the backtrack set not
// done yet. False when f is finished.
bool Search::nextTransition(Frame& f) {
  if (f.actor != Frame::kNone) {
    while (f.nextChild < f.children.size() && f.childActor[f.nextChild] != f.actor) ++f.nextChild;
    if (f.nextChild < f.children.size()) return true;
    endEvent(f);
    f.actor = Frame::kNone;
  }
  for (uint32_t a : f.backtrack) {
    if (std::binary_search(f.done.begin(), f.done.end(), a)) continue;
    f.done.insert(std::lower_bound(f.done.begin(), f.done.end(), a), a);
    beginEvent(f, a);
    while (f.nextChild < f.children.size() && f.childActor[f.nextChild] != a) ++f.nextChild;
    return true;
  }
  return false;
}

void Search::popFrame() {
  Frame& f = frames_.back();
  endEvent(f);
  StateInfo& info = infos_[f.id];
  info.depth = -1;
  if (info.lowlink == f.id) {
    // The root of a finished component: everything below it is explored.
    for (;;) {
      const uint32_t x = tarjan_.back();
      tarjan_.pop_back();
      infos_[x].open = false;
      if (x == f.id) break;
    }
  } else if (frames_.size() > 1) {
    StateInfo& parent = infos_[frames_[frames_.size() - 2].id];
    parent.lowlink = std::min(parent.lowlink, info.lowlink);
  }
  queuedBytes_ -= std::min(queuedBytes_, f.bytes);
  nodes_.resize(f.node);
  frames_.pop_back();
}

void Search::runDpor(State&& init) {
  nodes_.push_back(Node{});
  enterState(std::move(init), 0, Frame::kNone);
  while (!frames_.empty() && !stopped_) {
    if (limits_.timeUp()) {
      timedOut_ = stopped_ = true;
      break;
    }
    Frame& f = frames_.back();
    if (!nextTransition(f)) {
      popFrame();
      continue;
    }
    Child c = std::move(f.children[f.nextChild++]);
    ++res_.transitions;
    nodes_.push_back(c.x);
    const uint32_t op = f.op;
    enterState(std::move(c.s), uint32_t(nodes_.size() - 1), op);
  }
  res_.states = stateIds_.size();
  frames_.clear();
}

void Search::runBfs(State&& init) {
  nodes_.push_back(Node{});
  if (opts_.collectProjections) res_.projections.insert(projection(init));
  visited_.insert(key(init));
  queue_.emplace_back(std::move(init), 0);
  while (!queue_.empty() && !stopped_) {
    // Every expansion polls the clock (cheap next to copying and hashing states).
    if (limits_.timeUp()) {
      timedOut_ = stopped_ = true;
      break;
    }
    auto [s, node] = std::move(queue_.front());
    queue_.pop_front();
    queuedBytes_ -= std::min(queuedBytes_, stateBytes(s));
    ++res_.result.events;
    if (opts_.check.onProgress && (res_.result.events & 255) == 0) opts_.check.onProgress(res_.result.executions);
    expand(s, node);
  }
  queue_.clear();
  res_.states = visited_.size();
}

StateSpaceResult Search::run() {
  start_ = std::chrono::steady_clock::now();
  limits_ = opts_.check.limits;
  limits_.startClock(start_, opts_.check.timeLimitSeconds, opts_.check.cancel);
  State init;
  init.th.resize(1);
  init.th[0].ts.emplace(prog_, 0, prog_.entry, 0, limits_);
  if (opts_.search == StateSearch::Dpor && !opts_.collectProjections) runDpor(std::move(init));
  else runBfs(std::move(init));
  CheckResult& r = res_.result;
  r.elapsedMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  if (stateLimit_) {
    ++r.cut;
    noteLimit(memoryLimit_ ? "state memory limit (" + std::to_string(limits_.stateMemoryBytes >> 20) +
                                 " MiB, --memory-limit) reached"
                           : "state limit (" + std::to_string(opts_.maxStates) + " distinct states) reached");
  }
  res_.memoryLimitHit = memoryLimit_;
  res_.peakBytes = peakBytes_;
  res_.stateLimitHit = stateLimit_;
  res_.exhaustive = !timedOut_ && r.cut == 0 && r.status != Status::Error && !r.hasHardError();
  if (r.status == Status::Error) return std::move(res_);
  const bool bufferCut = opts_.memoryModel().boundCuts();
  if (r.violation) {
    r.status = Status::Violation;
    r.message = r.violation->message;
  } else if (timedOut_) {
    r.status = Status::Timeout;
    r.message = "time limit reached before the state space was explored; no violation found so far";
  } else if (r.cut > 0) {
    r.status = Status::Bounded;
    r.message = "no violation found, but a limit cut the state space";
  } else if (r.executions == 0) {
    r.status = Status::Bounded;
    r.message = "no complete execution: every execution was blocked";
  } else if (bufferCut) {
    r.status = Status::Bounded;
    r.message = "no violation with store buffers of at most " + std::to_string(opts_.check.bufferBound) + " entries";
  } else {
    r.status = Status::Verified;
    r.message = "no violation in any reachable state";
  }
  r.limitNondet(opts_.check.limits);
  if (r.status != Status::Violation) r.message += r.warningsNote();
  return std::move(res_);
}

}  // namespace

StateSpaceResult exploreStates(const Program& prog, const StateSpaceOptions& opts) {
  Search s(prog, opts);
  return s.run();
}

namespace {

// Buffer-bound deepening (deepenBufferBound): one breadth-first search per k,
// the counts summed, a fixpoint looked for between consecutive k.
class Deepening {
 public:
  Deepening(const Program& prog, const CheckOptions& opts, uint64_t maxStates);
  DeepeningResult run(int fromK, int toK);

 private:
  // After one k: look at a larger one, stop deepening (the verdict follows),
  // or return d_ as it is.
  enum class Next { Deeper, Stop, Return };

  double elapsed() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
  }
  Next step(int k);
  void violationAt(CheckResult&& r, int k);
  void timeoutAt(int k);
  void accumulate(const StateSpaceResult& r);
  Next afterError(StateSpaceResult& r, int k, bool hangOnly);
  Next afterPass(StateSpaceResult& r, int k);
  void verdict();

  const Program& prog_;
  const CheckOptions& opts_;
  const std::chrono::steady_clock::time_point t0_;
  DeepeningResult d_;
  StateSpaceOptions so_;
  std::optional<std::unordered_set<std::string>> prev_;  // projections of k-1 (exhaustive only)
  CheckResult total_;
  bool anyCut_ = false;
  // A deadlock or non-termination does not end the deepening: a larger k may
  // still show an assertion or memory error. The first k with one is kept.
  std::optional<CheckResult> hang_;
  int hangK_ = -1;
};

Deepening::Deepening(const Program& prog, const CheckOptions& opts, uint64_t maxStates)
    : prog_(prog), opts_(opts), t0_(std::chrono::steady_clock::now()) {
  so_.check = opts;  // the shared options; step() sets the bound and what is left of the time
  so_.check.timeLimitSeconds = 0;
  so_.check.onExecution = nullptr;
  so_.search = StateSearch::Bfs;  // the fixpoint needs every reachable state
  so_.maxStates = maxStates;
  so_.collectProjections = opts.memoryModel().hasStoreBuffers();
  so_.check.onProgress = nullptr;
  if (opts.onProgress) so_.check.onProgress = [this](uint64_t n) { opts_.onProgress(total_.executions + n); };
}

// d_ becomes r's violation at bound k, with the counts of every k so far.
void Deepening::violationAt(CheckResult&& r, int k) {
  d_.result = std::move(r);
  d_.result.executions = total_.executions;
  d_.result.blocked = total_.blocked;
  d_.result.cut = total_.cut;
  d_.result.events = total_.events;
  for (const Violation& v : total_.violations) d_.result.addViolation(v);  // warnings of smaller k
  d_.result.elapsedMs = elapsed();
  d_.violationK = k;
  d_.result.status = Status::Violation;
  d_.result.message += !opts_.memoryModel().withBound(k).buffersStores()
                           ? " (the bug exists under sequential consistency)"
                           : " (needs a store buffer of " + std::to_string(k) + (k == 1 ? " entry)" : " entries)");
}

void Deepening::timeoutAt(int k) {
  if (hang_) return violationAt(std::move(*hang_), hangK_);
  d_.result = total_;
  d_.result.status = Status::Timeout;
  d_.result.message = "time limit reached at buffer bound " + std::to_string(k) + "; no violation so far";
  d_.result.elapsedMs = elapsed();
}

void Deepening::accumulate(const StateSpaceResult& r) {
  total_.executions += r.result.executions;
  total_.blocked += r.result.blocked;
  total_.cut += r.result.cut;
  total_.events += r.result.events;
  total_.nondetLimited = total_.nondetLimited || r.result.nondetLimited;
  for (const std::string& l : r.result.limitsHit)
    if (std::find(total_.limitsHit.begin(), total_.limitsHit.end(), l) == total_.limitsHit.end())
      total_.limitsHit.push_back(l);
  for (const Violation& v : r.result.violations)
    if (v.warning) total_.addViolation(v);
}

// A hard error, an error status or a time-out at k ends the deepening.
Deepening::Next Deepening::afterError(StateSpaceResult& r, int k, bool hangOnly) {
  if (r.result.status == Status::Timeout && hang_) {
    violationAt(std::move(*hang_), hangK_);
    return Next::Return;
  }
  if (!((r.result.status == Status::Violation && !hangOnly) || r.result.status == Status::Error ||
        r.result.status == Status::Timeout))
    return Next::Deeper;
  if (r.result.status != Status::Violation) {
    d_.result = std::move(r.result);
    d_.result.executions = total_.executions;
    d_.result.blocked = total_.blocked;
    d_.result.cut = total_.cut;
    d_.result.events = total_.events;
    d_.result.elapsedMs = elapsed();
    return Next::Return;
  }
  CheckResult hard = std::move(r.result);
  if (hang_)
    for (const Violation& v : hang_->violations) hard.addViolation(v);
  violationAt(std::move(hard), k);
  return Next::Return;
}

// k passed (or only hangs): a state limit or a fixpoint stops the deepening;
// else k's projections are kept for the comparison with k+1.
Deepening::Next Deepening::afterPass(StateSpaceResult& r, int k) {
  anyCut_ = anyCut_ || !r.exhaustive;
  if (r.stateLimitHit) return Next::Stop;  // this k is not fully checked; larger ones are bigger still
  d_.largestK = k;
  if (!opts_.memoryModel().hasStoreBuffers() && r.exhaustive && r.result.executions > 0) {
    d_.fixpointK = k;
    return Next::Stop;
  }
  if (r.exhaustive && prev_ && prev_->size() == r.projections.size() &&
      std::all_of(r.projections.begin(), r.projections.end(),
                  [&](const std::string& p) { return prev_->count(p) > 0; })) {
    d_.fixpointK = k - 1;
    return Next::Stop;
  }
  if (r.exhaustive) {
    prev_ = std::move(r.projections);
    so_.memoryInUse = 0;  // held for the next k's comparison
    for (const std::string& p : *prev_) so_.memoryInUse += entryBytes(p.size());
  } else {
    prev_.reset();
    so_.memoryInUse = 0;
  }
  return Next::Deeper;
}

// One k: its search, then what it means for the deepening.
Deepening::Next Deepening::step(int k) {
  so_.check.bufferBound = k;
  if (opts_.timeLimitSeconds > 0) {
    so_.check.timeLimitSeconds = opts_.timeLimitSeconds - elapsed() / 1000;
    if (so_.check.timeLimitSeconds <= 0) {
      timeoutAt(k);
      return Next::Return;
    }
  }
  StateSpaceResult r = exploreStates(prog_, so_);
  d_.steps.push_back({k, r.states, r.projections.size(), r.result.elapsedMs, r.result.status});
  accumulate(r);
  const bool hangOnly = r.result.status == Status::Violation && !r.result.hasHardError();
  if (hangOnly && !hang_) {
    hang_ = r.result;
    hangK_ = k;
    d_.hangK = k;
  }
  const Next n = afterError(r, k, hangOnly);
  if (n != Next::Deeper) return n;
  return afterPass(r, k);
}

// The verdict when no k ended the deepening with its own result.
void Deepening::verdict() {
  if (hang_) return violationAt(std::move(*hang_), hangK_);
  d_.result = total_;
  d_.result.elapsedMs = elapsed();
  if (d_.fixpointK && !anyCut_ && total_.executions > 0) {
    d_.result.status = Status::Verified;
    d_.result.message = !opts_.memoryModel().hasStoreBuffers()
                            ? "no violation in any reachable state"
                            : "verified for unbounded store buffers (fixpoint at k=" + std::to_string(*d_.fixpointK) + ")";
  } else {
    d_.fixpointK.reset();
    d_.result.status = Status::Bounded;
    d_.result.message = d_.largestK < 0 ? "no violation found"
                                        : "no violation with store buffers of up to " + std::to_string(d_.largestK) +
                                              " entries";
    if (anyCut_) d_.result.message += ", but a limit cut the state space";
    else if (total_.executions == 0) d_.result.message += ", but every execution was blocked";
    else d_.result.message += "; no fixpoint reached";
  }
  d_.result.limitNondet(opts_.limits);
  d_.result.message += d_.result.warningsNote();
}

DeepeningResult Deepening::run(int fromK, int toK) {
  fromK = std::max(fromK, 0);
  if (!opts_.memoryModel().hasStoreBuffers()) toK = fromK;  // k does not matter under SC
  for (int k = fromK; k <= toK; ++k) {
    const Next n = step(k);
    if (n == Next::Return) return std::move(d_);
    if (n == Next::Stop) break;
  }
  verdict();
  return std::move(d_);
}

}  // namespace

DeepeningResult deepenBufferBound(const Program& prog, const CheckOptions& opts, int fromK, int toK,
                                  uint64_t maxStates) {
  return Deepening(prog, opts, maxStates).run(fromK, toK);
}

}  // namespace tsocheck

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
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "engine/hangs.h"
#include "engine/state_dpor.h"
#include "engine/state_machine.h"

namespace tsocheck {
namespace states {
namespace {

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

class DporSearch final : public StateMachine {
 public:
  using StateMachine::StateMachine;

 private:
  void explore(State&& init) override;
  void emit(State&& c, const Node& x) override { sink_->push_back(Child{std::move(c), x}); }
  uint64_t searchBytes() const override { return graph_.bytes(); }
  int32_t depth() const override { return int32_t(frames_.size()); }

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

  std::vector<Child>* sink_ = nullptr;  // the successors of the state being entered
  // States by key (id = Tarjan index), the search stack, Tarjan's stack,
  // actors, operations and their dependency graph.
  std::unordered_map<std::string, uint32_t> stateIds_;
  std::vector<StateInfo> infos_;
  std::vector<Frame> frames_;
  std::vector<uint32_t> tarjan_;
  std::map<std::tuple<uint32_t, bool, Addr>, uint32_t> actors_;
  std::vector<int32_t> lastEvent_;  // per actor: frame of its latest event on the stack, -1 none
  sdpor::OpGraph graph_;
};

uint32_t DporSearch::actorId(uint32_t thread, bool flush, Addr addr) {
  const auto k = std::make_tuple(thread, flush, opts_.memoryModel().perLocationBuffers() && flush ? addr : Addr(0));
  auto it = actors_.find(k);
  if (it != actors_.end()) return it->second;
  const uint32_t id = uint32_t(actors_.size());
  actors_.emplace(k, id);
  lastEvent_.push_back(-1);
  return id;
}

uint32_t DporSearch::actorOf(const Node& x) { return actorId(x.thread, x.kind == StepKind::Flush, x.addr); }

sdpor::Op DporSearch::describe(const State& s, uint32_t t, int owner) {
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

std::vector<PendingOp> DporSearch::pendingOps(const State& s) {
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

bool DporSearch::happensBefore(size_t i, uint32_t actor, int32_t cause) const {
  auto before = [&](int32_t j) {
    if (j < 0) return false;
    if (size_t(j) == i) return true;
    const std::vector<uint32_t>& c = frames_[size_t(j)].clock;
    const uint32_t a = frames_[i].actor;
    return a < c.size() && c[a] >= frames_[i].count;
  };
  return before(lastEvent_[actor]) || before(cause);
}

void DporSearch::addBacktrack(Frame& f, uint32_t actor) {
  auto add = [&](uint32_t a) {
    auto it = std::lower_bound(f.backtrack.begin(), f.backtrack.end(), a);
    if (it == f.backtrack.end() || *it != a) f.backtrack.insert(it, a);
  };
  if (std::binary_search(f.enabled.begin(), f.enabled.end(), actor)) add(actor);
  else
    for (uint32_t a : f.enabled) add(a);
}

void DporSearch::expandFully(Frame& f) {
  for (uint32_t a : f.enabled) addBacktrack(f, a);
}

// Flanagan–Godefroid's check for the operations pending in a new state
// (the stack holds the transitions that led there).
void DporSearch::raceCheck(const std::vector<PendingOp>& pend) {
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
int32_t DporSearch::futureCause(const State& s, const sdpor::Op& q) {
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
void DporSearch::revisit(uint32_t id, const State& s, const std::vector<PendingOp>& pend) {
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

void DporSearch::enterState(State&& s, uint32_t node, uint32_t enteringOp) {
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
  if (stateIds_.size() >= opts_.maxStates || heldBytes() + kept + f.bytes > limits_.stateMemoryBytes ||
      limits_.memoryIsFull()) {
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

void DporSearch::beginEvent(Frame& f, uint32_t actor) {
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

void DporSearch::endEvent(Frame& f) {
  if (f.actor == Frame::kNone) return;
  lastEvent_[f.actor] = f.prevLast;
}

// The next successor of f to enter: the current actor's next child (a
// choice has one per value), else the first actor of the backtrack set not
// done yet. False when f is finished.
bool DporSearch::nextTransition(Frame& f) {
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

void DporSearch::popFrame() {
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

void DporSearch::explore(State&& init) {
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

}  // namespace

StateSpaceResult runDpor(const Program& prog, const StateSpaceOptions& opts) {
  DporSearch s(prog, opts);
  return s.run();
}

}  // namespace states
}  // namespace tsocheck

// Breadth-first search over every reachable state (StateSearch::Bfs): the
// search the buffer-bound deepening runs, since its fixpoint needs every
// reachable state's projection; its counterexample is a shortest path.
#include <algorithm>
#include <deque>
#include <utility>

#include "engine/state_machine.h"

namespace tsocheck {
namespace states {
namespace {

class BfsSearch final : public StateMachine {
 public:
  using StateMachine::StateMachine;

 private:
  void explore(State&& init) override;
  void emit(State&& c, const Node& x) override {
    ++res_.transitions;
    push(std::move(c), x);
  }
  bool reducedStep(const State& s, uint32_t node) override;
  // Queue s unless it was visited, within the state and memory limits.
  void push(State&& s, const Node& step);

  std::unordered_set<std::string> visited_;
  std::deque<std::pair<State, uint32_t>> queue_;
};

void BfsSearch::push(State&& s, const Node& step) {
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
  if (heldBytes() + added > limits_.stateMemoryBytes || limits_.memoryIsFull()) {
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
bool BfsSearch::reducedStep(const State& s, uint32_t node) {
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

void BfsSearch::explore(State&& init) {
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

}  // namespace

StateSpaceResult runBfs(const Program& prog, const StateSpaceOptions& opts) {
  BfsSearch s(prog, opts);
  return s.run();
}

}  // namespace states
}  // namespace tsocheck

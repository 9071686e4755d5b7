#include "engine/state_machine.h"

#include <algorithm>
#include <chrono>

#include "engine/hangs.h"
#include "engine/memory_check.h"

namespace tsocheck {
namespace states {

constexpr Value kEBusy = 16;  // what a trylock of a held mutex returns

uint32_t StateMachine::localId(const ThreadState& ts) {
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

std::string StateMachine::key(const State& s) {
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

std::string StateMachine::projection(const State& s) const {
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

std::string StateMachine::accessError(const State& s, Addr a, uint64_t size) const {
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

void StateMachine::engineError(const std::string& msg, const SourceLoc& loc) {
  res_.result.status = Status::Error;
  res_.result.message = prog_.locString(loc) + ": " + msg;
  stopped_ = true;
}

Cell* StateMachine::cell(State& s, Addr a, uint8_t size, const SourceLoc& loc) {
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

Value StateMachine::readValue(State& s, uint32_t t, Cell& c, bool* fromBuffer) const {
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
void StateMachine::noteRead(Thread& th, Addr a, Value v) const {
  if (th.recentReads.size() >= kMaxRecentReads) th.recentReads.erase(th.recentReads.begin());
  th.recentReads.push_back({a, v});
}

void StateMachine::noteLimit(const std::string& what) {
  auto& l = res_.result.limitsHit;
  if (l.size() < 8 && std::find(l.begin(), l.end(), what) == l.end()) l.push_back(what);
}

// A transition by thread t from s, with the trace fields of its action.
Node StateMachine::stepNode(uint32_t node, uint32_t t, StepKind k, const Action& a) const {
  Node x;
  x.parent = node;
  x.thread = t;
  x.kind = k;
  x.loc = a.loc;
  x.function = a.function;
  x.pc = a.pc;
  return x;
}

bool StateMachine::expand(const State& s, uint32_t node) {
  const int owner = sectionOwner(s);
  if (owner < 0 && reducedStep(s, node)) return true;
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
bool StateMachine::stepThread(const State& s, uint32_t node, uint32_t t, bool& any, bool& cutHere) {
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
bool StateMachine::validAccess(const State& s, uint32_t node, uint32_t t, const Action& a) {
  const std::string err = accessError(s, a.addr, a.size);
  if (err.empty()) return true;
  reportError(s, node, nullptr, t, ErrorKind::Memory, err, a.loc, false);
  return false;
}

bool StateMachine::stepAccess(const State& s, uint32_t node, uint32_t t, bool& any) {
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
      ct.buf.push_back(BufEntry{a.addr, v, a.size, ct.epoch, a.loc, a.function, a.pc, depth()});
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

bool StateMachine::stepLocked(const State& s, uint32_t node, uint32_t t, bool& any) {
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

bool StateMachine::stepThreadControl(const State& s, uint32_t node, uint32_t t, bool& any) {
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
    ch.spawnDepth = depth();
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

bool StateMachine::stepFree(const State& s, uint32_t node, uint32_t t, bool& any) {
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

const HeapBlock* StateMachine::heapBlock(const State& s, Addr p) const {
  if (p < layout::kHeapBase) return nullptr;
  const uint64_t owner = (p - layout::kHeapBase) / layout::kThreadStride;
  return owner < s.th.size() && s.th[owner].ts ? s.th[owner].ts->heapBlockAt(p) : nullptr;
}

// The buffer heads that may flush: the oldest entry under TSO; under PSO the
// oldest entry of each address among those before the first store-store barrier.
std::vector<size_t> StateMachine::flushHeads(const Thread& th) const {
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
bool StateMachine::flushSteps(const State& s, uint32_t node, bool& any) {
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

void StateMachine::finalState(const State& s, uint32_t node, int owner) {
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

void StateMachine::reportError(const State& s, uint32_t node, const Node* last, uint32_t t, ErrorKind kind,
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

StateSpaceResult StateMachine::run() {
  start_ = std::chrono::steady_clock::now();
  limits_ = opts_.check.limits;
  limits_.startClock(start_, opts_.check.timeLimitSeconds, opts_.check.cancel);
  State init;
  init.th.resize(1);
  init.th[0].ts.emplace(prog_, 0, prog_.entry, 0, limits_);
  explore(std::move(init));
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

}  // namespace states
}  // namespace tsocheck

#include "engine/explorer.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <set>

#include "engine/hangs.h"
#include "engine/memory_check.h"
#include "engine/trace.h"
#include "engine/work_sharing.h"

namespace tsocheck {

namespace {
constexpr Value kEBusy = 16;

const char* mutexOpName(EvKind k) {
  return k == EvKind::Lock ? "pthread_mutex_lock" : k == EvKind::TryLock ? "pthread_mutex_trylock"
                                                                          : "pthread_mutex_unlock";
}

std::string threadName(uint32_t t) { return "T" + std::to_string(t); }
}  // namespace


Explorer::Explorer(const Program& prog, const CheckOptions& opts)
    : prog_(prog), opts_(opts), mm_{opts.model, opts.bufferBound}, checker_(mm_),
      preemptions_(!mm_.buffersStores(), mm_.perLocationBuffers()),
      races_(prog, mm_.usesC11Orders() ? &rc11_ : nullptr) {
  rc11On_ = mm_.usesC11Orders();
  raceCheck_ = opts.raceCheck && races_.programHasPlainAccesses();
  checker_.setIncremental(opts.testing.incrementalConsistency);
  checker_.setSelfCheck(opts.testing.checkOrders);
  sections_ = hasAtomicSections(prog);
  // Waiting locks and stale waits argue over the chronological order of the
  // store-buffer models: off under RC11 (every graph is explored). Not with
  // atomic sections either: a lock inside one that finds its mutex held
  // blocks every thread, which a waiting lock would leave out.
  unblockLocks_ = opts.testing.unblockLocks && usesOp(prog, Op::Lock) && !sections_ && !rc11On_;
  pruneStaleWaits_ = opts.testing.pruneStaleWaits && !opts.robustness && !rc11On_;
  if (pruneStaleWaits_) awaitLoads_ = loadsBeforeAwaits(prog);
  settles_ = unblockLocks_ || opts.preemptionBound >= 0 || pruneStaleWaits_;
  boundOn_ = opts.preemptionBound >= 0;
  probing_ = boundOn_ && opts.boundProbe > 0;
  freezeSpins_ = pruneStaleWaits_ && usesOp(prog, Op::Assume);
}


void Explorer::endProbe(bool drop) {
  probing_ = false;
  boundOn_ = !drop;
  res_.boundDropped = drop;
  if (par_) {
    par_->boundDropped = drop;
    par_->probeOver = true;
  }
}

bool Explorer::withinPreemptionSlack(State& s) {
  if (!boundOn_) return true;
  if (probing_ && res_.executions + res_.blocked + res_.cut + res_.staleWaits >= opts_.boundProbe) {
    endProbe(true);  // nothing was pruned (a prune ends the probe)
    s.pb = PreemptionState{};
    return true;
  }
  std::optional<PreemptionSlack> slack;  // worked out only when needed
  const bool over = preemptions_.exceedsWithSlack(s.g, s.pb, opts_.preemptionBound, slack);
  if (opts_.testing.checkOrders) {
    const PreemptionSlack full = preemptionSlack(s.g);
    // Self-check (tests): the slack kept from event to event is the one from scratch.
    if (slack && (full.threads != slack->threads || full.open != slack->open)) {
      reportEngineError("self-check: the kept preemption slack differs from the one from scratch", SourceLoc{});
      return false;
    }
    // Self-check (tests): the cheap phase's upper bounds never hide a lower
    // bound above the limit.
    if (!over && !s.pb.exact && preemptions_.lowerBound(s.g) > opts_.preemptionBound + full.value()) {
      reportEngineError("self-check: the cheap preemption bound hid an exceeded limit", SourceLoc{});
      return false;
    }
  }
  if (!over) return true;
  if (!slack) slack = preemptionSlack(s.g, s.pb);  // (a prune compared a bound above P with it: known)
  const int limit = opts_.preemptionBound + slack->value();
  // Self-check (tests): the kept bound is never above the one from scratch,
  // so a graph pruned by it is pruned by that one too.
  if (opts_.testing.checkOrders && preemptions_.lowerBound(s.g) <= limit) {
    reportEngineError("self-check: the kept preemption lower bound exceeds the one from scratch", SourceLoc{});
    return false;
  }
  ++res_.boundBlocked;
  if (probing_) endProbe(false);
  // Pruned only because the §5 slack is below N−2 (the bench and tests show
  // what the tighter slack adds).
  if (slack->open < slack->threads && !preemptions_.exceeds(s.g, s.pb, opts_.preemptionBound + slack->threads))
    ++res_.boundBlockedSettled;
  return false;
}

bool Explorer::timeUp() {
  // Polled on every visit (one event added), so that a single long execution
  // cannot overrun the limit; the clock itself is read on every 16th visit: a
  // step with one choice costs about a microsecond, a reading of the clock a
  // tenth of that. (Every candidate graph reads it, consistentWith: a check
  // may sort a long graph.) Progress is reported less often.
  if (opts_.onProgress && (visits_ & 255) == 0) {
    if (!par_) {
      opts_.onProgress(res_.executions);
    } else {
      // Every worker adds what it explored and reports the sum, one at a time.
      uint64_t total = par_->progress.fetch_add(res_.executions - progressMark_) + res_.executions - progressMark_;
      progressMark_ = res_.executions;
      std::lock_guard<std::mutex> l(par_->callbacks);
      opts_.onProgress(total);
    }
  }
  if (par_) {
    if (pastBest()) {
      stopped_ = true;  // after the first error: nothing here counts any more
      return false;
    }
    if ((par_->idleHint.load(std::memory_order_relaxed) > 0 || opts_.testing.splitEagerly) && !probing_) giveAway();
  }
  if ((++timePolls_ & 15) == 0 && outOfTime()) {
    if (par_) par_->stop = true;
    return true;
  }
  return false;
}

bool Explorer::outOfTime() const {
  if (par_ && par_->stop.load(std::memory_order_relaxed)) return true;
  return opts_.limits.timeUp();
}

CheckResult Explorer::run() {
  start_ = std::chrono::steady_clock::now();
  // Threads poll the deadline and the cancel flag while they run (interp.h).
  // (A deadline the caller set, e.g. for a whole check with fence synthesis, stays if earlier.)
  opts_.limits.startClock(start_, opts_.timeLimitSeconds, opts_.cancel);
  State s;
  ThreadInfo main;
  main.alive = true;
  main.parent = 0;
  main.func = prog_.entry;
  s.g.threads.push_back(main);
  s.ts.emplace_back();
  s.ts.back().start(prog_, 0, prog_.entry, 0, opts_.limits);
  if ((opts_.jobs > 1 || opts_.shard.count > 0) && !opts_.robustness) res_ = runParallel(s);
  else visit(s);

  std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start_;
  res_.elapsedMs = ms.count();
  finishResult();
  return res_;
}


void Explorer::finishResult() {
  if (res_.status == Status::Error) return;
  if (opts_.robustness) finishRobustness();
  if (res_.robustness && res_.violation && witnessKind_ != ErrorKind::None)
    res_.robustness->witnessIsViolation = res_.violation->kind == witnessKind_;
  if (res_.shard) res_.shard->timedOut = timedOut_;
  finishStatus(res_, opts_, timedOut_);
}

void Explorer::finishStatus(CheckResult& r, const CheckOptions& o, bool timedOut) {
  if (r.status == Status::Error) return;
  const bool bufferCut = o.memoryModel().boundCuts();
  if (r.violation) {
    r.status = Status::Violation;
    r.message = r.violation->message;
    if (timedOut) r.limitsHit.push_back("time limit reached before the exploration finished");
  } else if (timedOut) {
    r.status = Status::Timeout;
    r.message = "time limit reached before the exploration finished; no violation found so far";
  } else if (r.cut > 0) {
    r.status = Status::Bounded;
    r.message = "no violation found, but " + std::to_string(r.cut) +
                   " execution(s) were cut by a limit";
  } else if (r.executions == 0) {
    r.status = Status::Bounded;
    r.message = "no complete execution: every execution was blocked";
  } else if (o.preemptionBound >= 0 && !r.boundDropped) {
    r.status = Status::Bounded;
    r.message = "no violation with ≤ " + std::to_string(o.preemptionBound) + " preemptions";
    if (bufferCut) r.message += " and store buffers of at most " + std::to_string(o.bufferBound) + " entries";
  } else if (bufferCut) {
    r.status = Status::Bounded;
    r.message = "no violation with store buffers of at most " + std::to_string(o.bufferBound) +
                   " entries";
  } else {
    r.status = Status::Verified;
    r.message = "no violation in any execution";
    if (r.boundDropped)
      r.message += " (the preemption bound pruned nothing in the first " + std::to_string(o.boundProbe) +
                      " ended executions, so the search went on without it)";
  }
  r.limitNondet(o.limits);
  if (r.status != Status::Violation) r.message += r.warningsNote();
}

uint32_t Explorer::spawnId(uint32_t parent, uint32_t ordinal) { return spawnIds_->id(parent, ordinal); }

Value Explorer::initialValue(Addr a, uint8_t size) const { return initialMemoryValue(prog_, a, size); }

std::string Explorer::checkAccess(const State& s, Addr a, uint64_t size) const {
  return invalidAccess(
      prog_, a, size,
      [&](uint64_t t) -> const ThreadState* { return t < s.ts.size() && s.ts[t] ? &*s.ts[t] : nullptr; },
      opts_.exitEndsProgram);
}

bool Explorer::sizeConflict(State& s, uint32_t t, Addr a, uint8_t size) {
  const auto& locs = s.g.locs;
  auto it = std::lower_bound(locs.begin(), locs.end(), a,
                             [](const Location& l, Addr x) { return l.addr < x; });
  const Location* clash = nullptr;
  if (it != locs.end() && it->addr == a) {
    if (it->size != size) clash = &*it;
    else if (it + 1 != locs.end() && (it + 1)->addr < a + size) clash = &*(it + 1);
  } else {
    if (it != locs.begin() && (it - 1)->addr + (it - 1)->size > a) clash = &*(it - 1);
    else if (it != locs.end() && it->addr < a + size) clash = &*it;
  }
  if (!clash) return false;
  const Action& p = s.ts[t]->pending();
  reportEngineError("unsupported: mixed-size or overlapping accesses to the same memory (" +
                        std::to_string(size) + "-byte access to " + addressName(prog_, a) + " overlaps a " +
                        std::to_string(clash->size) + "-byte access to " + addressName(prog_, clash->addr) + ")",
                    p.loc);
  return true;
}

void Explorer::reportEngineError(const std::string& msg, const SourceLoc& loc) {
  if (skipping_) return;  // (another shard's part)
  res_.status = Status::Error;
  res_.message = prog_.locString(loc) + ": " + msg;
  if (par_) cur_.engineError = res_.message;
  stopHere();
}

Event Explorer::makeEvent(const State& s, uint32_t t, EvKind kind) const {
  const Action& a = s.ts[t]->pending();
  Event e;
  e.kind = kind;
  e.size = a.size;
  e.addr = a.addr;
  e.operand = a.value;
  e.expected = a.expected;
  e.rmw = a.rmw;
  e.fence = a.fence;
  e.order = kind == EvKind::Lock || kind == EvKind::TryLock ? MemOrder::Acquire
          : kind == EvKind::Unlock                          ? MemOrder::Release
                                                            : a.order;
  e.failOrder = a.failOrder;
  e.function = a.function;
  e.pc = a.pc;
  e.name = a.name;
  e.loc = a.loc;
  return e;
}

namespace {
// The thread whose shared stack slots or thread-local copies hold address a.
std::optional<uint32_t> windowOwner(Addr a) {
  if (a >= layout::kStackBase && a < layout::kPrivateBase) return uint32_t((a - layout::kStackBase) / layout::kThreadStride);
  if (a >= layout::kTlsBase && a < layout::kStackBase) return uint32_t((a - layout::kTlsBase) / layout::kTlsStride);
  return std::nullopt;
}
}  // namespace

namespace {
// Event::section's bit of the explorer's own: the thread took an AtomicBegin
// since its previous event (no replay mark is kept there: complete).
constexpr uint8_t kAfterBegin = 4;
}  // namespace

EventId Explorer::append(State& s, uint32_t t, Event e) {
  e.stamp = e.wstamp = s.g.nextStamp++;
  e.orderKey = 0;
  s.pb.lastThread = t;
  ThreadInfo& info = s.g.threads[t];
  if (info.enteringSection) e.section = kAfterBegin;
  if (s.ts[t] && s.ts[t]->inAtomic()) {
    e.section |= uint8_t(kInSection | (info.enteringSection ? kSectionStart : 0));
    s.g.atomicSections = true;
  }
  info.enteringSection = false;
  auto& evs = s.g.threads[t].events;
  const bool memory = e.reads || e.writes;
  if (e.kind == EvKind::Fence && e.fence == FenceKind::StoreStore) s.g.storeStoreFences = true;
  if (memory && !s.g.foreignWindowAccess) {
    const std::optional<uint32_t> owner = windowOwner(e.addr);
    if (owner && *owner != t) s.g.foreignWindowAccess = true;
  }
  evs.push_back(std::move(e));
  const EventId id{t, uint32_t(evs.size() - 1)};
  // An event with no memory access has nothing after it in any order: it
  // takes the end of the kept order now; an access is placed when its choice
  // is made (complete).
  if (memory) ++s.g.unplaced;
  else ConsistencyChecker::placeLast(s.g, id);
  return id;
}

void Explorer::complete(State& s, uint32_t t) {
  ++res_.events;
  const Event& e = s.g.threads[t].events.back();
  if ((e.reads || e.writes) && !rc11On_) checker_.place(s.g, EventId{t, uint32_t(s.g.threads[t].events.size() - 1)});
  if (e.kind == EvKind::Exit) return;
  if (e.kind == EvKind::Lock && !e.writes) return;  // blocked on a held mutex
  // A mark: the state before this event's result is the one after the events
  // before it. (Self-checks mark after every event: short threads use marks too.)
  // (Not after an AtomicBegin: a replay to this point stops at it.)
  const uint32_t every = opts_.testing.checkOrders ? 1 : kMarkEvery;
  if (const uint32_t n = uint32_t(s.g.threads[t].events.size() - 1); n % every == 0 && n > 0 && !(e.section & kAfterBegin))
    s.ts[t].mark(n);
  s.ts[t].mut().complete(e.result);
  noteSpinner(s, t);
  if (pruneStaleWaits_ && staleWait(s, t)) s.staleWait = true;
}

bool Explorer::otherWriteAfter(const Graph& g, const Event& e, uint32_t u) {
  const Location* l = g.findLoc(e.addr);
  if (!l) return true;
  const int k = Graph::coIndex(*l, e.rf);  // (init: -1)
  return k == -2 || k < newestOtherWrite(*l, u);
}

bool Explorer::idleReadsStale(const Graph& g, uint32_t u, uint32_t n) {
  const auto& evs = g.threads[u].events;
  uint32_t seen = 0;
  for (uint32_t i = uint32_t(evs.size()); i-- > 0 && seen < n;)
    if (evs[i].reads) {
      ++seen;
      if (otherWriteAfter(g, evs[i], u)) return true;
    }
  return false;
}

int Explorer::newestOtherWrite(const Location& l, uint32_t t) {
  const auto& co = l.co;
  for (int i = int(co.size()) - 1; i >= 0; --i)
    if (co[size_t(i)].thread != t) return i;
  return -1;
}

bool Explorer::staleReadStops(const State& s, uint32_t t, EventId r, EventId w) const {
  const Event& e = s.g.ev(r);
  ThreadState next = *s.ts[t];
  next.complete(s.g.valueOf(*s.g.findLoc(e.addr), w));
  return isAwait(next.pending()) && !next.inAtomic();
}

bool Explorer::staleWait(const State& s, uint32_t t, bool settledOnly) const {
  if (!s.ts[t]) return false;
  const Action& p = s.ts[t]->pending();
  // A spin's await (interp.cpp Op::Assume). Only the iteration's last read
  // counts (explorer.h); an iteration without reads can never change: no
  // stale wait, its hang is reported.
  if (!isAwait(p) || p.target == 0) return false;
  if (s.ts[t]->inAtomic()) return false;  // no other thread can run: a hang (finishExecution)
  const auto& evs = s.g.threads[t].events;
  for (uint32_t i = uint32_t(evs.size()); i-- > 0;)
    if (evs[i].reads) return settled(s.g, t, i) || (!settledOnly && otherWriteAfter(s.g, evs[i], t));
  return false;
}

ThreadState Explorer::replay(const Graph& g, uint32_t u, const SharedThread& from) const {
  const ThreadInfo& th = g.threads[u];
  auto run = [&](ThreadState ts, uint32_t i) {
    for (; i < th.events.size(); ++i) {
      const Event& e = th.events[i];
      while (ts.pending().kind == ActionKind::AtomicBegin) ts.complete(0);  // (no event: visit)
      if (e.kind == EvKind::Exit) break;
      if (e.kind == EvKind::Lock && !e.writes) break;
      ts.complete(e.result);
    }
    return ts;
  };
  auto fromStart = [&]() { return run(ThreadState(prog_, u, th.func, th.arg, opts_.limits), 0); };
  const Mark* m = from.latestMark();
  if (!m) return fromStart();
  ThreadState ts = run(*m->state, m->events);
  if (opts_.testing.checkOrders) {
    std::string a, b;
    ts.appendKey(a);
    fromStart().appendKey(b);
    if (a != b) throw std::logic_error("replay: a thread replayed from its mark differs from one replayed from its start");
  }
  return ts;
}

bool Explorer::lockWaits(const State& s, const Action& a) const {
  if (!unblockLocks_ || a.kind != ActionKind::Lock) return false;
  const Location* l = s.g.findLoc(a.addr);
  if (!l) return false;  // (not accessed yet: the lock's own checks come first)
  const Value v = s.g.valueOf(*l, l->newest());
  return v != 0 && v != kMutexDestroyed;
}

void Explorer::settle(Graph& g, EventId w, const std::vector<uint32_t>& view) const {
  for (uint32_t u = 0; u < g.threads.size() && u < view.size(); ++u) {
    ThreadInfo& th = g.threads[u];
    const uint32_t n = std::min<uint32_t>(view[u] + (u == w.thread ? 1 : 0), uint32_t(th.events.size()));
    if (th.settled < n) th.settled = n;
  }
}

// (Inlined: pickThread asks it of every thread at every step.)
[[gnu::always_inline]] inline Explorer::Moves Explorer::canMove(const State& s, uint32_t t) const {
  const ThreadInfo& th = s.g.threads[t];
  if (!th.alive || !s.ts[t]) return Moves::No;
  if (!th.events.empty()) {
    const Event& last = th.events.back();
    if (last.kind == EvKind::Exit) return Moves::No;
    if (last.kind == EvKind::Lock && !last.writes) return Moves::No;
  }
  const Action& a = s.ts[t]->pending();
  switch (a.kind) {
    case ActionKind::Blocked:
    case ActionKind::Limit:
      return Moves::No;
    case ActionKind::Join: {
      uint32_t tgt = a.target;
      bool valid = tgt < s.g.threads.size() && tgt != t && s.g.threads[tgt].alive;
      if (!valid) return Moves::Yes;  // reported as an error
      const auto& te = s.g.threads[tgt].events;
      if (te.empty() || te.back().kind != EvKind::Exit) return Moves::No;
      if (endsProgram(te.back(), tgt)) return Moves::No;  // it called exit(): the program is over, the join never returns
      return Moves::Yes;
    }
    case ActionKind::Lock:
      return lockWaits(s, a) ? Moves::Waiting : Moves::Yes;
    default:
      return Moves::Yes;
  }
}

bool Explorer::sectionOwnerIs(const State& s, uint32_t t) const {
  const ThreadInfo& th = s.g.threads[t];
  return th.alive && s.ts[t] && s.ts[t]->inAtomic() && (th.events.empty() || th.events.back().kind != EvKind::Exit);
}

void Explorer::endInSection(State& s, uint32_t u) {
  if (!sectionsHold(s, int(u))) return;
  const Action& p = s.ts[u]->pending();
  if (p.kind == ActionKind::Limit) {
    if (s.ts[u]->stoppedByTime()) {
      timedOut_ = stopped_ = true;
      return;
    }
    ++res_.cut;
    noteLimit(p.message, p.loc);
    return;
  }
  const ExecutionEnd end = sectionEnd(prog_, u, p);
  if (end.kind != ExecutionEnd::Kind::Hang) {
    ++res_.blocked;
    recordExecution(s, true);
    return;
  }
  reportError(s, u, end.error, end.message, end.loc, false);
}

int Explorer::pickThread(const State& s) const {
  int waiting = -1;  // the first thread whose lock waits (lockWaits): run when no other can move
  for (uint32_t t = 0; t < s.g.threads.size(); ++t) {
    const Moves m = canMove(s, t);
    if (m == Moves::Yes) return int(t);
    if (m == Moves::Waiting && waiting < 0) waiting = int(t);
  }
  return waiting;
}

bool Explorer::placed(State& c, uint32_t t, EventId w) {
  complete(c, t);
  if (useAfterFree(c, w)) return false;
  if (!freezeSpins_ || c.g.ev(w).kind != EvKind::Store || !freezesSpin(c, t, w)) return true;
  ++res_.staleWaits;
  return false;
}

void Explorer::noteSpinner(State& s, uint32_t u) const {
  if (freezeSpins_ && s.ts[u] && isAwait(s.ts[u]->pending())) s.spinners |= uint64_t(1) << std::min(u, 63u);
}

bool Explorer::freezesSpin(const State& c, uint32_t t, EventId w) const {
  if (!c.spinners) return false;  // (most stores: no thread has stopped on an await)
  const Event& we = c.g.ev(w);
  const Location& loc = *c.g.findLoc(we.addr);
  const int wi = Graph::coIndex(loc, w);
  const uint32_t n = uint32_t(c.g.threads.size());
  for (uint32_t u = 0; u < n; ++u) {
    if (!(c.spinners >> std::min(u, 63u) & 1)) {  // (never stopped on an await)
      if (u >= 63) break;
      continue;
    }
    if (u == t || !c.ts[u]) continue;
    const Action& p = c.ts[u]->pending();
    if (!isAwait(p) || p.target == 0 || c.ts[u]->inAtomic()) continue;  // (inside a section: a hang there)
    // The idle iteration's last read (as in staleWait; past fences only: a
    // thread with another event after its last read is left alone).
    const auto& evs = c.g.threads[u].events;
    uint32_t i = uint32_t(evs.size());
    while (i > 0 && evs[i - 1].kind == EvKind::Fence) --i;
    if (i == 0 || !evs[i - 1].reads || evs[i - 1].addr != we.addr) continue;
    const EventId r{u, i - 1};
    const Event& re = evs[i - 1];
    if (settled(c.g, u, r.index) || Graph::coIndex(loc, re.rf) >= wi) continue;
    // Only t moved since r, and no other thread can move: every event from
    // now on has w in its porf-prefix (explorer.h freezesSpin).
    bool others = false;
    for (uint32_t v = 0; v < n && !others; ++v) {
      if (v == u || v == t) continue;
      const auto& ve = c.g.threads[v].events;
      others = (!ve.empty() && ve.back().stamp > re.stamp) || canMove(c, v) != Moves::No;
    }
    if (others) continue;
    // w may revisit r deleting nothing (t's events since r precede w): that
    // graph is r reading w where it stands.
    std::vector<uint32_t> view = viewOf(c.g, w), keep;
    if (revisitKeeps(c.g, w, r, view, keep)) return true;
  }
  return false;
}

void Explorer::visit(State& s) {
  for (;;) {
    if (stopped_ || skipping_) return;
    ++visits_;
    if (timeUp()) {
      timedOut_ = stopped_ = true;
      return;
    }
    if (stopped_) return;
    if (!withinPreemptionSlack(s)) return;
    if (s.staleWait) {
      ++res_.staleWaits;
      return;
    }
    int ti = pickThread(s);
    if (ti < 0) {
      finishExecution(s);
      return;
    }
    const uint32_t t = uint32_t(ti);
    const Action a = s.ts[t]->pending();
    if (a.kind != ActionKind::Error) {
      if (s.g.threads[t].events.size() >= opts_.limits.maxEvents) {
        // A runaway thread (`while (1) x++;`): cut it here, like a step limit,
        // and let the others go on, so that what they reach (an assertion
        // failure, ...) is still found. The execution ends as cut when
        // nothing else can move (finishExecution).
        s.ts[t].mut().cut("event limit (" + std::to_string(opts_.limits.maxEvents) +
                     " events per thread) reached in T" + std::to_string(t));
        continue;
      }
      if (s.g.numEvents() >= opts_.limits.maxExecutionEvents) {
        // Threads that spawn threads without end: cut the whole execution.
        ++res_.cut;
        noteLimit("event limit (" + std::to_string(opts_.limits.maxExecutionEvents) +
                      " events per execution) reached in T" + std::to_string(t),
                  a.loc);
        return;
      }
    }
    switch (a.kind) {
      case ActionKind::AtomicBegin:  // no event: the thread's next event starts a section
        s.ts[t].mut().complete(0);
        s.g.threads[t].enteringSection = true;
        continue;
      case ActionKind::Error:
        reportError(s, t, a.error, a.message, a.loc, true);
        return;
      case ActionKind::Load:
        if (handleRead(s, t)) continue;
        return;
      case ActionKind::Store:
        if (handleWrite(s, t)) continue;
        return;
      case ActionKind::Rmw:
      case ActionKind::Lock:
      case ActionKind::TryLock:
      case ActionKind::Unlock:
        if (handleRmw(s, t)) continue;
        return;
      case ActionKind::Fence:
        append(s, t, makeEvent(s, t, EvKind::Fence));
        complete(s, t);
        continue;
      case ActionKind::Exit: {
        Event e = makeEvent(s, t, EvKind::Exit);
        e.operand = a.value;
        EventId xid = append(s, t, e);
        if (stackUsedAfterExit(s, xid)) return;
        complete(s, t);
        continue;
      }
      case ActionKind::Spawn:
        addSpawn(s, t, a);
        continue;
      case ActionKind::Join:
        if (!addJoin(s, t, a)) return;
        continue;
      case ActionKind::Free:
        if (!addFree(s, t, a)) return;
        continue;
      case ActionKind::BlockSize:
        if (!addBlockSize(s, t, a)) return;
        continue;
      case ActionKind::Choice:
        handleChoice(s, t, a);
        return;
      case ActionKind::Blocked:
      case ActionKind::Limit:
        return;  // not picked by pickThread
    }
  }
}

void Explorer::addSpawn(State& s, uint32_t t, const Action& a) {
  uint32_t ordinal = 0;
  for (const Event& x : s.g.threads[t].events) ordinal += x.kind == EvKind::Spawn;
  uint32_t child = spawnId(t, ordinal);
  if (s.g.threads.size() <= child) {
    s.g.threads.resize(child + 1);
    s.ts.resize(child + 1);
  }
  Event e = makeEvent(s, t, EvKind::Spawn);
  e.aux = child;
  e.result = child;
  EventId id = append(s, t, e);
  ThreadInfo& th = s.g.threads[child];
  th.alive = true;
  th.parent = t;
  th.spawnIndex = id.index;
  th.func = a.func;
  th.arg = a.value;
  th.enteringSection = false;
  s.g.truncate(child, 0);
  s.ts[child].start(prog_, child, a.func, a.value, opts_.limits);
  complete(s, t);
}

bool Explorer::addJoin(State& s, uint32_t t, const Action& a) {
  uint32_t tgt = a.target;
  if (tgt >= s.g.threads.size() || tgt == t || !s.g.threads[tgt].alive) {
    reportError(s, t, ErrorKind::Memory,
                tgt == t ? "a thread joins itself" : "pthread_join on an invalid thread id " + std::to_string(tgt),
                a.loc, false);
    return false;
  }
  Event e = makeEvent(s, t, EvKind::Join);
  e.aux = tgt;
  e.result = s.g.threads[tgt].events.back().operand;
  append(s, t, e);
  complete(s, t);
  return true;
}

const HeapBlock* Explorer::mallocBlock(State& s, uint32_t t, const Action& a, const char* call,
                                       const char* freedText, const char* freedEnd) {
  const Addr p = a.addr;
  const HeapBlock* b = nullptr;
  if (p >= layout::kHeapBase) {
    uint64_t owner = (p - layout::kHeapBase) / layout::kThreadStride;
    if (owner < s.ts.size() && s.ts[owner]) b = s.ts[owner]->heapBlockAt(p);
  }
  if (!b || b->addr != p) {
    reportError(s, t, ErrorKind::Memory,
                std::string(call) + " of a pointer that malloc did not return (" + addressName(prog_, p) + ")", a.loc,
                false);
    return nullptr;
  }
  for (const ThreadInfo& th : s.g.threads)
    for (const Event& x : th.events)
      if (x.kind == EvKind::Free && x.addr == p) {
        reportError(s, t, ErrorKind::Memory, freedText + addressName(prog_, p) + freedEnd,
                    a.loc, false);
        return nullptr;
      }
  return b;
}

bool Explorer::addFree(State& s, uint32_t t, const Action& a) {
  const Addr p = a.addr;
  const HeapBlock* b = mallocBlock(s, t, a, "free()", "double free of ", "");
  if (!b) return false;
  Event e = makeEvent(s, t, EvKind::Free);
  e.addr = p;
  e.size = 0;
  e.operand = b->size;
  EventId fid = append(s, t, e);
  // Any access to the block that some allowed order puts after the free?
  for (uint32_t u = 0; u < s.g.threads.size(); ++u) {
    const auto& evs = s.g.threads[u].events;
    for (uint32_t i = 0; i < evs.size(); ++i) {
      const Event& x = evs[i];
      if (!(x.reads || x.writes) || x.addr < p || x.addr >= p + std::max<uint64_t>(b->size, 1)) continue;
      if (canOrderBefore(s.g, fid, EventId{u, i})) {
        reportError(s, t, ErrorKind::Memory,
                    "use after free: " + threadName(u) + " accesses " + addressName(prog_, x.addr) +
                        " (" + prog_.locString(x.loc) + ") after it is freed",
                    a.loc, false);
        return false;
      }
    }
  }
  complete(s, t);
  return true;
}

bool Explorer::addBlockSize(State& s, uint32_t t, const Action& a) {
  const HeapBlock* b = mallocBlock(s, t, a, "realloc()", "realloc() of freed memory (", ")");
  if (!b) return false;
  Event e = makeEvent(s, t, EvKind::Query);
  e.addr = 0;
  e.result = b->size;
  append(s, t, e);
  complete(s, t);
  return true;
}

void Explorer::handleChoice(State& s, uint32_t t, const Action& a) {
  // Every value, each on its own copy but the last (which takes s over).
  const Value n = a.value;
  if (a.limited && !(par_ ? cur_.nondetLimited : res_.nondetLimited)) {
    res_.nondetLimited = cur_.nondetLimited = true;
    noteLimit(nondetRangeText(opts_.limits), a.loc);
  }
  Event e = makeEvent(s, t, EvKind::Choice);
  e.addr = 0;
  EventId id = append(s, t, e);
  FrameScope frame(*this, FrameKind::Choice, s, uint32_t(n + 1), t, id, &a);
  bool last = false;
  for (Value v = 0; !stopped_ && frame.begin(uint32_t(v), &last); ++v) {
    PathScope path(*this, uint32_t(v));
    State copy;
    if (!last) copy = s;
    State& c = last ? s : copy;
    c.g.mut(id).result = choiceValue(a, v);
    complete(c, t);
    visit(c);
  }
}

bool Explorer::useAfterFree(State& s, EventId access) {
  const Event& x = s.g.ev(access);
  if (x.addr < layout::kHeapBase) return false;
  for (uint32_t u = 0; u < s.g.threads.size(); ++u) {
    const auto& evs = s.g.threads[u].events;
    for (uint32_t i = 0; i < evs.size(); ++i) {
      const Event& f = evs[i];
      if (f.kind != EvKind::Free) continue;
      if (x.addr < f.addr || x.addr >= f.addr + std::max<Value>(f.operand, 1)) continue;
      if (canOrderBefore(s.g, EventId{u, i}, access)) {
        reportError(s, access.thread, ErrorKind::Memory,
                    "use after free: " + addressName(prog_, x.addr) + " was freed by " + threadName(u) + " (" +
                        prog_.locString(f.loc) + ")",
                    x.loc, false);
        return true;
      }
    }
  }
  return false;
}

// A thread's stack slots die with it: any access by another thread to them
// that some allowed order puts after the exit is a use after return. (An
// access explored after the exit is caught by checkAccess.)
// Likewise its thread-local copies (the thread-local window).
bool Explorer::endsProgram(const Event& e, uint32_t t) const {
  return opts_.exitEndsProgram && e.kind == EvKind::Exit && tsocheck::endsProgram(prog_, t, e.function, e.pc);
}

bool Explorer::programEnded(const Graph& g) const {
  if (!opts_.exitEndsProgram) return false;
  for (uint32_t u = 0; u < g.threads.size(); ++u) {
    const EventList& evs = g.threads[u].events;
    if (g.threads[u].alive && !evs.empty() && endsProgram(evs.back(), u)) return true;
  }
  return false;
}

bool Explorer::stackUsedAfterExit(State& s, EventId exitId) {
  // When this exit ends the program no thread runs after it: nothing of the
  // exiting thread's can be used later.
  if (endsProgram(s.g.ev(exitId), exitId.thread)) return false;
  if (!s.g.foreignWindowAccess) return false;  // no thread touched another's slots
  for (uint32_t u = 0; u < s.g.threads.size(); ++u) {
    if (u == exitId.thread) continue;
    const auto& evs = s.g.threads[u].events;
    for (uint32_t i = 0; i < evs.size(); ++i) {
      const Event& x = evs[i];
      if (!(x.reads || x.writes) || windowOwner(x.addr) != exitId.thread) continue;
      const bool tls = x.addr < layout::kStackBase;  // (the thread-local windows lie below the stacks)
      if (canOrderBefore(s.g, exitId, EventId{u, i})) {
        reportError(s, u, ErrorKind::Memory,
                    tls ? "use of " + addressName(prog_, x.addr) + " after T" + std::to_string(exitId.thread) +
                              " ended (a thread's thread-local variables end with it)"
                        : stackAfterReturn(prog_, x.addr, exitId.thread),
                    x.loc, false);
        return true;
      }
    }
  }
  return false;
}

int Explorer::coLowerBound(const State& s, uint32_t t, Addr a) const {
  // Coherence per location holds in SC, TSO and PSO: a thread's access never
  // sees (or places its write) co-before what its own earlier accesses to the
  // location wrote or read. Candidates below this index are inconsistent.
  const Location* loc = s.g.findLoc(a);
  int bound = -1;
  const auto& evs = s.g.threads[t].events;
  for (uint32_t i = uint32_t(evs.size()); i-- > 0;) {
    const Event* it = &evs[i];
    if (it->addr != a || !(it->reads || it->writes)) continue;
    if (it->writes) bound = std::max(bound, Graph::coIndex(*loc, EventId{t, i}));
    if (it->reads) bound = std::max(bound, Graph::coIndex(*loc, it->rf));
    if (it->writes) break;  // an own write is co-after everything this thread saw before it
  }
  return bound;
}

EventId Explorer::viewCoBound(const Graph& g, EventId r) const {
  // Every path of program order and reads-from into r's thread keeps its
  // order in time under SC, TSO and PSO when it ends in a read: it leaves a
  // thread through a write (read -> later write is kept, and a write is read
  // from memory only once flushed), a spawn or an exit (both drain the
  // buffers), and reads keep their order. So a read of another thread in r's
  // porf-prefix that took its value from memory, and an RMW or mutex
  // operation there, happened before r: r reads what they read or wrote, or
  // a later write (its own buffered store flushes later still). A plain store
  // of another thread there was flushed before r under SC and TSO (FIFO
  // buffers: the write the path leaves through flushes after it), not
  // necessarily under PSO. The same holds when r is a store or an RMW: the
  // path enters r's thread at a timed event (a read, the thread's start, a
  // join), and r reaches memory after every timed event before it, so it
  // goes co-after all those writes. (r's own thread: coLowerBound.)
  const Event& re = g.ev(r);
  const Location* loc = g.findLoc(re.addr);
  // The prefix: r's po-predecessor's porf view, or its spawn's.
  EventId before = kInit;
  if (r.index > 0) before = EventId{r.thread, r.index - 1};
  else if (r.thread != 0) before = EventId{g.threads[r.thread].parent, g.threads[r.thread].spawnIndex};
  const bool buffers = mm_.buffersStores(), fifo = !mm_.perLocationBuffers();
  EventId bound = kInit;
  int at = -1;  // (bound's co index)
  auto raise = [&](EventId x) {
    if (const int i = Graph::coIndex(*loc, x); i > at) {
      at = i;
      bound = x;
    }
  };
  auto look = [&](const Event& x, uint32_t u, uint32_t i) {
    if (u == r.thread || x.addr != re.addr || !(x.reads || x.writes)) return;
    const bool loadOrStore = x.kind == EvKind::Load || x.kind == EvKind::Store;
    if (x.writes && (!loadOrStore || !buffers || fifo)) raise(EventId{u, i});
    if (x.reads && (!loadOrStore || !buffers || x.rf.isInit() || x.rf.thread != u)) raise(x.rf);
  };
  if (before.isInit()) return bound;
  if (g.numEvents() < Graph::kClocksFrom) {
    // A short graph: the walk that finds the prefix looks at its events too.
    walkView_.assign(g.threads.size(), 0);
    g.porfWalk(before, walkView_, look);
    return bound;
  }
  const std::vector<uint32_t> view = g.porfView(before);
  for (uint32_t u = 0; u < view.size(); ++u)
    if (u != r.thread)
      g.threads[u].events.forRange(0, view[u], [&](const Event& x, size_t i) { look(x, u, uint32_t(i)); });
  return bound;
}

bool Explorer::belowView(const Graph& g, EventId e, EventId bound) {
  const Event& ev = g.ev(e);
  const Location& loc = *g.locOf(ev);
  const int b = Graph::coIndex(loc, bound);  // (kInit: -1, nothing is below it)
  if (ev.reads && Graph::coIndex(loc, ev.rf) < b) return true;
  const int me = ev.writes ? Graph::coIndex(loc, e) : -2;
  return me >= 0 && me <= b;
}

bool Explorer::consistentAccess(Graph& g, EventId e, AccessScratch* scratch) {
  if (!inTime()) return false;
  if (rc11On_) {
    const bool ok = rc11_.consistentExtension(g, e, &scratch->rc11);
    // Self-check (tests): the extension test answers as a check from scratch.
    if (opts_.testing.checkOrders && ok != rc11_.consistent(g)) {
      reportEngineError("self-check: RC11's extension test differs from the check from scratch", SourceLoc{});
      return false;
    }
    return ok;
  }
  if (const int kept = checker_.byKeptOrder(g, e); kept >= 0) return kept == 1;
  // No place in the kept order: most such candidates are stale for e's view.
  std::optional<EventId>& viewBound = scratch->viewBound;
  if (!viewBound) viewBound = viewCoBound(g, e);
  if (belowView(g, e, *viewBound)) return checker_.ruledOut(g);
  return checker_.fromScratch(g, e);
}

bool Explorer::consistentRevisit(Graph& g, EventId w, EventId r) {
  if (!inTime()) return false;
  if (rc11On_) {
    const bool ok = rc11_.consistentRevisit(g, w, r);
    // Self-check (tests): the two-extension test answers as a check from scratch.
    if (opts_.testing.checkOrders && ok != rc11_.consistent(g)) {
      reportEngineError("self-check: RC11's revisit test differs from the check from scratch", SourceLoc{});
      return false;
    }
    return ok;
  }
  if (const int kept = checker_.revisitByKeptOrder(g, w, r); kept >= 0) return kept == 1;
  // The revisiting write and the revisited read against their views.
  if (belowView(g, w, viewCoBound(g, w))) return checker_.ruledOut(g);
  if (g.contains(r) && belowView(g, r, viewCoBound(g, r))) return checker_.ruledOut(g);
  return checker_.fromScratch(g, kInit);
}

bool Explorer::prepareAccess(State& s, uint32_t t, const Action& a) {
  if (std::string err = checkAccess(s, a.addr, a.size); !err.empty()) {
    reportError(s, t, ErrorKind::Memory, err, a.loc, false);
    return false;
  }
  if (sizeConflict(s, t, a.addr, a.size)) return false;
  s.g.locFor(a.addr, a.size, initialValue(a.addr, a.size));
  return true;
}

std::vector<EventId> Explorer::candidates(const State& s, Addr a, int low) const {
  // Writes a read may read from, newest first, down to co index `low`.
  const auto& co = s.g.findLoc(a)->co;
  std::vector<EventId> out;
  for (int i = int(co.size()) - 1; i >= std::max(low, 0); --i) out.push_back(co[size_t(i)]);
  if (low < 0) out.push_back(kInit);
  return out;
}

bool Explorer::handleRead(State& s, uint32_t t) {
  const Action a = s.ts[t]->pending();
  if (!prepareAccess(s, t, a)) return false;
  Event e = makeEvent(s, t, EvKind::Load);
  e.reads = true;
  const int low = coLowerBound(s, t, a.addr);
  EventId id = append(s, t, e);
  std::vector<EventId> ok;
  AccessScratch scratch;  // (the same for every candidate: computed once)
  {
    const ConsistencyChecker::LoadCandidates sameBase(checker_, s.g, id);  // (only rf changes in the loop)
    // Candidates co-before this index are stale: another thread's write
    // follows them in coherence (staleReadStops; none for heap reads, so
    // that a use after free is reported when the read is taken).
    const bool nearAwait = a.function < awaitLoads_.size() && a.pc < awaitLoads_[a.function].size() &&
                           awaitLoads_[a.function][a.pc];
    const Location& loc = *s.g.findLoc(a.addr);
    const int stale = nearAwait && a.addr < layout::kHeapBase ? newestOtherWrite(loc, t) : -1;
    int at = int(loc.co.size());  // (the candidates come newest first)
    for (EventId w : candidates(s, a.addr, low)) {
      s.g.setRf(id, w);
      // A stale value that would stop the thread at once is not given at all.
      if (--at < stale && staleReadStops(s, t, id, w)) {
        ++res_.staleReads;
        continue;
      }
      if (consistentAccess(s.g, id, &scratch)) ok.push_back(w);
    }
  }
  if (opts_.exploreOrder == ExploreOrder::StaleFirst) {
    // The oldest write first, other threads' before t's own.
    std::reverse(ok.begin(), ok.end());
    std::stable_partition(ok.begin(), ok.end(), [&](EventId w) { return w.isInit() || w.thread != t; });
  }
  // The read of ok[i] made on c (false: it was a use after free, reported).
  auto take = [&](State& c, uint32_t i) {
    c.g.setRf(id, ok[i]);
    Event& ev = c.g.mut(id);
    ev.rval = ev.result = c.g.valueOf(*c.g.findLoc(a.addr), ok[i]);
    complete(c, t);
    return !useAfterFree(c, id);
  };
  if (ok.size() == 1) return take(s, 0);  // no branch point: visit goes on with s
  // Every branch but the last works on a copy; the last one takes s over, so
  // a thread that runs alone costs no copies at all.
  FrameScope frame(*this, FrameKind::Read, s, uint32_t(ok.size()), t, id, &ok);
  bool last = false;
  for (uint32_t i = 0; !stopped_ && frame.begin(i, &last); ++i) {
    PathScope path(*this, i);
    State copy;
    if (!last) copy = s;
    State& c = last ? s : copy;
    if (take(c, i)) visit(c);  // (a use after free stops the search unless it goes on past errors)
  }
  return false;
}

bool Explorer::handleWrite(State& s, uint32_t t) {
  const Action a = s.ts[t]->pending();
  if (!prepareAccess(s, t, a)) return false;
  Event e = makeEvent(s, t, EvKind::Store);
  e.writes = true;
  e.wval = maskToSize(a.value, a.size);
  const int low = coLowerBound(s, t, a.addr);
  EventId id = append(s, t, e);
  // Every coherence position after what the thread saw, newest first
  // (ExploreOrder::StaleFirst: oldest first), and the backward revisits.
  std::vector<int> ok;
  AccessScratch scratch;  // (the same for every candidate: computed once)
  for (int p = int(s.g.findLoc(a.addr)->co.size()); p > low && !stopped_; --p) {
    s.g.findLoc(a.addr)->co.insert(size_t(p), id);
    if (consistentAccess(s.g, id, &scratch)) ok.push_back(p);
    s.g.findLoc(a.addr)->co.erase(size_t(p));
  }
  if (opts_.exploreOrder == ExploreOrder::StaleFirst) std::reverse(ok.begin(), ok.end());
  // The coherence position ok[i] made on c (false: a use after free, reported).
  auto take = [&](State& c, uint32_t i) {
    c.g.findLoc(a.addr)->co.insert(size_t(ok[i]), id);
    return placed(c, t, id);
  };
  auto position = [&](uint32_t i, bool last) {
    State copy;
    if (!last) copy = s;
    State& c = last ? s : copy;
    if (take(c, i)) visit(c);
  };
  bool last = false;
  if (opts_.exploreOrder == ExploreOrder::RevisitsFirst) {
    // The revisits first (they copy s), then the positions; the last position
    // takes s over. (The positions are known before the revisits, so that
    // other workers can take them while this one revisits.)
    FrameScope frame(*this, FrameKind::Write, s, uint32_t(ok.size()), t, id, &ok);
    frame.f.pathBase = 1;  // (0: the backward revisits)
    {
      PathScope path(*this, 0);
      revisits(s, t, id);
    }
    for (uint32_t i = 0; !stopped_ && frame.begin(i, &last); ++i) {
      PathScope path(*this, frame.f.pathBase + i);
      position(i, last);
    }
    return false;
  }
  // The positions first, so that the execution under way runs on before the
  // exploration turns back to earlier reads; then the revisits, as one more
  // child (index ok.size()) when there is a read to revisit. The last child
  // takes s over: a position when there is none (no copy for a thread that
  // runs alone), else the revisits.
  std::vector<uint32_t> view;  // (id's porf view, when anyRevisit worked it out)
  const bool back = anyRevisit(s, id, view);
  if (ok.size() == 1 && !back) return take(s, 0);  // no branch point: visit goes on with s
  FrameScope frame(*this, FrameKind::Write, s, uint32_t(ok.size() + (back ? 1 : 0)), t, id, &ok);
  for (uint32_t i = 0; i < ok.size() && !stopped_ && frame.begin(i, &last); ++i) {
    PathScope path(*this, i);
    position(i, last);
  }
  if (back && !stopped_ && frame.begin(uint32_t(ok.size()), &last)) {
    PathScope path(*this, uint32_t(ok.size()));
    revisits(s, t, id, true, std::move(view));
  }
  return false;
}

bool Explorer::handleRmw(State& s, uint32_t t) {
  const Action a = s.ts[t]->pending();
  if (!prepareAccess(s, t, a)) return false;
  EvKind kind = a.kind == ActionKind::Rmw ? EvKind::Rmw
              : a.kind == ActionKind::Lock ? EvKind::Lock
              : a.kind == ActionKind::TryLock ? EvKind::TryLock : EvKind::Unlock;
  Event e = makeEvent(s, t, kind);
  e.reads = true;
  const int low = coLowerBound(s, t, a.addr);
  EventId id = append(s, t, e);
  std::vector<EventId> cands = candidates(s, a.addr, low);
  if (cands.size() == 1) return rmwCandidate(s, t, id, cands[0], true, true) == Taken::Completed;
  // One child per candidate; another worker may take the candidates this one
  // has not begun (runTask removes the write of the one begun here, if any).
  FrameScope frame(*this, FrameKind::RmwCandidate, s, uint32_t(cands.size()), t, id, &cands);
  bool last = false;
  for (uint32_t ci = 0; !stopped_ && frame.begin(ci, &last); ++ci) {
    PathScope path(*this, ci);
    if (rmwCandidate(s, t, id, cands[ci], last) != Taken::No) return false;
  }
  return false;
}

Explorer::Taken Explorer::rmwCandidate(State& s, uint32_t t, EventId id, EventId w, bool last, bool only) {
  const Action a = s.ts[t]->pending();
  const EvKind kind = s.g.ev(id).kind;
  Location* loc = s.g.findLoc(a.addr);
  Event& ev = s.g.mut(id);
  Value old = s.g.valueOf(*loc, w);
  // A lock that finds the mutex held blocks; reading a held value that is
  // not the newest one can only end in a blocked execution (the lock can
  // never be revisited: it was not added maximally). Only the newest write
  // is read when it holds the mutex; the unlock that frees it later
  // revisits the lock.
  if (kind == EvKind::Lock && old != 0 && w != loc->newest()) return Taken::No;
  bool writes = true;
  Value wv = 0, result = 0;
  switch (kind) {
    case EvKind::Rmw: wv = rmwResult(a.rmw, old, a.value, a.expected, a.size, &writes); result = old; break;
    case EvKind::Lock: writes = old == 0; wv = t + 1; break;
    case EvKind::TryLock: writes = old == 0; wv = t + 1; result = writes ? 0 : kEBusy; break;
    default: wv = 0; break;  // Unlock
  }
  s.g.setRf(id, w);
  ev.rval = old;
  ev.writes = false;
  ev.wval = maskToSize(wv, a.size);
  ev.result = result;
  // The read part alone must be allowed; the write part may still clash with
  // another RMW that read w — a backward revisit below can resolve that.
  AccessScratch scratch;  // (RC11: the same for both parts, computed once)
  auto consistentPart = [&] { return rc11On_ ? consistentAccess(s.g, id, &scratch) : consistentWith(s.g, id); };
  if (!consistentPart()) return Taken::No;
  ev.writes = writes;
  if (writes) loc->co.insert(size_t(Graph::coIndex(*loc, w) + 1), id);
  const bool allowed = !writes || consistentPart();
  const std::string err =
      allowed ? destroyedMutexUse(prog_, mutexOpName(kind), kind == EvKind::Rmw ? 0 : old, a.addr) : "";
  const bool notHolder = allowed && err.empty() && kind == EvKind::Unlock && !unlockMayRead(t, old);
  std::vector<uint32_t> view;  // (id's porf view, when mayRevisit worked it out)
  if (allowed && err.empty() && !notHolder && last && (!writes || !mayRevisit(s, t, id, &view))) {
    // The last candidate, and nothing of s is needed afterwards (no
    // backward revisit to make): it takes s over instead of a copy.
    if (only)  // no branch point at all: visit goes on with s
      return placed(s, t, id) ? Taken::Completed : Taken::Visited;
    PathScope path(*this, 0);
    if (placed(s, t, id)) visit(s);
    return Taken::Visited;
  }
  {
    // Child 0: this candidate; child 1: the backward revisits of its
    // write, which another worker may take meanwhile.
    std::optional<FrameScope> frame;
    bool lastPart = false;
    if (writes) {
      frame.emplace(*this, FrameKind::Revisits, s, 2u, t, id, nullptr);
      frame->begin(0, &lastPart);
    }
    if (allowed) {
      PathScope path(*this, 0);  // (an error here comes before this candidate's executions)
      if (!err.empty()) {
        reportError(s, t, ErrorKind::Memory, err, a.loc, false);
      } else if (notHolder) {
        reportError(s, t, ErrorKind::Memory,
                    "pthread_mutex_unlock of a mutex this thread does not hold (" + addressName(prog_, a.addr) + ")",
                    a.loc, false);
      } else {
        State c = s;
        if (placed(c, t, id)) visit(c);
      }
    }
    if (writes && !stopped_ && frame->begin(1, &lastPart)) {
      PathScope path(*this, 1);
      revisits(s, t, id, true, std::move(view));
    }
  }
  if (writes) {
    Location* l = s.g.findLoc(a.addr);
    l->co.erase(size_t(Graph::coIndex(*l, id)));
  }
  return Taken::No;
}

bool Explorer::mayRevisit(const State& s, uint32_t t, EventId w, std::vector<uint32_t>* viewOut) const {
  // Whether revisits(s, t, w) has a read to consider: a read of w's location
  // outside w's porf-prefix (never one of t's: those precede w).
  const Event& we = s.g.ev(w);
  auto anyFrom = [&](uint32_t u, uint32_t from) {
    const auto& evs = s.g.threads[u].events;
    return evs.findIf(from, evs.size(), [&](const Event& x, size_t i) {
      return revisitable(s.g, u, uint32_t(i), x, we);
    }) != evs.size();
  };
  bool any = false;
  for (uint32_t u = 0; u < s.g.threads.size() && !any; ++u) any = u != t && anyFrom(u, 0);
  if (!any) return false;
  std::vector<uint32_t> view = viewOf(s.g, w);
  bool found = false;
  for (uint32_t u = 0; u < s.g.threads.size() && !found; ++u) found = anyFrom(u, view[u]);
  if (viewOut) *viewOut = std::move(view);
  return found;
}

bool Explorer::maximallyAdded(const Graph& g, EventId e, EventId w, const std::vector<uint32_t>& view) const {
  // A write counts as added before a part of e stamped `at` when its write
  // part was added no later, or it is in w's porf-prefix (w itself is not).
  auto previous = [&](EventId x, uint32_t at) {
    if (x.isInit()) return true;
    if (x == w) return false;
    return g.writeStampOf(x) <= at || x.index < view[x.thread];
  };
  const Event& ev = g.ev(e);
  // A choice counts as added maximally with its first value (`expected`):
  // deleting one that took another value would reach the same graphs again
  // once re-added.
  if (ev.kind == EvKind::Choice) return ev.result == ev.expected;
  if (!ev.reads && !ev.writes) return true;
  const Location* loc = g.findLoc(ev.addr);
  if (ev.reads) {
    // The read part reads the co-latest write added before it.
    if (!previous(ev.rf, ev.stamp)) return false;
    EventId maxW = kInit;
    for (size_t i = loc->co.size(); i-- > 0;) {
      const EventId x = loc->co[i];
      if (x != e && previous(x, ev.stamp)) {
        maxW = x;
        break;
      }
    }
    if (maxW != ev.rf) return false;
  }
  if (ev.writes) {
    // The write part is co-latest among the writes added before it. For an
    // RMW added in one step this follows from the read part; for one whose
    // write was re-added by a backward revisit it is a condition of its own.
    int me = Graph::coIndex(*loc, e);
    for (size_t i = size_t(me + 1); i < loc->co.size(); ++i)
      if (previous(loc->co[i], ev.wstamp)) return false;
  }
  return true;
}

std::vector<EventId> Explorer::revisitCandidates(const Graph& g, EventId w, const std::vector<uint32_t>& view) const {
  // The reads of w's location outside w's porf-prefix that w may revisit.
  const Event& we = g.ev(w);
  std::vector<EventId> reads;
  for (uint32_t u = 0; u < g.threads.size(); ++u) {
    const auto& evs = g.threads[u].events;
    evs.forRange(view[u], evs.size(), [&](const Event& x, size_t i) {
      if (revisitable(g, u, uint32_t(i), x, we)) reads.push_back(EventId{u, uint32_t(i)});
    });
  }
  return reads;
}

std::vector<uint32_t> Explorer::viewOf(const Graph& g, EventId e) const {
  // (Self-checks ask for the clocks on graphs of every size.)
  std::vector<uint32_t> view = g.porfView(e, opts_.testing.checkOrders);
  if (opts_.testing.checkOrders && view != g.porfViewByWalk(e))
    throw std::logic_error("porf clocks: the kept clocks disagree with the walk");
  return view;
}

bool Explorer::anyRevisit(const State& s, EventId w, std::vector<uint32_t>& view) const {
  if (!mayRevisit(s, w.thread, w, &view)) return false;
  std::vector<uint32_t> keep;
  for (EventId r : revisitCandidates(s.g, w, view))
    if (revisitKeeps(s.g, w, r, view, keep)) return true;
  return false;
}

void Explorer::revisits(State& s, uint32_t t, EventId w, bool completeT, std::vector<uint32_t> view) {
  if (view.empty()) view = viewOf(s.g, w);
  // Candidate reads first: the loop below copies states.
  const std::vector<EventId> reads = revisitCandidates(s.g, w, view);
  FrameScope frame(*this, FrameKind::RevisitRead, s, uint32_t(reads.size()), t, w, &reads, completeT);
  bool last = false;
  for (uint32_t i = 0; !stopped_ && frame.begin(i, &last); ++i) {
    PathScope path(*this, i);
    revisitRead(s, t, w, reads[i], view, completeT);
  }
}

bool Explorer::revisitKeeps(const Graph& g, EventId w, EventId r, const std::vector<uint32_t>& view,
                            std::vector<uint32_t>& keep) const {
  const uint32_t nThreads = uint32_t(g.threads.size());
  keep.assign(nThreads, 0);
  const uint32_t sr = g.stampOf(r);
  // Kept: added no later than r, in w's porf-prefix, or w. Kept events form a
  // prefix of every thread.
  for (uint32_t u = 0; u < nThreads; ++u) {
    const auto& evs = g.threads[u].events;
    auto kept = [&](const Event& x, size_t i) {
      return x.stamp <= sr || i < view[u] || (u == w.thread && i == w.index);
    };
    const size_t n = evs.findIf(0, evs.size(), [&](const Event& x, size_t i) { return !kept(x, i); });
    if (evs.findIf(n, evs.size(), kept) != evs.size()) return false;
    keep[u] = uint32_t(n);
    if (settled(g, u, n)) return false;  // (settled events are never deleted)
  }
  auto keptIdx = [&](EventId x) { return x.isInit() || x.index < keep[x.thread]; };
  const bool rWrites = g.ev(r).writes;
  // Kept reads must keep their writes (and not read r, whose write changes).
  for (uint32_t u = 0; u < nThreads; ++u) {
    auto broken = [&](const Event& x, size_t i) {
      return (x.reads && EventId{u, uint32_t(i)} != r && (!keptIdx(x.rf) || (rWrites && x.rf == r))) ||
             (x.kind == EvKind::Join && keep[x.aux] != g.threads[x.aux].events.size());
    };
    if (g.threads[u].events.findIf(0, keep[u], broken) != keep[u]) return false;
  }
  // The deleted part (and r) must have been added maximally.
  if (!maximallyAdded(g, r, w, view)) return false;
  for (uint32_t u = 0; u < nThreads; ++u)
    for (uint32_t i = keep[u]; i < g.threads[u].events.size(); ++i)
      if (!maximallyAdded(g, EventId{u, i}, w, view)) return false;
  return true;
}

bool Explorer::keptRmwTwin(const Graph& g, EventId w, EventId r, const std::vector<uint32_t>& keep) const {
  const Event& we = g.ev(w);
  if (!we.reads) return false;
  const CoOrder& co = g.findLoc(we.addr)->co;
  return co.findIf(0, co.size(), [&](EventId x, size_t) {
    return x != w && x != r && x.index < keep[x.thread] && g.ev(x).reads && g.ev(x).rf == we.rf;
  }) != co.size();
}

// One read r of w's location made to read w (revisits): the graph keeps what
// was added before r, r's porf-prefix and w's, and w goes to every coherence
// position it can take.
void Explorer::revisitRead(State& s, uint32_t t, EventId w, EventId r, const std::vector<uint32_t>& view,
                           bool completeT) {
  const Addr addr = s.g.ev(w).addr;
  const uint32_t nThreads = uint32_t(s.g.threads.size());
  std::vector<uint32_t> keep;
  if (!revisitKeeps(s.g, w, r, view, keep)) return;
  const uint32_t sr = s.g.stampOf(r);
  auto keptIdx = [&](EventId x) { return x.isInit() || x.index < keep[x.thread]; };
  const bool rWrites = s.g.ev(r).writes;

  if (keptRmwTwin(s.g, w, r, keep)) return;

  // Build the revisited graph.
  // Events are deleted and a read changes its write: the preemption
  // bookkeeping keeps what was derived from events added before r only. It
  // is copied from s once a position is consistent (c and its copies leave
  // it empty).
  State c{s.g, s.ts, {}};
  for (uint32_t u = 0; u < nThreads; ++u) {
    ThreadInfo& th = c.g.threads[u];
    c.g.truncate(u, keep[u]);
    // (r's thread: the marks after r's result changed go too.)
    c.ts[u].keepMarks(u == r.thread ? std::min(keep[u], r.index) : keep[u]);
    if (u != 0 && th.alive && keep[th.parent] <= th.spawnIndex) {
      th.alive = false;
      c.ts[u].reset();
    }
  }
  for (Location& l : c.g.locs) {
    l.co.eraseIf([&](EventId x) { return !keptIdx(x) || x == w || (rWrites && x == r); });
  }
  Event& re = c.g.mut(r);
  Location* loc = c.g.findLoc(addr);
  const Value old = c.g.ev(w).wval;
  c.g.setRf(r, w);
  re.rval = old;
  bool rw = re.kind != EvKind::Load;
  switch (re.kind) {
    case EvKind::Load: re.result = old; rw = false; break;
    case EvKind::Rmw: re.wval = rmwResult(re.rmw, old, re.operand, re.expected, re.size, &rw); re.result = old; break;
    case EvKind::Lock: rw = old == 0; re.wval = r.thread + 1; re.result = 0; break;
    case EvKind::TryLock: rw = old == 0; re.wval = r.thread + 1; re.result = rw ? 0 : kEBusy; break;
    case EvKind::Unlock: rw = true; re.wval = 0; re.result = 0; break;
    default: break;
  }
  re.writes = rw;
  // A mutex operation that now finds the mutex destroyed is a memory error.
  const bool mutexOp = re.kind == EvKind::Lock || re.kind == EvKind::TryLock || re.kind == EvKind::Unlock;
  const std::string destroyed = mutexOp ? destroyedMutexUse(prog_, mutexOpName(re.kind), old, re.addr) : "";
  if (!destroyed.empty()) re.writes = rw = false;
  else if (re.kind == EvKind::Unlock && !unlockMayRead(r.thread, old)) return;  // (revisitCandidates leaves these out)
  // A lock that would now find its mutex held is removed: its thread waits
  // and locks afresh (lockWaits).
  if (unblockLocks_ && re.kind == EvKind::Lock && !rw && destroyed.empty()) c.g.truncate(r.thread, r.index);
  // r's write part carries a new value: it is added now, after everything
  // kept, and (below) revisits reads of its own like any new write.
  if (rw) re.wstamp = c.g.nextStamp++;
  const Event& we = c.g.ev(w);
  std::vector<int> positions;
  if (we.reads) {
    positions.push_back(Graph::coIndex(*loc, we.rf) + 1);  // RMW: right after what it read
  } else {
    for (int p = int(loc->co.size()); p >= 0; --p) positions.push_back(p);
  }
  for (size_t pi = 0; pi < positions.size(); ++pi) {
    const int p = positions[pi];
    // The last position takes c over (c is not used after the loop).
    State d = pi + 1 == positions.size() ? std::move(c) : c;
    Location* dl = d.g.findLoc(addr);
    dl->co.insert(size_t(p), w);
    if (rw) dl->co.insert(size_t(p) + 1, r);
    if (!consistentRevisit(d.g, w, r)) continue;
    if (boundOn_) d.pb.copyRevisited(s.pb, sr);
    if (settles_) settle(d.g, w, view);
    PathScope path(*this, uint32_t(pi));
    for (uint32_t u = 0; u < nThreads; ++u) {
      if (u == t || !d.g.threads[u].alive) continue;
      if (u == r.thread || keep[u] != s.g.threads[u].events.size()) {
        d.ts[u].replaced(replay(d.g, u, d.ts[u]));
        d.g.threads[u].enteringSection = false;  // (replay stops at an AtomicBegin after its last event)
        noteSpinner(d, u);
      }
    }
    if (!destroyed.empty()) {
      reportError(d, r.thread, ErrorKind::Memory, destroyed, d.g.ev(r).loc, false);
      if (stopped_) return;
      continue;
    }
    if (completeT) complete(d, t);
    // A spin whose last read w's porf-prefix now holds waits for good.
    if (pruneStaleWaits_)
      for (uint32_t u = 0; u < nThreads && !d.staleWait; ++u) d.staleWait = staleWait(d, u, true);
    // Two groups of children, in this order: r's own revisits (0) and d
    // itself (1), which another worker may take meanwhile.
    std::optional<FrameScope> pair;
    bool last = false;
    if (rw) {
      // The exploration invariant: every write, when it is added, gets the
      // chance to revisit the reads it could feed. A revisited RMW's write
      // is such a new write; without this, graphs where an RMW chain is
      // built against the order the RMWs were added are never reached
      // (store + N fetch_adds: 23 of 24 executions for N = 3).
      pair.emplace(*this, FrameKind::Visit, d, 2u, r.thread, r, nullptr);
      pair->begin(0, &last);
      PathScope first(*this, 0);
      revisits(d, r.thread, r, false);
      if (stopped_) return;
    }
    if (pair && !pair->begin(1, &last)) continue;  // another worker visits d
    PathScope then(*this, 1);
    visit(d);
    if (stopped_) return;
  }

}

void Explorer::recordExecution(const State& s, bool blocked) {
  if (!opts_.onExecution || !reportsHere()) return;
  ExecutionInfo info;
  info.graph = &s.g;
  info.blocked = blocked;
  if (opts_.preemptionBound >= 0) info.preemptionLowerBound = preemptions_.lowerBound(s.g);
  std::vector<std::string> lines;
  auto name = [](EventId x) {
    return x.isInit() ? std::string("init") : "T" + std::to_string(x.thread) + "." + std::to_string(x.index);
  };
  std::set<Addr> touched;
  for (uint32_t u = 0; u < s.g.threads.size(); ++u) {
    const ThreadInfo& th = s.g.threads[u];
    if (!th.alive) continue;
    for (uint32_t i = 0; i < th.events.size(); ++i) {
      const Event& e = th.events[i];
      if (e.reads) lines.push_back("rf " + name(EventId{u, i}) + " <- " + name(e.rf));
      if (e.kind == EvKind::Choice) lines.push_back("choice " + name(EventId{u, i}) + " = " + std::to_string(e.result));
      if (e.reads || e.writes) touched.insert(e.addr);
    }
  }
  for (const Location& l : s.g.locs) {
    if (!touched.count(l.addr)) continue;
    info.finalMemory.emplace_back(l.addr, l.co.empty() ? l.init : s.g.ev(l.co.back()).wval);
    if (l.co.empty()) continue;
    char buf[32];
    snprintf(buf, sizeof buf, "co 0x%llx", static_cast<unsigned long long>(l.addr));
    std::string line = buf;
    for (EventId x : l.co) line += " " + name(x);
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) info.traceKey += '\n';
    info.traceKey += lines[i];
  }
  if (!par_) {
    opts_.onExecution(info);
    return;
  }
  std::lock_guard<std::mutex> lock(par_->callbacks);
  opts_.onExecution(info);
}

void Explorer::noteLimit(const std::string& message, const SourceLoc& loc) {
  if (skipping_) return;
  std::string what = message + " at " + prog_.locString(loc);
  if (par_) {
    if (std::find(cur_.limits.begin(), cur_.limits.end(), what) == cur_.limits.end())
      cur_.limits.push_back(what);
    return;
  }
  if (res_.limitsHit.size() < 8 && std::find(res_.limitsHit.begin(), res_.limitsHit.end(), what) == res_.limitsHit.end())
    res_.limitsHit.push_back(what);
}

void Explorer::checkRobust(const State& s) {
  if (!opts_.robustness || !mm_.buffersStores() || hasWitness()) return;
  if (scChecker_.consistent(s.g)) return;
  Violation w;
  std::vector<OrderNode> order;
  if (!checker_.consistent(s.g, &order)) return;  // cannot happen: every graph explored is consistent
  w.trace = buildTrace(prog_, s.g, mm_, order);
  // Where to point: the first load that missed another thread's buffered
  // store to its address (a stale read); else the first load taken while its
  // own thread still had stores buffered; else (PSO, cycles of stores only)
  // the first flush that overtook an older store of its thread.
  const TraceStep* stale = nullptr;
  const TraceStep* reorderedLoad = nullptr;
  const TraceStep* reorderedFlush = nullptr;
  for (size_t i = 1; i < w.trace.size() && !stale; ++i) {
    const TraceStep& st = w.trace[i];
    const auto& before = w.trace[i - 1].buffers;
    if (st.thread >= before.size()) continue;
    const auto& own = before[st.thread];
    if (st.kind == StepKind::Flush) {
      if (!reorderedFlush && !own.empty() && own.front().addr != st.addr) reorderedFlush = &st;
      continue;
    }
    if (st.kind != StepKind::LoadMem && st.kind != StepKind::Rmw) continue;
    for (size_t u = 0; u < before.size() && !stale; ++u)
      for (const BufferEntry& e : before[u])
        if (u != st.thread && e.addr == st.addr) stale = &st;
    if (!reorderedLoad && !own.empty()) reorderedLoad = &st;
  }
  const TraceStep* at = stale ? stale : reorderedLoad ? reorderedLoad : reorderedFlush;
  std::string point = stale ? "stale read" : reorderedLoad ? "reordered load" : reorderedFlush ? "reordered flush" : "";
  if (!at && !w.trace.empty()) at = &w.trace.front();
  if (at) {
    w.loc = at->loc;
    w.thread = at->thread;
  }
  w.message = std::string("an execution ") + mm_.name() +
              " allows and SC does not (its reads-from and coherence order form a cycle under SC)";
  if (!res_.robustness) res_.robustness.emplace();
  res_.robustness->robust = false;
  res_.robustness->witness = std::move(w);
  res_.robustness->point = std::move(point);
  // The search went on past an error only to find this witness.
  if (opts_.stopAtFirstError && res_.hasHardError()) stopped_ = true;
}

void Explorer::finishRobustness() {
  RobustnessResult r = res_.robustness.value_or(RobustnessResult{});
  const char* m = mm_.name();
  if (!mm_.hasStoreBuffers()) {
    r.message = "robust: SC is the reference model";
  } else if (!mm_.buffersStores()) {
    r.complete = false;
    r.message = "no non-SC execution with store buffers of 0 entries (that is SC)";
  } else if (!r.robust) {
    r.message = std::string("not robust: ") + m + " allows an execution SC does not";
  } else {
    const bool bufferCut = mm_.boundCuts();
    r.complete = !timedOut_ && res_.cut == 0 && (opts_.preemptionBound < 0 || res_.boundDropped) && !bufferCut &&
                 !res_.nondetLimited;
    r.message = r.complete ? std::string("robust: every ") + m + " execution is an SC execution"
                           : std::string("no non-SC execution found, but ") +
                                 (timedOut_ ? "the time limit stopped the search"
                                  : res_.cut ? "limits cut some executions"
                                  : opts_.preemptionBound >= 0 && !res_.boundDropped ? "a preemption bound was set"
                                  : bufferCut                  ? "store buffers were bounded"
                                                               : nondetRangeText(opts_.limits));
  }
  res_.robustness = std::move(r);
}

void Explorer::checkRaces(const State& s) {
  if (!raceCheck_) return;
  raceScratch_.clear();
  // A pair of source locations already reported is what the loop below skips:
  // when every unordered pair of the graph is one, find() ends early.
  knownRaces_.clear();
  for (const Violation& o : res_.violations)
    if (isRace(o.kind) && o.other) knownRaces_.emplace_back(o.loc, o.other->loc);
  races_.find(s.g, raceScratch_, knownRaces_);
  // A data race is a property of the C program, not of the hardware model:
  // under TSO and PSO only the graphs SC allows too (every one of them is
  // explored there as well) count, so every model reports the races SC does
  // (C11's definition over sequentially consistent executions). Under RC11
  // every consistent graph counts, judged by RC11's own happens-before
  // (races_ asks rc11_), and a race is undefined behaviour there (an error).
  if (!raceScratch_.empty() && !rc11On_ && mm_.model != Model::SC && !scChecker_.consistent(s.g)) return;
  for (const Race& r : raceScratch_) {
    const Event& a = s.g.ev(r.first);
    const Event& b = s.g.ev(r.second);
    Violation v;
    v.kind = rc11On_ ? ErrorKind::DataRace : ErrorKind::Race;
    v.warning = !rc11On_;
    v.thread = r.second.thread;
    v.loc = b.loc;
    v.other = Violation::Access{r.first.thread, a.loc};
    // Known already: skip it before its message and trace are built.
    if (std::any_of(res_.violations.begin(), res_.violations.end(),
                    [&](const Violation& o) { return sameError(o, v); }))
      continue;
    auto what = [&](const Event& e) {
      const char* verb = e.kind == EvKind::Store ? "writes" : e.kind == EvKind::Load ? "reads" : "updates";
      return std::string(verb) + (races_.isPlain(e) ? "" : " atomically");
    };
    v.message = "data race on " + addressName(prog_, a.addr) + ": " + threadName(r.first.thread) + " " + what(a) +
                " it (" + prog_.locString(a.loc) + ") and " + threadName(r.second.thread) + " " + what(b) +
                " it, with nothing ordering the two";
    v.trace = traceOf(s, -1);
    // The trace ends with the later of the two accesses: what follows says
    // nothing about the race (and through a very long execution it would be
    // most of a long trace).
    size_t end = 0;
    for (const EventId x : {r.first, r.second}) {
      const auto it = std::find_if(v.trace.begin(), v.trace.end(), [&](const TraceStep& st) {
        return st.thread == x.thread && st.event == x.index;
      });
      end = std::max(end, it == v.trace.end() ? v.trace.size() : size_t(it - v.trace.begin()) + 1);
    }
    v.trace.resize(end);
    v.preemptions = opts_.preemptionBound >= 0 ? preemptions_.lowerBound(s.g) : -1;
    v.aboveBound = opts_.preemptionBound >= 0 && v.preemptions > opts_.preemptionBound;
    const bool stop = !v.warning && !v.aboveBound && opts_.stopAtFirstError;
    if (!addViolation(std::move(v))) continue;
    if (stop) {  // (RC11: an error like an assertion's)
      stopHere();
      return;
    }
    const auto races = std::count_if(res_.violations.begin(), res_.violations.end(),
                                     [](const Violation& o) { return isRace(o.kind); });
    if (size_t(races) >= CheckResult::kMaxRaces) {
      raceCheck_ = false;  // enough to act on
      return;
    }
  }
}

std::vector<TraceStep> Explorer::traceOf(const State& s, int focus) {
  std::vector<OrderNode> order;
  if (!s.g.atomicSections) {  // (RC11 refuses atomic sections)
    const bool ok = rc11On_ ? rc11_.consistent(s.g, &order) : checker_.consistent(s.g, &order);
    if (!ok) order.clear();
    return buildTrace(prog_, s.g, mm_, order);
  }
  if (sectionsHold(s, -1, nullptr, &order)) return buildTrace(prog_, s.g, mm_, order);
  Graph part;
  if (!sectionsHold(s, focus, &part, &order)) order.clear();
  return buildTrace(prog_, focus >= 0 ? part : s.g, mm_, order);
}

bool Explorer::sectionsHold(const State& s, int focus, Graph* part, std::vector<OrderNode>* order) {
  if (!s.g.atomicSections) return true;
  const uint32_t n = uint32_t(s.g.threads.size());
  std::vector<bool> open(n, false);
  auto inside = [&](uint32_t u) { return sectionOwnerIs(s, u); };
  if (focus < 0 || s.g.threads[uint32_t(focus)].events.empty()) {
    for (uint32_t u = 0; u < n; ++u) open[u] = inside(u);
    return checker_.sectionsHold(s.g, open, order);
  }
  // The porf-prefix of focus's events: the threads outside it may not have
  // run that far when focus met its end.
  const uint32_t f = uint32_t(focus);
  std::vector<uint32_t> view = viewOf(s.g, EventId{f, uint32_t(s.g.threads[f].events.size() - 1)});
  view.resize(n, 0);
  // A thread kept up to inside a section runs the section to its end first
  // (with what that needs), as far as the graph has it.
  for (bool grew = true; grew;) {
    grew = false;
    for (uint32_t u = 0; u < n; ++u) {
      const auto& evs = s.g.threads[u].events;
      uint32_t k = view[u];
      if (k == 0 || !(evs[k - 1].section & kInSection)) continue;
      while (k < evs.size() && (evs[k].section & kInSection) && !(evs[k].section & kSectionStart)) ++k;
      if (k == view[u]) continue;
      const std::vector<uint32_t> more = viewOf(s.g, EventId{u, k - 1});
      for (uint32_t v = 0; v < n && v < more.size(); ++v) view[v] = std::max(view[v], more[v]);
      grew = true;
    }
  }
  Graph h = s.g;
  for (uint32_t u = 0; u < n; ++u) {
    const auto& evs = s.g.threads[u].events;
    const uint32_t k = view[u];
    h.truncate(u, k);
    // Inside a section after its k events: its next event continues the
    // section of its k-th, or it is inside one now.
    if (k > 0 && (evs[k - 1].section & kInSection))
      open[u] = k < evs.size() ? (evs[k].section & kInSection) && !(evs[k].section & kSectionStart) : inside(u);
  }
  for (Location& l : h.locs) l.co.eraseIf([&](EventId x) { return x.index >= h.threads[x.thread].events.size(); });
  if (!checker_.sectionsHold(h, open, order)) return false;
  if (part) *part = std::move(h);
  return true;
}

void Explorer::finishExecution(State& s) {
  if (s.g.atomicSections || sections_) {
    // A thread stuck inside an atomic section ends its execution there, with
    // what it read (each such thread: the one that got there first is
    // another execution's); else the graph must keep the sections whole.
    bool inside = false;
    for (uint32_t u = 0; u < s.g.threads.size() && !stopped_; ++u)
      if (sectionOwnerIs(s, u)) {
        inside = true;
        endInSection(s, u);
      }
    if (inside || !sectionsHold(s, -1)) return;
  }
  checkRaces(s);
  checkRobust(s);
  bool allDone = true;
  for (uint32_t u = 0; u < s.g.threads.size(); ++u) {
    const ThreadInfo& th = s.g.threads[u];
    if (!th.alive) continue;
    if (th.events.empty() || th.events.back().kind != EvKind::Exit) allDone = false;
  }
  if (allDone) {
    ++res_.executions;
    // Slack executions as far as the bookkeeping already knows (no extra work).
    if (boundOn_ && s.pb.exact && preemptions_.update(s.g, s.pb) > opts_.preemptionBound)
      ++res_.slackExecutions;
    recordExecution(s, false);
    return;
  }
  for (uint32_t u = 0; u < s.g.threads.size(); ++u) {
    if (!s.g.threads[u].alive || !s.ts[u]) continue;
    const Action& p = s.ts[u]->pending();
    if (p.kind == ActionKind::Limit && s.ts[u]->stoppedByTime()) {
      // The thread's own run met the deadline (visits read the clock only on
      // every 16th): the search ends here, as at a visit that read it.
      timedOut_ = stopped_ = true;
      return;
    }
    if (p.kind == ActionKind::Limit) {
      ++res_.cut;
      noteLimit(p.message, p.loc);
      return;
    }
  }
  // Every live thread waits. A wait on a stale value is an artefact of this
  // execution (blocked); a wait on the newest value lasts forever: a deadlock
  // when some thread waits on a mutex or a condition variable, else (threads
  // spin, the rest wait to join) non-termination.
  auto readsNewest = [&](const Event& e) {
    const Location* l = s.g.findLoc(e.addr);
    return l && l->newest() == e.rf;
  };
  bool stale = false;
  std::vector<Waiter> waiters;
  for (uint32_t u = 0; u < s.g.threads.size() && !stale; ++u) {
    const ThreadInfo& th = s.g.threads[u];
    if (!th.alive || (!th.events.empty() && th.events.back().kind == EvKind::Exit)) continue;
    const Action& p = s.ts[u]->pending();
    Waiter w;
    if (!th.events.empty() && th.events.back().kind == EvKind::Lock && !th.events.back().writes) {
      const Event& l = th.events.back();
      if (!readsNewest(l)) stale = true;
      w.thread = u;
      w.kind = Waiter::Kind::Mutex;
      w.mutex = l.addr;
      w.loc = l.loc;
    } else {
      // A spin lasts forever only if the idle iteration's reads (the
      // thread's last n reads) all saw the newest value.
      auto readsStale = [&](uint32_t n) { return idleReadsStale(s.g, u, n); };
      if (!waiterAt(u, p, readsStale, w, &stale)) continue;
    }
    waiters.push_back(std::move(w));
  }
  const ExecutionEnd end = classifyEnd(prog_, waiters, stale, programEnded(s.g));
  if (end.kind == ExecutionEnd::Kind::Blocked) {
    ++res_.blocked;
    recordExecution(s, true);
    return;
  }
  if (end.kind == ExecutionEnd::Kind::Complete) {  // the program ended: the waiting threads stop
    ++res_.executions;
    recordExecution(s, false);
    return;
  }
  reportError(s, end.thread, end.error, end.message, end.loc, false);
}

void Explorer::reportError(State& s, uint32_t t, ErrorKind kind, const std::string& msg, const SourceLoc& loc,
                           bool pendingIsError) {
  if (skipping_) return;  // (another shard's part)
  // With a preemption bound, a violation met only in a slack execution (its
  // preemption lower bound exceeds the bound) is kept but does not stop the
  // search: one within the bound may still come and replaces it.
  const int focus = int(t);
  if (!sectionsHold(s, focus)) return;  // no execution reaches the error: a section's steps are apart
  int lb = opts_.preemptionBound >= 0 ? preemptions_.lowerBound(s.g) : -1;
  const bool above = opts_.preemptionBound >= 0 && lb > opts_.preemptionBound;
  // Deadlocks and non-termination end their execution but not the search:
  // an assertion or memory error may still be found. The erroneous execution
  // was explored too (never "violation after 0 executions").
  const bool hang = isHang(kind);
  if (!hang) checkRaces(s);  // (a hang comes from finishExecution, which looked already)
  ++res_.executions;
  if (hang && opts_.deadlocks == DeadlockMode::Ignore) return;
  const bool hadWitness = hasWitness();
  checkRobust(s);
  const bool newWitness = !hadWitness && hasWitness();
  const bool awaitWitness = opts_.robustness && mm_.buffersStores() && !hasWitness();
  if (opts_.stopAtFirstError && !above && !awaitWitness && !hang) stopHere();
  if (std::any_of(res_.violations.begin(), res_.violations.end(), [&](const Violation& o) {
        return o.kind == kind && !(o.aboveBound && !above);
      }))
    return;
  Violation v;
  v.preemptions = lb;
  v.aboveBound = above;
  v.kind = kind;
  v.message = msg;
  v.thread = t;
  v.loc = loc;
  v.warning = hang && opts_.deadlocks == DeadlockMode::Warning;
  v.trace = traceOf(s, focus);
  auto addStep = [&](uint32_t thread, StepKind k, const SourceLoc& l, const std::string& note) {
    TraceStep st;
    st.step = uint32_t(v.trace.size() + 1);
    st.thread = thread;
    st.kind = k;
    st.loc = l;
    st.note = note;
    st.buffers = v.trace.empty() ? std::vector<std::vector<BufferEntry>>(s.g.threads.size()) : v.trace.back().buffers;
    v.trace.push_back(std::move(st));
  };
  if (hang) {
    for (uint32_t u = 0; u < s.g.threads.size(); ++u) {
      const ThreadInfo& th = s.g.threads[u];
      if (!th.alive || (!th.events.empty() && th.events.back().kind == EvKind::Exit) || !s.ts[u]) continue;
      SourceLoc l = s.ts[u]->pending().loc;
      if (!th.events.empty() && th.events.back().kind == EvKind::Lock && !th.events.back().writes)
        l = th.events.back().loc;
      addStep(u, StepKind::Blocked, l, "blocked");
    }
  }
  addStep(t, StepKind::Error, loc, msg);
  (void)pendingIsError;
  addViolation(std::move(v));
  if (newWitness) witnessKind_ = kind;
  else if (witnessKind_ == kind) witnessKind_ = ErrorKind::None;  // replaced: not the witness's execution
}

}  // namespace tsocheck

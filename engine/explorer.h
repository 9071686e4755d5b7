// Optimal exploration of execution graphs (TruSt-style, Kokologiannakis et al.
// POPL'22, as recalled by Buster, TACAS 2023): events are added one at a time from the
// leftmost thread that can move; a read tries every write it could read from,
// a write tries every coherence position and then revisits earlier reads of
// its location, deleting what was added after the read — but only when the
// deleted part was itself added "maximally", which makes every complete graph
// (= Shasha–Snir trace) reachable in exactly one way. Memory use: one state
// per branch point on the recursion (a step with one choice goes on in
// visit's loop), the states sharing what they do not change (copy on write:
// cow_vector.h, SharedThread); nothing grows with the number of executions
// explored.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/consistency.h"
#include "engine/graph.h"
#include "engine/interp.h"
#include "engine/preemption.h"
#include "engine/races.h"
#include "engine/rc11.h"
#include "engine/spawn_ids.h"

namespace tsocheck {

// Parallel exploration (CheckOptions::jobs > 1): engine/work_sharing.h.
struct ParallelShared;

class Explorer {
 public:
  Explorer(const Program& prog, const CheckOptions& opts);
  CheckResult run();

 private:
  // A thread's interpreter state, shared by the copies of a State until one
  // of them runs the thread (copy on write: most threads do not move between
  // two branch points). Copies stay on one worker: `detach` before a State
  // goes to another.
  //
  // Marks: snapshots of the state after every kMarkEvery-th event of the
  // thread, newest first, in a list the copies share. A backward revisit
  // that deletes a thread's later events (or changes what one read) replays
  // the thread from its latest mark whose events all stayed, instead of
  // from its start (replay). A mark costs a copy of the state at the
  // thread's next step; marking only at branch points (where the state is
  // copied anyway) saved less (the last branch then copies too).
  struct Mark {
    uint32_t events;  // the state after this many events
    std::shared_ptr<const ThreadState> state;
    std::shared_ptr<const Mark> older;
  };
  static constexpr uint32_t kMarkEvery = 8;
  class SharedThread {
   public:
    explicit operator bool() const { return bool(p_); }
    const ThreadState& operator*() const { return *p_; }
    const ThreadState* operator->() const { return p_.get(); }
    ThreadState& mut() {
      if (p_.use_count() != 1) p_ = std::make_shared<ThreadState>(*p_);
      return *p_;
    }
    // A thread that starts (no marks).
    template <class... A>
    void start(A&&... a) {
      p_ = std::make_shared<ThreadState>(std::forward<A>(a)...);
      marks_.reset();
    }
    // The state replay rebuilt (the marks stay: the caller kept the valid ones).
    void replaced(ThreadState&& ts) { p_ = std::make_shared<ThreadState>(std::move(ts)); }
    void reset() {
      p_.reset();
      marks_.reset();
    }
    void detach() {
      if (p_) p_ = std::make_shared<ThreadState>(*p_);
      marks_.reset();  // (only a shortcut: a worker keeps its own)
    }
    // The current state is the one after `events` events.
    void mark(uint32_t events) { marks_ = std::make_shared<const Mark>(Mark{events, p_, marks_}); }
    // Forgets the marks after more than n events (later events changed).
    void keepMarks(uint32_t n) {
      while (marks_ && marks_->events > n) marks_ = marks_->older;
    }
    const Mark* latestMark() const { return marks_.get(); }

   private:
    std::shared_ptr<ThreadState> p_;
    std::shared_ptr<const Mark> marks_;
  };
  struct State {
    Graph g;
    std::vector<SharedThread> ts;  // per thread id; empty when not alive
    PreemptionState pb;  // preemption bookkeeping (only with a preemption bound)
    bool staleWait = false;  // a thread's spin waits on a stale value (staleWait below)
    // Threads that have stopped on an await in this state or one it was made
    // from (bit 63: one of the threads from 63 on); freezesSpin looks at no others.
    uint64_t spinners = 0;
    // Storage of its own (before it goes to another worker).
    void detach() {
      g.detach();
      for (SharedThread& t : ts) t.detach();
    }
  };

  void visit(State& s);
  int pickThread(const State& s) const;
  // Atomic sections (Op::AtomicBegin/AtomicEnd). The exploration treats the
  // sections' events as any others (consistency.h "Atomic sections": the
  // graphs on the way to an execution may have sections apart; a backward
  // revisit of a read inside one deletes the section's later events and
  // leaves the thread to run them again). An execution counts, and an error
  // is reported, only when its graph keeps each section's steps together
  // (sectionsHold). Whether thread t is inside a section (and not ended).
  bool sectionOwnerIs(const State& s, uint32_t t) const;
  // Thread u stopped inside a section: nothing else could run, so the
  // execution ends there (hangs.h sectionEnd), with the porf-prefix of u's
  // events (sectionsHold with focus u).
  void endInSection(State& s, uint32_t u);
  bool sections_ = false;  // the program has atomic sections
  // Whether thread t can move now (Waiting: its lock waits for its mutex).
  enum class Moves : uint8_t { No, Yes, Waiting };
  Moves canMove(const State& s, uint32_t t) const;
  // The event w of thread t, just made (a write with its coherence
  // position), is complete in c: its result goes to t. False: c is not to be
  // visited (a use after free, reported; or freezesSpin).
  bool placed(State& c, uint32_t t, EventId w);
  // Frozen spins (with stale waits). Whether the plain store w of thread t,
  // just given its coherence position, makes a stopped spin wait for good:
  // the last read r of the idle iteration of a thread u stopped on an
  // await, of w's location, not settled, reads a write that w follows in
  // coherence (r turned stale after u stopped), and
  //  (1) every event added since r is t's (or u's own), and every thread
  //      but u and t is unable to move (ended, stopped on an await or a
  //      limit, waiting to join or for a lock that read a held value);
  //  (2) w may revisit r deleting nothing (revisitKeeps: r added maximally;
  //      t's events since r precede w).
  // Then every event added from here on has w in its porf-prefix: t's
  // follow w; another thread moves again only through an event that sees
  // w (a join of an ended thread, a spin's read revisited by a write that
  // sees w), and a revisit never takes it back to an unseen state, since a
  // revisit deletes only events stamped after the revisited read, which
  // must come after r (below) and so after every other thread's events.
  // So no later write may revisit or delete r: w, co-after what r reads,
  // is in its prefix, so r was not added maximally for it (maximallyAdded);
  // nor an earlier read of u (that deletes r). The graph can only end
  // with u blocked: it is left (counted in CheckResult::staleWaits), like a
  // stale wait. The graph in which w revisits r is (2)'s, explored as w's
  // backward revisit: the same events, r reading w — what the other
  // threads do in this one they also do there (the stale-wait argument).
  // Without (1) a later write that did not see w, from a third thread, could
  // still revisit r, so the graph stays (explorer_test "a spin made stale
  // after it stopped"). Only plain stores: an RMW's read part may still be
  // revisited, which changes what it writes. This leaves the blocked
  // executions GenMC leaves on Peterson(x4) (bench/RESULTS.md, "Blocked
  // executions against GenMC").
  bool freezesSpin(const State& c, uint32_t t, EventId w) const;
  bool freezeSpins_ = false;  // stale waits pruned and the program has awaits
  void noteSpinner(State& s, uint32_t u) const;  // s.spinners gets u if it stopped on an await
  // (view: w's porf view, when it was worked out: revisits takes it.)
  bool mayRevisit(const State& s, uint32_t t, EventId w, std::vector<uint32_t>* view = nullptr) const;
  void finishExecution(State& s);
  void noteLimit(const std::string& message, const SourceLoc& loc);
  // Validates a memory access (address, size) and creates its location; false
  // when an error was reported instead.
  bool prepareAccess(State& s, uint32_t t, const Action& a);
  int coLowerBound(const State& s, uint32_t t, Addr a) const;
  // The co-latest write that access e (a load, store or RMW) must read or
  // follow by what other threads in its porf-prefix (before its rf) read or
  // wrote: a load reads it or a later write, a store goes after it (kInit:
  // none). A write, not a co index: the index moves with e's own position.
  EventId viewCoBound(const Graph& g, EventId e) const;
  mutable std::vector<uint32_t> walkView_;  // viewCoBound's scratch
  // Whether e's candidate is stale for that bound: a load's rf co-before it,
  // a store (or a write part) not co-after it.
  static bool belowView(const Graph& g, EventId e, EventId bound);
  // What the candidates of one new access (load, store, RMW or mutex
  // operation) share, worked out at the first candidate and kept for the
  // others.
  struct AccessScratch {
    std::optional<EventId> viewBound;             // SC, TSO, PSO: viewCoBound
    std::optional<Rc11Checker::Extension> rc11;  // RC11: Rc11Checker::extension
  };
  // A new access's candidate (the newest event e of its thread): the
  // kept order, then that bound, then a sort (RC11: the checker's extension
  // test, then a check from scratch where it cannot decide).
  bool consistentAccess(Graph& g, EventId e, AccessScratch* scratch);
  std::vector<EventId> candidates(const State& s, Addr a, int low) const;
  // Events without a choice (false: an error ended the execution), and a
  // nondeterministic choice (one branch per value).
  void addSpawn(State& s, uint32_t t, const Action& a);
  bool addJoin(State& s, uint32_t t, const Action& a);
  bool addFree(State& s, uint32_t t, const Action& a);
  bool addBlockSize(State& s, uint32_t t, const Action& a);
  // The live malloc block that starts at a.addr, or null once an error
  // ("CALL of a pointer that malloc did not return", or FREED address END) is reported.
  const HeapBlock* mallocBlock(State& s, uint32_t t, const Action& a, const char* call, const char* freedText,
                               const char* freedEnd);
  void handleChoice(State& s, uint32_t t, const Action& a);
  // Each returns true when the access had one choice only: it is made on s
  // and completed, and visit's loop goes on with s (no recursion, no branch
  // point: deep executions of single-choice steps use no stack per step).
  bool handleRead(State& s, uint32_t t);
  bool handleWrite(State& s, uint32_t t);
  bool handleRmw(State& s, uint32_t t);
  // One write w for the RMW (or lock, trylock, unlock) `id` of thread t to
  // read from; `last`: nothing of s is needed afterwards; `only`: it is the
  // one candidate (no branch point around it). Taken::Visited: s was taken
  // over and visited; Taken::Completed (only with `only`): the candidate is
  // made on s, for visit's loop to go on with.
  enum class Taken : uint8_t { No, Visited, Completed };
  Taken rmwCandidate(State& s, uint32_t t, EventId id, EventId w, bool last, bool only = false);
  // Backward revisits by the write w of thread t: every read of w's location
  // outside w's porf-prefix may be made to read w. `completeT`: deliver w's
  // result to thread t in each revisited state (false when t already has it:
  // the re-added write of a revisited RMW). `view`: w's porf view when the
  // caller has it (mayRevisit, anyRevisit on the same graph), else worked out.
  void revisits(State& s, uint32_t t, EventId w, bool completeT = true, std::vector<uint32_t> view = {});
  // Waiting locks (programs with pthread_mutex_lock; also under a preemption bound;
  // GenMC treats lock reads that would block the same way). Plain TruSt adds
  // a lock that finds its mutex held as a lock that reads the held value;
  // the unlock later revisits it, but the branch where it does not is kept
  // too (a revisit deleting the lock may need it), and every execution on
  // that branch that does not delete the lock ends blocked — most of the
  // executions of a mutex program (the 3-thread mutex indexer: 55,861
  // blocked for 34,650 complete). Instead:
  //  * a thread whose lock would find its mutex held (the mutex's newest
  //    write holds it) is not run while another thread can move; it locks
  //    once the mutex is free. (When no thread can move, it locks anyway:
  //    the lock reads the held value and the execution ends blocked or
  //    deadlocked; its other values still branch.) Which thread runs next
  //    is TruSt's free choice, so this alone changes no execution;
  //  * a backward revisit that would make a lock read a held value removes
  //    the lock: its thread waits and locks afresh when the mutex is free;
  //  * the re-made lock comes later than the one it replaces, so it could be
  //    deleted by revisits the blocked lock would have refused (the blocked
  //    lock read the revisiting write, added after it: not added maximally),
  //    reaching executions twice, and two threads' locks could take each
  //    other out without end. TruSt keeps the porf-prefix of a revisiting
  //    write w for good: a later revisit that deleted part of it would delete
  //    w, which the revisited read (kept, or deleted only if added
  //    maximally, which it is not while it reads w) still reads. That is
  //    made explicit: after a backward revisit the events of w's porf-prefix
  //    and w are settled (ThreadInfo::settled), never revisited or deleted
  //    again.
  // The differential tests check the executions against the naive explorer
  // and against plain TruSt (`unblockLocks` off) on the mutex programs.
  // Under a preemption bound events are settled too (`settles_`), whatever
  // the program: the slack counts the threads with unsettled events
  // (preemption.h preemptionSlack); and with stale waits (a spin whose last
  // read is settled waits for good). Without waiting locks this prunes no
  // revisit TruSt would make (the argument above): with the slack N−2 alone,
  // ttas(5), treiber(3) and the two-lock queue explore and prune the same
  // counts with and without it (SC/TSO/PSO, bounds 0-1).
  bool lockWaits(const State& s, const Action& a) const;
  bool settled(const Graph& g, uint32_t u, uint32_t i) const { return settles_ && i < g.threads[u].settled; }
  // Whether event x, event i of thread u, is a read that the write w may
  // revisit: of w's location, not settled, and no unlock that could not read
  // w (unlockMayRead; revisitRead would drop it). mayRevisit and
  // revisitCandidates ask it.
  bool revisitable(const Graph& g, uint32_t u, uint32_t i, const Event& x, const Event& w) const {
    return x.reads && x.addr == w.addr && !settled(g, u, i) &&
           (x.kind != EvKind::Unlock || unlockMayRead(u, w.wval));
  }
  // Whether thread u's unlock may read a write of v: its own lock's value
  // (u + 1) or a destroyed mutex (an error to report). Any other value is
  // no outcome for a holder, so such a write never revisits an unlock.
  static bool unlockMayRead(uint32_t u, Value v) { return v == u + 1 || v == kMutexDestroyed; }
  void settle(Graph& g, EventId w, const std::vector<uint32_t>& view) const;
  bool unblockLocks_ = false;
  bool settles_ = false;  // ThreadInfo::settled kept and honoured: waiting locks, a preemption bound or stale waits
  // Stale waits (CheckOptions::Testing::pruneStaleWaits). A thread whose spin-loop
  // iteration turned out idle stops (ActionKind::Blocked, an await). When the
  // last read r of that iteration read a write that another thread's write
  // follows in coherence, the thread can never go on in any graph the
  // exploration reaches from here: r was not added maximally (that other
  // write was added before r — since r was added or revisited only its own
  // thread moved, and a write in the revisiting write's porf-prefix cannot
  // follow it in coherence — and stays in every graph that keeps r), so no
  // backward revisit deletes r or changes what it reads (revisitKeeps asks
  // maximallyAdded of both), and r cannot read the newest write again; nor
  // can the iteration's earlier reads change: a revisit of one deletes r.
  // (A stale read before the last one is not enough: a later read of the
  // iteration may still be revisited and the re-run may leave the loop with
  // the stale value — a behaviour no other graph has; explorer_test's "a
  // stale read before the last one".) The same holds when r is settled (in
  // the porf-prefix of an earlier revisiting write, GenMC's "not
  // revisitable"): it is never revisited or deleted again, nor are the
  // thread's earlier events; events are settled whenever stale waits are
  // pruned (`settles_`), and after a backward revisit every thread is asked
  // (a spin whose last read the revisiting write's prefix now holds).
  // Every execution through the graph ends blocked — also when the program
  // ends first (classifyEnd: a stale waiter makes it blocked) — so the graph
  // is left (State::staleWait, counted in CheckResult::staleWaits). What the
  // other threads do there (an error, a cut, a race) they also do in a graph
  // the exploration keeps: r read nothing another thread needs, so the same
  // graph with r reading the co-latest write is consistent (r placed after
  // that write), with the other threads' events unchanged — argued, not
  // proven: the differential tests and the soak compare the complete
  // executions, verdicts, kinds of violation and cuts with the option off
  // (staleWaitDifferential). Under a preemption bound too: complete
  // executions never pass through such a graph, and a run of the graph with
  // r left out and then r and whatever its thread does next appended at the
  // end needs no more preemptions (switching to a thread after the last step
  // of the others preempts nobody), so what the other threads do is still
  // met within the bound. Not with the robustness check (a blocked graph can
  // be its witness).
  bool pruneStaleWaits_ = false;
  // Whether a write of another thread than u follows in coherence the write
  // that read e reads from: a re-run of u's idle iteration may read another
  // value. (u's own later writes — the write part of an RMW, lock or unlock
  // of its idle iteration, which writes back what was there, or the unlock a
  // cond_wait loop does before it stops — do not change what it reads.)
  static bool otherWriteAfter(const Graph& g, const Event& e, uint32_t u);
  // Whether one of thread u's last n reads (its idle iteration's) has
  // another thread's write after it in coherence: the spin may still read
  // another value (finishExecution's waiterAt: then the end is no hang).
  static bool idleReadsStale(const Graph& g, uint32_t u, uint32_t n);
  // Thread t's spin stopped on an idle iteration: whether the iteration's
  // last read is settled or (unless `settledOnly`: asked when t has just
  // stopped, while r is the newest event of all) stale (see above).
  bool staleWait(const State& s, uint32_t t, bool settledOnly = false) const;
  // The same decided before thread t's new read r is given a stale write w
  // (one that another thread's write follows in coherence): whether t,
  // given w's value, stops at once on a spin's await. Then staleWait would
  // leave the graph as soon as it is built, so the candidate is dropped
  // before its consistency check and its copy of the state
  // (CheckResult::staleReads; asked only of loads that may reach an await
  // with nothing visible in between: awaitLoads_, ir.h loadsBeforeAwaits).
  // Not for heap reads (a use after free is reported when the read is
  // taken). Asked whatever the consistency checker's mode (the counts do
  // not depend on it).
  bool staleReadStops(const State& s, uint32_t t, EventId r, EventId w) const;
  // The co index of l's newest write by another thread than t (-1: none);
  // a read of a write co-before it is stale (otherWriteAfter).
  static int newestOtherWrite(const Location& l, uint32_t t);
  std::vector<std::vector<uint8_t>> awaitLoads_;
  // The reads revisits(s, t, w) considers (view: w's porf-prefix).
  std::vector<EventId> revisitCandidates(const Graph& g, EventId w, const std::vector<uint32_t>& view) const;
  // Whether w may revisit r, and the events of each thread the revisited
  // graph keeps (a prefix of each); anyRevisit: whether w has a read to revisit.
  bool revisitKeeps(const Graph& g, EventId w, EventId r, const std::vector<uint32_t>& view,
                    std::vector<uint32_t>& keep) const;
  bool anyRevisit(const State& s, EventId w, std::vector<uint32_t>& view) const;
  // g.porfView(e); with CheckOptions::Testing::checkOrders also by the walk, and a
  // mismatch throws.
  std::vector<uint32_t> viewOf(const Graph& g, EventId e) const;
  bool maximallyAdded(const Graph& g, EventId e, EventId w, const std::vector<uint32_t>& view) const;
  // Whether w, a writing read (RMW, lock, unlock), has a twin among the
  // events a revisit of r keeps (keep: revisitKeeps'): another write that
  // reads what w reads. w goes right after that write in co, so the two
  // cannot both be atomic: every position of the revisited graph is ruled
  // out, and revisitRead stops before it builds the graph.
  bool keptRmwTwin(const Graph& g, EventId w, EventId r, const std::vector<uint32_t>& keep) const;

  Event makeEvent(const State& s, uint32_t t, EvKind kind) const;
  EventId append(State& s, uint32_t t, Event e);
  void complete(State& s, uint32_t t);  // deliver the newest event's result to the thread
  // Thread t's state after its events in g: from its latest mark in `from`
  // (the caller has dropped the marks whose events changed), else from its
  // start. With CheckOptions::Testing::checkOrders also from the start, compared.
  ThreadState replay(const Graph& g, uint32_t t, const SharedThread& from) const;
  uint32_t spawnId(uint32_t parent, uint32_t ordinal);

  Value initialValue(Addr a, uint8_t size) const;
  // Empty when the access is fine; otherwise a description of the memory error.
  std::string checkAccess(const State& s, Addr a, uint64_t size) const;
  bool useAfterFree(State& s, EventId access);
  bool stackUsedAfterExit(State& s, EventId exitId);
  // CheckOptions::exitEndsProgram: the Exit event e of thread t ends the
  // program; some thread's does in g.
  bool endsProgram(const Event& e, uint32_t t) const;
  bool programEnded(const Graph& g) const;
  bool sizeConflict(State& s, uint32_t t, Addr a, uint8_t size);

  void reportError(State& s, uint32_t t, ErrorKind kind, const std::string& msg, const SourceLoc& loc,
                   bool pendingIsError);
  void reportEngineError(const std::string& msg, const SourceLoc& loc);
  void recordExecution(const State& s, bool blocked);
  // The counterexample steps of g in its chronological order (empty order if
  // g were inconsistent).
  // With atomic sections: in such an order, else of the graph sectionsHold
  // gives for `focus`.
  std::vector<TraceStep> traceOf(const State& s, int focus);
  // Whether s's graph keeps every atomic section's steps together
  // (ConsistencyChecker::sectionsHold; the section of a thread still inside
  // one last), with such an order in *order. Every ended execution and error
  // is asked: a graph where they are apart is no execution of the program.
  // focus >= 0 (the thread whose error, or end inside a section, it is):
  // only the porf-prefix of its events is asked (in *part): the other
  // threads may not have run that far, which the exploration, running every
  // thread to its end, does not tell apart.
  bool sectionsHold(const State& s, int focus, Graph* part = nullptr, std::vector<OrderNode>* order = nullptr);
  // Data races of an ended execution (complete, blocked, cut or erroneous):
  // each new pair of source locations becomes a warning.
  void checkRaces(const State& s);
  // Robustness: records s as the witness when SC does not allow its graph.
  void checkRobust(const State& s);
  void finishRobustness();
  bool hasWitness() const { return res_.robustness && res_.robustness->witness; }
  // Every candidate graph passes here: once the time is up (or the check is
  // cancelled) no candidate is accepted any more, so that loops over many
  // candidates in one long execution end promptly too.
  // `added` is g's new event (kInit: g changed otherwise); the check goes
  // through the order kept in the graph (consistency.h "Incremental checks"),
  // for a backward revisit's graph through the kept keys of what it keeps.
  bool consistentWith(Graph& g, EventId added) {
    return inTime() && (rc11On_ ? rc11_.consistent(g) : checker_.consistentWith(g, added));
  }
  // Whether some allowed order puts `first` before `second` (RC11: second
  // does not happen before first).
  bool canOrderBefore(const Graph& g, EventId first, EventId second) {
    return rc11On_ ? rc11_.canOrderBefore(g, first, second) : checker_.canOrderBefore(g, first, second);
  }
  bool consistentRevisit(Graph& g, EventId w, EventId r);
  bool inTime() {
    if (!outOfTime()) return true;
    timedOut_ = stopped_ = true;
    return false;
  }
  bool timeUp();      // outOfTime(), and progress reports
  bool outOfTime() const;  // the deadline passed or the check was cancelled
  uint32_t timePolls_ = 0;    // timeUp's calls (the clock is read on every 16th)
  // With a preemption bound: false (and counted) when g is pruned by it.
  bool withinPreemptionSlack(State& s);
  // The bound's probe (CheckOptions::boundProbe) ends: at the first prune
  // (kept) or after that many ended executions with none (dropped). Until
  // then nothing is given away, so the probe is one worker's deterministic
  // prefix of the search, and with nothing pruned that prefix is the
  // unbounded search's: dropping the bound there leaves exactly the
  // unbounded search (settling, waiting locks and stale waits as under the
  // bound: they change no execution, explorer.h lockWaits).
  void endProbe(bool drop);
  bool boundOn_ = false;   // a preemption bound is set and not dropped
  bool probing_ = false;   // its probe is still running

  // Parallel exploration (see ParallelShared above).
  using Path = std::vector<uint32_t>;
  struct Segment {
    Path start;
    CheckResult counts;  // its counters only (executions, blocked, cut, events, ...)
    std::vector<Violation> violations;  // in the order found
    std::vector<std::string> limits;
    bool nondetLimited = false;
    std::string engineError;
    bool above = false;  // sharded: above the cut, where every shard explores (shard 0 reports it)
  };
    // The branch points whose children other workers may take: a load's
  // writes, a store's coherence positions, a choice's values, the reads a
  // write revisits, an RMW's candidate writes; and two-part ones: an RMW
  // candidate and its write's revisits (Revisits), a revisited RMW's own
  // revisits and the revisited graph (Visit; also the root task).
  enum class FrameKind : uint8_t { Read, Write, Choice, RevisitRead, RmwCandidate, Revisits, Visit };
  // A branch point whose children are made from `base`, which stays as it is
  // while the frame is open (every child but the last works on a copy).
  struct Frame {
    FrameKind kind;
    const State* base;
    size_t depth;  // path_.size() at the branch point
    uint32_t n;    // children
    uint32_t next = 0;  // children [next, end) are not begun; [end, n) were given away
    uint32_t end;
    uint32_t t;
    EventId id;            // Read/Write/Choice: the event; RevisitRead: the write
    const void* items;     // Read: vector<EventId> writes; Write: vector<int> co positions (a child
                           // past them: the backward revisits, ExploreOrder::Forward/StaleFirst);
                           // Choice: the Action; RevisitRead: vector<EventId> reads;
                           // RmwCandidate: vector<EventId> writes; else none
    bool completeT = true;  // RevisitRead
    uint32_t pathBase = 0;  // child i is path index pathBase + i (PathScope)
  };
  friend struct ParallelShared;
  struct Task {
    Path path;
    State s;
    FrameKind kind;
    uint32_t t;
    EventId id;
    EventId r;
    bool completeT = true;
  };
  using TaskBox = std::unique_ptr<Task>;
  struct FrameScope {  // the frame is open for the scope's life
    Explorer& ex;
    Frame f;
    FrameScope(Explorer& e, FrameKind kind, const State& base, uint32_t n, uint32_t t, EventId id, const void* items,
               bool completeT = true);
    ~FrameScope();
    // Child i begins (false: there is none, the rest went to other workers);
    // `last`: it may take the base state over.
    bool begin(uint32_t i, bool* last);
  };
  struct PathScope {  // child i of a branch point
    Explorer& ex;
    PathScope(Explorer& e, uint32_t i) : ex(e) {
      if (ex.par_) ex.enterChild(i);
    }
    ~PathScope() {
      if (ex.par_) ex.leaveChild();
    }
  };
  // The path grows by child i / shrinks back; at a shard's cut each child
  // is a piece of its own, skipped when another shard owns it.
  void enterChild(uint32_t i);
  void leaveChild();
  bool ownsSubtree(const Path& p) const;  // sharded: p (at least `depth` long) is below this shard's cut
  // What is met here is this shard's to report: not inside a skipped child,
  // and above the cut only on shard 0.
  bool reportsHere() const {
    return !skipping_ && (opts_.shard.count == 0 || opts_.shard.index == 0 || path_.size() >= opts_.shard.depth);
  }
  bool skipping_ = false;  // inside a child at the cut that another shard explores
  Explorer(const Program& prog, const CheckOptions& opts, ParallelShared* par);
  CheckResult runParallel(const State& root);
  void work();                      // a worker: tasks until there are none
  void runTask(Task& k);
  void giveAway();                  // another worker is idle: a task for it
  // The current segment ends (dropped: `drop`); the next begins at `next`.
  void closeSegment(Path next, bool drop = false);
  bool pastBest();                  // after the first error that stops the search
  void stopHere();                  // an error that stops the search, at path_
  bool addViolation(Violation v);
  void finishResult();              // status and message from res_ (both run paths)
 public:
  // Status and message of a graph-explorer result from its counts and
  // violations (finishResult without robustness; also a merge of shards').
  static void finishStatus(CheckResult& r, const CheckOptions& opts, bool timedOut);

 private:
  void revisitRead(State& s, uint32_t t, EventId w, EventId r, const std::vector<uint32_t>& view, bool completeT);

  ParallelShared* par_ = nullptr;
  Path path_;
  std::vector<Frame*> frames_;
  Segment cur_;
  CheckResult mark_;  // res_'s counters when the current segment began
  std::vector<Segment> segments_;
  uint64_t progressMark_ = 0;
  bool raceCheckInitially_ = false;

  const Program& prog_;
  CheckOptions opts_;
  MemoryModel mm_;
  ConsistencyChecker checker_;
  // Under RC11 (MemoryModel::usesC11Orders) every consistency question goes
  // to rc11_, chosen once per search; checker_ serves SC, TSO and PSO.
  bool rc11On_ = false;
  Rc11Checker rc11_;
  ConsistencyChecker scChecker_{MemoryModel{Model::SC, -1}};  // robustness: SC is the reference model
  PreemptionCounter preemptions_;
  RaceDetector races_;
  bool raceCheck_ = false;  // opts_.raceCheck and the program has plain accesses
  std::vector<Race> raceScratch_;
  RaceDetector::Known knownRaces_;  // the races of res_, as checkRaces last listed them
  CheckResult res_;
  bool stopped_ = false;
  bool timedOut_ = false;
  ErrorKind witnessKind_ = ErrorKind::None;  // the violation recorded in the robustness witness's execution
  uint64_t visits_ = 0;
  std::chrono::steady_clock::time_point start_;
  SpawnIds ownSpawnIds_;
  SpawnIds* spawnIds_ = &ownSpawnIds_;  // shared in a parallel exploration
};

}  // namespace tsocheck

// Preemption bounding (Buster: Marmanis et al., TACAS 2023) on weak memory.
//
// Definition (the same in SC, TSO and PSO; see ARCHITECTURE.md "Definitions"):
// a run's *schedule* is the sequence of thread steps — every load, store
// issue (a store entering the buffer), fence, RMW, lock, spawn, join, free —
// with store-buffer flushes left out: they are steps of the memory system,
// which may take them at any moment without a thread switch. A *preemption*
// is a switch from thread A to another thread while A is not blocked (not
// waiting for a held mutex or for an unfinished thread to join) and A takes
// another step later in the run (Buster's optimistic count, which
// coincides with the classic one on complete runs). Waiting for its own
// buffer to drain (fence, RMW) does not block a thread. The preemption count
// of a Shasha–Snir class is the minimum over the runs that produce it.
//
// Deciding that minimum is NP-complete, so the explorer never computes it.
// It keeps instead a cheap *lower bound* per graph: for each thread A, the
// pairs of A's events a_i <po a_j with a happens-before path between them
// through another thread (po, external rf, spawn, exit→join, and co/fr edges
// to the write's flush: under SC and for locked operations the write's own
// step, for a buffered store the thread's next draining step; flushes follow
// co, so what precedes a buffered store's flush precedes the flushes of the
// writes co-after it too (from scratch only; the kept bound may miss it); and a load of
// another thread's buffered store comes after everything that precedes that
// store's flush and the flushes of the older stores buffered with it — TSO:
// all of them, PSO: those to the same location) force a switch away from A
// somewhere between them; when no event of a_{i+1..j} may be a blocked wait
// (a join, or a lock whose wait could absorb the switch: blockerFloor) the
// switch is a preemption. The minimum
// number of points hitting all such intervals (greedy, exact for intervals)
// summed over threads is ≤ the class's preemption count. Pruning a graph only
// when this lower bound exceeds P + slack (preemptionSlack: Buster's §5
// slack, the smaller of N−2 and the threads with events not settled) keeps
// every graph that Buster keeps, so completeness up to P carries over; the
// explorer stays optimal because it explores a subset of the unbounded
// exploration.
// The cheap upper bounds below only decide when the clocks are needed: they
// never prune, so they cannot cost completeness (a wrong one would prune
// less; tests/engine/preemption_test.cpp checks they never hide an exceeded
// limit).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/graph.h"

namespace tsocheck {

// The slack of a graph (preemptionSlack, at the end): min(N−2, D).
struct PreemptionSlack {
  int threads = 0;  // N−2 (Theorem 1)
  int open = 0;     // D: alive threads with an event that a later revisit may delete or change (§5)
  int value() const { return std::min(threads, open); }
};

// Incremental bookkeeping carried along the exploration with each graph:
// per event a vector clock over the edges above (as wide as the graph has
// threads), per thread the greedy hitting-set state after each event. Events
// are processed in an order where an event's sources come first, so each new
// event costs O(threads + its edges); an edge from a new event to an older
// one (a read of a value that an existing write overwrites, a write placed
// co-before existing ones) raises the older target's clock in place, and
// whatever was derived from it earlier keeps the smaller value: the
// incremental value may be smaller than the full one, never larger.
//
// Each processed event also records `dep`, the newest stamp (or write stamp)
// its clock was derived from. A backward revisit of a read r keeps every
// event added before r (and r's new write's porf-prefix) and changes r's
// reads-from only; the kept part is porf-closed and keeps its rf, co order
// and po, so a clock derived only from events stamped before r still holds.
// `revisited(stamp of r)` therefore keeps each thread's processed prefix
// whose dep is below r's stamp and drops the rest, which the next update
// processes again — no rebuild from scratch.
struct PreemptionState {
  struct Mark {
    uint32_t dep = 0;          // newest (write) stamp this event's clock depends on
    int32_t hit = -1;          // the thread's last switch point chosen ("after event #hit")
    int32_t lastBlocker = -1;  // index of the thread's latest event that may block it (blockerFloor)
    uint32_t count = 0;        // switch points chosen in the thread so far
    uint32_t left = 0;         // events of the thread that reach this one through another thread
    // The greedy's step at the thread's event j (one that may block it when
    // `blocker`) with `reach` from unblockedReach: the forced interval of
    // switch points [reach-1, j-1] needs a new point unless the last point
    // chosen hits it (reach 0: no interval, or a blocked wait may take it).
    // True when a point was added (at j-1).
    bool step(uint32_t j, uint32_t reach, bool blocker) {
      if (blocker) lastBlocker = int32_t(j);
      if (j == 0 || reach == 0 || reach > j || hit >= int32_t(reach) - 1) return false;
      hit = int32_t(j) - 1;
      ++count;
      return true;
    }
  };
  // Per thread a segment of `slots` in the arenas below (one slot per
  // processed event, in po order); three vectors whatever the thread count,
  // so that copying a state costs three allocations.
  struct Segment {
    uint32_t start = 0, count = 0, cap = 0;
  };
  // Cheap phase: upper bounds on the lower bound. The first counts the
  // events that can end a forced interval (reads from other threads, writes
  // timed at their step, draining events after a store); the second, tighter
  // one (armingBound) also needs an event that can start a cross edge before
  // each of them in its thread. While they stay within the limit nothing can
  // be pruned and no clocks are kept; copying a state in this phase
  // allocates nothing.
  bool exact = false;
  uint32_t candidates = 0;
  uint32_t scannedStamp = 0;  // events stamped below this are counted
  // A tighter upper bound of the cheap phase (PreemptionCounter::armingBound),
  // kept per added event while the graph has at most 64 threads: its value,
  // the threads whose scan ends armed, and g.nextStamp when it held (0: none).
  uint32_t armTotal = 0;
  uint64_t armedMask = 0;
  uint32_t armStamp = 0;
  // The thread of the newest event (set by the explorer when it adds one):
  // when exactly one event came since the last look, only it is looked at.
  uint32_t lastThread = 0;
  uint32_t seenStamp = 0;  // exact phase: g.nextStamp when last brought up to date
  // The slack of the graph as it was when g.nextStamp was slackStamp (0:
  // none), with the earliest stamp of an unsettled read (preemptionSlack):
  // an appended event updates it in O(1).
  uint32_t slackStamp = 0;
  uint32_t slackFirst = 0;
  PreemptionSlack slack;
  // Exact phase.
  uint32_t width = 0;  // clock entries per event (>= threads in the graph)
  std::vector<Segment> threads;
  std::vector<uint16_t> clocks;  // `width` entries per slot
  std::vector<Mark> marks;       // one per slot
  int total = 0;
  // The state of o's graph after a backward revisit of a read stamped
  // `stamp`: o copied, then revisited(stamp).
  void copyRevisited(const PreemptionState& o, uint32_t stamp) {
    *this = o;
    revisited(stamp);
  }
  uint32_t processed(uint32_t t) const { return t < threads.size() ? threads[t].count : 0; }
  uint16_t* clock(uint32_t t, uint32_t i) { return &clocks[size_t(threads[t].start + i) * width]; }
  Mark& mark(uint32_t t, uint32_t i) { return marks[threads[t].start + i]; }
  // Room for one more event of thread t (moves its segment to the end when full).
  void reserveOne(uint32_t t);
  void setWidth(uint32_t w);
  // A backward revisit of a read stamped `stamp` turned this state's graph
  // into the revisited one: keep what still holds (see above).
  void revisited(uint32_t stamp);
};

// The thread of st.lastThread when exactly one event, its newest, was
// appended (the explorer's append) since g.nextStamp was `stamp`; else null.
inline const ThreadInfo* appendedSince(const Graph& g, const PreemptionState& st, uint32_t stamp) {
  if (stamp == 0 || g.nextStamp != stamp + 1 || st.lastThread >= g.threads.size()) return nullptr;
  const ThreadInfo& th = g.threads[st.lastThread];
  return th.alive && !th.events.empty() && th.events.back().stamp == stamp ? &th : nullptr;
}

class PreemptionCounter {
 public:
  PreemptionCounter(bool sc, bool pso) : sc_(sc), pso_(pso) {}
  // Lower bound on the preemption count of every run producing g (or any
  // extension of g), from scratch. O(events × threads).
  int lowerBound(const Graph& g) { return recompute(g, nullptr); }
  // The same bookkeeping, brought up to date with g incrementally.
  int update(const Graph& g, PreemptionState& st);
  // True when g's lower bound exceeds limit; stays in the cheap phase while
  // the upper bound allows.
  bool exceeds(const Graph& g, PreemptionState& st, int limit);
  // The same with limit = bound + preemptionSlack(g); the slack is worked
  // out (into `slack`) only when a bound above `bound` is compared with it.
  bool exceedsWithSlack(const Graph& g, PreemptionState& st, int bound, std::optional<PreemptionSlack>& slack);

 private:
  // The clock bookkeeping of one new event (addEvent): its clock so far, its
  // greedy state and how many of its thread's events reach it through
  // another thread.
  struct Incoming {
    PreemptionState& st;
    uint32_t t;
    uint16_t* c;
    PreemptionState::Mark mark;
    uint32_t left;
    void from(EventId src);
    void flushSources(const Graph& g, EventId b, const Event& be, bool readers);
  };
  struct FixedLimit;
  struct SlackLimit;
  template <class Limit>
  bool exceedsLimit(const Graph& g, PreemptionState& st, Limit& lim);
  int recompute(const Graph& g, PreemptionState* st);
  void layout(const Graph& g);
  bool present(const Graph& g, EventId x) const;
  uint32_t node(EventId x) const { return base_[x.thread] + x.index; }
  void directEdges(const Graph& g);
  void flushEdges(const Graph& g);
  void inheritFlushSources(const Graph& g);
  void indexFlushSources(uint32_t nodes);
  void bufferedReadEdges(const Graph& g);
  bool propagateClocks(const Graph& g);
  int greedyCounts(const Graph& g, PreemptionState* st);
  void addEvent(const Graph& g, PreemptionState& st, EventId id);
  void incomingEdges(const Graph& g, EventId id, Incoming& in) const;
  void raise(const Graph& g, PreemptionState& st, uint32_t t, const uint16_t* c, uint32_t dep, EventId b);
  void replayGreedy(const Graph& g, PreemptionState& st, uint32_t bt, uint32_t from);
  bool mayEndInterval(const ThreadInfo& th, uint32_t t, uint32_t i) const;
  static bool mayLeave(const Graph& g, uint32_t t, const Event& e);
  int armingBound(const Graph& g, int limit, uint64_t* armedMask) const;
  bool armingStep(const Graph& g, PreemptionState& st) const;
  bool sc_, pso_;
  std::vector<uint32_t> threadOf_;
  std::vector<EventId> fresh_;
  std::vector<uint8_t> done_;
  // Scratch buffers reused across calls.
  std::vector<uint32_t> base_, indeg_, order_, clock_, left_, nextDrain_, dep_, carry_;
  // greedyCounts, per event of a thread: (the latest blocker up to it, its own blockerFloor)
  std::vector<std::pair<uint32_t, uint32_t>> blockers_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;  // cross-thread (from node, to node)
  std::vector<std::pair<uint32_t, uint32_t>> flushSrc_;  // (write node, node before its flush)
  std::vector<uint32_t> adjStart_, adj_, fsStart_, fs_;
  std::vector<uint16_t> scratchClock_;
};

// Slack that keeps the bounded exploration complete: min(N−2, D), Buster's
// Theorem 1 with its §5 refinement.
//
// N−2 (Theorem 1), N = threads alive in the graph (0 for fewer than 2). The
// theorem is stated with N = the program's threads, which is not known while
// exploring; N_G = threads alive in the graph is never larger. Why it still
// holds: take G in
// the production sequence of a full G_f with preemptions(G_f) ≤ P, G not a
// prefix of G_f, and Ĝ, r, t as in Buster's Prop. 1 (Ĝ ⊑ G_f, Ĝ →r→* G
// by non-decreasing maximal steps, no event of thread t in G \ Ĝ). In the
// proof of Lemma 2 a new preemption only appears at the last switch away
// from a thread that has events in Ĝ's witness and is extended afterwards,
// so preemptions(G) ≤ P + |A|, A = the threads with events in Ĝ that are
// extended; each has events in G, so is alive in G. (1) If t is alive in G
// (spawned), t ∉ A and |A| ≤ N_G − 1; at equality every other alive thread,
// thread 0 included, is extended, so r's thread (the first extended, the
// smallest) is thread 0, the leftmost, and Buster's closing argument (r's
// thread is extended at no cost) gives P + N_G − 2. (2) If t is spawned only
// after G, its spawn is in the porf-prefix of t's write w that revisits next,
// and the thread q of G that (through spawns added after G) starts t has all
// its G-events po-before that spawn, kept by w's revisit: q ∉ A, |A| ≤ N_G − 1,
// and when q ≠ 0 the equality case again puts r in thread 0, as in (1).
// Not shown: q = 0, i.e. main, unavailable when r was added (blocked on a
// mutex: a blocked join would keep the joined thread out of A) and spawning
// t after G; there the argument above only gives P + N_G − 1 (the theorem
// with the program's N, ≥ N_G + 1 there, allows it). Every bench program and
// sample spawns its threads before main blocks.
//
// D (§5): the alive threads with an event that a later revisit may still
// delete or re-read. The seed words it "threads that have no deletable
// events", but the quantity its argument bounds is Lemma 2's S, the threads
// extended from Ĝ to G, i.e. the threads *with* deletable events. G \ Ĝ is r,
// whose reads-from changes later, and the events the production sequence
// deletes later (§4.1: Ĝ is the part of G that is not deleted or revisited
// afterwards). Two kinds of events are in Ĝ:
//  * settled events (ThreadInfo::settled: a write that made a backward
//    revisit, or in its porf-prefix) are never deleted or revisited again:
//    under a bound the explorer refuses such revisits (explorer.h
//    `settles_`; TruSt's maximality refuses them already, so this changes no
//    exploration);
//  * events stamped before every read that may still be revisited (an
//    unsettled read of G): a revisit deletes only events added after its
//    read, and reads added after G are stamped after all of G.
// So every thread in S has an unsettled event stamped no earlier than the
// first unsettled read, and preemptions(G) ≤ P + D (D = 0 when G has no
// unsettled read: then G is a prefix of G_f). Stamps grow along po, so a
// thread qualifies when its last event is unsettled and stamped no earlier.
// That Ĝ is exactly the kept part is our reading of Buster's Prop. 1, not
// shown here; the property tests and the soak compare bounds 0..2 with the
// naive minimum on random programs (four threads included, where D < N−2
// prunes), and the tight slack agrees.
inline PreemptionSlack preemptionSlack(const Graph& g, uint32_t* firstRead = nullptr) {
  // The earliest stamp of a read that may still be revisited: the first
  // unsettled read of each thread (stamps grow along po).
  uint32_t first = UINT32_MAX;
  for (const ThreadInfo& th : g.threads) {
    if (!th.alive) continue;
    const size_t n = th.events.size();
    const size_t i = th.events.findIf(th.settled, n, [](const Event& e, size_t) { return e.reads; });
    if (i != n) first = std::min(first, th.events[i].stamp);
  }
  int alive = 0, open = 0;
  for (const ThreadInfo& th : g.threads) {
    alive += th.alive;
    open += th.alive && th.settled < th.events.size() && th.events.back().stamp >= first;
  }
  if (firstRead) *firstRead = first;
  return PreemptionSlack{alive > 2 ? alive - 2 : 0, open};
}
// The same, kept in st from one call to the next (O(1) when one event was
// appended since).
PreemptionSlack preemptionSlack(const Graph& g, PreemptionState& st);

}  // namespace tsocheck

// Execution graphs: per-thread event sequences, reads-from and coherence.
//
// An execution graph is exactly a Shasha–Snir trace: the events of every
// thread in program order, for every read the write it reads from (rf), and
// for every location the order in which writes reach memory (co). Store
// buffers do not appear in the graph; whether a graph is allowed by a memory
// model (and a buffer bound) is decided by consistency.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/cow_vector.h"
#include "engine/interp.h"
#include "engine/ir.h"

namespace tsocheck {

struct EventId {
  uint32_t thread = kInitThread;
  uint32_t index = 0;
  static constexpr uint32_t kInitThread = 0xFFFFFFFFu;
  bool isInit() const { return thread == kInitThread; }
  bool operator==(const EventId& o) const { return thread == o.thread && index == o.index; }
  bool operator!=(const EventId& o) const { return !(*this == o); }
};
constexpr EventId kInit{};

enum class EvKind : uint8_t {
  Load,     // plain load
  Store,    // plain store (goes through the store buffer)
  Rmw,      // locked RMW / CAS (a failed CAS only reads)
  Lock,     // reads the mutex word; writes tid+1 when it read 0, else the thread blocks
  TryLock,  // like Lock but never blocks
  Unlock,   // locked exchange of 0
  Fence,    // full fence (FenceKind::Full) or store-store barrier
  Spawn,
  Join,
  Free,
  Exit,
  Query,    // a question with no memory effect (heap block size); kept for replay
  Choice,   // a nondeterministic value (result); no memory effect
};
const char* evKindName(EvKind k);

struct Event {
  EvKind kind = EvKind::Load;
  uint8_t size = 0;
  bool reads = false;    // has a read part (rf valid)
  bool writes = false;   // has a write part (in co)
  FenceKind fence = FenceKind::Full;
  RmwOp rmw = RmwOp::Xchg;
  // Atomic sections (Op::AtomicBegin/AtomicEnd): kInSection when the thread
  // was inside one when it made the event, with kSectionStart on the first
  // event of each section (consistency.h: a section's events are contiguous).
  uint8_t section = 0;
  // The C11 memory order (RC11 only; engine/rc11.h): an access's or fence's
  // own, acquire for lock and trylock, release for unlock.
  MemOrder order = MemOrder::SeqCst;
  MemOrder failOrder = MemOrder::SeqCst;  // a compare-exchange's failure order (c11Order)
  uint32_t stamp = 0;    // order in which events were added to the graph
  // When the write part was added: equal to `stamp`, except for an RMW-like
  // event whose read a backward revisit changed — its write (a new value) is
  // then added afresh, after every event kept by that revisit.
  uint32_t wstamp = 0;
  // Index in Graph::locs where the location of addr was last found: a hint,
  // checked on use (locations added later shift the indices).
  mutable uint32_t locHint = 0;
  // Where the event's timed node (a buffered store: its flush) sits in a
  // chronological order the consistency checker found for the graph; 0 = not
  // placed (consistency.h "Incremental checks").
  uint64_t orderKey = 0;
  Addr addr = 0;
  Value operand = 0;     // store value, RMW operand, exit value
  Value expected = 0;    // CAS expected value
  Value rval = 0;        // value read
  Value wval = 0;        // value written
  Value result = 0;      // what the thread was given (for replay)
  EventId rf;            // write read from (when reads)
  uint32_t aux = 0;      // Spawn: child thread; Join: joined thread
  // Where it comes from.
  uint32_t function = 0, pc = 0, name = 0;
  SourceLoc loc;
};

// The C11 order an event acts with: its own, except that a compare-exchange
// that fails (reads a value other than the expected one) is a read with its
// failure order. (Decided on the value read, so it holds while the explorer
// checks an RMW's read part before adding its write part.)
inline MemOrder c11Order(const Event& e) {
  const bool failedCas = e.kind == EvKind::Rmw && e.rmw == RmwOp::Cas &&
                         maskToSize(e.rval, e.size) != maskToSize(e.expected, e.size);
  return failedCas ? e.failOrder : e.order;
}

// Events that need the thread's store buffer(s) empty: MemoryModel::drainsBuffer.
// True for plain stores (the only events that enter a store buffer).
inline bool isBufferedStore(const Event& e) { return e.kind == EvKind::Store; }
// Event::section's bits.
constexpr uint8_t kInSection = 1, kSectionStart = 2;

// A thread's events: copies share them until one writes (cow_vector.h), so
// the explorer's state per branch point costs little more than the events
// that differ.
using EventList = CowVector<Event, 8>;
// A location's writes in coherence order, shared the same way.
using CoOrder = CowVector<EventId, 32>;

struct ThreadInfo {
  bool alive = false;      // spawned in this graph
  uint32_t parent = 0;     // spawning thread (main: itself)
  uint32_t spawnIndex = 0; // index of the Spawn event in the parent
  uint32_t func = 0;
  Value arg = 0;
  EventList events;
  // The first `settled` events are in the porf-prefix of a write that made a
  // backward revisit (or are that write): with waiting locks (explorer.h
  // `lockWaits`) they are never revisited or deleted again. Deleting events
  // cuts it back (truncate).
  uint32_t settled = 0;
  // The thread entered an atomic section after its newest event: its next
  // event starts a section (Event::section).
  bool enteringSection = false;
  // The porf clocks of the first clocks.size() / Graph::clockStride events:
  // a cache filled by Graph::porfView, cut back where events or reads-from
  // change (Graph::setRf, Graph::truncate).
  mutable CowVector<uint32_t, 64> clocks;
};

struct Location {
  Addr addr = 0;
  uint8_t size = 0;
  Value init = 0;
  CoOrder co;  // writes in coherence order (init omitted)
  // The co-latest write (the initial value while nothing is written).
  EventId newest() const { return co.empty() ? kInit : co.back(); }
};

class Graph {
 public:
  std::vector<ThreadInfo> threads;
  std::vector<Location> locs;  // sorted by address
  uint32_t nextStamp = 1;
  // The order keys (Event::orderKey): the largest one given, how many events
  // have none, and whether a store-store barrier was ever added (its node
  // constrains every later store of the thread).
  uint64_t maxOrderKey = 0;
  uint32_t unplaced = 0;
  bool storeStoreFences = false;
  // Whether an event was ever added inside an atomic section (the checker
  // then sorts every graph from scratch: consistency.h).
  bool atomicSections = false;
  // Whether a thread ever accessed another thread's stack slots or
  // thread-local copies (only then can one be used after its owner ends).
  bool foreignWindowAccess = false;

  // An event for writing (its storage becomes this graph's own: mut).
  Event& mut(EventId id) { return threads[id.thread].events.mut(id.index); }
  const Event& ev(EventId id) const { return threads[id.thread].events[id.index]; }
  bool contains(EventId id) const {
    return id.isInit() || (id.thread < threads.size() && id.index < threads[id.thread].events.size());
  }
  uint32_t stampOf(EventId id) const { return id.isInit() ? 0 : ev(id).stamp; }
  uint32_t writeStampOf(EventId id) const { return id.isInit() ? 0 : ev(id).wstamp; }

  Location* findLoc(Addr a);
  const Location* findLoc(Addr a) const;
  // The location of an access event (its addr), through its hint.
  const Location* locOf(const Event& e) const {
    if (e.locHint < locs.size() && locs[e.locHint].addr == e.addr) return &locs[e.locHint];
    const Location* l = findLoc(e.addr);
    if (l) e.locHint = uint32_t(l - locs.data());
    return l;
  }
  Location& locFor(Addr a, uint8_t size, Value init);

  // Value a read of `loc` gets from write w.
  Value valueOf(const Location& loc, EventId w) const {
    return w.isInit() ? loc.init : ev(w).wval;
  }
  // Position of w in loc.co (init = -1); -2 when absent.
  static int coIndex(const Location& loc, EventId w);

  // Events po-before-or-equal / rf / spawn / join reachable backwards from `e`,
  // as a per-thread prefix length (view[t] = number of events of t included).
  // Through per-event vector clocks computed once and kept with the graph
  // (ThreadInfo::clocks): an event's clock is the maximum of its po
  // predecessor's (a thread's first event: its spawn's), the write it reads
  // and, for a join, the joined thread's last event, with its own position.
  // Only a change of an event's reads-from or the deletion of events
  // invalidates clocks: writes to rf go through setRf and deletions through
  // truncate. (The explorer changes rf only of the newest event of a thread
  // or of a revisited read, whose thread keeps nothing after it; events of
  // other threads that are kept never depend on what changes.)
  // A graph of fewer than kClocksFrom events is walked instead (cheaper than
  // keeping clocks); `clocks` asks for the clocks whatever the size (tests).
  static constexpr uint64_t kClocksFrom = 512;
  std::vector<uint32_t> porfView(EventId e, bool clocks = false) const;
  // The same by a walk over the prefix (the reference: tests, self-checks).
  std::vector<uint32_t> porfViewByWalk(EventId e) const;
  // The walk itself: fills view (threads.size() entries, zero) with e's
  // porf view and calls visit(event, thread, index) once for every event of
  // the prefix, in no particular order (a caller that also needs the
  // prefix's events walks it once).
  template <class F>
  void porfWalk(EventId e, std::vector<uint32_t>& view, F&& visit) const;
  void setRf(EventId e, EventId w) {
    mut(e).rf = w;
    dropClocks(e.thread, e.index);
  }
  // Thread t keeps its first n events.
  void truncate(uint32_t t, uint32_t n) {
    threads[t].events.resize(n);
    if (threads[t].settled > n) threads[t].settled = n;
    dropClocks(t, n);
  }

  uint64_t numEvents() const;
  // Gives this graph storage of its own (before it goes to another thread).
  void detach();

 private:
  void dropClocks(uint32_t t, uint32_t from) const {
    auto& c = threads[t].clocks;
    if (c.size() > size_t(from) * clockStride) c.resize(size_t(from) * clockStride);
  }
  // Clocks of thread t's first `upto` events; `depth` counts the nested
  // calls (more than the graph has events: a porf cycle, which only an
  // inconsistent graph has).
  void ensureClocks(uint32_t t, uint32_t upto, uint64_t depth, uint64_t maxDepth) const;
  mutable uint32_t clockStride = 0;  // entries per clock (>= the thread count)
};

template <class F>
void Graph::porfWalk(EventId e, std::vector<uint32_t>& view, F&& visit) const {
  if (e.isInit()) return;
  const uint32_t n = uint32_t(threads.size());
  // How much of each thread's prefix was walked (on the stack for up to 32
  // threads: most walks allocate nothing).
  uint32_t small[32] = {};
  std::vector<uint32_t> large(n > 32 ? n : 0, 0);
  uint32_t* done = n > 32 ? large.data() : small;
  view[e.thread] = e.index + 1;
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t t = 0; t < n; ++t) {
      if (done[t] == view[t]) continue;
      changed = true;
      const ThreadInfo& th = threads[t];
      if (done[t] == 0 && t != 0 && view[t] > 0) {
        const uint32_t p = th.parent;
        view[p] = std::max(view[p], th.spawnIndex + 1);
      }
      const uint32_t end = view[t];  // (a later pass takes what this one adds to t)
      th.events.forRange(done[t], end, [&](const Event& x, size_t i) {
        if (x.reads && !x.rf.isInit()) view[x.rf.thread] = std::max(view[x.rf.thread], x.rf.index + 1);
        if (x.kind == EvKind::Join) {
          const ThreadInfo& tgt = threads[x.aux];
          view[x.aux] = std::max<uint32_t>(view[x.aux], uint32_t(tgt.events.size()));
        }
        visit(x, t, uint32_t(i));
      });
      done[t] = end;
    }
  }
}

}  // namespace tsocheck

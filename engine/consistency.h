// Is an execution graph allowed by SC, TSO or PSO with an optional store
// buffer bound?
//
// One checker serves every model. It looks for a chronological order of the
// graph's *timed* events: every load, fence, locked RMW, spawn/join/exit,
// and the *flush* of every buffered store (the moment it reaches memory).
// A store's *issue* (entering the buffer) is not ordered with other threads,
// so it is placed as late as its thread allows, which is never worse for the
// buffer bound.
//
// The model is a set of constraints on that order:
//  * program order between a thread's timed non-store events;
//  * a store flushes after every timed event before it in program order;
//  * TSO: a thread's flushes in program order; PSO: per location only;
//    a store-store barrier orders the flushes around it (PSO);
//  * fences and locked operations wait for the thread's flushes;
//  * coherence: flushes of a location in co order; a read sits after the write
//    it reads from and before that write's co-successor — except that a load
//    of the thread's own latest store may come earlier (store forwarding);
//    a load of another write needs the thread's own earlier stores to that
//    location flushed;
//  * SC (or bound 0): every event timed in program order;
//  * bound k: when a thread issues its j-th store, at least j-k of its earlier
//    stores have been flushed: a "gate" node that waits for that count, placed
//    before the store's flush and before the thread's next timed event.
// Every constraint is monotone (once satisfied it stays satisfied), so a
// greedy topological sort finds an order whenever one exists.
//
// Atomic sections (Event::section) are no constraint of the model: the
// exploration treats their events as any others (a section constrains whole
// executions only, and the graphs on the way to one that keeps its sections
// whole need not keep theirs: a backward revisit may need a graph in which
// two sections overlap). sectionsHold decides an ended graph: a section is
// one indivisible step of its thread, so no *step* of another thread (a
// timed node other than a flush or a store-store barrier, a gate, and under
// SC every event) lies between the section's first and last step; flushes
// of every buffer may (the memory system drains buffers whatever the
// scheduler does, as in the state-space search), but only of stores issued
// before the section began (a store's issue follows its thread's previous
// step); a store issued inside a section (its flush may come much later)
// gets a gate node with no count for its issue, a step of the section. The greedy sort takes every ready node that is no section's step
// first; when only sections' steps are ready it runs one section to its end
// on its own steps and the floating nodes allowed inside it, and keeps that
// run if the section completes (taking nodes early never hurts the other
// constraints, and the run takes nothing another section needs kept apart),
// else tries the next.
// Incremental checks. The explorer grows a consistent graph one event at a
// time, so the checker keeps an order in the graph: every event's key
// (Event::orderKey) is its node's place in a chronological order of the graph.
// A new event e (the graph's only unplaced one) is allowed when it fits
// between the keys of the nodes that must come before it (its thread's
// timed predecessors, the write it reads, an earlier co write and the reads
// of that write) and those that must come after it (the co-successor of what
// it reads or of itself). Most events have nothing after them and go at the
// end in constant time. When e does not fit the kept order (another order
// might still allow it) or anything is unusual, the checker builds the
// constraint edges and mends the kept order: only the nodes between e's
// successors and its predecessors move (mend); a cycle there rules the
// graph out. When that fails too it sorts from scratch and, when the graph
// is allowed, rewrites every key from the order found. Only unbounded
// buffers (and SC) use keys: a bound's gates count flushes, which a pair of
// keys cannot express.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/check.h"
#include "engine/graph.h"
#include "engine/memory_model.h"

namespace tsocheck {

// One element of a chronological order: an event's timed node (for a buffered
// store: its flush) or a gate.
struct OrderNode {
  EventId event;
  bool gate = false;
};

class ConsistencyChecker {
 public:
  explicit ConsistencyChecker(MemoryModel m) : mm_(m) {}
  // True when g is allowed; fills *order (if given) with a chronological order.
  bool consistent(const Graph& g, std::vector<OrderNode>* order = nullptr);
  // True when some allowed order puts `first`'s node before `second`'s node.
  bool canOrderBefore(const Graph& g, EventId first, EventId second);

  // Incremental (see above). `added` is g's only unplaced event, the newest of
  // its thread, being tried with one choice of what it reads / where its write
  // goes. True when g is allowed; keys of other events may be rewritten (a
  // sort from scratch), `added` stays unplaced. With added = kInit: a sort
  // from scratch that keys every event when g is allowed.
  bool consistentWith(Graph& g, EventId added);
  // While a load's candidate writes are tried one after another on one
  // graph (only the load's reads-from changes between the checks; the
  // explorer opens this scope around that loop), the sorts and mends build
  // the edges of everything but the load once and add the load's own each
  // time.
  class LoadCandidates {
   public:
    LoadCandidates(ConsistencyChecker& c, const Graph& g, EventId load) : c_(c) {
      c_.same_ = {&g, load, g.nextStamp, false, false};
    }
    ~LoadCandidates() { c_.same_ = {}; }
    LoadCandidates(const LoadCandidates&) = delete;
    LoadCandidates& operator=(const LoadCandidates&) = delete;

   private:
    ConsistencyChecker& c_;
  };
  // Its two halves: the answer of the kept order (1 allowed, 0 ruled out, -1
  // none: `added` finds no place in it, another order may still allow g), and
  // the check without a place: the kept order mended around `added` (with
  // kInit: around every unkeyed event, which get keys), else a sort from
  // scratch (counted in Counts::mended / fromScratch).
  int byKeptOrder(const Graph& g, EventId added);
  bool fromScratch(Graph& g, EventId added);
  // False: a caller that ruled g out by an argument of its own (self-checks:
  // a logic_error when a sort allows g).
  bool ruledOut(const Graph& g);
  // A backward revisit's graph by its kept order: the kept events keep their
  // keys, and w (the revisiting write) and r (the read now reading it; kInit
  // when it was removed), each the newest of its thread, are placed anew, w
  // first. 1: allowed (every event has a key), 0: ruled out, -1: either found
  // no place (fromScratch(g, kInit) decides and keys every event).
  int revisitByKeptOrder(Graph& g, EventId w, EventId r);
  // `added`, now fixed (its choice made, g allowed), gets its key.
  void place(Graph& g, EventId added);
  // An event that nothing in g can follow (no memory read or write: fence,
  // spawn, join, exit, free, query, choice) goes at the end of the order.
  static void placeLast(Graph& g, EventId id);
  // Atomic sections (see above): whether g has an order in which every
  // section's steps are contiguous; open[t]: thread t is inside a section
  // at the end (its last section then comes after every other thread's
  // step). Fills *order (if given) with such an order.
  bool sectionsHold(const Graph& g, const std::vector<bool>& open, std::vector<OrderNode>* order = nullptr);
  // Tests: every incremental answer is compared with a sort from scratch and
  // every key written is checked against the constraints (a logic_error when
  // they disagree).
  void setSelfCheck(bool on) { selfCheck_ = on; }
  // Benchmarks: off, every check sorts from scratch.
  void setIncremental(bool on) { incrementalOn_ = on; }
  struct Counts {
    uint64_t atEnd = 0, between = 0, mended = 0, fromScratch = 0;
  };
  const Counts& counts() const { return counts_; }
  // Whether every event has a key and the keys order every constraint.
  bool keysHold(const Graph& g);

 private:
  bool run(const Graph& g, std::vector<OrderNode>* order, EventId extraFrom, EventId extraTo);
  // The constraint edges of g (false: g breaks a rule no order can mend):
  // per thread (program order, buffers, gates, joins), per read (reads-from,
  // from-read, forwarding, atomicity), then coherence.
  bool buildEdges(const Graph& g, EventId extraFrom, EventId extraTo);
  bool threadEdges(const Graph& g, uint32_t t);
  // own: the node of the read's thread's po-latest earlier store to its
  // location (null: none, or SC).
  bool readEdges(const Graph& g, EventId read, const uint32_t* own);
  uint32_t node(EventId id) const { return base_[id.thread] + id.index; }
  static constexpr uint32_t kNone = 0xFFFFFFFFu;  // no node
  void edge(uint32_t a, uint32_t b) {
    if (a != kNone && b != kNone) edges_.emplace_back(a, b);
  }
  // A topological sort of the edges honouring the gates; false on a cycle.
  // The nodes sorted go to *order (trace order: flushes late), or to fifo_:
  // by the order events were added (byStamp; for keys) or as found.
  bool sortNodes(const Graph& g, std::vector<OrderNode>* order, bool byStamp);
  // Of sortNodes' edges (indeg_, adjStart_, adj_; no gates): whether a
  // plain sort places every node (it leaves indeg_ as it was). Most graphs
  // sorted for keys are ruled out (a candidate the kept order has no room
  // for): this says so at a fraction of the ordered sort's cost.
  bool acyclic(uint32_t nNodes);
  // fromScratch's first try, on buildEdges' edges: the kept order mended
  // around the events without a key (`added`, or with kInit a backward
  // revisit's write and read, which get keys) by moving only the nodes in
  // the way. 1: allowed (those keys rewritten; `added` left unplaced with
  // room for it), 0: ruled out (a cycle), -1: neither (the sort decides).
  int mend(Graph& g, EventId added);
  // One node a, with the edges of node `later` (not placed yet) left out;
  // a's key in nodeKey_.
  int mendOne(Graph& g, uint32_t a, uint32_t later);
  // Whether nodeKey_ orders every edge but later's; if so, the moved nodes'
  // keys are written.
  bool keysFit(Graph& g, uint32_t later);
  // The event of node v < base_.back() (the sort's, the mend's and the keys' check).
  EventId eventOf(uint32_t v) const {
    const uint32_t t = uint32_t(std::upper_bound(base_.begin(), base_.end(), v) - base_.begin()) - 1;
    return EventId{t, v - base_[t]};
  }
  // stampKeys_ for the ordered sort (byStamp).
  void fillStampKeys(const Graph& g, uint32_t nNodes);
  // The key `added` can take in g's kept order; 0: no place found (an order
  // from scratch may still allow g); ~0: g breaks a rule no order mends.
  // `later`: an unplaced event that will be placed after added (its own
  // constraints with added are checked then).
  uint64_t slot(const Graph& g, EventId added, EventId later = kInit) const;
  // The largest key of the nodes of added's own thread that must precede it
  // (0 when none), or false when the scan gives up.
  bool threadPreds(const Graph& g, EventId added, bool forwarded, uint64_t* low) const;
  // id's key (and the graph's largest).
  static void setKey(Graph& g, EventId id, uint64_t key);
  // A fast answer (ok: allowed) as 1 / 0; with self-checks, compared with a
  // sort from scratch first (a logic_error naming `what` when they differ).
  int answer(const Graph& g, bool ok, const char* what);
  // Keys from the order just sorted (added: left unplaced).
  void rekey(Graph& g, EventId added);
  bool incremental() const { return incrementalOn_ && (mm_.bufferBound < 0 || !mm_.buffersStores()); }
  // The sorts' start: adjacency lists and in-degrees of edges_ over the
  // events and gates; the number of nodes.
  uint32_t startSort(const Graph& g);
  // sectionsHold's sort (see "Atomic sections" above).
  bool sortSections(const Graph& g, const std::vector<bool>& open, std::vector<OrderNode>* order);
  // The edges of g (buildEdges), with those of a load in a LoadCandidates
  // scope built once (base) and its own added (false: g breaks a rule).
  bool edgesFor(const Graph& g, EventId added);
  MemoryModel mm_;
  bool selfCheck_ = false, incrementalOn_ = true;
  bool sectionGates_ = false;  // threadEdges gives every store inside a section a gate (sectionsHold)
  struct SameBase {
    const Graph* graph = nullptr;
    EventId load = kInit;
    uint32_t stamp = 0;
    bool built = false, ok = false;  // baseEdges_ holds the edges without the load's (ok: no broken rule)
  };
  SameBase same_;
  EventId skipRead_ = kInit;  // buildEdges leaves this read's edges out
  std::vector<std::pair<uint32_t, uint32_t>> baseEdges_;
  mutable Counts counts_;
  std::vector<uint32_t> rank_;
  // Scratch buffers reused across calls.
  std::vector<uint32_t> base_;
  std::vector<uint32_t> indeg_;
  std::vector<uint32_t> adjStart_;
  std::vector<uint32_t> adj_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
  std::vector<uint32_t> gateThread_, gateNeed_, gateOf_;
  std::vector<int> coPos_;
  // Node of each write's co-successor (none: 0xFFFFFFFF), so that a read
  // finds the write after the one it reads without a location lookup.
  std::vector<uint32_t> coNext_;
  struct LocNode {
    Addr addr;
    uint32_t node;
  };
  std::vector<LocNode> lastStoreLoc_, ownLatest_;
  std::vector<uint32_t> sinceBarrier_, flushed_, fill_, fifo_;
  std::vector<std::vector<uint32_t>> waiting_;
  std::vector<uint32_t> degCopy_;
  std::vector<uint64_t> stampKeys_;
  std::vector<uint32_t> radjStart_, radj_, forward_, backward_, unplaced_, preds_, succs_, localId_, regionNodes_;  // mend
  std::vector<std::pair<uint32_t, uint32_t>> regionEdges_;
  std::vector<uint64_t> nodeKey_, pool_;
  std::vector<uint8_t> region_;
  using HeapItem = std::pair<uint64_t, uint32_t>;
  std::vector<HeapItem> heap_;
};

}  // namespace tsocheck

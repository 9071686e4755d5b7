// Is an execution graph consistent under RC11?
//
// RC11 is the C11 memory model as Lahav, Vafeiadis, Kang, Hur and Dreyer
// repair it ("Repairing Sequential Consistency in C/C++11", PLDI 2017), with
// release sequences as C++20 defines them (P0982; GenMC v0.11 does the
// same): only RMWs continue a release sequence, the releasing thread's own
// later relaxed stores do not. A graph is consistent when
//  * no thin air: po ∪ rf is acyclic (spawn and join count as po);
//  * coherence: hb; eco? is irreflexive;
//  * atomicity: an RMW's write is the immediate co-successor of the write
//    its read part reads (rmw ∩ (fr; mo) = ∅);
//  * SC: psc = psc_base ∪ psc_F is acyclic over the seq_cst events and
//    fences (the paper's definitions, with scb = sb ∪ sb≠loc; hb; sb≠loc ∪
//    hb|loc ∪ mo ∪ rb).
// hb = (sb ∪ sw)+, where sw = [E⊒rel]; ([F]; sb)?; rs; rf; [R⊒rlx]; (sb; [F])?;
// [E⊒acq] and rs = [W⊒rlx]; (rf; rmw)*; spawn and join synchronise. Locks
// are acquire RMWs, unlocks release RMWs; a compare-exchange that fails is
// a read with its failure order (graph.h c11Order). A plain access (MemOrder::
// NonAtomic) takes part in coherence but never synchronises.
//
// The graph keeps an RMW as one event with a read and a write part; the
// checker reads every rule on the two parts (an RMW's read part never reads
// "before" its own write part: rb excludes the event itself).
//
// hb is kept as one vector clock per event (hb predecessors of a thread form
// a po prefix), computed in one pass over a topological order of po ∪ rf,
// which the no-thin-air rule needs anyway; coherence is checked per location
// on pairs of accesses, the SC condition on bit matrices (only when the
// graph has at least two seq_cst events). RC11 has no chronological order
// to keep (Event::orderKey stays unused): a full check starts from scratch,
// and a new access is judged by a walk back over its hb prefix alone
// (extension).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/consistency.h"  // OrderNode
#include "engine/graph.h"

namespace tsocheck {

class Rc11Checker {
 public:
  // True when g is RC11-consistent; fills *order (if given) with an order of
  // the graph's events consistent with po ∪ rf (by stamp where free).
  bool consistent(const Graph& g, std::vector<OrderNode>* order = nullptr);

  // One new access, checked without a pass over the whole graph where that
  // is exact. e is the newest event of its thread, nothing reads it, it is a
  // load, store, RMW or mutex operation (its rf and co position being the
  // candidate), and g without e is RC11-consistent. Then e happens before
  // nothing, so every new cycle passes through e:
  //  * coherence: e's rf must not be co-before, and e's write part must be
  //    co-after, what e's hb predecessors wrote or read at e's location;
  //    what e's own rf brings in through sw cannot be co-after that rf (g
  //    would not be coherent);
  //  * atomicity: e's write part follows its rf at once, and it does not come
  //    between another RMW and the write that RMW read;
  //  * no thin air: nothing follows e in po ∪ rf;
  //  * SC, when g has no seq_cst fence: psc edges leave e only when e is
  //    seq_cst and a write is co-after e's rf or e's write part.
  // Outside those cases (a seq_cst fence in g, a seq_cst access with a
  // co-later write) the check runs from scratch.
  struct Extension {
    bool usable = false;  // e is an access and g has no seq_cst fence
    int bound = -1;       // the newest co index e's hb predecessors write or read at e's location (-1: init)
  };
  Extension extension(const Graph& g, EventId e);
  // consistent(g) for e's candidate; *ext is extension(g, e), computed on
  // first use and kept for e's other candidates (only e's rf or co position
  // may change between calls).
  bool consistentExtension(const Graph& g, EventId e, std::optional<Extension>* ext);
  // consistent(g) for a backward revisit: w, the newest event of its thread,
  // has its co position, and r, the newest of its own, reads w (its write
  // part right after w); g without r and w is a porf-closed part of a
  // consistent graph. Judged as two extensions, w then r, where those apply.
  bool consistentRevisit(const Graph& g, EventId w, EventId r);
  // Whether `first` may be placed before `second`: second does not happen
  // before first (g must be consistent).
  bool canOrderBefore(const Graph& g, EventId first, EventId second);
  // Whether a happens before b in g (g must be consistent; false when not).
  bool happensBefore(const Graph& g, EventId a, EventId b);
  // RC11's hb of g for the race detector (engine/races.h): computeHb (false
  // when po ∪ rf has a cycle), then hbOrder, every event in an order that
  // extends hb, and hbClock(e)[u], the number of thread u's events that
  // happen before e or are e — valid until the next call on this checker.
  bool computeHb(const Graph& g) { return orderAndClocks(g); }
  const std::vector<EventId>& hbOrder() const { return topo_; }
  const uint32_t* hbClock(EventId e) const { return clock_.data() + size_t(node(e)) * nThreads_; }

  // What explains an execution's reads (traces: engine/trace.cpp), from the
  // same pass that checks it. Per event, thread by thread (index [t][i]):
  //  * clock: per thread u, how many of u's events happen before or equal it;
  //  * sw: the events it synchronises with, from other threads: the release
  //    writes (or the release fences before them) whose release sequences it
  //    acquires (an acquire fence: what its thread's earlier atomic reads
  //    read), a thread's spawn for its first event, and a joined thread's
  //    last event for the join.
  struct HbFacts {
    std::vector<std::vector<std::vector<uint32_t>>> clock;
    std::vector<std::vector<std::vector<EventId>>> sw;
  };
  // False (and *out untouched) when po ∪ rf has a cycle.
  bool hbFacts(const Graph& g, HbFacts* out);

 private:
  // Nodes: the events of g, thread by thread (base_[t] + index).
  uint32_t node(EventId id) const { return base_[id.thread] + id.index; }
  // The topological order of po ∪ rf (false: a cycle) and the hb clocks.
  // With sw (per node), each event's sw sources (HbFacts::sw) too.
  bool orderAndClocks(const Graph& g, std::vector<std::vector<EventId>>* sw = nullptr);
  // The extension test of e (ext = extension(g, e)), as if `after` (or
  // kInit), whose write part follows e in co, were not in g yet. Unsure: a
  // seq_cst e with a co-later write, which needs the check from scratch.
  enum class Verdict { Inconsistent, Consistent, Unsure };
  Verdict judgeExtension(const Graph& g, EventId e, const Extension& ext, EventId after);
  bool hb(EventId a, EventId b) const {  // a strictly happens before b
    return !(a == b) && a.index < clock_[size_t(node(b)) * nThreads_ + a.thread];
  }
  bool coherent(const Graph& g) const;
  bool scAcyclic(const Graph& g);
  // view_: per thread, how many of its events happen before or equal
  // `from`, by a walk back over po, spawn, join and sw from it (only the
  // prefix is visited; relFences_ must hold each thread's release fences);
  // rfsAtLoc_: what the prefix's reads of `loc` read (init left out).
  void hbPrefix(const Graph& g, EventId from, const Location* loc);

  uint32_t nThreads_ = 0, nNodes_ = 0;
  std::vector<uint32_t> base_;
  std::vector<EventId> topo_;
  std::vector<uint32_t> clock_;  // nNodes_ x nThreads_: per event, hb-or-equal prefix lengths
  // extension / hbPrefix scratch, kept to spare allocations.
  std::vector<std::vector<uint32_t>> relFences_;  // per thread: indices of its release fences
  std::vector<uint32_t> view_, scanned_, work_;
  std::vector<std::vector<EventId>> pending_;     // per thread: release heads its scanned atomic reads met
  std::vector<EventId> rfsAtLoc_;
};

}  // namespace tsocheck

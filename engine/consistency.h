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
#pragma once

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

 private:
  bool run(const Graph& g, std::vector<OrderNode>* order, EventId extraFrom, EventId extraTo);
  MemoryModel mm_;
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
};

}  // namespace tsocheck

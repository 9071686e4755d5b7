#include "engine/consistency.h"

#include <algorithm>
#include <queue>

namespace tsocheck {

namespace {
constexpr uint32_t kNone = 0xFFFFFFFFu;

template <class LocNode>
uint32_t* findLocNode(std::vector<LocNode>& v, Addr a) {
  for (LocNode& x : v)
    if (x.addr == a) return &x.node;
  return nullptr;
}
}  // namespace

bool ConsistencyChecker::consistent(const Graph& g, std::vector<OrderNode>* order) {
  return run(g, order, kInit, kInit);
}

bool ConsistencyChecker::canOrderBefore(const Graph& g, EventId first, EventId second) {
  return run(g, nullptr, first, second);
}

bool ConsistencyChecker::run(const Graph& g, std::vector<OrderNode>* order, EventId extraFrom,
                             EventId extraTo) {
  const bool sc = !mm_.buffersStores();  // every event timed in program order
  const bool perLocation = mm_.perLocationBuffers();
  const bool barrierOrders = mm_.storeStoreBarrierOrdersFlushes();
  const bool forwards = mm_.forwardsFromBuffer();
  const int k = mm_.bufferBound;

  const uint32_t nThreads = uint32_t(g.threads.size());
  base_.assign(nThreads + 1, 0);
  for (uint32_t t = 0; t < nThreads; ++t) base_[t + 1] = base_[t] + uint32_t(g.threads[t].events.size());
  const uint32_t nEvents = base_[nThreads];
  auto node = [&](EventId id) { return base_[id.thread] + id.index; };

  // Coherence position of every write (-2: not in co), for O(1) lookups.
  coPos_.assign(nEvents, -2);
  coNext_.resize(nEvents);
  for (const Location& l : g.locs)
    for (size_t i = 0; i < l.co.size(); ++i) {
      coPos_[node(l.co[i])] = int(i);
      coNext_[node(l.co[i])] = i + 1 < l.co.size() ? node(l.co[i + 1]) : kNone;
    }
  auto coIndex = [&](EventId w) { return w.isInit() ? -1 : coPos_[node(w)]; };

  edges_.clear();
  gateThread_.clear();
  gateNeed_.clear();
  gateOf_.clear();  // gate -> (thread, store index) for ordering output
  auto edge = [&](uint32_t a, uint32_t b) {
    if (a != kNone && b != kNone) edges_.emplace_back(a, b);
  };

  auto& lastStoreLoc = lastStoreLoc_;
  auto& ownLatest = ownLatest_;
  auto& sinceBarrier = sinceBarrier_;
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (th.events.empty()) continue;
    uint32_t prevTimed = kNone;
    if (t != 0) prevTimed = base_[th.parent] + th.spawnIndex;
    uint32_t lastStore = kNone, lastBarrier = kNone, lastGate = kNone, gatePending = kNone;
    uint32_t storeCount = 0;
    lastStoreLoc.clear();
    ownLatest.clear();
    sinceBarrier.clear();
    for (uint32_t i = 0; i < th.events.size(); ++i) {
      const Event& e = th.events[i];
      const uint32_t n = base_[t] + i;
      if (sc) {
        edge(prevTimed, n);
        prevTimed = n;
      } else if (e.kind == EvKind::Store) {
        edge(prevTimed, n);
        edge(lastBarrier, n);
        if (perLocation) {
          if (uint32_t* p = findLocNode(lastStoreLoc, e.addr)) edge(*p, n);
        } else {
          edge(lastStore, n);
        }
        ++storeCount;
        if (k > 0 && storeCount > uint32_t(k)) {
          uint32_t gnode = nEvents + uint32_t(gateThread_.size());
          gateThread_.push_back(t);
          gateNeed_.push_back(storeCount - uint32_t(k));
          gateOf_.push_back(i);
          edge(lastGate, gnode);
          edge(gnode, n);
          lastGate = gnode;
          gatePending = gnode;
        }
        lastStore = n;
        if (uint32_t* p = findLocNode(lastStoreLoc, e.addr)) *p = n;
        else lastStoreLoc.push_back({e.addr, n});
        if (barrierOrders) sinceBarrier.push_back(n);
      } else if (e.kind == EvKind::Fence && e.fence == FenceKind::StoreStore) {
        // A barrier node outside the chain of timed events.
        edge(prevTimed, n);
        edge(lastBarrier, n);
        for (uint32_t s : sinceBarrier) edge(s, n);
        sinceBarrier.clear();
        lastBarrier = n;
      } else {
        edge(prevTimed, n);
        edge(gatePending, n);
        gatePending = kNone;
        if (MemoryModel::drainsBuffer(e)) {
          if (perLocation) {
            for (const LocNode& ln : lastStoreLoc) edge(ln.node, n);
          } else {
            edge(lastStore, n);
          }
          lastStoreLoc.clear();
          lastStore = kNone;
          sinceBarrier.clear();
        }
        prevTimed = n;
      }
      if (e.kind == EvKind::Join) {
        const ThreadInfo& tgt = g.threads[e.aux];
        if (tgt.events.empty() || tgt.events.back().kind != EvKind::Exit) return false;
        edge(base_[e.aux] + uint32_t(tgt.events.size()) - 1, n);
      }
      if (e.reads) {
        if (!e.rf.isInit() && !g.contains(e.rf)) return false;
        int wi = coIndex(e.rf);
        if (!e.rf.isInit() && g.ev(e.rf).addr != e.addr) return false;
        if (wi == -2) return false;
        // The read sits before the co-successor of what it reads (for a
        // writing RMW that successor is itself; atomicity is checked below).
        // Only a read of the initial value needs its location.
        uint32_t succ = kNone;
        if (e.rf.isInit()) {
          const Location* loc = g.locOf(e);
          if (!loc) return false;
          if (!e.writes && !loc->co.empty()) succ = node(loc->co.front());
        } else if (!e.writes) {
          succ = coNext_[node(e.rf)];
        }
        const uint32_t* own = sc ? nullptr : findLocNode(ownLatest, e.addr);
        bool forwarded = forwards && e.kind == EvKind::Load && !e.rf.isInit() && e.rf.thread == t &&
                         g.ev(e.rf).kind == EvKind::Store;
        if (forwarded) {
          // Only the newest own store to the location can be forwarded.
          if (!own || *own != node(e.rf)) return false;
          edge(n, succ);
        } else {
          if (!e.rf.isInit()) edge(node(e.rf), n);
          edge(n, succ);
          if (own) edge(*own, n);
        }
        if (e.writes) {
          // Atomicity: the write part immediately follows the write read from.
          int me = coPos_[n];
          if (me != wi + 1) return false;
        }
      }
      if (!sc && e.kind == EvKind::Store) {
        uint32_t* p = findLocNode(ownLatest, e.addr);
        if (p) *p = n;
        else ownLatest.push_back({e.addr, n});
      }
    }
  }
  for (const Location& l : g.locs)
    for (size_t i = 0; i + 1 < l.co.size(); ++i) edge(node(l.co[i]), node(l.co[i + 1]));
  if (!extraFrom.isInit() && !extraTo.isInit()) edge(node(extraFrom), node(extraTo));

  // Greedy topological sort (Kahn) honouring the gates' flush counts.
  const uint32_t nGates = uint32_t(gateThread_.size());
  const uint32_t nNodes = nEvents + nGates;
  indeg_.assign(nNodes, 0);
  adjStart_.assign(nNodes + 1, 0);
  for (auto& [a, b] : edges_) {
    ++indeg_[b];
    ++adjStart_[a + 1];
  }
  for (uint32_t i = 0; i < nNodes; ++i) adjStart_[i + 1] += adjStart_[i];
  adj_.resize(edges_.size());
  fill_.assign(adjStart_.begin(), adjStart_.end() - 1);
  for (auto& [a, b] : edges_) adj_[fill_[a]++] = b;
  auto& flushed = flushed_;
  flushed.assign(nThreads, 0);
  // Gates whose predecessors are placed but whose count is not reached yet.
  auto& waiting = waiting_;
  if (waiting.size() < nThreads) waiting.resize(nThreads);
  for (uint32_t t = 0; t < nThreads; ++t) waiting[t].clear();

  // Thread of a node and whether it is a flush, for the output order.
  auto threadOf = [&](uint32_t v) -> uint32_t {
    if (v >= nEvents) return gateThread_[v - nEvents];
    return uint32_t(std::upper_bound(base_.begin(), base_.end(), v) - base_.begin()) - 1;
  };
  auto isFlush = [&](uint32_t v) {
    if (sc || v >= nEvents) return false;
    uint32_t t = threadOf(v);
    return g.threads[t].events[v - base_[t]].kind == EvKind::Store;
  };
  // Prefer non-flush events, then lower thread, then program order: buffered
  // stores stay buffered as long as possible in the reported order.
  auto key = [&](uint32_t v) -> uint64_t {
    uint32_t t = threadOf(v);
    uint32_t idx = v >= nEvents ? gateOf_[v - nEvents] : v - base_[t];
    return (uint64_t(isFlush(v)) << 63) | (uint64_t(t) << 32) | idx;
  };
  using Item = std::pair<uint64_t, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  auto& fifo = fifo_;
  fifo.clear();
  auto push = [&](uint32_t v) {
    if (order) heap.emplace(key(v), v);
    else fifo.push_back(v);
  };
  auto ready = [&](uint32_t v) {
    if (v >= nEvents) {
      uint32_t gi = v - nEvents;
      if (flushed[gateThread_[gi]] < gateNeed_[gi]) {
        waiting[gateThread_[gi]].push_back(v);
        return;
      }
    }
    push(v);
  };
  for (uint32_t v = 0; v < nNodes; ++v)
    if (indeg_[v] == 0) ready(v);
  if (order) order->clear();
  uint32_t placed = 0;
  size_t fifoPos = 0;
  for (;;) {
    uint32_t v;
    if (order) {
      if (heap.empty()) break;
      v = heap.top().second;
      heap.pop();
      order->push_back(OrderNode{v >= nEvents ? EventId{gateThread_[v - nEvents], gateOf_[v - nEvents]}
                                              : EventId{threadOf(v), v - base_[threadOf(v)]},
                                 v >= nEvents});
    } else {
      if (fifoPos == fifo.size()) break;
      v = fifo[fifoPos++];
    }
    ++placed;
    if (v < nEvents && !sc) {
      uint32_t t = threadOf(v);
      if (g.threads[t].events[v - base_[t]].kind == EvKind::Store) {
        ++flushed[t];
        auto& w = waiting[t];
        for (size_t i = 0; i < w.size();) {
          uint32_t gi = w[i] - nEvents;
          if (flushed[t] >= gateNeed_[gi]) {
            push(w[i]);
            w[i] = w.back();
            w.pop_back();
          } else {
            ++i;
          }
        }
      }
    }
    for (uint32_t i = adjStart_[v]; i < adjStart_[v + 1]; ++i)
      if (--indeg_[adj_[i]] == 0) ready(adj_[i]);
  }
  return placed == nNodes;
}

}  // namespace tsocheck

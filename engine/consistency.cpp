#include "engine/consistency.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace tsocheck {

namespace {
// Room between neighbouring keys: events fitted in later between two nodes
// take the middle, so about 20 can go into one gap before a sort from scratch.
constexpr uint64_t kKeyGap = uint64_t(1) << 20;
// How far back a thread's events are scanned for the ones a new event must
// follow before the incremental check gives up (and sorts from scratch).
constexpr uint32_t kScanLimit = 256;
// slot(): the graph breaks a rule no order can mend.
constexpr uint64_t kNever = ~uint64_t(0);

// Edges (from, to) over nodes 0..n-1 as adjacency lists (start, adj) by
// source node, or by target (backward); fill: scratch.
void adjacencyLists(const std::vector<std::pair<uint32_t, uint32_t>>& edges, uint32_t n, bool backward,
                    std::vector<uint32_t>& start, std::vector<uint32_t>& adj, std::vector<uint32_t>& fill) {
  start.assign(n + 1, 0);
  for (auto& [a, b] : edges) ++start[(backward ? b : a) + 1];
  for (uint32_t i = 0; i < n; ++i) start[i + 1] += start[i];
  adj.resize(edges.size());
  fill.assign(start.begin(), start.end() - 1);
  for (auto& [a, b] : edges) {
    if (backward) adj[fill[b]++] = a;
    else adj[fill[a]++] = b;
  }
}

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
  return buildEdges(g, extraFrom, extraTo) && sortNodes(g, order, false);
}

bool ConsistencyChecker::buildEdges(const Graph& g, EventId extraFrom, EventId extraTo) {
  const uint32_t nThreads = uint32_t(g.threads.size());
  base_.assign(nThreads + 1, 0);
  for (uint32_t t = 0; t < nThreads; ++t) base_[t + 1] = base_[t] + uint32_t(g.threads[t].events.size());
  const uint32_t nEvents = base_[nThreads];
  // Coherence position of every write (-2: not in co), for O(1) lookups.
  coPos_.assign(nEvents, -2);
  coNext_.resize(nEvents);
  for (const Location& l : g.locs)
    for (size_t i = 0; i < l.co.size(); ++i) {
      coPos_[node(l.co[i])] = int(i);
      coNext_[node(l.co[i])] = i + 1 < l.co.size() ? node(l.co[i + 1]) : kNone;
    }
  edges_.clear();
  gateThread_.clear();
  gateNeed_.clear();
  gateOf_.clear();  // gate -> (thread, store index) for ordering output
  for (uint32_t t = 0; t < nThreads; ++t)
    if (!threadEdges(g, t)) return false;
  for (const Location& l : g.locs)
    for (size_t i = 0; i + 1 < l.co.size(); ++i) edge(node(l.co[i]), node(l.co[i + 1]));
  if (!extraFrom.isInit() && !extraTo.isInit()) edge(node(extraFrom), node(extraTo));
  return true;
}

bool ConsistencyChecker::threadEdges(const Graph& g, uint32_t t) {
  const bool sc = !mm_.buffersStores();  // every event timed in program order
  const bool perLocation = mm_.perLocationBuffers();
  const bool barrierOrders = mm_.storeStoreBarrierOrdersFlushes();
  const int k = mm_.bufferBound;
  const uint32_t nEvents = base_[g.threads.size()];
  const ThreadInfo& th = g.threads[t];
  if (th.events.empty()) return true;
  uint32_t prevTimed = kNone;
  if (t != 0) prevTimed = base_[th.parent] + th.spawnIndex;
  uint32_t lastStore = kNone, lastBarrier = kNone, lastGate = kNone, gatePending = kNone;
  uint32_t storeCount = 0;
  auto& lastStoreLoc = lastStoreLoc_;
  auto& sinceBarrier = sinceBarrier_;
  lastStoreLoc.clear();
  ownLatest_.clear();
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
      // (sectionsHold: a store issued inside a section gets a gate with no
      // count, the moment of its issue, a step of the section.)
      const bool bounded = k > 0 && storeCount > uint32_t(k);
      if (bounded || (sectionGates_ && (e.section & kInSection))) {
        uint32_t gnode = nEvents + uint32_t(gateThread_.size());
        gateThread_.push_back(t);
        gateNeed_.push_back(bounded ? storeCount - uint32_t(k) : 0);
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
    if (e.reads && !(t == skipRead_.thread && i == skipRead_.index) &&
        !readEdges(g, EventId{t, i}, sc ? nullptr : findLocNode(ownLatest_, e.addr)))
      return false;
    if (!sc && e.kind == EvKind::Store) {
      if (uint32_t* p = findLocNode(ownLatest_, e.addr)) *p = n;
      else ownLatest_.push_back({e.addr, n});
    }
  }
  return true;
}

bool ConsistencyChecker::edgesFor(const Graph& g, EventId added) {
  if (same_.graph != &g || same_.load != added || same_.stamp != g.nextStamp || added.isInit())
    return buildEdges(g, kInit, kInit);
  if (!same_.built) {
    same_.built = true;
    skipRead_ = added;
    same_.ok = buildEdges(g, kInit, kInit);
    skipRead_ = kInit;
    baseEdges_ = edges_;
  }
  if (!same_.ok) return false;
  edges_ = baseEdges_;
  // The load is its thread's newest event: its po-latest earlier store to
  // the location is what threadEdges would have found.
  const auto& evs = g.threads[added.thread].events;
  const Addr addr = evs[added.index].addr;
  uint32_t ownNode = kNone;
  if (mm_.buffersStores())
    for (uint32_t j = added.index; j-- > 0;)
      if (evs[j].kind == EvKind::Store && evs[j].addr == addr) {
        ownNode = node(EventId{added.thread, j});
        break;
      }
  return readEdges(g, added, ownNode == kNone ? nullptr : &ownNode);
}

bool ConsistencyChecker::readEdges(const Graph& g, EventId id, const uint32_t* own) {
  const Event& e = g.ev(id);
  const uint32_t n = node(id);
  if (!e.rf.isInit() && !g.contains(e.rf)) return false;
  const int wi = e.rf.isInit() ? -1 : coPos_[node(e.rf)];
  if (!e.rf.isInit() && g.ev(e.rf).addr != e.addr) return false;
  if (wi == -2) return false;
  // The read sits before the co-successor of what it reads (for a writing
  // RMW that successor is itself; atomicity is checked below). Only a read of
  // the initial value needs its location.
  uint32_t succ = kNone;
  if (e.rf.isInit()) {
    const Location* loc = g.locOf(e);
    if (!loc) return false;
    if (!e.writes && !loc->co.empty()) succ = node(loc->co.front());
  } else if (!e.writes) {
    succ = coNext_[node(e.rf)];
  }
  const bool forwarded = mm_.forwardsFromBuffer() && e.kind == EvKind::Load && !e.rf.isInit() &&
                         e.rf.thread == id.thread && g.ev(e.rf).kind == EvKind::Store;
  if (forwarded) {
    // Only the newest own store to the location can be forwarded.
    if (!own || *own != node(e.rf)) return false;
    edge(n, succ);
  } else {
    if (!e.rf.isInit()) edge(node(e.rf), n);
    edge(n, succ);
    if (own) edge(*own, n);
  }
  // Atomicity: the write part immediately follows the write read from.
  return !e.writes || coPos_[n] == wi + 1;
}

uint32_t ConsistencyChecker::startSort(const Graph& g) {
  const uint32_t nNodes = base_[g.threads.size()] + uint32_t(gateThread_.size());
  adjacencyLists(edges_, nNodes, false, adjStart_, adj_, fill_);
  indeg_.assign(nNodes, 0);
  for (auto& [a, b] : edges_) ++indeg_[b];
  return nNodes;
}

bool ConsistencyChecker::sortNodes(const Graph& g, std::vector<OrderNode>* order, bool byStamp) {
  // Greedy topological sort (Kahn) honouring the gates' flush counts.
  const bool sc = !mm_.buffersStores();
  const uint32_t nThreads = uint32_t(g.threads.size());
  const uint32_t nEvents = base_[nThreads];
  const uint32_t nGates = uint32_t(gateThread_.size());
  const uint32_t nNodes = startSort(g);
  auto& flushed = flushed_;
  flushed.assign(nThreads, 0);
  // Gates whose predecessors are placed but whose count is not reached yet.
  auto& waiting = waiting_;
  if (waiting.size() < nThreads) waiting.resize(nThreads);
  for (uint32_t t = 0; t < nThreads; ++t) waiting[t].clear();
  // (For keys: most graphs are ruled out, which a plain sort finds cheaper.)
  if (byStamp && !order && nGates == 0 && !acyclic(nNodes)) return false;
  if (byStamp && !order) fillStampKeys(g, nNodes);

  // Thread of a node and whether it is a flush, for the output order.
  auto threadOf = [&](uint32_t v) -> uint32_t { return v >= nEvents ? gateThread_[v - nEvents] : eventOf(v).thread; };
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
  auto& heap = heap_;
  heap.clear();
  auto& fifo = fifo_;
  fifo.clear();
  // For keys (byStamp): stampKeys_, filled above.
  const std::greater<HeapItem> later;
  auto push = [&](uint32_t v) {
    if (order || byStamp) {
      heap.emplace_back(order ? key(v) : stampKeys_[v], v);
      std::push_heap(heap.begin(), heap.end(), later);
    } else {
      fifo.push_back(v);
    }
  };
  auto pop = [&]() {
    std::pop_heap(heap.begin(), heap.end(), later);
    const uint32_t v = heap.back().second;
    heap.pop_back();
    return v;
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
      v = pop();
      order->push_back(OrderNode{v >= nEvents ? EventId{gateThread_[v - nEvents], gateOf_[v - nEvents]}
                                              : EventId{threadOf(v), v - base_[threadOf(v)]},
                                 v >= nEvents});
    } else if (byStamp) {
      if (heap.empty()) break;
      v = pop();
      fifo.push_back(v);
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

bool ConsistencyChecker::sectionsHold(const Graph& g, const std::vector<bool>& open, std::vector<OrderNode>* order) {
  sectionGates_ = true;
  const bool edges = buildEdges(g, kInit, kInit);
  sectionGates_ = false;
  return edges && sortSections(g, open, order);
}

bool ConsistencyChecker::sortSections(const Graph& g, const std::vector<bool>& open, std::vector<OrderNode>* order) {
  const bool sc = !mm_.buffersStores();
  const uint32_t nThreads = uint32_t(g.threads.size());
  const uint32_t nEvents = base_[nThreads];
  const uint32_t nGates = uint32_t(gateThread_.size());
  const uint32_t nNodes = startSort(g);
  auto threadOf = [&](uint32_t v) -> uint32_t { return v >= nEvents ? gateThread_[v - nEvents] : eventOf(v).thread; };
  auto isFlush = [&](uint32_t v) {
    if (sc || v >= nEvents) return false;
    const EventId id = eventOf(v);
    return g.threads[id.thread].events[id.index].kind == EvKind::Store;
  };
  // A flush or a store-store barrier's node: no step of its thread (it may
  // lie inside another thread's section).
  auto floats = [&](uint32_t v) {
    if (v >= nEvents) return false;
    const EventId id = eventOf(v);
    const Event& e = g.threads[id.thread].events[id.index];
    return isFlush(v) || (e.kind == EvKind::Fence && e.fence == FenceKind::StoreStore);
  };
  // Sections (groups of steps), and for every floating node the step its
  // store's (barrier's) issue follows (kNone: the program's start). A
  // thread inside a section at the end (`open`): its last section, which
  // only starts once every other thread's step is taken.
  std::vector<uint32_t> group(nNodes, kNone), issueAfter(nNodes, kNone), groupThread, groupSize;
  std::vector<uint8_t> groupOpen;
  uint32_t stepsLeft = 0;
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    uint32_t prevStep = t != 0 && !th.events.empty() ? base_[th.parent] + th.spawnIndex : kNone;
    uint32_t cur = kNone;
    for (uint32_t i = 0; i < th.events.size(); ++i) {
      const Event& e = th.events[i];
      const uint32_t n = base_[t] + i;
      if (!(e.section & kInSection)) cur = kNone;
      else if ((e.section & kSectionStart) || cur == kNone) {
        cur = uint32_t(groupThread.size());
        groupThread.push_back(t);
        groupSize.push_back(0);
        groupOpen.push_back(0);
      }
      if (floats(n)) {
        issueAfter[n] = prevStep;
      } else {
        prevStep = n;
        ++stepsLeft;
        if (cur != kNone) {
          group[n] = cur;
          ++groupSize[cur];
        }
      }
      // (A store's gate is a step: inside the store's section if it has one.)
      if (cur != kNone && isFlush(n))
        for (uint32_t gi = 0; gi < nGates; ++gi)
          if (gateThread_[gi] == t && gateOf_[gi] == i) {
            group[nEvents + gi] = cur;
            ++groupSize[cur];
          }
    }
    if (cur != kNone && t < open.size() && open[t]) groupOpen[cur] = 1;
  }
  stepsLeft += nGates;
  auto key = [&](uint32_t v) -> uint64_t {
    const uint32_t t = threadOf(v);
    const uint32_t idx = v >= nEvents ? gateOf_[v - nEvents] : v - base_[t];
    return (uint64_t(isFlush(v)) << 63) | (uint64_t(t) << 32) | idx;
  };
  using Heap = std::vector<HeapItem>;
  const std::greater<HeapItem> later;
  auto push = [&](Heap& h, uint32_t v) {
    h.emplace_back(key(v), v);
    std::push_heap(h.begin(), h.end(), later);
  };
  auto pop = [&](Heap& h) {
    std::pop_heap(h.begin(), h.end(), later);
    const uint32_t v = h.back().second;
    h.pop_back();
    return v;
  };
  auto& flushed = flushed_;
  flushed.assign(nThreads, 0);
  auto& waiting = waiting_;  // gates whose flush count is not reached yet
  if (waiting.size() < nThreads) waiting.resize(nThreads);
  for (uint32_t t = 0; t < nThreads; ++t) waiting[t].clear();
  std::vector<uint32_t> takenAt(nNodes, kNone);
  Heap main, inside;                    // ready nodes outside any section run; inside the one being run
  std::vector<uint32_t> parked, defer;  // ready section steps; nodes a section run leaves for later
  uint32_t running = kNone;             // the section being run
  uint32_t pos = 0, runStart = 0;       // nodes taken; when the run began
  // Inside a run: its section's steps, and flushes of stores issued before
  // it began (the section's own thread's: issued before or inside it).
  auto allowedInside = [&](uint32_t v) {
    if (group[v] == running) return true;
    if (!floats(v)) return false;
    const uint32_t before = issueAfter[v];
    return threadOf(v) == groupThread[running] || before == kNone || takenAt[before] < runStart;
  };
  auto ready = [&](uint32_t v) {
    if (v >= nEvents && flushed[gateThread_[v - nEvents]] < gateNeed_[v - nEvents]) {
      waiting[gateThread_[v - nEvents]].push_back(v);
      return;
    }
    if (running != kNone) {
      if (allowedInside(v)) push(inside, v);
      else defer.push_back(v);
    } else if (group[v] != kNone) {
      parked.push_back(v);
    } else {
      push(main, v);
    }
  };
  auto take = [&](uint32_t v) {
    takenAt[v] = pos++;
    if (!floats(v)) --stepsLeft;
    if (order)
      order->push_back(OrderNode{v >= nEvents ? EventId{gateThread_[v - nEvents], gateOf_[v - nEvents]} : eventOf(v),
                                 v >= nEvents});
    if (isFlush(v)) {
      const uint32_t t = threadOf(v);
      ++flushed[t];
      auto& w = waiting[t];
      for (size_t i = 0; i < w.size();) {
        if (flushed[t] >= gateNeed_[w[i] - nEvents]) {
          const uint32_t gv = w[i];
          w[i] = w.back();
          w.pop_back();
          ready(gv);
        } else {
          ++i;
        }
      }
    }
    for (uint32_t i = adjStart_[v]; i < adjStart_[v + 1]; ++i)
      if (--indeg_[adj_[i]] == 0) ready(adj_[i]);
  };
  auto undo = [&](uint32_t v) {
    takenAt[v] = kNone;
    --pos;
    if (!floats(v)) ++stepsLeft;
    if (isFlush(v)) --flushed[threadOf(v)];
    for (uint32_t i = adjStart_[v]; i < adjStart_[v + 1]; ++i) ++indeg_[adj_[i]];
  };
  if (order) order->clear();
  for (uint32_t v = 0; v < nNodes; ++v)
    if (indeg_[v] == 0) ready(v);
  std::vector<uint32_t> run;
  std::vector<std::vector<uint32_t>> waitingBefore;
  for (;;) {
    if (!main.empty()) {
      take(pop(main));
      continue;
    }
    bool progressed = false;
    for (size_t p = 0; p < parked.size() && !progressed; ++p) {
      const uint32_t gid = group[parked[p]];
      if (takenAt[parked[p]] != kNone || (groupOpen[gid] && stepsLeft != groupSize[gid])) continue;
      // Run section gid from here: its steps and the flushes allowed inside.
      running = gid;
      runStart = pos;
      inside.clear();
      defer.clear();
      run.clear();
      waitingBefore.assign(waiting.begin(), waiting.begin() + nThreads);
      const size_t orderSize = order ? order->size() : 0;
      for (uint32_t v : parked)
        if (group[v] == gid && takenAt[v] == kNone) push(inside, v);
      uint32_t done = 0;
      while (done < groupSize[gid] && !inside.empty()) {
        const uint32_t v = pop(inside);
        if (group[v] == gid) ++done;
        run.push_back(v);
        take(v);
      }
      running = kNone;
      if (done == groupSize[gid]) {
        progressed = true;
        for (uint32_t v : defer) ready(v);
        while (!inside.empty()) ready(pop(inside));
      } else {
        for (size_t i = run.size(); i-- > 0;) undo(run[i]);
        for (uint32_t t = 0; t < nThreads; ++t) waiting[t] = waitingBefore[t];
        if (order) order->resize(orderSize);
      }
    }
    if (!progressed) break;
    parked.erase(std::remove_if(parked.begin(), parked.end(), [&](uint32_t v) { return takenAt[v] != kNone; }),
                 parked.end());
  }
  return pos == nNodes;
}

bool ConsistencyChecker::acyclic(uint32_t nNodes) {
  auto& deg = degCopy_;
  deg = indeg_;
  fifo_.clear();
  for (uint32_t v = 0; v < nNodes; ++v)
    if (deg[v] == 0) fifo_.push_back(v);
  for (size_t p = 0; p < fifo_.size(); ++p)
    for (uint32_t i = adjStart_[fifo_[p]]; i < adjStart_[fifo_[p] + 1]; ++i)
      if (--deg[adj_[i]] == 0) fifo_.push_back(adj_[i]);
  return fifo_.size() == nNodes;
}

void ConsistencyChecker::fillStampKeys(const Graph& g, uint32_t nNodes) {
  // Flushes late too, then the order the events were added in, so that the
  // events added next fit the kept order most often.
  const bool sc = !mm_.buffersStores();
  stampKeys_.assign(nNodes, 0);
  for (uint32_t t = 0; t < g.threads.size(); ++t) {
    uint32_t v = base_[t];
    for (const Event& e : g.threads[t].events) stampKeys_[v++] = (uint64_t(!sc && e.kind == EvKind::Store) << 63) | e.stamp;
  }
}

// ---- Incremental checks -------------------------------------------------

void ConsistencyChecker::placeLast(Graph& g, EventId id) {
  g.maxOrderKey += kKeyGap;
  g.mut(id).orderKey = g.maxOrderKey;
}

void ConsistencyChecker::setKey(Graph& g, EventId id, uint64_t key) {
  g.mut(id).orderKey = key;
  g.maxOrderKey = std::max(g.maxOrderKey, key);
}

int ConsistencyChecker::answer(const Graph& g, bool ok, const char* what) {
  if (selfCheck_ && run(g, nullptr, kInit, kInit) != ok)
    throw std::logic_error(std::string("consistency: ") + what + (ok ? " allowed" : " ruled out") +
                           " is not what a sort from scratch says");
  return ok ? 1 : 0;
}

int ConsistencyChecker::byKeptOrder(const Graph& g, EventId added) {
  if (!incremental() || added.isInit()) return -1;
  const uint64_t key = slot(g, added);
  return key ? answer(g, key != kNever, "a graph its kept order") : -1;
}

bool ConsistencyChecker::ruledOut(const Graph& g) { return answer(g, false, "a graph its caller") == 1; }

bool ConsistencyChecker::consistentWith(Graph& g, EventId added) {
  if (const int kept = byKeptOrder(g, added); kept >= 0) return kept == 1;
  return fromScratch(g, added);
}

bool ConsistencyChecker::fromScratch(Graph& g, EventId added) {
  if (!edgesFor(g, added)) return answer(g, false, "a graph its edges") == 1;
  if (const int mended = mend(g, added); mended >= 0) {
    ++counts_.mended;
    if (selfCheck_ && mended == 1 && added.isInit() && !keysHold(g))
      throw std::logic_error("incremental consistency: the mended keys break a constraint");
    return answer(g, mended == 1, "a graph its mended order") == 1;
  }
  ++counts_.fromScratch;
  const bool ok = sortNodes(g, nullptr, incremental());
  if (ok && incremental()) rekey(g, added);
  return ok;
}

int ConsistencyChecker::mend(Graph& g, EventId added) {
  // The nodes without a key (a new access; a backward revisit's write and
  // read) are fitted in one at a time, each with the later ones left out.
  if (!incremental() || !gateThread_.empty()) return -1;
  const uint32_t nNodes = base_[g.threads.size()];
  nodeKey_.resize(nNodes);
  unplaced_.clear();
  for (uint32_t t = 0; t < g.threads.size(); ++t) {
    const auto& evs = g.threads[t].events;
    const uint32_t b = base_[t];
    evs.forRange(0, evs.size(), [&](const Event& e, size_t i) {
      if ((nodeKey_[b + i] = e.orderKey) == 0) unplaced_.push_back(b + uint32_t(i));
    });
  }
  if (unplaced_.size() > 2 || (!added.isInit() && (unplaced_.size() != 1 || unplaced_[0] != node(added)))) return -1;
  if (unplaced_.size() == 2)
    for (auto& [x, y] : edges_)
      if (x == unplaced_[1] && y == unplaced_[0]) {
        std::swap(unplaced_[0], unplaced_[1]);
        break;
      }
  if (unplaced_.empty()) {  // nothing moves: the kept keys must order every edge
    forward_.clear();
    backward_.clear();
    return keysFit(g, kNone) ? 1 : -1;
  }
  for (size_t k = 0; k < unplaced_.size(); ++k) {
    const uint32_t a = unplaced_[k], later = k + 1 < unplaced_.size() ? unplaced_[k + 1] : kNone;
    if (const int r = mendOne(g, a, later); r != 1) return r;
    if (added.isInit()) setKey(g, eventOf(a), nodeKey_[a]);
  }
  if (added.isInit()) g.unplaced = 0;
  return 1;
}

int ConsistencyChecker::mendOne(Graph& g, uint32_t a, uint32_t later) {
  // Pearce and Kelly's dynamic topological order, for one new node a: with
  // lb the largest key of a's predecessors and ub the smallest of its
  // successors (lb >= ub: no room), F = what a's successors reach forward
  // through keys <= lb, B = what reaches a's predecessors backward through
  // keys >= ub. A path from a successor to a predecessor stays in [ub, lb],
  // so a predecessor in F is a cycle; otherwise B's nodes take the smallest of
  // F ∪ B's keys and F's the largest (each keeping its order), which leaves
  // every edge ordered and room for a between them. Both searches stay in
  // the region [ub, lb] (adjacency lists of its edges only), so a mend costs
  // O(edges) at most, less than the sort. The keys are checked against every
  // edge before they are written, else the sort decides: keys are not unique
  // (an event fitted into a gap takes its middle whatever unrelated events
  // sit there), and two nodes moved together may end up with one key.
  uint64_t lb = 0, ub = kNever;
  preds_.clear();
  succs_.clear();
  for (auto& [x, y] : edges_) {
    if (x == later || y == later) continue;
    if (y == a) {
      if (x == a || nodeKey_[x] == 0) return -1;
      lb = std::max(lb, nodeKey_[x]);
      preds_.push_back(x);
    } else if (x == a) {
      ub = std::min(ub, nodeKey_[y]);
      succs_.push_back(y);
    }
  }
  forward_.clear();
  backward_.clear();
  if (lb < ub) {  // room already (the slot's own scan gave up)
    if (ub == kNever) nodeKey_[a] = std::max(lb, g.maxOrderKey) + kKeyGap;
    else if (ub - lb < 2) return -1;
    else nodeKey_[a] = lb + (ub - lb) / 2;
    return keysFit(g, later) ? 1 : -1;
  }
  // The region's nodes get local ids; its edges, adjacency lists both ways.
  const uint32_t nNodes = uint32_t(nodeKey_.size());
  localId_.assign(nNodes, kNone);
  regionNodes_.clear();
  for (uint32_t v = 0; v < nNodes; ++v)
    if (nodeKey_[v] >= ub && nodeKey_[v] <= lb) {
      localId_[v] = uint32_t(regionNodes_.size());
      regionNodes_.push_back(v);
    }
  const uint32_t m = uint32_t(regionNodes_.size());
  regionEdges_.clear();
  for (auto& [x, y] : edges_)
    if (localId_[x] != kNone && localId_[y] != kNone) regionEdges_.emplace_back(localId_[x], localId_[y]);
  adjacencyLists(regionEdges_, m, false, adjStart_, adj_, fill_);
  adjacencyLists(regionEdges_, m, true, radjStart_, radj_, fill_);
  // Mark 1: in F, 2: in B, 4: a predecessor of a (local ids).
  region_.assign(m, 0);
  for (uint32_t p : preds_)
    if (localId_[p] != kNone) region_[localId_[p]] |= 4;
  auto search = [&](const std::vector<uint32_t>& from, const std::vector<uint32_t>& start,
                    const std::vector<uint32_t>& adj, uint8_t mark, uint8_t stop, std::vector<uint32_t>& out) {
    for (uint32_t v : from)
      if (const uint32_t l = localId_[v]; l != kNone && !(region_[l] & mark)) {
        if (region_[l] & stop) return false;
        region_[l] |= mark;
        out.push_back(l);
      }
    for (size_t p = 0; p < out.size(); ++p)
      for (uint32_t i = start[out[p]]; i < start[out[p] + 1]; ++i)
        if (const uint32_t w = adj[i]; !(region_[w] & mark)) {
          if (region_[w] & stop) return false;
          region_[w] |= mark;
          out.push_back(w);
        }
    return true;
  };
  // F reaching a predecessor, or B reaching F: a cycle through a.
  if (!search(succs_, adjStart_, adj_, 1, 4, forward_)) return 0;
  if (!search(preds_, radjStart_, radj_, 2, 1, backward_)) return 0;
  for (uint32_t& l : forward_) l = regionNodes_[l];
  for (uint32_t& l : backward_) l = regionNodes_[l];
  auto byKey = [&](uint32_t x, uint32_t y) { return nodeKey_[x] < nodeKey_[y]; };
  std::sort(forward_.begin(), forward_.end(), byKey);
  std::sort(backward_.begin(), backward_.end(), byKey);
  pool_.clear();
  for (uint32_t v : backward_) pool_.push_back(nodeKey_[v]);
  for (uint32_t v : forward_) pool_.push_back(nodeKey_[v]);
  std::sort(pool_.begin(), pool_.end());
  const size_t nb = backward_.size();
  if (nb == 0 || nb == pool_.size() || pool_[nb] - pool_[nb - 1] < 2) return -1;
  for (size_t i = 0; i < nb; ++i) nodeKey_[backward_[i]] = pool_[i];
  for (size_t i = 0; i < forward_.size(); ++i) nodeKey_[forward_[i]] = pool_[nb + i];
  nodeKey_[a] = pool_[nb - 1] + (pool_[nb] - pool_[nb - 1]) / 2;
  return keysFit(g, later) ? 1 : -1;
}

bool ConsistencyChecker::keysFit(Graph& g, uint32_t later) {
  for (auto& [x, y] : edges_)
    if (x != later && y != later && nodeKey_[x] >= nodeKey_[y]) return false;
  for (uint32_t v : backward_) setKey(g, eventOf(v), nodeKey_[v]);
  for (uint32_t v : forward_) setKey(g, eventOf(v), nodeKey_[v]);
  return true;
}

void ConsistencyChecker::place(Graph& g, EventId added) {
  if (!incremental()) return;
  if (g.ev(added).orderKey) return;
  if (uint64_t key = slot(g, added); key && key != kNever) {
    setKey(g, added, key);
    --g.unplaced;
  } else {
    ++counts_.fromScratch;
    if (buildEdges(g, kInit, kInit) && sortNodes(g, nullptr, true)) rekey(g, kInit);
  }
  if (selfCheck_ && !keysHold(g))
    throw std::logic_error("incremental consistency: the kept order breaks a constraint");
}

void ConsistencyChecker::rekey(Graph& g, EventId added) {
  // fifo_ holds the nodes in the order just sorted (no gates: unbounded).
  const uint32_t nThreads = uint32_t(g.threads.size());
  rank_.assign(base_[nThreads], 0);
  for (uint32_t p = 0; p < fifo_.size(); ++p)
    if (fifo_[p] < rank_.size()) rank_[fifo_[p]] = p + 1;
  g.unplaced = 0;
  for (uint32_t t = 0; t < nThreads; ++t) {
    auto& evs = g.threads[t].events;
    // (Only keys that change are written: a write unshares the event's chunk.)
    for (uint32_t i = 0; i < evs.size(); ++i)
      if (const uint64_t k = rank_[base_[t] + i] * kKeyGap; evs[i].orderKey != k) evs.mut(i).orderKey = k;
  }
  g.maxOrderKey = uint64_t(fifo_.size()) * kKeyGap;
  if (!added.isInit()) {
    g.mut(added).orderKey = 0;
    g.unplaced = 1;
  }
}

bool ConsistencyChecker::keysHold(const Graph& g) {
  if (g.unplaced != 0 || !buildEdges(g, kInit, kInit)) return false;
  const uint32_t nThreads = uint32_t(g.threads.size());
  auto key = [&](uint32_t v) { return g.ev(eventOf(v)).orderKey; };
  for (uint32_t t = 0; t < nThreads; ++t)
    for (const Event& e : g.threads[t].events)
      if (!e.orderKey || e.orderKey > g.maxOrderKey) return false;
  for (auto& [a, b] : edges_)
    if (key(a) >= key(b)) return false;
  return true;
}

int ConsistencyChecker::revisitByKeptOrder(Graph& g, EventId w, EventId r) {
  if (!incremental() || !g.contains(w)) return -1;
  const bool withR = !r.isInit() && g.contains(r);
  if (withR) g.mut(r).orderKey = 0;
  g.mut(w).orderKey = 0;
  g.unplaced = 1;
  bool ok = false;
  uint64_t key = slot(g, w, withR ? r : kInit);
  if (key && key != kNever) {
    setKey(g, w, key);
    if (withR) {
      key = slot(g, r);
      if (key && key != kNever) setKey(g, r, key);
    }
    ok = key != kNever;
  }
  if (!key) return -1;  // (no slot found; a rule no order mends: kNever)
  if (ok) g.unplaced = 0;
  if (selfCheck_ && ok && !keysHold(g))
    throw std::logic_error("incremental consistency: the revisited graph's keys break a constraint");
  return answer(g, ok, "a revisited graph its kept order");
}

uint64_t ConsistencyChecker::slot(const Graph& g, EventId added, EventId later) const {
  if (g.unplaced != 1 || added.isInit() || !g.contains(added)) return 0;
  const auto& evs = g.threads[added.thread].events;
  if (added.index + 1 != evs.size()) return 0;
  const Event& e = evs[added.index];
  if (e.orderKey) return 0;
  auto keyOf = [&](EventId id) { return id.isInit() ? uint64_t(0) : g.ev(id).orderKey; };
  // (Events with no memory access go last when added: placeLast.)
  const Location* loc = (e.reads || e.writes) ? g.locOf(e) : nullptr;
  if (!loc) return 0;
  const uint64_t kNoBound = ~uint64_t(0);
  uint64_t high = kNoBound;  // the smallest key of a node that must follow
  const CoOrder& co = loc->co;
  int me = -2;
  if (e.writes) {
    me = Graph::coIndex(*loc, added);
    if (me < 0) return 0;
    // (`later`, an RMW that reads added, goes right after it in co: what
    // follows both must not be an RMW that reads what precedes both.)
    size_t j = size_t(me) + 1;
    if (j < co.size() && co[j] == later) ++j;
    if (j < co.size()) {
      // A writing RMW right after what it read would lose its atomicity.
      const Event& n = g.ev(co[j]);
      const EventId before = me > 0 ? co[size_t(me) - 1] : kInit;
      if (n.reads && n.writes && n.rf == before) return kNever;
      high = keyOf(co[j]);
    }
  }
  bool forwarded = false;
  if (e.reads) {
    if (!e.rf.isInit() && (!g.contains(e.rf) || g.ev(e.rf).addr != e.addr)) return kNever;
    const int wi = Graph::coIndex(*loc, e.rf);
    if (wi == -2) return kNever;
    if (e.writes) {
      if (me != wi + 1) return kNever;  // atomicity
    } else if (size_t(wi + 1) < co.size()) {
      high = std::min(high, keyOf(co[size_t(wi + 1)]));
    }
    forwarded = mm_.forwardsFromBuffer() && e.kind == EvKind::Load && !e.rf.isInit() &&
                e.rf.thread == added.thread && g.ev(e.rf).kind == EvKind::Store;
    if (forwarded) {
      // Only the thread's newest store to the location can be forwarded.
      if (added.index - e.rf.index > kScanLimit) return 0;
      for (uint32_t j = e.rf.index + 1; j < added.index; ++j)
        if (evs[j].kind == EvKind::Store && evs[j].addr == e.addr) return kNever;
    }
  }
  if (high == kNoBound) {
    ++counts_.atEnd;
    return g.maxOrderKey + kKeyGap;
  }
  if (high == 0) return 0;
  // Something must follow: find the latest node that must precede.
  uint64_t low = 0;
  if (!threadPreds(g, added, forwarded, &low)) return 0;
  if (e.reads && !forwarded && !e.rf.isInit()) low = std::max(low, keyOf(e.rf));
  if (e.writes) {
    // The write before it in co, and the reads of that write (they must
    // read before the write that replaces what they read).
    const EventId before = me > 0 ? co[size_t(me) - 1] : kInit;
    low = std::max(low, keyOf(before));
    for (const ThreadInfo& th : g.threads)
      th.events.forRange(0, th.events.size(), [&](const Event& x, size_t) {
        if (x.reads && !x.writes && x.rf == before && x.addr == e.addr && &x != &e) low = std::max(low, x.orderKey);
      });
  }
  if (low + 1 >= high) return 0;
  ++counts_.between;
  return low + (high - low) / 2;
}

bool ConsistencyChecker::threadPreds(const Graph& g, EventId added, bool forwarded, uint64_t* low) const {
  const ThreadInfo& th = g.threads[added.thread];
  const Event& e = th.events[added.index];
  uint64_t k = 0;
  auto spawnKey = [&]() {
    return added.thread != 0 ? g.threads[th.parent].events[th.spawnIndex].orderKey : uint64_t(0);
  };
  if (!mm_.buffersStores()) {  // SC: the previous event, or the spawn
    k = added.index > 0 ? th.events[added.index - 1].orderKey : spawnKey();
    *low = k;
    return added.index == 0 ? (added.thread == 0 || k != 0) : k != 0;
  }
  // (added is a memory access: never a store-store barrier.)
  const bool perLocation = mm_.perLocationBuffers();
  const bool isStore = e.kind == EvKind::Store;
  const bool drains = !isStore && MemoryModel::drainsBuffer(e);
  const bool ownStore = e.reads && !forwarded;  // its newest own store to the location
  bool needBarrier = isStore && g.storeStoreFences;
  bool havePrev = false, drained = false;
  uint32_t scanned = 0;
  for (uint32_t j = added.index; j-- > 0;) {
    if (++scanned > kScanLimit) return false;
    const Event& x = th.events[j];
    if (x.kind == EvKind::Store) {
      if (drained) continue;
      const bool sameLoc = x.addr == e.addr;
      if ((isStore && (!perLocation || sameLoc)) || drains || (ownStore && sameLoc)) k = std::max(k, x.orderKey);
    } else if (x.kind == EvKind::Fence && x.fence == FenceKind::StoreStore) {
      if (needBarrier) {
        k = std::max(k, x.orderKey);
        needBarrier = false;
      }
    } else {
      if (!havePrev) {
        k = std::max(k, x.orderKey);
        havePrev = true;
      }
      if (MemoryModel::drainsBuffer(x)) drained = true;
    }
    if (havePrev && drained && !needBarrier) break;
  }
  if (!havePrev) k = std::max(k, spawnKey());
  *low = k;
  return true;
}

}  // namespace tsocheck

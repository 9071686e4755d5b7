#include "engine/preemption.h"

#include <algorithm>

namespace tsocheck {

namespace {
// Acts on memory at its own step in every model (no store buffer in between).
bool lockedWrite(const Event& e) { return e.writes && e.kind != EvKind::Store; }
// Empties the thread's store buffer before it acts (an exit is left out: no
// step of the thread follows it).
bool drains(const Event& e) { return MemoryModel::drainsBuffer(e) && e.kind != EvKind::Exit; }
constexpr uint32_t kNone = 0xFFFFFFFFu;
// How far back a read looks into the writing thread's buffer, or forward for
// the draining step after a store (fewer edges: a smaller, still sound bound).
constexpr uint32_t kWalk = 64;
uint16_t clockValue(uint32_t v) { return uint16_t(std::min<uint32_t>(v, 0xFFFFu)); }  // saturating: weaker, sound

// Whether event j of thread t may be a blocked wait that takes the switch of
// a forced interval, and of which ones: kNone when it never blocks, else its
// *floor* f — a wait at j can take the switch of the interval [s, j-1] (s =
// the interval's start: a_s reaches a later event through another thread)
// only when f <= s. A join: 0 (the joined thread may run while t waits). A
// lock that is waiting now (it read a held mutex): 0. A lock that took the
// mutex from t's own unlock or from its initial value: kNone (no other thread
// held the mutex between t's release, or the start, and t's request, since
// that thread's lock and unlock would lie in between in co). Otherwise the
// holder t waited for took the mutex after t's last unlock of it, a_u: so if
// t ran without a switch from a_s (s <= u) up to its request at j, nobody
// could take the mutex in between, and the first switch after a_s is a
// preemption or a wait elsewhere: f = u + 1 (0 with no earlier unlock within
// kWalk events). A thread that takes a mutex again right after releasing it
// (a lock per loop iteration) is thus switched away from by a preemption.
uint32_t lockFloor(const ThreadInfo& th, uint32_t t, uint32_t j, const Event& e) {
  if (!e.writes) return 0;
  if (e.rf.isInit() || e.rf.thread == t) return kNone;
  for (uint32_t k = j, steps = 0; k-- > 0 && steps < kWalk; ++steps)
    if (th.events[k].kind == EvKind::Unlock && th.events[k].addr == e.addr) return k + 1;
  return 0;
}
// e is event j of thread t (th).
inline uint32_t blockerFloor(const ThreadInfo& th, uint32_t t, uint32_t j, const Event& e) {
  if (e.kind == EvKind::Join) return 0;
  return e.kind == EvKind::Lock ? lockFloor(th, t, j, e) : kNone;
}

// Blockers looked at per interval; past it the interval is left out (sound:
// a lower bound may drop intervals).
constexpr int kBlockerWalk = 16;

// The interval of switch points ending before event j whose start is a_{reach-1}
// (reach = events of the thread that reach a_j through another thread; 0:
// none) loses the events a wait may absorb: the latest start s <= reach-1
// such that no blocker b in a_{s+1..j} has floor <= s (any earlier start is a
// forced interval too), as reach = s+1; 0 when every start is absorbed.
// Blockers are visited from b (the latest at or before j) backwards through
// prev(b), their floors by floorOf(b). Monotone in reach: a smaller reach
// (the kept clocks may lag the full ones) never gives a larger result, so the
// kept bound stays at most the one from scratch.
template <class Prev, class FloorOf>
uint32_t unblockedReach(uint32_t reach, int32_t b, Prev prev, FloorOf floorOf) {
  if (reach == 0) return 0;
  uint32_t s = reach - 1, least = kNone;
  for (int walked = 0; b >= 0 && uint32_t(b) > s; b = prev(b)) {
    if (++walked > kBlockerWalk) return 0;
    least = std::min(least, floorOf(b));
    if (least <= s) {
      if (least == 0) return 0;
      s = least - 1;
    }
  }
  return s + 1;
}

// unblockedReach over thread t's kept marks (event j, the one stepped, may
// not be stored yet): b is the latest blocker at or before j.
uint32_t keptReach(const Graph& g, PreemptionState& st, uint32_t t, uint32_t j, uint32_t reach, int32_t b) {
  return unblockedReach(
      reach, b, [&](int32_t x) { return uint32_t(x) == 0 ? -1 : st.mark(t, uint32_t(x) - 1).lastBlocker; },
      [&](int32_t x) { return blockerFloor(g.threads[t], t, uint32_t(x), g.threads[t].events[uint32_t(x)]); });
}
}  // namespace

void PreemptionState::revisited(uint32_t stamp) {
  slackStamp = 0;
  if (!exact) {  // count again from scratch (cheap)
    candidates = 0;
    scannedStamp = 0;
    armStamp = 0;
    return;
  }
  total = 0;
  seenStamp = 0;
  for (Segment& sg : threads) {
    uint32_t n = 0;
    while (n < sg.count && marks[sg.start + n].dep < stamp) ++n;
    sg.count = n;
    if (n) total += int(marks[sg.start + n - 1].count);
  }
}

void PreemptionState::reserveOne(uint32_t t) {
  Segment& sg = threads[t];
  if (sg.count < sg.cap) return;
  const uint32_t live = [&] {
    uint32_t x = 0;
    for (const Segment& s : threads) x += s.cap;
    return x;
  }();
  const uint32_t cap = std::max<uint32_t>(8, sg.cap * 2);
  if (marks.size() > 2 * size_t(live) + 64) {  // mostly holes: compact first
    std::vector<uint16_t> c;
    std::vector<Mark> m;
    c.reserve(size_t(live + cap) * width);
    m.reserve(live + cap);
    for (Segment& s : threads) {
      const uint32_t start = uint32_t(m.size());
      m.insert(m.end(), marks.begin() + s.start, marks.begin() + s.start + s.cap);
      c.insert(c.end(), clocks.begin() + size_t(s.start) * width, clocks.begin() + size_t(s.start + s.cap) * width);
      s.start = start;
    }
    clocks = std::move(c);
    marks = std::move(m);
  }
  const uint32_t start = uint32_t(marks.size());
  marks.resize(start + cap);
  clocks.resize(size_t(start + cap) * width, 0);
  std::copy_n(marks.begin() + sg.start, sg.count, marks.begin() + start);
  std::copy_n(clocks.begin() + size_t(sg.start) * width, size_t(sg.count) * width, clocks.begin() + size_t(start) * width);
  sg.start = start;
  sg.cap = cap;
}

void PreemptionState::setWidth(uint32_t w) {
  if (w <= width) return;
  std::vector<uint16_t> wide(marks.size() * size_t(w), 0);
  for (size_t i = 0; i < marks.size(); ++i) std::copy_n(&clocks[i * width], width, &wide[i * w]);
  clocks = std::move(wide);
  width = w;
}

void PreemptionCounter::layout(const Graph& g) {
  const uint32_t nThreads = uint32_t(g.threads.size());
  base_.assign(nThreads + 1, 0);
  for (uint32_t t = 0; t < nThreads; ++t)
    base_[t + 1] = base_[t] + (g.threads[t].alive ? uint32_t(g.threads[t].events.size()) : 0);
  threadOf_.resize(base_[nThreads]);
  for (uint32_t t = 0; t < nThreads; ++t)
    for (uint32_t v = base_[t]; v < base_[t + 1]; ++v) threadOf_[v] = t;
}

bool PreemptionCounter::present(const Graph& g, EventId x) const {
  return !x.isInit() && x.thread < g.threads.size() && g.threads[x.thread].alive &&
         x.index < g.threads[x.thread].events.size();
}

// Cross-thread edges into a thread's step: spawn, external rf, exit→join.
void PreemptionCounter::directEdges(const Graph& g) {
  const uint32_t nThreads = uint32_t(g.threads.size());
  edges_.clear();
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    if (t != 0 && !th.events.empty() && present(g, EventId{th.parent, th.spawnIndex}) && th.parent != t)
      edges_.push_back({node(EventId{th.parent, th.spawnIndex}), base_[t]});
    for (uint32_t i = 0; i < th.events.size(); ++i) {
      const Event& e = th.events[i];
      const uint32_t me = base_[t] + i;
      if (e.reads && present(g, e.rf) && e.rf.thread != t) edges_.push_back({node(e.rf), me});
      if (e.kind == EvKind::Join && e.aux != t && e.aux < nThreads && g.threads[e.aux].alive &&
          !g.threads[e.aux].events.empty())
        edges_.push_back({base_[e.aux] + uint32_t(g.threads[e.aux].events.size()) - 1, me});
    }
  }
}

// co and fr edges end at a write's flush. Under SC, or for a locked write,
// that is the write's own step; for a buffered store it is before the
// thread's next draining step (full fence, RMW, lock, spawn, free), if any.
void PreemptionCounter::flushEdges(const Graph& g) {
  const uint32_t nThreads = uint32_t(g.threads.size());
  nextDrain_.assign(base_[nThreads], kNone);
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    uint32_t next = kNone;
    for (uint32_t i = uint32_t(th.events.size()); i-- > 0;) {
      const Event& e = th.events[i];
      nextDrain_[base_[t] + i] = sc_ || lockedWrite(e) ? base_[t] + i : next;
      if (drains(e)) next = base_[t] + i;
    }
  }
  // What precedes each write's flush: its co-predecessor (co) and the reads
  // of that predecessor (fr), from other threads than the write's.
  flushSrc_.clear();
  for (const Location& l : g.locs) {
    for (size_t k = 1; k < l.co.size(); ++k) {
      EventId a = l.co[k - 1], b = l.co[k];
      if (!present(g, a) || !present(g, b) || a.thread == b.thread) continue;
      flushSrc_.push_back({node(b), node(a)});
    }
  }
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    for (uint32_t i = 0; i < th.events.size(); ++i) {
      const Event& r = th.events[i];
      if (!r.reads) continue;
      const Location* l = g.findLoc(r.addr);
      if (!l) continue;
      int k = Graph::coIndex(*l, r.rf);
      if (k < -1) continue;
      if (size_t(k + 1) >= l->co.size()) continue;
      EventId next = l->co[size_t(k + 1)];
      if (next == EventId{t, i} || !present(g, next) || next.thread == t) continue;
      flushSrc_.push_back({node(next), base_[t] + i});
    }
  }
  inheritFlushSources(g);
  for (auto [b, x] : flushSrc_)
    if (nextDrain_[b] != kNone) edges_.push_back({x, nextDrain_[b]});
}

// flushSrc_ by write node (CSR): fs_[fsStart_[b] .. fsStart_[b + 1]).
void PreemptionCounter::indexFlushSources(uint32_t n) {
  fsStart_.assign(n + 1, 0);
  for (auto [b, x] : flushSrc_) ++fsStart_[b + 1];
  for (uint32_t v = 0; v < n; ++v) fsStart_[v + 1] += fsStart_[v];
  fs_.resize(flushSrc_.size());
  order_.assign(fsStart_.begin(), fsStart_.end() - 1);
  for (auto [b, x] : flushSrc_) fs_[order_[b]++] = x;
}

// Flushes reach memory in co order, so whatever precedes the flush of a
// buffered store (its issue, its sources) also precedes the flushes of the
// writes co-after it: added as sources of theirs (the newest per thread).
// Without this, a store placed between two writes would hide the edges into
// the later one's flush while its own flush has no step, and a graph's bound
// could drop as it grows. A write timed at its step passes them on through
// its own clock (under SC every write is: nothing to do).
void PreemptionCounter::inheritFlushSources(const Graph& g) {
  if (sc_) return;
  const uint32_t nThreads = uint32_t(g.threads.size());
  indexFlushSources(base_[nThreads]);
  // Per thread: 1 + the index of its newest source so far (0: none).
  std::vector<uint32_t>& carry = carry_;
  for (const Location& l : g.locs) {
    carry.assign(nThreads, 0);
    bool any = false;
    for (const EventId b : l.co) {
      const bool buffered = present(g, b) && !lockedWrite(g.threads[b.thread].events[b.index]);
      if (any && present(g, b))
        for (uint32_t t = 0; t < nThreads; ++t)
          if (carry[t] && t != b.thread) flushSrc_.push_back({node(b), base_[t] + carry[t] - 1});
      if (!buffered) {  // absent, or timed at its own step: the chain starts again
        if (any) carry.assign(nThreads, 0);
        any = false;
        continue;
      }
      const uint32_t bn = node(b);
      for (uint32_t q = fsStart_[bn]; q < fsStart_[bn + 1]; ++q) {
        const uint32_t x = fs_[q], t = threadOf_[x];
        carry[t] = std::max(carry[t], x - base_[t] + 1);
      }
      carry[b.thread] = std::max(carry[b.thread], b.index + 1);
      any = true;
    }
  }
}

// A read of another thread's buffered store comes after that store's flush,
// so after everything that precedes the flush — and (FIFO: TSO per thread,
// PSO per location) after the flushes of the older stores still buffered
// with it.
void PreemptionCounter::bufferedReadEdges(const Graph& g) {
  const uint32_t nThreads = uint32_t(g.threads.size());
  indexFlushSources(base_[nThreads]);
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    for (uint32_t i = 0; i < th.events.size(); ++i) {
      const Event& r = th.events[i];
      if (!r.reads || !present(g, r.rf) || r.rf.thread == t) continue;
      const ThreadInfo& wt = g.threads[r.rf.thread];
      if (wt.events[r.rf.index].kind != EvKind::Store) continue;
      for (uint32_t k = r.rf.index + 1, steps = 0; k-- > 0 && steps < kWalk; ++steps) {
        const Event& b = wt.events[k];
        if (drains(b)) break;
        if (b.kind != EvKind::Store || (pso_ && b.addr != r.addr)) continue;
        const uint32_t bn = base_[r.rf.thread] + k;
        for (uint32_t q = fsStart_[bn]; q < fsStart_[bn + 1]; ++q)
          if (threadOf_[fs_[q]] != t) edges_.push_back({fs_[q], base_[t] + i});
      }
    }
  }
}

// Vector clocks in topological order (Kahn), pushed along po and the cross
// edges; left_[v] = how many events of v's thread reach v through another
// thread; dep_[v] = the newest (write) stamp v's clock depends on. False
// when the edges have a cycle (not a consistent graph).
bool PreemptionCounter::propagateClocks(const Graph& g) {
  const uint32_t nThreads = uint32_t(g.threads.size()), n = base_[nThreads];
  adjStart_.assign(n + 1, 0);  // out-adjacency (CSR) of the cross edges
  for (auto [a, b] : edges_) ++adjStart_[a + 1];
  for (uint32_t v = 0; v < n; ++v) adjStart_[v + 1] += adjStart_[v];
  adj_.resize(edges_.size());
  order_.assign(adjStart_.begin(), adjStart_.end() - 1);
  for (auto [a, b] : edges_) adj_[order_[a]++] = b;
  indeg_.assign(n, 0);  // in-degrees including po
  for (auto [a, b] : edges_) ++indeg_[b];
  for (uint32_t t = 0; t < nThreads; ++t)
    for (uint32_t v = base_[t] + 1; v < base_[t + 1]; ++v) ++indeg_[v];
  clock_.assign(size_t(n) * nThreads, 0);
  left_.assign(n, 0);
  dep_.assign(n, 0);
  order_.clear();
  for (uint32_t v = 0; v < n; ++v)
    if (indeg_[v] == 0) order_.push_back(v);
  auto join = [&](uint32_t from, uint32_t to) {
    uint32_t* dst = &clock_[size_t(to) * nThreads];
    const uint32_t* src = &clock_[size_t(from) * nThreads];
    for (uint32_t u = 0; u < nThreads; ++u) dst[u] = std::max(dst[u], src[u]);
    dep_[to] = std::max(dep_[to], dep_[from]);
  };
  auto release = [&](uint32_t w) {
    if (--indeg_[w] == 0) order_.push_back(w);
  };
  for (size_t head = 0; head < order_.size(); ++head) {
    const uint32_t v = order_[head];
    const uint32_t t = threadOf_[v];
    const Event& ev = g.threads[t].events[v - base_[t]];
    clock_[size_t(v) * nThreads + t] = v - base_[t] + 1;
    dep_[v] = std::max({dep_[v], ev.stamp, ev.wstamp});
    if (v + 1 < base_[t + 1]) {
      join(v, v + 1);
      release(v + 1);
    }
    for (uint32_t k = adjStart_[v]; k < adjStart_[v + 1]; ++k) {
      const uint32_t w = adj_[k];
      join(v, w);
      left_[w] = std::max(left_[w], clock_[size_t(v) * nThreads + threadOf_[w]]);
      release(w);
    }
  }
  return order_.size() == n;
}

// Per thread: fewest switch points hitting every forced interval [i-1, j-1]
// (a_0..a_{i-1} reach a_j through another thread), greedy by right end; the
// interval starts instead where no blocked wait in it may take its switch
// (unblockedReach), or is skipped when none does. With st, every event's
// clock and greedy state are kept for later updates.
int PreemptionCounter::greedyCounts(const Graph& g, PreemptionState* st) {
  const uint32_t nThreads = uint32_t(g.threads.size()), n = base_[nThreads];
  if (st) {
    st->width = std::max(st->width, nThreads);
    st->threads.assign(nThreads, {});
    for (uint32_t t = 0; t < nThreads; ++t) {
      const uint32_t m = base_[t + 1] - base_[t];
      st->threads[t] = {base_[t] + 8 * t, m, m + 8};  // room for 8 more events each
    }
    st->marks.assign(n + 8 * nThreads, {});
    st->clocks.assign(size_t(n + 8 * nThreads) * st->width, 0);
  }
  int total = 0;
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    const uint32_t m = uint32_t(th.events.size());
    PreemptionState::Mark cur;
    blockers_.resize(m);  // per event: the latest blocker up to it (as Mark::lastBlocker) and its own floor
    for (uint32_t j = 0; j < m; ++j) {
      const uint32_t v = base_[t] + j;
      const uint32_t i = left_[v];
      const uint32_t floor = blockerFloor(th, t, j, th.events[j]);
      const int32_t last = floor != kNone ? int32_t(j) : cur.lastBlocker;
      blockers_[j] = {uint32_t(last), floor};
      const uint32_t reach = unblockedReach(
          i, last, [&](int32_t b) { return b > 0 ? int32_t(blockers_[size_t(b) - 1].first) : -1; },
          [&](int32_t b) { return blockers_[size_t(b)].second; });
      cur.step(j, reach, floor != kNone);
      if (st) {
        cur.dep = dep_[v];
        cur.left = i;
        st->mark(t, j) = cur;
        uint16_t* dst = st->clock(t, j);
        for (uint32_t u = 0; u < nThreads; ++u) dst[u] = clockValue(clock_[size_t(v) * nThreads + u]);
      }
    }
    total += int(cur.count);
  }
  return total;
}

int PreemptionCounter::recompute(const Graph& g, PreemptionState* st) {
  layout(g);
  directEdges(g);
  flushEdges(g);
  if (!sc_) bufferedReadEdges(g);
  if (!propagateClocks(g)) {  // cyclic: not a consistent graph; claim nothing
    if (st) {
      st->exact = true;
      st->threads.clear();
      st->marks.clear();
      st->clocks.clear();
      st->total = 0;
    }
    return 0;
  }
  const int total = greedyCounts(g, st);
  if (st) {
    st->exact = true;
    st->total = total;
  }
  return total;
}

// Joins into the new event's clock what precedes it through another thread.
void PreemptionCounter::Incoming::from(EventId src) {
  if (src.thread == t || src.isInit() || src.index >= st.processed(src.thread)) return;
  const uint16_t* s = st.clock(src.thread, src.index);
  for (uint32_t u = 0; u < st.width; ++u) c[u] = std::max(c[u], s[u]);
  left = std::max<uint32_t>(left, s[t]);
  mark.dep = std::max(mark.dep, st.mark(src.thread, src.index).dep);
}

// Everything that precedes the flush of write b (other threads than b's):
// its co-predecessor and (readers) the processed reads of that predecessor.
void PreemptionCounter::Incoming::flushSources(const Graph& g, EventId b, const Event& be, bool readers) {
  const Location* l = g.locOf(be);
  const int k = l ? Graph::coIndex(*l, b) : -2;
  if (k < 0) return;
  const EventId pred = k > 0 ? l->co[size_t(k - 1)] : kInit;
  if (!pred.isInit() && pred.thread != b.thread) from(pred);
  if (!readers) return;
  for (uint32_t u = 0; u < st.threads.size() && u < g.threads.size(); ++u) {
    if (u == b.thread || u == t || !g.threads[u].alive) continue;
    const auto& evs = g.threads[u].events;
    // The po-latest such read is enough: clocks and deps grow along po. A
    // read of pred (another thread's write) has pred in its clock, so the
    // scan stops at the first event whose clock does not have it.
    const bool known = !pred.isInit() && pred.thread < st.width;
    for (uint32_t i = uint32_t(std::min<size_t>(evs.size(), st.processed(u))); i-- > 0;) {
      if (known && st.clock(u, i)[pred.thread] <= pred.index) break;
      if (evs[i].reads && evs[i].addr == be.addr && evs[i].rf == pred) {
        from(EventId{u, i});
        break;
      }
    }
  }
}

void PreemptionCounter::incomingEdges(const Graph& g, EventId id, Incoming& in) const {
  const ThreadInfo& th = g.threads[id.thread];
  const Event& e = th.events[id.index];
  if (id.index == 0 && id.thread != 0) in.from(EventId{th.parent, th.spawnIndex});
  if (e.reads) in.from(e.rf);
  if (e.kind == EvKind::Join && e.aux < g.threads.size() && !g.threads[e.aux].events.empty())
    in.from(EventId{e.aux, uint32_t(g.threads[e.aux].events.size()) - 1});
  if (e.writes && (sc_ || lockedWrite(e))) in.flushSources(g, id, e, true);  // its flush is this step
  if (sc_) return;
  if (drains(e)) {
    // The stores buffered since the last draining step flush before this one.
    for (uint32_t k = id.index, steps = 0; k-- > 0 && steps < kWalk; ++steps) {
      const Event& b = th.events[k];
      if (drains(b)) break;
      if (b.kind == EvKind::Store) in.flushSources(g, EventId{id.thread, k}, b, true);
    }
  }
  if (e.reads && !e.rf.isInit() && e.rf.thread != id.thread && e.rf.thread < g.threads.size()) {
    // Reading another thread's buffered store: after its flush, and after
    // the flushes of the older stores buffered with it (TSO: all of them,
    // PSO: those to the same location).
    const auto& wevs = g.threads[e.rf.thread].events;
    if (e.rf.index < wevs.size() && wevs[e.rf.index].kind == EvKind::Store)
      for (uint32_t k = e.rf.index + 1, steps = 0; k-- > 0 && steps < kWalk; ++steps) {
        const Event& b = wevs[k];
        if (drains(b)) break;
        if (b.kind == EvKind::Store && (!pso_ || b.addr == e.addr))
          in.flushSources(g, EventId{e.rf.thread, k}, b, false);
      }
  }
}

// Replays thread bt's greedy from event `from` on (its left grew).
void PreemptionCounter::replayGreedy(const Graph& g, PreemptionState& st, uint32_t bt, uint32_t from) {
  const uint32_t m = st.processed(bt);
  const auto& evs = g.threads[bt].events;
  PreemptionState::Mark cur = from > 0 ? st.mark(bt, from - 1) : PreemptionState::Mark{};
  const uint32_t before = st.mark(bt, m - 1).count;
  for (uint32_t k = from; k < m; ++k) {
    PreemptionState::Mark& mk = st.mark(bt, k);
    const bool blocker = blockerFloor(g.threads[bt], bt, k, evs[k]) != kNone;
    cur.step(k, keptReach(g, st, bt, k, mk.left, blocker ? int32_t(k) : cur.lastBlocker), blocker);
    mk.hit = cur.hit;
    mk.lastBlocker = cur.lastBlocker;
    mk.count = cur.count;
  }
  st.total += int(cur.count) - int(before);
}

// An edge from the new event (clock c, thread t) to the flush of the older
// write b: b's flush step and its po-successors grow in place (events
// derived from them earlier keep less).
void PreemptionCounter::raise(const Graph& g, PreemptionState& st, uint32_t t, const uint16_t* c, uint32_t dep,
                              EventId b) {
  if (b.isInit() || b.thread == t || b.thread >= g.threads.size() || !g.threads[b.thread].alive) return;
  const auto& bevs = g.threads[b.thread].events;
  if (b.index >= bevs.size()) return;
  uint32_t target = b.index;
  if (!sc_ && !lockedWrite(bevs[b.index])) {  // its flush: before the thread's next draining step
    target = kNone;
    for (uint32_t k = b.index + 1, steps = 0; k < bevs.size() && steps < kWalk; ++k, ++steps)
      if (drains(bevs[k])) {
        target = k;
        break;
      }
    if (target == kNone) return;
  }
  const uint32_t bt = b.thread, m = st.processed(bt);
  if (target >= m) return;
  for (uint32_t k = target; k < m; ++k) {
    uint16_t* dst = st.clock(bt, k);
    for (uint32_t u = 0; u < st.width; ++u) dst[u] = std::max(dst[u], c[u]);
    st.mark(bt, k).dep = std::max(st.mark(bt, k).dep, dep);
  }
  // A new forced interval of the target's thread may end at the target.
  const uint32_t reach = c[bt];
  if (reach == 0 || reach <= st.mark(bt, target).left) return;
  st.mark(bt, target).left = reach;
  replayGreedy(g, st, bt, target);
}

void PreemptionCounter::addEvent(const Graph& g, PreemptionState& st, EventId id) {
  const uint32_t t = id.thread, j = id.index, W = st.width;
  const Event& e = g.threads[t].events[j];
  Incoming in{st, t, scratchClock_.data(), j > 0 ? st.mark(t, j - 1) : PreemptionState::Mark{}, 0};
  if (j > 0) std::copy_n(st.clock(t, j - 1), W, in.c);
  else std::fill_n(in.c, W, uint16_t(0));
  in.mark.dep = std::max({in.mark.dep, e.stamp, e.wstamp});
  incomingEdges(g, id, in);
  in.c[t] = clockValue(j + 1);
  in.mark.left = in.left;
  const bool blocker = blockerFloor(g.threads[t], t, j, e) != kNone;
  st.total += in.mark.step(j, keptReach(g, st, t, j, in.left, blocker ? int32_t(j) : in.mark.lastBlocker), blocker);
  st.reserveOne(t);
  std::copy_n(in.c, W, st.clock(t, j));
  st.mark(t, j) = in.mark;
  st.threads[t].count++;
  // Edges from this event to older ones: it precedes the flush of the write
  // co-after what it reads or co-after itself.
  if (!e.reads && !e.writes) return;
  const Location* l = g.locOf(e);
  if (!l) return;
  if (e.reads) {
    const int k = Graph::coIndex(*l, e.rf);
    if (k >= -1 && size_t(k + 1) < l->co.size() && l->co[size_t(k + 1)] != id)
      raise(g, st, t, st.clock(t, j), in.mark.dep, l->co[size_t(k + 1)]);
  }
  if (e.writes) {
    const int k = Graph::coIndex(*l, id);
    if (k >= 0 && size_t(k + 1) < l->co.size()) raise(g, st, t, st.clock(t, j), in.mark.dep, l->co[size_t(k + 1)]);
  }
}

// Can a forced interval end at event i >= 1 of thread t? It needs a cross
// edge into the event's own step (a read of another thread's value, a write
// timed at its step, a draining step after buffered stores) and is never a
// blocker of floor 0 (every interval ending there is skipped).
bool PreemptionCounter::mayEndInterval(const ThreadInfo& th, uint32_t t, uint32_t i) const {
  const Event& e = th.events[i];
  if (blockerFloor(th, t, i, e) == 0) return false;  // a wait there may take any interval's switch
  if ((e.reads && !e.rf.isInit() && e.rf.thread != t) || (e.writes && (sc_ || lockedWrite(e)))) return true;
  if (sc_ || !drains(e)) return false;
  for (uint32_t k = i, steps = 0; k-- > 0 && steps < kWalk; ++steps) {
    if (drains(th.events[k])) return false;
    if (th.events[k].kind == EvKind::Store) return true;
  }
  return false;
}

// Can a cross edge start at event e of thread t? Every edge above starts at
// a spawn (to the child), a write (rf, co), a thread's last event (to a
// join: nothing of its thread follows, so it never matters here) or a read
// whose write's co-successor belongs to another thread (fr).
bool PreemptionCounter::mayLeave(const Graph& g, uint32_t t, const Event& e) {
  if (e.writes || e.kind == EvKind::Spawn) return true;
  if (!e.reads) return false;
  const Location* l = g.locOf(e);
  const int k = l ? Graph::coIndex(*l, e.rf) : -2;
  return k >= -1 && size_t(k + 1) < l->co.size() && l->co[size_t(k + 1)].thread != t;
}

// An upper bound on what recompute() would return, without clocks. A forced
// interval of thread t counted by the greedy at a_j needs a path from some
// a_i (i >= the previous counted index) that leaves t at a_k (i <= k < j)
// and comes back into a_j, with no blocker of floor 0 in a_{k+1..j} (the
// interval's start is at most k, and such a wait takes any switch): so per
// thread, scanning in po order, an event that may start a cross edge "arms"
// and the next event that may end an interval consumes the arm (a blocker of
// floor 0 disarms; other locks are left as if they never waited, which only
// raises this bound). The greedy's count is at most the number of consumed arms (its
// i-th counted index is never before the scan's i-th).
int PreemptionCounter::armingBound(const Graph& g, int limit, uint64_t* armedMask) const {
  int total = 0;
  if (armedMask) *armedMask = 0;
  for (uint32_t t = 0; t < g.threads.size(); ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    bool armed = false;
    for (uint32_t j = 0; j < th.events.size(); ++j) {
      const Event& e = th.events[j];
      if (armed && j > 0 && mayEndInterval(th, t, j)) {
        armed = false;
        if (++total > limit) return total;
      }
      if (blockerFloor(th, t, j, e) == 0) armed = false;
      if (!armed && mayLeave(g, t, e)) armed = true;
    }
    if (armed && armedMask) *armedMask |= uint64_t(1) << t;
  }
  return total;
}

// Brings st's arming bound up to date with one event appended to thread
// st.lastThread (false when that is not what happened: scan again). The
// event continues its thread's scan. A write b placed co-after p may turn
// reads of p in other threads into edge sources (fr to b); each such thread
// may gain one consumed arm and end armed: counted as both (an upper bound
// of its rescan). Reads whose fr edge now stays in their thread only lower
// the bound, which is kept.
bool PreemptionCounter::armingStep(const Graph& g, PreemptionState& st) const {
  if (st.armStamp != 0 && st.armStamp == g.nextStamp) return true;  // up to date
  const uint32_t t = st.lastThread;
  if (st.armStamp == 0 || g.nextStamp != st.armStamp + 1 || t >= g.threads.size() || t >= 64) return false;
  const ThreadInfo& th = g.threads[t];
  if (!th.alive || th.events.empty() || th.events.back().stamp != st.armStamp) return false;
  const uint32_t j = uint32_t(th.events.size()) - 1;
  const Event& e = th.events[j];
  const uint64_t bit = uint64_t(1) << t;
  if ((st.armedMask & bit) && j > 0 && mayEndInterval(th, t, j)) {
    st.armedMask &= ~bit;
    ++st.armTotal;
  }
  if (blockerFloor(th, t, j, e) == 0) st.armedMask &= ~bit;
  if (!(st.armedMask & bit) && mayLeave(g, t, e)) st.armedMask |= bit;
  if (e.writes) {
    const Location* l = g.locOf(e);
    const int k = l ? Graph::coIndex(*l, EventId{t, j}) : -2;
    if (k < 0) return false;
    const EventId p = k > 0 ? l->co[size_t(k - 1)] : kInit;
    const EventId q = size_t(k + 1) < l->co.size() ? l->co[size_t(k + 1)] : kInit;  // p's old co-successor
    for (uint32_t u = 0; u < g.threads.size(); ++u) {
      if (u == t || !g.threads[u].alive) continue;
      if (u >= 64) return false;
      if (!q.isInit() && q.thread != u) continue;  // u's readers of p were sources already
      for (const Event& r : g.threads[u].events)
        if (r.reads && r.rf == p && r.addr == e.addr) {
          ++st.armTotal;
          st.armedMask |= uint64_t(1) << u;
          break;
        }
    }
  }
  st.armStamp = g.nextStamp;
  return true;
}

PreemptionSlack preemptionSlack(const Graph& g, PreemptionState& st) {
  // One event appended since: only its thread's share changes. A spawn (a
  // thread comes alive) counts again.
  if (const ThreadInfo* th = appendedSince(g, st, st.slackStamp);
      th && th->settled < th->events.size() && th->events.back().kind != EvKind::Spawn) {
    // Its previous last event counted if unsettled and stamped no earlier
    // than the first unsettled read; a read becomes the first only where
    // there was none (it is the newest event).
    const size_t n = th->events.size();
    const bool before = n > 1 && th->settled < n - 1 && th->events[n - 2].stamp >= st.slackFirst;
    if (th->events.back().reads && st.slackFirst == UINT32_MAX) st.slackFirst = th->events.back().stamp;
    st.slack.open += int(st.slackFirst != UINT32_MAX) - int(before);
    st.slackStamp = g.nextStamp;
    return st.slack;
  }
  st.slack = preemptionSlack(g, &st.slackFirst);
  st.slackStamp = g.nextStamp;
  return st.slack;
}

// The limit as `Limit::above(x)`: x exceeds it. A fixed limit, or
// bound + preemptionSlack(g, st), the slack worked out only when a value
// above the bound has to be compared with it (most values are within it).
struct PreemptionCounter::FixedLimit {
  int limit;
  bool above(int64_t x) const { return x > limit; }
  int value() const { return limit; }
};
struct PreemptionCounter::SlackLimit {
  const Graph& g;
  int bound;
  std::optional<PreemptionSlack>& slack;
  PreemptionState& st;
  bool above(int64_t x) { return x > bound && x > value(); }
  int value() {
    if (!slack) slack = preemptionSlack(g, st);
    return bound + slack->value();
  }
};

bool PreemptionCounter::exceeds(const Graph& g, PreemptionState& st, int limit) {
  FixedLimit lim{limit};
  return exceedsLimit(g, st, lim);
}

bool PreemptionCounter::exceedsWithSlack(const Graph& g, PreemptionState& st, int bound,
                                         std::optional<PreemptionSlack>& slack) {
  SlackLimit lim{g, bound, slack, st};
  return exceedsLimit(g, st, lim);
}

template <class Limit>
bool PreemptionCounter::exceedsLimit(const Graph& g, PreemptionState& st, Limit& lim) {
  if (st.exact) return lim.above(update(g, st));
  const uint32_t nThreads = uint32_t(g.threads.size());
  // One event since the last scan: only the newest event's thread changed.
  const bool one = st.scannedStamp != 0 && g.nextStamp == st.scannedStamp + 1 && st.lastThread < nThreads;
  for (uint32_t t = one ? st.lastThread : 0; t < (one ? st.lastThread + 1 : nThreads); ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    // The events added since the last scan: a suffix of the thread.
    uint32_t first = uint32_t(th.events.size());
    while (first > 0 && th.events[first - 1].stamp >= st.scannedStamp) --first;
    for (uint32_t i = std::max<uint32_t>(first, 1); i < th.events.size(); ++i) st.candidates += mayEndInterval(th, t, i);
  }
  st.scannedStamp = g.nextStamp;
  // Cheap phase: while an upper bound stays within the limit, nothing is
  // pruned and no clocks are kept.
  if (!lim.above(st.candidates)) return false;
  if (armingStep(g, st) && !lim.above(st.armTotal)) return false;
  const int limit = lim.value();
  if (g.threads.size() <= 64) {
    const int arm = armingBound(g, limit, &st.armedMask);
    st.armTotal = uint32_t(std::max(arm, 0));
    st.armStamp = arm <= limit ? g.nextStamp : 0;
    if (arm <= limit) return false;
  } else if (armingBound(g, limit, nullptr) <= limit) {
    return false;
  }
  recompute(g, &st);
  st.seenStamp = g.nextStamp;
  return lim.above(st.total);
}

int PreemptionCounter::update(const Graph& g, PreemptionState& st) {
  const uint32_t nThreads = uint32_t(g.threads.size());
  if (!st.exact) {
    recompute(g, &st);
    st.seenStamp = g.nextStamp;
    return st.total;
  }
  if (st.threads.size() < nThreads) st.threads.resize(nThreads);
  if (st.width < nThreads) st.setWidth(std::max({nThreads, st.width * 2, 4u}));  // a new thread: widen every clock
  scratchClock_.resize(st.width);
  if (st.seenStamp == g.nextStamp) return st.total;  // nothing new
  if (const ThreadInfo* th = appendedSince(g, st, st.seenStamp);
      th && st.processed(st.lastThread) + 1 == th->events.size()) {
    addEvent(g, st, EventId{st.lastThread, uint32_t(th->events.size()) - 1});
    st.seenStamp = g.nextStamp;
    return st.total;
  }
  st.seenStamp = g.nextStamp;
  fresh_.clear();
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    const uint32_t have = st.processed(t);
    const uint32_t now = th.alive ? uint32_t(th.events.size()) : 0;
    if (have > now) {  // not a forward step nor a revisit told about: start over
      recompute(g, &st);
      return st.total;
    }
    for (uint32_t i = have; i < now; ++i) fresh_.push_back(EventId{t, i});
  }
  if (fresh_.empty()) return st.total;
  if (fresh_.size() == 1) {
    addEvent(g, st, fresh_[0]);
    return st.total;
  }
  // Oldest first, each once its po-predecessor, spawn, rf and joined thread
  // are processed (a revisited read comes after the newer write it reads).
  std::sort(fresh_.begin(), fresh_.end(), [&](EventId a, EventId b) { return g.stampOf(a) < g.stampOf(b); });
  auto processed = [&](EventId x) {
    return x.isInit() || x.thread >= nThreads || !g.threads[x.thread].alive ||
           x.index >= g.threads[x.thread].events.size() || x.index < st.processed(x.thread);
  };
  auto ready = [&](EventId id, bool force) {
    if (st.processed(id.thread) != id.index) return false;
    if (force) return true;
    const ThreadInfo& th = g.threads[id.thread];
    const Event& e = th.events[id.index];
    if (id.index == 0 && id.thread != 0 && !processed(EventId{th.parent, th.spawnIndex})) return false;
    if (e.reads && e.rf.thread != id.thread && !processed(e.rf)) return false;
    if (e.kind == EvKind::Join && e.aux < nThreads && e.aux != id.thread && !g.threads[e.aux].events.empty() &&
        !processed(EventId{e.aux, uint32_t(g.threads[e.aux].events.size()) - 1}))
      return false;
    return true;
  };
  done_.assign(fresh_.size(), 0);
  size_t left = fresh_.size();
  while (left > 0) {
    bool progress = false;
    for (size_t i = 0; i < fresh_.size(); ++i)
      if (!done_[i] && ready(fresh_[i], false)) {
        addEvent(g, st, fresh_[i]);
        done_[i] = 1;
        --left;
        progress = true;
      }
    if (progress) continue;
    for (size_t i = 0; i < fresh_.size(); ++i)  // a cycle (never in a consistent graph): the oldest goes first
      if (!done_[i] && ready(fresh_[i], true)) {
        addEvent(g, st, fresh_[i]);
        done_[i] = 1;
        --left;
        break;
      }
  }
  return st.total;
}

}  // namespace tsocheck

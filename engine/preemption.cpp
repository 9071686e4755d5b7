#include "engine/preemption.h"

#include <algorithm>

namespace tsocheck {

namespace {
// Acts on memory at its own step in every model (no store buffer in between).
bool lockedWrite(const Event& e) { return e.writes && e.kind != EvKind::Store; }
bool blocksThread(const Event& e) { return e.kind == EvKind::Lock || e.kind == EvKind::Join; }
constexpr uint32_t kNone = 0xFFFFFFFFu;
}  // namespace

int PreemptionCounter::recompute(const Graph& g, PreemptionState* st) {
  if (st) st->valid = false;
  const uint32_t nThreads = uint32_t(g.threads.size());
  base_.assign(nThreads + 1, 0);
  for (uint32_t t = 0; t < nThreads; ++t)
    base_[t + 1] = base_[t] + (g.threads[t].alive ? uint32_t(g.threads[t].events.size()) : 0);
  const uint32_t n = base_[nThreads];
  if (n == 0) {
    if (st) {
      st->clocks.assign(nThreads, {});
      st->threads.assign(nThreads, {});
      st->total = 0;
      st->valid = nThreads <= PreemptionState::kMaxThreads;
    }
    return 0;
  }
  auto node = [&](EventId x) { return base_[x.thread] + x.index; };
  auto present = [&](EventId x) {
    return !x.isInit() && x.thread < nThreads && g.threads[x.thread].alive &&
           x.index < g.threads[x.thread].events.size();
  };

  // Cross-thread happens-before edges every run producing g respects.
  edges_.clear();
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    if (t != 0 && !th.events.empty() && present(EventId{th.parent, th.spawnIndex}) && th.parent != t)
      edges_.push_back({node(EventId{th.parent, th.spawnIndex}), base_[t]});
    for (uint32_t i = 0; i < th.events.size(); ++i) {
      const Event& e = th.events[i];
      const uint32_t me = base_[t] + i;
      if (e.reads && present(e.rf) && e.rf.thread != t) edges_.push_back({node(e.rf), me});
      if (e.kind == EvKind::Join && e.aux != t && e.aux < nThreads && g.threads[e.aux].alive &&
          !g.threads[e.aux].events.empty())
        edges_.push_back({base_[e.aux] + uint32_t(g.threads[e.aux].events.size()) - 1, me});
    }
  }
  // co and fr edges end at a write's flush. Under SC, or for a locked write,
  // that is the write's own step; for a buffered store it is before the
  // thread's next draining step (full fence, RMW, lock, spawn, free), if any.
  nextDrain_.assign(n, kNone);
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    uint32_t next = kNone;
    for (uint32_t i = uint32_t(th.events.size()); i-- > 0;) {
      const Event& e = th.events[i];
      nextDrain_[base_[t] + i] = sc_ || lockedWrite(e) ? base_[t] + i : next;
      if (drainsBuffer(e) && e.kind != EvKind::Exit) next = base_[t] + i;
    }
  }
  auto toFlush = [&](uint32_t from, EventId w) {
    const uint32_t to = nextDrain_[node(w)];
    if (to != kNone) edges_.push_back({from, to});
  };
  for (const Location& l : g.locs) {
    for (size_t k = 1; k < l.co.size(); ++k) {
      EventId a = l.co[k - 1], b = l.co[k];
      if (!present(a) || !present(b) || a.thread == b.thread) continue;
      toFlush(node(a), b);
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
      if (next == EventId{t, i} || !present(next) || next.thread == t) continue;
      toFlush(base_[t] + i, next);
    }
  }

  // Out-adjacency (CSR) of the cross edges, in-degrees including po.
  adjStart_.assign(n + 1, 0);
  for (auto [a, b] : edges_) ++adjStart_[a + 1];
  for (uint32_t v = 0; v < n; ++v) adjStart_[v + 1] += adjStart_[v];
  adj_.resize(edges_.size());
  {
    std::vector<uint32_t>& fill = order_;
    fill.assign(adjStart_.begin(), adjStart_.end() - 1);
    for (auto [a, b] : edges_) adj_[fill[a]++] = b;
  }
  indeg_.assign(n, 0);
  for (auto [a, b] : edges_) ++indeg_[b];
  std::vector<uint32_t>& threadOf = threadOf_;
  threadOf.resize(n);
  for (uint32_t t = 0; t < nThreads; ++t)
    for (uint32_t v = base_[t]; v < base_[t + 1]; ++v) {
      threadOf[v] = t;
      if (v > base_[t]) ++indeg_[v];
    }

  // Vector clocks in topological order (Kahn), pushed along the edges;
  // left_[v] = how many events of v's thread reach v through another thread.
  clock_.assign(size_t(n) * nThreads, 0);
  left_.assign(n, 0);
  order_.clear();
  for (uint32_t v = 0; v < n; ++v)
    if (indeg_[v] == 0) order_.push_back(v);
  auto join = [&](uint32_t from, uint32_t to) {
    uint32_t* dst = &clock_[size_t(to) * nThreads];
    const uint32_t* src = &clock_[size_t(from) * nThreads];
    for (uint32_t u = 0; u < nThreads; ++u) dst[u] = std::max(dst[u], src[u]);
  };
  for (size_t head = 0; head < order_.size(); ++head) {
    const uint32_t v = order_[head];
    const uint32_t t = threadOf[v];
    clock_[size_t(v) * nThreads + t] = v - base_[t] + 1;
    auto release = [&](uint32_t w) {
      if (--indeg_[w] == 0) order_.push_back(w);
    };
    if (v + 1 < base_[t + 1]) {
      join(v, v + 1);
      release(v + 1);
    }
    for (uint32_t k = adjStart_[v]; k < adjStart_[v + 1]; ++k) {
      const uint32_t w = adj_[k];
      join(v, w);
      left_[w] = std::max(left_[w], clock_[size_t(v) * nThreads + threadOf[w]]);
      release(w);
    }
  }
  if (order_.size() != n) return 0;  // cyclic: not a consistent graph; claim nothing

  // Per thread: fewest switch points hitting every forced interval.
  const bool keep = st && nThreads <= PreemptionState::kMaxThreads;
  if (keep) {
    st->clocks.assign(nThreads, {});
    st->threads.assign(nThreads, {});
  }
  int total = 0;
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    if (!th.alive) continue;
    if (keep) {
      auto& cl = st->clocks[t];
      cl.resize(th.events.size());
      for (uint32_t i = 0; i < th.events.size(); ++i) {
        cl[i].fill(0);
        for (uint32_t u = 0; u < nThreads; ++u) cl[i][u] = uint16_t(clock_[size_t(base_[t] + i) * nThreads + u]);
        if (blocksThread(th.events[i])) st->threads[t].lastBlocker = int32_t(i);
      }
    }
    const uint32_t m = uint32_t(th.events.size());
    blockers_.assign(m + 1, 0);
    for (uint32_t i = 0; i < m; ++i) blockers_[i + 1] = blockers_[i] + blocksThread(th.events[i]);
    int64_t hit = -1;  // the last switch point chosen ("after event #hit")
    for (uint32_t j = 1; j < m; ++j) {
      const uint32_t i = left_[base_[t] + j];  // a_0..a_{i-1} reach a_j through another thread
      if (i == 0 || i > j) continue;
      if (blockers_[j + 1] - blockers_[i] != 0) continue;  // the switch may be a blocked wait
      const int64_t lo = int64_t(i) - 1, hi = int64_t(j) - 1;
      if (hit >= lo) continue;
      hit = hi;
      ++total;
      if (keep) st->threads[t].count++;
    }
    if (keep) st->threads[t].hit = int32_t(hit);
  }
  if (keep) {
    st->total = total;
    st->valid = true;
  }
  return total;
}

void PreemptionCounter::addEvent(const Graph& g, PreemptionState& st, EventId id) {
  const uint32_t t = id.thread, j = id.index;
  const ThreadInfo& th = g.threads[t];
  const Event& e = th.events[j];
  auto& mine = st.clocks[t];
  PreemptionState::Clock c{};
  if (j > 0) c = mine[j - 1];
  uint32_t left = 0;
  auto from = [&](EventId src) {
    if (src.isInit() || src.thread == t || src.thread >= st.clocks.size() ||
        src.index >= st.clocks[src.thread].size())
      return;
    const PreemptionState::Clock& s = st.clocks[src.thread][src.index];
    for (uint32_t u = 0; u < PreemptionState::kMaxThreads; ++u) c[u] = std::max(c[u], s[u]);
    left = std::max<uint32_t>(left, s[t]);
  };
  if (j == 0 && t != 0) from(EventId{th.parent, th.spawnIndex});
  if (e.reads) from(e.rf);
  if (e.kind == EvKind::Join && e.aux < g.threads.size() && !g.threads[e.aux].events.empty())
    from(EventId{e.aux, uint32_t(g.threads[e.aux].events.size()) - 1});
  if (e.writes && (sc_ || lockedWrite(e))) {
    // co predecessor, and the reads of it (fr), come before this write.
    const Location* l = g.findLoc(e.addr);
    int k = l ? Graph::coIndex(*l, id) : -2;
    if (k >= 0) {
      EventId pred = k > 0 ? l->co[size_t(k - 1)] : kInit;
      from(pred);
      for (uint32_t u = 0; u < g.threads.size(); ++u) {
        if (u == t || !g.threads[u].alive) continue;
        const auto& evs = g.threads[u].events;
        for (uint32_t i = 0; i < evs.size() && i < st.clocks[u].size(); ++i)
          if (evs[i].reads && evs[i].addr == e.addr && evs[i].rf == pred) from(EventId{u, i});
      }
    }
  }
  c[t] = uint16_t(j + 1);
  mine.push_back(c);
  PreemptionState::PerThread& pt = st.threads[t];
  if (blocksThread(e)) pt.lastBlocker = int32_t(j);
  // Interval of switch points [left-1, j-1], unless a lock/join in
  // a_left..a_j may make the switch a blocked wait.
  if (left == 0 || left > j || pt.lastBlocker >= int32_t(left)) return;
  if (pt.hit >= int32_t(left) - 1) return;
  pt.hit = int32_t(j) - 1;
  pt.count++;
  st.total++;
}

bool PreemptionCounter::exceeds(const Graph& g, PreemptionState& st, int limit) {
  const uint32_t nThreads = uint32_t(g.threads.size());
  if (!st.exact && nThreads > PreemptionState::kMaxThreads) {
    st.exact = true;
    st.valid = false;
  }
  if (!st.exact) {
    for (uint32_t t = 0; t < nThreads; ++t) {
      const ThreadInfo& th = g.threads[t];
      const uint32_t now = th.alive ? uint32_t(th.events.size()) : 0;
      if (st.scanned[t] > now) {  // not a forward step: count again
        st = PreemptionState{};
        return exceeds(g, st, limit);
      }
      // A forced interval ends at an event a_j (j >= 1) with an incoming
      // cross edge and no lock/join in it, so never at a lock or a join.
      for (uint32_t i = st.scanned[t]; i < now; ++i) {
        const Event& e = th.events[i];
        const uint32_t bit = uint32_t(1) << t;
        if (e.kind == EvKind::Store) st.storeSinceDrain |= bit;
        if (i == 0 || blocksThread(e)) continue;
        const bool drainAfterStore = drainsBuffer(e) && e.kind != EvKind::Exit && (st.storeSinceDrain & bit);
        if (drainsBuffer(e)) st.storeSinceDrain &= ~bit;
        st.candidates += (e.reads && !e.rf.isInit() && e.rf.thread != t) || (e.writes && (sc_ || lockedWrite(e))) ||
                         drainAfterStore;
      }
      st.scanned[t] = now;
    }
    if (int64_t(st.candidates) <= int64_t(limit)) return false;
    st.exact = true;
    st.valid = false;
  }
  return update(g, st) > limit;
}

int PreemptionCounter::update(const Graph& g, PreemptionState& st) {
  const uint32_t nThreads = uint32_t(g.threads.size());
  if (!st.valid || nThreads > PreemptionState::kMaxThreads) return recompute(g, &st);
  if (st.clocks.size() < nThreads) {
    st.clocks.resize(nThreads);
    st.threads.resize(nThreads);
  }
  fresh_.clear();
  for (uint32_t t = 0; t < nThreads; ++t) {
    const ThreadInfo& th = g.threads[t];
    const uint32_t have = uint32_t(st.clocks[t].size());
    const uint32_t now = th.alive ? uint32_t(th.events.size()) : 0;
    if (have > now) return recompute(g, &st);  // events went away: not a forward step
    for (uint32_t i = have; i < now; ++i) fresh_.push_back(EventId{t, i});
  }
  std::sort(fresh_.begin(), fresh_.end(),
            [&](EventId a, EventId b) { return g.stampOf(a) < g.stampOf(b); });
  for (EventId id : fresh_) addEvent(g, st, id);
  return st.total;
}

}  // namespace tsocheck

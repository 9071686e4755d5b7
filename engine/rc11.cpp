#include "engine/rc11.h"

#include <algorithm>

namespace tsocheck {

namespace {

constexpr int kNoPos = -3;  // no read (or write) part

// Rows of bits over the graph's nodes.
struct BitRows {
  uint32_t words = 0;
  std::vector<uint64_t> bits;
  void reset(uint32_t rows, uint32_t cols) {
    words = (cols + 63) / 64;
    bits.assign(size_t(rows) * words, 0);
  }
  uint64_t* row(uint32_t r) { return bits.data() + size_t(r) * words; }
  const uint64_t* row(uint32_t r) const { return bits.data() + size_t(r) * words; }
  void set(uint32_t r, uint32_t c) { row(r)[c / 64] |= uint64_t(1) << (c % 64); }
  bool test(uint32_t r, uint32_t c) const { return row(r)[c / 64] >> (c % 64) & 1; }
};

void orInto(uint64_t* to, const uint64_t* from, uint32_t words) {
  for (uint32_t i = 0; i < words; ++i) to[i] |= from[i];
}
bool testBit(const std::vector<uint64_t>& v, uint32_t c) { return v[c / 64] >> (c % 64) & 1; }
template <class F>
void forBits(const uint64_t* row, uint32_t words, F&& f) {
  for (uint32_t i = 0; i < words; ++i)
    for (uint64_t w = row[i]; w; w &= w - 1) f(i * 64 + uint32_t(__builtin_ctzll(w)));
}

bool isAccess(const Event& e) { return e.reads || e.writes; }
bool isFence(const Event& e) { return e.kind == EvKind::Fence; }
bool isAtomic(const Event& e) { return e.order != MemOrder::NonAtomic; }
// A seq_cst access or fence (locks, unlocks and events without memory
// effect take no part in the SC condition).
bool isSC(const Event& e) {
  return c11Order(e) == MemOrder::SeqCst &&
         (e.kind == EvKind::Load || e.kind == EvKind::Store || e.kind == EvKind::Rmw || e.kind == EvKind::Fence);
}

}  // namespace

bool Rc11Checker::orderAndClocks(const Graph& g, std::vector<std::vector<EventId>>* sw) {
  nThreads_ = uint32_t(g.threads.size());
  base_.assign(nThreads_ + 1, 0);
  for (uint32_t t = 0; t < nThreads_; ++t) base_[t + 1] = base_[t] + uint32_t(g.threads[t].events.size());
  nNodes_ = base_[nThreads_];
  clock_.assign(size_t(nNodes_) * nThreads_, 0);
  topo_.clear();
  topo_.reserve(nNodes_);
  // Per event: 1 + the index of the thread's latest release fence before it (0: none).
  std::vector<uint32_t> relFence(nNodes_, 0);
  for (uint32_t t = 0; t < nThreads_; ++t) {
    uint32_t last = 0;
    g.threads[t].events.forRange(0, g.threads[t].events.size(), [&](const Event& e, size_t i) {
      relFence[base_[t] + i] = last;
      if (isFence(e) && releases(e.order)) last = uint32_t(i) + 1;
    });
  }
  // What the thread's atomic reads so far synchronise with (for its acquire fences).
  std::vector<uint32_t> acqPending(size_t(nThreads_) * nThreads_, 0);
  // (Only with sw: the release heads behind acqPending, per thread.)
  std::vector<std::vector<EventId>> pendingSources(sw ? nThreads_ : 0);
  if (sw) sw->assign(nNodes_, {});
  auto addSource = [](std::vector<EventId>& to, EventId h) {
    if (std::find(to.begin(), to.end(), h) == to.end()) to.push_back(h);
  };
  std::vector<uint32_t> done(nThreads_, 0), src(nThreads_);
  auto maxInto = [&](uint32_t* to, const uint32_t* from) {
    for (uint32_t u = 0; u < nThreads_; ++u) to[u] = std::max(to[u], from[u]);
  };
  auto clockOf = [&](EventId id) { return clock_.data() + size_t(node(id)) * nThreads_; };
  auto ready = [&](uint32_t t) {
    const ThreadInfo& th = g.threads[t];
    const uint32_t i = done[t];
    if (i >= th.events.size()) return false;
    if (i == 0 && t != 0 && done[th.parent] <= th.spawnIndex) return false;
    const Event& e = th.events[i];
    if (e.reads && !e.rf.isInit() && done[e.rf.thread] <= e.rf.index) return false;
    if (e.kind == EvKind::Join && e.aux < nThreads_ && done[e.aux] < g.threads[e.aux].events.size()) return false;
    return true;
  };
  while (topo_.size() < nNodes_) {
    int pick = -1;
    uint32_t best = 0;
    for (uint32_t t = 0; t < nThreads_; ++t)
      if (ready(t) && (pick < 0 || g.threads[t].events[done[t]].stamp < best)) {
        pick = int(t);
        best = g.threads[t].events[done[t]].stamp;
      }
    if (pick < 0) return false;  // po ∪ rf has a cycle
    const uint32_t t = uint32_t(pick), i = done[t]++;
    const EventId id{t, i};
    topo_.push_back(id);
    const Event& e = g.ev(id);
    uint32_t* c = clockOf(id);
    if (i > 0) maxInto(c, clockOf(EventId{t, i - 1}));
    else if (t != 0) {
      const EventId spawn{g.threads[t].parent, g.threads[t].spawnIndex};
      maxInto(c, clockOf(spawn));
      if (sw) (*sw)[node(id)].push_back(spawn);
    }
    if (e.kind == EvKind::Join && e.aux < nThreads_ && !g.threads[e.aux].events.empty()) {
      const EventId last{e.aux, uint32_t(g.threads[e.aux].events.size() - 1)};
      maxInto(c, clockOf(last));
      if (sw) (*sw)[node(id)].push_back(last);
    }
    c[t] = i + 1;
    if (e.reads && isAtomic(e) && !e.rf.isInit()) {
      // The release heads of the release sequences that contain the write
      // read: the write itself and, through RMWs, the writes they read.
      std::fill(src.begin(), src.end(), 0);
      bool any = false;
      std::vector<EventId> heads;  // (only with sw)
      for (EventId h = e.rf; !h.isInit();) {
        const Event& he = g.ev(h);
        if (!he.writes || !isAtomic(he)) break;
        if (releases(he.order)) {
          maxInto(src.data(), clockOf(h));
          any = true;
          if (sw) heads.push_back(h);
        } else if (const uint32_t f = relFence[node(h)]) {
          maxInto(src.data(), clockOf(EventId{h.thread, f - 1}));
          any = true;
          if (sw) heads.push_back(EventId{h.thread, f - 1});
        }
        if (!he.reads) break;
        h = he.rf;
      }
      if (any) {
        if (acquires(c11Order(e))) maxInto(c, src.data());
        maxInto(acqPending.data() + size_t(t) * nThreads_, src.data());
        if (sw)
          for (EventId h : heads) {
            if (h.thread == t) continue;  // (po orders them already)
            if (acquires(c11Order(e))) addSource((*sw)[node(id)], h);
            addSource(pendingSources[t], h);
          }
      }
    }
    if (isFence(e) && acquires(e.order)) {
      maxInto(c, acqPending.data() + size_t(t) * nThreads_);
      if (sw)
        for (EventId h : pendingSources[t]) addSource((*sw)[node(id)], h);
    }
  }
  return true;
}

bool Rc11Checker::coherent(const Graph& g) const {
  // Per location, its accesses with the co positions of their read and write
  // parts, thread by thread in po order (the order they are collected in).
  struct Access {
    EventId id;
    int rpos, wpos;
    int maxW, maxR;  // the largest wpos / rpos of the thread's accesses here up to this one (kNoPos: none)
  };
  std::vector<std::vector<Access>> byLoc(g.locs.size());
  for (uint32_t t = 0; t < nThreads_; ++t)
    g.threads[t].events.forRange(0, g.threads[t].events.size(), [&](const Event& e, size_t i) {
      if (!isAccess(e)) return;
      const Location* loc = g.locOf(e);
      if (!loc) return;
      const EventId id{t, uint32_t(i)};
      byLoc[size_t(loc - g.locs.data())].push_back(Access{id, e.reads ? Graph::coIndex(*loc, e.rf) : kNoPos,
                                                          e.writes ? Graph::coIndex(*loc, id) : kNoPos, kNoPos, kNoPos});
    });
  std::vector<uint32_t> from(nThreads_ + 1);  // per location: where each thread's accesses start
  for (std::vector<Access>& as : byLoc) {
    if (as.empty()) continue;
    for (size_t k = 0; k < as.size(); ++k) {
      Access& x = as[k];
      if (x.rpos != kNoPos && x.wpos != kNoPos && x.wpos != x.rpos + 1) return false;  // atomicity
      const bool first = k == 0 || as[k - 1].id.thread != x.id.thread;
      x.maxW = std::max(first ? kNoPos : as[k - 1].maxW, x.wpos);
      x.maxR = std::max(first ? kNoPos : as[k - 1].maxR, x.rpos);
    }
    for (uint32_t u = 0, k = 0; u <= nThreads_; ++u) {
      while (k < as.size() && as[k].id.thread < u) ++k;
      from[u] = k;
    }
    // y sees nothing co-before what its hb predecessors here wrote or read:
    // per thread u, the accesses among u's first clock(y)[u] events (y's
    // own thread: those before y) carry the largest positions.
    for (const Access& y : as) {
      int maxW = kNoPos, maxR = kNoPos;
      const uint32_t* c = clock_.data() + size_t(node(y.id)) * nThreads_;
      for (uint32_t u = 0; u < nThreads_; ++u) {
        const uint32_t n = u == y.id.thread ? y.id.index : c[u];
        if (!n || from[u] == from[u + 1]) continue;
        const auto b = as.begin() + from[u], e = as.begin() + from[u + 1];
        const auto it = std::lower_bound(b, e, n, [](const Access& a, uint32_t idx) { return a.id.index < idx; });
        if (it == b) continue;
        maxW = std::max(maxW, (it - 1)->maxW);
        maxR = std::max(maxR, (it - 1)->maxR);
      }
      if (maxW != kNoPos && y.wpos != kNoPos && !(maxW < y.wpos)) return false;   // CoWW
      if (maxW != kNoPos && y.rpos != kNoPos && !(maxW <= y.rpos)) return false;  // CoWR
      if (maxR != kNoPos && y.wpos != kNoPos && !(maxR < y.wpos)) return false;   // CoRW
      if (maxR != kNoPos && y.rpos != kNoPos && !(maxR <= y.rpos)) return false;  // CoRR
    }
  }
  return true;
}

bool Rc11Checker::scAcyclic(const Graph& g) {
  std::vector<EventId> ids(nNodes_);
  std::vector<uint32_t> sc;
  uint32_t scFences = 0;
  for (uint32_t t = 0; t < nThreads_; ++t)
    g.threads[t].events.forRange(0, g.threads[t].events.size(), [&](const Event& e, size_t i) {
      const EventId id{t, uint32_t(i)};
      ids[node(id)] = id;
      if (isSC(e)) {
        sc.push_back(node(id));
        scFences += isFence(e);
      }
    });
  if (sc.size() < 2) return true;  // (a coherent graph has no psc self-loop)
  const uint32_t n = nNodes_;
  // Per node: its location (index into g.locs, or -1) and co positions.
  std::vector<int> locOf(n, -1), rpos(n, kNoPos), wpos(n, kNoPos);
  for (uint32_t v = 0; v < n; ++v) {
    const Event& e = g.ev(ids[v]);
    if (!isAccess(e)) continue;
    const Location* loc = g.locOf(e);
    if (!loc) continue;
    locOf[v] = int(loc - g.locs.data());
    if (e.reads) rpos[v] = Graph::coIndex(*loc, e.rf);
    if (e.writes) wpos[v] = Graph::coIndex(*loc, ids[v]);
  }
  auto sameLoc = [&](uint32_t a, uint32_t b) { return locOf[a] >= 0 && locOf[a] == locOf[b]; };
  BitRows hbSucc, sbNeq, scb;
  hbSucc.reset(n, n);
  sbNeq.reset(n, n);
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t u = 0; u < nThreads_; ++u)
      for (uint32_t k = 0, end = clock_[size_t(b) * nThreads_ + u]; k < end; ++k)
        if (base_[u] + k != b) hbSucc.set(base_[u] + k, b);
  for (uint32_t t = 0; t < nThreads_; ++t)
    for (uint32_t a = base_[t]; a < base_[t + 1]; ++a)
      for (uint32_t b = a + 1; b < base_[t + 1]; ++b)
        if (!sameLoc(a, b)) sbNeq.set(a, b);
  // scb rows of the nodes psc_base starts from: [E^sc] ∪ [F^sc]; hb?.
  const uint32_t W = hbSucc.words;
  std::vector<uint64_t> need(W, 0), mid(W), h(W);
  for (uint32_t a : sc) {
    need[a / 64] |= uint64_t(1) << (a % 64);
    if (isFence(g.ev(ids[a]))) orInto(need.data(), hbSucc.row(a), W);
  }
  scb.reset(n, n);
  forBits(need.data(), W, [&](uint32_t x) {
    uint64_t* row = scb.row(x);
    const uint32_t t = ids[x].thread;
    for (uint32_t b = x + 1; b < base_[t + 1]; ++b) scb.set(x, b);  // sb
    // sb≠loc; hb; sb≠loc (hb taken reflexively: the sb paths it adds are in sb already)
    std::fill(h.begin(), h.end(), 0);
    forBits(sbNeq.row(x), W, [&](uint32_t z) {
      h[z / 64] |= uint64_t(1) << (z % 64);
      orInto(h.data(), hbSucc.row(z), W);
    });
    forBits(h.data(), W, [&](uint32_t z) { orInto(row, sbNeq.row(z), W); });
    if (locOf[x] < 0) return;
    for (uint32_t y = 0; y < n; ++y) {
      if (y == x || !sameLoc(x, y)) continue;
      if (hbSucc.test(x, y)) scb.set(x, y);                                                     // hb|loc
      if (wpos[x] != kNoPos && wpos[y] != kNoPos && wpos[x] < wpos[y]) scb.set(x, y);           // mo
      if (rpos[x] != kNoPos && wpos[y] != kNoPos && rpos[x] < wpos[y]) scb.set(x, y);           // rb
    }
  });
  // eco rows (psc_F: only with two seq_cst fences).
  BitRows eco;
  if (scFences >= 2) {
    eco.reset(n, n);
    for (uint32_t x = 0; x < n; ++x)
      for (uint32_t y = 0; y < n; ++y) {
        if (x == y || !sameLoc(x, y)) continue;
        const bool e = (wpos[x] != kNoPos && wpos[y] != kNoPos && wpos[x] < wpos[y]) ||   // mo
                       (wpos[x] != kNoPos && rpos[y] != kNoPos && wpos[x] <= rpos[y]) ||  // rf, mo; rf
                       (rpos[x] != kNoPos && wpos[y] != kNoPos && rpos[x] < wpos[y]) ||   // rb
                       (rpos[x] != kNoPos && rpos[y] != kNoPos && rpos[x] < rpos[y]);     // rb; rf
        if (e) eco.set(x, y);
      }
  }
  // psc over the seq_cst nodes.
  const uint32_t m = uint32_t(sc.size());
  std::vector<std::vector<uint32_t>> adj(m);
  auto meetsHbPred = [&](const std::vector<uint64_t>& set, uint32_t b) {  // some y in set with y = b or y hb b
    if (testBit(set, b)) return true;
    for (uint32_t i = 0; i < W; ++i)
      for (uint64_t w = set[i]; w; w &= w - 1)
        if (hbSucc.test(i * 64 + uint32_t(__builtin_ctzll(w)), b)) return true;
    return false;
  };
  for (uint32_t i = 0; i < m; ++i) {
    const uint32_t a = sc[i];
    const bool fa = isFence(g.ev(ids[a]));
    std::fill(mid.begin(), mid.end(), 0);
    orInto(mid.data(), scb.row(a), W);
    if (fa) forBits(hbSucc.row(a), W, [&](uint32_t x) { orInto(mid.data(), scb.row(x), W); });
    std::vector<uint64_t> viaEco;
    if (fa && scFences >= 2) {
      viaEco.assign(W, 0);
      forBits(hbSucc.row(a), W, [&](uint32_t x) { orInto(viaEco.data(), eco.row(x), W); });
    }
    for (uint32_t j = 0; j < m; ++j) {
      const uint32_t b = sc[j];
      const bool fb = isFence(g.ev(ids[b]));
      bool edge = testBit(mid, b) || (fb && meetsHbPred(mid, b));  // psc_base
      if (!edge && fa && fb)  // psc_F: hb ∪ hb; eco; hb (eco rows hold no fence)
        edge = hbSucc.test(a, b) || (scFences >= 2 && meetsHbPred(viaEco, b));
      if (edge) adj[i].push_back(j);
    }
  }
  // Acyclic (Kahn).
  std::vector<uint32_t> indeg(m, 0), stack;
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j : adj[i]) ++indeg[j];
  for (uint32_t i = 0; i < m; ++i)
    if (!indeg[i]) stack.push_back(i);
  uint32_t seen = 0;
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    ++seen;
    for (uint32_t j : adj[i])
      if (--indeg[j] == 0) stack.push_back(j);
  }
  return seen == m;
}

bool Rc11Checker::consistent(const Graph& g, std::vector<OrderNode>* order) {
  if (order) order->clear();
  if (!orderAndClocks(g) || !coherent(g) || !scAcyclic(g)) return false;
  if (order)
    for (EventId id : topo_) order->push_back(OrderNode{id, false});
  return true;
}

Rc11Checker::Extension Rc11Checker::extension(const Graph& g, EventId e) {
  Extension x;
  const Event& ev = g.ev(e);
  const bool access = ev.kind == EvKind::Load || ev.kind == EvKind::Store || ev.kind == EvKind::Rmw ||
                      ev.kind == EvKind::Lock || ev.kind == EvKind::TryLock || ev.kind == EvKind::Unlock;
  if (!access || !isAccess(ev)) return x;
  const Location* loc = g.locOf(ev);
  if (!loc) return x;
  const uint32_t nt = uint32_t(g.threads.size());
  // One pass: a seq_cst fence anywhere (then no extension), and each
  // thread's release fences (for the release sequences the walk follows).
  relFences_.resize(nt);
  bool scFence = false;
  for (uint32_t t = 0; t < nt; ++t) {
    relFences_[t].clear();
    g.threads[t].events.forRange(0, g.threads[t].events.size(), [&](const Event& y, size_t i) {
      if (!isFence(y)) return;
      scFence |= isSC(y);
      if (releases(y.order)) relFences_[t].push_back(uint32_t(i));
    });
  }
  if (scFence) return x;
  x.usable = true;
  // e's hb predecessors: those of its po predecessor (with it), or of its
  // thread's spawn. (Not e's own: they hold what e's rf brings in.)
  EventId from = kInit;
  if (e.index > 0) from = EventId{e.thread, e.index - 1};
  else if (e.thread != 0) from = EventId{g.threads[e.thread].parent, g.threads[e.thread].spawnIndex};
  if (from.isInit()) return x;
  hbPrefix(g, from, loc);
  // The bound: the co-latest write at e's location that a prefix event is
  // or reads. (From the newest write down: the first one found is it.)
  auto before = [](EventId a, EventId b) { return a.thread != b.thread ? a.thread < b.thread : a.index < b.index; };
  std::sort(rfsAtLoc_.begin(), rfsAtLoc_.end(), before);
  for (int i = int(loc->co.size()) - 1; i >= 0; --i) {
    const EventId w = loc->co[size_t(i)];
    if (w.index < view_[w.thread] || std::binary_search(rfsAtLoc_.begin(), rfsAtLoc_.end(), w, before)) {
      x.bound = i;
      break;
    }
  }
  return x;
}

void Rc11Checker::hbPrefix(const Graph& g, EventId from, const Location* loc) {
  const uint32_t nt = uint32_t(g.threads.size());
  rfsAtLoc_.clear();
  view_.assign(nt, 0);
  scanned_.assign(nt, 0);
  pending_.resize(nt);
  for (auto& p : pending_) p.clear();
  work_.clear();
  auto raise = [&](EventId h) {
    if (view_[h.thread] > h.index) return;
    view_[h.thread] = h.index + 1;
    work_.push_back(h.thread);
  };
  raise(from);
  while (!work_.empty()) {
    const uint32_t u = work_.back();
    work_.pop_back();
    const ThreadInfo& th = g.threads[u];
    for (; scanned_[u] < view_[u]; ++scanned_[u]) {
      const uint32_t i = scanned_[u];
      const Event& y = th.events[i];
      if (y.reads && !y.rf.isInit() && isAccess(y) && g.locOf(y) == loc) rfsAtLoc_.push_back(y.rf);
      if (i == 0 && u != 0) raise(EventId{th.parent, th.spawnIndex});
      if (y.kind == EvKind::Join && y.aux < nt && !g.threads[y.aux].events.empty())
        raise(EventId{y.aux, uint32_t(g.threads[y.aux].events.size() - 1)});
      if (y.reads && isAtomic(y) && !y.rf.isInit()) {
        // The release heads of the release sequences that contain the write
        // read (orderAndClocks): an acquire read takes their prefixes now,
        // an acquire fence later in the thread takes them too.
        const bool acq = acquires(c11Order(y));
        for (EventId h = y.rf; !h.isInit();) {
          const Event& he = g.ev(h);
          if (!he.writes || !isAtomic(he)) break;
          EventId head = kInit;
          if (releases(he.order)) {
            head = h;
          } else {
            const std::vector<uint32_t>& fs = relFences_[h.thread];
            auto it = std::lower_bound(fs.begin(), fs.end(), h.index);
            if (it != fs.begin()) head = EventId{h.thread, *(it - 1)};
          }
          if (!head.isInit()) {
            if (acq) raise(head);
            pending_[u].push_back(head);
          }
          if (!he.reads) break;
          h = he.rf;
        }
      }
      if (isFence(y) && acquires(y.order))
        for (size_t k = 0; k < pending_[u].size(); ++k) raise(pending_[u][k]);
    }
  }
}

bool Rc11Checker::consistentExtension(const Graph& g, EventId e, std::optional<Extension>* ext) {
  if (!*ext) *ext = extension(g, e);
  if (!(*ext)->usable) return consistent(g);
  const Verdict v = judgeExtension(g, e, **ext, kInit);
  return v == Verdict::Unsure ? consistent(g) : v == Verdict::Consistent;
}

Rc11Checker::Verdict Rc11Checker::judgeExtension(const Graph& g, EventId e, const Extension& ext, EventId after) {
  const Event& ev = g.ev(e);
  const Location& loc = *g.locOf(ev);
  // (`after`'s write part, right after e, is not there yet: co positions
  // past e count without it.)
  const bool skip = !after.isInit() && g.ev(after).writes;
  const int last = int(loc.co.size()) - 1 - int(skip);
  int pos = -1;  // e's read part's rf, then e's write part
  if (ev.reads) {
    pos = Graph::coIndex(loc, ev.rf);
    if (pos < ext.bound) return Verdict::Inconsistent;
  }
  if (ev.writes) {
    const int wpos = Graph::coIndex(loc, e);
    if (wpos <= ext.bound || (ev.reads && wpos != pos + 1)) return Verdict::Inconsistent;
    pos = wpos;
    if (pos < last) {  // the write after e must not be an RMW that read the write before e
      const Event& next = g.ev(loc.co[size_t(pos) + 1 + size_t(skip)]);
      if (next.reads && next.writes && Graph::coIndex(loc, next.rf) == pos - 1) return Verdict::Inconsistent;
    }
  }
  return !isSC(ev) || pos == last ? Verdict::Consistent : Verdict::Unsure;
}

bool Rc11Checker::consistentRevisit(const Graph& g, EventId w, EventId r) {
  auto newest = [&](EventId x) { return g.contains(x) && x.index + 1 == g.threads[x.thread].events.size(); };
  if (!newest(w) || !newest(r) || !(g.ev(r).rf == w) || g.locOf(g.ev(w)) != g.locOf(g.ev(r))) return consistent(g);
  // Without r and w the graph is a porf-closed part of a consistent one, so
  // consistent: w is judged as a new access of that part, then r as one
  // after it (neither is in the other's hb prefix, nor reads the other's
  // part: r's write part sits right after w in co).
  const Extension xw = extension(g, w);
  if (!xw.usable) return consistent(g);
  const Verdict vw = judgeExtension(g, w, xw, r);
  if (vw != Verdict::Consistent) return vw == Verdict::Unsure && consistent(g);
  const Extension xr = extension(g, r);
  if (!xr.usable) return consistent(g);
  const Verdict vr = judgeExtension(g, r, xr, kInit);
  return vr == Verdict::Unsure ? consistent(g) : vr == Verdict::Consistent;
}

bool Rc11Checker::happensBefore(const Graph& g, EventId a, EventId b) {
  if (a.isInit()) return !b.isInit();
  if (b.isInit() || !orderAndClocks(g)) return false;
  return hb(a, b);
}

bool Rc11Checker::hbFacts(const Graph& g, HbFacts* out) {
  std::vector<std::vector<EventId>> sw;
  if (!orderAndClocks(g, &sw)) return false;
  out->clock.assign(nThreads_, {});
  out->sw.assign(nThreads_, {});
  for (uint32_t t = 0; t < nThreads_; ++t)
    for (uint32_t i = base_[t]; i < base_[t + 1]; ++i) {
      out->clock[t].emplace_back(clock_.begin() + ptrdiff_t(size_t(i) * nThreads_),
                                 clock_.begin() + ptrdiff_t(size_t(i + 1) * nThreads_));
      out->sw[t].push_back(std::move(sw[i]));
    }
  return true;
}

bool Rc11Checker::canOrderBefore(const Graph& g, EventId first, EventId second) {
  return !happensBefore(g, second, first);
}

}  // namespace tsocheck

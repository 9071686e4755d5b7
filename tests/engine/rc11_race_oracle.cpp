#include "tests/engine/rc11_race_oracle.h"

namespace tsocheck::testing {

Relation composeRelations(const Relation& a, const Relation& b) {
  const size_t n = a.size();
  Relation r(n, std::vector<bool>(n, false));
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < n; ++k)
      if (a[i][k])
        for (size_t j = 0; j < n; ++j)
          if (b[k][j]) r[i][j] = true;
  return r;
}

Relation rc11SynchronisesWith(const Relation& sb, const Relation& rs, const Relation& rf,
                              const std::function<bool(size_t)>& releasing, const std::function<bool(size_t)>& acquiring,
                              const std::function<bool(size_t)>& fence, const std::function<bool(size_t)>& atomic) {
  const size_t n = sb.size();
  // [E⊒rel]; ([F]; sb)?  and  (sb; [F])?; [E⊒acq]; rf; [R⊒rlx].
  Relation relStart(n, std::vector<bool>(n, false)), acqEnd = relStart, rfAtomic = relStart;
  for (size_t a = 0; a < n; ++a) {
    if (releasing(a)) relStart[a][a] = true;
    if (releasing(a) && fence(a))
      for (size_t b = 0; b < n; ++b)
        if (sb[a][b]) relStart[a][b] = true;
    if (acquiring(a)) acqEnd[a][a] = true;
    if (acquiring(a) && fence(a))
      for (size_t b = 0; b < n; ++b)
        if (sb[b][a]) acqEnd[b][a] = true;
    for (size_t r = 0; r < n; ++r)
      if (rf[a][r] && atomic(r)) rfAtomic[a][r] = true;
  }
  return composeRelations(composeRelations(relStart, composeRelations(rs, rfAtomic)), acqEnd);
}

std::vector<OracleRace> rc11RacesByMatrices(const HbExecution& x) {
  // Nodes: every event, thread by thread.
  struct Node {
    uint32_t thread, index;
    const HbEvent* e;
  };
  std::vector<Node> nodes;
  std::vector<std::vector<size_t>> id(x.size());
  for (uint32_t t = 0; t < x.size(); ++t)
    for (uint32_t i = 0; i < x[t].size(); ++i) {
      id[t].push_back(nodes.size());
      nodes.push_back(Node{t, i, &x[t][i]});
    }
  const size_t n = nodes.size();
  using M = Relation;
  auto empty = [&] { return M(n, std::vector<bool>(n, false)); };
  const auto ev = [&](size_t v) -> const HbEvent& { return *nodes[v].e; };
  auto isAccess = [&](size_t v) { return ev(v).kind == HbEvent::Access && (ev(v).reads || ev(v).writes); };
  auto isFence = [&](size_t v) { return ev(v).kind == HbEvent::Fence; };
  auto atomic = [&](size_t v) { return ev(v).order != MemOrder::NonAtomic || ev(v).lock || ev(v).unlock; };
  auto plain = [&](size_t v) { return isAccess(v) && !atomic(v); };
  auto isW = [&](size_t v) { return isAccess(v) && ev(v).writes; };
  auto isR = [&](size_t v) { return isAccess(v) && ev(v).reads; };
  // Locks acquire, unlocks release; other accesses and fences by their order.
  auto rel = [&](size_t v) {
    return ((isW(v) && atomic(v)) || isFence(v)) && (ev(v).unlock || (!ev(v).lock && releases(ev(v).order)));
  };
  auto acq = [&](size_t v) {
    return ((isR(v) && atomic(v)) || isFence(v)) && (ev(v).lock || (!ev(v).unlock && acquires(ev(v).order)));
  };
  // sb; spawn (to the child's first event) and join (from the joined thread's last).
  M sb = empty(), sj = empty(), rf = empty();
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b)
      if (nodes[a].thread == nodes[b].thread) sb[a][b] = true;
  for (size_t v = 0; v < n; ++v) {
    const HbEvent& e = ev(v);
    if (e.kind == HbEvent::Spawn && e.other < x.size() && !x[e.other].empty()) sj[v][id[e.other][0]] = true;
    if (e.kind == HbEvent::Join && e.other < x.size() && !x[e.other].empty()) sj[id[e.other].back()][v] = true;
    if (isR(v) && e.rfThread >= 0) rf[id[size_t(e.rfThread)][e.rfIndex]][v] = true;
  }
  // rs = [W⊒rlx]; (rf; [RMW])*: an atomic write and the atomic RMWs reading
  // from it, transitively.
  M rs = empty();
  for (size_t w = 0; w < n; ++w)
    if (isW(w) && atomic(w)) rs[w][w] = true;
  M rfRmw = empty();
  for (size_t w = 0; w < n; ++w)
    for (size_t r = 0; r < n; ++r)
      if (rf[w][r] && isR(r) && isW(r) && atomic(r)) rfRmw[w][r] = true;
  for (bool grew = true; grew;) {
    const M step = composeRelations(rs, rfRmw);
    grew = false;
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b)
        if (step[a][b] && !rs[a][b]) rs[a][b] = grew = true;
  }
  const M sw = rc11SynchronisesWith(sb, rs, rf, rel, acq, isFence, atomic);
  // hb = (sb ∪ sw ∪ spawn ∪ join)+ (Floyd–Warshall closure).
  M hb = empty();
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) hb[a][b] = sb[a][b] || sw[a][b] || sj[a][b];
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < n; ++i)
      if (hb[i][k])
        for (size_t j = 0; j < n; ++j)
          if (hb[k][j]) hb[i][j] = true;
  std::vector<OracleRace> out;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      if (nodes[a].thread >= nodes[b].thread || !isAccess(a) || !isAccess(b) || ev(a).addr != ev(b).addr) continue;
      if (!(ev(a).writes || ev(b).writes) || !(plain(a) || plain(b)) || hb[a][b] || hb[b][a]) continue;
      out.push_back(OracleRace{nodes[a].thread, nodes[a].index, nodes[b].thread, nodes[b].index});
    }
  return out;
}

HbExecution hbExecutionOf(const Graph& g) {
  HbExecution x(g.threads.size());
  for (uint32_t t = 0; t < g.threads.size(); ++t)
    for (uint32_t i = 0; i < g.threads[t].events.size(); ++i) {
      const Event& e = g.threads[t].events[i];
      HbEvent h;
      switch (e.kind) {
        case EvKind::Load:
        case EvKind::Store:
        case EvKind::Rmw:
        case EvKind::Lock:
        case EvKind::TryLock:
        case EvKind::Unlock: h.kind = HbEvent::Access; break;
        case EvKind::Fence: h.kind = HbEvent::Fence; break;
        case EvKind::Spawn: h.kind = HbEvent::Spawn; break;
        case EvKind::Join: h.kind = HbEvent::Join; break;
        default: break;
      }
      h.reads = e.reads;
      h.writes = e.writes;
      h.lock = e.kind == EvKind::Lock || e.kind == EvKind::TryLock;
      h.unlock = e.kind == EvKind::Unlock;
      h.order = c11Order(e);
      h.addr = e.addr;
      if (e.reads && !e.rf.isInit()) {
        h.rfThread = int32_t(e.rf.thread);
        h.rfIndex = e.rf.index;
      }
      h.other = e.aux;
      h.loc = e.loc;
      x[t].push_back(h);
    }
  return x;
}

}  // namespace tsocheck::testing

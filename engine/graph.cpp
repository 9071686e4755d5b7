#include "engine/graph.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tsocheck {

const char* evKindName(EvKind k) {
  switch (k) {
    case EvKind::Load: return "load";
    case EvKind::Store: return "store";
    case EvKind::Rmw: return "rmw";
    case EvKind::Lock: return "lock";
    case EvKind::TryLock: return "trylock";
    case EvKind::Unlock: return "unlock";
    case EvKind::Fence: return "fence";
    case EvKind::Spawn: return "spawn";
    case EvKind::Join: return "join";
    case EvKind::Free: return "free";
    case EvKind::Exit: return "exit";
    case EvKind::Query: return "query";
    case EvKind::Choice: return "choice";
  }
  return "?";
}

Location* Graph::findLoc(Addr a) {
  auto it = std::lower_bound(locs.begin(), locs.end(), a,
                             [](const Location& l, Addr x) { return l.addr < x; });
  return it != locs.end() && it->addr == a ? &*it : nullptr;
}

const Location* Graph::findLoc(Addr a) const {
  return const_cast<Graph*>(this)->findLoc(a);
}

Location& Graph::locFor(Addr a, uint8_t size, Value init) {
  auto it = std::lower_bound(locs.begin(), locs.end(), a,
                             [](const Location& l, Addr x) { return l.addr < x; });
  if (it != locs.end() && it->addr == a) return *it;
  Location l;
  l.addr = a;
  l.size = size;
  l.init = init;
  return *locs.insert(it, std::move(l));
}

int Graph::coIndex(const Location& loc, EventId w) {
  if (w.isInit()) return -1;
  // From the newest: most questions are about recent writes.
  for (size_t i = loc.co.size(); i-- > 0;)
    if (loc.co[i] == w) return int(i);
  return -2;
}

std::vector<uint32_t> Graph::porfView(EventId e, bool clocks) const {
  const uint64_t n = numEvents();
  if (!clocks && n < kClocksFrom) return porfViewByWalk(e);
  std::vector<uint32_t> view(threads.size(), 0);
  if (e.isInit()) return view;
  if (clockStride < threads.size()) {
    // A wider clock: every cached one is dropped.
    clockStride = 8;
    while (clockStride < threads.size()) clockStride *= 2;
    for (const ThreadInfo& th : threads) th.clocks.clear();
  }
  ensureClocks(e.thread, e.index + 1, 0, n + 1);
  const auto& c = threads[e.thread].clocks;
  const size_t at = size_t(e.index) * clockStride;
  for (uint32_t u = 0; u < threads.size(); ++u) view[u] = c[at + u];
  return view;
}

void Graph::ensureClocks(uint32_t t, uint32_t upto, uint64_t depth, uint64_t maxDepth) const {
  const ThreadInfo& th = threads[t];
  auto& c = th.clocks;
  const uint32_t w = clockStride;
  if (c.size() >= size_t(upto) * w) return;
  if (depth > maxDepth) throw std::logic_error("porf clocks: a cycle through thread " + std::to_string(t));
  std::vector<uint32_t> clock(w);
  auto join = [&](uint32_t u, uint32_t index) {  // clock = max(clock, clock of (u, index))
    ensureClocks(u, index + 1, depth + 1, maxDepth);
    const auto& o = threads[u].clocks;
    const size_t at = size_t(index) * w;
    for (uint32_t k = 0; k < w; ++k) clock[k] = std::max(clock[k], o[at + k]);
  };
  for (uint32_t i = uint32_t(c.size() / w); i < upto; ++i) {
    std::fill(clock.begin(), clock.end(), 0);
    if (i > 0) join(t, i - 1);
    else if (t != 0) join(th.parent, th.spawnIndex);
    const Event& x = th.events[i];
    if (x.reads && !x.rf.isInit()) join(x.rf.thread, x.rf.index);
    if (x.kind == EvKind::Join && !threads[x.aux].events.empty())
      join(x.aux, uint32_t(threads[x.aux].events.size()) - 1);
    clock[t] = i + 1;
    for (uint32_t k = 0; k < w; ++k) c.push_back(clock[k]);
  }
}

std::vector<uint32_t> Graph::porfViewByWalk(EventId e) const {
  std::vector<uint32_t> view(threads.size(), 0);
  porfWalk(e, view, [](const Event&, uint32_t, uint32_t) {});
  return view;
}

void Graph::detach() {
  for (ThreadInfo& t : threads) {
    t.events.detach();
    t.clocks.detach();
  }
  for (Location& l : locs) l.co.detach();
}

uint64_t Graph::numEvents() const {
  uint64_t n = 0;
  for (const ThreadInfo& t : threads) n += t.events.size();
  return n;
}

}  // namespace tsocheck

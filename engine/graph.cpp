#include "engine/graph.h"

#include <algorithm>

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

std::vector<uint32_t> Graph::porfView(EventId e) const {
  std::vector<uint32_t> view(threads.size(), 0), done(threads.size(), 0);
  if (e.isInit()) return view;
  view[e.thread] = e.index + 1;
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t t = 0; t < threads.size(); ++t) {
      if (done[t] == view[t]) continue;
      changed = true;
      const ThreadInfo& th = threads[t];
      if (done[t] == 0 && t != 0 && view[t] > 0) {
        uint32_t p = th.parent;
        view[p] = std::max(view[p], th.spawnIndex + 1);
      }
      for (uint32_t i = done[t]; i < view[t]; ++i) {
        const Event& x = th.events[i];
        if (x.reads && !x.rf.isInit()) view[x.rf.thread] = std::max(view[x.rf.thread], x.rf.index + 1);
        if (x.kind == EvKind::Join) {
          const ThreadInfo& tgt = threads[x.aux];
          view[x.aux] = std::max<uint32_t>(view[x.aux], uint32_t(tgt.events.size()));
        }
      }
      done[t] = view[t];
    }
  }
  return view;
}

uint64_t Graph::numEvents() const {
  uint64_t n = 0;
  for (const ThreadInfo& t : threads) n += t.events.size();
  return n;
}

}  // namespace tsocheck

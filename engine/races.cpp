#include "engine/races.h"

#include <algorithm>

namespace tsocheck {

namespace {

bool isAccess(const Event& e) {
  switch (e.kind) {
    case EvKind::Load:
    case EvKind::Store:
    case EvKind::Rmw:
    case EvKind::Lock:
    case EvKind::TryLock:
    case EvKind::Unlock:
      return e.reads || e.writes;
    default:
      return false;
  }
}

// Slots of the per-location, per-thread table of latest accesses.
enum Slot : uint32_t { kWrite, kPlainWrite, kRead, kPlainRead, kSlots };

// mayRace: no thread / two or more threads accessed a location; an access's kind.
constexpr uint32_t kNone = ~0u, kMany = ~1u;
constexpr uint8_t kPlain = 1, kWritten = 2;

}  // namespace

const Instr* RaceDetector::instrOf(const Event& e) const {
  if (e.function >= prog_.functions.size()) return nullptr;
  const std::vector<Instr>& code = prog_.functions[e.function].code;
  return e.pc < code.size() ? &code[e.pc] : nullptr;
}

bool RaceDetector::isPlain(const Event& e) const {
  if (e.kind != EvKind::Load && e.kind != EvKind::Store) return false;
  if (rc11_) return e.order == MemOrder::NonAtomic;
  if (e.section & kInSection) return false;  // inside an atomic section: as an atomic access
  const Instr* in = instrOf(e);
  return in && (in->op == Op::Load || in->op == Op::Store) && (in->sub & kPlainAccess);
}

bool RaceDetector::acquires(const Event& e) const {
  if (!e.reads) return false;
  const Instr* in = instrOf(e);
  if (e.kind == EvKind::Load) return in && in->op == Op::Load && !(in->sub & (kPlainAccess | kRelaxedAccess));
  if (e.kind == EvKind::Rmw) return !(in && in->op == Op::Rmw && (in->imm & kRmwNoAcquire));
  return e.kind == EvKind::Lock || e.kind == EvKind::TryLock || e.kind == EvKind::Unlock;
}

bool RaceDetector::releases(const Event& e) const {
  if (!e.writes) return false;
  const Instr* in = instrOf(e);
  if (e.kind == EvKind::Store) return in && in->op == Op::Store && !(in->sub & (kPlainAccess | kRelaxedAccess));
  if (e.kind == EvKind::Rmw) return !(in && in->op == Op::Rmw && (in->imm & kRmwNoRelease));
  return e.kind == EvKind::Lock || e.kind == EvKind::TryLock || e.kind == EvKind::Unlock;
}

bool RaceDetector::programHasPlainAccesses() const {
  for (const Function& f : prog_.functions)
    for (const Instr& in : f.code)
      if ((in.op == Op::Load || in.op == Op::Store) && (rc11_ ? in.order == MemOrder::NonAtomic : (in.sub & kPlainAccess)))
        return true;
  return false;
}

void RaceDetector::learn(const Known& known) {
  if (known == knownList_) return;
  knownList_ = known;
  knownSites_.clear();
  knownBits_.clear();
  auto site = [&](const SourceLoc& x) {
    const auto it = std::find(knownSites_.begin(), knownSites_.end(), x);
    if (it != knownSites_.end()) return size_t(it - knownSites_.begin());
    knownSites_.push_back(x);
    knownBits_.push_back(0);
    return knownSites_.size() - 1;
  };
  for (const auto& [p, q] : known) {
    const size_t a = site(p), b = site(q);
    if (a < 64 && b < 64) {
      knownBits_[a] |= uint64_t(1) << b;
      knownBits_[b] |= uint64_t(1) << a;
    }
  }
}

uint8_t RaceDetector::siteOf(Access& a) const {
  if (a.site == kSiteUnknown) {
    const auto it = std::find(knownSites_.begin(), knownSites_.end(), a.ev->loc);
    a.site = it != knownSites_.end() && it - knownSites_.begin() < 64 ? uint8_t(it - knownSites_.begin()) : kNoSite;
  }
  return a.site;
}

bool RaceDetector::allKnown(uint32_t head) {
  if (knownSites_.empty()) return false;
  constexpr size_t kMaxKeys = 16;
  const Access* keys[kMaxKeys];
  size_t n = 0;
  for (uint32_t y = head; y != kNone; y = nextOf_[y]) {
    Access& a = accesses_[y];
    if (siteOf(a) == kNoSite) return false;
    bool seen = false;
    for (size_t j = 0; j < n && !seen; ++j)
      seen = keys[j]->site == a.site && keys[j]->thread == a.thread && keys[j]->kind == a.kind;
    if (seen) continue;
    if (n == kMaxKeys) return false;
    keys[n++] = &a;
  }
  for (size_t j = 0; j < n; ++j)
    for (size_t m = j + 1; m < n; ++m) {
      const Access& a = *keys[j];
      const Access& b = *keys[m];
      if (a.thread != b.thread && ((a.kind | b.kind) & kWritten) && ((a.kind | b.kind) & kPlain) &&
          !(knownBits_[a.site] >> b.site & 1))
        return false;
    }
  return true;
}

bool RaceDetector::mayRace(const Graph& g, const Known& known) {
  // Per location: the one thread that accessed it (kNone, or kMany once a
  // second did), whether an access was plain and one wrote, and its accesses
  // (a list through nextOf_, newest first). A location is a candidate when
  // two threads access it, one access plain and one a write; then each
  // conflicting pair of its accesses of different threads must be ordered by
  // a spawn or a join alone (a harness's arguments written before the spawn
  // and read by the child, results read after the join) or be a known pair of
  // source locations, else find() decides: the first pair that is neither
  // ends the pass.
  const uint32_t nT = uint32_t(g.threads.size());
  accessors_.assign(g.locs.size(), kNone);
  kinds_.assign(g.locs.size(), 0);
  headOf_.assign(g.locs.size(), kNone);
  accesses_.clear();
  nextOf_.clear();
  // Per thread t and thread u: the index of t's first join of u (kNone:
  // none), filled when a pair first needs it.
  bool joinsFound = false;
  auto joinedBefore = [&](uint32_t t, uint32_t i, uint32_t u) {  // t joined u before its event i
    if (!joinsFound) {
      joinsFound = true;
      joinAt_.assign(size_t(nT) * nT, kNone);
      for (uint32_t v = 0; v < nT; ++v) {
        const auto& evs = g.threads[v].events;
        evs.forRange(0, evs.size(), [&](const Event& e, size_t k) {
          if (e.kind == EvKind::Join && e.aux < nT) {
            uint32_t& at = joinAt_[size_t(v) * nT + e.aux];
            at = std::min(at, uint32_t(k));
          }
        });
      }
    }
    return joinAt_[size_t(t) * nT + u] < i;
  };
  learn(known);
  auto isKnown = [&](Access& a, Access& b) {
    if (knownSites_.empty()) return false;
    const uint8_t x = siteOf(a), y = siteOf(b);
    return x != kNoSite && y != kNoSite && (knownBits_[x] >> y & 1);
  };
  // False when a and b conflict, no spawn or join alone orders them and the
  // pair is not known.
  auto ordered = [&](Access& a, Access& b) {
    if (a.thread == b.thread || !((a.kind | b.kind) & kWritten) || !((a.kind | b.kind) & kPlain)) return true;
    if (isKnown(a, b)) return true;
    const ThreadInfo& ta = g.threads[a.thread];
    const ThreadInfo& tb = g.threads[b.thread];
    return (tb.parent == a.thread && a.index < tb.spawnIndex) || (ta.parent == b.thread && b.index < ta.spawnIndex) ||
           joinedBefore(a.thread, a.index, b.thread) || joinedBefore(b.thread, b.index, a.thread);
  };
  constexpr size_t kMaxPairs = 4096;  // beyond this, find() is cheaper than the pairs
  size_t pairs = 0;
  auto searchNeeded = [&] {
    ++counts_.searched;
    return true;
  };
  // Each location's accesses, newest first; then the locations two threads
  // access, one access plain and one a write (candidates).
  for (uint32_t t = 0; t < nT; ++t) {
    const ThreadInfo& th = g.threads[t];
    th.events.forRange(0, th.events.size(), [&](const Event& e, size_t i) {
      if (!isAccess(e)) return;
      const Location* l = g.locOf(e);
      if (!l) return;
      const uint32_t li = uint32_t(l - g.locs.data());
      uint32_t& who = accessors_[li];
      if (who == kNone) who = t;
      else if (who != t) who = kMany;
      const uint8_t k = uint8_t((isPlain(e) ? kPlain : 0) | (e.writes ? kWritten : 0));
      kinds_[li] |= k;
      nextOf_.push_back(headOf_[li]);
      headOf_[li] = uint32_t(accesses_.size());
      accesses_.push_back(Access{li, t, uint32_t(i), k, kSiteUnknown, &e});
    });
  }
  bool candidates = false;
  for (uint32_t li = 0; li < g.locs.size(); ++li) {
    if (accessors_[li] != kMany || (kinds_[li] & (kPlain | kWritten)) != (kPlain | kWritten)) continue;
    candidates = true;
    if (allKnown(headOf_[li])) continue;
    for (uint32_t y = headOf_[li]; y != kNone; y = nextOf_[y])
      for (uint32_t z = nextOf_[y]; z != kNone; z = nextOf_[z])
        if (++pairs > kMaxPairs || !ordered(accesses_[y], accesses_[z])) return searchNeeded();
  }
  if (!candidates) {
    ++counts_.noCandidate;
    return false;
  }
  ++counts_.spawnJoinOrdered;
  return false;
}

void RaceDetector::access(const Graph& g, EventId id, const uint32_t* c, std::vector<Race>& out) {
  // A new access races with an older one of thread u exactly when it does
  // not see u's latest access of the kind it conflicts with (seen events of
  // a thread form a prefix of it).
  const Event& e = g.ev(id);
  if (!isAccess(e)) return;
  const Location* l = g.locOf(e);
  if (!l) return;
  const uint32_t nT = uint32_t(g.threads.size()), t = id.thread, i = id.index;
  const size_t li = size_t(l - g.locs.data());
  const bool plain = isPlain(e);
  int32_t* row = &last_[li * nT * kSlots];
  bool raced = false;
  for (uint32_t u = 0; u < nT && !raced; ++u) {
    if (u == t) continue;
    const int32_t* r = row + u * kSlots;
    // Writes of u this access conflicts with; reads of u if it writes.
    int32_t w = r[plain ? kWrite : kPlainWrite];
    int32_t rd = e.writes ? r[plain ? kRead : kPlainRead] : -1;
    for (int32_t x : {w, rd})
      if (x >= 0 && c[u] <= uint32_t(x)) {
        out.push_back(Race{EventId{u, uint32_t(x)}, id});
        raced = true;
        break;
      }
  }
  int32_t* mine = row + t * kSlots;
  if (e.writes) {
    mine[kWrite] = int32_t(i);
    if (plain) mine[kPlainWrite] = int32_t(i);
  }
  if (e.reads) {
    mine[kRead] = int32_t(i);
    if (plain) mine[kPlainRead] = int32_t(i);
  }
}

void RaceDetector::find(const Graph& g, std::vector<Race>& out, const Known& known) {
  if (!mayRace(g, known)) return;
  const uint32_t nT = uint32_t(g.threads.size());
  last_.assign(g.locs.size() * nT * kSlots, -1);
  if (rc11_) {
    // RC11's own hb: its order extends hb, its clocks are hb exactly.
    if (!rc11_->computeHb(g)) return;
    for (const EventId id : rc11_->hbOrder()) access(g, id, rc11_->hbClock(id), out);
    return;
  }
  clockStart_.assign(nT + 1, 0);
  for (uint32_t t = 0; t < nT; ++t) clockStart_[t + 1] = clockStart_[t] + uint32_t(g.threads[t].events.size());
  clocks_.assign(size_t(clockStart_[nT]) * nT, 0);
  release_.assign(size_t(clockStart_[nT]) * nT, 0);
  next_.assign(nT, 0);
  auto clockOf = [&](uint32_t t, uint32_t i) { return &clocks_[size_t(clockStart_[t] + i) * nT]; };
  // What a write releases to an acquiring read of it: its own clock if it
  // releases, joined, for an RMW, with what the write it read releases (the
  // release sequence: RMWs continue it).
  auto releaseOf = [&](EventId w) { return &release_[size_t(clockStart_[w.thread] + w.index) * nT]; };
  auto join = [&](uint32_t* c, const uint32_t* o) {
    for (uint32_t u = 0; u < nT; ++u) c[u] = std::max(c[u], o[u]);
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (uint32_t t = 0; t < nT; ++t) {
      const ThreadInfo& th = g.threads[t];
      if (!th.alive) continue;
      while (next_[t] < th.events.size()) {
        const uint32_t i = next_[t];
        const Event& e = th.events[i];
        const bool child = i == 0 && th.parent != t;
        if (child && next_[th.parent] <= th.spawnIndex) break;
        // It reads an atomic write: an acquiring read joins that write's
        // release clock, an RMW continues it; either needs it done first.
        const bool fromAtomic = e.reads && !e.rf.isInit() && !isPlain(g.ev(e.rf));
        const bool acquiring = fromAtomic && acquires(e);
        if ((acquiring || (fromAtomic && e.writes)) && e.rf.thread != t && next_[e.rf.thread] <= e.rf.index) break;
        if (e.kind == EvKind::Join && next_[e.aux] < g.threads[e.aux].events.size()) break;
        uint32_t* c = clockOf(t, i);
        if (i > 0) std::copy(clockOf(t, i - 1), clockOf(t, i - 1) + nT, c);
        else if (child) join(c, clockOf(th.parent, th.spawnIndex));
        if (acquiring) join(c, releaseOf(e.rf));
        if (e.kind == EvKind::Join && !g.threads[e.aux].events.empty())
          join(c, clockOf(e.aux, uint32_t(g.threads[e.aux].events.size() - 1)));
        c[t] = i + 1;
        if (e.writes) {
          uint32_t* rel = releaseOf(EventId{t, i});
          if (releases(e)) std::copy(c, c + nT, rel);
          if (fromAtomic) {
            join(rel, releaseOf(e.rf));
          } else if (!isPlain(e)) {
            // C11's release sequence also goes on through the same thread's
            // later writes: join the coherence predecessor's if it is ours.
            if (const Location* l = g.locOf(e)) {
              const int k = Graph::coIndex(*l, EventId{t, i});
              if (k > 0 && l->co[size_t(k - 1)].thread == t && !isPlain(g.ev(l->co[size_t(k - 1)])))
                join(rel, releaseOf(l->co[size_t(k - 1)]));
            }
          }
        }
        access(g, EventId{t, i}, c, out);
        ++next_[t];
        progress = true;
      }
    }
  }
}

}  // namespace tsocheck

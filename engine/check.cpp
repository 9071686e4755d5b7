#include "engine/check.h"

#include <algorithm>

#include "engine/search.h"

namespace tsocheck {

const char* statusName(Status s) {
  switch (s) {
    case Status::Violation: return "violation";
    case Status::Verified: return "verified";
    case Status::Bounded: return "bounded";
    case Status::Timeout: return "timeout";
    case Status::Error: return "error";
  }
  return "?";
}

const char* deadlockModeName(DeadlockMode m) {
  switch (m) {
    case DeadlockMode::Error: return "error";
    case DeadlockMode::Warning: return "warning";
    case DeadlockMode::Ignore: return "ignore";
  }
  return "?";
}

const char* exploreOrderName(ExploreOrder o) {
  switch (o) {
    case ExploreOrder::Forward: return "forward";
    case ExploreOrder::RevisitsFirst: return "revisits-first";
    case ExploreOrder::StaleFirst: return "stale-first";
  }
  return "?";
}

std::optional<ExploreOrder> parseExploreOrder(const std::string& s) {
  for (ExploreOrder o : {ExploreOrder::Forward, ExploreOrder::RevisitsFirst, ExploreOrder::StaleFirst})
    if (s == exploreOrderName(o)) return o;
  return std::nullopt;
}

bool isHang(ErrorKind k) { return k == ErrorKind::Deadlock || k == ErrorKind::NonTermination; }

int severity(ErrorKind k) {
  switch (k) {
    case ErrorKind::Deadlock: return 1;
    case ErrorKind::NonTermination: return 2;
    case ErrorKind::Race: return 3;
    default: return 0;
  }
}

namespace {

// The same pair of source locations, in either order.
bool sameRace(const Violation& a, const Violation& b) {
  if (!a.other || !b.other) return a.loc == b.loc && !a.other && !b.other;
  return (a.loc == b.loc && a.other->loc == b.other->loc) ||
         (a.loc == b.other->loc && a.other->loc == b.loc);
}

}  // namespace

bool sameError(const Violation& a, const Violation& b) {
  if (a.kind != b.kind) return false;
  if (isRace(a.kind)) return sameRace(a, b);
  return isHang(a.kind) || a.loc == b.loc;
}

bool CheckResult::addViolation(Violation v) {
  if (isRace(v.kind) &&
      size_t(std::count_if(violations.begin(), violations.end(),
                           [](const Violation& o) { return isRace(o.kind); })) >= kMaxRaces &&
      std::none_of(violations.begin(), violations.end(), [&](const Violation& o) { return sameError(o, v); }))
    return false;
  auto same = std::find_if(violations.begin(), violations.end(), [&](const Violation& o) {
    return o.kind == v.kind && (!isRace(v.kind) || sameRace(o, v));
  });
  if (same != violations.end()) {
    if (!same->aboveBound || v.aboveBound) return false;
    *same = std::move(v);
  } else {
    violations.push_back(std::move(v));
  }
  // Those within the preemption bound before those met only above it (a
  // violation above the bound is what `aboveBound` on `violation` tells the
  // caller: nothing was found within it); then most severe first, then the
  // order found.
  std::stable_sort(violations.begin(), violations.end(), [](const Violation& a, const Violation& b) {
    return std::make_pair(a.aboveBound, severity(a.kind)) < std::make_pair(b.aboveBound, severity(b.kind));
  });
  violation.reset();
  for (const Violation& x : violations)
    if (!x.warning) {
      violation = x;
      break;
    }
  return true;
}

bool CheckResult::hasHardError() const {
  return std::any_of(violations.begin(), violations.end(),
                     [](const Violation& v) { return !isHang(v.kind) && !v.warning && !v.aboveBound; });
}

std::string CheckResult::warningsNote() const {
  std::string kinds;
  std::vector<ErrorKind> seen;
  for (const Violation& v : violations)
    if (v.warning && std::find(seen.begin(), seen.end(), v.kind) == seen.end()) {
      seen.push_back(v.kind);
      kinds += (kinds.empty() ? "" : ", ") + std::string(errorKindName(v.kind));
    }
  return kinds.empty() ? kinds : "; warnings: " + kinds;
}

void CheckResult::limitNondet(const Limits& l) {
  if (!nondetLimited) return;
  if (status == Status::Verified) {
    status = Status::Bounded;
    message = "no violation found, but " + nondetRangeText(l);
  } else if (status == Status::Bounded) {
    message += "; " + nondetRangeText(l);
  }
}

const char* stepKindName(StepKind k) {
  switch (k) {
    case StepKind::ThreadStart: return "start";
    case StepKind::Store: return "store";
    case StepKind::Flush: return "flush";
    case StepKind::LoadMem: return "load-memory";
    case StepKind::LoadBuf: return "load-buffer";
    case StepKind::Rmw: return "rmw";
    case StepKind::Fence: return "fence";
    case StepKind::Spawn: return "spawn";
    case StepKind::Join: return "join";
    case StepKind::Lock: return "lock";
    case StepKind::Unlock: return "unlock";
    case StepKind::TryLock: return "trylock";
    case StepKind::Free: return "free";
    case StepKind::Exit: return "exit";
    case StepKind::Error: return "error";
    case StepKind::Blocked: return "blocked";
    case StepKind::Nondet: return "nondet";
    case StepKind::Atomic: return "atomic";
  }
  return "?";
}

CheckResult check(const Program& prog, const CheckOptions& opts) {
  CheckResult refused;
  std::unique_ptr<Search> search = chooseSearch(prog, opts, &refused);
  return search ? search->run() : refused;
}

void annotateStaleReads(std::vector<TraceStep>& trace) {
  for (TraceStep& s : trace) {
    if (s.kind != StepKind::LoadMem || !s.hasAddr) continue;
    for (uint32_t u = 0; u < s.buffers.size() && s.staleThread == TraceStep::kNoThread; ++u) {
      if (u == s.thread) continue;
      const auto& b = s.buffers[u];
      for (auto it = b.rbegin(); it != b.rend(); ++it)
        if (it->addr == s.addr) {
          s.staleThread = u;
          s.staleEntry = *it;
          break;
        }
    }
  }
}

}  // namespace tsocheck

#include "engine/fences.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace tsocheck {

const char* fenceOutcomeName(FenceOutcome o) {
  switch (o) {
    case FenceOutcome::NotNeeded: return "not-needed";
    case FenceOutcome::ScViolation: return "sc-violation";
    case FenceOutcome::Fixed: return "fixed";
    case FenceOutcome::GaveUp: return "gave-up";
  }
  return "?";
}

Program insertFences(const Program& prog, const std::vector<FencePosition>& fences,
                     std::vector<std::vector<uint32_t>>* newPcToOld) {
  Program out = prog;
  if (newPcToOld) newPcToOld->assign(prog.functions.size(), {});
  for (size_t f = 0; f < prog.functions.size(); ++f) {
    const std::vector<Instr>& code = prog.functions[f].code;
    std::vector<bool> after(code.size(), false);
    for (const FencePosition& p : fences)
      if (p.function == f && p.pc < code.size()) after[p.pc] = true;
    // New index of every old instruction (and of the end, for jumps past it).
    std::vector<uint32_t> moved(code.size() + 1);
    uint32_t n = 0;
    for (size_t pc = 0; pc < code.size(); ++pc) {
      moved[pc] = n;
      n += after[pc] ? 2 : 1;
    }
    moved[code.size()] = n;
    auto target = [&](int64_t old) -> int64_t {
      return old >= 0 && uint64_t(old) <= code.size() ? int64_t(moved[size_t(old)]) : old;
    };
    std::vector<Instr> fresh;
    fresh.reserve(n);
    std::vector<uint32_t> back;
    back.reserve(n);
    for (size_t pc = 0; pc < code.size(); ++pc) {
      Instr in = code[pc];
      if (in.op == Op::Jmp) in.imm = target(in.imm);
      if (in.op == Op::Br) {
        in.imm = target(in.imm);
        in.imm2 = target(in.imm2);
      }
      fresh.push_back(in);
      back.push_back(uint32_t(pc));
      if (after[pc]) {
        Instr fence;
        fence.op = Op::Fence;
        fence.sub = uint8_t(FenceKind::Full);
        fence.loc = code[pc].loc;
        fresh.push_back(fence);
        back.push_back(uint32_t(pc));
      }
    }
    out.functions[f].code = std::move(fresh);
    if (newPcToOld) (*newPcToOld)[f] = std::move(back);
  }
  return out;
}

std::vector<FencePosition> candidatePositions(const Program& prog, Model model, const Violation& v) {
  std::vector<FencePosition> out;
  if (model == Model::SC) return out;
  struct Issued {
    uint32_t event;
    FencePosition pos;
    Addr addr;
    bool flushed = false;
  };
  std::vector<std::vector<Issued>> issued;  // per thread, in program order
  std::vector<FencePosition> atSection;  // stores delayed past another thread's section start
  auto add = [&](const std::vector<Issued>& stores, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) out.push_back(stores[i].pos);
  };
  for (const TraceStep& s : v.trace) {
    if (s.event == TraceStep::kNoEvent) continue;
    if (issued.size() <= s.thread) issued.resize(s.thread + 1);
    std::vector<Issued>& mine = issued[s.thread];
    switch (s.kind) {
      case StepKind::Store: {
        FencePosition p{s.function, s.pc, s.loc};
        if (s.function < prog.functions.size() && s.pc < prog.functions[s.function].code.size())
          p.loc = prog.functions[s.function].code[s.pc].loc;
        mine.push_back(Issued{s.event, p, s.addr});
        break;
      }
      case StepKind::Flush: {
        size_t self = mine.size();
        for (size_t i = 0; i < mine.size(); ++i)
          if (mine[i].event == s.event) self = i;
        if (self == mine.size()) break;
        // PSO: an older store to another address is still buffered when this
        // one reaches memory (store -> store relaxed).
        for (size_t i = 0; i < self; ++i)
          if (!mine[i].flushed && mine[i].addr != s.addr) {
            add(mine, i, self);
            break;
          }
        mine[self].flushed = true;
        break;
      }
      case StepKind::LoadMem:
      case StepKind::LoadBuf: {
        // An older store to another address is still buffered when this load
        // takes effect (store -> load relaxed).
        for (size_t i = 0; i < mine.size(); ++i)
          if (!mine[i].flushed && mine[i].addr != s.addr) {
            add(mine, i, mine.size());
            break;
          }
        break;
      }
      case StepKind::Atomic:
        // Another thread's atomic section starts while a store is still
        // buffered: under SC that store took effect before this section
        // (the end of its own section, or of whatever ran before): delayed
        // past that point. Used only when the counterexample has no other
        // delayed pair (below).
        for (size_t u = 0; u < issued.size(); ++u) {
          if (u == s.thread) continue;
          for (size_t i = 0; i < issued[u].size(); ++i)
            if (!issued[u][i].flushed) {
              for (size_t j = i; j < issued[u].size(); ++j) atSection.push_back(issued[u][j].pos);
              break;
            }
        }
        break;
      default:
        break;
    }
  }
  if (out.empty()) out = std::move(atSection);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

bool hitsAll(const std::vector<std::vector<FencePosition>>& sets, const std::vector<FencePosition>& chosen) {
  for (const auto& s : sets) {
    bool hit = false;
    for (const FencePosition& c : chosen)
      if (std::binary_search(s.begin(), s.end(), c)) {
        hit = true;
        break;
      }
    if (!hit) return false;
  }
  return true;
}

}  // namespace

std::vector<FencePosition> minimumHittingSet(const std::vector<std::vector<FencePosition>>& sets,
                                             size_t maxSize, uint64_t maxCombinations, bool* exact) {
  if (exact) *exact = true;
  std::vector<FencePosition> universe;
  for (const auto& s : sets) {
    if (s.empty()) return {};
    universe.insert(universe.end(), s.begin(), s.end());
  }
  std::sort(universe.begin(), universe.end());
  universe.erase(std::unique(universe.begin(), universe.end()), universe.end());
  if (sets.empty()) return {};
  const size_t n = universe.size();
  uint64_t tried = 0;
  // Exact: every k-subset of the universe in lexicographic order, k = 1, 2, ...
  for (size_t k = 1; k <= std::min(maxSize, n); ++k) {
    std::vector<size_t> idx(k);
    for (size_t i = 0; i < k; ++i) idx[i] = i;
    std::vector<FencePosition> chosen(k);
    while (true) {
      if (++tried > maxCombinations) goto greedy;
      for (size_t i = 0; i < k; ++i) chosen[i] = universe[idx[i]];
      if (hitsAll(sets, chosen)) return chosen;
      // Next combination.
      size_t i = k;
      while (i > 0 && idx[i - 1] == n - k + (i - 1)) --i;
      if (i == 0) break;
      ++idx[i - 1];
      for (size_t j = i; j < k; ++j) idx[j] = idx[j - 1] + 1;
    }
  }
  return {};
greedy:
  if (exact) *exact = false;
  {
    // Repeatedly take the position that hits the most sets not hit yet.
    std::vector<FencePosition> chosen;
    std::vector<bool> done(sets.size(), false);
    while (chosen.size() < maxSize) {
      size_t best = n, bestCount = 0;
      for (size_t u = 0; u < n; ++u) {
        size_t count = 0;
        for (size_t s = 0; s < sets.size(); ++s)
          if (!done[s] && std::binary_search(sets[s].begin(), sets[s].end(), universe[u])) ++count;
        if (count > bestCount) best = u, bestCount = count;
      }
      if (best == n) break;
      chosen.push_back(universe[best]);
      for (size_t s = 0; s < sets.size(); ++s)
        if (std::binary_search(sets[s].begin(), sets[s].end(), universe[best])) done[s] = true;
    }
    std::sort(chosen.begin(), chosen.end());
    if (!hitsAll(sets, chosen)) return {};
    return chosen;
  }
}

const Violation* violationNotUnderSc(const CheckResult& r, const CheckResult& sc) {
  for (const Violation& v : r.violations) {
    if (v.warning) continue;
    bool underSc = false;
    for (const Violation& o : sc.violations) underSc = underSc || sameError(v, o);
    if (!underSc) return &v;
  }
  return nullptr;
}

FenceSynthesisResult synthesizeFences(const Program& prog, const CheckOptions& opts, const CheckResult* initial,
                                      const FenceSynthesisOptions& fopts) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto remaining = [&]() {
    return fopts.timeBudgetSeconds - std::chrono::duration<double>(Clock::now() - start).count();
  };
  // Robustness search in the checks: as asked for the first one, then only
  // when robustness is the goal (it would only slow the violation search).
  bool robustGoal = opts.robustness;
  // Every check below stops at the first error and reports nothing per execution.
  auto run = [&](const Program& p, Model model, bool* outOfTime) {
    CheckOptions o = opts;
    o.model = model;
    o.raceCheck = false;  // fences do not change data races
    o.robustness = robustGoal;
    o.stopAtFirstError = true;
    o.onExecution = nullptr;
    double left = remaining();
    *outOfTime = left <= 0;
    o.timeLimitSeconds = opts.timeLimitSeconds > 0 ? std::min(opts.timeLimitSeconds, left) : left;
    if (*outOfTime) {
      CheckResult none;
      none.status = Status::Timeout;
      none.message = "the synthesis time budget ran out";
      return none;
    }
    return check(p, o);
  };

  FenceSynthesisResult res;
  bool outOfTime = false;
  CheckResult first = initial ? *initial : run(prog, opts.model, &outOfTime);
  // The goal: no violation; or, with CheckOptions::robustness and a check that
  // does not fail but has a non-SC witness, robustness (no witness).
  robustGoal = opts.robustness && first.status != Status::Violation && first.robustness &&
               first.robustness->witness;
  res.forRobustness = robustGoal;
  CheckResult sc;  // the program under SC (violation goal)
  auto counterexample = [&](const CheckResult& r) -> const Violation* {
    if (robustGoal) return r.robustness && r.robustness->witness ? &*r.robustness->witness : nullptr;
    return r.status == Status::Violation ? violationNotUnderSc(r, sc) : nullptr;
  };
  if (robustGoal) {
    // SC is robust by definition: nothing to pre-check; every fenced check looks for a witness.
    res.lastCheck = first;
  } else {
    if (first.status != Status::Violation || !first.violation) {
      res.outcome = outOfTime || first.status == Status::Timeout ? FenceOutcome::GaveUp : FenceOutcome::NotNeeded;
      res.message = res.outcome == FenceOutcome::NotNeeded ? "the check does not fail: no fence is needed"
                                                           : "synthesis gave up: the check did not finish in time";
      res.lastCheck = first;
      return res;
    }
    if (opts.model == Model::SC) {
      res.outcome = FenceOutcome::ScViolation;
      res.message = "the violation occurs under SC: no fence can fix it";
      res.lastCheck = first;
      return res;
    }
    sc = run(prog, Model::SC, &outOfTime);
    res.scCheck = sc;
    // Fences cannot fix what SC shows too; only the same error (kind and
    // location) counts: an SC deadlock does not excuse a TSO-only assertion failure.
    if (sc.status == Status::Violation && !counterexample(first)) {
      res.outcome = FenceOutcome::ScViolation;
      res.message = "the violation also occurs under SC: no fence can fix it";
      res.lastCheck = sc;
      return res;
    }
    if (outOfTime || sc.status == Status::Timeout || sc.status == Status::Error) {
      res.message = "synthesis gave up: the check under SC did not finish (" + std::string(statusName(sc.status)) + ")";
      res.lastCheck = sc;
      return res;
    }
  }

  std::vector<std::vector<FencePosition>> sets;
  auto learn = [&](const Program& checked, const std::vector<std::vector<uint32_t>>& back,
                   const Violation& v) -> bool {
    std::vector<FencePosition> c = candidatePositions(checked, opts.model, v);
    for (FencePosition& p : c) {
      if (p.function < back.size() && p.pc < back[p.function].size()) p.pc = back[p.function][p.pc];
      if (p.function < prog.functions.size() && p.pc < prog.functions[p.function].code.size())
        p.loc = prog.functions[p.function].code[p.pc].loc;
    }
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    if (c.empty()) return false;
    if (std::find(sets.begin(), sets.end(), c) == sets.end()) sets.push_back(std::move(c));
    return true;
  };
  std::vector<std::vector<uint32_t>> identity(prog.functions.size());
  for (size_t f = 0; f < prog.functions.size(); ++f)
    for (uint32_t pc = 0; pc < prog.functions[f].code.size(); ++pc) identity[f].push_back(pc);
  res.lastCheck = first;
  if (!learn(prog, identity, *counterexample(first))) {
    res.message = "synthesis gave up: the counterexample has no store delayed past a later access";
    return res;
  }

  while (true) {
    if (res.rounds >= fopts.maxRounds) {
      res.message = "synthesis gave up after " + std::to_string(res.rounds) + (res.rounds == 1 ? " round" : " rounds");
      break;
    }
    bool exact = true;
    std::vector<FencePosition> chosen = minimumHittingSet(sets, fopts.maxFences, fopts.maxCombinations, &exact);
    res.minimal = res.minimal && exact;
    if (chosen.empty()) {
      res.message = "synthesis gave up: more than " + std::to_string(fopts.maxFences) + " fences would be needed";
      break;
    }
    std::vector<std::vector<uint32_t>> back;
    Program fenced = insertFences(prog, chosen, &back);
    ++res.rounds;
    CheckResult r = run(fenced, opts.model, &outOfTime);
    res.lastCheck = r;
    if (outOfTime || r.status == Status::Timeout || r.status == Status::Error) {
      res.message = "synthesis gave up: the check of the fenced program did not finish (" +
                    std::string(statusName(r.status)) + ")";
      break;
    }
    const Violation* cex = counterexample(r);
    if (!cex) {
      res.outcome = FenceOutcome::Fixed;
      res.fences = chosen;
      res.message = std::to_string(chosen.size()) + (chosen.size() == 1 ? " fence makes" : " fences make") +
                    (robustGoal ? " the check robust (" : " the check pass (") + std::to_string(res.rounds) +
                    (res.rounds == 1 ? " round" : " rounds") + ")";
      break;
    }
    size_t before = sets.size();
    if (!learn(fenced, back, *cex) || sets.size() == before) {
      res.message = "synthesis gave up: a counterexample of the fenced program has no new delayed store";
      break;
    }
  }
  res.counterexamples = sets.size();
  return res;
}

}  // namespace tsocheck

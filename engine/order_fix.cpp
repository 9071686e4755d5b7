#include "engine/order_fix.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <tuple>

namespace tsocheck {

const char* accessName(Op op) {
  switch (op) {
    case Op::Load: return "load";
    case Op::Store: return "store";
    case Op::Rmw: return "read-modify-write";
    case Op::Fence: return "fence";
    default: return "access";
  }
}

namespace {

// The orders above `from` a site of kind `op` may climb to (empty: none).
std::vector<MemOrder> ladderOf(Op op, MemOrder from) {
  using M = MemOrder;
  switch (op) {
    case Op::Load:
      if (from == M::Relaxed) return {M::Relaxed, M::Acquire, M::SeqCst};
      if (from == M::Acquire) return {M::Acquire, M::SeqCst};
      return {};
    case Op::Store:
      if (from == M::Relaxed) return {M::Relaxed, M::Release, M::SeqCst};
      if (from == M::Release) return {M::Release, M::SeqCst};
      return {};
    case Op::Rmw:
      if (from == M::Relaxed || from == M::Acquire || from == M::Release) return {from, M::AcqRel, M::SeqCst};
      if (from == M::AcqRel) return {M::AcqRel, M::SeqCst};
      return {};
    case Op::Fence:
      if (from == M::Acquire || from == M::Release) return {from, M::AcqRel, M::SeqCst};
      if (from == M::AcqRel) return {M::AcqRel, M::SeqCst};
      return {};
    default: return {};
  }
}

using Rungs = std::vector<uint8_t>;

// a <= b on every site.
bool below(const Rungs& a, const Rungs& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] > b[i]) return false;
  return true;
}

int costOf(const Rungs& r) {
  int c = 0;
  for (uint8_t x : r) c += x;
  return c;
}

}  // namespace

std::vector<OrderSite> orderSites(const Program& prog, const Violation* v) {
  std::set<uint32_t> functions;
  if (v)
    for (const TraceStep& s : v->trace)
      if (s.event != TraceStep::kNoEvent && s.function < prog.functions.size()) functions.insert(s.function);
  if (functions.empty())
    for (uint32_t f = 0; f < prog.functions.size(); ++f) functions.insert(f);
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint8_t>, size_t> byLoc;
  std::vector<OrderSite> sites;
  for (uint32_t f : functions) {
    const Function& fn = prog.functions[f];
    for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
      const Instr& in = fn.code[pc];
      if (in.op != Op::Load && in.op != Op::Store && in.op != Op::Rmw && in.op != Op::Fence) continue;
      if (in.loc.line == 0) continue;  // made up by the lowering: no source to edit
      std::vector<MemOrder> ladder = ladderOf(in.op, in.order);
      if (ladder.empty()) continue;
      const auto key = std::make_tuple(in.loc.file, in.loc.line, in.loc.column, uint8_t(in.op));
      auto it = byLoc.find(key);
      if (it == byLoc.end()) {
        it = byLoc.emplace(key, sites.size()).first;
        sites.push_back(OrderSite{in.op, in.loc, in.order, ladder, {}});
      } else if (sites[it->second].from != in.order) {
        continue;  // one call, two orders: not one site (left alone)
      }
      sites[it->second].instrs.emplace_back(f, pc);
    }
  }
  std::stable_sort(sites.begin(), sites.end(), [](const OrderSite& a, const OrderSite& b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.column) < std::tie(b.loc.file, b.loc.line, b.loc.column);
  });
  return sites;
}

Program upgradeOrders(const Program& prog, const std::vector<OrderSite>& sites, const std::vector<uint8_t>& rung) {
  Program p = prog;
  for (size_t i = 0; i < sites.size() && i < rung.size(); ++i) {
    if (rung[i] == 0) continue;
    const MemOrder to = sites[i].ladder[std::min<size_t>(rung[i], sites[i].ladder.size() - 1)];
    for (const auto& [f, pc] : sites[i].instrs) {
      Instr& in = p.functions[f].code[pc];
      in.order = to;
      if (in.op == Op::Load && acquires(to)) in.sub &= uint8_t(~kRelaxedAccess);
      if (in.op == Op::Store && releases(to)) in.sub &= uint8_t(~kRelaxedAccess);
      if (in.op == Op::Rmw) {
        if (acquires(to)) in.imm &= ~kRmwNoAcquire;
        if (releases(to)) in.imm &= ~kRmwNoRelease;
      }
    }
  }
  return p;
}

bool orderCheckPasses(const CheckResult& r) {
  if (r.status != Status::Verified && r.status != Status::Bounded) return false;
  for (const Violation& v : r.violations)
    if (!v.warning) return false;
  return true;
}

OrderFixResult synthesizeOrders(const Program& prog, const CheckOptions& opts, std::vector<OrderSite> sites,
                                const OrderFixOptions& oo) {
  OrderFixResult res;
  res.sites = std::move(sites);
  const size_t n = res.sites.size();
  res.rung.assign(n, 0);
  if (n == 0) {
    res.outcome = OrderOutcome::NoFix;
    res.message = "no atomic access or fence below seq_cst that an order upgrade could change";
    return res;
  }
  const auto start = std::chrono::steady_clock::now();
  auto outOfTime = [&]() {
    return oo.timeBudgetSeconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= oo.timeBudgetSeconds;
  };
  CheckOptions co = opts;
  co.stopAtFirstError = true;
  co.onExecution = nullptr;
  co.robustness = false;
  std::vector<Rungs> failed;
  bool stopped = false;
  // Checks an assignment (false without a check when the budget is spent).
  auto passes = [&](const Rungs& r) {
    for (const Rungs& f : failed)
      if (below(r, f)) return false;
    if (res.rounds >= oo.maxRounds || outOfTime()) {
      stopped = true;
      return false;
    }
    if (oo.timeBudgetSeconds > 0) {
      const double left =
          oo.timeBudgetSeconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      co.timeLimitSeconds = opts.timeLimitSeconds > 0 ? std::min(opts.timeLimitSeconds, left) : left;
    }
    ++res.rounds;
    CheckResult c = check(upgradeOrders(prog, res.sites, r), co);
    const bool ok = orderCheckPasses(c);
    if (oo.onRound) oo.onRound(res.rounds, ok);
    if (ok) {
      if (!res.passed || costOf(r) < costOf(res.rung)) {
        res.passed = true;
        res.rung = r;
        res.passedCheck = std::move(c);
      }
    } else if (c.status == Status::Timeout) {
      stopped = true;
    } else {
      failed.push_back(r);
    }
    return ok;
  };
  Rungs top(n);
  for (size_t i = 0; i < n; ++i) top[i] = uint8_t(res.sites[i].ladder.size() - 1);
  if (!passes(top)) {
    res.outcome = stopped ? OrderOutcome::GaveUp : OrderOutcome::NoFix;
    res.message = stopped ? "order synthesis stopped before the check with every access seq_cst finished"
                          : "the check fails with every atomic access and fence seq_cst: no order upgrade can fix it";
    return res;
  }
  // Floors: the lowest rung of each site that passes with the others at the top.
  Rungs floor = top;
  for (size_t i = 0; i < n && !stopped; ++i)
    for (int r = int(top[i]) - 1; r >= 0; --r) {
      Rungs t = top;
      t[i] = uint8_t(r);
      if (!passes(t)) break;
      floor[i] = uint8_t(r);
    }
  // Assignments at or above the floors, cheapest first.
  const int floorCost = costOf(floor), topCost = costOf(top);
  for (int cost = floorCost; cost <= topCost && !stopped; ++cost) {
    if (res.passed && costOf(res.rung) <= cost) break;  // a pass at most this cost is known
    std::vector<Rungs> layer;
    Rungs cur = floor;
    const size_t cap = 100000;
    std::function<void(size_t, int)> gen = [&](size_t i, int left) {
      if (layer.size() >= cap) return;
      if (i == n) {
        if (left == 0) layer.push_back(cur);
        return;
      }
      for (int up = 0; up <= int(top[i] - floor[i]) && up <= left; ++up) {
        cur[i] = uint8_t(floor[i] + up);
        gen(i + 1, left - up);
      }
      cur[i] = floor[i];
    };
    gen(0, cost - floorCost);
    if (layer.size() >= cap) {
      stopped = true;
      break;
    }
    auto changed = [&](const Rungs& r) {
      size_t c = 0;
      for (uint8_t x : r) c += x != 0;
      return c;
    };
    std::stable_sort(layer.begin(), layer.end(), [&](const Rungs& a, const Rungs& b) { return changed(a) < changed(b); });
    for (const Rungs& r : layer) {
      if (passes(r)) break;
      if (stopped) break;
    }
  }
  if (res.passed && !stopped) {
    res.outcome = OrderOutcome::Fixed;
    res.minimal = true;
  } else if (res.passed) {
    res.outcome = OrderOutcome::GaveUp;
    res.message = "not known to be the fewest: the search for cheaper upgrades ran out of its round or time budget";
  } else {
    res.outcome = OrderOutcome::GaveUp;
    res.message = "order synthesis stopped before any upgrade passed";
  }
  return res;
}

}  // namespace tsocheck

// Memory-order upgrades for a check that fails under RC11: the fix a C
// programmer writes (a stronger order on an atomic access), not a fence.
//
// The *sites* are the atomic accesses (loads, stores, RMWs) and the fences
// written with an order below seq_cst, in the functions the failing
// execution ran; the instructions of one source location and kind form one
// site (they are one call in the source). Each site climbs a ladder of orders:
//   load   relaxed -> acquire -> seq_cst
//   store  relaxed -> release -> seq_cst
//   RMW    relaxed / acquire / release -> acq_rel -> seq_cst
//   fence  acquire / release -> acq_rel -> seq_cst
// (a site starts at the order it has). An assignment gives every site a rung;
// its cost is the sum of the rungs climbed. The search wants a cheapest
// assignment whose program passes the check.
//
// RC11 is monotone in the orders: a stronger order only removes executions
// (more synchronisation, more hb, more SC constraints). So
//  1. the top (every site at seq_cst) is checked first: when it fails no
//     upgrade can fix the check;
//  2. each site's floor: the lowest rung at which it passes with every
//     other site at the top (lower rungs fail at the top, so fail anywhere);
//     every passing assignment is at or above the floors;
//  3. assignments at or above the floors are checked by increasing cost
//     (then by fewer sites changed); the first that passes is a cheapest one.
//     An assignment below one that failed is skipped (it fails too).
// Every check is of the program with the orders rewritten on the IR
// (upgradeOrders); the caller re-verifies the winner on the edited source.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/ir.h"

namespace tsocheck {

struct OrderSite {
  Op op = Op::Load;  // Load, Store, Rmw or Fence
  SourceLoc loc;
  MemOrder from = MemOrder::Relaxed;
  std::vector<MemOrder> ladder;  // ladder[0] == from, then the stronger orders
  std::vector<std::pair<uint32_t, uint32_t>> instrs;  // (function, pc)
};

// "load", "store", "read-modify-write", "fence".
const char* accessName(Op op);

// The sites of `prog` in the functions of `v`'s trace (every function of the
// program when the trace names none), sorted by source location.
std::vector<OrderSite> orderSites(const Program& prog, const Violation* v);

// A copy of prog with site i at order ladder[rung[i]] (the race detector's
// relaxed flags follow the order, as the frontend sets them).
Program upgradeOrders(const Program& prog, const std::vector<OrderSite>& sites, const std::vector<uint8_t>& rung);

enum class OrderOutcome : uint8_t {
  Fixed,     // `rung` makes the check pass
  NoFix,     // it fails with every site at seq_cst (or there is no site)
  GaveUp,    // the round or time budget ended the search (`rung` may still hold a passing, non-minimal set)
};

struct OrderFixOptions {
  int maxRounds = 200;            // checks of upgraded programs
  double timeBudgetSeconds = 60;  // the whole search (<= 0: none)
  std::function<void(int round, bool passed)> onRound;
};

struct OrderFixResult {
  OrderOutcome outcome = OrderOutcome::GaveUp;
  std::vector<OrderSite> sites;
  std::vector<uint8_t> rung;  // per site; all 0 when nothing passed
  bool passed = false;        // `rung` was checked and passes
  bool minimal = false;       // a cheapest passing assignment
  int rounds = 0;
  std::string message;        // one sentence when not Fixed
  CheckResult passedCheck;    // the check that passed with `rung`
};

// Whether a check result counts as passing for the search: no error-level
// violation, and it finished (verified or bounded).
bool orderCheckPasses(const CheckResult& r);

// Searches over `sites` (orderSites, or those of them the caller can edit).
OrderFixResult synthesizeOrders(const Program& prog, const CheckOptions& opts, std::vector<OrderSite> sites,
                                const OrderFixOptions& oo = {});

}  // namespace tsocheck

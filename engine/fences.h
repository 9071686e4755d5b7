// Fence synthesis (seed 001, section 5.1): for a check that fails under TSO or
// PSO but not under SC, find a smallest set of program points where a full
// fence makes the check pass.
//
// Only errors SC does not have (same kind and location) are targets: a
// program that deadlocks under SC and fails an assertion only under TSO gets
// the fences that remove the assertion failure (the deadlock stays).
//
// A counterexample is not sequentially consistent because some store of a
// thread was still in its buffer when a later event of that thread took
// effect: a load (TSO and PSO) or the flush of a later store to another
// address (PSO). Each such *delayed pair* (s, e) is an edge of a critical
// cycle that the weak model relaxed. A full fence right after any store of the
// thread from s up to (not including) e in program order drains s before e,
// so it rules this counterexample out; those stores are the counterexample's
// *candidate positions*. The fence set must contain a candidate of every
// counterexample seen so far (a minimum hitting set, found by exact search
// over increasing sizes); the program with those fences is re-checked, and a
// new counterexample joins the list, until the check passes.
//
// A fence set that rules out every counterexample is a hitting set of their
// candidate sets, so the smallest hitting set is never larger than the
// smallest correct fence set: when the loop ends with a passing check, the
// answer is minimal (unless `minimal` is false: the exact search hit its cap).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/ir.h"

namespace tsocheck {

// A program point: a fence goes right after Program::functions[function].code[pc]
// (a store); loc is the store's source location.
struct FencePosition {
  uint32_t function = 0;
  uint32_t pc = 0;
  SourceLoc loc;
  bool operator<(const FencePosition& o) const {
    return function != o.function ? function < o.function : pc < o.pc;
  }
  bool operator==(const FencePosition& o) const { return function == o.function && pc == o.pc; }
};

enum class FenceOutcome : uint8_t {
  NotNeeded,     // the check does not fail under the model
  ScViolation,   // the check fails under SC too: no fence can fix it
  Fixed,         // `fences` make the check pass
  GaveUp,        // a cap on rounds, fences or time was reached, or a counterexample had no delayed store
};
const char* fenceOutcomeName(FenceOutcome o);  // "not-needed", "sc-violation", "fixed", "gave-up"

struct FenceSynthesisOptions {
  int maxRounds = 32;            // re-checks with fences
  size_t maxFences = 10;         // largest fence set tried
  uint64_t maxCombinations = 2'000'000;  // exact hitting-set search budget (then greedy)
  double timeBudgetSeconds = 60; // whole synthesis (each check also respects CheckOptions::timeLimitSeconds)
};

struct FenceSynthesisResult {
  FenceOutcome outcome = FenceOutcome::GaveUp;
  std::vector<FencePosition> fences;  // sorted by (function, pc)
  bool minimal = true;                // the last hitting set came from the exact search
  int rounds = 0;                     // checks of fenced programs
  size_t counterexamples = 0;         // distinct candidate sets collected
  std::string message;                // one sentence
  // The goal was robustness (CheckOptions::robustness, no violation, a non-SC
  // witness): `fences` make every execution an SC execution.
  bool forRobustness = false;
  CheckResult lastCheck;              // the final check (of the fenced program when Fixed)
  // The check of the program under SC (violation goal, model TSO/PSO). The
  // goal is the errors SC does not have: a deadlock SC also has stays.
  CheckResult scCheck;
};

// The first error-level violation of r that sc does not have (same kind and
// source location), or nullptr: what fences may fix.
const Violation* violationNotUnderSc(const CheckResult& r, const CheckResult& sc);

// With opts.robustness and a check that does not fail but is not robust, the
// witnesses are the counterexamples and the fences restore robustness.
// `initial`: the result of check(prog, opts) when the caller has it (saves a check).
FenceSynthesisResult synthesizeFences(const Program& prog, const CheckOptions& opts,
                                      const CheckResult* initial = nullptr,
                                      const FenceSynthesisOptions& fopts = {});

// A copy of prog with a full fence after each position (jump targets adjusted).
// If newPcToOld is given, it receives, per function, the original pc of every
// new instruction (inserted fences map to their store's pc).
Program insertFences(const Program& prog, const std::vector<FencePosition>& fences,
                     std::vector<std::vector<uint32_t>>* newPcToOld = nullptr);

// The candidate positions of one counterexample of a check under `model`
// (empty for SC): stores that were part of a delayed pair, with everything up
// to the delayed event. Sorted, without duplicates.
std::vector<FencePosition> candidatePositions(const Program& prog, Model model, const Violation& v);

// Smallest set (up to maxSize) that contains an element of every set; sets
// must be sorted. Exact while at most maxCombinations subsets are tried,
// greedy after that (*exact = false). Empty when some set is empty or no set
// of maxSize elements works.
std::vector<FencePosition> minimumHittingSet(const std::vector<std::vector<FencePosition>>& sets,
                                             size_t maxSize, uint64_t maxCombinations, bool* exact);

}  // namespace tsocheck

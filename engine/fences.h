// Fence synthesis (Narayan et al., section 5.1): for a check that fails under TSO or
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
//
// The search starts from a correct set when it can (Narayan et al.'s critical-cycle
// placement): a fence right before every load (or PSO flush) of a
// counterexample that some delayed store of its thread is on a critical cycle
// with, grown by the placements of the counterexamples of that set until the
// program passes. That set is an upper bound: the hitting-set loop stops as
// soon as no smaller hitting set exists (the seed is then minimal itself), and
// when a cap or the time budget ends the loop first, the seed is still a
// correct (checked) answer, `FenceSynthesisResult::correct`, just not known to
// be minimal.
//
// Every proposed set is first held against all counterexamples seen so far
// (it hits each of their candidate sets, so none of them can recur); only a
// set that survives that is re-checked by exploring the fenced program.
#pragma once

#include <cstdint>
#include <functional>
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

// One re-check of a fenced program (FenceSynthesisOptions::onRound).
struct FenceRound {
  int round = 0;            // 1, 2, ...
  const char* phase = "";   // "seed" (growing a correct set) or "minimise"
  size_t fences = 0;        // positions in the set checked
  bool passed = false;      // the fenced program has no targeted error
  uint64_t executions = 0;  // explored by this re-check
  double seconds = 0;       // this re-check
  double elapsed = 0;       // since the synthesis started
};

struct FenceSynthesisOptions {
  int maxRounds = 32;            // re-checks with fences
  size_t maxFences = 10;         // largest fence set tried
  uint64_t maxCombinations = 2'000'000;  // exact hitting-set search budget (then greedy)
  double timeBudgetSeconds = 60; // whole synthesis (each check also respects CheckOptions::timeLimitSeconds); <= 0 after it is spent
  // Start from the critical-cycle placement (a correct set, then minimise);
  // false: the hitting-set loop alone, from the empty set.
  bool seed = true;
  // The check under SC (is the error one SC has too?) runs first with at most
  // this share of the budget; when it does not finish, SC is checked only when
  // a counterexample has no delayed store on a critical cycle.
  double scShare = 0.25;
  std::function<void(const FenceRound&)> onRound;  // after every re-check
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
  // scChecked false: SC was not checked to the end (it did not finish in its
  // share of the budget and no counterexample needed it).
  CheckResult scCheck;
  bool scChecked = false;
  // A set whose fenced program passed its re-check, when the loop did not end
  // with Fixed (a cap or the time budget cut the minimisation): a correct
  // answer that is not known to be minimal. Empty otherwise.
  std::vector<FencePosition> correct;
  // The last set that was tried and failed (GaveUp without `correct`): what
  // the counterexamples so far need at least; not a fix.
  std::vector<FencePosition> partial;
  // The re-check that passed: of the program with `fences` (Fixed) or `correct`.
  CheckResult passedCheck;
  bool outOfTime = false;             // the time budget ended the synthesis
  size_t seedFences = 0;              // size of the first correct set found (0: none)
  double seconds = 0;                 // the whole synthesis
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

// The same, split by Narayan et al.'s critical cycles: `critical` keeps, per
// delayed event e, the stores from the oldest one that is on a cycle of
// (conflicts between threads in trace order) ∪ (program order) with e up to
// e — every correct fence set has one of them (a delay on no cycle can be
// undone without changing what any read sees); `all` is candidatePositions;
// `placement` is one position per such e: right before e (after its
// thread's newest store), which rules out every delay into e.
struct CandidateAnalysis {
  std::vector<FencePosition> all, critical, placement;
  bool refined = false;  // the cycle analysis ran (false: trace too long; critical = all)
};
CandidateAnalysis analyseCounterexample(const Program& prog, Model model, const Violation& v);

// Whether two programs are the same up to source locations (and the file and
// string tables' order): a re-check of one answers for the other.
bool sameProgram(const Program& a, const Program& b);

// Smallest set (up to maxSize) that contains an element of every set; sets
// must be sorted. Exact while at most maxCombinations subsets are tried,
// greedy after that (*exact = false). Empty when some set is empty or no set
// of maxSize elements works.
std::vector<FencePosition> minimumHittingSet(const std::vector<std::vector<FencePosition>>& sets,
                                             size_t maxSize, uint64_t maxCombinations, bool* exact);

}  // namespace tsocheck

// Preemption bounding in rounds (the engine's other bounding strategy next
// to buffer-bound deepening, deepenBufferBound in state_space.h): one bound
// P, or the iterative mode A..B (bounds A, A+1, ... B in turn, stopping at the
// first violation found within its round's bound).
#pragma once

#include <optional>

#include "engine/check.h"

namespace tsocheck {

struct PreemptionRoundsResult {
  // The first violation within its round's bound, else the last round's
  // result (which may hold a violation met only above the bound, marked
  // aboveBound). elapsedMs covers every round.
  CheckResult result;
  int bound = 0;                   // the round `result` comes from
  std::optional<int> provenBound;  // the largest bound proven free of violations
};

PreemptionRoundsResult checkPreemptionRounds(const Program& prog, CheckOptions opts, int from, int to);

}  // namespace tsocheck

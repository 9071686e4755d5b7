// Preemption-bounded checking for the runner: one bound P, or the iterative
// mode A..B (bounds A, A+1, ... B in turn, stopping at the first violation
// found within its round's bound).
#pragma once

#include "engine/check.h"
#include "service/check_report.h"

namespace tsocheck {

// Runs check() with opts.preemptionBound = from, from+1, ... to. Returns the
// result to report: the first violation within its round's bound (with
// rep.preemptionBound = that round), else the last round's result (which may
// hold a violation met only above the bound, marked aboveBound). Fills
// rep.bounds.preemptions with the largest bound proven free of violations.
// elapsedMs covers every round.
CheckResult checkPreemptionRounds(const Program& prog, CheckOptions opts, int from, int to, CheckReport& rep);

}  // namespace tsocheck

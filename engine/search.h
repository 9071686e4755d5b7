// One interface for the two searches behind check(): the graph explorer
// (explorer.h, optimal DPOR over execution graphs) and the explicit-state
// search (state_space.h, over states with a visited-state table). Both take
// the same CheckOptions (limits, time limit, cancel, progress, deadlock mode,
// onExecution) and give a CheckResult with the same statuses, deadlock and
// non-termination classification and traces; chooseSearch is the only place
// that decides which one runs.
#pragma once

#include <memory>

#include "engine/check.h"

namespace tsocheck {

class Search {
 public:
  virtual ~Search() = default;
  // Explores the program under the options it was made with.
  virtual CheckResult run() = 0;
};

// The search for `opts` on `prog`: the explicit-state search (stateful DPOR)
// with CheckOptions::stateful and for threads that use atomic sections
// (unless CheckOptions::sectionsInGraph), else the graph explorer. Options neither
// supports for this program (robustness or a preemption bound with the
// explicit-state search or with atomic sections): nullptr, with `refusal`
// the Error result that says why.
std::unique_ptr<Search> chooseSearch(const Program& prog, const CheckOptions& opts, CheckResult* refusal);
// Whether chooseSearch gives the explicit-state search (when it refuses
// nothing): CheckOptions::stateful, or threads that use atomic sections.
bool exploresStates(const Program& prog, const CheckOptions& opts);

}  // namespace tsocheck

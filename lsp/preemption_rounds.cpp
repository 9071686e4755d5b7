#include "lsp/preemption_rounds.h"

namespace tsocheck {

CheckResult checkPreemptionRounds(const Program& prog, CheckOptions opts, int from, int to, CheckReport& rep) {
  double totalMs = 0;
  for (int bound = from;; ++bound) {
    opts.preemptionBound = bound;
    CheckResult r = check(prog, opts);
    totalMs += r.elapsedMs;
    r.elapsedMs = totalMs;
    rep.preemptionBound = bound;
    const bool within = r.status == Status::Violation && !r.violation->aboveBound;
    // A round proves "no violation with <= bound preemptions" when it ran to
    // the end without cutting anything (the engine then says exactly that).
    // So does a round that met violations only above its bound, when nothing
    // was cut and no limit stopped it (it then explored every class <= bound).
    const bool clean = (r.status == Status::Bounded && r.cut == 0 && r.executions > 0) ||
                       (r.status == Status::Violation && r.violation->aboveBound && r.cut == 0 &&
                        r.limitsHit.empty());
    if (clean) rep.bounds.preemptions = bound;
    const bool anotherRound = bound < to && (clean || (r.status == Status::Violation && !within));
    if (!anotherRound) return r;
  }
}

}  // namespace tsocheck

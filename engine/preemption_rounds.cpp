#include "engine/preemption_rounds.h"

#include <optional>

namespace tsocheck {

PreemptionRoundsResult checkPreemptionRounds(const Program& prog, CheckOptions opts, int from, int to) {
  PreemptionRoundsResult out;
  double totalMs = 0;
  // A round whose only violations within its bound are hangs (deadlock,
  // non-termination) does not end the rounds: a larger bound may show an
  // assertion or memory error. The first such round is the answer otherwise.
  std::optional<CheckResult> hang;
  int hangBound = from;
  for (int bound = from;; ++bound) {
    opts.preemptionBound = bound;
    CheckResult r = check(prog, opts);
    totalMs += r.elapsedMs;
    r.elapsedMs = totalMs;
    out.bound = bound;
    const bool hangOnly = r.status == Status::Violation && isHang(r.violation->kind) && !r.violation->aboveBound;
    if (hangOnly && !hang) {
      hang = r;
      hangBound = bound;
    }
    // A round whose bound was dropped (CheckOptions::boundProbe) searched
    // everything: its answer is the last.
    const bool more = bound < to && !r.boundDropped;
    if (hangOnly) {
      if (more) continue;
      out.bound = hangBound;
      hang->elapsedMs = totalMs;
      out.result = std::move(*hang);
      return out;
    }
    if (hang && r.status == Status::Violation)
      for (const Violation& v : hang->violations) r.addViolation(v);
    const bool within = r.status == Status::Violation && !r.violation->aboveBound;
    // A round proves "no violation with <= bound preemptions" when it ran to
    // the end without cutting anything (the engine then says exactly that).
    // So does a round that met violations only above its bound, when nothing
    // was cut and no limit stopped it (it then explored every class <= bound).
    const bool clean = (r.status == Status::Bounded && r.cut == 0 && r.executions > 0) ||
                       (r.status == Status::Violation && r.violation->aboveBound && r.cut == 0 &&
                        r.limitsHit.empty());
    if (clean && !hang) out.provenBound = bound;
    const bool anotherRound = more && (clean || (r.status == Status::Violation && !within));
    if (anotherRound) continue;
    if (hang && !within) {
      out.bound = hangBound;
      hang->elapsedMs = totalMs;
      out.result = std::move(*hang);
      return out;
    }
    out.result = std::move(r);
    return out;
  }
}

}  // namespace tsocheck

#include "engine/state_space.h"

#include <algorithm>
#include <chrono>

#include "engine/state_machine.h"

namespace tsocheck {

StateSpaceResult exploreStates(const Program& prog, const StateSpaceOptions& opts) {
  // The DPOR enters only the successors its backtrack sets need, so it never
  // collects the fixpoint's projections.
  if (opts.search == StateSearch::Dpor && !opts.collectProjections) return states::runDpor(prog, opts);
  return states::runBfs(prog, opts);
}

namespace {

// Buffer-bound deepening (deepenBufferBound): one breadth-first search per k,
// the counts summed, a fixpoint looked for between consecutive k.
class Deepening {
 public:
  Deepening(const Program& prog, const CheckOptions& opts, uint64_t maxStates);
  DeepeningResult run(int fromK, int toK);

 private:
  // After one k: look at a larger one, stop deepening (the verdict follows),
  // or return d_ as it is.
  enum class Next { Deeper, Stop, Return };

  double elapsed() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
  }
  Next step(int k);
  void violationAt(CheckResult&& r, int k);
  void timeoutAt(int k);
  void accumulate(const StateSpaceResult& r);
  Next afterError(StateSpaceResult& r, int k, bool hangOnly);
  Next afterPass(StateSpaceResult& r, int k);
  void verdict();

  const Program& prog_;
  const CheckOptions& opts_;
  const std::chrono::steady_clock::time_point t0_;
  DeepeningResult d_;
  StateSpaceOptions so_;
  std::optional<std::unordered_set<std::string>> prev_;  // projections of k-1 (exhaustive only)
  CheckResult total_;
  bool anyCut_ = false;
  // A deadlock or non-termination does not end the deepening: a larger k may
  // still show an assertion or memory error. The first k with one is kept.
  std::optional<CheckResult> hang_;
  int hangK_ = -1;
};

Deepening::Deepening(const Program& prog, const CheckOptions& opts, uint64_t maxStates)
    : prog_(prog), opts_(opts), t0_(std::chrono::steady_clock::now()) {
  so_.check = opts;  // the shared options; step() sets the bound and what is left of the time
  so_.check.timeLimitSeconds = 0;
  so_.check.onExecution = nullptr;
  so_.search = StateSearch::Bfs;  // the fixpoint needs every reachable state
  so_.maxStates = maxStates;
  so_.collectProjections = opts.memoryModel().hasStoreBuffers();
  so_.check.onProgress = nullptr;
  if (opts.onProgress) so_.check.onProgress = [this](uint64_t n) { opts_.onProgress(total_.executions + n); };
}

// d_ becomes r's violation at bound k, with the counts of every k so far.
void Deepening::violationAt(CheckResult&& r, int k) {
  d_.result = std::move(r);
  d_.result.executions = total_.executions;
  d_.result.blocked = total_.blocked;
  d_.result.cut = total_.cut;
  d_.result.events = total_.events;
  for (const Violation& v : total_.violations) d_.result.addViolation(v);  // warnings of smaller k
  d_.result.elapsedMs = elapsed();
  d_.violationK = k;
  d_.result.status = Status::Violation;
  d_.result.message += !opts_.memoryModel().withBound(k).buffersStores()
                           ? " (the bug exists under sequential consistency)"
                           : " (needs a store buffer of " + std::to_string(k) + (k == 1 ? " entry)" : " entries)");
}

void Deepening::timeoutAt(int k) {
  if (hang_) return violationAt(std::move(*hang_), hangK_);
  d_.result = total_;
  d_.result.status = Status::Timeout;
  d_.result.message = "time limit reached at buffer bound " + std::to_string(k) + "; no violation so far";
  d_.result.elapsedMs = elapsed();
}

void Deepening::accumulate(const StateSpaceResult& r) {
  total_.executions += r.result.executions;
  total_.blocked += r.result.blocked;
  total_.cut += r.result.cut;
  total_.events += r.result.events;
  total_.nondetLimited = total_.nondetLimited || r.result.nondetLimited;
  for (const std::string& l : r.result.limitsHit)
    if (std::find(total_.limitsHit.begin(), total_.limitsHit.end(), l) == total_.limitsHit.end())
      total_.limitsHit.push_back(l);
  for (const Violation& v : r.result.violations)
    if (v.warning) total_.addViolation(v);
}

// A hard error, an error status or a time-out at k ends the deepening.
Deepening::Next Deepening::afterError(StateSpaceResult& r, int k, bool hangOnly) {
  if (r.result.status == Status::Timeout && hang_) {
    violationAt(std::move(*hang_), hangK_);
    return Next::Return;
  }
  if (!((r.result.status == Status::Violation && !hangOnly) || r.result.status == Status::Error ||
        r.result.status == Status::Timeout))
    return Next::Deeper;
  if (r.result.status != Status::Violation) {
    d_.result = std::move(r.result);
    d_.result.executions = total_.executions;
    d_.result.blocked = total_.blocked;
    d_.result.cut = total_.cut;
    d_.result.events = total_.events;
    d_.result.elapsedMs = elapsed();
    return Next::Return;
  }
  CheckResult hard = std::move(r.result);
  if (hang_)
    for (const Violation& v : hang_->violations) hard.addViolation(v);
  violationAt(std::move(hard), k);
  return Next::Return;
}

// k passed (or only hangs): a state limit or a fixpoint stops the deepening;
// else k's projections are kept for the comparison with k+1.
Deepening::Next Deepening::afterPass(StateSpaceResult& r, int k) {
  anyCut_ = anyCut_ || !r.exhaustive;
  if (r.stateLimitHit) return Next::Stop;  // this k is not fully checked; larger ones are bigger still
  d_.largestK = k;
  if (!opts_.memoryModel().hasStoreBuffers() && r.exhaustive && r.result.executions > 0) {
    d_.fixpointK = k;
    return Next::Stop;
  }
  if (r.exhaustive && prev_ && prev_->size() == r.projections.size() &&
      std::all_of(r.projections.begin(), r.projections.end(),
                  [&](const std::string& p) { return prev_->count(p) > 0; })) {
    d_.fixpointK = k - 1;
    return Next::Stop;
  }
  if (r.exhaustive) {
    prev_ = std::move(r.projections);
    so_.memoryInUse = 0;  // held for the next k's comparison
    for (const std::string& p : *prev_) so_.memoryInUse += states::entryBytes(p.size());
  } else {
    prev_.reset();
    so_.memoryInUse = 0;
  }
  return Next::Deeper;
}

// One k: its search, then what it means for the deepening.
Deepening::Next Deepening::step(int k) {
  so_.check.bufferBound = k;
  if (opts_.timeLimitSeconds > 0) {
    so_.check.timeLimitSeconds = opts_.timeLimitSeconds - elapsed() / 1000;
    if (so_.check.timeLimitSeconds <= 0) {
      timeoutAt(k);
      return Next::Return;
    }
  }
  StateSpaceResult r = exploreStates(prog_, so_);
  d_.steps.push_back({k, r.states, r.projections.size(), r.result.elapsedMs, r.result.status});
  accumulate(r);
  const bool hangOnly = r.result.status == Status::Violation && !r.result.hasHardError();
  if (hangOnly && !hang_) {
    hang_ = r.result;
    hangK_ = k;
    d_.hangK = k;
  }
  const Next n = afterError(r, k, hangOnly);
  if (n != Next::Deeper) return n;
  return afterPass(r, k);
}

// The verdict when no k ended the deepening with its own result.
void Deepening::verdict() {
  if (hang_) return violationAt(std::move(*hang_), hangK_);
  d_.result = total_;
  d_.result.elapsedMs = elapsed();
  if (d_.fixpointK && !anyCut_ && total_.executions > 0) {
    d_.result.status = Status::Verified;
    d_.result.message = !opts_.memoryModel().hasStoreBuffers()
                            ? "no violation in any reachable state"
                            : "verified for unbounded store buffers (fixpoint at k=" + std::to_string(*d_.fixpointK) + ")";
  } else {
    d_.fixpointK.reset();
    d_.result.status = Status::Bounded;
    d_.result.message = d_.largestK < 0 ? "no violation found"
                                        : "no violation with store buffers of up to " + std::to_string(d_.largestK) +
                                              " entries";
    if (anyCut_) d_.result.message += ", but a limit cut the state space";
    else if (total_.executions == 0) d_.result.message += ", but every execution was blocked";
    else d_.result.message += "; no fixpoint reached";
  }
  d_.result.limitNondet(opts_.limits);
  d_.result.message += d_.result.warningsNote();
}

DeepeningResult Deepening::run(int fromK, int toK) {
  fromK = std::max(fromK, 0);
  if (!opts_.memoryModel().hasStoreBuffers()) toK = fromK;  // k does not matter under SC
  for (int k = fromK; k <= toK; ++k) {
    const Next n = step(k);
    if (n == Next::Return) return std::move(d_);
    if (n == Next::Stop) break;
  }
  verdict();
  return std::move(d_);
}

}  // namespace

DeepeningResult deepenBufferBound(const Program& prog, const CheckOptions& opts, int fromK, int toK,
                                  uint64_t maxStates) {
  return Deepening(prog, opts, maxStates).run(fromK, toK);
}

}  // namespace tsocheck

#include "engine/search.h"

#include <pthread.h>

#include "engine/explorer.h"
#include "engine/state_space.h"

namespace tsocheck {

namespace {

// The graph explorer, run on a thread with a large stack: the exploration
// recurses once per event (address space only: pages are committed as they
// are touched).
class GraphSearch : public Search {
 public:
  GraphSearch(const Program& prog, const CheckOptions& opts) : prog_(prog), opts_(opts) {}

  CheckResult run() override {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, size_t(1) << 30);
    pthread_t th;
    bool started = pthread_create(&th, &attr, explore, this) == 0;
    pthread_attr_destroy(&attr);
    if (started) pthread_join(th, nullptr);
    else explore(this);
    return std::move(result_);
  }

 private:
  static void* explore(void* self) {
    GraphSearch* s = static_cast<GraphSearch*>(self);
    Explorer ex(s->prog_, s->opts_);
    s->result_ = ex.run();
    return nullptr;
  }

  const Program& prog_;
  const CheckOptions& opts_;
  CheckResult result_;
};

// The explicit-state search, stateful DPOR (StateSearch::Dpor).
class StateSpaceSearch : public Search {
 public:
  StateSpaceSearch(const Program& prog, const CheckOptions& opts) : prog_(prog) {
    so_.check = opts;
    so_.search = StateSearch::Dpor;
  }

  CheckResult run() override { return exploreStates(prog_, so_).result; }

 private:
  const Program& prog_;
  StateSpaceOptions so_;
};

}  // namespace

bool sectionsToStates(const Program& prog, const CheckOptions& opts) {
  // The graph explorer treats a section's events as any others and keeps
  // only the ended executions whose sections stay whole, so a litmus program
  // with every access inside a section (the SV-COMP weak-memory tasks)
  // explores far more graphs than it keeps.
  return !opts.stateful && !opts.sectionsInGraph && !opts.memoryModel().usesC11Orders() && hasAtomicSections(prog) &&
         usesOp(prog, Op::Spawn);
}

bool exploresStates(const Program& prog, const CheckOptions& opts) {
  return opts.stateful || sectionsToStates(prog, opts);
}

std::unique_ptr<Search> chooseSearch(const Program& prog, const CheckOptions& opts, CheckResult* refusal) {
  const bool sectionStates = sectionsToStates(prog, opts);
  if (opts.shard.count > 0) {
    // A shard explores its part of the graph explorer's tree (work_sharing.h
    // "Shards"); these searches are not split that way.
    const char* why = opts.stateful ? "the stateful search keeps one table of visited states for the whole search"
                    : sectionStates ? "programs whose threads use atomic sections are explored by the explicit-state search"
                    : opts.robustness ? "robustness checking keeps one witness for the whole search"
                    : opts.preemptionBound >= 0 ? "a preemption bound's probe and rounds look at the whole search"
                                                : nullptr;
    if (why) {
      refusal->status = Status::Error;
      refusal->message = std::string("--shard cannot split this check: ") + why;
      return nullptr;
    }
  }
  if (opts.memoryModel().usesC11Orders()) {
    // RC11 is explored by the graph explorer only, without a preemption
    // bound (its rounds count store-buffer flushes) or robustness (against SC).
    const char* why = opts.stateful ? "the stateful search"
                    : hasAtomicSections(prog) ? "atomic sections (__VERIFIER_atomic_*)"
                    : opts.preemptionBound >= 0 ? "a preemption bound"
                    : opts.robustness ? "robustness checking" : nullptr;
    if (why) {
      refusal->status = Status::Error;
      refusal->message = std::string(why) + " does not work with the RC11 model yet";
      return nullptr;
    }
  }
  if (opts.stateful && opts.robustness) {
    refusal->status = Status::Error;
    refusal->message = "robustness checking works with the graph explorer only (not with the stateful search)";
    return nullptr;
  }
  // Neither robustness nor a preemption bound knows atomic sections (a
  // section's steps are one step of its thread).
  if (hasAtomicSections(prog) && (opts.robustness || opts.preemptionBound >= 0)) {
    refusal->status = Status::Error;
    refusal->message = std::string(opts.robustness ? "robustness checking" : "a preemption bound") +
                       " does not work with atomic sections (__VERIFIER_atomic_*)";
    return nullptr;
  }
  if (exploresStates(prog, opts)) return std::make_unique<StateSpaceSearch>(prog, opts);
  return std::make_unique<GraphSearch>(prog, opts);
}

}  // namespace tsocheck

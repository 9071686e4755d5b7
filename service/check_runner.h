// Runs every check of a C file: compile flags, lowering per model, the
// engine, and the options precedence (command line / settings > annotation >
// defaults). Shared by the CLI, the language server and the debug adapter.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/fences.h"
#include "frontend/frontend.h"
#include "service/check_options.h"
#include "service/check_report.h"

namespace tsocheck {

// The executable that serves the frontend worker (`__lower`,
// frontend/worker.h) for every RunOptions made afterwards; the tsocheck
// command sets it to itself at startup. Empty (tests that link the runner):
// the frontend runs in-process, without the time and memory bounds.
void setFrontendWorker(std::string executable);
const std::string& frontendWorker();
// Whether lowerings keep a frontend worker started ahead
// (FrontendProcess::keepSpare): the language server turns it on.
void keepSpareFrontendWorker(bool on);

// A check function the file's default lowering found, where it is declared
// (1-based; file as the frontend names it) and the model its check runs under.
struct CheckSite {
  std::string function, file;
  uint32_t line = 0, column = 0;
  Model model = Model::TSO;
};

struct RunOptions {
  std::optional<Model> model;             // overrides the annotation (see annotationWins)
  // false (CLI flags): model, bounds, time limit and deadlocks set here override
  // the check's annotation. true (editor settings): they are defaults and the
  // annotation's own values win.
  bool annotationWins = false;
  std::optional<Model> forceModel;        // wins over everything (the "run under SC/TSO/PSO" lens)
  std::optional<int> bufferBound;
  std::optional<int> bufferBoundFrom;     // --buffer-bound A..K: deepening k = A..bufferBound
  std::optional<int> preemptionBound;
  std::optional<int> preemptionFrom;      // set: iterative bounds preemptionFrom..preemptionBound
  std::optional<uint32_t> loopBound;
  std::optional<double> timeLimit;        // seconds per check (also bounds the frontend)
  std::optional<double> fenceTimeLimit;   // fence synthesis per check, seconds (0: none; default kDefaultFenceTimeLimitSeconds)
  std::optional<uint64_t> memoryLimitMiB; // state searches and the frontend process (default kDefaultMemoryLimitMiB)
  std::optional<uint32_t> jobs;           // graph explorer workers (0 or unset: the machine's cores)
  bool stateful = false;                  // explicit-state search with a visited table
  bool robustness = false;                // also report executions SC does not allow (--robustness)
  std::vector<std::string> extraClangArgs;
  std::string compileCommandsDir;         // "" = search upward from the file
  std::vector<std::string> with;          // more translation units of the program (absolute; --with)
  // Unsaved contents of other files of the program (headers, translation
  // units), by path as the frontend names them (absolute for linked units).
  std::map<std::string, std::string> otherContents;
  std::optional<std::string> contents;    // unsaved buffer contents
  Limits limits;
  bool keepGoing = false;                 // explore everything after the first violation
  bool keepBound = false;                 // --keep-bound: a preemption bound is never dropped (CheckOptions::boundProbe)
  ExploreOrder exploreOrder = ExploreOrder::Forward;  // --explore-order: which executions come first
  std::optional<DeadlockMode> deadlocks;  // --deadlocks / setting; overrides the annotation
  std::optional<bool> raceCheck;          // --[no-]race-check / setting; overrides the annotation (default on)
  std::optional<bool> exitEndsProgram;    // --[no-]exit-ends-program; overrides the annotation (default on, as C)
  std::optional<bool> abortEnds;          // --abort=end|error; overrides the annotation (default: error)
  std::optional<bool> spuriousWakeups;    // --[no-]spurious-wakeups; overrides the annotation (default on, as POSIX)
  std::optional<std::pair<int64_t, int64_t>> nondetRange;  // --nondet-range A..B (default -1..1)
  bool mainHarness = false;               // --main: also check main(void) / main(int, char**)
  std::string fenceStyle;                 // "" = atomic_thread_fence(memory_order_seq_cst);
  std::string frontendWorker = tsocheck::frontendWorker();  // "" = in-process frontend
  // Language server hooks: stop flag and progress for every check; `reuse`
  // sees each check's options and lowered program (entry set) before it runs
  // and returns true to skip it (the report then has reused = true).
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(uint64_t)> onProgress;
  std::function<bool(const CheckReport&, const Program&)> reuse;
  bool fences = true;                     // synthesize fences after a TSO/PSO violation (--no-fences)
  CheckOptions::Shard shard;              // --shard INDEX/COUNT, --shard-depth D (count 0: the whole search)
  // Answer first, fix second: called with a check's report as soon as its
  // verdict is known when fence synthesis is about to run for it (no fences,
  // fenceNote or fenceSynthesis yet; the same report, completed, comes back
  // from runFile). On the calling thread.
  std::function<void(const CheckReport&)> onVerdict;
  // Progress of that synthesis: after every re-check of a fenced program.
  std::function<void(const CheckReport&, const FenceRound&)> onFenceRound;
  // Each check's complete report, as soon as that check is done (before the
  // file's next check runs), and how many of the file's checks are left.
  std::function<void(const CheckReport&, size_t left)> onCheckDone;
  // The line (1-based) of the checked file the user is at. Set: the checks
  // that need no run (reused, or an error before running) are done first,
  // then the check of the last check function starting at or before that
  // line, then the others in file order. The report keeps file order.
  std::optional<uint32_t> firstCheckAt;
  // The file's check functions once its default lowering is done, before any
  // check runs (empty when the file has none or does not compile).
  std::function<void(const std::vector<CheckSite>&)> onLowered;
};

// Sets the given option values on r (unset ones leave r as it is): how
// every front door turns what it parsed (service/check_options.h) into a run.
void applyOptions(const OptionValues& v, RunOptions& r);

FileReport runFile(const std::string& path, const RunOptions& opts);

// runFile on each path in order, each report handed to `done` (on the
// calling thread, in the order of `paths`) before the next file's checks
// run. Meanwhile up to filesLoweredAhead(opts) later files have their
// compile flags read and their default lowering done on other threads: on a
// run over many small files the frontend workers' start-up and Clang, most
// of the time, overlap one another and the checks. The reports are those
// runFile gives one by one.
void runFiles(const std::vector<std::string>& paths, const RunOptions& opts,
              const std::function<void(FileReport)>& done);
// The machine's cores (or the run's --jobs, if fewer) less one; 0 when the frontend
// runs in this process (Clang instances are not run side by side here) or
// for an unsaved buffer.
size_t filesLoweredAhead(const RunOptions& opts);

}  // namespace tsocheck

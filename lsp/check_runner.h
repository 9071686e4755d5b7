// Runs every check of a C file: compile flags, lowering per model, the
// engine, and the options precedence (command line / settings > annotation >
// defaults). Shared by the CLI and the language server.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/check.h"
#include "frontend/frontend.h"

namespace tsocheck {

// A synthesized fence as a source edit: insert `text` as a new statement right
// after the statement that ends at line:column of file.
struct FenceEdit {
  std::string file;
  uint32_t line = 0, column = 0;
  std::string text;
};

// What a check proved about its bounds (JSON "bounds"). Unset = not bounded in
// that dimension (or not applicable).
struct ProvenBounds {
  std::optional<int> preemptions;  // no violation with <= this many preemptions
  std::optional<int> buffer;       // largest buffer bound checked
  std::optional<uint32_t> loop;    // loop bound that cut executions
  std::optional<int> fixpointK;    // buffer bound where the reachable-state fixpoint was reached
};

struct CheckReport;

// The executable that serves the frontend worker (`__lower`,
// frontend/worker.h) for every RunOptions made afterwards; the tsocheck
// command sets it to itself at startup. Empty (tests that link the runner):
// the frontend runs in-process, without the time and memory bounds.
void setFrontendWorker(std::string executable);
const std::string& frontendWorker();

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
  std::optional<uint64_t> memoryLimitMiB; // state searches and the frontend process (default kDefaultMemoryLimitMiB)
  bool stateful = false;                  // explicit-state search with a visited table
  bool robustness = false;                // also report executions SC does not allow (--robustness)
  std::vector<std::string> extraClangArgs;
  std::string compileCommandsDir;         // "" = search upward from the file
  std::optional<std::string> contents;    // unsaved buffer contents
  Limits limits;
  bool keepGoing = false;                 // explore everything after the first violation
  std::optional<DeadlockMode> deadlocks;  // --deadlocks / setting; overrides the annotation
  std::optional<bool> abortEnds;          // --abort=end|error; overrides the annotation (default: error)
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
};

struct CheckReport {
  std::string file;
  std::string function;
  std::string annotation;  // the options text of the check's annotation (part of the cache key)
  uint32_t line = 0, column = 0;
  Model model = Model::TSO;
  std::optional<int> bufferBound;
  std::optional<int> preemptionBound;
  uint32_t loopBound = frontend::kDefaultLoopBound;
  DeadlockMode deadlocks = DeadlockMode::Error;  // what deadlocks and non-termination are
  bool abortEnds = false;  // abort() ends the program (abort=end) instead of being an error
  // Values of typed nondeterministic inputs (__VERIFIER_nondet_int, ...), within each type.
  std::pair<int64_t, int64_t> nondetRange{-1, 1};
  double lowerMs = 0;  // parse + lower time of the module this check ran on
  CheckResult result;
  // For status "error": where the problem is (unsupported construct, bad option).
  std::optional<frontend::Diagnostic> errorAt;
  std::shared_ptr<const Program> program;  // for names and source locations in traces
  ProvenBounds bounds;
  std::vector<FenceEdit> fences;  // synthesized fences that make the check pass
  std::string fenceNote;          // e.g. "the violation also occurs under SC: no fence can fix it"
  bool reused = false;            // skipped: RunOptions::reuse had its result
  // Whether synthesized fences, inserted into the source text, make the
  // re-lowered check pass (unset: no fences were synthesized). `fences` is
  // only filled when true.
  std::optional<bool> fencesVerified;
  std::string boundsNote;         // e.g. "needs a store buffer of 2 entries (k=0 and k=1 pass)"
  // Clang's -Wuninitialized warnings in the file (a read of an uninitialised
  // local): reported with every check of the file, never a violation.
  std::vector<frontend::Diagnostic> warnings;
};

struct FileReport {
  std::string file;
  bool inputError = false;  // missing file, does not parse, no check function
  std::string inputMessage;
  std::vector<frontend::Diagnostic> diagnostics;  // compiler diagnostics
  std::vector<CheckReport> checks;
  std::string compileDatabase;  // compile_commands.json used, if any
};

FileReport runFile(const std::string& path, const RunOptions& opts);

}  // namespace tsocheck

// What checking a file produced, typed: one CheckReport per check function
// (verdict, trace, proven bounds, validated fences) and the FileReport around
// them. Written out as JSON by service/report_json.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/check.h"
#include "frontend/frontend.h"

namespace tsocheck {

// A validated fix as a source edit. A synthesized fence (TSO/PSO): insert
// `text` as a new statement right after the statement that ends at
// line:column of file. A memory-order upgrade (RC11): `replaces` is set, and
// `text` replaces it at line:column (column: its 0-based byte offset in the
// line), e.g. memory_order_relaxed -> memory_order_acquire on a `load`.
struct FenceEdit {
  std::string file;
  uint32_t line = 0, column = 0;
  std::string text;
  std::string replaces;  // the order token replaced ("": an inserted fence)
  std::string access;    // what the upgrade strengthens: "load", "store", "read-modify-write", "fence"
  bool isUpgrade() const { return !replaces.empty(); }
};

// What a check proved about its bounds (JSON "bounds"). Unset = not bounded in
// that dimension (or not applicable).
struct ProvenBounds {
  std::optional<int> preemptions;  // no violation with <= this many preemptions
  std::optional<int> buffer;       // largest buffer bound checked
  std::optional<uint32_t> loop;    // loop bound that cut executions
  std::optional<int> fixpointK;    // buffer bound where the reachable-state fixpoint was reached
};

struct CheckReport {
  std::string file;
  std::string function;
  std::string annotation;  // the options text of the check's annotation (part of the cache key)
  uint32_t line = 0, column = 0;
  Model model = kDefaultModel;
  std::optional<int> bufferBound;
  std::optional<int> preemptionBound;
  uint32_t loopBound = frontend::kDefaultLoopBound;
  DeadlockMode deadlocks = DeadlockMode::Error;  // what deadlocks and non-termination are
  bool exitEndsProgram = true;  // the harness's return / exit() ends the program (C); false: threads run on
  bool raceCheck = true;   // data races reported as warnings (races=off / --no-race-check: not looked for)
  bool abortEnds = false;  // abort() ends the program (abort=end) instead of being an error
  bool spuriousWakeups = true;  // condition-variable waits may return without a signal (POSIX); false: they do not
  // Values of typed nondeterministic inputs (__VERIFIER_nondet_int, ...), within each type.
  std::pair<int64_t, int64_t> nondetRange{-1, 1};
  double lowerMs = 0;  // parse + lower time of the module this check ran on
  CheckResult result;
  // For status "error": where the problem is (unsupported construct, bad option).
  std::optional<frontend::Diagnostic> errorAt;
  std::shared_ptr<const Program> program;  // for names and source locations in traces
  ProvenBounds bounds;
  std::vector<FenceEdit> fences;  // synthesized fences (or, under RC11, order upgrades) that make the check pass
  std::string fenceNote;          // e.g. "the violation also occurs under SC: no fence can fix it"
  bool reused = false;            // skipped: RunOptions::reuse had its result
  // Whether synthesized fences, inserted into the source text, make the
  // re-lowered check pass (unset: no fences were synthesized). `fences` is
  // only filled when true.
  std::optional<bool> fencesVerified;
  std::string boundsNote;         // e.g. "needs a store buffer of 2 entries (k=0 and k=1 pass)"
  // How fence synthesis went (JSON "fence_synthesis"; unset: it did not run).
  struct FenceSynthesis {
    int rounds = 0;             // re-checks of fenced programs
    double seconds = 0;         // synthesis and the re-check of the edited source
    double budgetSeconds = 0;   // fence-time-limit (0: none)
    bool stopped = false;       // the fence time limit ended it (the verdict above is unchanged)
    std::string outcome;        // "fixed", "gave-up", "sc-violation", "not-needed"
    std::optional<bool> minimal;  // the fences offered are a smallest set (false: correct, not known smallest)
    size_t seedFences = 0;      // size of the first correct set (critical-cycle seed), 0: none
    // GaveUp without a correct set: the last set tried (not enough), as the
    // statements the fences would follow. Never offered as a fix.
    std::vector<FenceEdit> partial;
  };
  std::optional<FenceSynthesis> fenceSynthesis;
  // A shard of a split check (tsocheck check --shard INDEX/COUNT): which one,
  // and the fingerprint every shard of the same check shares (checkKey over
  // the program, the options that change the answer and the tool version);
  // the shard's part of the search is result.shard.
  std::optional<CheckOptions::Shard> shard;
  std::string fingerprint;
  // How the shard was run, for `tsocheck merge --fix` to run the check
  // again: the options given (optionsJson's text, --jobs left out) and the
  // Clang arguments after `--`.
  std::string shardOptions;
  std::vector<std::string> shardClangArgs;
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
  // The other translation units its checks' programs were linked from
  // (frontend::LoweredModule::units of every lowering), absolute.
  std::vector<std::string> units;
};

}  // namespace tsocheck

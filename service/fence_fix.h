// Fence synthesis for a failing check, as source edits: runs the engine's
// synthesis (engine/fences.h) on the lowered program, maps each fence
// position (a store) to the end of the statement to insert after
// (frontend::statementContaining) in whichever file holds it (the checked
// file or a header / .c file it includes; never a system header), then
// validates the edits on the source: inserts the fence texts in every edited
// file, re-lowers them together (frontend::lowerSources) and re-checks the
// function. Only validated edits are reported (CheckReport::fences).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "engine/check.h"
#include "engine/fences.h"
#include "frontend/frontend.h"
#include "service/check_options.h"
#include "service/check_report.h"

namespace tsocheck {

// The statement text of a fence style: "" or "seq_cst" (default)
// `atomic_thread_fence(memory_order_seq_cst);`, "sync" `__sync_synchronize();`,
// "mfence" `asm volatile("mfence" ::: "memory");`. nullopt for an unknown style.
std::optional<std::string> fenceText(const std::string& style);

// Inserts each edit's text right after line:column of `source` (edits for
// other files are ignored), as " text" on the same line.
std::string applyFenceEdits(const std::string& source, const std::string& file, const std::vector<FenceEdit>& edits);

// What the synthesis needs besides the report: the program the check ran on
// (entry set), the options it ran with, the module it came from, and how to
// lower the edited source again.
struct FenceFixInput {
  const Program* program = nullptr;
  CheckOptions options;
  const frontend::LoweredModule* module = nullptr;
  std::string path;    // the checked file
  std::string source;  // its text (other edited files are read from disk)
  frontend::FrontendOptions lowering;
  std::string style;   // RunOptions::fenceStyle
  // The report's result came from `program` under `options` and can seed the
  // synthesis (false after deepening or the stateful search).
  bool reuseResult = true;
  // fence-time-limit: synthesis and the re-check of the edited source, in
  // seconds (0: none; the check's own time limit still applies).
  double budgetSeconds = kDefaultFenceTimeLimitSeconds;
  std::function<void(const FenceRound&)> onRound;  // progress: after every re-check of a fenced program
};

// Fills rep.fences, rep.fenceNote and rep.fencesVerified for a violation
// under TSO/PSO, or, with options.robustness, for a check that passes but is
// not robust (the fences make it robust). Does nothing otherwise.
void addFenceFix(CheckReport& rep, const FenceFixInput& in);

// Under RC11: the cheapest memory-order upgrades (engine/order_fix.h) that
// make a failing check pass, as edits that replace the order argument of the
// atomic calls (memory_order_relaxed -> memory_order_acquire, or the
// __ATOMIC_* spelling), validated like fences: the edited source is
// re-lowered and re-checked (data races included). Fills rep.fences (edits
// with `replaces` set), rep.fenceNote, rep.fencesVerified and
// rep.fenceSynthesis (its rounds and time; fence-time-limit bounds it).
// Only accesses whose order is a literal argument of the call, in a file
// the user edits, are upgraded. Does nothing without a violation under RC11.
void addOrderFix(CheckReport& rep, const FenceFixInput& in);

}  // namespace tsocheck

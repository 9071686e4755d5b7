// Options riding in a check's annotation: annotate("tsocheck model=pso buffer_bound=2").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/check.h"

namespace tsocheck {

struct AnnotationOptions {
  std::optional<Model> model;
  std::optional<int> bufferBound;
  std::optional<int> bufferBoundFrom;  // buffer_bound=A..K: deepening from A to bufferBound
  bool stateful = false;               // `stateful` (or stateful=1): explicit-state search
  bool robustness = false;             // `robustness` (or robustness=1): report non-SC behaviours
  std::optional<int> preemptionBound;
  std::optional<int> preemptionFrom;  // preemption_bound=A..B: iterative from A
  std::optional<uint32_t> loopBound;
  std::optional<double> timeLimit;
  std::optional<uint64_t> memoryLimitMiB;  // memory_limit=MiB
  std::optional<bool> fences;  // fences=on|off: fence synthesis after a TSO/PSO violation
  std::optional<DeadlockMode> deadlocks;  // deadlocks=error|warning|ignore
  std::optional<bool> abortEnds;          // abort=error|end
  std::optional<std::pair<int64_t, int64_t>> nondetRange;  // nondet=A..B
  std::vector<std::string> errors;  // unknown keys or bad values
};

AnnotationOptions parseAnnotation(const std::string& text);
std::optional<Model> parseModel(const std::string& s);  // "sc" | "tso" | "pso" (any case)
std::optional<DeadlockMode> parseDeadlockMode(const std::string& s);  // "error" | "warning" | "ignore"
// "K" -> {K, K}; "A..K" -> {A, K} with A <= K; nullopt when malformed.
std::optional<std::pair<int, int>> parseBoundRange(const std::string& s);
// The values of typed nondeterministic inputs: "A..B" (signed integers, A <= B,
// at most kMaxNondetValues values) or "N" (one value); nullopt when malformed.
constexpr int64_t kMaxNondetValues = 65536;
std::optional<std::pair<int64_t, int64_t>> parseNondetRange(const std::string& s);
// What parseNondetRange accepts, for error messages.
extern const char* const kNondetRangeHelp;

}  // namespace tsocheck

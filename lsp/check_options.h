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
  std::optional<int> preemptionBound;
  std::optional<int> preemptionFrom;  // preemption_bound=A..B: iterative from A
  std::optional<uint32_t> loopBound;
  std::optional<double> timeLimit;
  std::vector<std::string> errors;  // unknown keys or bad values
};

AnnotationOptions parseAnnotation(const std::string& text);
std::optional<Model> parseModel(const std::string& s);  // "sc" | "tso" | "pso" (any case)
// "P" (from = to = P) or "A..B" with A <= B, non-negative integers.
bool parseBoundRange(const std::string& s, int* from, int* to);

}  // namespace tsocheck

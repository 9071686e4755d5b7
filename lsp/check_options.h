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
  std::optional<uint32_t> loopBound;
  std::optional<double> timeLimit;
  std::optional<bool> fences;  // fences=on|off: fence synthesis after a TSO/PSO violation
  std::vector<std::string> errors;  // unknown keys or bad values
};

AnnotationOptions parseAnnotation(const std::string& text);
std::optional<Model> parseModel(const std::string& s);  // "sc" | "tso" | "pso" (any case)

}  // namespace tsocheck

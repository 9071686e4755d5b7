// The debug adapter's requests, typed: the arguments it reads, filled by
// fromJson (false + *error naming the first bad member). The launch
// arguments' check options go through the option schema
// (service/check_options.h), so a launch configuration takes the same
// options as the command line.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "service/check_options.h"

namespace tsocheck::dap {

struct InitializeArguments {
  bool linesStartAt1 = true, columnsStartAt1 = true;
};
struct LaunchArguments {
  std::string program;   // the C file (required)
  std::string function;  // "" = the first check with a violation
  bool stopOnEntry = true;
  OptionValues options;  // model, bounds, limits, ... by their settings keys
};
struct ThreadArguments {  // stackTrace
  int64_t threadId = 0;
};
struct VariablesArguments {
  int64_t variablesReference = 0;
};
struct EvaluateArguments {
  std::string expression;
};
struct SetBreakpointsArguments {
  size_t count = 0;  // breakpoints asked for (each is answered unverified)
};

bool fromJson(const nlohmann::json& j, InitializeArguments& out, std::string* error);
bool fromJson(const nlohmann::json& j, LaunchArguments& out, std::string* error);
bool fromJson(const nlohmann::json& j, ThreadArguments& out, std::string* error);
bool fromJson(const nlohmann::json& j, VariablesArguments& out, std::string* error);
bool fromJson(const nlohmann::json& j, EvaluateArguments& out, std::string* error);
bool fromJson(const nlohmann::json& j, SetBreakpointsArguments& out, std::string* error);

}  // namespace tsocheck::dap

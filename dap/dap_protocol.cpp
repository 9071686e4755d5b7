#include "dap/dap_protocol.h"

#include "jsonrpc/fields.h"

namespace tsocheck::dap {

using jsonrpc::Fields;

bool fromJson(const nlohmann::json& j, InitializeArguments& out, std::string* error) {
  Fields f(j, "arguments", error);
  f.boolean("linesStartAt1", out.linesStartAt1);
  f.boolean("columnsStartAt1", out.columnsStartAt1);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, LaunchArguments& out, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (!j.is_object() || !j.contains("program") || !j["program"].is_string() || j["program"].get<std::string>().empty())
    return fail("launch needs `program`: the path of the C file to check");
  out.program = j["program"];
  if (j.contains("function") && !j["function"].is_null() && !j["function"].is_string())
    return fail("`function` must be a string");
  if (j.contains("stopOnEntry") && !j["stopOnEntry"].is_null() && !j["stopOnEntry"].is_boolean())
    return fail("`stopOnEntry` must be true or false");
  Fields f(j, "", error);
  f.str("function", out.function, false);
  f.boolean("stopOnEntry", out.stopOnEntry);
  for (const OptionSpec& o : checkOptionSchema())
    if (j.contains(o.key))
      if (std::string err = setOption(o, Door::Launch, j[o.key], out.options); !err.empty()) return fail(err);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, ThreadArguments& out, std::string* error) {
  Fields f(j, "arguments", error);
  f.integer("threadId", out.threadId);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, VariablesArguments& out, std::string* error) {
  Fields f(j, "arguments", error);
  f.integer("variablesReference", out.variablesReference);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, EvaluateArguments& out, std::string* error) {
  Fields f(j, "arguments", error);
  f.str("expression", out.expression, false);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, SetBreakpointsArguments& out, std::string* error) {
  Fields f(j, "arguments", error);
  nlohmann::json bps = nlohmann::json::array();
  f.any("breakpoints", bps, false);
  out.count = bps.is_array() ? bps.size() : 0;
  return f.ok();
}

}  // namespace tsocheck::dap

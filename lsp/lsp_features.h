// What the user sees, computed from a typed check report (fresh from the
// runner, or the stored check JSON read back with checkFromJson):
// diagnostics with one related location per trace step, fence code actions,
// code lenses, hover on trace lines. Pure functions of (check, document
// text); each also takes the check JSON (checkJson shape), read with
// checkFromJson.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_report.h"

namespace tsocheck::lsp {

using nlohmann::json;

// "store to `flag[0]` (line 14) is still in T1's store buffer when T2 reads it
// (line 25)", or "" when the trace shows no such stale read.
std::string staleReadExplanation(const CheckReport& check);
std::string staleReadExplanation(const json& check);

// Diagnostics of one check in the document `path` (text = its contents).
json checkDiagnostics(const CheckReport& check, const std::string& path, const std::string& text);
json checkDiagnostics(const json& check, const std::string& path, const std::string& text);

// The text of another file of a checked program (a header holding a fence):
// the open document's, or the file on disk; nullopt when it cannot be read.
using TextOf = std::function<std::optional<std::string>(const std::string& path)>;

// Quickfix actions for the fences of `check` when `range` touches the
// violation, a fence position in this document or the function header. The
// fences may be in other files too (headers): their edits go in the same
// WorkspaceEdit, one `changes` entry per file URI, with those files' texts
// from `textOf` (default: the file on disk). The fixed diagnostic is echoed
// in each action's diagnostics.
json fenceActions(const CheckReport& check, const std::string& uri, const std::string& text, const json& range,
                  const TextOf& textOf = {});
json fenceActions(const json& check, const std::string& uri, const std::string& text, const json& range,
                  const TextOf& textOf = {});

// Code lenses of one check; `checking` >= 0 means a check is running and has
// explored that many executions.
json checkLenses(const CheckReport& check, const std::string& uri, const std::string& text, long long checking);
json checkLenses(const json& check, const std::string& uri, const std::string& text, long long checking);

// Markdown hover for 1-based `line` of `path` if a trace step is there ("" if not).
std::string traceHover(const CheckReport& check, const std::string& path, uint32_t line);
std::string traceHover(const json& check, const std::string& path, uint32_t line);

}  // namespace tsocheck::lsp

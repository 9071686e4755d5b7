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

// Diagnostics of one check in the document `path` (text = its contents).
json checkDiagnostics(const CheckReport& check, const std::string& path, const std::string& text);
json checkDiagnostics(const json& check, const std::string& path, const std::string& text);

// A check's hints in the other files of its program (a library linked with
// the checked document `path`): the files they go in (absolute paths), and
// the hints in one of them (`text` = its contents): at the stale read and at
// the store that sat in a store buffer meanwhile, each worded as the
// violation's summary (report_reader.h violationSummary) with the trace as
// related information, and where the check's fences go in that file. The
// check's own diagnostic stays on the checked document.
std::vector<std::string> linkedHintFiles(const CheckReport& check, const std::string& path);
json linkedFileHints(const CheckReport& check, const std::string& path, const std::string& file,
                     const std::string& text);

// The text a file's edits are computed against: an open document's, with
// its version, or the file on disk (no version).
struct EditText {
  EditText(std::string t, std::optional<int64_t> v = std::nullopt) : text(std::move(t)), version(v) {}
  std::string text;
  std::optional<int64_t> version;
};

// The text of another file of a checked program (a header holding a fence);
// nullopt when it cannot be read (or no longer matches the check's).
using TextOf = std::function<std::optional<EditText>(const std::string& path)>;

// How a WorkspaceEdit is written: versioned `documentChanges` (the client
// announced workspace.workspaceEdit.documentChanges; `version` is this
// document's, each other file's comes from textOf) or plain `changes`.
struct EditFormat {
  bool documentChanges = false;
  std::optional<int64_t> version;
};

// Quickfix actions for the fences of `check` when `range` touches the
// violation, a fence position in this document or the function header.
// `text` must be the text the check was computed for (the fence lines are
// its lines). The fences may be in other files too (headers): their edits go
// in the same WorkspaceEdit, one entry per file URI, with those files' texts
// from `textOf` (default: the file on disk, read with the guarded reader).
// The fixed diagnostic is echoed in each action's diagnostics.
json fenceActions(const CheckReport& check, const std::string& uri, const std::string& text, const json& range,
                  const TextOf& textOf = {}, const EditFormat& format = {});
json fenceActions(const json& check, const std::string& uri, const std::string& text, const json& range,
                  const TextOf& textOf = {}, const EditFormat& format = {});

// Code lenses of one check; `checking` >= 0 means a check is running and has
// explored that many executions. `models`: the check's verdict under each
// compared model as modelVerdictsText words it ("SC ✓  TSO ✗", "" = none),
// a lens of its own after the verdict's (not while a check runs).
json checkLenses(const CheckReport& check, const std::string& uri, const std::string& text, long long checking,
                 const std::string& models = "");
json checkLenses(const json& check, const std::string& uri, const std::string& text, long long checking,
                 const std::string& models = "");

// Markdown hover for 1-based `line` of `path` if a trace step is there ("" if
// not); on the check's own line also `models` (as for checkLenses), whatever
// the check's verdict.
std::string traceHover(const CheckReport& check, const std::string& path, uint32_t line,
                       const std::string& models = "");
std::string traceHover(const json& check, const std::string& path, uint32_t line, const std::string& models = "");

}  // namespace tsocheck::lsp

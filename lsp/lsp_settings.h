// Language server settings: initializationOptions and
// workspace/didChangeConfiguration, flat or under a "tsocheck" key.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_runner.h"

namespace tsocheck::lsp {

// Defaults that keep the editor responsive: background checks stop after
// 10 s (status `timeout`, "raise tsocheck.timeLimit"; 0 = no limit), and
// max(1, min(cores - 1, 8)) files are checked at once.
inline constexpr double kDefaultTimeLimitSeconds = 10;
int defaultMaxWorkers();

struct Settings {
  Settings();
  OptionValues options;       // the check options the editor set (service/check_options.h)
  RunOptions run;             // what checks run with: runOptions(options)
  bool checkOnSave = false;   // checkOn: "change" (debounced) or "save"
  int maxWorkers = defaultMaxWorkers();
  int debounceMs = 300;
  // compareModels: each check is also run under these models (after its own
  // result is published; verdicts only) for the one-line "where does it
  // break?" summary in its lens and hover. Empty: off.
  std::vector<Model> compareModels;
  // The run the editor's option values make: a default time limit, and the
  // annotation wins over them.
  static RunOptions runOptions(const OptionValues& v);
};

// Applies every recognised key of j to s; returns one message per bad value
// (those keys keep their old value).
std::vector<std::string> applySettings(Settings& s, const nlohmann::json& j);

// The server's own settings (beside the check options' editor settings), as
// data: [{"key": "checkOn", "choices": ["change", "save"]}, {"key":
// "maxWorkers", "choices": null}, ...] (`tsocheck options --json`); a list
// setting names what its items may be: {"key": "compareModels", "choices":
// null, "items": ["sc", "tso", "pso", "rc11"]}.
nlohmann::json serverSettingSchema();

// The part of the settings that can change a check's outcome beyond the
// check's own model and bounds (goes into the cache key).
std::string outcomeSettings(const Settings& s);

}  // namespace tsocheck::lsp

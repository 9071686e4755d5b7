#include "lsp/lsp_settings.h"

#include <algorithm>
#include <thread>
#include "service/json_text.h"

#include "service/check_options.h"

namespace tsocheck::lsp {

using nlohmann::json;

int defaultMaxWorkers() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 2 ? int(std::min(cores - 1, 8u)) : 1;  // at most 8: each check can use much memory
}

Settings::Settings() { run = runOptions(options); }

RunOptions Settings::runOptions(const OptionValues& v) {
  RunOptions r;
  r.timeLimit = kDefaultTimeLimitSeconds;  // background checks stop by default
  r.annotationWins = true;                 // editor settings are defaults: an annotation wins
  applyOptions(v, r);
  return r;
}

std::vector<std::string> applySettings(Settings& s, const json& in) {
  std::vector<std::string> bad;
  if (!in.is_object()) {
    if (!in.is_null()) bad.push_back("settings must be an object");
    return bad;
  }
  const json& j = in.contains("tsocheck") && in["tsocheck"].is_object() ? in["tsocheck"] : in;
  // The check options: service/check_options.h decides what is valid.
  for (const OptionSpec& o : checkOptionSchema())
    if (isEditorSetting(o) && j.contains(o.key))
      if (std::string err = setOption(o, Door::Settings, j[o.key], s.options); !err.empty()) bad.push_back(err);
  s.run = Settings::runOptions(s.options);
  // The server's own settings.
  auto count = [&](const char* key, long max, auto set) {
    if (!j.contains(key)) return;
    const json& v = j[key];
    if (v.is_null()) set(std::optional<long>());
    else if (v.is_number_integer() && v.get<long>() >= 0 && v.get<long>() <= max) set(std::optional<long>(v.get<long>()));
    else bad.push_back(std::string(key) + " must be an integer between 0 and " + std::to_string(max));
  };
  count("maxWorkers", 64, [&](std::optional<long> v) { s.maxWorkers = !v ? defaultMaxWorkers() : *v > 0 ? int(*v) : 1; });
  count("debounceMs", 60000, [&](std::optional<long> v) { s.debounceMs = v ? int(*v) : 300; });
  if (j.contains("checkOn")) {
    const json& v = j["checkOn"];
    if (v.is_null() || v == "" || v == "change") s.checkOnSave = false;  // null, "": the default
    else if (v == "save") s.checkOnSave = true;
    else bad.push_back("checkOn must be \"change\" or \"save\"");
  }
  if (j.contains("compareModels")) {
    const json& v = j["compareModels"];
    std::vector<Model> models;
    bool ok = v.is_null() || v.is_array();
    if (v.is_array())
      for (const json& m : v) {
        const std::optional<Model> parsed = m.is_string() ? parseModel(m.get<std::string>()) : std::nullopt;
        if (!parsed) ok = false;
        else if (std::find(models.begin(), models.end(), *parsed) == models.end()) models.push_back(*parsed);
      }
    if (ok) s.compareModels = models;
    else bad.push_back("compareModels must be a list of " + choiceList(modelChoices(), true) + " (empty: off)");
  }
  return bad;
}

json serverSettingSchema() {
  return json::array({{{"key", "checkOn"}, {"choices", {"change", "save"}}},
                      {{"key", "maxWorkers"}, {"choices", nullptr}},
                      {{"key", "debounceMs"}, {"choices", nullptr}},
                      {{"key", "compareModels"}, {"choices", nullptr}, {"items", choicesOf(modelChoices())}}});
}

std::string outcomeSettings(const Settings& s) {
  // Every option the editor set (the check's model and bounds are in the key
  // on their own), with the defaults that apply when they are unset.
  json j = optionsJson(s.options);
  j["memoryLimit"] = s.run.memoryLimitMiB.value_or(kDefaultMemoryLimitMiB);
  j["steps"] = s.run.limits.maxSteps;
  return dumpJson(j);
}

}  // namespace tsocheck::lsp

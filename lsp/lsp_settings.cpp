#include "lsp/lsp_settings.h"

#include <algorithm>
#include <thread>
#include "jsonrpc/json_text.h"

#include "service/check_options.h"
#include "service/fence_fix.h"

namespace tsocheck::lsp {

using nlohmann::json;

int defaultMaxWorkers() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 2 ? int(std::min(cores - 1, 8u)) : 1;  // at most 8: each check can use much memory
}

std::vector<std::string> applySettings(Settings& s, const json& in) {
  std::vector<std::string> bad;
  if (!in.is_object()) {
    if (!in.is_null()) bad.push_back("settings must be an object");
    return bad;
  }
  const json& j = in.contains("tsocheck") && in["tsocheck"].is_object() ? in["tsocheck"] : in;
  auto count = [&](const char* key, long max, auto set) {
    if (!j.contains(key)) return;
    const json& v = j[key];
    if (v.is_null()) set(std::optional<long>());
    else if (v.is_number_integer() && v.get<long>() >= 0 && v.get<long>() <= max) set(std::optional<long>(v.get<long>()));
    else bad.push_back(std::string(key) + " must be an integer between 0 and " + std::to_string(max));
  };
  if (j.contains("model")) {
    const json& v = j["model"];
    std::optional<Model> m = v.is_string() ? parseModel(v.get<std::string>()) : std::nullopt;
    if (v.is_null()) s.run.model.reset();
    else if (m) s.run.model = m;
    else bad.push_back("model must be \"sc\", \"tso\" or \"pso\"");
  }
  count("bufferBound", 1 << 20, [&](std::optional<long> v) { s.run.bufferBound = v ? std::optional<int>(int(*v)) : std::nullopt; });
  count("preemptionBound", 1 << 20, [&](std::optional<long> v) { s.run.preemptionBound = v ? std::optional<int>(int(*v)) : std::nullopt; });
  count("loopBound", 1 << 20, [&](std::optional<long> v) { s.run.loopBound = v ? std::optional<uint32_t>(uint32_t(*v)) : std::nullopt; });
  count("maxWorkers", 64, [&](std::optional<long> v) { s.maxWorkers = !v ? defaultMaxWorkers() : *v > 0 ? int(*v) : 1; });
  count("memoryLimit", 1L << 22, [&](std::optional<long> v) {
    if (v && *v < 16) bad.push_back("memoryLimit must be at least 16 (MiB)");
    else s.run.memoryLimitMiB = v ? std::optional<uint64_t>(uint64_t(*v)) : std::nullopt;
  });
  count("debounceMs", 60000, [&](std::optional<long> v) { s.debounceMs = v ? int(*v) : 300; });
  if (j.contains("timeLimit")) {
    const json& v = j["timeLimit"];
    if (v.is_null()) s.run.timeLimit = kDefaultTimeLimitSeconds;  // null = the default
    else if (v.is_number() && v.get<double>() == 0) s.run.timeLimit.reset();  // 0 = no limit
    else if (v.is_number() && v.get<double>() > 0) s.run.timeLimit = v.get<double>();
    else bad.push_back("timeLimit must be a positive number of seconds (0: no limit)");
  }
  for (auto [key, field] : {std::pair{"fenceStyle", &s.run.fenceStyle}, std::pair{"compileCommandsDir", &s.run.compileCommandsDir}}) {
    if (!j.contains(key)) continue;
    if (j[key].is_string() && std::string(key) == "fenceStyle" && !fenceText(j[key].get<std::string>()))
      bad.push_back("fenceStyle must be \"seq_cst\", \"sync\" or \"mfence\" (ignored)");
    else if (j[key].is_string()) *field = j[key].get<std::string>();
    else if (j[key].is_null()) field->clear();
    else bad.push_back(std::string(key) + " must be a string");
  }
  if (j.contains("robustness")) {
    const json& v = j["robustness"];
    if (v.is_boolean()) s.run.robustness = v.get<bool>();
    else if (v.is_null()) s.run.robustness = false;
    else bad.push_back("robustness must be true or false");
  }
  if (j.contains("deadlocks")) {
    const json& v = j["deadlocks"];
    std::optional<DeadlockMode> m = v.is_string() ? parseDeadlockMode(v.get<std::string>()) : std::nullopt;
    if (v.is_null()) s.run.deadlocks.reset();
    else if (m) s.run.deadlocks = m;
    else bad.push_back("deadlocks must be \"error\", \"warning\" or \"ignore\"");
  }
  if (j.contains("nondetRange")) {
    const json& v = j["nondetRange"];
    auto r = v.is_string() ? parseNondetRange(v.get<std::string>()) : std::nullopt;
    if (v.is_null()) s.run.nondetRange.reset();
    else if (r) s.run.nondetRange = r;
    else bad.push_back(std::string("nondetRange must be a string ") + kNondetRangeHelp);
  }
  if (j.contains("checkOn")) {
    const json& v = j["checkOn"];
    if (v == "change") s.checkOnSave = false;
    else if (v == "save") s.checkOnSave = true;
    else bad.push_back("checkOn must be \"change\" or \"save\"");
  }
  return bad;
}

std::string outcomeSettings(const Settings& s) {
  json j = {{"fenceStyle", s.run.fenceStyle}, {"compileCommandsDir", s.run.compileCommandsDir},
            {"steps", s.run.limits.maxSteps}, {"robustness", s.run.robustness},
            {"memoryLimit", s.run.memoryLimitMiB.value_or(kDefaultMemoryLimitMiB)},
            {"nondetRange", s.run.nondetRange ? json::array({s.run.nondetRange->first, s.run.nondetRange->second})
                                              : json(nullptr)},
            {"deadlocks", s.run.deadlocks ? deadlockModeName(*s.run.deadlocks) : ""}};
  return dumpJson(j);
}

}  // namespace tsocheck::lsp

#include "service/check_options.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "service/fence_fix.h"

namespace tsocheck {

std::optional<DeadlockMode> parseDeadlockMode(const std::string& s) {
  if (s == "error") return DeadlockMode::Error;
  if (s == "warning") return DeadlockMode::Warning;
  if (s == "ignore") return DeadlockMode::Ignore;
  return std::nullopt;
}

namespace {

std::optional<int64_t> parseCount(const std::string& v, int64_t max) {
  if (v.empty() || v.size() > 19 || !std::isdigit(static_cast<unsigned char>(v[0]))) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (*end != 0 || errno == ERANGE || n > max) return std::nullopt;
  return int64_t(n);
}

std::optional<bool> parseSwitch(const std::string& v) {
  if (v == "true" || v == "1" || v == "on") return true;
  if (v == "false" || v == "0" || v == "off") return false;
  return std::nullopt;
}

// Each option's `store`: parse the text form, set the field(s).
template <auto Field>
bool storeSwitch(const OptionSpec&, OptionValues& v, const std::string& t) {
  auto b = parseSwitch(t);
  if (b) v.*Field = *b;
  return b.has_value();
}

template <auto Field, auto From>
bool storeRange(const OptionSpec& o, OptionValues& v, const std::string& t) {
  auto r = parseBoundRange(t);
  if (!r || r->second > o.max) return false;
  v.*Field = r->second;
  v.*From = t.find("..") != std::string::npos ? std::optional<int>(r->first) : std::nullopt;
  return true;
}

template <auto Field, class T>
bool storeCount(const OptionSpec& o, OptionValues& v, const std::string& t) {
  auto n = parseCount(t, o.max);
  if (n) v.*Field = T(*n);
  return n.has_value();
}

// A value one of the parse* functions reads.
template <auto Field, auto Parse>
bool storeParsed(const OptionSpec&, OptionValues& v, const std::string& t) {
  auto x = Parse(t);
  if (x) v.*Field = x;
  return x.has_value();
}

template <auto Field>
bool storePath(const OptionSpec&, OptionValues& v, const std::string& t) {
  v.*Field = t;
  return true;
}

bool storeWith(const OptionSpec&, OptionValues& v, const std::string& t) {
  if (t.empty()) return false;
  if (!v.with) v.with.emplace();
  v.with->push_back(t);
  return true;
}

template <auto Field>
bool storeSeconds(const OptionSpec&, OptionValues& v, const std::string& t) {
  char* end = nullptr;
  double d = t.empty() ? -1 : std::strtod(t.c_str(), &end);
  if (t.empty() || *end != 0 || !std::isfinite(d) || d < 0) return false;
  v.*Field = d;
  return true;
}

bool storeMiB(const OptionSpec& o, OptionValues& v, const std::string& t) {
  auto n = parseCount(t, o.max);
  if (!n || *n < 16) return false;
  v.memoryLimitMiB = uint64_t(*n);
  return true;
}

bool storeFenceStyle(const OptionSpec&, OptionValues& v, const std::string& t) {
  if (!fenceText(t)) return false;
  v.fenceStyle = t;
  return true;
}

bool storeAbort(const OptionSpec&, OptionValues& v, const std::string& t) {
  if (t != "error" && t != "end") return false;
  v.abortEnds = t == "end";
  return true;
}

template <auto... Fields>
void clearFields(OptionValues& v) {
  ((v.*Fields).reset(), ...);
}

using V = OptionValues;
constexpr int64_t kMaxBound = 1000000;

const std::vector<OptionSpec> kSchema = {
    {"model", "model", "--model", nullptr, ValueKind::Choice, modelChoices(), 0, storeParsed<&V::model, parseModel>, clearFields<&V::model>},
    {"bufferBound", "buffer_bound", "--buffer-bound", nullptr, ValueKind::Range, nullptr, kMaxBound,
     storeRange<&V::bufferBound, &V::bufferBoundFrom>, clearFields<&V::bufferBound, &V::bufferBoundFrom>},
    {"stateful", "stateful", "--stateful", nullptr, ValueKind::Switch, nullptr, 0, storeSwitch<&V::stateful>,
     clearFields<&V::stateful>},
    {"robustness", "robustness", "--robustness", nullptr, ValueKind::Switch, nullptr, 0, storeSwitch<&V::robustness>,
     clearFields<&V::robustness>},
    {"preemptionBound", "preemption_bound", "--preemption-bound", nullptr, ValueKind::Range, nullptr, kMaxBound,
     storeRange<&V::preemptionBound, &V::preemptionFrom>, clearFields<&V::preemptionBound, &V::preemptionFrom>},
    {"loopBound", "loop_bound", "--loop-bound", nullptr, ValueKind::Count, nullptr, kMaxBound,
     storeCount<&V::loopBound, uint32_t>, clearFields<&V::loopBound>},
    {"stepLimit", nullptr, "--step-limit", nullptr, ValueKind::Count, nullptr, int64_t(1) << 40,
     storeCount<&V::stepLimit, uint64_t>, clearFields<&V::stepLimit>},
    {"timeLimit", "time_limit", "--time-limit", nullptr, ValueKind::Seconds, nullptr, 0, storeSeconds<&V::timeLimit>,
     clearFields<&V::timeLimit>},
    {"fenceTimeLimit", "fence_time_limit", "--fence-time-limit", nullptr, ValueKind::Seconds, nullptr, 0,
     storeSeconds<&V::fenceTimeLimit>, clearFields<&V::fenceTimeLimit>},
    {"jobs", "jobs", "--jobs", nullptr, ValueKind::Count, nullptr, 256, storeCount<&V::jobs, uint32_t>,
     clearFields<&V::jobs>},
    {"memoryLimit", "memory_limit", "--memory-limit", nullptr, ValueKind::MiB, nullptr, int64_t(1) << 22, storeMiB,
     clearFields<&V::memoryLimitMiB>},
    {"fences", "fences", "--fences", "--no-fences", ValueKind::Switch, nullptr, 0, storeSwitch<&V::fences>,
     clearFields<&V::fences>},
    {"raceCheck", "races", "--race-check", "--no-race-check", ValueKind::Switch, nullptr, 0,
     storeSwitch<&V::raceCheck>, clearFields<&V::raceCheck>},
    {"exitEndsProgram", "exit_ends_program", "--exit-ends-program", "--no-exit-ends-program", ValueKind::Switch,
     nullptr, 0, storeSwitch<&V::exitEndsProgram>, clearFields<&V::exitEndsProgram>},
    {"spuriousWakeups", "spurious_wakeups", "--spurious-wakeups", "--no-spurious-wakeups", ValueKind::Switch,
     nullptr, 0, storeSwitch<&V::spuriousWakeups>, clearFields<&V::spuriousWakeups>},
    {"fenceStyle", nullptr, "--fence-style", nullptr, ValueKind::Choice, "seq_cst|sync|mfence", 0,
     storeFenceStyle, clearFields<&V::fenceStyle>},
    {"deadlocks", "deadlocks", "--deadlocks", nullptr, ValueKind::Choice, "error|warning|ignore", 0, storeParsed<&V::deadlocks, parseDeadlockMode>,
     clearFields<&V::deadlocks>},
    {"abort", "abort", "--abort", nullptr, ValueKind::Choice, "error|end", 0, storeAbort, clearFields<&V::abortEnds>},
    {"nondetRange", "nondet", "--nondet-range", nullptr, ValueKind::NondetRange, nullptr, 0, storeParsed<&V::nondetRange, parseNondetRange>,
     clearFields<&V::nondetRange>},
    {"keepGoing", nullptr, "--keep-going", nullptr, ValueKind::Switch, nullptr, 0, storeSwitch<&V::keepGoing>,
     clearFields<&V::keepGoing>},
    {"keepBound", nullptr, "--keep-bound", nullptr, ValueKind::Switch, nullptr, 0, storeSwitch<&V::keepBound>,
     clearFields<&V::keepBound>},
    {"exploreOrder", nullptr, "--explore-order", nullptr, ValueKind::Choice, "forward|revisits-first|stale-first", 0,
     storeParsed<&V::exploreOrder, parseExploreOrder>, clearFields<&V::exploreOrder>},
    {"main", nullptr, "--main", nullptr, ValueKind::Switch, nullptr, 0, storeSwitch<&V::mainHarness>,
     clearFields<&V::mainHarness>},
    {"compileCommandsDir", nullptr, "--compile-commands-dir", nullptr, ValueKind::Path, nullptr, 0,
     storePath<&V::compileCommandsDir>, clearFields<&V::compileCommandsDir>},
    {"with", "with", "--with", nullptr, ValueKind::File, nullptr, 0, storeWith, clearFields<&V::with>},
};

bool jsonDoor(Door d) { return d == Door::Settings || d == Door::Launch; }

// What a good value looks like, as the error message says it.
std::string syntax(const OptionSpec& o, Door door) {
  const bool q = jsonDoor(door);
  switch (o.kind) {
    case ValueKind::Choice: return choiceList(o.choices, q);
    case ValueKind::Range:
      return q ? "a non-negative integer or \"A..B\" (A <= B, at most " + std::to_string(o.max) + ")"
               : "K or A..K (non-negative integers, A <= K, at most " + std::to_string(o.max) + ")";
    case ValueKind::Count: return "a non-negative integer (at most " + std::to_string(o.max) + ")";
    case ValueKind::Seconds: return "a number of seconds (0: no limit)";
    case ValueKind::MiB: return "a number of MiB between 16 and " + std::to_string(o.max);
    case ValueKind::Switch: return "true or false";
    case ValueKind::NondetRange:
      return std::string(q ? "\"A..B\"" : "A..B") + " with integers A <= B (at most 65,536 values), e.g. -1..1";
    case ValueKind::Path: return q ? "a string (a directory)" : "a directory";
    case ValueKind::File: return q ? "a string (a C file)" : "a C file";
  }
  return "";
}

}  // namespace

std::vector<std::string> choicesOf(const char* choices) {
  std::vector<std::string> cs;
  std::stringstream in(choices);
  for (std::string c; std::getline(in, c, '|');) cs.push_back(c);
  return cs;
}

std::string choiceList(const char* choices, bool quoted) {
  std::vector<std::string> cs = choicesOf(choices);
  if (quoted)
    for (std::string& c : cs) c = "\"" + c + "\"";
  std::string out;
  for (size_t i = 0; i < cs.size(); ++i) out += (i == 0 ? "" : i + 1 == cs.size() ? " or " : ", ") + cs[i];
  return out;
}

const std::vector<OptionSpec>& checkOptionSchema() { return kSchema; }

const char* optionName(const OptionSpec& o, Door door) {
  switch (door) {
    case Door::CommandLine: return o.flag;
    case Door::Annotation: return o.annotation;
    case Door::Settings:
    case Door::Launch: return o.key;
  }
  return nullptr;
}

bool isSwitch(const OptionSpec& o) { return o.kind == ValueKind::Switch; }

bool isEditorSetting(const OptionSpec& o) { return o.kind != ValueKind::File; }

nlohmann::json optionSchemaJson() {
  static const char* kinds[] = {"choice", "range", "count", "seconds", "mib", "switch", "nondet-range", "path", "file"};
  auto name = [](const char* n) { return n ? nlohmann::json(n) : nlohmann::json(nullptr); };
  nlohmann::json out = nlohmann::json::array();
  for (const OptionSpec& o : checkOptionSchema()) {
    const nlohmann::json choices = o.kind == ValueKind::Choice ? nlohmann::json(choicesOf(o.choices)) : nullptr;
    out.push_back({{"key", o.key},
                   {"annotation", name(o.annotation)},
                   {"flag", name(o.flag)},
                   {"negation", name(o.negation)},
                   {"kind", kinds[size_t(o.kind)]},
                   {"choices", choices},
                   {"editor_setting", isEditorSetting(o)}});
  }
  return out;
}

const OptionSpec* findOption(Door door, const std::string& name, bool* negated) {
  std::string n = name;
  if (door == Door::Annotation) std::replace(n.begin(), n.end(), '-', '_');
  if (negated) *negated = false;
  for (const OptionSpec& o : kSchema) {
    const char* mine = optionName(o, door);
    if (mine && n == mine) return &o;
    if (door == Door::CommandLine && o.negation && n == o.negation) {
      if (negated) *negated = true;
      return &o;
    }
  }
  return nullptr;
}

std::string setOption(const OptionSpec& o, Door door, const std::string& text, OptionValues& v) {
  if (o.store(o, v, text)) return "";
  const char* name = optionName(o, door);
  return std::string(name ? name : o.key) + " must be " + syntax(o, door) + ", got `" + text + "`";
}

std::string setOption(const OptionSpec& o, Door door, const nlohmann::json& value, OptionValues& v) {
  // A setting put back to its default: editors write null, "" (an empty
  // path: search upward) or "default" (the model's "from annotation /
  // default" choice). No option has "" or "default" as a value.
  if (value.is_null() || value == "" || value == "default") {
    o.clear(v);
    return "";
  }
  std::string text;
  if (value.is_string()) text = value.get<std::string>();
  else if (value.is_boolean()) text = value.get<bool>() ? "true" : "false";
  else if (value.is_number_integer()) text = value.dump();
  else if (value.is_number_float() && o.kind == ValueKind::Seconds) text = value.dump();
  // A boolean is a switch's only JSON form, a string never a number's.
  const bool typeOk = !text.empty() && (value.is_boolean() == (o.kind == ValueKind::Switch)) &&
                      !(value.is_string() && (o.kind == ValueKind::Count || o.kind == ValueKind::Seconds ||
                                              o.kind == ValueKind::MiB));
  if (typeOk && o.store(o, v, text)) return "";
  return std::string(o.key) + " must be " + syntax(o, door) + ", got " + value.dump();
}

std::optional<std::pair<int, int>> parseBoundRange(const std::string& s) {
  auto dots = s.find("..");
  if (dots == std::string::npos) {
    auto n = parseCount(s, kMaxBound);
    if (!n) return std::nullopt;
    return std::make_pair(int(*n), int(*n));
  }
  auto a = parseCount(s.substr(0, dots), kMaxBound), b = parseCount(s.substr(dots + 2), kMaxBound);
  if (!a || !b || *a > *b) return std::nullopt;
  return std::make_pair(int(*a), int(*b));
}

std::optional<std::pair<int64_t, int64_t>> parseNondetRange(const std::string& s) {
  auto num = [](const std::string& v) -> std::optional<int64_t> {
    if (v.empty() || v.size() > 20) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    if (*end != 0 || errno == ERANGE || std::isspace(static_cast<unsigned char>(v[0]))) return std::nullopt;
    return int64_t(n);
  };
  auto dots = s.find("..");
  auto a = num(dots == std::string::npos ? s : s.substr(0, dots));
  auto b = dots == std::string::npos ? a : num(s.substr(dots + 2));
  if (!a || !b || *a > *b) return std::nullopt;
  if (__int128(*b) - __int128(*a) + 1 > kMaxNondetValues) return std::nullopt;
  return std::make_pair(*a, *b);
}

nlohmann::json optionsJson(const OptionValues& v) {
  nlohmann::json j = nlohmann::json::object();
  auto put = [&](const char* key, const auto& field) {
    if (field) j[key] = *field;
  };
  if (v.model) j["model"] = modelName(*v.model);
  put("bufferBound", v.bufferBound);
  put("bufferBoundFrom", v.bufferBoundFrom);
  put("stateful", v.stateful);
  put("robustness", v.robustness);
  put("preemptionBound", v.preemptionBound);
  put("preemptionFrom", v.preemptionFrom);
  put("loopBound", v.loopBound);
  put("stepLimit", v.stepLimit);
  put("timeLimit", v.timeLimit);
  put("fenceTimeLimit", v.fenceTimeLimit);
  put("memoryLimit", v.memoryLimitMiB);
  put("jobs", v.jobs);
  put("fences", v.fences);
  put("fenceStyle", v.fenceStyle);
  if (v.deadlocks) j["deadlocks"] = deadlockModeName(*v.deadlocks);
  put("raceCheck", v.raceCheck);
  put("exitEndsProgram", v.exitEndsProgram);
  put("abortEnds", v.abortEnds);
  put("spuriousWakeups", v.spuriousWakeups);
  if (v.nondetRange) j["nondetRange"] = {v.nondetRange->first, v.nondetRange->second};
  put("keepGoing", v.keepGoing);
  put("keepBound", v.keepBound);
  if (v.exploreOrder) j["exploreOrder"] = exploreOrderName(*v.exploreOrder);
  put("main", v.mainHarness);
  put("compileCommandsDir", v.compileCommandsDir);
  put("with", v.with);
  return j;
}

AnnotationOptions parseAnnotation(const std::string& text) {
  AnnotationOptions o;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    const auto eq = word.find('=');
    const std::string key = word.substr(0, eq);
    const OptionSpec* spec = findOption(Door::Annotation, key);
    if (eq == std::string::npos && !(spec && isSwitch(*spec))) {
      o.errors.push_back("expected key=value, got `" + word + "`");
      continue;
    }
    if (!spec) {
      o.errors.push_back("unknown option `" + key + "`");
      continue;
    }
    std::string err = setOption(*spec, Door::Annotation, eq == std::string::npos ? "true" : word.substr(eq + 1), o);
    if (!err.empty()) o.errors.push_back(err);
  }
  return o;
}

}  // namespace tsocheck

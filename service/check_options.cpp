#include "service/check_options.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace tsocheck {

std::optional<Model> parseModel(const std::string& s) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (l == "sc") return Model::SC;
  if (l == "tso") return Model::TSO;
  if (l == "pso") return Model::PSO;
  return std::nullopt;
}

std::optional<DeadlockMode> parseDeadlockMode(const std::string& s) {
  if (s == "error") return DeadlockMode::Error;
  if (s == "warning") return DeadlockMode::Warning;
  if (s == "ignore") return DeadlockMode::Ignore;
  return std::nullopt;
}

namespace {
std::optional<long> parseInt(const std::string& v) {
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (*end != 0 || n < 0) return std::nullopt;
  return n;
}
}  // namespace

std::optional<std::pair<int, int>> parseBoundRange(const std::string& s) {
  auto dots = s.find("..");
  if (dots == std::string::npos) {
    auto n = parseInt(s);
    if (!n || *n > 1000000) return std::nullopt;
    return std::make_pair(int(*n), int(*n));
  }
  auto a = parseInt(s.substr(0, dots)), b = parseInt(s.substr(dots + 2));
  if (!a || !b || *a > *b || *b > 1000000) return std::nullopt;
  return std::make_pair(int(*a), int(*b));
}

const char* const kNondetRangeHelp = "A..B with integers A <= B (at most 65,536 values), e.g. -1..1";

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

AnnotationOptions parseAnnotation(const std::string& text) {
  AnnotationOptions o;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    auto eq = word.find('=');
    if (word == "stateful" || word == "robustness") {
      (word == "stateful" ? o.stateful : o.robustness) = true;
      continue;
    }
    if (eq == std::string::npos) {
      o.errors.push_back("expected key=value, got `" + word + "`");
      continue;
    }
    std::string key = word.substr(0, eq), val = word.substr(eq + 1);
    std::replace(key.begin(), key.end(), '-', '_');
    if (key == "model") {
      if (auto m = parseModel(val)) o.model = *m;
      else o.errors.push_back("model must be sc, tso or pso, got `" + val + "`");
    } else if (key == "buffer_bound" && val.find("..") != std::string::npos) {
      auto r = parseBoundRange(val);
      if (!r) {
        o.errors.push_back("buffer_bound must be K or A..K with A <= K, got `" + val + "`");
        continue;
      }
      o.bufferBoundFrom = r->first;
      o.bufferBound = r->second;
    } else if (key == "stateful" || key == "robustness") {
      bool& flag = key == "stateful" ? o.stateful : o.robustness;
      if (val == "1" || val == "true") flag = true;
      else if (val == "0" || val == "false") flag = false;
      else o.errors.push_back(key + " must be true or false, got `" + val + "`");
    } else if (key == "preemption_bound") {
      auto r = parseBoundRange(val);
      if (!r) {
        o.errors.push_back("preemption_bound must be P or A..B (non-negative integers, A <= B), got `" + val + "`");
        continue;
      }
      o.preemptionBound = r->second;
      if (val.find("..") != std::string::npos) o.preemptionFrom = r->first;
    } else if (key == "buffer_bound" || key == "loop_bound") {
      auto n = parseInt(val);
      if (!n) {
        o.errors.push_back(key + " must be a non-negative integer, got `" + val + "`");
        continue;
      }
      if (key == "buffer_bound") o.bufferBound = int(*n);
      else o.loopBound = uint32_t(*n);
    } else if (key == "time_limit") {
      char* end = nullptr;
      double d = std::strtod(val.c_str(), &end);
      if (*end != 0 || d < 0) o.errors.push_back("time_limit must be a number of seconds, got `" + val + "`");
      else o.timeLimit = d;
    } else if (key == "memory_limit") {
      auto n = parseInt(val);
      if (!n || *n < 16 || *n > (1L << 22)) o.errors.push_back("memory_limit must be a number of MiB between 16 and 4194304, got `" + val + "`");
      else o.memoryLimitMiB = uint64_t(*n);
    } else if (key == "fences") {
      if (val == "on") o.fences = true;
      else if (val == "off") o.fences = false;
      else o.errors.push_back("fences must be on or off, got `" + val + "`");
    } else if (key == "abort") {
      if (val == "error") o.abortEnds = false;
      else if (val == "end") o.abortEnds = true;
      else o.errors.push_back("abort must be error or end, got `" + val + "`");
    } else if (key == "nondet") {
      if (auto r = parseNondetRange(val)) o.nondetRange = *r;
      else o.errors.push_back(std::string("nondet must be ") + kNondetRangeHelp + ", got `" + val + "`");
    } else if (key == "deadlocks") {
      if (auto m = parseDeadlockMode(val)) o.deadlocks = *m;
      else o.errors.push_back("deadlocks must be error, warning or ignore, got `" + val + "`");
    } else {
      o.errors.push_back("unknown option `" + key + "`");
    }
  }
  return o;
}

}  // namespace tsocheck

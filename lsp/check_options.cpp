#include "lsp/check_options.h"

#include <algorithm>
#include <cctype>
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

namespace {
std::optional<long> parseInt(const std::string& v) {
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (*end != 0 || n < 0) return std::nullopt;
  return n;
}
}  // namespace

bool parseBoundRange(const std::string& s, int* from, int* to) {
  const auto dots = s.find("..");
  auto a = parseInt(s.substr(0, dots));
  auto b = dots == std::string::npos ? a : parseInt(s.substr(dots + 2));
  if (!a || !b || *a > *b || *b > 1000000) return false;
  *from = int(*a);
  *to = int(*b);
  return true;
}

AnnotationOptions parseAnnotation(const std::string& text) {
  AnnotationOptions o;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    auto eq = word.find('=');
    if (eq == std::string::npos) {
      o.errors.push_back("expected key=value, got `" + word + "`");
      continue;
    }
    std::string key = word.substr(0, eq), val = word.substr(eq + 1);
    std::replace(key.begin(), key.end(), '-', '_');
    if (key == "model") {
      if (auto m = parseModel(val)) o.model = *m;
      else o.errors.push_back("model must be sc, tso or pso, got `" + val + "`");
    } else if (key == "preemption_bound") {
      int from = 0, to = 0;
      if (!parseBoundRange(val, &from, &to)) {
        o.errors.push_back("preemption_bound must be P or A..B (non-negative integers, A <= B), got `" + val + "`");
        continue;
      }
      o.preemptionBound = to;
      if (val.find("..") != std::string::npos) o.preemptionFrom = from;
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
    } else {
      o.errors.push_back("unknown option `" + key + "`");
    }
  }
  return o;
}

}  // namespace tsocheck

#include "engine/memory_model.h"

#include <string>

#include "engine/graph.h"

namespace tsocheck {

const char* modelName(Model m) {
  switch (m) {
    case Model::SC: return "SC";
    case Model::TSO: return "TSO";
    case Model::PSO: return "PSO";
  }
  return "?";
}

std::optional<Model> parseModel(std::string_view s) {
  for (Model m : kModels) {
    std::string_view name = modelName(m);
    bool same = s.size() == name.size();
    for (size_t i = 0; same && i < s.size(); ++i)
      same = (s[i] >= 'a' && s[i] <= 'z' ? char(s[i] - 'a' + 'A') : s[i]) == name[i];
    if (same) return m;
  }
  return std::nullopt;
}

const char* modelChoices() {
  static const std::string choices = [] {
    std::string s;
    for (Model m : kModels) {
      if (!s.empty()) s += '|';
      for (const char* c = modelName(m); *c; ++c) s += char(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    }
    return s;
  }();
  return choices.c_str();
}

bool MemoryModel::drainsBuffer(const Event& e) {
  switch (e.kind) {
    case EvKind::Rmw:
    case EvKind::Lock:
    case EvKind::TryLock:
    case EvKind::Unlock:
    case EvKind::Spawn:
    case EvKind::Free:
    case EvKind::Exit:
      return true;
    case EvKind::Fence:
      return e.fence == FenceKind::Full;
    default:
      return false;
  }
}

}  // namespace tsocheck

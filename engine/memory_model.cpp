#include "engine/memory_model.h"

#include <string>

#include "engine/graph.h"
#include "engine/interp.h"

namespace tsocheck {

const char* modelName(Model m) {
  switch (m) {
    case Model::SC: return "SC";
    case Model::TSO: return "TSO";
    case Model::PSO: return "PSO";
    case Model::RC11: return "RC11";
  }
  return "?";
}

const char* memOrderName(MemOrder o) {
  switch (o) {
    case MemOrder::Relaxed: return "relaxed";
    case MemOrder::Acquire: return "acquire";
    case MemOrder::Release: return "release";
    case MemOrder::AcqRel: return "acq_rel";
    case MemOrder::SeqCst: return "seq_cst";
    case MemOrder::NonAtomic: return "non-atomic";
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

namespace {

// The rule, on the kind of event a step records (and its fence kind).
bool drains(EvKind k, FenceKind fence) {
  switch (k) {
    case EvKind::Rmw:
    case EvKind::Lock:
    case EvKind::TryLock:
    case EvKind::Unlock:
    case EvKind::Spawn:
    case EvKind::Free:
    case EvKind::Exit:
      return true;
    case EvKind::Fence:
      return fence == FenceKind::Full;
    default:
      return false;
  }
}

// The event a thread's pending action becomes in the graph explorer
// (Explorer::visit), or none for an action that adds no event (an error, a
// limit, a blocked thread, entering an atomic section).
std::optional<EvKind> eventOf(ActionKind k) {
  switch (k) {
    case ActionKind::Load: return EvKind::Load;
    case ActionKind::Store: return EvKind::Store;
    case ActionKind::Rmw: return EvKind::Rmw;
    case ActionKind::Fence: return EvKind::Fence;
    case ActionKind::Spawn: return EvKind::Spawn;
    case ActionKind::Join: return EvKind::Join;
    case ActionKind::Exit: return EvKind::Exit;
    case ActionKind::Lock: return EvKind::Lock;
    case ActionKind::TryLock: return EvKind::TryLock;
    case ActionKind::Unlock: return EvKind::Unlock;
    case ActionKind::Free: return EvKind::Free;
    case ActionKind::BlockSize: return EvKind::Query;
    case ActionKind::Choice: return EvKind::Choice;
    case ActionKind::Error:
    case ActionKind::Blocked:
    case ActionKind::Limit:
    case ActionKind::AtomicBegin: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

bool MemoryModel::drainsBuffer(const Event& e) { return drains(e.kind, e.fence); }

bool MemoryModel::drainsBuffer(const Action& a) {
  const std::optional<EvKind> k = eventOf(a.kind);
  return k && drains(*k, a.fence);
}

}  // namespace tsocheck

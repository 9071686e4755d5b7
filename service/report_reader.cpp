#include "service/report_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "engine/memory_model.h"
#include "service/report_json.h"
#include "service/wording.h"

namespace tsocheck {

using nlohmann::json;

const Function* stepFunction(const Program* prog, const TraceStep& s) {
  return prog && s.function < prog->functions.size() ? &prog->functions[s.function] : nullptr;
}

std::optional<std::string> spawnsFunction(const Program* prog, const TraceStep& s) {
  const Function* fn = stepFunction(prog, s);
  if (!fn || s.kind != StepKind::Spawn || s.pc >= fn->code.size() || fn->code[s.pc].op != Op::Spawn) return std::nullopt;
  const int64_t target = fn->code[s.pc].imm;
  if (target < 0 || size_t(target) >= prog->functions.size()) return std::nullopt;
  return prog->functions[size_t(target)].name;
}

std::string fileIn(const Program* prog, const SourceLoc& l) { return prog ? fileOf(*prog, l) : std::string(); }

std::string valueText(const TraceStep& s) { return s.hasValue ? std::to_string(s.value) : "?"; }

std::string stepLabel(const TraceStep& s) {
  const std::string ev = stepKindName(s.kind), addr = s.hasAddr ? s.addrName : std::string();
  std::string head;
  if (ev == "store") head = "store " + addr + " = " + valueText(s) + " (buffered)";
  else if (ev == "flush") head = "flush " + addr + " = " + valueText(s) + " to memory";
  else if (ev == "load-memory") head = "load " + addr + " → " + valueText(s) + " (memory)";
  else if (ev == "load-buffer") head = "load " + addr + " → " + valueText(s) + " (own buffer)";
  else {
    head = ev;
    if (!addr.empty()) head += " " + addr;
    if (s.hasValue) head += " " + valueText(s);
    if (!s.note.empty()) head += " (" + s.note + ")";
  }
  return "step " + std::to_string(s.step) + " · T" + std::to_string(s.thread) + " · " + head;
}

std::vector<KnownMemory> knownMemory(const std::vector<TraceStep>& trace, Model model) {
  const bool buffered = MemoryModel{model}.hasStoreBuffers();
  std::vector<KnownMemory> out;
  KnownMemory memory;
  for (const TraceStep& s : trace) {
    const bool writes = s.kind == StepKind::Flush || s.kind == StepKind::LoadMem || s.kind == StepKind::Rmw ||
                        (s.kind == StepKind::Store && !buffered);
    if (s.hasAddr && !s.addrName.empty() && s.hasValue && writes) memory[s.addrName] = s.value;
    out.push_back(memory);
  }
  return out;
}

json payloadStep(const Program& prog, const TraceStep& s, const KnownMemory& memory) {
  json j = traceStepJson(prog, s);
  j["memory"] = json::object();
  for (const auto& [a, v] : memory) j["memory"][a] = v;
  return j;
}

json tracePayload(const CheckReport& check) {
  json out = checkJson(check);
  if (!check.result.violation || !check.program) return out;
  const std::vector<TraceStep>& trace = check.result.violation->trace;
  const std::vector<KnownMemory> memory = knownMemory(trace, check.model);
  json steps = json::array();
  for (size_t i = 0; i < trace.size(); ++i) steps.push_back(payloadStep(*check.program, trace[i], memory[i]));
  json v = violationJson(*check.program, *check.result.violation, false);
  v["trace"] = std::move(steps);
  out["violation"] = std::move(v);
  return out;
}

namespace {

// "TSO", "SC and TSO": the models of the checks in state `st`.
std::string modelsOf(const std::vector<CheckReport>& checks, Status st) {
  std::vector<std::string> ms;
  for (const CheckReport& c : checks)
    if (c.result.status == st && std::find(ms.begin(), ms.end(), modelName(c.model)) == ms.end())
      ms.push_back(modelName(c.model));
  std::string out;
  for (size_t i = 0; i < ms.size(); ++i) out += (i == 0 ? "" : i + 1 == ms.size() ? " and " : ", ") + ms[i];
  return out;
}

// The input message without the path it starts with.
std::string withoutPath(const FileReport& input) {
  const std::string& m = input.inputMessage;
  if (!input.file.empty() && m.rfind(input.file + ": ", 0) == 0) return m.substr(input.file.size() + 2);
  return m;
}

}  // namespace

FileStatus checkingStatus(uint64_t executions) { return {"checking", "checking… " + countText(executions, "execution")}; }

FileStatus fileStatus(const FileReport& input, const std::vector<CheckReport>& checks) {
  if (checks.empty()) {
    if (!input.inputError) return {"unchecked", "not checked yet"};
    const std::string why = withoutPath(input);
    if (why.rfind("no check function", 0) == 0) return {"unchecked", why};
    for (const frontend::Diagnostic& d : input.diagnostics)
      if (d.severity == "error" && d.message.rfind("no check function", 0) != 0) {
        std::string where;
        if (d.line) {
          const std::string name = std::filesystem::path(d.file).filename().string();
          where = " (" + (d.file.empty() || d.file == input.file ? std::string("line ") : name + ":") +
                  std::to_string(d.line) + ")";
        }
        return {"input-error", "does not compile: " + d.message + where};
      }
    return {"input-error", "cannot be checked: " + why};
  }
  size_t n[5] = {0, 0, 0, 0, 0};
  const CheckReport* first[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
  for (const CheckReport& c : checks) {
    const size_t i = size_t(c.result.status);
    if (i >= 5) continue;
    if (!first[i]) first[i] = &c;
    ++n[i];
  }
  // Which check the text is about, when the file has several.
  auto who = [&](const CheckReport& c) { return checks.size() > 1 ? "`" + c.function + "`: " : std::string(); };
  auto more = [&](Status st) {
    const size_t k = n[size_t(st)];
    return k > 1 ? " (and " + std::to_string(k - 1) + " more)" : std::string();
  };
  if (n[size_t(Status::Violation)]) {
    const size_t k = n[size_t(Status::Violation)];
    return {"violation", countText(k, "violation") + " under " + modelsOf(checks, Status::Violation)};
  }
  if (const CheckReport* c = first[size_t(Status::Timeout)])
    return {"timeout", std::string("timed out under ") + modelName(c->model) + ": " + who(*c) +
                           "no violation found so far" + more(Status::Timeout)};
  if (const CheckReport* c = first[size_t(Status::Error)])
    return {"unchecked", "not checked: " + who(*c) + c->result.message + more(Status::Error)};
  if (const CheckReport* c = first[size_t(Status::Bounded)])
    return {"bounded", std::string("bounded under ") + modelName(c->model) + ": " + who(*c) + c->result.message +
                           more(Status::Bounded)};
  const std::string all = checks.size() > 1 ? "all " + std::to_string(checks.size()) + " checks " : std::string();
  return {"verified", all + "verified under " + modelsOf(checks, Status::Verified)};
}

nlohmann::json fileStatusJson(const FileStatus& s) { return {{"state", s.state}, {"text", s.text}}; }

}  // namespace tsocheck

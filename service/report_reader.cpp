#include "service/report_reader.h"

#include <map>

#include "engine/memory_model.h"
#include "service/report_json.h"

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

}  // namespace tsocheck

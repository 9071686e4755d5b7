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

json tracePayload(const CheckReport& check) {
  json out = checkJson(check);
  if (!out["violation"].is_object() || !check.result.violation) return out;
  const std::vector<TraceStep>& steps = check.result.violation->trace;
  const bool buffered = MemoryModel{check.model}.hasStoreBuffers();
  std::map<std::string, json> memory;
  json& trace = out["violation"]["trace"];
  for (size_t i = 0; i < steps.size() && i < trace.size(); ++i) {
    const TraceStep& s = steps[i];
    // Memory is known where the trace shows it: a flush writes it, a load from
    // memory reads it, an RMW leaves its value there; without store buffers a
    // store writes memory at once.
    const bool writes = s.kind == StepKind::Flush || s.kind == StepKind::LoadMem || s.kind == StepKind::Rmw ||
                        (s.kind == StepKind::Store && !buffered);
    if (s.hasAddr && !s.addrName.empty() && s.hasValue && writes) memory[s.addrName] = s.value;
    json mem = json::object();
    for (const auto& [a, v] : memory) mem[a] = v;
    trace[i]["memory"] = mem;
  }
  return out;
}

}  // namespace tsocheck

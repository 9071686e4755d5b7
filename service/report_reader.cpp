#include "service/report_reader.h"

#include <map>

#include "engine/memory_model.h"
#include "jsonrpc/json_text.h"

namespace tsocheck {

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

uint32_t num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() && it->get<int64_t>() >= 0 ? it->get<uint32_t>() : 0;
}

const json& member(const json& j, const char* key) {
  static const json none;
  if (!j.is_object()) return none;
  auto it = j.find(key);
  return it != j.end() ? *it : none;
}

std::string valueText(const json& v) { return v.is_null() ? "?" : dumpJson(v); }

std::string stepLabel(const json& s) {
  std::string ev = str(s, "event"), addr = str(s, "address");
  std::string head;
  if (ev == "store") head = "store " + addr + " = " + valueText(member(s, "value")) + " (buffered)";
  else if (ev == "flush") head = "flush " + addr + " = " + valueText(member(s, "value")) + " to memory";
  else if (ev == "load-memory") head = "load " + addr + " → " + valueText(member(s, "value")) + " (memory)";
  else if (ev == "load-buffer") head = "load " + addr + " → " + valueText(member(s, "value")) + " (own buffer)";
  else {
    head = ev;
    if (!addr.empty()) head += " " + addr;
    if (!member(s, "value").is_null()) head += " " + valueText(member(s, "value"));
    std::string note = str(s, "note");
    if (!note.empty()) head += " (" + note + ")";
  }
  return "step " + std::to_string(num(s, "step")) + " · T" + std::to_string(num(s, "thread")) + " · " + head;
}

json tracePayload(const json& check) {
  json out = check;
  if (!out["violation"].is_object()) return out;
  std::map<std::string, json> memory;
  for (json& s : out["violation"]["trace"]) {
    const std::string ev = str(s, "event"), addr = str(s, "address");
    // Memory is known where the trace shows it: a flush writes it, a load from
    // memory reads it, an RMW leaves its value there.
    if (!addr.empty() && !s["value"].is_null() && (ev == "flush" || ev == "load-memory" || ev == "rmw"))
      memory[addr] = s["value"];
    if (!addr.empty() && ev == "store" && !MemoryModel{parseModel(str(check, "model")).value_or(kDefaultModel)}.hasStoreBuffers())
      memory[addr] = s["value"];  // no buffer: a store writes memory at once
    json mem = json::object();
    for (const auto& [a, v] : memory) mem[a] = v;
    s["memory"] = mem;
    if (!s.contains("label")) s["label"] = stepLabel(s);
  }
  return out;
}

}  // namespace tsocheck

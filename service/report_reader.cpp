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
  // Without store buffers (SC, RC11) the trace says a store is "written to memory".
  if (ev == "store")
    head = "store " + addr + " = " + valueText(s) + (s.note == "written to memory" ? " (memory)" : " (buffered)");
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

std::string bufferText(const std::vector<BufferEntry>& buffer) {
  std::string out = "[";
  for (size_t i = 0; i < buffer.size(); ++i)
    out += (i ? ", " : "") + buffer[i].name + " = " + std::to_string(buffer[i].value);
  return out + "]";
}

std::string buffersText(const TraceStep& s) {
  std::string out;
  for (size_t t = 0; t < s.buffers.size(); ++t)
    if (!s.buffers[t].empty()) out += (out.empty() ? "T" : " · T") + std::to_string(t) + " " + bufferText(s.buffers[t]);
  return out;
}

namespace {

// "peterson_buggy.c:31:3" (the file's name only; "line 31" when unknown).
std::string placeText(const Program* prog, const SourceLoc& l) {
  const std::string file = fileIn(prog, l);
  const std::string name = file.substr(file.find_last_of('/') + 1);
  return (name.empty() ? "line " : name + ":") + std::to_string(l.line) + (l.column ? ":" + std::to_string(l.column) : "");
}

// The step a trace numbers `step` (nullptr when none).
const TraceStep* stepNumbered(const std::vector<TraceStep>& trace, uint32_t step) {
  return step >= 1 && step <= trace.size() && trace[step - 1].step == step ? &trace[step - 1] : nullptr;
}

}  // namespace

std::vector<std::string> violationSummary(const Program* prog, const Violation& v) {
  std::vector<std::string> out;
  out.push_back(std::string(errorKindName(v.kind)) + ": " + v.message + " at " + placeText(prog, v.loc));
  const std::vector<TraceStep>& trace = v.trace;
  if (v.kind == ErrorKind::Race || isHang(v.kind)) return out;
  // The first read the engine marked stale: another thread's buffer held a
  // newer store to the address.
  for (const TraceStep& s : trace) {
    if (s.staleThread == TraceStep::kNoThread) continue;
    const BufferEntry& e = s.staleEntry;
    std::string line = "stale read: T" + std::to_string(s.thread) + " read " + s.addrName + " → " + valueText(s) +
                       " from memory at " + placeText(prog, s.loc) + " (step " + std::to_string(s.step) +
                       ") while T" + std::to_string(s.staleThread) + "'s store " + e.name + " = " +
                       std::to_string(e.value);
    if (const TraceStep* st = stepNumbered(trace, e.storeStep))
      line += " (step " + std::to_string(st->step) + ", " + placeText(prog, st->loc) + ")";
    out.push_back(line + " sat in its store buffer");
    const std::string bufs = buffersText(s);
    out.push_back("store buffers at step " + std::to_string(s.step) + ": " + (bufs.empty() ? "all empty" : bufs));
    return out;
  }
  // No store buffer explains it (SC, RC11, or a bug without one): the last
  // value the failing thread read from memory, and which write it took.
  for (auto it = trace.rbegin(); it != trace.rend(); ++it)
    if (it->thread == v.thread && it->kind == StepKind::LoadMem) {
      out.push_back("last read: T" + std::to_string(it->thread) + " read " + it->addrName + " → " + valueText(*it) +
                    " at " + placeText(prog, it->loc) + " (step " + std::to_string(it->step) + ")" +
                    (it->note.empty() ? std::string() : ", " + it->note));
      break;
    }
  return out;
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

std::vector<ModelVerdicts> compareModels(const std::vector<FileReport>& reports) {
  std::vector<ModelVerdicts> rows;
  std::map<std::pair<std::string, std::string>, size_t> at;
  for (const FileReport& f : reports)
    for (const CheckReport& c : f.checks) {
      auto [it, fresh] = at.emplace(std::make_pair(c.file, c.function), rows.size());
      if (fresh) rows.push_back({c.file, c.function, c.line, {}});
      rows[it->second].verdicts.emplace_back(c.model, c.result.status);
    }
  return rows;
}

std::string modelVerdictsText(const ModelVerdicts& row) {
  std::string out;
  for (const auto& [model, status] : row.verdicts)
    out += (out.empty() ? "" : "  ") + std::string(modelName(model)) + " " +
           (status == Status::Verified ? "\u2713" : status == Status::Violation ? "\u2717" : statusName(status));
  return out;
}

nlohmann::json modelVerdictsJson(const std::vector<ModelVerdicts>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const ModelVerdicts& r : rows) {
    nlohmann::json v = nlohmann::json::object();
    for (const auto& [model, status] : r.verdicts) v[modelName(model)] = statusName(status);
    a.push_back({{"file", r.file}, {"function", r.function}, {"line", r.line}, {"verdicts", v},
                 {"summary", modelVerdictsText(r)}});
  }
  return a;
}

}  // namespace tsocheck

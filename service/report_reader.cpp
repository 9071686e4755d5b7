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
  // RC11: no memory or buffers to speak of; the access's order instead.
  const std::string order = s.rc11 ? std::string(" (") + memOrderName(s.rc11->order) + ")" : std::string();
  if (s.rc11 && ev == "store") head = "store " + addr + " = " + valueText(s) + order;
  else if (s.rc11 && ev == "load-memory") head = "load " + addr + " → " + valueText(s) + order;
  else if (s.rc11 && ev == "fence") head = "fence" + order;
  // Without store buffers (SC) the trace says a store is "written to memory".
  else if (ev == "store")
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

// RC11: what a step's kind is called in a sentence ("store", "load", ...).
std::string accessWord(StepKind k) {
  switch (k) {
    case StepKind::LoadMem:
    case StepKind::LoadBuf: return "load";
    case StepKind::Rmw: return "read-modify-write";
    default: return stepKindName(k);
  }
}

// "relaxed", or "acquire (not release)" for an order that does not release
// (acquire side: `acquiring`).
std::string lacking(MemOrder o, bool acquiring) {
  const std::string name = memOrderName(o);
  if (o == MemOrder::Relaxed || o == MemOrder::NonAtomic) return name;
  return name + (acquiring ? " (not acquire)" : " (not release)");
}

bool isRc11Write(const TraceStep& s) { return s.rc11 && s.rc11->writeCo >= 0 && s.hasAddr; }
bool isRc11Read(const TraceStep& s) { return s.rc11 && s.rc11->reads && s.hasAddr; }

// A fence of thread t strictly between trace indexes from and to whose order
// releases (acquires: `acquire`).
bool fenceBetween(const std::vector<TraceStep>& trace, uint32_t t, size_t from, size_t to, bool acquire) {
  for (size_t k = from + 1; k < to && k < trace.size(); ++k) {
    const TraceStep& f = trace[k];
    if (f.thread == t && f.kind == StepKind::Fence && f.rc11 &&
        (acquire ? acquires(f.rc11->order) : releases(f.rc11->order)))
      return true;
  }
  return false;
}

// "T1's release store of flag", "T0 starts T2", "T1's end": a step others synchronise with.
std::string syncSource(const TraceStep& s) {
  const std::string who = "T" + std::to_string(s.thread);
  if (s.kind == StepKind::Spawn && s.spawned != TraceStep::kNoThread) return who + " starts T" + std::to_string(s.spawned);
  if (s.kind == StepKind::Exit) return who + "'s end";
  std::string out = who + "'s ";
  if (s.rc11) out += std::string(memOrderName(s.rc11->order)) + " ";
  out += accessWord(s.kind);
  if (s.hasAddr && !s.addrName.empty()) out += " of " + s.addrName;
  return out;
}

// Why read i of an RC11 trace is stale: the coherence-later write w (a trace
// index) it missed and, when there is one, the near miss: a write s
// po-after-or-equal w in w's thread read by q po-before the read in its
// thread (the closest such q), with which half of that pair orders
// (rel: s releases; acq: q acquires).
struct Staleness {
  size_t w = 0;
  bool nearMiss = false;
  size_t s = 0, q = 0;
  bool rel = false, acq = false;
};

std::optional<Staleness> staleness(const std::vector<TraceStep>& trace, size_t i) {
  if (i >= trace.size() || !isRc11Read(trace[i])) return std::nullopt;
  const TraceStep& r = trace[i];
  // Coherence-later writes to the location the trace made before the read
  // (by consistency none of them happens before it).
  std::vector<size_t> later;
  for (size_t j = 0; j < i; ++j)
    if (isRc11Write(trace[j]) && trace[j].addrName == r.addrName && trace[j].rc11->writeCo > r.rc11->readCo &&
        trace[j].thread != r.thread)
      later.push_back(j);
  if (later.empty()) return std::nullopt;
  for (size_t j : later) {
    const TraceStep& w = trace[j];
    for (size_t k = i; k-- > 0;) {
      const TraceStep& q = trace[k];
      if (q.thread != r.thread || !isRc11Read(q) || !q.rc11->readsFrom) continue;
      const TraceStep* s = stepNumbered(trace, q.rc11->readsFrom);
      if (!s || !s->rc11 || s->thread != w.thread || size_t(s->step - 1) < j) continue;
      Staleness out{j, true, size_t(s->step - 1), k, false, false};
      out.rel = releases(s->rc11->order) || fenceBetween(trace, w.thread, j, out.s, false);
      out.acq = acquires(q.rc11->order) || fenceBetween(trace, r.thread, k, i, true);
      if (out.rel && out.acq) continue;  // (synchronises: cannot be, w would happen before the read)
      return out;
    }
  }
  // No read of the reader's thread saw anything of the writer's from w on.
  return Staleness{later.back()};
}

}  // namespace

uint32_t missedWrite(const std::vector<TraceStep>& trace, size_t i) {
  const std::optional<Staleness> st = staleness(trace, i);
  return st ? trace[st->w].step : 0;
}

std::string staleReadReason(const std::vector<TraceStep>& trace, size_t i) {
  const std::optional<Staleness> st = staleness(trace, i);
  if (!st) return "";
  const TraceStep& w = trace[st->w];
  const std::string stored = "T" + std::to_string(w.thread) + " stored " + w.addrName + " = " + valueText(w) +
                             " (step " + std::to_string(w.step) + ")";
  if (!st->nearMiss)
    return "although " + stored + ", and that store does not happen before this read: no release/acquire pair orders them";
  const TraceStep& s = trace[st->s];
  const TraceStep& q = trace[st->q];
  std::string why;
  if (!st->rel) why = "the " + s.addrName + " " + accessWord(s.kind) + " is " + lacking(s.rc11->order, false);
  if (!st->acq)
    why += std::string(why.empty() ? "" : " and ") + "T" + std::to_string(q.thread) + "'s " + accessWord(q.kind) + " of " +
           q.addrName + " (step " + std::to_string(q.step) + ") is " + lacking(q.rc11->order, true);
  return "although " + stored + " before its " + accessWord(s.kind) + (s.kind == StepKind::Store ? " to " : " of ") +
         s.addrName + " (step " + std::to_string(s.step) + "): " + why + ", so T" + std::to_string(q.thread) +
         "'s read of " + q.addrName + " = " + std::to_string(q.rc11->read) + " does not synchronise with it";
}

std::string readExplanation(const std::vector<TraceStep>& trace, size_t i) {
  if (i >= trace.size() || !isRc11Read(trace[i])) return "";
  const TraceStep& r = trace[i];
  std::string head = "reads " + r.addrName + " = " + std::to_string(r.rc11->read);
  const TraceStep* w = r.rc11->readsFrom ? stepNumbered(trace, r.rc11->readsFrom) : nullptr;
  const std::string source =
      w ? "written by T" + std::to_string(w->thread) + " at line " + std::to_string(w->loc.line) + " (step " +
              std::to_string(w->step) + ")"
        : std::string("the initial value");
  const std::string stale = staleReadReason(trace, i);
  if (stale.empty()) return head + (w ? " " : ": ") + source;
  return head + " (" + source + ") " + stale;
}

std::string hbText(const std::vector<TraceStep>& trace, size_t i) {
  if (i >= trace.size() || !trace[i].rc11) return "";
  std::vector<std::string> parts;
  for (uint32_t n : trace[i].rc11->sw)
    if (const TraceStep* src = stepNumbered(trace, n))
      parts.push_back("step " + std::to_string(n) + " (" + syncSource(*src) + ")");
  if (parts.empty()) return "";
  std::string out = "synchronises with ";
  for (size_t k = 0; k < parts.size(); ++k)
    out += (k == 0 ? "" : k + 1 == parts.size() ? " and " : ", ") + parts[k];
  return out;
}

std::string stepNote(const std::vector<TraceStep>& trace, size_t i) {
  if (i >= trace.size()) return "";
  std::string out = trace[i].note;
  for (const std::string& part : {readExplanation(trace, i), hbText(trace, i)})
    if (!part.empty()) out += (out.empty() ? "" : "; ") + part;
  return out;
}

std::vector<ReadableLocation> readableWrites(const std::vector<TraceStep>& trace, size_t upTo, uint32_t thread) {
  std::vector<ReadableLocation> out;
  if (trace.empty()) return out;
  upTo = std::min(upTo, trace.size() - 1);
  // The thread's hb clock at its last step so far (none: nothing happens before it).
  std::vector<uint32_t> clock;
  for (size_t k = upTo + 1; k-- > 0;)
    if (trace[k].thread == thread && trace[k].rc11) {
      clock = trace[k].rc11->hb;
      break;
    }
  auto before = [&](const TraceStep& s) {
    return s.thread < clock.size() && s.event != TraceStep::kNoEvent && s.event < clock[s.thread];
  };
  struct Loc {
    int floor = -1;  // the coherence-latest write seen by an event happening before the thread
    Value init = 0;
    std::vector<std::pair<int, ReadableWrite>> writes;  // (co, write)
  };
  std::vector<std::string> names;
  std::map<std::string, Loc> locs;
  for (size_t k = 0; k <= upTo; ++k) {
    const TraceStep& s = trace[k];
    if (!s.rc11 || !s.hasAddr || s.addrName.empty() || !(isRc11Read(s) || isRc11Write(s))) continue;
    auto [it, fresh] = locs.try_emplace(s.addrName);
    if (fresh) names.push_back(s.addrName);
    Loc& l = it->second;
    l.init = s.rc11->init;
    if (isRc11Write(s)) l.writes.push_back({s.rc11->writeCo, ReadableWrite{s.value, s.step, s.thread}});
    if (before(s)) {
      if (isRc11Read(s)) l.floor = std::max(l.floor, s.rc11->readCo);
      if (isRc11Write(s)) l.floor = std::max(l.floor, s.rc11->writeCo);
    }
  }
  for (const std::string& name : names) {
    Loc& l = locs[name];
    ReadableLocation r{name, {}};
    if (l.floor < 0) r.writes.push_back(ReadableWrite{l.init, 0, 0});
    std::sort(l.writes.begin(), l.writes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [co, w] : l.writes)
      if (co >= l.floor) r.writes.push_back(w);
    out.push_back(std::move(r));
  }
  return out;
}

std::string readableText(const ReadableLocation& l) {
  std::string out;
  for (size_t k = 0; k < l.writes.size(); ++k) {
    const ReadableWrite& w = l.writes[k];
    out += (k == 0 ? "" : " or ") + std::to_string(w.value) +
           (w.step ? " (T" + std::to_string(w.thread) + ", step " + std::to_string(w.step) + ")" : " (initial value)");
  }
  return out;
}

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
  // RC11: a read that missed a coherence-later write, the failing thread's
  // latest first.
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = trace.size(); i-- > 0;) {
      const TraceStep& s = trace[i];
      if ((pass == 0) != (s.thread == v.thread) || staleReadReason(trace, i).empty()) continue;
      out.push_back("stale read: T" + std::to_string(s.thread) + " " + readExplanation(trace, i) + " (" +
                    placeText(prog, s.loc) + ", step " + std::to_string(s.step) + ")");
      return out;
    }
  // No store buffer explains it (SC, RC11, or a bug without one): the last
  // value the failing thread read from memory, and which write it took.
  for (auto it = trace.rbegin(); it != trace.rend(); ++it)
    if (it->thread == v.thread && it->kind == StepKind::LoadMem) {
      const std::string note = stepNote(trace, size_t(it.base() - trace.begin()) - 1);
      out.push_back("last read: T" + std::to_string(it->thread) + " read " + it->addrName + " → " + valueText(*it) +
                    " at " + placeText(prog, it->loc) + " (step " + std::to_string(it->step) + ")" +
                    (note.empty() ? std::string() : ", " + note));
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

json payloadStep(const Program& prog, const std::vector<TraceStep>& trace, size_t i, const KnownMemory& memory) {
  json j = traceStepJson(prog, trace, i);
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
  for (size_t i = 0; i < trace.size(); ++i) steps.push_back(payloadStep(*check.program, trace, i, memory[i]));
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

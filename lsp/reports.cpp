#include "lsp/reports.h"
#include "lsp/wording.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace tsocheck {

using nlohmann::json;

namespace {

std::string fileOf(const Program& prog, const SourceLoc& l) {
  return l.file < prog.files.size() ? prog.files[l.file] : std::string();
}

json optInt(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

// Source lines, read once per file.
class SourceCache {
 public:
  std::string line(const std::string& file, uint32_t n) {
    auto it = files_.find(file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      std::ifstream in(file);
      for (std::string s; std::getline(in, s);) lines.push_back(s);
      it = files_.emplace(file, std::move(lines)).first;
    }
    if (n == 0 || n > it->second.size()) return "";
    std::string s = it->second[n - 1];
    size_t b = s.find_first_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b);
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

}  // namespace

json traceStepJson(const Program& prog, const TraceStep& s) {
  json buffers = json::array();
  for (const auto& b : s.buffers) {
    json entries = json::array();
    for (const BufferEntry& e : b) entries.push_back({{"address", e.name}, {"value", e.value}});
    buffers.push_back(entries);
  }
  // The function the step's instruction is in, and for a direct spawn the
  // function the new thread starts in (the debug adapter names threads by it).
  const Function* fn = s.function < prog.functions.size() ? &prog.functions[s.function] : nullptr;
  json spawns = nullptr;
  if (fn && s.kind == StepKind::Spawn && s.pc < fn->code.size() && fn->code[s.pc].op == Op::Spawn) {
    int64_t target = fn->code[s.pc].imm;
    if (target >= 0 && size_t(target) < prog.functions.size()) spawns = prog.functions[size_t(target)].name;
  }
  return json{{"step", s.step},
              {"thread", s.thread},
              {"function", fn ? json(fn->name) : json(nullptr)},
              {"spawns", spawns},
              {"event", stepKindName(s.kind)},
              {"address", s.hasAddr ? json(s.addrName) : json(nullptr)},
              {"value", s.hasValue ? json(s.value) : json(nullptr)},
              {"file", fileOf(prog, s.loc)},
              {"line", s.loc.line},
              {"column", s.loc.column},
              {"note", s.note},
              {"buffers", buffers}};
}

std::string boundsSentence(const CheckReport& r) {
  std::string s = std::string("model ") + modelName(r.model);
  s += r.bufferBound ? ", store buffers of at most " + std::to_string(*r.bufferBound) + " entries"
                     : (r.model == Model::SC ? "" : ", unbounded store buffers");
  return s;
}

json boundsJson(const ProvenBounds& b) {
  return json{{"preemptions", optInt(b.preemptions)},
              {"buffer", optInt(b.buffer)},
              {"loop", b.loop ? json(*b.loop) : json(nullptr)},
              {"fixpoint_k", optInt(b.fixpointK)}};
}

json fencesJson(const std::vector<FenceEdit>& fences) {
  json a = json::array();
  for (const FenceEdit& f : fences)
    a.push_back({{"file", f.file}, {"line", f.line}, {"column", f.column}, {"text", f.text}});
  return a;
}

namespace {

json violationJson(const Program& prog, const Violation& vi) {
  json trace = json::array();
  for (const TraceStep& s : vi.trace) trace.push_back(traceStepJson(prog, s));
  return json{{"kind", errorKindName(vi.kind)},
              {"message", vi.message},
              {"file", fileOf(prog, vi.loc)},
              {"line", vi.loc.line},
              {"column", vi.loc.column},
              {"thread", vi.thread},
              {"preemptions", vi.preemptions >= 0 ? json(vi.preemptions) : json(nullptr)},  // a lower bound
              {"above_bound", vi.aboveBound},
              {"severity", vi.warning ? "warning" : "error"},
              {"trace", trace}};
}

// null when robustness was not asked for.
json robustnessJson(const CheckReport& r) {
  if (!r.result.robustness) return nullptr;
  const RobustnessResult& rb = *r.result.robustness;
  return json{{"robust", rb.robust},
              {"complete", rb.complete},
              {"message", rb.message},
              {"witness", rb.witness && r.program ? violationJson(*r.program, *rb.witness) : json(nullptr)},
              {"point", rb.point},
              {"witness_is_violation", rb.witnessIsViolation}};
}

}  // namespace

static json warningsJson(const std::vector<frontend::Diagnostic>& ws) {
  json a = json::array();
  for (const frontend::Diagnostic& w : ws)
    a.push_back({{"message", w.message}, {"file", w.file}, {"line", w.line}, {"column", w.column}});
  return a;
}

json checkJson(const CheckReport& r) {
  json v = nullptr, all = json::array();
  if (r.result.violation && r.program) v = violationJson(*r.program, *r.result.violation);
  if (r.program)
    for (const Violation& x : r.result.violations) all.push_back(violationJson(*r.program, x));
  json j{{"file", r.file},
         {"function", r.function},
         {"line", r.line},
         {"column", r.column},
         {"model", modelName(r.model)},
         {"buffer_bound", optInt(r.bufferBound)},
         {"preemption_bound", optInt(r.preemptionBound)},
         {"loop_bound", r.loopBound},
         {"nondet_range", std::to_string(r.nondetRange.first) + ".." + std::to_string(r.nondetRange.second)},
         {"status", statusName(r.result.status)},
         {"executions", r.result.executions},
         {"blocked", r.result.blocked},
         {"cut", r.result.cut},
         {"elapsed_ms", r.result.elapsedMs},
         {"lower_ms", r.lowerMs},
         {"events", r.result.events},
         {"message", r.result.message},
         {"limits", r.result.limitsHit},
         {"warnings", warningsJson(r.warnings)},
         {"violation", v},     // the most severe error-level one
         {"violations", all},  // the first of each kind, most severe first (warnings included)
         {"deadlocks", deadlockModeName(r.deadlocks)},
         {"bounds", boundsJson(r.bounds)},
         {"bound_blocked", r.result.boundBlocked},        // partial executions pruned by the preemption bound
         {"slack_executions", r.result.slackExecutions},  // complete executions known to exceed it
         {"fences", fencesJson(r.fences)},
         {"fence_note", r.fenceNote},
         {"fences_verified", r.fencesVerified ? json(*r.fencesVerified) : json(nullptr)},
         {"robustness", robustnessJson(r)}};
  if (r.errorAt)
    j["error"] = {{"file", r.errorAt->file}, {"line", r.errorAt->line}, {"column", r.errorAt->column},
                  {"message", r.errorAt->message}};
  return j;
}

json resultsJson(const std::vector<FileReport>& files) {
  json results = json::array(), errors = json::array();
  for (const FileReport& f : files) {
    for (const CheckReport& c : f.checks) results.push_back(checkJson(c));
    if (f.inputError) {
      json diags = json::array();
      for (const auto& d : f.diagnostics)
        diags.push_back({{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity},
                         {"message", d.message}});
      errors.push_back({{"file", f.file}, {"message", f.inputMessage}, {"diagnostics", diags}});
    }
  }
  return json{{"version", 1}, {"results", results}, {"errors", errors}};
}

// SARIF fixes for synthesized fences: one fix inserting every fence, each as an
// empty region right after the statement's last character.
template <class Uri>
json sarifFixes(const CheckReport& c, const Uri& uri) {
  json fixes = json::array();
  if (c.fences.empty()) return fixes;
  std::map<std::string, json> byFile;
  for (const FenceEdit& f : c.fences) {
    json at{{"startLine", f.line}, {"startColumn", f.column + 1}, {"endLine", f.line}, {"endColumn", f.column + 1}};
    byFile[f.file].push_back({{"deletedRegion", at}, {"insertedContent", {{"text", " " + f.text}}}});
  }
  json changes = json::array();
  for (auto& [file, reps] : byFile)
    changes.push_back({{"artifactLocation", {{"uri", uri(file)}}}, {"replacements", reps}});
  const std::string n = std::to_string(c.fences.size());
  fixes.push_back({{"description", {{"text", "insert " + n + (c.fences.size() == 1 ? " fence" : " fences") +
                                                 (c.fenceNote.empty() ? std::string() : " (" + c.fenceNote + ")")}}},
                   {"artifactChanges", changes}});
  return fixes;
}

json sarifLog(const std::vector<FileReport>& files, const std::string& toolVersion) {
  static const std::map<ErrorKind, std::pair<const char*, const char*>> rules = {
      {ErrorKind::Assertion, {"assertion", "An assertion can fail under the memory model"}},
      {ErrorKind::Deadlock, {"deadlock", "Every live thread can end up blocked on a mutex, a join or a condition variable"}},
      {ErrorKind::NonTermination, {"nontermination", "A thread can spin forever on values no other thread changes"}},
      {ErrorKind::Memory, {"memory-error", "An invalid memory access can happen"}},
      {ErrorKind::Arithmetic, {"arithmetic", "An arithmetic error (division by zero) can happen"}},
  };
  json ruleList = json::array();
  for (const auto& [k, r] : rules)
    ruleList.push_back({{"id", r.first}, {"shortDescription", {{"text", r.second}}}});
  ruleList.push_back({{"id", "robustness"},
                      {"shortDescription", {{"text", "The memory model allows an execution that SC does not"}}}});
  auto uri = [](const std::string& f) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::relative(f, std::filesystem::current_path(), ec);
    std::string s = (ec || p.empty() || p.string().rfind("..", 0) == 0) ? f : p.string();
    return s;
  };
  json results = json::array();
  for (const FileReport& f : files)
    for (const CheckReport& c : f.checks) {
      if (!c.program) continue;
      const Program& prog = *c.program;
      // One result per violation and per robustness witness (a warning).
      auto addResult = [&](const Violation& v, const std::string& ruleId, const char* level, bool fixes) {
        auto location = [&](const SourceLoc& l, const std::string& text) {
          json loc{{"physicalLocation",
                    {{"artifactLocation", {{"uri", uri(fileOf(prog, l))}}},
                     {"region", {{"startLine", std::max<uint32_t>(l.line, 1)},
                                 {"startColumn", std::max<uint32_t>(l.column, 1)}}}}}};
          if (!text.empty()) loc["message"] = {{"text", text}};
          return loc;
        };
        // One threadFlow per thread; executionOrder orders steps across threads.
        std::map<uint32_t, json> perThread;
        for (const TraceStep& s : v.trace) {
          std::ostringstream text;
          text << formatStepHead(s);
          if (!s.note.empty()) text << " (" << s.note << ")";
          json state = json::object();
          for (size_t t = 0; t < s.buffers.size(); ++t) {
            std::string b;
            for (const BufferEntry& e : s.buffers[t]) b += (b.empty() ? "" : ", ") + e.name + "=" + std::to_string(e.value);
            if (!b.empty()) state["buffer T" + std::to_string(t)] = {{"text", "[" + b + "]"}};
          }
          json loc{{"location", location(s.loc, text.str())}, {"executionOrder", s.step}};
          if (!state.empty()) loc["state"] = state;
          perThread[s.thread].push_back(loc);
        }
        json threadFlows = json::array();
        for (auto& [t, locs] : perThread)
          threadFlows.push_back({{"id", "T" + std::to_string(t)}, {"message", {{"text", "thread T" + std::to_string(t)}}},
                                 {"locations", locs}});
        std::string msg = v.message + " (" + c.function + ", " + boundsSentence(c) + ")";
        results.push_back({{"ruleId", ruleId},
                           {"level", level},
                           {"message", {{"text", msg}}},
                           {"locations", json::array({location(v.loc, "")})},
                           {"codeFlows", json::array({{{"threadFlows", threadFlows}}})},
                           {"partialFingerprints",
                            {{"tsocheck/v1", c.function + ":" + ruleId + ":" + modelName(c.model) + ":" +
                                                 std::to_string(v.loc.line)}}},
                           {"fixes", fixes ? sarifFixes(c, uri) : json::array()}});
      };
      // One result per kind found; the fences fix the most severe error.
      for (const Violation& v : c.result.violations)
        addResult(v, rules.count(v.kind) ? rules.at(v.kind).first : "error", v.warning ? "warning" : "error",
                  c.result.violation && v.kind == c.result.violation->kind && !v.warning);
      if (c.result.robustness && c.result.robustness->witness && !c.result.robustness->witnessIsViolation)
        addResult(*c.result.robustness->witness, "robustness", "warning", false);
    }
  return json{{"version", "2.1.0"},
              {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"runs", json::array({{{"tool", {{"driver", {{"name", "tsocheck"},
                                                           {"version", toolVersion},
                                                           {"informationUri", "https://example.invalid/tsocheck"},
                                                           {"rules", ruleList}}}}},
                                     {"results", results}}})}};
}

namespace {

void writeInterleaving(std::ostream& os, const Program& prog, const std::vector<TraceStep>& trace, SourceCache& src) {
  for (const TraceStep& s : trace) {
    std::string head = "  " + std::string(s.step < 10 ? " " : "") + std::to_string(s.step) + ". " + formatStepHead(s);
    if (head.size() < 34) head.resize(34, ' ');
    const std::string file = fileOf(prog, s.loc);
    os << head << " " << file.substr(file.find_last_of('/') + 1) << ":" << s.loc.line << ":" << s.loc.column;
    std::string line = src.line(file, s.loc.line);
    if (!line.empty()) os << "  | " << line;
    if (!s.note.empty()) os << "   [" << s.note << "]";
    std::string b = formatBuffers(s);
    if (!b.empty()) os << "   buffers: " << b;
    os << "\n";
  }
}

// "fix: insert N fences" with one line per fence, and the synthesis note.
void writeFences(std::ostream& os, const CheckReport& c) {
  if (!c.fences.empty()) {
    os << "  fix: insert " << c.fences.size() << (c.fences.size() == 1 ? " fence" : " fences") << ":\n";
    for (const FenceEdit& fe : c.fences)
      os << "    after " << fe.file.substr(fe.file.find_last_of('/') + 1) << ":" << fe.line << ":" << fe.column << "  "
         << fe.text << "\n";
  }
  if (!c.fenceNote.empty()) os << "  " << c.fenceNote << "\n";
}

// The robustness verdict; a witness with its interleaving unless it is the
// violation's own execution (already shown).
void writeRobustness(std::ostream& os, const CheckReport& c, SourceCache& src) {
  if (!c.result.robustness) return;
  const RobustnessResult& rb = *c.result.robustness;
  os << "  " << rb.message << "\n";
  if (!rb.witness || !c.program) return;
  const Violation& w = *rb.witness;
  os << "  non-SC execution: " << w.message;
  if (rb.point == "stale read") os << "; first stale read at ";
  else if (rb.point == "reordered load") os << "; first load past its thread's own buffered store at ";
  else if (rb.point == "reordered flush") os << "; first store that reached memory before an older one at ";
  else os << "; first step at ";
  os << c.program->locString(w.loc) << "\n";
  if (rb.witnessIsViolation) {
    os << "  (the violation's interleaving above is such an execution)\n";
    return;
  }
  os << "  interleaving:\n";
  writeInterleaving(os, *c.program, w.trace, src);
}

}  // namespace

std::string textReport(const FileReport& f) {
  std::ostringstream os;
  if (f.inputError) {
    for (const auto& d : f.diagnostics) os << frontend::formatDiagnostic(d) << "\n";
    os << "error: " << f.inputMessage << "\n";
    return os.str();
  }
  SourceCache src;
  for (const CheckReport& c : f.checks) {
    const CheckResult& r = c.result;
    os << c.file << ":" << c.line << ": " << c.function << ": ";
    char ms[32];
    snprintf(ms, sizeof ms, "%.1f ms", r.elapsedMs);
    switch (r.status) {
      case Status::Verified: os << "verified"; break;
      case Status::Violation: os << "VIOLATION"; break;
      case Status::Bounded: os << "bounded"; break;
      case Status::Timeout: os << "timeout"; break;
      case Status::Error: os << "error"; break;
    }
    os << " under " << modelName(c.model);
    if (c.bufferBound) os << " (buffer bound " << *c.bufferBound << ")";
    if (c.preemptionBound) os << " (preemption bound " << *c.preemptionBound << ")";
    if (r.status != Status::Error)
      os << " — " << lsp::countText(r.executions, "execution")
         << (r.blocked ? ", " + std::to_string(r.blocked) + " blocked" : "")
         << (r.cut ? ", " + std::to_string(r.cut) + " cut" : "")
         << (r.boundBlocked ? ", " + std::to_string(r.boundBlocked) + " pruned by the preemption bound" : "") << ", "
         << ms;
    os << "\n";
    for (const frontend::Diagnostic& w : c.warnings)
      os << "  warning: " << w.message << " at " << w.file << ":" << w.line << ":" << w.column << "\n";
    if (r.status == Status::Error) {
      if (c.errorAt) os << "  " << frontend::formatDiagnostic(*c.errorAt) << "\n";
      else os << "  " << r.message << "\n";
      continue;
    }
    // The other kinds found (and warnings): one line each, their
    // interleavings are in --json / the editor.
    auto writeOthers = [&]() {
      for (const Violation& o : r.violations) {
        if (r.violation && o.kind == r.violation->kind && !o.warning) continue;
        os << "  " << (o.warning ? "warning: " : "also: ") << errorKindName(o.kind) << ": " << o.message << " at "
           << c.program->locString(o.loc) << "\n";
      }
    };
    if (r.status != Status::Violation) {
      os << "  " << r.message << "\n";
      if (c.program) writeOthers();
      for (const std::string& l : r.limitsHit) os << "  limit: " << l << "\n";
      writeRobustness(os, c, src);
      writeFences(os, c);  // fences that make a non-robust check robust
      continue;
    }
    const Violation& v = *r.violation;
    const Program& prog = *c.program;
    os << "  " << errorKindName(v.kind) << ": " << v.message << " at " << prog.locString(v.loc) << "\n";
    writeOthers();
    if (!c.boundsNote.empty()) os << "  " << c.boundsNote << "\n";
    if (c.preemptionBound && v.aboveBound)
      os << "  above the preemption bound " << *c.preemptionBound << ": met only in a slack execution (at least "
         << v.preemptions << (v.preemptions == 1 ? " preemption)\n" : " preemptions)\n");
    else if (c.preemptionBound)
      os << "  found with preemption bound " << *c.preemptionBound
         << (c.bounds.preemptions ? "; no violation with ≤ " + std::to_string(*c.bounds.preemptions) + " preemptions"
                                  : std::string())
         << "\n";
    os << "  interleaving:\n";
    writeInterleaving(os, prog, v.trace, src);
    writeFences(os, c);
    writeRobustness(os, c, src);
  }
  return os.str();
}

}  // namespace tsocheck

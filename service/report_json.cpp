#include "service/report_json.h"
#include "service/report_reader.h"

namespace tsocheck {

using nlohmann::json;

namespace {

json optInt(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

// A step number, or null for "not a step of this trace" (0).
json stepRef(uint32_t step) { return step ? json(step) : json(nullptr); }

}  // namespace

std::string fileOf(const Program& prog, const SourceLoc& l) {
  return l.file < prog.files.size() ? prog.files[l.file] : std::string();
}

json traceStepJson(const Program& prog, const TraceStep& s) {
  json buffers = json::array();
  for (const auto& b : s.buffers) {
    json entries = json::array();
    for (const BufferEntry& e : b)
      entries.push_back({{"address", e.name}, {"value", e.value}, {"store_step", stepRef(e.storeStep)}});
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
  json stale = nullptr;
  if (s.staleThread != TraceStep::kNoThread)
    stale = {{"thread", s.staleThread},
             {"address", s.staleEntry.name},
             {"value", s.staleEntry.value},
             {"store_step", stepRef(s.staleEntry.storeStep)}};
  json j{{"step", s.step},
         {"thread", s.thread},
         {"function", fn ? json(fn->name) : json(nullptr)},
         {"spawns", spawns},
         {"spawned", s.spawned != TraceStep::kNoThread ? json(s.spawned) : json(nullptr)},
         {"event", stepKindName(s.kind)},
         {"address", s.hasAddr ? json(s.addrName) : json(nullptr)},
         {"value", s.hasValue ? json(s.value) : json(nullptr)},
         {"file", fileOf(prog, s.loc)},
         {"line", s.loc.line},
         {"column", s.loc.column},
         {"note", s.note},
         {"buffers", buffers},
         {"stale", stale}};
  j["label"] = stepLabel(j);
  return j;
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
  // A race's other access (null for every other kind).
  json other = nullptr;
  if (vi.other)
    other = json{{"file", fileOf(prog, vi.other->loc)},
                 {"line", vi.other->loc.line},
                 {"column", vi.other->loc.column},
                 {"thread", vi.other->thread}};
  return json{{"kind", errorKindName(vi.kind)},
              {"message", vi.message},
              {"file", fileOf(prog, vi.loc)},
              {"line", vi.loc.line},
              {"column", vi.loc.column},
              {"thread", vi.thread},
              {"preemptions", vi.preemptions >= 0 ? json(vi.preemptions) : json(nullptr)},  // a lower bound
              {"above_bound", vi.aboveBound},
              {"severity", vi.warning ? "warning" : "error"},
              {"other", other},
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

// null when fence synthesis did not run.
static json fenceSynthesisJson(const CheckReport& r) {
  if (!r.fenceSynthesis) return nullptr;
  const CheckReport::FenceSynthesis& f = *r.fenceSynthesis;
  return json{{"outcome", f.outcome},
              {"rounds", f.rounds},
              {"seconds", f.seconds},
              {"time_limit", f.budgetSeconds},
              {"stopped", f.stopped},
              {"minimal", f.minimal ? json(*f.minimal) : json(nullptr)},
              {"seed_fences", f.seedFences},
              {"partial", fencesJson(f.partial)}};
}

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
         {"race_check", r.raceCheck},
         {"exit_ends_program", r.exitEndsProgram},
         {"bounds", boundsJson(r.bounds)},
         {"bound_blocked", r.result.boundBlocked},        // partial executions pruned by the preemption bound
         {"slack_executions", r.result.slackExecutions},  // complete executions known to exceed it
         {"fences", fencesJson(r.fences)},
         {"fence_note", r.fenceNote},
         {"fences_verified", r.fencesVerified ? json(*r.fencesVerified) : json(nullptr)},
         {"fence_synthesis", fenceSynthesisJson(r)},
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

}  // namespace tsocheck

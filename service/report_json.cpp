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

namespace {

json rc11Json(const std::vector<TraceStep>& trace, size_t i) {
  const TraceStep& s = trace[i];
  if (!s.rc11) return nullptr;
  const TraceStep::Rc11Facts& f = *s.rc11;
  return {{"order", memOrderName(f.order)},
          {"event", s.event != TraceStep::kNoEvent ? json(s.event) : json(nullptr)},
          {"read", f.reads ? json(f.read) : json(nullptr)},
          {"reads_from", f.reads ? stepRef(f.readsFrom) : json(nullptr)},
          {"read_co", f.reads ? json(f.readCo) : json(nullptr)},
          {"write_co", f.writeCo >= 0 ? json(f.writeCo) : json(nullptr)},
          {"init", f.init},
          {"sw", f.sw},
          {"hb", f.hb},
          {"missed", stepRef(missedWrite(trace, i))}};
}

json textOrNull(const std::string& t) { return t.empty() ? json(nullptr) : json(t); }

}  // namespace

json traceStepJson(const Program& prog, const std::vector<TraceStep>& trace, size_t i) {
  const TraceStep& s = trace.at(i);
  json buffers = json::array();
  for (const auto& b : s.buffers) {
    json entries = json::array();
    for (const BufferEntry& e : b)
      entries.push_back({{"address", e.name}, {"value", e.value}, {"store_step", stepRef(e.storeStep)}});
    buffers.push_back(entries);
  }
  // The function the step's instruction is in, and for a direct spawn the
  // function the new thread starts in (the debug adapter names threads by it).
  const Function* fn = stepFunction(&prog, s);
  const std::optional<std::string> spawns = spawnsFunction(&prog, s);
  json stale = nullptr;
  if (s.staleThread != TraceStep::kNoThread)
    stale = {{"thread", s.staleThread},
             {"address", s.staleEntry.name},
             {"value", s.staleEntry.value},
             {"store_step", stepRef(s.staleEntry.storeStep)}};
  json j{{"step", s.step},
         {"thread", s.thread},
         {"function", fn ? json(fn->name) : json(nullptr)},
         {"spawns", spawns ? json(*spawns) : json(nullptr)},
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
  j["label"] = stepLabel(s);
  j["buffers_text"] = buffersText(s);
  j["reads"] = textOrNull(readExplanation(trace, i));
  j["hb"] = textOrNull(hbText(trace, i));
  j["rc11"] = rc11Json(trace, i);
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
  for (const FenceEdit& f : fences) {
    json e = {{"file", f.file}, {"line", f.line}, {"column", f.column}, {"text", f.text}};
    if (f.isUpgrade()) e.update({{"replaces", f.replaces}, {"access", f.access}});  // an order upgrade
    a.push_back(std::move(e));
  }
  return a;
}

json violationJson(const Program& prog, const Violation& vi, bool withTrace) {
  // A race's other access (null for every other kind).
  json other = nullptr;
  if (vi.other)
    other = json{{"file", fileOf(prog, vi.other->loc)},
                 {"line", vi.other->loc.line},
                 {"column", vi.other->loc.column},
                 {"thread", vi.other->thread}};
  json v{{"kind", errorKindName(vi.kind)},
              {"message", vi.message},
              {"file", fileOf(prog, vi.loc)},
              {"line", vi.loc.line},
              {"column", vi.loc.column},
              {"thread", vi.thread},
              {"preemptions", vi.preemptions >= 0 ? json(vi.preemptions) : json(nullptr)},  // a lower bound
              {"above_bound", vi.aboveBound},
              {"severity", vi.warning ? "warning" : "error"},
              {"other", other},
              {"summary", violationSummary(&prog, vi)}};
  if (vi.shardOrder) v["order"] = {{"start", vi.shardOrder->start}, {"index", vi.shardOrder->index}};
  if (withTrace) {
    json trace = json::array();
    for (size_t i = 0; i < vi.trace.size(); ++i) trace.push_back(traceStepJson(prog, vi.trace, i));
    v["trace"] = std::move(trace);
  }
  return v;
}

namespace {

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

// A shard's index, count and cut, and its part of the search (the pieces
// `tsocheck merge` adds up in the canonical order).
static json shardJson(const CheckReport& r) {
  json pieces = json::array();
  json stop = nullptr;
  bool timedOut = false;
  if (const std::optional<ShardOutcome>& o = r.result.shard) {
    for (const ShardPiece& p : o->pieces)
      pieces.push_back({{"start", p.start}, {"counts", p.counts}, {"limits", p.limits},
                        {"nondet_limited", p.nondetLimited}, {"engine_error", p.engineError}});
    if (o->stop) stop = *o->stop;
    timedOut = o->timedOut;
  }
  json options = json::object();
  if (json o = json::parse(r.shardOptions, nullptr, false); o.is_object()) options = std::move(o);  // (our own text)
  return json{{"index", r.shard->index}, {"count", r.shard->count}, {"depth", r.shard->depth},
              {"stop", stop},            {"timed_out", timedOut},   {"pieces", pieces},
              {"options", options},      {"clang_args", r.shardClangArgs}};
}

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
         {"spurious_wakeups", r.spuriousWakeups},
         {"bounds", boundsJson(r.bounds)},
         {"bound_blocked", r.result.boundBlocked},        // partial executions pruned by the preemption bound
         {"bound_blocked_settled", r.result.boundBlockedSettled},  // of those, pruned only through the §5 slack
         {"stale_waits", r.result.staleWaits},            // partial executions left at a spin on a stale value
         {"stale_reads", r.result.staleReads},            // stale values not given to a spin's read that would stop at once
         {"slack_executions", r.result.slackExecutions},  // complete executions known to exceed it
         {"bound_dropped", r.result.boundDropped},  // the bound pruned nothing in its probe: a full search
         {"fences", fencesJson(r.fences)},
         {"fence_note", r.fenceNote},
         {"fences_verified", r.fencesVerified ? json(*r.fencesVerified) : json(nullptr)},
         {"fence_synthesis", fenceSynthesisJson(r)},
         {"robustness", robustnessJson(r)}};
  if (r.errorAt)
    j["error"] = {{"file", r.errorAt->file}, {"line", r.errorAt->line}, {"column", r.errorAt->column},
                  {"message", r.errorAt->message}};
  if (r.shard) j["shard"] = shardJson(r);
  if (!r.fingerprint.empty()) j["fingerprint"] = r.fingerprint;
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

// ---- reading ----------------------------------------------------------------

namespace {

// Members of a JSON object, each its default when missing or of another type.
const json& at(const json& j, const char* key) {
  static const json none;
  if (!j.is_object()) return none;
  auto it = j.find(key);
  return it != j.end() ? *it : none;
}
std::string text(const json& j, const char* key) {
  const json& v = at(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}
// A non-negative integer member.
std::optional<uint64_t> natural(const json& j, const char* key) {
  const json& v = at(j, key);
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return uint64_t(v.get<int64_t>());
  return std::nullopt;
}
uint64_t count(const json& j, const char* key) { return natural(j, key).value_or(0); }
// An array of 32-bit naturals (a path in the exploration tree; others are left out).
std::vector<uint32_t> path(const json& j, const char* key) {
  std::vector<uint32_t> out;
  const json& a = at(j, key);
  if (a.is_array())
    for (const json& x : a)
      if (x.is_number_unsigned() && x.get<uint64_t>() <= UINT32_MAX) out.push_back(uint32_t(x.get<uint64_t>()));
  return out;
}
uint32_t small(const json& j, const char* key) {
  const uint64_t v = count(j, key);
  return v <= UINT32_MAX ? uint32_t(v) : 0;
}
std::optional<int> optionalInt(const json& j, const char* key) {
  const json& v = at(j, key);
  if (!v.is_number_integer() || v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX) return std::nullopt;
  return int(v.get<int64_t>());
}
double real(const json& j, const char* key) {
  const json& v = at(j, key);
  return v.is_number() ? v.get<double>() : 0;
}
bool flag(const json& j, const char* key, bool otherwise = false) {
  const json& v = at(j, key);
  return v.is_boolean() ? v.get<bool>() : otherwise;
}
std::optional<bool> optionalFlag(const json& j, const char* key) {
  const json& v = at(j, key);
  return v.is_boolean() ? std::optional<bool>(v.get<bool>()) : std::nullopt;
}
const json& array(const json& j, const char* key) {
  static const json empty = json::array();
  const json& v = at(j, key);
  return v.is_array() ? v : empty;
}

// The enum value `name` gives back (`otherwise` for an unknown name).
template <class E>
E byName(const std::string& name, const char* (*nameOf)(E), E last, E otherwise) {
  for (unsigned i = 0; i <= unsigned(last); ++i)
    if (name == nameOf(E(i))) return E(i);
  return otherwise;
}

// The name table a read report's program is: files, functions, and for each
// spawn step a Spawn instruction naming the function it starts.
class Names {
 public:
  std::shared_ptr<Program> prog = std::make_shared<Program>();
  uint32_t file(const std::string& f) { return f.empty() ? 0 : prog->fileIndex(f); }
  SourceLoc loc(const json& j) { return {file(text(j, "file")), small(j, "line"), small(j, "column")}; }
  uint32_t function(const std::string& name) {
    for (size_t i = 0; i < prog->functions.size(); ++i)
      if (prog->functions[i].name == name) return uint32_t(i);
    prog->functions.push_back(Function{});
    prog->functions.back().name = name;
    return uint32_t(prog->functions.size() - 1);
  }
  // The pc of a Spawn of `target` in function fn.
  uint32_t spawnSite(uint32_t fn, uint32_t target) {
    std::vector<Instr>& code = prog->functions[fn].code;
    for (size_t pc = 0; pc < code.size(); ++pc)
      if (code[pc].imm == target) return uint32_t(pc);
    Instr in;
    in.op = Op::Spawn;
    in.imm = target;
    code.push_back(in);
    return uint32_t(code.size() - 1);
  }
};

BufferEntry entryFrom(const json& j) {
  BufferEntry e;
  e.name = text(j, "address");
  e.value = count(j, "value");
  e.storeStep = small(j, "store_step");
  return e;
}

TraceStep stepFrom(const json& j, Names& names) {
  TraceStep s;
  s.step = small(j, "step");
  s.thread = small(j, "thread");
  s.kind = byName(text(j, "event"), stepKindName, StepKind::Atomic, StepKind::Store);
  if (at(j, "address").is_string()) {
    s.hasAddr = true;
    s.addrName = text(j, "address");
  }
  if (natural(j, "value")) {
    s.hasValue = true;
    s.value = count(j, "value");
  }
  s.loc = names.loc(j);
  s.note = text(j, "note");
  s.function = s.pc = UINT32_MAX;
  if (at(j, "function").is_string()) {
    s.function = names.function(text(j, "function"));
    if (s.kind == StepKind::Spawn && at(j, "spawns").is_string())
      s.pc = names.spawnSite(s.function, names.function(text(j, "spawns")));
  }
  if (natural(j, "spawned")) s.spawned = small(j, "spawned");
  for (const json& b : array(j, "buffers")) {
    s.buffers.emplace_back();
    if (b.is_array())
      for (const json& e : b)
        if (e.is_object()) s.buffers.back().push_back(entryFrom(e));
  }
  if (const json& st = at(j, "stale"); st.is_object()) {
    s.staleThread = small(st, "thread");
    s.staleEntry = entryFrom(st);
  }
  if (const json& r = at(j, "rc11"); r.is_object()) {
    TraceStep::Rc11Facts f;
    f.order = byName(text(r, "order"), memOrderName, MemOrder::NonAtomic, MemOrder::NonAtomic);
    if (natural(r, "event")) s.event = small(r, "event");
    if (natural(r, "read")) {
      f.reads = true;
      f.read = count(r, "read");
      f.readsFrom = small(r, "reads_from");
      f.readCo = optionalInt(r, "read_co").value_or(-1);
    }
    f.writeCo = optionalInt(r, "write_co").value_or(-1);
    f.init = count(r, "init");
    f.sw = path(r, "sw");
    f.hb = path(r, "hb");
    s.rc11 = std::move(f);
  }
  return s;
}

Violation violationFrom(const json& j, Names& names) {
  Violation v;
  v.kind = byName(text(j, "kind"), errorKindName, ErrorKind::DataRace, ErrorKind::None);
  v.message = text(j, "message");
  v.loc = names.loc(j);
  v.thread = small(j, "thread");
  v.preemptions = optionalInt(j, "preemptions").value_or(-1);
  v.aboveBound = flag(j, "above_bound");
  v.warning = text(j, "severity") == "warning";
  if (const json& o = at(j, "other"); o.is_object()) v.other = Violation::Access{small(o, "thread"), names.loc(o)};
  for (const json& s : array(j, "trace"))
    if (s.is_object()) v.trace.push_back(stepFrom(s, names));
  if (const json& o = at(j, "order"); o.is_object()) v.shardOrder = Violation::ShardOrder{path(o, "start"), small(o, "index")};
  return v;
}

std::vector<FenceEdit> fencesFrom(const json& a) {
  std::vector<FenceEdit> out;
  for (const json& f : a)
    if (f.is_object())
      out.push_back({text(f, "file"), small(f, "line"), small(f, "column"), text(f, "text"), text(f, "replaces"),
                     text(f, "access")});
  return out;
}

frontend::Diagnostic diagnosticFrom(const json& j) {
  return {text(j, "file"), small(j, "line"), small(j, "column"), text(j, "severity"), text(j, "message")};
}

std::optional<RobustnessResult> robustnessFrom(const json& j, Names& names) {
  if (!j.is_object()) return std::nullopt;
  RobustnessResult r;
  r.robust = flag(j, "robust", true);
  r.complete = flag(j, "complete", true);
  r.message = text(j, "message");
  if (at(j, "witness").is_object()) r.witness = violationFrom(at(j, "witness"), names);
  r.point = text(j, "point");
  r.witnessIsViolation = flag(j, "witness_is_violation");
  return r;
}

std::optional<CheckReport::FenceSynthesis> fenceSynthesisFrom(const json& j) {
  if (!j.is_object()) return std::nullopt;
  CheckReport::FenceSynthesis f;
  f.outcome = text(j, "outcome");
  f.rounds = optionalInt(j, "rounds").value_or(0);
  f.seconds = real(j, "seconds");
  f.budgetSeconds = real(j, "time_limit");
  f.stopped = flag(j, "stopped");
  f.minimal = optionalFlag(j, "minimal");
  f.seedFences = count(j, "seed_fences");
  f.partial = fencesFrom(array(j, "partial"));
  return f;
}

// "lo..hi" (the default range when it does not parse).
std::pair<int64_t, int64_t> rangeFrom(const std::string& s, std::pair<int64_t, int64_t> otherwise) {
  const size_t dots = s.find("..");
  if (dots == std::string::npos) return otherwise;
  try {
    size_t n1 = 0, n2 = 0;
    const int64_t lo = std::stoll(s.substr(0, dots), &n1), hi = std::stoll(s.substr(dots + 2), &n2);
    if (n1 != dots || n2 != s.size() - dots - 2) return otherwise;
    return {lo, hi};
  } catch (const std::exception&) {
    return otherwise;
  }
}

// A shard's part of the search (shardJson).
void shardFrom(const json& j, CheckReport& r) {
  if (!j.is_object()) return;
  r.shard = CheckOptions::Shard{small(j, "index"), small(j, "count"), small(j, "depth")};
  ShardOutcome o;
  for (const json& p : array(j, "pieces")) {
    if (!p.is_object()) continue;
    ShardPiece piece;
    piece.start = path(p, "start");
    for (const json& c : array(p, "counts")) piece.counts.push_back(c.is_number_unsigned() ? c.get<uint64_t>() : 0);
    for (const json& l : array(p, "limits"))
      if (l.is_string()) piece.limits.push_back(l.get<std::string>());
    piece.nondetLimited = flag(p, "nondet_limited");
    piece.engineError = text(p, "engine_error");
    o.pieces.push_back(std::move(piece));
  }
  if (at(j, "stop").is_array()) o.stop = path(j, "stop");
  o.timedOut = flag(j, "timed_out");
  if (const json& opts = at(j, "options"); opts.is_object()) r.shardOptions = opts.dump(-1, ' ', false, json::error_handler_t::replace);
  for (const json& a : array(j, "clang_args"))
    if (a.is_string()) r.shardClangArgs.push_back(a.get<std::string>());
  r.result.shard = std::move(o);
}

void resultFrom(const json& j, CheckResult& r, Names& names) {
  r.status = byName(text(j, "status"), statusName, Status::Error, Status::Error);
  r.executions = count(j, "executions");
  r.blocked = count(j, "blocked");
  r.cut = count(j, "cut");
  r.elapsedMs = real(j, "elapsed_ms");
  r.events = count(j, "events");
  r.message = text(j, "message");
  for (const json& l : array(j, "limits"))
    if (l.is_string()) r.limitsHit.push_back(l.get<std::string>());
  if (at(j, "violation").is_object()) r.violation = violationFrom(at(j, "violation"), names);
  for (const json& v : array(j, "violations"))
    if (v.is_object()) r.violations.push_back(violationFrom(v, names));
  r.boundBlocked = count(j, "bound_blocked");
  r.boundBlockedSettled = count(j, "bound_blocked_settled");
  r.staleWaits = count(j, "stale_waits");
  r.staleReads = count(j, "stale_reads");
  r.slackExecutions = count(j, "slack_executions");
  r.boundDropped = flag(j, "bound_dropped");
  r.robustness = robustnessFrom(at(j, "robustness"), names);
}

}  // namespace

CheckReport checkFromJson(const json& j) {
  CheckReport r;
  Names names;
  r.file = text(j, "file");
  r.function = text(j, "function");
  r.line = small(j, "line");
  r.column = small(j, "column");
  r.model = parseModel(text(j, "model")).value_or(kDefaultModel);
  r.bufferBound = optionalInt(j, "buffer_bound");
  r.preemptionBound = optionalInt(j, "preemption_bound");
  if (natural(j, "loop_bound")) r.loopBound = small(j, "loop_bound");
  r.nondetRange = rangeFrom(text(j, "nondet_range"), r.nondetRange);
  r.lowerMs = real(j, "lower_ms");
  resultFrom(j, r.result, names);
  for (const json& w : array(j, "warnings"))
    if (w.is_object()) r.warnings.push_back(diagnosticFrom(w));
  r.deadlocks = byName(text(j, "deadlocks"), deadlockModeName, DeadlockMode::Ignore, DeadlockMode::Error);
  r.raceCheck = flag(j, "race_check", true);
  r.exitEndsProgram = flag(j, "exit_ends_program", true);
  r.spuriousWakeups = flag(j, "spurious_wakeups", true);
  const json& b = at(j, "bounds");
  r.bounds = {optionalInt(b, "preemptions"), optionalInt(b, "buffer"), std::nullopt, optionalInt(b, "fixpoint_k")};
  if (natural(b, "loop")) r.bounds.loop = small(b, "loop");
  r.fences = fencesFrom(array(j, "fences"));
  r.fenceNote = text(j, "fence_note");
  r.fencesVerified = optionalFlag(j, "fences_verified");
  r.fenceSynthesis = fenceSynthesisFrom(at(j, "fence_synthesis"));
  if (at(j, "error").is_object()) r.errorAt = diagnosticFrom(at(j, "error"));
  shardFrom(at(j, "shard"), r);
  r.fingerprint = text(j, "fingerprint");
  r.program = std::move(names.prog);
  return r;
}

std::vector<FileReport> resultsFromJson(const json& j) {
  std::vector<FileReport> out;
  for (const json& c : array(j, "results")) {
    if (!c.is_object()) continue;
    CheckReport r = checkFromJson(c);
    if (out.empty() || out.back().file != r.file) {
      out.emplace_back();
      out.back().file = r.file;
    }
    out.back().checks.push_back(std::move(r));
  }
  for (const json& e : array(j, "errors")) {
    if (!e.is_object()) continue;
    FileReport f;
    f.file = text(e, "file");
    f.inputError = true;
    f.inputMessage = text(e, "message");
    for (const json& d : array(e, "diagnostics"))
      if (d.is_object()) f.diagnostics.push_back(diagnosticFrom(d));
    out.push_back(std::move(f));
  }
  return out;
}

// An entry is input: every field the features read must have the type
// checkJson gives it, else the entry is a miss (never an exception later).

namespace {

enum class T { Str, Int, Num, Bool, IntOrNull, StrOrNull, BoolOrNull, ObjOrNull, StrArray };

bool has(const json& v, T t) {
  switch (t) {
    case T::Str: return v.is_string();
    case T::Int: return v.is_number_integer();
    case T::Num: return v.is_number();
    case T::Bool: return v.is_boolean();
    case T::IntOrNull: return v.is_null() || v.is_number_integer();
    case T::StrOrNull: return v.is_null() || v.is_string();
    case T::BoolOrNull: return v.is_null() || v.is_boolean();
    case T::ObjOrNull: return v.is_null() || v.is_object();
    case T::StrArray:
      if (!v.is_array()) return false;
      for (const auto& e : v)
        if (!e.is_string()) return false;
      return true;
  }
  return false;
}

bool fields(const json& o, std::initializer_list<std::pair<const char*, T>> spec) {
  if (!o.is_object()) return false;
  for (const auto& [key, t] : spec) {
    auto it = o.find(key);
    if (it == o.end() || !has(*it, t)) return false;
  }
  return true;
}

bool validStep(const json& s) {
  if (!fields(s, {{"step", T::Int}, {"thread", T::Int}, {"function", T::StrOrNull}, {"spawns", T::StrOrNull},
                  {"event", T::Str}, {"address", T::StrOrNull}, {"value", T::IntOrNull}, {"file", T::Str},
                  {"line", T::Int}, {"column", T::Int}, {"note", T::Str}, {"rc11", T::ObjOrNull}}))
    return false;
  auto b = s.find("buffers");
  if (b == s.end() || !b->is_array()) return false;
  for (const auto& buf : *b) {
    if (!buf.is_array()) return false;
    for (const auto& e : buf)
      if (!fields(e, {{"address", T::Str}, {"value", T::Int}})) return false;
  }
  return true;
}

bool validViolation(const json& v) {
  if (!fields(v, {{"kind", T::Str}, {"message", T::Str}, {"file", T::Str}, {"line", T::Int}, {"column", T::Int},
                  {"thread", T::Int}, {"preemptions", T::IntOrNull}, {"above_bound", T::Bool}}))
    return false;
  auto t = v.find("trace");
  if (t == v.end() || !t->is_array()) return false;
  for (const auto& s : *t)
    if (!validStep(s)) return false;
  return true;
}

}  // namespace

bool completeCheckJson(const json& j) {
  if (!fields(j, {{"file", T::Str}, {"function", T::Str}, {"line", T::Int}, {"column", T::Int}, {"model", T::Str},
                  {"buffer_bound", T::IntOrNull}, {"preemption_bound", T::IntOrNull}, {"loop_bound", T::Int},
                  {"status", T::Str}, {"executions", T::Int}, {"blocked", T::Int}, {"cut", T::Int},
                  {"elapsed_ms", T::Num}, {"lower_ms", T::Num}, {"events", T::Int}, {"message", T::Str},
                  {"limits", T::StrArray}, {"bound_blocked", T::Int}, {"stale_waits", T::Int}, {"stale_reads", T::Int}, {"slack_executions", T::Int},
                  {"bound_dropped", T::Bool}, {"fence_note", T::Str}, {"fences_verified", T::BoolOrNull}}))
    return false;
  const auto& v = j["violation"];
  if (!v.is_null() && !validViolation(v)) return false;
  if (!fields(j["bounds"], {{"preemptions", T::IntOrNull}, {"buffer", T::IntOrNull}, {"loop", T::IntOrNull},
                            {"fixpoint_k", T::IntOrNull}}))
    return false;
  if (!j["fences"].is_array()) return false;
  for (const auto& f : j["fences"])
    if (!fields(f, {{"file", T::Str}, {"line", T::Int}, {"column", T::Int}, {"text", T::Str}})) return false;
  const auto& r = j["robustness"];
  if (!r.is_null()) {
    if (!fields(r, {{"robust", T::Bool}, {"complete", T::Bool}, {"message", T::Str}, {"point", T::Str},
                    {"witness_is_violation", T::Bool}}))
      return false;
    if (!r.contains("witness") || (!r["witness"].is_null() && !validViolation(r["witness"]))) return false;
  }
  if (j.contains("error") &&
      !fields(j["error"], {{"file", T::Str}, {"line", T::Int}, {"column", T::Int}, {"message", T::Str}}))
    return false;
  return true;
}

}  // namespace tsocheck

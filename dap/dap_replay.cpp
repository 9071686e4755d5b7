#include "dap/dap_replay.h"

#include <algorithm>

#include "service/report_json.h"
#include "service/report_reader.h"

namespace tsocheck::dap {

namespace {

json valueOf(const TraceStep& s) { return s.hasValue ? json(s.value) : json(nullptr); }

std::string addressOf(const TraceStep& s) { return s.hasAddr ? s.addrName : std::string(); }

bool isLoad(StepKind k) { return k == StepKind::LoadMem || k == StepKind::LoadBuf || k == StepKind::Rmw; }

json pendingJson(const PendingStore& p) {
  return {{"thread", p.thread}, {"address", p.address}, {"value", p.value},
          {"file", p.file},     {"line", p.line},       {"column", p.column}};
}

}  // namespace

std::optional<Replay> Replay::fromCheck(const json& check, std::string* error) {
  if (!check.is_object()) {
    if (error) *error = "not a check result";
    return std::nullopt;
  }
  return fromReport(checkFromJson(check), error);
}

std::optional<Replay> Replay::fromReport(const CheckReport& check, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<Replay> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (!check.result.violation || !check.program)
    return fail("`" + check.function + "` has no violation to replay (" + statusName(check.result.status) + ")");
  const std::vector<TraceStep>& trace = check.result.violation->trace;
  if (trace.empty()) return fail("the violation has no trace");
  Replay r;
  r.report_ = check;
  r.check_ = checkJson(check);
  const Program& prog = *check.program;
  r.violation_ = violationJson(prog, *check.result.violation, false);
  r.memory_ = knownMemory(trace, check.model);
  for (size_t i = 0; i < trace.size(); ++i) r.steps_.push_back(payloadStep(prog, trace, i, r.memory_[i]));
  for (const TraceStep& s : trace)
    r.threads_ = std::max({r.threads_, s.thread + 1, uint32_t(s.buffers.size())});
  r.startFunction_.assign(r.threads_, "");
  r.spawnIndex_.assign(r.threads_, SIZE_MAX);
  if (r.threads_ > 0) r.startFunction_[0] = "main";
  r.stepsOf_.assign(r.threads_, {});
  r.allReads_.assign(r.threads_, {});
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceStep& s = trace[i];
    if (s.kind == StepKind::Spawn && s.spawned < r.threads_) {
      r.startFunction_[s.spawned] = spawnsFunction(check.program.get(), s).value_or("");
      r.spawnIndex_[s.spawned] = std::min(r.spawnIndex_[s.spawned], i);
    }
    if (s.thread >= r.threads_) continue;
    r.stepsOf_[s.thread].push_back(i);
    if (isLoad(s.kind))
      r.allReads_[s.thread].push_back(
          {addressOf(s), valueOf(s), s.kind == StepKind::LoadBuf, s.kind == StepKind::Rmw, s.loc.line, i});
  }
  return r;
}

std::string Replay::fileOf(size_t i) const { return fileIn(report_.program.get(), traceStep(i).loc); }

bool Replay::next() {
  if (atEnd()) return false;
  ++pos_;
  return true;
}

bool Replay::back() {
  if (pos_ == 0) return false;
  --pos_;
  return true;
}

std::string Replay::label(size_t i) const { return stepLabel(traceStep(i)); }

std::string Replay::nextEventLabel() const {
  return atEnd() ? std::string("— end of trace (violation)") : label(pos_ + 1);
}

std::string Replay::threadName(uint32_t t) const {
  std::string n = "T" + std::to_string(t);
  if (t < startFunction_.size() && !startFunction_[t].empty()) n += " (" + startFunction_[t] + ")";
  return n;
}

std::optional<size_t> Replay::lastStepOf(uint32_t t) const {
  if (t >= stepsOf_.size()) return std::nullopt;
  const auto& mine = stepsOf_[t];
  auto it = std::upper_bound(mine.begin(), mine.end(), pos_);
  if (it == mine.begin()) return std::nullopt;
  return *std::prev(it);
}

bool Replay::started(uint32_t t) const { return t == 0 || lastStepOf(t).has_value(); }

bool Replay::spawned(uint32_t t) const {
  if (t == 0) return true;
  if (t < spawnIndex_.size() && spawnIndex_[t] <= pos_) return true;
  return started(t);  // a thread whose spawn step is missing exists once it runs
}

bool Replay::exited(uint32_t t) const {
  auto i = lastStepOf(t);
  return i && traceStep(*i).kind == StepKind::Exit;
}

Replay::Buffers Replay::buffersAt(size_t i) const {
  // The step's buffers as the engine wrote them, each entry sourced by its
  // store step (storeStep: 1-based; 0 when the store is not shown).
  Buffers buffers(threads_);
  const std::vector<std::vector<BufferEntry>>& bufs = traceStep(i).buffers;
  for (uint32_t u = 0; u < threads_ && u < bufs.size(); ++u)
    for (const BufferEntry& e : bufs[u]) {
      PendingStore p{u, e.name, json(e.value), "", 0, 0, 0};
      const uint32_t at = e.storeStep;
      if (at >= 1 && at <= steps_.size()) {
        p.file = fileOf(at - 1);
        p.line = traceStep(at - 1).loc.line;
        p.column = traceStep(at - 1).loc.column;
        p.storeIndex = at - 1;
      }
      buffers[u].push_back(std::move(p));
    }
  return buffers;
}

ReplayState Replay::finish(Buffers buffers, size_t upTo) const {
  ReplayState st;
  st.index = upTo;
  st.buffers = std::move(buffers);
  st.reads.assign(threads_, {});
  for (uint32_t t = 0; t < threads_ && t < allReads_.size(); ++t)
    for (const ReadRecord& rd : allReads_[t]) {
      if (rd.index > upTo) break;
      st.reads[t].push_back(rd);
    }
  if (steps_.empty()) return st;
  st.memory = json::object();
  for (const auto& [a, v] : memory_[upTo]) st.memory[a] = v;
  const TraceStep& s = traceStep(upTo);
  if (s.staleThread != TraceStep::kNoThread) {
    const uint32_t at = s.staleEntry.storeStep;
    const TraceStep* store = at >= 1 && at <= steps_.size() ? &traceStep(at - 1) : nullptr;
    st.staleRead = StaleRead{s.thread,
                             addressOf(s),
                             valueOf(s),
                             fileOf(upTo),
                             s.loc.line,
                             s.loc.column,
                             s.staleThread,
                             json(s.staleEntry.value),
                             store ? store->loc.line : 0,
                             store ? store->loc.column : 0};
  }
  return st;
}

ReplayState Replay::stateAt(size_t upTo) const {
  upTo = std::min(upTo, steps_.empty() ? size_t(0) : steps_.size() - 1);
  if (cache_ && cache_->index == upTo) return *cache_;
  if (steps_.empty()) return finish(Buffers(threads_), 0);
  return finish(buffersAt(upTo), upTo);
}

const ReplayState& Replay::state() const {
  if (!cache_ || cache_->index != pos_) cache_ = stateAt(pos_);
  return *cache_;
}

bool Replay::rc11() const { return MemoryModel{report_.model}.usesC11Orders(); }

std::vector<ReadableLocation> Replay::mayRead(uint32_t t) const {
  if (!rc11()) return {};
  return readableWrites(replayedViolation().trace, pos_, t);
}

json Replay::stateJson() const {
  const ReplayState& st = state();
  json cur = current();
  json pending = json::array();
  for (const auto& b : st.buffers)
    for (const PendingStore& p : b) pending.push_back(pendingJson(p));
  json stale = nullptr;
  if (st.staleRead) {
    const StaleRead& r = *st.staleRead;
    stale = {{"thread", r.thread},       {"address", r.address},         {"value", r.value},
             {"file", r.file},           {"line", r.line},               {"column", r.column},
             {"pendingIn", r.pendingIn}, {"pendingValue", r.pendingValue}, {"pendingLine", r.pendingLine}};
  }
  json mayReadJson = nullptr;  // RC11: per thread, [{address, text}]
  if (rc11()) {
    mayReadJson = json::array();
    for (uint32_t t = 0; t < threads_; ++t) {
      json locs = json::array();
      for (const ReadableLocation& l : mayRead(t)) locs.push_back({{"address", l.address}, {"text", readableText(l)}});
      mayReadJson.push_back(std::move(locs));
    }
  }
  return {{"step", pos_},
          {"mayRead", mayReadJson},
          {"total", steps_.size()},
          {"current", cur},
          {"next", nextEventLabel()},
          {"memory", st.memory},
          {"pending", pending},
          {"staleRead", stale},
          {"violation", violation_},
          {"function", report_.function},
          {"model", modelName(report_.model)}};
}

}  // namespace tsocheck::dap

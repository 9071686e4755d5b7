#include "dap/dap_session.h"

#include <filesystem>
#include <sstream>

#include "service/json_text.h"
#include "service/report_reader.h"

namespace tsocheck::dap {

namespace {

// variablesReference numbering. The scopes are fixed; the per-thread ones add
// the thread id. Every reference is resolved against the current position, so
// a reference from an earlier stop shows the state of the current one.
constexpr int64_t kMemoryRef = 1, kBuffersRef = 2, kNextRef = 3, kMayReadRef = 4;
constexpr int64_t kReadsBase = 1'000'000, kBufferBase = 2'000'000, kMayReadBase = 3'000'000;

std::string basename(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string absolute(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string where(const std::string& file, uint32_t line, uint32_t column) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}


// "step 4": trace index i as the labels number it.
std::string stepName(const Replay& r, size_t i) { return "step " + std::to_string(r.traceStep(i).step); }

// "`sb_fenced`: verified under TSO · 3 executions · 0.2 ms"
std::string verdictLine(const CheckReport& c) {
  std::ostringstream ms;
  ms.precision(3);
  ms << c.result.elapsedMs;
  const std::string status = statusName(c.result.status);
  std::string s = "`" + c.function + "`: " + status + " under " + modelName(c.model) + " · " +
                  std::to_string(c.result.executions) + " executions · " + ms.str() + " ms";
  if (status != "verified" && status != "violation" && !c.result.message.empty()) s += " (" + c.result.message + ")";
  return s;
}

// The error message of a file that could not be checked: the runner's
// message plus the compiler's error diagnostics (file:line:col: message).
std::string inputErrorText(const FileReport& fr) {
  std::string msg = fr.inputMessage;
  int shown = 0;
  for (const auto& d : fr.diagnostics) {
    if (d.severity != "error") continue;
    if (shown++ == 5) {
      msg += "\n…";
      break;
    }
    msg += "\n" + where(d.file, d.line, d.column) + ": error: " + d.message;
  }
  return msg;
}

// The check a launch replays: the one named, or the first violation (else
// the first error); nullptr (and *error) when the one named is missing.
const CheckReport* chooseCheck(const FileReport& fr, const std::string& function, std::optional<std::string>& error) {
  const CheckReport* chosen = nullptr;
  if (!function.empty()) {
    std::string names;
    for (const CheckReport& c : fr.checks) {
      if (c.function == function) chosen = &c;
      names += (names.empty() ? "" : ", ") + c.function;
    }
    if (!chosen) error = "no check function `" + function + "` in " + fr.file + "; check functions: " + names;
    return chosen;
  }
  for (const CheckReport& c : fr.checks)
    if (!chosen && c.result.status == Status::Violation) chosen = &c;
  for (const CheckReport& c : fr.checks)
    if (!chosen && c.result.status == Status::Error) chosen = &c;
  return chosen;
}

}  // namespace

LaunchOutcome decide(const FileReport& fr, const std::string& function) {
  LaunchOutcome out;
  if (fr.inputError) {
    out.error = inputErrorText(fr);
    return out;
  }
  const CheckReport* chosen = chooseCheck(fr, function, out.error);
  if (out.error) return out;
  if (chosen && chosen->result.status == Status::Error) {
    std::string msg = "`" + chosen->function + "` was not checked: " + chosen->result.message;
    if (const auto& e = chosen->errorAt) msg += " (at " + where(e->file, e->line, e->column) + ")";
    out.error = msg;
    return out;
  }
  if (chosen && chosen->result.status == Status::Violation) {
    std::string why;
    out.replay = Replay::fromReport(*chosen, &why);
    if (!out.replay) out.error = why;
    return out;
  }
  for (const CheckReport& c : fr.checks)
    if (!chosen || &c == chosen) out.verdicts.push_back(verdictLine(c));
  return out;
}

RunOptions Session::takeLaunchArgs(const json& args) {
  launch = readArguments<LaunchArguments>(args);
  launchArgs = args;
  RunOptions opts;
  opts.fences = false;
  applyOptions(launch.options, opts);
  return opts;
}

Replay& Session::needReplay() {
  if (!replay) throw DapError{running ? "the check is still running" : "no trace to replay (launch first)"};
  return *replay;
}

const Replay& Session::needReplay() const { return const_cast<Session*>(this)->needReplay(); }

std::string Session::programPath() const { return absolute(launch.program); }

std::string Session::replayIntro() const {
  const Replay& r = needReplay();
  std::string out = "`" + r.report().function + "` violates under " + modelName(r.report().model) + ": " +
                    r.replayedViolation().message + " — " + std::to_string(r.size()) +
                    " steps (step over / step back to move through them)\n";
  for (const std::string& line : violationSummary(r.report().program.get(), r.replayedViolation()))
    out += "  " + line + "\n";
  return out;
}

// A stop at the position; at the last step the reason is the violation.
// `description` is the badge a client draws beside the thread's name, so it
// stays short ("step 4/19", "exited · step 10/19", "violation · step
// 19/19"); the step's label (or the violation message) is in `text`.
json Session::stoppedBody(const std::string& reason) const {
  const Replay& r = needReplay();
  const bool last = r.atEnd();
  const uint32_t t = r.traceStep(r.position()).thread;
  const std::string at = "step " + std::to_string(r.position() + 1) + "/" + std::to_string(r.size());
  std::string badge = at;
  if (last) badge = "violation · " + at;
  else if (r.exited(t)) badge = "exited · " + at;
  return {{"reason", last ? "exception" : reason},
          {"threadId", t + 1},
          {"allThreadsStopped", true},
          {"description", badge},
          {"text", last ? "Violation: " + r.replayedViolation().message : r.label(r.position())}};
}

json Session::exceptionInfo() const {
  const Replay& r = needReplay();
  const Violation& v = r.replayedViolation();
  const std::string file = fileIn(r.report().program.get(), v.loc);
  return {{"exceptionId", errorKindName(v.kind)},
          {"description", v.message + " (" + where(file, v.loc.line, v.loc.column) + ")"},
          {"breakMode", "always"}};
}

// The threads that are alive at the position: not-yet-spawned and finished
// ones are left out (VS Code drops a thread that leaves the list, and would
// draw "Paused" beside a finished one), except the thread whose exit is the
// current step, which the stop names: it reads "T1 (worker) · exited".
json Session::threads() const {
  json list = json::array();
  if (replay) {
    const uint32_t current = replay->traceStep(replay->position()).thread;
    for (uint32_t t = 0; t < replay->threadCount(); ++t) {
      if (!replay->spawned(t) || (replay->exited(t) && t != current)) continue;
      list.push_back({{"id", t + 1}, {"name", replay->threadName(t) + (replay->exited(t) ? " · exited" : "")}});
    }
  }
  return {{"threads", list}};
}

json Session::stackTrace(int64_t id) const {
  const Replay& r = needReplay();
  json frames = json::array();
  if (id >= 1 && id <= int64_t(r.threadCount())) {
    const uint32_t t = uint32_t(id - 1);
    if (auto i = r.lastStepOf(t)) {
      const TraceStep& s = r.traceStep(*i);
      const std::string file = absolute(r.fileOf(*i));
      json frame = {{"id", id}, {"name", r.label(*i)}, {"line", line(s.loc.line)}, {"column", column(s.loc.column)}};
      if (!r.fileOf(*i).empty()) frame["source"] = {{"name", basename(file)}, {"path", file}};
      if (*i != r.position()) frame["presentationHint"] = "subtle";
      frames.push_back(frame);
    } else {
      frames.push_back({{"id", id},
                        {"name", r.threadName(t) + " has not started yet"},
                        {"line", 0},
                        {"column", 0},
                        {"presentationHint", "label"}});
    }
  }
  return {{"stackFrames", frames}, {"totalFrames", frames.size()}};
}

json Session::scopes() const {
  const Replay& r = needReplay();
  json list = json::array();
  auto scope = [&](const std::string& name, int64_t ref, bool expensive = false) {
    list.push_back({{"name", name}, {"variablesReference", ref}, {"expensive", expensive}});
  };
  scope("Shared memory", kMemoryRef);
  // RC11 has no store buffers: what each thread may still read instead.
  if (r.rc11()) scope("May read", kMayReadRef);
  else scope("Store buffers", kBuffersRef);
  for (uint32_t t = 0; t < r.threadCount(); ++t) scope("T" + std::to_string(t) + " reads", kReadsBase + t);
  scope("Next event", kNextRef);
  return {{"scopes", list}};
}

namespace {

json variable(const std::string& name, const std::string& value, int64_t child = 0) {
  return {{"name", name}, {"value", value}, {"variablesReference", child}};
}

}  // namespace

// Every thread's store buffer in one line each (a non-empty one expands).
json Session::bufferVariables(const Replay& r, const ReplayState& st) const {
  json vars = json::array();
  for (uint32_t t = 0; t < r.threadCount(); ++t) {
    const auto& b = st.buffers[t];
    std::string summary;
    for (const PendingStore& p : b) summary += (summary.empty() ? "" : ", ") + p.address + " = " + dumpJson(p.value);
    vars.push_back(variable(r.threadName(t), b.empty() ? "empty" : "[" + summary + "]", b.empty() ? 0 : kBufferBase + t));
  }
  return vars;
}

// Per thread that exists at the position, the locations it may still read
// and the writes it may read there (a thread expands to them).
json Session::mayReadVariables(const Replay& r) const {
  json vars = json::array();
  for (uint32_t t = 0; t < r.threadCount(); ++t) {
    if (!r.spawned(t)) continue;
    std::string summary;
    const std::vector<ReadableLocation> locs = r.mayRead(t);
    for (const ReadableLocation& l : locs) {
      std::string values;
      for (const ReadableWrite& w : l.writes) values += (values.empty() ? "" : " or ") + std::to_string(w.value);
      summary += (summary.empty() ? "" : " · ") + l.address + ": " + values;
    }
    vars.push_back(variable(r.threadName(t), locs.empty() ? "nothing written yet" : summary, locs.empty() ? 0 : kMayReadBase + t));
  }
  return vars;
}

json Session::readVariables(const Replay& r, const ReplayState& st, uint32_t thread) const {
  json vars = json::array();
  // (RC11 has no memory or buffers to serve a read.)
  const std::string plain = r.rc11() ? " (" : " (memory, ";
  for (const ReadRecord& rd : st.reads[thread])
    vars.push_back(variable(rd.address, dumpJson(rd.value) +
                                            (rd.rmw ? " (read-modify-write, " : rd.fromBuffer ? " (own buffer, " : plain) +
                                            "line " + std::to_string(rd.line) + ", " + stepName(r, rd.index) + ")"));
  if (vars.empty()) vars.push_back(variable("(nothing read yet)", ""));
  return vars;
}

json Session::variables(int64_t ref) const {
  const Replay& r = needReplay();
  const ReplayState& st = r.state();
  json vars = json::array();
  if (ref == kMemoryRef) {
    for (const auto& [addr, v] : st.memory.items()) vars.push_back(variable(addr, dumpJson(v)));
    if (st.memory.empty()) vars.push_back(variable("(none known yet)", "every location holds its initial value"));
  } else if (ref == kBuffersRef) {
    vars = bufferVariables(r, st);
  } else if (ref == kMayReadRef) {
    vars = mayReadVariables(r);
  } else if (ref >= kMayReadBase && ref < kMayReadBase + int64_t(r.threadCount())) {
    for (const ReadableLocation& l : r.mayRead(uint32_t(ref - kMayReadBase)))
      vars.push_back(variable(l.address, readableText(l)));
  } else if (ref >= kBufferBase && ref < kBufferBase + int64_t(r.threadCount())) {
    for (const PendingStore& p : st.buffers[size_t(ref - kBufferBase)])
      vars.push_back(variable(p.address + " = " + dumpJson(p.value),
                              p.line ? "line " + std::to_string(p.line) + " (" + where(basename(p.file), p.line, p.column) +
                                           ", " + stepName(r, p.storeIndex) + ")"
                                     : "line ?"));
  } else if (ref >= kReadsBase && ref < kReadsBase + int64_t(r.threadCount())) {
    vars = readVariables(r, st, uint32_t(ref - kReadsBase));
  } else if (ref == kNextRef) {
    vars.push_back(variable("next", r.nextEventLabel()));
    if (st.staleRead) {
      const StaleRead& s = *st.staleRead;
      vars.push_back(variable("stale read", "T" + std::to_string(s.thread) + " read " + s.address + " = " +
                                                dumpJson(s.value) + " from memory while T" + std::to_string(s.pendingIn) +
                                                " still buffers " + s.address + " = " + dumpJson(s.pendingValue) +
                                                " (line " + std::to_string(s.pendingLine) + ")"));
    }
  } else {
    throw DapError{"unknown variablesReference " + std::to_string(ref)};
  }
  return {{"variables", vars}};
}

// A shared location by name (hovers, the debug console): its value in
// memory and in every store buffer after the current step. `flag` also
// matches the elements flag[i].
std::string Session::evaluate(std::string e) const {
  const Replay& r = needReplay();
  e.erase(0, e.find_first_not_of(" \t"));
  e.erase(e.find_last_not_of(" \t") + 1);
  auto matches = [&](const std::string& addr) { return addr == e || addr.rfind(e + "[", 0) == 0; };
  const ReplayState& st = r.state();
  std::string result;
  auto add = [&](const std::string& part) { result += (result.empty() ? "" : "; ") + part; };
  for (const auto& [addr, v] : st.memory.items())
    if (!e.empty() && matches(addr)) add(addr + " = " + dumpJson(v) + " in memory");
  for (uint32_t t = 0; t < r.threadCount(); ++t)
    for (const PendingStore& p : st.buffers[t])
      if (!e.empty() && matches(p.address))
        add(p.address + " = " + dumpJson(p.value) + " in T" + std::to_string(t) + "'s buffer (line " +
            std::to_string(p.line) + ")");
  for (uint32_t t = 0; t < r.threadCount(); ++t)
    if (r.spawned(t))
      for (const ReadableLocation& l : r.mayRead(t))
        if (!e.empty() && matches(l.address)) add("T" + std::to_string(t) + " may read " + l.address + " = " + readableText(l));
  if (result.empty()) throw DapError{"`" + e + "`: no value known at this step (shared locations only)"};
  return result;
}

}  // namespace tsocheck::dap

// Debug Adapter Protocol dispatch for `tsocheck dap`. Everything that touches
// the adapter's state runs on the asio I/O thread; the check runs on one
// worker thread and posts its result back to the I/O thread.
#include "dap/dap_server.h"
#include "jsonrpc/json_text.h"

#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "service/check_options.h"
#include "service/check_runner.h"
#include "dap/dap_protocol.h"
#include "dap/dap_replay.h"
#include "service/report_reader.h"
#include "jsonrpc/transport.h"
#include "service/report_json.h"

namespace tsocheck::dap {

namespace {

// variablesReference numbering. The scopes are fixed; the per-thread ones add
// the thread id. Every reference is resolved against the current position, so
// a reference from an earlier stop shows the state of the current one.
constexpr int64_t kMemoryRef = 1, kBuffersRef = 2, kNextRef = 3;
constexpr int64_t kReadsBase = 1'000'000, kBufferBase = 2'000'000;

struct DapError {
  std::string message;
};


std::string basename(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string absolute(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string where(const std::string& file, uint32_t line, uint32_t column) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// The typed arguments of a request, or a DapError saying what is wrong.
template <class T>
T read(const json& args) {
  T out;
  std::string why;
  if (!fromJson(args, out, &why)) throw DapError{why};
  return out;
}

// "step 4": trace index i as the labels number it.
std::string stepName(const Replay& r, size_t i) { return "step " + dumpJson(r.step(i).value("step", json(i + 1))); }

// "`sb_fenced`: verified under TSO · 3 executions · 0.2 ms"
std::string verdictLine(const json& c) {
  std::ostringstream ms;
  ms.precision(3);
  ms << c.value("elapsed_ms", 0.0);
  std::string s = "`" + str(c, "function") + "`: " + str(c, "status") + " under " + str(c, "model") + " · " +
                  dumpJson(c.value("executions", json(0))) + " executions · " + ms.str() + " ms";
  const std::string status = str(c, "status");
  if (status != "verified" && status != "violation" && !str(c, "message").empty()) s += " (" + str(c, "message") + ")";
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

// What a launch comes to: an error, verdicts without a violation, or a replay.
struct LaunchOutcome {
  std::optional<std::string> error;
  std::vector<std::string> verdicts;
  std::optional<Replay> replay;
};

LaunchOutcome decide(const FileReport& fr, const std::string& function) {
  LaunchOutcome out;
  if (fr.inputError) {
    out.error = inputErrorText(fr);
    return out;
  }
  std::vector<json> checks;
  for (const CheckReport& c : fr.checks) checks.push_back(checkJson(c));
  const json* chosen = nullptr;
  if (!function.empty()) {
    std::string names;
    for (const json& c : checks) {
      if (str(c, "function") == function) chosen = &c;
      names += (names.empty() ? "" : ", ") + str(c, "function");
    }
    if (!chosen) {
      out.error = "no check function `" + function + "` in " + fr.file + "; check functions: " + names;
      return out;
    }
  } else {
    for (const json& c : checks)
      if (!chosen && str(c, "status") == "violation") chosen = &c;
    for (const json& c : checks)
      if (!chosen && str(c, "status") == "error") chosen = &c;
  }
  if (chosen && str(*chosen, "status") == "error") {
    std::string msg = "`" + str(*chosen, "function") + "` was not checked: " + str(*chosen, "message");
    if (chosen->contains("error") && (*chosen)["error"].is_object()) {
      const json& e = (*chosen)["error"];
      msg += " (at " + where(str(e, "file"), e.value("line", 0u), e.value("column", 0u)) + ")";
    }
    out.error = msg;
    return out;
  }
  if (chosen && str(*chosen, "status") == "violation") {
    std::string why;
    out.replay = Replay::fromCheck(*chosen, &why);
    if (!out.replay) out.error = why;
    return out;
  }
  for (const json& c : checks)
    if (!chosen || &c == chosen) out.verdicts.push_back(verdictLine(c));
  return out;
}

class Adapter {
 public:
  explicit Adapter(asio::io_context& io) : io_(io), out_(io, 0, 1) {}

  int run() {
    out_.start([this](const jsonrpc::Frame& f) { onFrame(f); }, [this] { stop(); });
    io_.run();
    cancel_->store(true);
    if (worker_.joinable()) worker_.join();
    return 0;
  }

 private:
  // ---- messages ---------------------------------------------------------
  void onFrame(const jsonrpc::Frame& f) {
    if (!f.ok) return log("framing error: " + f.error);
    std::string why;
    std::optional<json> parsed = parseJsonText(f.body, &why);  // also refuses deep nesting
    if (!parsed) return log("ignored a message: " + why);
    json& m = *parsed;
    if (!m.is_object()) return log("ignored a message that is not a JSON object");
    const bool hasSeq = m.contains("seq") && m["seq"].is_number_integer();
    if (str(m, "type") != "request" || !m.contains("command") || !m["command"].is_string()) {
      if (hasSeq && str(m, "type") == "request")
        replyError(m, "a request needs a string `command`");
      else if (str(m, "type") != "response" && str(m, "type") != "event")
        log("ignored a message without a request type and command");
      return;
    }
    if (!hasSeq) return log("ignored a request without seq: " + str(m, "command"));
    try {
      onRequest(m);
    } catch (const DapError& e) {
      replyError(m, e.message);
    } catch (const json::exception& e) {
      replyError(m, std::string("invalid arguments: ") + e.what());
    } catch (const std::exception& e) {
      replyError(m, std::string("internal error: ") + e.what());
    }
  }

  void onRequest(const json& req) {
    const std::string cmd = req["command"];
    const json args = req.contains("arguments") && req["arguments"].is_object() ? req["arguments"] : json::object();
    if (cmd == "initialize") return initialize(req, args);
    if (cmd == "launch") return launch(req, args);
    if (cmd == "attach") throw DapError{"tsocheck dap cannot attach; use a launch configuration"};
    if (cmd == "configurationDone") {
      reply(req);
      configured_ = true;
      return maybeFirstStop();
    }
    if (cmd == "setBreakpoints") return setBreakpoints(req, args);
    if (cmd == "setExceptionBreakpoints" || cmd == "setFunctionBreakpoints") return reply(req, {{"breakpoints", json::array()}});
    if (cmd == "threads") return threads(req);
    if (cmd == "stackTrace") return stackTrace(req, args);
    if (cmd == "scopes") return scopes(req, args);
    if (cmd == "variables") return variables(req, args);
    if (cmd == "next" || cmd == "stepIn" || cmd == "stepOut") return move(req, +1);
    if (cmd == "stepBack") return move(req, -1);
    if (cmd == "continue") return jump(req, true);
    if (cmd == "reverseContinue") return jump(req, false);
    if (cmd == "pause") return reply(req);
    if (cmd == "exceptionInfo") return exceptionInfo(req);
    if (cmd == "tsocheckState") return reply(req, needReplay().stateJson());
    if (cmd == "evaluate") return evaluate(req, args);
    if (cmd == "restart") return restart(req, args);
    if (cmd == "terminate") {
      // Ends the session; the client follows with disconnect (or closes the pipe).
      cancel_->store(true);
      terminated_ = true;
      reply(req);
      return event("terminated", json::object());
    }
    if (cmd == "disconnect") {
      cancel_->store(true);
      reply(req);
      return stop();
    }
    throw DapError{"unknown request `" + cmd + "`"};
  }

  void initialize(const json& req, const json& args) {
    const InitializeArguments a = read<InitializeArguments>(args);
    linesStartAt1_ = a.linesStartAt1;
    columnsStartAt1_ = a.columnsStartAt1;
    reply(req, {{"supportsConfigurationDoneRequest", true},
                {"supportsStepBack", true},
                {"supportsTerminateRequest", true},
                {"supportsRestartRequest", true},
                {"supportsExceptionInfoRequest", true},
                {"supportsEvaluateForHovers", true},
                {"supportsSingleThreadExecutionRequests", false},
                {"exceptionBreakpointFilters", json::array()}});
    event("initialized", json::object());
  }

  // ---- launch / restart ---------------------------------------------------
  // Validates launch arguments (throws DapError) and takes them over.
  // No fence synthesis unless the launch asks for it (`fences`).
  RunOptions takeLaunchArgs(const json& args) {
    launch_ = read<LaunchArguments>(args);
    launchArgs_ = args;
    stopOnEntry_ = launch_.stopOnEntry;
    RunOptions opts;
    opts.fences = false;
    applyOptions(launch_.options, opts);
    return opts;
  }

  void launch(const json& req, const json& args) {
    if (terminated_) throw DapError{"the session was terminated"};
    if (running_ || replay_) throw DapError{"already launched"};
    startCheck(takeLaunchArgs(args), req);
  }

  // Re-checks the file (it may have changed) with the new or the previous
  // launch arguments and stops again as a launch does.
  void restart(const json& req, const json& args) {
    if (terminated_) throw DapError{"the session was terminated"};
    if (running_) throw DapError{"a check is still running"};
    if (!launchArgs_.contains("program")) throw DapError{"restart before launch"};
    RunOptions opts =
        takeLaunchArgs(args.contains("arguments") && args["arguments"].is_object() ? args["arguments"] : launchArgs_);
    replay_.reset();
    firstStopDone_ = false;
    reply(req);
    startCheck(std::move(opts), std::nullopt);
  }

  void startCheck(RunOptions opts, std::optional<json> launchReq) {
    const std::string path = absolute(launch_.program);
    const std::string function = launch_.function;
    if (worker_.joinable()) worker_.join();
    running_ = true;
    pendingLaunch_ = std::move(launchReq);
    opts.cancel = cancel_.get();
    output("checking " + path + (function.empty() ? std::string() : " (" + function + ")") + "…\n");
    worker_ = std::thread([this, path, function, opts] {
      FileReport fr;
      try {
        fr = runFile(path, opts);
      } catch (const std::exception& e) {
        fr.inputError = true;
        fr.inputMessage = std::string("the check failed: ") + e.what();
      }
      auto outcome = std::make_shared<LaunchOutcome>();
      try {  // nothing may escape the worker thread
        *outcome = decide(fr, function);
      } catch (const std::exception& e) {
        outcome->error = std::string("the check failed: ") + e.what();
      }
      asio::post(io_, [this, outcome] { checkDone(std::move(*outcome)); });
    });
  }

  void checkDone(LaunchOutcome o) {
    running_ = false;
    std::optional<json> req = std::move(pendingLaunch_);
    pendingLaunch_.reset();
    if (terminated_) {
      if (req) replyError(*req, "the check was cancelled (terminate)");
      return;
    }
    if (o.error) {
      if (req) return replyError(*req, *o.error);
      output("tsocheck: " + *o.error + "\n", "stderr");
      event("terminated", json::object());
      return;
    }
    if (req) reply(*req);
    if (!o.replay) {
      for (const std::string& v : o.verdicts) output(v + "\n");
      output("no violation to step through\n");
      event("terminated", json::object());
      return;
    }
    replay_ = std::move(o.replay);
    const json& c = replay_->check();
    output("`" + str(c, "function") + "` violates under " + str(c, "model") + ": " +
           str(replay_->violation(), "message") + " — " + std::to_string(replay_->size()) +
           " steps (step over / step back to move through them)\n");
    maybeFirstStop();
  }

  void maybeFirstStop() {
    if (!replay_ || !configured_ || firstStopDone_) return;
    firstStopDone_ = true;
    if (stopOnEntry_) replay_->toStart();
    else replay_->toEnd();
    stopped(stopOnEntry_ ? "entry" : "step");
  }

  // ---- stepping -----------------------------------------------------------
  Replay& needReplay() {
    if (!replay_) throw DapError{running_ ? "the check is still running" : "no trace to replay (launch first)"};
    return *replay_;
  }

  void move(const json& req, int dir) {
    Replay& r = needReplay();
    reply(req);
    if (dir > 0 ? r.next() : r.back()) return stopped("step");
    output(dir > 0 ? "already at the last step: the violation\n" : "already at the first step\n");
    stopped(r.position() == 0 ? "entry" : "step");
  }

  void jump(const json& req, bool forward) {
    Replay& r = needReplay();
    reply(req, {{"allThreadsContinued", true}});
    if (forward) r.toEnd();
    else r.toStart();
    stopped(forward ? "step" : "entry");
  }

  // A stop at the position; at the last step the reason is the violation.
  // `description` is the badge a client draws beside the thread's name, so it
  // stays short ("step 4/19", "exited · step 10/19", "violation · step
  // 19/19"); the step's label (or the violation message) is in `text`.
  void stopped(const std::string& reason) {
    const Replay& r = *replay_;
    const json& s = r.current();
    const bool last = r.atEnd();
    const uint32_t t = s.value("thread", 0u);
    const std::string at = "step " + std::to_string(r.position() + 1) + "/" + std::to_string(r.size());
    std::string badge = at;
    if (last) badge = "violation · " + at;
    else if (r.exited(t)) badge = "exited · " + at;
    json body = {{"reason", last ? "exception" : reason},
                 {"threadId", t + 1},
                 {"allThreadsStopped", true},
                 {"description", badge},
                 {"text", last ? "Violation: " + str(r.violation(), "message") : r.label(r.position())}};
    event("stopped", body);
  }

  void exceptionInfo(const json& req) {
    const json& v = needReplay().violation();
    reply(req, {{"exceptionId", str(v, "kind")},
                {"description", str(v, "message") + " (" + where(str(v, "file"), v.value("line", 0u), v.value("column", 0u)) + ")"},
                {"breakMode", "always"}});
  }

  void setBreakpoints(const json& req, const json& args) {
    json bps = json::array();
    for (size_t i = 0; i < read<SetBreakpointsArguments>(args).count; ++i)
      bps.push_back({{"verified", false}, {"message", "tsocheck replays a recorded trace; breakpoints are not used"}});
    reply(req, {{"breakpoints", bps}});
  }

  // ---- inspection ---------------------------------------------------------
  // The threads that exist at the position: not-yet-spawned ones are left
  // out (VS Code drops a thread that leaves the list); a finished one keeps
  // its row with "· exited" after its name (the badge beside it is the
  // client's own "Paused").
  void threads(const json& req) {
    json list = json::array();
    if (replay_)
      for (uint32_t t = 0; t < replay_->threadCount(); ++t) {
        if (!replay_->spawned(t)) continue;
        list.push_back({{"id", t + 1}, {"name", replay_->threadName(t) + (replay_->exited(t) ? " · exited" : "")}});
      }
    reply(req, {{"threads", list}});
  }

  uint32_t line(uint32_t l) const { return linesStartAt1_ ? l : (l > 0 ? l - 1 : 0); }
  uint32_t column(uint32_t c) const {
    if (c == 0) c = 1;
    return columnsStartAt1_ ? c : c - 1;
  }

  void stackTrace(const json& req, const json& args) {
    const Replay& r = needReplay();
    const int64_t id = read<ThreadArguments>(args).threadId;
    json frames = json::array();
    if (id >= 1 && id <= int64_t(r.threadCount())) {
      const uint32_t t = uint32_t(id - 1);
      if (auto i = r.lastStepOf(t)) {
        const json& s = r.step(*i);
        const std::string file = absolute(str(s, "file"));
        json frame = {{"id", id},
                      {"name", r.label(*i)},
                      {"line", line(s.value("line", 0u))},
                      {"column", column(s.value("column", 0u))}};
        if (!str(s, "file").empty()) frame["source"] = {{"name", basename(file)}, {"path", file}};
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
    reply(req, {{"stackFrames", frames}, {"totalFrames", frames.size()}});
  }

  void scopes(const json& req, const json&) {
    const Replay& r = needReplay();
    json list = json::array();
    auto scope = [&](const std::string& name, int64_t ref, bool expensive = false) {
      list.push_back({{"name", name}, {"variablesReference", ref}, {"expensive", expensive}});
    };
    scope("Shared memory", kMemoryRef);
    scope("Store buffers", kBuffersRef);
    for (uint32_t t = 0; t < r.threadCount(); ++t) scope("T" + std::to_string(t) + " reads", kReadsBase + t);
    scope("Next event", kNextRef);
    reply(req, {{"scopes", list}});
  }

  void variables(const json& req, const json& args) {
    const Replay& r = needReplay();
    const int64_t ref = read<VariablesArguments>(args).variablesReference;
    const ReplayState& st = r.state();
    json vars = json::array();
    auto var = [&](const std::string& name, const std::string& value, int64_t child = 0) {
      vars.push_back({{"name", name}, {"value", value}, {"variablesReference", child}});
    };
    if (ref == kMemoryRef) {
      for (const auto& [addr, v] : st.memory.items()) var(addr, dumpJson(v));
      if (st.memory.empty()) var("(none known yet)", "every location holds its initial value");
    } else if (ref == kBuffersRef) {
      for (uint32_t t = 0; t < r.threadCount(); ++t) {
        const auto& b = st.buffers[t];
        std::string summary;
        for (const PendingStore& p : b) summary += (summary.empty() ? "" : ", ") + p.address + " = " + dumpJson(p.value);
        var(r.threadName(t), b.empty() ? "empty" : "[" + summary + "]", b.empty() ? 0 : kBufferBase + t);
      }
    } else if (ref >= kBufferBase && ref < kBufferBase + int64_t(r.threadCount())) {
      for (const PendingStore& p : st.buffers[size_t(ref - kBufferBase)])
        var(p.address + " = " + dumpJson(p.value),
            p.line ? "line " + std::to_string(p.line) + " (" + where(basename(p.file), p.line, p.column) + ", " +
                         stepName(r, p.storeIndex) + ")"
                   : "line ?");
    } else if (ref >= kReadsBase && ref < kReadsBase + int64_t(r.threadCount())) {
      for (const ReadRecord& rd : st.reads[size_t(ref - kReadsBase)])
        var(rd.address, dumpJson(rd.value) + (rd.rmw ? " (read-modify-write" : rd.fromBuffer ? " (own buffer" : " (memory") +
                            ", line " + std::to_string(rd.line) + ", " + stepName(r, rd.index) + ")");
      if (vars.empty()) var("(nothing read yet)", "");
    } else if (ref == kNextRef) {
      var("next", r.nextEventLabel());
      if (st.staleRead) {
        const StaleRead& s = *st.staleRead;
        var("stale read", "T" + std::to_string(s.thread) + " read " + s.address + " = " + dumpJson(s.value) +
                              " from memory while T" + std::to_string(s.pendingIn) + " still buffers " + s.address +
                              " = " + dumpJson(s.pendingValue) + " (line " + std::to_string(s.pendingLine) + ")");
      }
    } else {
      throw DapError{"unknown variablesReference " + std::to_string(ref)};
    }
    reply(req, {{"variables", vars}});
  }

  // A shared location by name (hovers, the debug console): its value in
  // memory and in every store buffer after the current step. `flag` also
  // matches the elements flag[i].
  void evaluate(const json& req, const json& args) {
    const Replay& r = needReplay();
    std::string e = read<EvaluateArguments>(args).expression;
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
    if (result.empty()) throw DapError{"`" + e + "`: no value known at this step (shared locations only)"};
    reply(req, {{"result", result}, {"variablesReference", 0}});
  }

  // ---- output -------------------------------------------------------------
  void send(json m) {
    m["seq"] = seq_++;
    out_.send(m);
  }
  void reply(const json& req, json body = json::object()) {
    send({{"type", "response"}, {"request_seq", req["seq"]}, {"command", req["command"]}, {"success", true},
          {"body", std::move(body)}});
  }
  void replyError(const json& req, const std::string& message) {
    send({{"type", "response"},
          {"request_seq", req.value("seq", json(0))},
          {"command", req.contains("command") && req["command"].is_string() ? req["command"] : json("")},
          {"success", false},
          {"message", message},
          {"body", {{"error", {{"id", 1}, {"format", message}, {"showUser", true}}}}}});
  }
  void event(const std::string& name, json body) {
    send({{"type", "event"}, {"event", name}, {"body", std::move(body)}});
  }
  void output(const std::string& text, const std::string& category = "console") {
    event("output", {{"category", category}, {"output", text}});
  }
  void log(const std::string& text) { std::cerr << "tsocheck dap: " << text << std::endl; }

  void stop() {
    cancel_->store(true);
    out_.close();
    io_.stop();
  }

  asio::io_context& io_;
  jsonrpc::Transport out_;
  int64_t seq_ = 1;
  bool linesStartAt1_ = true, columnsStartAt1_ = true;
  bool configured_ = false, firstStopDone_ = false, stopOnEntry_ = true, running_ = false, terminated_ = false;
  json launchArgs_ = json::object();  // as sent: a restart without arguments reuses them
  LaunchArguments launch_;
  std::optional<json> pendingLaunch_;
  std::optional<Replay> replay_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
  std::thread worker_;
};

}  // namespace

int runAdapter() {
  std::signal(SIGPIPE, SIG_IGN);
  asio::io_context io;
  Adapter a(io);
  return a.run();
}

}  // namespace tsocheck::dap

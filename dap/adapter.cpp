#include "dap/adapter.h"

#include <iostream>

#include "jsonrpc/fields.h"
#include "service/json_text.h"

namespace tsocheck::dap {

int Adapter::run() {
  out_.start([this](const jsonrpc::Frame& f) { onFrame(f); }, [this] { stop(); });
  io_.run();
  cancel_->store(true);
  if (worker_.joinable()) worker_.join();
  return 0;
}

// ---- messages ---------------------------------------------------------------

void Adapter::onFrame(const jsonrpc::Frame& f) {
  if (!f.ok) return log("framing error: " + f.error);
  std::string why;
  std::optional<json> parsed = parseJsonText(f.body, &why);  // also refuses deep nesting
  if (!parsed) return log("ignored a message: " + why);
  json& m = *parsed;
  if (!m.is_object()) return log("ignored a message that is not a JSON object");
  const bool hasSeq = m.contains("seq") && m["seq"].is_number_integer();
  const std::string type = jsonrpc::stringMember(m, "type");
  if (type != "request" || !m.contains("command") || !m["command"].is_string()) {
    if (hasSeq && type == "request")
      replyError(m, "a request needs a string `command`");
    else if (type != "response" && type != "event")
      log("ignored a message without a request type and command");
    return;
  }
  if (!hasSeq) return log("ignored a request without seq: " + jsonrpc::stringMember(m, "command"));
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

void Adapter::onRequest(const json& req) {
  const std::string cmd = req["command"];
  const json args = req.contains("arguments") && req["arguments"].is_object() ? req["arguments"] : json::object();
  if (cmd == "initialize") return initialize(req, args);
  if (cmd == "launch") return launch(req, args);
  if (cmd == "attach") throw DapError{"tsocheck dap cannot attach; use a launch configuration"};
  if (cmd == "configurationDone") {
    reply(req);
    session_.configured = true;
    return maybeFirstStop();
  }
  if (cmd == "setBreakpoints") {
    json bps = json::array();
    for (size_t i = 0; i < readArguments<SetBreakpointsArguments>(args).count; ++i)
      bps.push_back({{"verified", false}, {"message", "tsocheck replays a recorded trace; breakpoints are not used"}});
    return reply(req, {{"breakpoints", bps}});
  }
  if (cmd == "setExceptionBreakpoints" || cmd == "setFunctionBreakpoints") return reply(req, {{"breakpoints", json::array()}});
  if (cmd == "restart") return restart(req, args);
  if (onSessionRequest(cmd, req, args)) return;
  throw DapError{"unknown request `" + cmd + "`"};
}

bool Adapter::onSessionRequest(const std::string& cmd, const json& req, const json& args) {
  if (cmd == "threads") reply(req, session_.threads());
  else if (cmd == "stackTrace" || cmd == "variables" || cmd == "evaluate") inspect(cmd, req, args);
  else if (cmd == "scopes") reply(req, session_.scopes());
  else if (cmd == "next" || cmd == "stepIn" || cmd == "stepOut") move(req, +1);
  else if (cmd == "stepBack") move(req, -1);
  else if (cmd == "continue") jump(req, true);
  else if (cmd == "reverseContinue") jump(req, false);
  else if (cmd == "pause") reply(req);
  else if (cmd == "exceptionInfo") reply(req, session_.exceptionInfo());
  else if (cmd == "tsocheckState") reply(req, session_.needReplay().stateJson());
  else if (cmd == "terminate") {
    // Ends the session; the client follows with disconnect (or closes the pipe).
    cancel_->store(true);
    session_.terminated = true;
    reply(req);
    event("terminated", json::object());
  } else if (cmd == "disconnect") {
    cancel_->store(true);
    reply(req);
    stop();
  } else {
    return false;
  }
  return true;
}

// The requests with arguments about the position: without a replay the
// answer is that error, whatever the arguments.
void Adapter::inspect(const std::string& cmd, const json& req, const json& args) {
  session_.needReplay();
  if (cmd == "stackTrace") return reply(req, session_.stackTrace(readArguments<ThreadArguments>(args).threadId));
  if (cmd == "variables") return reply(req, session_.variables(readArguments<VariablesArguments>(args).variablesReference));
  reply(req, {{"result", session_.evaluate(readArguments<EvaluateArguments>(args).expression)}, {"variablesReference", 0}});
}

void Adapter::initialize(const json& req, const json& args) {
  const InitializeArguments a = readArguments<InitializeArguments>(args);
  session_.linesStartAt1 = a.linesStartAt1;
  session_.columnsStartAt1 = a.columnsStartAt1;
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

// ---- launch / restart ---------------------------------------------------------

void Adapter::launch(const json& req, const json& args) {
  if (session_.terminated) throw DapError{"the session was terminated"};
  if (session_.running || session_.replay) throw DapError{"already launched"};
  startCheck(session_.takeLaunchArgs(args), req);
}

// Re-checks the file (it may have changed) with the new or the previous
// launch arguments and stops again as a launch does.
void Adapter::restart(const json& req, const json& args) {
  if (session_.terminated) throw DapError{"the session was terminated"};
  if (session_.running) throw DapError{"a check is still running"};
  if (!session_.launchArgs.contains("program")) throw DapError{"restart before launch"};
  RunOptions opts = session_.takeLaunchArgs(
      args.contains("arguments") && args["arguments"].is_object() ? args["arguments"] : session_.launchArgs);
  session_.replay.reset();
  session_.firstStopDone = false;
  reply(req);
  startCheck(std::move(opts), std::nullopt);
}

void Adapter::startCheck(RunOptions opts, std::optional<json> launchReq) {
  const std::string path = session_.programPath();
  const std::string function = session_.launch.function;
  if (worker_.joinable()) worker_.join();
  session_.running = true;
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

void Adapter::checkDone(LaunchOutcome o) {
  session_.running = false;
  std::optional<json> req = std::move(pendingLaunch_);
  pendingLaunch_.reset();
  if (session_.terminated) {
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
  session_.replay = std::move(o.replay);
  output(session_.replayIntro());
  maybeFirstStop();
}

void Adapter::maybeFirstStop() {
  if (!session_.replay || !session_.configured || session_.firstStopDone) return;
  session_.firstStopDone = true;
  if (session_.launch.stopOnEntry) session_.replay->toStart();
  else session_.replay->toEnd();
  stopped(session_.launch.stopOnEntry ? "entry" : "step");
}

// ---- stepping -----------------------------------------------------------------

void Adapter::move(const json& req, int dir) {
  Replay& r = session_.needReplay();
  reply(req);
  if (dir > 0 ? r.next() : r.back()) return stopped("step");
  output(dir > 0 ? "already at the last step: the violation\n" : "already at the first step\n");
  stopped(r.position() == 0 ? "entry" : "step");
}

void Adapter::jump(const json& req, bool forward) {
  Replay& r = session_.needReplay();
  reply(req, {{"allThreadsContinued", true}});
  if (forward) r.toEnd();
  else r.toStart();
  stopped(forward ? "step" : "entry");
}

void Adapter::stopped(const std::string& reason) { event("stopped", session_.stoppedBody(reason)); }

// ---- output -------------------------------------------------------------------

void Adapter::send(json m) {
  m["seq"] = seq_++;
  out_.send(m);
}

void Adapter::reply(const json& req, json body) {
  send({{"type", "response"}, {"request_seq", req["seq"]}, {"command", req["command"]}, {"success", true},
        {"body", std::move(body)}});
}

void Adapter::replyError(const json& req, const std::string& message) {
  send({{"type", "response"},
        {"request_seq", req.value("seq", json(0))},
        {"command", req.contains("command") && req["command"].is_string() ? req["command"] : json("")},
        {"success", false},
        {"message", message},
        {"body", {{"error", {{"id", 1}, {"format", message}, {"showUser", true}}}}}});
}

void Adapter::event(const std::string& name, json body) {
  send({{"type", "event"}, {"event", name}, {"body", std::move(body)}});
}

void Adapter::output(const std::string& text, const std::string& category) {
  event("output", {{"category", category}, {"output", text}});
}

void Adapter::log(const std::string& text) { std::cerr << "tsocheck dap: " << text << std::endl; }

void Adapter::stop() {
  cancel_->store(true);
  out_.close();
  io_.stop();
}

}  // namespace tsocheck::dap

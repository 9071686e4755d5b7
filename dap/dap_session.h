// The debug adapter's session (`tsocheck dap`, dap_server.h): what a launch
// asked for, where the check is, the replay and the client's line and column
// base, and the answers a stop gives (threads, stack frames, scopes,
// variables, evaluate, the stopped event's body) as DAP bodies. No I/O:
// dap/adapter.h dispatches the requests, runs the check and sends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dap/dap_protocol.h"
#include "dap/dap_replay.h"
#include "service/check_runner.h"

namespace tsocheck::dap {

struct DapError {
  std::string message;
};

// The typed arguments of a request, or a DapError saying what is wrong.
template <class T>
T readArguments(const json& args) {
  T out;
  std::string why;
  if (!fromJson(args, out, &why)) throw DapError{why};
  return out;
}

// What a launch comes to: an error, verdicts without a violation, or a replay.
struct LaunchOutcome {
  std::optional<std::string> error;
  std::vector<std::string> verdicts;
  std::optional<Replay> replay;
};
// `function` "": the first check with a violation (else the first error).
LaunchOutcome decide(const FileReport& fr, const std::string& function);

class Session {
 public:
  // ---- state (read and set by the adapter) ----
  bool linesStartAt1 = true, columnsStartAt1 = true;
  bool configured = false, firstStopDone = false, running = false, terminated = false;
  LaunchArguments launch;
  json launchArgs = json::object();  // as sent: a restart without arguments reuses them
  std::optional<Replay> replay;

  // Validates launch arguments (throws DapError) and takes them over; the
  // options to run the check with (no fence synthesis unless `fences`).
  RunOptions takeLaunchArgs(const json& args);
  // The replay, or a DapError saying why there is none.
  Replay& needReplay();
  const Replay& needReplay() const;
  // The launched program as an absolute path.
  std::string programPath() const;
  // "`f` violates under TSO: <message> — N steps (...)", then the violation's
  // summary (service/report_reader.h), one indented line each.
  std::string replayIntro() const;

  // ---- answers at the position ----
  json stoppedBody(const std::string& reason) const;
  json exceptionInfo() const;
  json threads() const;
  json stackTrace(int64_t threadId) const;
  json scopes() const;
  json variables(int64_t ref) const;
  std::string evaluate(std::string expression) const;

 private:
  uint32_t line(uint32_t l) const { return linesStartAt1 ? l : (l > 0 ? l - 1 : 0); }
  uint32_t column(uint32_t c) const {
    if (c == 0) c = 1;
    return columnsStartAt1 ? c : c - 1;
  }
  json bufferVariables(const Replay& r, const ReplayState& st) const;
  json readVariables(const Replay& r, const ReplayState& st, uint32_t thread) const;
  json mayReadVariables(const Replay& r) const;
};

}  // namespace tsocheck::dap

// The debug adapter's request dispatch (`tsocheck dap`, dap_server.h): reads
// DAP messages from the transport, answers each request from the Session
// (dap_session.h) and sends responses and events. Everything that touches
// the session runs on the asio I/O thread; the check runs on one worker
// thread and posts its result back to the I/O thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "jsonrpc/asio.h"
#include <nlohmann/json.hpp>

#include "dap/dap_session.h"
#include "jsonrpc/transport.h"

namespace tsocheck::dap {

class Adapter {
 public:
  explicit Adapter(asio::io_context& io) : io_(io), out_(io, 0, 1) {}
  // Serves until disconnect or end of input; returns 0.
  int run();

 private:
  // ---- messages ----
  void onFrame(const jsonrpc::Frame& f);
  void onRequest(const json& req);
  // The requests that move, inspect or end the session (false: not one of them).
  bool onSessionRequest(const std::string& cmd, const json& req, const json& args);
  void inspect(const std::string& cmd, const json& req, const json& args);
  void initialize(const json& req, const json& args);

  // ---- launch / restart ----
  void launch(const json& req, const json& args);
  void restart(const json& req, const json& args);
  void startCheck(RunOptions opts, std::optional<json> launchReq);
  void checkDone(LaunchOutcome o);
  void maybeFirstStop();

  // ---- stepping ----
  void move(const json& req, int dir);
  void jump(const json& req, bool forward);
  void stopped(const std::string& reason);

  // ---- output ----
  void send(json m);
  void reply(const json& req, json body = json::object());
  void replyError(const json& req, const std::string& message);
  void event(const std::string& name, json body);
  // "stdout": plain text in VS Code's debug console ("console" draws as a
  // warning there, "stderr" as an error: kept for errors).
  void output(const std::string& text, const std::string& category = "stdout");
  void log(const std::string& text);
  void stop();

  asio::io_context& io_;
  jsonrpc::Transport out_;
  int64_t seq_ = 1;
  Session session_;
  std::optional<json> pendingLaunch_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
  std::thread worker_;
};

}  // namespace tsocheck::dap

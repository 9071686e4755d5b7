// stdio transport of the language server and the debug adapter (both use
// Content-Length framing): asio reads stdin and decodes frames on the I/O
// thread; send() may be called from any thread.
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "jsonrpc/asio.h"
#include <nlohmann/json.hpp>

#include "jsonrpc/framing.h"

namespace tsocheck::jsonrpc {

class Transport {
 public:
  Transport(asio::io_context& io, int inFd, int outFd);
  // Starts reading; onFrame runs on the io thread for every frame (or framing
  // error), onEnd once when the input closes.
  void start(std::function<void(const Frame&)> onFrame, std::function<void()> onEnd);
  void send(const nlohmann::json& message);
  void close();

 private:
  void readMore();
  asio::posix::stream_descriptor in_;
  int outFd_;
  std::mutex outMu_;
  FrameReader reader_;
  char buf_[65536];
  std::function<void(const Frame&)> onFrame_;
  std::function<void()> onEnd_;
};

}  // namespace tsocheck::jsonrpc

#include "jsonrpc/transport.h"

#include <unistd.h>

#include <cerrno>

#include "service/json_text.h"

namespace tsocheck::jsonrpc {

Transport::Transport(asio::io_context& io, int inFd, int outFd) : in_(io, inFd), outFd_(outFd) {}

void Transport::start(std::function<void(const Frame&)> onFrame, std::function<void()> onEnd) {
  onFrame_ = std::move(onFrame);
  onEnd_ = std::move(onEnd);
  readMore();
}

void Transport::readMore() {
  in_.async_read_some(asio::buffer(buf_), [this](const asio::error_code& ec, size_t n) {
    if (ec) {
      if (onEnd_) onEnd_();
      return;
    }
    reader_.feed(buf_, n);
    while (auto f = reader_.next()) onFrame_(*f);
    readMore();
  });
}

void Transport::send(const nlohmann::json& message) {
  const std::string data = frame(dumpJson(message));  // invalid UTF-8 becomes U+FFFD
  std::lock_guard<std::mutex> l(outMu_);
  size_t off = 0;
  while (off < data.size()) {
    ssize_t w = ::write(outFd_, data.data() + off, data.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // the client is gone
    off += size_t(w);
  }
}

void Transport::close() {
  asio::error_code ec;
  in_.close(ec);
}

}  // namespace tsocheck::jsonrpc

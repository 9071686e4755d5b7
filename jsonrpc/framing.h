// JSON-RPC 2.0 over a byte stream, as the language server and the debug
// adapter both speak it: error codes and Content-Length framing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace tsocheck::jsonrpc {

enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
  kInvalidRequestAfterShutdown = -32600,
  kRequestCancelled = -32800,
  kContentModified = -32801,
};

// One framed message, or a framing error (the reader has skipped past it).
struct Frame {
  bool ok = true;
  std::string body;
  std::string error;
};

// Incremental decoder of "Content-Length: N\r\n...\r\n\r\n<N bytes>" frames
// (LF-only header lines are accepted too). It resynchronises on the next
// "Content-Length:" after anything malformed, without losing the message that
// follows: junk before a header is skipped, and a declared length that runs
// into a raw header line (which no JSON text can contain: a raw line break is
// never inside a JSON string, and "Content-Length" is no JSON token) is known
// to be wrong, so the next frame starts there.
class FrameReader {
 public:
  static constexpr size_t kMaxHeader = 8192;
  static constexpr size_t kMaxBody = 64u << 20;
  void feed(const char* data, size_t n) { buf_.append(data, n); }
  std::optional<Frame> next();

 private:
  bool skipping_ = false;  // dropping input up to the next "Content-Length:" (error already reported)
  size_t scanned_ = 0;     // bytes of the current body already searched for a header
  std::string buf_;
};

std::string frame(const std::string& body);  // adds the header

}  // namespace tsocheck::jsonrpc

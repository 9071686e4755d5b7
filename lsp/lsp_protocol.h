// LSP base protocol pieces: JSON-RPC error codes, Content-Length framing,
// file URIs, and UTF-16 positions (LSP's default position encoding).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace tsocheck::lsp {

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

// file:///a%20b/c.c <-> /a b/c.c ("" for URIs that are not file URIs).
std::string uriToPath(const std::string& uri);
std::string pathToUri(const std::string& path);

// Byte offset of an LSP position (UTF-16 character) in text; clamps to the
// line end / text end. nullopt when the line does not exist.
std::optional<size_t> offsetAt(const std::string& text, uint32_t line, uint32_t character);
// LSP {line, character} of a 1-based line and 1-based byte column.
nlohmann::json positionOf(const std::string& text, uint32_t line1, uint32_t column1);
// Range covering the non-blank text of a 1-based line from column1 to the line end.
nlohmann::json lineRange(const std::string& text, uint32_t line1, uint32_t column1);
// 1-based byte column of the first non-blank character of a 1-based line (1 when none).
uint32_t firstColumn(const std::string& text, uint32_t line1);
// Whether a file name from the program (debug info: maybe relative to the
// compile directory) names `path`: equal, a relative suffix of it, or the
// same file once both are made canonical.
bool sameFile(const std::string& file, const std::string& path);

}  // namespace tsocheck::lsp

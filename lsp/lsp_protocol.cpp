#include "lsp/lsp_protocol.h"

#include <filesystem>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>

namespace tsocheck::lsp {

namespace {

constexpr const char kLengthKey[] = "content-length:";
constexpr size_t kLengthKeySize = sizeof kLengthKey - 1;

bool keyAt(const std::string& s, size_t at) {
  if (at + kLengthKeySize > s.size()) return false;
  for (size_t i = 0; i < kLengthKeySize; ++i)
    if (std::tolower(static_cast<unsigned char>(s[at + i])) != kLengthKey[i]) return false;
  return true;
}

size_t findLengthKey(const std::string& s, size_t from) {
  for (size_t i = from; i + kLengthKeySize <= s.size(); ++i)
    if (keyAt(s, i)) return i;
  return std::string::npos;
}

bool tokenChar(unsigned char c) { return std::isalnum(c) || c == '-' || c == '_'; }

// A complete raw "Content-Length: <digits>" line starting in [from, to).
size_t findHeaderLine(const std::string& s, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    if ((s[i] != 'c' && s[i] != 'C') || !keyAt(s, i)) continue;
    size_t j = i + kLengthKeySize;
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
    size_t digits = j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j == digits) continue;
    if (j < s.size() && s[j] == '\r') ++j;
    if (j < s.size() && s[j] == '\n') return i;
  }
  return std::string::npos;
}

}  // namespace

std::optional<Frame> FrameReader::next() {
  for (;;) {
    if (skipping_) {
      size_t at = findLengthKey(buf_, 0);
      if (at == std::string::npos) {
        // Keep a tail that may be the start of the next header.
        if (buf_.size() >= kLengthKeySize) buf_.erase(0, buf_.size() - (kLengthKeySize - 1));
        return std::nullopt;
      }
      buf_.erase(0, at);
      skipping_ = false;
      scanned_ = 0;
    }
    size_t lead = 0;  // blank lines between frames are harmless
    while (lead < buf_.size() && std::isspace(static_cast<unsigned char>(buf_[lead]))) ++lead;
    buf_.erase(0, lead);
    if (buf_.empty()) return std::nullopt;

    // Header lines up to an empty line.
    std::optional<size_t> length;
    std::string error;
    bool complete = false;
    size_t pos = 0;
    while (error.empty()) {
      size_t eol = buf_.find('\n', pos);
      size_t lineEnd = eol == std::string::npos ? buf_.size() : eol;
      if (lineEnd > pos && buf_[lineEnd - 1] == '\r') --lineEnd;  // (also a CR whose LF is still to come)
      if (eol != std::string::npos && lineEnd == pos) {
        complete = true;
        pos = eol + 1;
        break;
      }
      // "Name:" with a token name (a partial line must be able to become one).
      size_t i = pos;
      while (i < lineEnd && tokenChar(static_cast<unsigned char>(buf_[i]))) ++i;
      const bool colon = i < lineEnd && buf_[i] == ':' && i > pos;
      if (!colon && !(eol == std::string::npos && i == lineEnd)) {
        error = "not a message header";
        break;
      }
      if (eol == std::string::npos || lineEnd - pos > kMaxHeader || eol + 1 > kMaxHeader) {
        if (buf_.size() > kMaxHeader) error = "header too long";
        break;
      }
      if (i - pos == kLengthKeySize - 1 && keyAt(buf_, pos)) {
        size_t v = i + 1;
        while (v < lineEnd && (buf_[v] == ' ' || buf_[v] == '\t')) ++v;
        size_t e = lineEnd;
        while (e > v && (buf_[e - 1] == ' ' || buf_[e - 1] == '\t')) --e;
        bool digits = e > v && e - v <= 19;
        for (size_t k = v; digits && k < e; ++k) digits = std::isdigit(static_cast<unsigned char>(buf_[k]));
        unsigned long long n = digits ? std::strtoull(buf_.substr(v, e - v).c_str(), nullptr, 10) : 0;
        if (!digits || n > kMaxBody) error = "invalid Content-Length";
        else length = size_t(n);
      }
      pos = eol + 1;
    }
    if (!error.empty()) {
      // Skip the bad part: resume at the next "Content-Length:" after its start.
      buf_.erase(0, 1);
      skipping_ = true;
      return Frame{false, "", error};
    }
    if (!complete) return std::nullopt;
    if (!length) {
      buf_.erase(0, pos);  // the body that follows has no known length
      skipping_ = true;
      return Frame{false, "", "missing Content-Length"};
    }
    const size_t avail = buf_.size() - pos;
    const size_t upto = std::min(avail, *length);
    const size_t from = scanned_ > 64 ? scanned_ - 64 : 0;
    size_t hit = findHeaderLine(buf_, pos + from, pos + upto);
    if (hit != std::string::npos) {
      buf_.erase(0, hit);
      scanned_ = 0;
      return Frame{false, "", "Content-Length does not match the message (the next header starts inside it)"};
    }
    if (avail < *length) {
      scanned_ = upto;
      return std::nullopt;
    }
    Frame f{true, buf_.substr(pos, *length), ""};
    buf_.erase(0, pos + *length);
    scanned_ = 0;
    return f;
  }
}

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string uriToPath(const std::string& uri) {
  // Only local files: file:///path or file://localhost/path (a host such as
  // file://server/x.c names another machine's file and gives "").
  std::string_view scheme = "file://";
  if (uri.rfind("file:///", 0) == 0) scheme = "file://";
  else if (uri.rfind("file://localhost/", 0) == 0) scheme = "file://localhost";
  else return "";
  std::string out;
  for (size_t i = scheme.size(); i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && std::isxdigit(static_cast<unsigned char>(uri[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 2]))) {
      out += char(std::strtol(uri.substr(i + 1, 2).c_str(), nullptr, 16));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

std::string pathToUri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

namespace {

// [begin, end) of line `line` (0-based), without its newline.
std::optional<std::pair<size_t, size_t>> lineSpan(const std::string& text, uint32_t line) {
  size_t b = 0;
  for (uint32_t l = 0; l < line; ++l) {
    size_t nl = text.find('\n', b);
    if (nl == std::string::npos) return std::nullopt;
    b = nl + 1;
  }
  size_t e = text.find('\n', b);
  if (e == std::string::npos) e = text.size();
  return std::make_pair(b, e);
}

// UTF-16 code units of the UTF-8 bytes [b, e).
uint32_t utf16Units(const std::string& text, size_t b, size_t e) {
  uint32_t n = 0;
  for (size_t i = b; i < e && i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    n += len == 4 ? 2 : 1;
    i += len;
  }
  return n;
}

}  // namespace

std::optional<size_t> offsetAt(const std::string& text, uint32_t line, uint32_t character) {
  auto span = lineSpan(text, line);
  if (!span) {
    // One past the last line is the end of the text.
    if (line > 0 && lineSpan(text, line - 1) && !text.empty() && text.back() == '\n') return text.size();
    return std::nullopt;
  }
  size_t i = span->first;
  uint32_t units = 0;
  while (i < span->second && units < character) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    units += len == 4 ? 2 : 1;
    i = std::min(i + len, span->second);
  }
  return i;
}

nlohmann::json positionOf(const std::string& text, uint32_t line1, uint32_t column1) {
  uint32_t line = line1 > 0 ? line1 - 1 : 0;
  auto span = lineSpan(text, line);
  if (!span) return {{"line", line}, {"character", column1 > 0 ? column1 - 1 : 0}};
  size_t e = std::min(span->second, span->first + (column1 > 0 ? column1 - 1 : 0));
  return {{"line", line}, {"character", utf16Units(text, span->first, e)}};
}

nlohmann::json lineRange(const std::string& text, uint32_t line1, uint32_t column1) {
  uint32_t line = line1 > 0 ? line1 - 1 : 0;
  auto span = lineSpan(text, line);
  nlohmann::json start = positionOf(text, line1, column1);
  if (!span) return {{"start", start}, {"end", start}};
  size_t e = span->second;
  while (e > span->first && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  nlohmann::json end = {{"line", line}, {"character", utf16Units(text, span->first, e)}};
  if (end["character"].get<uint32_t>() < start["character"].get<uint32_t>()) end = start;
  return {{"start", start}, {"end", end}};
}

uint32_t firstColumn(const std::string& text, uint32_t line1) {
  auto span = lineSpan(text, line1 > 0 ? line1 - 1 : 0);
  if (!span) return 1;
  size_t b = span->first;
  while (b < span->second && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  return b == span->second ? 1 : uint32_t(b - span->first + 1);
}

bool sameFile(const std::string& file, const std::string& path) {
  if (file == path) return true;
  if (file.empty()) return false;
  if (file[0] != '/' && path.size() > file.size() &&
      path.compare(path.size() - file.size(), file.size(), file) == 0 && path[path.size() - file.size() - 1] == '/')
    return true;
  std::error_code e1, e2;
  auto ca = std::filesystem::weakly_canonical(file, e1), cb = std::filesystem::weakly_canonical(path, e2);
  return !e1 && !e2 && ca == cb;
}

}  // namespace tsocheck::lsp

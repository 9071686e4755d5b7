#include "jsonrpc/framing.h"

#include <cctype>

namespace tsocheck::jsonrpc {

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

}  // namespace tsocheck::jsonrpc

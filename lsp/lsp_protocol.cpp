#include "lsp/lsp_protocol.h"

#include <cctype>
#include <cstdlib>

namespace tsocheck::lsp {

std::optional<Frame> FrameReader::next() {
  if (resync_) {
    static const std::string kKey = "content-length:";
    std::string lower = buf_;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    size_t at = lower.find(kKey);
    if (at == std::string::npos) {
      // Keep a tail that may be the start of the next header.
      if (buf_.size() >= kKey.size()) buf_.erase(0, buf_.size() - (kKey.size() - 1));
      return std::nullopt;
    }
    buf_.erase(0, at);
    resync_ = false;
  }
  size_t end = buf_.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (buf_.size() > kMaxHeader) {
      buf_.clear();
      return Frame{false, "", "header too long"};
    }
    return std::nullopt;
  }
  std::string header = buf_.substr(0, end);
  std::optional<size_t> length;
  bool bad = false;
  size_t pos = 0;
  while (pos <= header.size()) {
    size_t eol = header.find("\r\n", pos);
    if (eol == std::string::npos) eol = header.size();
    std::string line = header.substr(pos, eol - pos);
    pos = eol + 2;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (name != "content-length") continue;
    std::string v = line.substr(colon + 1);
    size_t b = v.find_first_not_of(' ');
    v = b == std::string::npos ? "" : v.substr(b);
    char* stop = nullptr;
    unsigned long long n = v.empty() || !std::isdigit(static_cast<unsigned char>(v[0]))
                               ? 0 : std::strtoull(v.c_str(), &stop, 10);
    if (v.empty() || !stop || (*stop != 0 && *stop != ' ') || n > kMaxBody) bad = true;
    else length = size_t(n);
  }
  if (bad || !length) {
    buf_.erase(0, end + 4);
    resync_ = true;
    return Frame{false, "", bad ? "invalid Content-Length" : "missing Content-Length"};
  }
  if (buf_.size() < end + 4 + *length) return std::nullopt;
  Frame f{true, buf_.substr(end + 4, *length), ""};
  buf_.erase(0, end + 4 + *length);
  return f;
}

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string uriToPath(const std::string& uri) {
  const std::string scheme = "file://";
  if (uri.rfind(scheme, 0) != 0) return "";
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

}  // namespace tsocheck::lsp

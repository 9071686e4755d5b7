#include "lsp/lsp_protocol.h"

#include "jsonrpc/fields.h"

#include <filesystem>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cstdlib>
#include <string_view>

namespace tsocheck::lsp {

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

std::string percentEncode(const std::string& text, const char* keep) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (c && std::strchr(keep, c))) {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string pathToUri(const std::string& path) { return "file://" + percentEncode(path, "/"); }

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

size_t offsetInLine(const std::string& text, size_t begin, size_t end, uint32_t character) {
  size_t i = begin;
  uint32_t units = 0;
  while (i < end && units < character) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    units += len == 4 ? 2 : 1;
    i = std::min(i + len, end);
  }
  return i;
}

std::optional<size_t> offsetAt(const std::string& text, uint32_t line, uint32_t character) {
  auto span = lineSpan(text, line);
  if (!span) {
    // One past the last line is the end of the text.
    if (line > 0 && lineSpan(text, line - 1) && !text.empty() && text.back() == '\n') return text.size();
    return std::nullopt;
  }
  return offsetInLine(text, span->first, span->second, character);
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

namespace {

using jsonrpc::Fields;

void readPosition(Fields& f, const char* key, Position& out) {
  Fields p = f.object(key);
  p.index("line", out.line);
  p.index("character", out.character);
  f.absorb(p);
}

// True when the boolean at `path` is true; any missing or mistyped level means false.
bool flag(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return false;
    auto it = at->find(key);
    if (it == at->end()) return false;
    at = &*it;
  }
  return at->is_boolean() && at->get<bool>();
}

}  // namespace

bool fromJson(const nlohmann::json& j, InitializeParams& out, std::string* error) {
  Fields f(j, "", error);
  if (!f.ok()) return false;
  out.workDoneProgress = flag(j, {"capabilities", "window", "workDoneProgress"});
  out.codeLensRefresh = flag(j, {"capabilities", "workspace", "codeLens", "refreshSupport"});
  out.documentChanges = flag(j, {"capabilities", "workspace", "workspaceEdit", "documentChanges"});
  out.disabledActions = flag(j, {"capabilities", "textDocument", "codeAction", "disabledSupport"});
  // Clients send null for "no root": only strings count.
  if (j.contains("rootUri") && j["rootUri"].is_string()) out.rootPath = uriToPath(j["rootUri"]);
  else if (j.contains("rootPath") && j["rootPath"].is_string()) out.rootPath = j["rootPath"];
  f.any("initializationOptions", out.initializationOptions, false);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, DidOpenParams& out, std::string* error) {
  Fields f(j, "", error);
  Fields td = f.object("textDocument");
  td.str("uri", out.uri);
  td.str("text", out.text);
  td.integer("version", out.version);
  f.absorb(td);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, DidChangeParams& out, std::string* error) {
  Fields f(j, "", error);
  Fields td = f.object("textDocument");
  td.str("uri", out.uri);
  td.integer("version", out.version);
  f.absorb(td);
  f.any("contentChanges", out.contentChanges);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, DidSaveParams& out, std::string* error) {
  Fields f(j, "", error);
  Fields td = f.object("textDocument");
  td.str("uri", out.uri);
  f.absorb(td);
  if (f.ok() && j.contains("text") && j["text"].is_string()) out.text = j["text"].get<std::string>();
  return f.ok();
}

bool fromJson(const nlohmann::json& j, DocumentParams& out, std::string* error) {
  Fields f(j, "", error);
  Fields td = f.object("textDocument");
  td.str("uri", out.uri);
  f.absorb(td);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, CodeActionParams& out, std::string* error) {
  DocumentParams d;
  if (!fromJson(j, d, error)) return false;
  out.uri = d.uri;
  Fields f(j, "", error);
  Fields r = f.object("range");
  readPosition(r, "start", out.range.start);
  readPosition(r, "end", out.range.end);
  f.absorb(r);
  if (f.ok()) out.rangeJson = j["range"];
  return f.ok();
}

bool fromJson(const nlohmann::json& j, HoverParams& out, std::string* error) {
  DocumentParams d;
  if (!fromJson(j, d, error)) return false;
  out.uri = d.uri;
  Fields f(j, "", error);
  readPosition(f, "position", out.position);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, TraceParams& out, std::string* error) {
  Fields f(j, "", error);
  f.str("uri", out.uri);
  f.str("function", out.function);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, PictureParams& out, std::string* error) {
  DocumentParams d;
  if (!fromJson(j, d, error)) return false;
  out.uri = d.uri;
  Fields f(j, "", error);
  f.str("function", out.function);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, ExecuteCommandParams& out, std::string* error) {
  Fields f(j, "", error);
  f.str("command", out.command);
  f.any("arguments", out.arguments, false);
  if (f.ok() && !out.arguments.is_array()) {
    if (error) *error = "arguments must be an array";
    return false;
  }
  return f.ok();
}

bool fromJson(const nlohmann::json& j, CancelParams& out, std::string* error) {
  Fields f(j, "", error);
  f.any("id", out.id);
  return f.ok();
}

bool fromJson(const nlohmann::json& j, ConfigurationParams& out, std::string* error) {
  Fields f(j, "", error);
  f.any("settings", out.settings, false);
  return f.ok();
}

}  // namespace tsocheck::lsp

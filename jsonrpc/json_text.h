// JSON text in and out, hardened for untrusted data (shared by the CLI, the
// language server, the debug adapter, the result cache and the compile
// database reader):
// - dumpJson never throws on invalid UTF-8 (bytes become U+FFFD);
// - jsonNestingExceeds is a cheap pre-scan (strings and escapes respected)
//   that rejects deeply nested text before it is parsed, so nothing later
//   (copies, dumps, destructors) can recurse deeply enough to overflow the stack;
// - parseJsonText combines both checks with a non-throwing parse.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace tsocheck {

// Deepest arrays/objects accepted in untrusted JSON (LSP/DAP messages, cache
// entries, compile_commands.json). Real messages nest fewer than 20 levels.
inline constexpr size_t kMaxJsonDepth = 256;

inline std::string dumpJson(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline bool jsonNestingExceeds(const std::string& text, size_t maxDepth = kMaxJsonDepth) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > maxDepth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// nullopt (and *error set) for invalid or too deeply nested JSON.
inline std::optional<nlohmann::json> parseJsonText(const std::string& text, std::string* error = nullptr) {
  if (jsonNestingExceeds(text)) {
    if (error) *error = "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return std::nullopt;
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    if (error) *error = "invalid JSON";
    return std::nullopt;
  }
  return j;
}

}  // namespace tsocheck

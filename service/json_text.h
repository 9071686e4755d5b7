// JSON text in and out, hardened for untrusted data (shared by the CLI, the
// language server, the debug adapter, the JSON-RPC transport, the result
// cache and the compile database reader). Depends on nlohmann_json only
// (its own library, tsocheck_json_text), so every layer from service up can
// use it; engine/ and frontend/ do not.
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

// j as text (indent as nlohmann's dump); invalid UTF-8 in strings becomes U+FFFD.
std::string dumpJson(const nlohmann::json& j, int indent = -1);

// Whether arrays/objects in text nest deeper than maxDepth (a scan, no parse).
bool jsonNestingExceeds(const std::string& text, size_t maxDepth = kMaxJsonDepth);

// nullopt (and *error set) for invalid or too deeply nested JSON.
std::optional<nlohmann::json> parseJsonText(const std::string& text, std::string* error = nullptr);

}  // namespace tsocheck

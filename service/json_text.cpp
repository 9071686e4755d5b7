#include "service/json_text.h"

namespace tsocheck {

std::string dumpJson(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool jsonNestingExceeds(const std::string& text, size_t maxDepth) {
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

std::optional<nlohmann::json> parseJsonText(const std::string& text, std::string* error) {
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

#include "lsp/lsp_documents.h"

#include "lsp/lsp_protocol.h"

namespace tsocheck::lsp {

bool applyChange(std::string& text, const nlohmann::json& change, std::string* error) {
  if (!change.is_object() || !change.contains("text") || !change["text"].is_string()) {
    *error = "content change without text";
    return false;
  }
  const std::string& newText = change["text"].get_ref<const std::string&>();
  if (!change.contains("range")) {
    text = newText;
    return true;
  }
  try {
    const auto& r = change.at("range");
    auto s = offsetAt(text, r.at("start").at("line").get<uint32_t>(), r.at("start").at("character").get<uint32_t>());
    auto e = offsetAt(text, r.at("end").at("line").get<uint32_t>(), r.at("end").at("character").get<uint32_t>());
    if (!s || !e || *e < *s) {
      *error = "content change range outside the document";
      return false;
    }
    text.replace(*s, *e - *s, newText);
    return true;
  } catch (const nlohmann::json::exception&) {
    *error = "malformed content change range";
    return false;
  }
}

void DocumentStore::open(const Document& d) {
  std::lock_guard<std::mutex> l(mu_);
  docs_[d.uri] = d;
}

bool DocumentStore::change(const std::string& uri, int64_t version, const nlohmann::json& changes,
                           std::string* error) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) {
    *error = "document is not open: " + uri;
    return false;
  }
  if (!changes.is_array()) {
    *error = "contentChanges must be an array";
    return false;
  }
  std::string text = it->second.text;
  for (const auto& c : changes)
    if (!applyChange(text, c, error)) return false;
  it->second.text = std::move(text);
  it->second.version = version;
  return true;
}

void DocumentStore::close(const std::string& uri) {
  std::lock_guard<std::mutex> l(mu_);
  docs_.erase(uri);
}

std::optional<Document> DocumentStore::get(const std::string& uri) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> DocumentStore::uris() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& [uri, d] : docs_) out.push_back(uri);
  return out;
}

}  // namespace tsocheck::lsp

// Open documents and LSP incremental text sync (TextDocumentSyncKind 2).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tsocheck::lsp {

struct Document {
  std::string uri, path, text;
  int64_t version = 0;
};

// Applies one TextDocumentContentChangeEvent (with or without a range).
// Returns false with *error set when it is malformed or out of range.
bool applyChange(std::string& text, const nlohmann::json& change, std::string* error);

class DocumentStore {
 public:
  void open(const Document& d);
  // Applies every change in order; false (document unchanged) on a bad change.
  bool change(const std::string& uri, int64_t version, const nlohmann::json& changes, std::string* error);
  void close(const std::string& uri);
  std::optional<Document> get(const std::string& uri) const;
  std::vector<std::string> uris() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, Document> docs_;
};

}  // namespace tsocheck::lsp

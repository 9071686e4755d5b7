// Open documents and LSP incremental text sync (TextDocumentSyncKind 2).
//
// A range edit is applied in place: the document keeps the offsets where its
// lines begin (built on the first range edit, then updated by each edit), so
// an edit costs the edit's size, the move of the text after it and the line
// offsets after it, never a copy or a scan of the whole text. An edit list
// that fails part-way is undone edit by edit.
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

// Where the lines of a text begin (line 0 at offset 0, line n after the
// n-th newline).
class LineIndex {
 public:
  explicit LineIndex(const std::string& text);
  // The byte offset of an LSP position (UTF-16 character), clamped to the
  // line's end; nullopt when the line does not exist (one past the last line
  // is the text's end when the text ends with a newline), as offsetAt.
  std::optional<size_t> offset(const std::string& text, uint32_t line, uint32_t character) const;
  // text[at, at + removed) was replaced by `inserted`.
  void replaced(size_t at, size_t removed, const std::string& inserted);

 private:
  std::vector<size_t> starts_;
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
  // A copy of the document (its whole text).
  std::optional<Document> get(const std::string& uri) const;
  // Without copying the text: whether uri is open, its path, and whether it
  // is still at `version` with `text`.
  bool isOpen(const std::string& uri) const;
  std::optional<std::string> path(const std::string& uri) const;
  bool unchanged(const std::string& uri, int64_t version, const std::string& text) const;
  std::vector<std::string> uris() const;

 private:
  struct Entry {
    Document doc;
    std::optional<LineIndex> lines;  // built on the first range edit after open or a whole-text change
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> docs_;
};

}  // namespace tsocheck::lsp

#include "lsp/lsp_documents.h"

#include <algorithm>

#include "lsp/lsp_protocol.h"

namespace tsocheck::lsp {

LineIndex::LineIndex(const std::string& text) {
  starts_.push_back(0);
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', nl + 1)) starts_.push_back(nl + 1);
}

std::optional<size_t> LineIndex::offset(const std::string& text, uint32_t line, uint32_t character) const {
  if (line >= starts_.size()) {
    if (line == starts_.size() && line > 0 && !text.empty() && text.back() == '\n') return text.size();
    return std::nullopt;
  }
  const size_t begin = starts_[line];
  const size_t end = line + 1 < starts_.size() ? starts_[line + 1] - 1 : text.size();
  return offsetInLine(text, begin, end, character);
}

void LineIndex::replaced(size_t at, size_t removed, const std::string& inserted) {
  // Lines that began inside the replaced bytes go; the inserted newlines' lines come; later lines move.
  auto lo = std::upper_bound(starts_.begin(), starts_.end(), at);
  auto hi = std::upper_bound(lo, starts_.end(), at + removed);
  const long long delta = (long long)inserted.size() - (long long)removed;
  for (auto it = hi; it != starts_.end(); ++it) *it = size_t((long long)*it + delta);
  std::vector<size_t> added;
  for (size_t nl = inserted.find('\n'); nl != std::string::npos; nl = inserted.find('\n', nl + 1))
    added.push_back(at + nl + 1);
  const size_t keep = size_t(lo - starts_.begin());
  starts_.erase(lo, hi);
  starts_.insert(starts_.begin() + long(keep), added.begin(), added.end());
}

namespace {

// One edit as applied, to undo it: text[at, at + inserted) was `removed`.
struct Applied {
  size_t at, inserted;
  std::string removed;
};

// Applies one change to text (and its line index); false with *error set
// when it is malformed or out of range (text unchanged).
bool applyOne(std::string& text, std::optional<LineIndex>& lines, const nlohmann::json& change, std::string* error,
              std::optional<Applied>* undo) {
  if (!change.is_object() || !change.contains("text") || !change["text"].is_string()) {
    *error = "content change without text";
    return false;
  }
  const std::string& newText = change["text"].get_ref<const std::string&>();
  if (!change.contains("range")) {
    if (undo) *undo = Applied{0, newText.size(), std::move(text)};
    text = newText;
    lines.reset();
    return true;
  }
  try {
    const auto& r = change.at("range");
    const uint32_t sl = r.at("start").at("line").get<uint32_t>(), sc = r.at("start").at("character").get<uint32_t>();
    const uint32_t el = r.at("end").at("line").get<uint32_t>(), ec = r.at("end").at("character").get<uint32_t>();
    if (!lines) lines.emplace(text);
    auto s = lines->offset(text, sl, sc);
    auto e = lines->offset(text, el, ec);
    if (!s || !e || *e < *s) {
      *error = "content change range outside the document";
      return false;
    }
    if (undo) *undo = Applied{*s, newText.size(), text.substr(*s, *e - *s)};
    text.replace(*s, *e - *s, newText);
    lines->replaced(*s, *e - *s, newText);
    return true;
  } catch (const nlohmann::json::exception&) {
    *error = "malformed content change range";
    return false;
  }
}

}  // namespace

bool applyChange(std::string& text, const nlohmann::json& change, std::string* error) {
  std::optional<LineIndex> lines;
  return applyOne(text, lines, change, error, nullptr);
}

void DocumentStore::open(const Document& d) {
  std::lock_guard<std::mutex> l(mu_);
  docs_[d.uri] = Entry{d, std::nullopt};
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
  Entry& d = it->second;
  std::vector<Applied> done;  // to undo them if a later change is bad
  for (const auto& c : changes) {
    std::optional<Applied> undo;
    if (applyOne(d.doc.text, d.lines, c, error, changes.size() > 1 ? &undo : nullptr)) {
      if (undo) done.push_back(std::move(*undo));
      continue;
    }
    for (auto u = done.rbegin(); u != done.rend(); ++u) {
      d.doc.text.replace(u->at, u->inserted, u->removed);
      if (d.lines) d.lines->replaced(u->at, u->inserted, u->removed);
    }
    return false;
  }
  d.doc.version = version;
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
  return it->second.doc;
}

bool DocumentStore::isOpen(const std::string& uri) const {
  std::lock_guard<std::mutex> l(mu_);
  return docs_.count(uri) > 0;
}

std::optional<std::string> DocumentStore::path(const std::string& uri) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return it->second.doc.path;
}

bool DocumentStore::unchanged(const std::string& uri, int64_t version, const std::string& text) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = docs_.find(uri);
  return it != docs_.end() && it->second.doc.version == version && it->second.doc.text == text;
}

std::vector<std::string> DocumentStore::uris() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& [uri, d] : docs_) out.push_back(uri);
  return out;
}

}  // namespace tsocheck::lsp

// Typed reading of JSON-RPC params (the language server's and the debug
// adapter's): the members of one object, each checked for its type, with the
// first problem kept as "<path> <what>" ("textDocument.uri must be a string").
// After a problem every later read is a no-op, so a reader reads all its
// fields and asks ok() once.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tsocheck::jsonrpc {

// A string member of a message ("" when j is no object, or the member is
// missing or not a string): for dispatching on a message before it is read.
inline std::string stringMember(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::string();
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class Fields {
 public:
  Fields(const nlohmann::json& j, std::string path, std::string* error) : j_(j), path_(std::move(path)), error_(error) {
    if (!j_.is_object()) fail("", "must be an object");
  }
  bool ok() const { return !failed_; }
  // A nested object (required).
  Fields object(const char* key) {
    const nlohmann::json* v = find(key, true);
    return Fields(v ? *v : none(), name(key), failed_ ? nullptr : error_, failed_ || !v);
  }
  void str(const char* key, std::string& out, bool required = true) {
    const nlohmann::json* v = find(key, required);
    if (!v) return;
    if (!v->is_string()) return fail(key, "must be a string");
    out = v->get<std::string>();
  }
  // Optional members (missing or null) keep `out`.
  void integer(const char* key, int64_t& out) {
    const nlohmann::json* v = find(key, false);
    if (!v) return;
    if (!v->is_number_integer()) return fail(key, "must be an integer");
    out = v->get<int64_t>();
  }
  void boolean(const char* key, bool& out) {  // optional: keeps `out` when missing
    const nlohmann::json* v = find(key, false);
    if (!v) return;
    if (!v->is_boolean()) return fail(key, "must be true or false");
    out = v->get<bool>();
  }
  // A line or character number: a non-negative integer (not `true`, not 1.5).
  void index(const char* key, uint32_t& out) {
    const nlohmann::json* v = find(key, true);
    if (!v) return;
    if (!v->is_number_integer() || v->get<int64_t>() < 0 || v->get<int64_t>() >= int64_t(UINT32_MAX))
      return fail(key, "must be a non-negative integer, got " + v->dump());
    out = uint32_t(v->get<int64_t>());
  }
  void any(const char* key, nlohmann::json& out, bool required = true) {
    if (const nlohmann::json* v = find(key, required)) out = *v;
  }
  void absorb(const Fields& inner) { failed_ = failed_ || inner.failed_; }

 private:
  Fields(const nlohmann::json& j, std::string path, std::string* error, bool failed)
      : j_(j), path_(std::move(path)), error_(error), failed_(failed) {
    if (!failed_ && !j_.is_object()) fail("", "must be an object");
  }
  static const nlohmann::json& none() {
    static const nlohmann::json n;
    return n;
  }
  std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  const nlohmann::json* find(const char* key, bool required) {
    if (failed_) return nullptr;
    auto it = j_.find(key);
    if (it == j_.end() || (!required && it->is_null())) {  // an optional member may be null
      if (required) fail(key, "is missing");
      return nullptr;
    }
    return &*it;
  }
  void fail(const char* key, const std::string& what) {
    if (failed_) return;
    failed_ = true;
    const std::string n = *key ? name(key) : path_.empty() ? "params" : path_;
    if (error_) *error_ = n + " " + what;
  }
  const nlohmann::json& j_;
  std::string path_;
  std::string* error_;
  bool failed_ = false;
};

}  // namespace tsocheck::jsonrpc

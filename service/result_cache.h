// Result cache of the language server: one entry per check, keyed by a
// SHA-256 of everything that can change its outcome (the lowered check
// function with every function and global it can reach, the options, the
// tool version), kept in memory and persisted as one file per key on disk.
//
// On disk each entry is a first line "tsocheck-cache 1 MAC" and the entry's
// JSON text; MAC is an HMAC-SHA-256 of the key and that text under a per-user
// secret, the file `key` beside the results directory (32 random bytes, mode
// 0600, owned by the user). An entry whose MAC does not match (edited, copied
// in, or moved to another key) is a miss; with no usable key file (wrong
// owner or mode, a symlink, wrong size) the disk is neither read nor written.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "service/check_report.h"

namespace tsocheck {

// SHA-256 (hex) of the program reachable from prog.entry (calls, function
// addresses, globals with their initial values, names and source locations).
std::string reachableHash(const Program& prog);

// Cache key (hex) of one check: program hash + the check's model and bounds +
// `settings` (anything else that changes the outcome) + the tool version.
std::string checkKey(const CheckReport& rep, const Program& prog, const std::string& settings,
                     const std::string& version);

// True when j has every field checkJson writes, each with its type (entries
// read back from disk are input: anything else is a miss).
bool validCacheEntry(const nlohmann::json& j);

class ResultCache {
 public:
  static constexpr size_t kMaxEntryBytes = size_t(16) << 20;  // larger entries are neither read nor written
  explicit ResultCache(std::string dir = "") : dir_(std::move(dir)) {}
  void setDir(const std::string& dir);
  std::optional<nlohmann::json> get(const std::string& key);
  void put(const std::string& key, const nlohmann::json& value);
  size_t hits() const { return hits_; }
  // The key file's name, beside the results directory `dir`.
  static std::string keyFileFor(const std::string& dir);
  static constexpr size_t kMacKeyBytes = 32;

 private:
  // The MAC key (read, or created when `create`), or nullopt: the disk is not used.
  std::optional<std::string> macKey(bool create);
  std::mutex mu_;
  std::string dir_;  // "" = memory only
  std::optional<std::string> macKey_;  // read once per directory
  std::map<std::string, nlohmann::json> mem_;
  size_t hits_ = 0;
};

// Where the disk cache lives: $XDG_CACHE_HOME/tsocheck/results or
// ~/.cache/tsocheck/results ("" if neither is set), never inside the
// workspace, so a repository cannot plant results; the directory must be a
// real directory owned by the user (a symlinked one is not used).
std::string cacheDirFor(const std::string& workspaceRoot);

}  // namespace tsocheck

// Result cache of the language server: one entry per check, keyed by a hash
// of everything that can change its outcome (the lowered check function with
// every function and global it can reach, the options, the tool version),
// kept in memory and persisted as one JSON file per key on disk.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "service/check_report.h"

namespace tsocheck {

// Hash of the program reachable from prog.entry (calls, function addresses,
// globals with their initial values, names and source locations).
uint64_t reachableHash(const Program& prog);

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

 private:
  std::mutex mu_;
  std::string dir_;  // "" = memory only
  std::map<std::string, nlohmann::json> mem_;
  size_t hits_ = 0;
};

// Where the disk cache lives: $XDG_CACHE_HOME/tsocheck/results or
// ~/.cache/tsocheck/results ("" if neither is set), never inside the
// workspace, so a repository cannot plant results; the directory must be a
// real directory owned by the user (a symlinked one is not used).
std::string cacheDirFor(const std::string& workspaceRoot);

}  // namespace tsocheck

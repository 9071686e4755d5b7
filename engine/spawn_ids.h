// Thread ids: a spawned thread's id is fixed by who spawned it and how many
// threads its parent had spawned before, numbered in the order the search
// first meets each (parent, ordinal) — so the same thread keeps its id in
// every execution. One table per search, safe to share between the workers
// of a parallel exploration.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace tsocheck {

class SpawnIds {
 public:
  uint32_t id(uint32_t parent, uint32_t ordinal) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [key, id] : ids_)
      if (key.first == parent && key.second == ordinal) return id;
    ids_.push_back({{parent, ordinal}, next_});
    return next_++;
  }
  // The thread that spawned thread `child` (reverse of id()), or none when
  // no spawn has been given that id yet (or child is the main thread, 0).
  std::optional<uint32_t> parentOf(uint32_t child) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [key, id] : ids_)
      if (id == child) return key.first;
    return std::nullopt;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, uint32_t>> ids_;
  uint32_t next_ = 1;
};

}  // namespace tsocheck

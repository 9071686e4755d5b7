// The memory limit of the process's check work: while a check runs, a
// watcher thread reads the process's resident memory and stops the check
// (through the engine's cancel flag) when what the process holds above its
// start-up size (the resident memory when its first check began: code,
// libraries) passes the limit. So the limit covers every check of the
// process together, not each check on its own: a check gets what the
// others have not kept. A check that is stopped says so (memoryLimitText)
// and the next one starts after the freed memory went back to the system.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace tsocheck {

// The process's resident set size in bytes (0 if unknown).
uint64_t residentBytes();
// Resident memory above the process's start-up size (see above).
uint64_t checkWorkBytes();

class MemoryGuard {
 public:
  // Watches the process against limitBytes (0: no limit) and forwards
  // `cancel` (may be null): stop() is the flag to give the engine. With a
  // backstop (the state searches, which end themselves at the limit: full()
  // is set there, Limits::memoryFull), the check is stopped only past
  // backstopBytes.
  MemoryGuard(uint64_t limitBytes, const std::atomic<bool>* cancel, uint64_t backstopBytes = 0);
  ~MemoryGuard();
  MemoryGuard(const MemoryGuard&) = delete;
  MemoryGuard& operator=(const MemoryGuard&) = delete;
  const std::atomic<bool>* stop() const { return &stop_; }
  // Whether the process passed the limit while watched (then stop() is set).
  bool overLimit() const { return over_.load(); }
  // Set once the process passed limitBytes (with or without a backstop).
  const std::atomic<bool>* full() const { return &full_; }

 private:
  std::atomic<bool> stop_{false}, over_{false}, full_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread watcher_;
};

// "stopped: the checks used more than N MiB of memory together (...)".
std::string memoryLimitText(uint64_t limitMiB);

// Gives the freed heap back to the system (after a check stopped at the limit).
void releaseFreedMemory();

}  // namespace tsocheck

#include "service/memory_guard.h"

#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace tsocheck {

uint64_t residentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}

uint64_t checkWorkBytes() {
  static const uint64_t startup = residentBytes();
  const uint64_t now = residentBytes();
  return now > startup ? now - startup : 0;
}

MemoryGuard::MemoryGuard(uint64_t limitBytes, const std::atomic<bool>* cancel, uint64_t backstopBytes) {
  if (limitBytes == 0 && !cancel) return;
  checkWorkBytes();  // the start-up size is taken before the first check
  const uint64_t stopAt = backstopBytes ? backstopBytes : limitBytes;
  watcher_ = std::thread([this, limitBytes, stopAt, cancel] {
    std::unique_lock<std::mutex> l(mu_);
    while (!done_) {
      if (cancel && cancel->load()) stop_.store(true);
      const uint64_t used = limitBytes && !over_.load() ? checkWorkBytes() : 0;
      if (used > limitBytes) full_.store(true);
      if (used > stopAt) {
        over_.store(true);
        stop_.store(true);
      }
      // Every 10 ms: memory grows by at most what a search allocates meanwhile.
      cv_.wait_for(l, std::chrono::milliseconds(10));
    }
  });
}

MemoryGuard::~MemoryGuard() {
  if (!watcher_.joinable()) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    done_ = true;
  }
  cv_.notify_all();
  watcher_.join();
}

std::string memoryLimitText(uint64_t limitMiB) {
  return "stopped: the checks used more than " + std::to_string(limitMiB) +
         " MiB of memory together (the memory limit; raise it with --memory-limit or memory_limit=)";
}

void releaseFreedMemory() { malloc_trim(0); }

}  // namespace tsocheck

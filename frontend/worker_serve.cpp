// The frontend worker's side (frontend/worker.h): one request on stdin, the
// lowered module on stdout, memory bounded from inside as a backstop.
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <new>
#include <string>

#include <llvm/Support/ErrorHandling.h>

#include "frontend/in_process.h"
#include "frontend/wire.h"
#include "frontend/worker.h"

namespace tsocheck::frontend {
namespace {

// Address space the worker needs besides the memory ceiling: the frontend
// thread's stack reservation, and for the shared libraries and malloc arenas.
constexpr uint64_t kWorkerAddressSlack = kFrontendStackBytes + (uint64_t(512) << 20);
// How long after the check's deadline a worker ends itself.
constexpr time_t kWorkerDeadlineSlackSeconds = 1;

uint64_t addressSpaceBytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0;
  if (!(f >> size)) return 0;
  return size * uint64_t(sysconf(_SC_PAGESIZE));
}

bool readAll(int fd, std::string& out) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    out.append(buf, size_t(n));
  }
}

bool writeAll(int fd, const std::string& data) {
  size_t at = 0;
  while (at < data.size()) {
    const ssize_t n = write(fd, data.data() + at, data.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += size_t(n);
  }
  return true;
}

}  // namespace

int serveLowering() {
  std::string in;
  if (!readAll(0, in)) return 2;
  LoweringRequest q;
  try {
    q = decodeRequest(in);
  } catch (const WireError& e) {
    std::fprintf(stderr, "tsocheck-frontend __lower: %s\n", e.what());
    return 2;
  }
  // Out of memory (the address-space backstop below, or the machine) ends
  // the worker with a code the parent reads as "memory limit".
  std::set_new_handler([] { _exit(kWorkerOutOfMemory); });
  llvm::install_bad_alloc_error_handler([](void*, const char*, bool) { _exit(kWorkerOutOfMemory); });
  if (q.memoryBytes) {
    // The parent stops the worker when its resident memory passes the
    // ceiling; this limit catches an allocation burst between two polls.
    const uint64_t cap = addressSpaceBytes() + kWorkerAddressSlack + 2 * q.memoryBytes;
    rlimit rl{cap, cap};
    setrlimit(RLIMIT_AS, &rl);
  }
  if (q.secondsLeft > 0) {
    // Bounded by the check's deadline even if the parent cannot stop it (it
    // normally kills the worker at the deadline itself): SIGALRM ends it.
    itimerval t{};
    t.it_value.tv_sec = time_t(q.secondsLeft) + kWorkerDeadlineSlackSeconds;
    t.it_value.tv_usec = suseconds_t((q.secondsLeft - double(time_t(q.secondsLeft))) * 1e6);
    setitimer(ITIMER_REAL, &t, nullptr);
  }
  FrontendOptions o = q.options;
  o.process = FrontendProcess();
  const FrontendResult r = lowerInProcess(q.path, q.hasContents ? &q.contents : nullptr, q.others, o);
  return writeAll(1, encodeResult(r)) ? 0 : 2;
}

}  // namespace tsocheck::frontend

// The frontend worker's side (frontend/worker.h): one request on stdin, the
// lowered module on stdout, memory bounded from inside as a backstop.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <new>

#include <llvm/Support/ErrorHandling.h>

#include "frontend/in_process.h"
#include "frontend/wire.h"
#include "frontend/worker.h"

namespace tsocheck::frontend {

int serveLowering() {
  std::string in;
  if (!detail::readAll(0, in)) return 2;
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
    const uint64_t cap = detail::addressSpaceBytes() + detail::kWorkerAddressSlack + 2 * q.memoryBytes;
    rlimit rl{cap, cap};
    setrlimit(RLIMIT_AS, &rl);
  }
  FrontendOptions o = q.options;
  o.process = FrontendProcess();
  const FrontendResult r = lowerInProcess(q.path, q.hasContents ? &q.contents : nullptr, q.others, o);
  return detail::writeAll(1, encodeResult(r)) ? 0 : 2;
}

}  // namespace tsocheck::frontend

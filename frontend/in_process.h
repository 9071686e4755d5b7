// The frontend in this process: Clang and LLVM run here. Only programs that
// link the tsocheck_frontend library (which links libclang-cpp and libLLVM)
// have it: the frontend worker `tsocheck-frontend`, the frontend and service
// tests, tsocheck-frontend-dump. The `tsocheck` command does not link them
// (loading them costs a process about 16 ms of CPU) and lowers every file in
// the worker (frontend/worker.h).
#pragma once

#include <map>
#include <string>

#include "frontend/frontend.h"

namespace tsocheck::frontend {

// The stack of the thread Clang runs on: Clang recurses on the syntax tree,
// and a 200,000-term expression must not overflow it. Reserved, touched only
// as deep as needed. AddressSanitizer's frames are several times larger
// (redzones), so its builds reserve 4x for the same depth.
#if defined(__SANITIZE_ADDRESS__)
constexpr unsigned long long kFrontendStackBytes = 2048ull << 20;
#else
constexpr unsigned long long kFrontendStackBytes = 512ull << 20;
#endif

// Lowers (path, contents or the file on disk, further files in memory) here,
// whatever opts.process says.
FrontendResult lowerInProcess(const std::string& path, const std::string* contents,
                              const std::map<std::string, std::string>& others, const FrontendOptions& opts);

// From now on lowerFile, lowerSource and lowerSources with no worker
// (FrontendOptions::process.worker empty) lower in this process. Without
// this call they return a file error instead.
void lowerInThisProcess();

// The worker's side of frontend/worker.h (`tsocheck-frontend __lower`):
// reads one request from stdin, lowers in this process and writes the result
// to stdout. Returns the exit code (0, or kWorkerOutOfMemory when an
// allocation failed).
int serveLowering();

namespace detail {
using InProcessLowering = FrontendResult (*)(const std::string&, const std::string*,
                                             const std::map<std::string, std::string>&, const FrontendOptions&);
void setInProcessLowering(InProcessLowering lower);  // defined with the dispatch (frontend.cpp)
}  // namespace detail

}  // namespace tsocheck::frontend

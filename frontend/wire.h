// The byte encoding of a lowering request and its result, exchanged with the
// frontend worker process (frontend/worker.h). Both ends come from one build
// (`tsocheck` and `tsocheck-frontend` are built and installed together), so
// plain-data records are copied as they are; every read is bounds-checked
// and a malformed message throws WireError.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "frontend/frontend.h"

namespace tsocheck::frontend {

struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LoweringRequest {
  std::string path;
  bool hasContents = false;  // false: the worker reads `path` from disk
  std::string contents;
  std::map<std::string, std::string> others;  // more files in memory (lowerSources)
  FrontendOptions options;   // options.process is not sent, except:
  uint64_t memoryBytes = 0;  // the worker's ceiling (options.process.memoryBytes)
  // Seconds left before the check's deadline when the request was sent (0:
  // none): the worker ends itself a little after it, should the parent not.
  double secondsLeft = 0;
};

std::string encodeRequest(const LoweringRequest& r);
LoweringRequest decodeRequest(const std::string& bytes);
std::string encodeResult(const FrontendResult& r);
FrontendResult decodeResult(const std::string& bytes);

}  // namespace tsocheck::frontend

// The frontend in a worker process. Clang cannot be interrupted, its memory
// cannot be bounded from inside the process, and some inputs crash it (an
// expression 200,000 terms deep, a macro-expansion bomb); a language server
// must survive all of that. So lowerFile/lowerSource with
// FrontendOptions::process.worker set run the whole frontend in a child
// process (`WORKER __lower`, WORKER being the `tsocheck-frontend` executable
// built beside `tsocheck`; its side is serveLowering, frontend/in_process.h):
// the request (path, unsaved contents, options)
// goes to its stdin and the lowered module comes back on its stdout
// (frontend/wire.h). The parent polls it and kills it at the deadline, on
// the cancel flag (a newer edit) or when its resident memory passes the
// ceiling; a crash or a stop becomes a file-level error diagnostic and
// FrontendResult::stopped.
#pragma once

#include <map>
#include <string>

#include "frontend/frontend.h"

namespace tsocheck::frontend {

// Runs the frontend for (path, contents or the file on disk, further files
// in memory: lowerSources) in the worker process opts.process.worker.
FrontendResult lowerInWorker(const std::string& path, const std::string* contents,
                             const std::map<std::string, std::string>& others, const FrontendOptions& opts);

// Starts a worker that waits, libraries loaded, for the next lowering with
// FrontendProcess::keepSpare (unless one already waits).
void startSpareWorker(const std::string& worker);

// The worker's exit code when an allocation failed.
constexpr int kWorkerOutOfMemory = 3;

}  // namespace tsocheck::frontend

// frontend.h's entry points without Clang or LLVM: each lowering goes to the
// worker process (frontend/worker.h) or, in a program that links the
// Clang-facing half and asked for it (frontend/in_process.h), runs here.
#include "frontend/frontend.h"

#include <atomic>

#include "frontend/in_process.h"
#include "frontend/worker.h"

namespace tsocheck::frontend {
namespace {

std::atomic<detail::InProcessLowering> inProcess{nullptr};

FrontendResult lower(const std::string& path, const std::string* contents,
                     const std::map<std::string, std::string>& others, const FrontendOptions& opts) {
  if (!opts.process.worker.empty()) return lowerInWorker(path, contents, others, opts);
  if (const detail::InProcessLowering here = inProcess.load()) return here(path, contents, others, opts);
  return fileErrorResult(path, "no C frontend: this program lowers C only in a frontend worker, "
                               "and none was given (an internal error; please report it)");
}

}  // namespace

void detail::setInProcessLowering(InProcessLowering lower) { inProcess.store(lower); }

FrontendResult lowerFile(const std::string& path, const FrontendOptions& opts) {
  return lower(path, nullptr, {}, opts);
}

FrontendResult lowerSource(const std::string& path, const std::string& contents, const FrontendOptions& opts) {
  return lowerSources(path, contents, {}, opts);
}

FrontendResult lowerSources(const std::string& path, const std::string& contents,
                            const std::map<std::string, std::string>& others, const FrontendOptions& opts) {
  return lower(path, &contents, others, opts);
}

std::optional<StatementSpan> statementContaining(const LoweredModule& module, const std::string& file,
                                                 uint32_t line, uint32_t column) {
  auto before = [](uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2) { return l1 < l2 || (l1 == l2 && c1 <= c2); };
  std::optional<StatementSpan> best;
  for (const StatementSpan& s : module.statements) {
    if (s.file != file || !before(s.beginLine, s.beginColumn, line, column) ||
        !before(line, column, s.endLine, s.endColumn))
      continue;
    // Spans nest, so the innermost one starts last.
    if (!best || before(best->beginLine, best->beginColumn, s.beginLine, s.beginColumn)) best = s;
  }
  return best;
}

Diagnostic fileError(const std::string& path, std::string message) {
  Diagnostic d;
  d.file = path;
  d.severity = "error";
  d.message = std::move(message);
  return d;
}

FrontendResult fileErrorResult(const std::string& path, std::string message) {
  FrontendResult res;
  res.fileErrors = true;
  res.diagnostics.push_back(fileError(path, std::move(message)));
  return res;
}

std::string formatDiagnostic(const Diagnostic& d) {
  std::string s;
  if (!d.file.empty()) {
    s += d.file;
    if (d.line) s += ":" + std::to_string(d.line) + ":" + std::to_string(d.column);
    s += ": ";
  }
  return s + d.severity + ": " + d.message;
}

}  // namespace tsocheck::frontend

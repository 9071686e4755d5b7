// The C frontend: parses a C test harness with Clang (in-process), promotes
// non-escaping scalar locals to SSA with mem2reg/SROA only (never -O1/-O2, so
// every access to shared memory stays one load or store in program order),
// and lowers the LLVM IR to the engine's register IR (engine/ir.h).
//
// Check functions are `void NAME(void)` functions annotated with
// `__attribute__((annotate("tsocheck ...")))` (see frontend/include/tsocheck.h).
// To check function i, set module.program.entry = module.entryOf[i] and call
// tsocheck::check().
//
// Lowering depends on the memory model (C11 orders are mapped to the fences a
// compiler emits for that machine), so a module is lowered for one model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/ir.h"

namespace tsocheck::frontend {

struct FrontendOptions {
  Model model = Model::TSO;
  std::vector<std::string> clangArgs;  // extra driver arguments (-I, -D, -std=...)
  std::string resourceDir;             // empty: the one found at configure time
  uint32_t loopBound = 8;              // iterations of loops that wait on other threads and have effects; 0 = off
};

struct Diagnostic {
  std::string file;
  uint32_t line = 0, column = 0;
  std::string severity;  // "error" | "warning" | "note"
  std::string message;
};

struct CheckFunction {
  std::string name;
  std::string file;
  uint32_t line = 0, column = 0;
  std::string annotation;  // text after "tsocheck", e.g. "model=pso buffer_bound=2"
};

struct LoweredModule {
  Program program;  // shared by all checks: all functions + globals
  std::vector<CheckFunction> checks;
  std::vector<uint32_t> entryOf;  // Program function index per check
  Model model = Model::TSO;       // the model the module was lowered for
  uint32_t loopBound = 8;         // the FrontendOptions::loopBound it was lowered with
};

struct FrontendResult {
  bool ok = false;
  std::vector<Diagnostic> diagnostics;
  LoweredModule module;
};

FrontendResult lowerFile(const std::string& path, const FrontendOptions& opts);
// Like lowerFile, with the file's contents given in memory (unsaved editor buffers).
FrontendResult lowerSource(const std::string& path, const std::string& contents, const FrontendOptions& opts);

// "file:line:col: severity: message"
std::string formatDiagnostic(const Diagnostic& d);

}  // namespace tsocheck::frontend

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

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/ir.h"

namespace tsocheck::frontend {

// Iterations after which a loop that waits on other threads and has effects is
// cut (`--loop-bound`, `loop_bound=`), unless set otherwise.
constexpr uint32_t kDefaultLoopBound = 8;

// Where the frontend runs. With `worker` empty, in this process (Clang on a
// large-stack thread under crash recovery). Otherwise in a separate worker
// process (`worker __lower`, frontend/worker.h): its crash cannot take the
// caller down, and it is stopped at the deadline, when *cancel is set, or
// when its resident memory passes memoryBytes (FrontendResult::stopped).
struct FrontendProcess {
  std::string worker;  // an executable serving `__lower` (the tsocheck binary); "" = in-process
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  double timeLimitSeconds = 0;  // the limit behind `deadline`, for the message
  const std::atomic<bool>* cancel = nullptr;
  uint64_t memoryBytes = kDefaultMemoryLimitMiB << 20;
  // Keep one worker started ahead for the next lowering (a long-lived
  // process, the language server): it has loaded LLVM and Clang, about two
  // thirds of a small file's lowering time, before the request comes.
  bool keepSpare = false;
};

// Another translation unit of the program: parsed with its own flags and
// linked with the checked file at the LLVM IR level (llvm::Linker) before
// lowering. Its `static` names stay its own.
struct TranslationUnit {
  std::string path;                    // absolute
  std::vector<std::string> clangArgs;  // its driver arguments, as FrontendOptions::clangArgs for the checked file
};

// At most this many candidate files are parsed to find definitions for one
// lowering (FrontendOptions::candidates beyond it are not sent).
constexpr size_t kMaxCandidateUnits = 64;

struct FrontendOptions {
  Model model = kDefaultModel;
  MemoryModel memoryModel() const { return {model}; }  // lowering depends on the model, not on a bound
  std::vector<std::string> clangArgs;  // extra driver arguments (-I, -D, -std=...)
  std::string resourceDir;             // empty: the one found at configure time
  uint32_t loopBound = kDefaultLoopBound;  // iterations of loops that wait on other threads and have effects; 0 = off
  // abort() ends the program without an error (--abort=end): the aborting
  // thread stops like a failed assume. false: abort() is an error.
  bool abortEnds = false;
  // pthread_cond_wait / cnd_wait may return without a signal or broadcast
  // (POSIX allows it; the default). false (--no-spurious-wakeups): a wait
  // returns only after a signal or broadcast made while it waited.
  bool spuriousWakeups = true;
  // Also check the file's main(void) / main(int, char**) as a harness (--main).
  bool mainHarness = false;
  // The program's other translation units. `with` are always linked (`--with`,
  // `with=`); each of `candidates` (a compile database's other C files, in
  // its order, at most kMaxCandidateUnits) is parsed only while the program
  // still uses an external function or global that nothing linked defines,
  // and linked when it defines one of them (followed transitively).
  std::vector<TranslationUnit> with;
  std::vector<TranslationUnit> candidates;
  size_t candidatesLeftOut = 0;  // database entries not in `candidates` (over the cap), for the message
  FrontendProcess process;  // how the frontend runs (not part of what it computes)
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
  // The first construct that cannot be lowered in code or data this check
  // reaches (other checks of the file are not affected by it).
  std::optional<Diagnostic> blockedBy;
};

// A statement of a function body that is a direct child of a block (compound
// statement), from its first character to its last: the `;` of `x = 1;`, the
// `}` of `if (c) { ... }`, the `;` of `if (c) x = 1;`. Lines and columns are
// 1-based; columns count bytes.
struct StatementSpan {
  std::string file;
  uint32_t beginLine = 0, beginColumn = 0;
  uint32_t endLine = 0, endColumn = 0;
  // In a file the user does not edit: a system header (found through a
  // system include directory: /usr/include, Clang's resource directory,
  // -isystem), or a file under /usr/include or tsocheck's own include
  // directory. No source edit is offered there.
  bool system = false;
};

struct LoweredModule {
  Program program;  // shared by all checks: all functions + globals
  std::vector<CheckFunction> checks;
  std::vector<uint32_t> entryOf;  // Program function index per check
  Model model = kDefaultModel;    // the model the module was lowered for
  uint32_t loopBound = kDefaultLoopBound;  // the FrontendOptions::loopBound it was lowered with
  std::vector<StatementSpan> statements;  // block-level statements of every function body
  // The translation units linked with the checked file (TranslationUnit::path),
  // in link order; the program was built from the checked file and these.
  std::vector<std::string> units;
  // The candidate files parsed for definitions (linked or not), named when a
  // definition is missing.
  std::vector<std::string> searched;
  size_t searchLeftOut = 0;  // candidates not parsed: over the cap
};

// Why a worker-process frontend was stopped before it finished.
enum class FrontendStop : uint8_t { None, TimeLimit, Cancelled, MemoryLimit };

struct FrontendResult {
  bool ok = false;  // no error at all
  // Set when the worker was stopped (the diagnostics then say why, at the
  // file, and there are no checks).
  FrontendStop stopped = FrontendStop::None;
  // Errors that concern the whole file (not one function or global: see
  // CheckFunction::blockedBy); with ok false and none of these, the checks
  // that are not blocked can run.
  bool fileErrors = false;
  std::vector<Diagnostic> diagnostics;
  LoweredModule module;
};

FrontendResult lowerFile(const std::string& path, const FrontendOptions& opts);
// Like lowerFile, with the file's contents given in memory (unsaved editor buffers).
FrontendResult lowerSource(const std::string& path, const std::string& contents, const FrontendOptions& opts);
// Like lowerSource, with more files of the program in memory too (headers or
// .c files the checked file includes, e.g. edited copies): `others` maps each
// path, as Clang names the file (StatementSpan::file), to its contents.
// Files in neither are read from disk.
FrontendResult lowerSources(const std::string& path, const std::string& contents,
                            const std::map<std::string, std::string>& others, const FrontendOptions& opts);

// The innermost block-level statement of `module` that contains file:line:column
// (e.g. a store's location): a new statement inserted right after its end runs
// right after it. A store in the unbraced body of an if/loop (`if (c) x = 1;`)
// yields the whole if/loop statement, because the body itself is not a block
// child. nullopt when no statement contains the location.
std::optional<StatementSpan> statementContaining(const LoweredModule& module, const std::string& file,
                                                 uint32_t line, uint32_t column);

// An error about the whole file (no line): the compiler could not run on it.
Diagnostic fileError(const std::string& path, std::string message);
// A result that is only that error (FrontendResult::fileErrors, no checks).
FrontendResult fileErrorResult(const std::string& path, std::string message);

// "file:line:col: severity: message"
std::string formatDiagnostic(const Diagnostic& d);

}  // namespace tsocheck::frontend

// What a typed check report says, worded once for every front end that
// renders one (the CLI's JSON, the language server, the debug adapter): the
// names behind a trace step, its label, and the stepping payload. Reports read
// back from JSON (service/report_json.h checkFromJson) and fresh ones from the
// runner read the same way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_report.h"

namespace tsocheck {

// The function the step's instruction is in (nullptr when unknown or prog is).
const Function* stepFunction(const Program* prog, const TraceStep& s);
// For a direct spawn: the function the new thread starts in.
std::optional<std::string> spawnsFunction(const Program* prog, const TraceStep& s);
// The file a source location names ("" when unknown or prog is null).
std::string fileIn(const Program* prog, const SourceLoc& l);
// A step's value as the labels show it ("?" when it has none).
std::string valueText(const TraceStep& s);

// "step 3 · T1 · load flag[1] → 0 (memory)"
std::string stepLabel(const TraceStep& s);
// "[x = 1, y = 2]": one store buffer, oldest entry first.
std::string bufferText(const std::vector<BufferEntry>& buffer);
// "T1 [x = 1] · T2 [y = 1]": the non-empty store buffers after a step, oldest
// entry first ("" when every buffer is empty).
std::string buffersText(const TraceStep& s);

// RC11 traces (steps with TraceStep::rc11 facts): what explains a step.
// A read's explanation: the write it read and, when the trace made a
// coherence-later write to the location before it (a stale read), why that
// write was not visible: "reads data = 0 (the initial value) although T1
// stored data = 42 (step 3) before its store to flag (step 4): T2's load of
// flag (step 7) is relaxed, so its read of flag = 1 does not synchronise
// with the store" ("" for a step that reads nothing or has no facts).
std::string readExplanation(const std::vector<TraceStep>& trace, size_t i);
// The stale part alone ("" when the read is not stale): "although ...".
std::string staleReadReason(const std::vector<TraceStep>& trace, size_t i);
// The step of the coherence-later write that explanation names (0: not stale).
uint32_t missedWrite(const std::vector<TraceStep>& trace, size_t i);
// A step's synchronisation facts: "synchronises with step 4 (T1's release
// store of flag)" ("" when it synchronises with nothing).
std::string hbText(const std::vector<TraceStep>& trace, size_t i);
// Everything said about step i: the engine's note, the read's explanation
// and the hb facts, joined by "; " (as the CLI and SARIF print it).
std::string stepNote(const std::vector<TraceStep>& trace, size_t i);

// Under RC11, the writes thread `thread` may still read after step `upTo`
// (a trace index), per location: the coherence-latest write (or the initial
// value) that happens before the thread's last step or that an event
// happening before it read, and every coherence-later write the trace made
// so far. Locations in the order the trace first names them; writes in
// coherence order. Empty when the trace has no RC11 facts.
struct ReadableWrite {
  Value value = 0;
  uint32_t step = 0;  // the write's step (0: the initial value)
  uint32_t thread = 0;
};
struct ReadableLocation {
  std::string address;
  std::vector<ReadableWrite> writes;
};
std::vector<ReadableLocation> readableWrites(const std::vector<TraceStep>& trace, size_t upTo, uint32_t thread);
// "0 (initial value) or 42 (T1, step 3)"
std::string readableText(const ReadableLocation& l);

// A violation in a few lines, the first thing a reader sees (hover, console,
// CLI): what failed and where; the stale read (which thread read what while
// which store sat in which buffer; under RC11 the read that missed a
// coherence-later write and why, readExplanation; otherwise the write the
// failing thread's last read took); the buffers at the step where the stale
// value was read. `prog` names the files (may be null).
std::vector<std::string> violationSummary(const Program* prog, const Violation& v);

// "Where does it break?": one check function's verdicts under several
// models (`tsocheck check --model sc,tso,pso,rc11`), in the order run.
struct ModelVerdicts {
  std::string file, function;
  uint32_t line = 0;
  std::vector<std::pair<Model, Status>> verdicts;
};
// The rows of reports run once per model (each check function once, in the
// order first met; reports of one model after another).
std::vector<ModelVerdicts> compareModels(const std::vector<FileReport>& reports);
// "SC ✓  TSO ✗  PSO ✗  RC11 ✗": ✓ verified, ✗ violation, otherwise the
// status's name (bounded, timeout, error).
std::string modelVerdictsText(const ModelVerdicts& row);
nlohmann::json modelVerdictsJson(const std::vector<ModelVerdicts>& rows);

// Per step of a trace, the memory values known after it (by address name):
// a flush writes memory, a load from memory reads it, an RMW leaves its value
// there; without store buffers (SC) a store writes memory at once.
using KnownMemory = std::map<std::string, Value>;
std::vector<KnownMemory> knownMemory(const std::vector<TraceStep>& trace, Model model);

// Trace step i for stepping UIs: traceStepJson plus the memory known after it
// ("memory").
nlohmann::json payloadStep(const Program& prog, const std::vector<TraceStep>& trace, size_t i,
                           const KnownMemory& memory);
// The structured trace for stepping UIs: the check JSON with payload steps.
nlohmann::json tracePayload(const CheckReport& check);

// What checking a file came to, as one line an editor's status bar shows:
// the state ("verified", "bounded", "violation", "input-error", "timeout",
// "unchecked", "checking") and its words, e.g. "verified under TSO",
// "bounded under TSO: no violation with store buffers of at most 2 entries",
// "does not compile: use of undeclared identifier 'x' (line 4)".
// "verified" only when every check of the file was verified.
struct FileStatus {
  std::string state;
  std::string text;
};
// `input` says whether the file could be checked at all; `checks` are the
// checks as shown (fresh or from the cache).
FileStatus fileStatus(const FileReport& input, const std::vector<CheckReport>& checks);
// A check running: "checking… 1,234 executions".
FileStatus checkingStatus(uint64_t executions);
nlohmann::json fileStatusJson(const FileStatus& s);

}  // namespace tsocheck

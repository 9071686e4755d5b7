// The check JSON, version 1: the only writer and reader of the shape the CLI
// prints with `--json`, the language server stores in its result cache and
// serves in tsocheck/trace, and the debug adapter replays. Every front end
// reads it through checkFromJson into the typed CheckReport
// (service/report_reader.h words the typed steps).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_report.h"

namespace tsocheck {

// Bumped whenever checkJson gains or changes a field (still version 1 for
// readers: fields are only added); part of the result cache's key.
inline constexpr uint32_t kCheckJsonRevision = 6;

// One trace step. Besides what happened (step, thread, function, event,
// address, value, file/line/column, note) it carries the engine's reading of
// it, so that no client re-derives it:
//   "buffers":  every thread's store buffer after the step, oldest first, each
//               entry {address, value, store_step: the step that stored it};
//   "spawned":  for a spawn, the thread it starts ("spawns": its function);
//   "stale":    for a load served by memory while another thread's buffer
//               holds a store to the address: {thread, address, value,
//               store_step} of that thread's newest such entry (else null);
//   "label":    "step 3 · T1 · load flag[1] → 0 (memory)" and
//   "buffers_text": "T1 [x = 1] · T2 [y = 1]" ("" when all are empty): the
//               step and its buffers as every front end shows them
//               (report_reader.h stepLabel, buffersText);
//   "reads":    RC11: what the read read and, for a stale read, why a
//               coherence-later write was not visible (report_reader.h
//               readExplanation; else null);
//   "hb":       RC11: "synchronises with step 4 (T1's release store of
//               flag)" (report_reader.h hbText; else null);
//   "rc11":     RC11: the facts those are worded from (TraceStep::Rc11Facts):
//               {order, event (index in its thread), read (null: no read),
//               reads_from (step; null: the initial value), read_co,
//               write_co (null: no write), init, sw: [steps], hb: [per
//               thread], missed: for a stale read the step of the
//               coherence-later write it missed (else null)} (else null).
// Step i of a trace (the RC11 words need the steps before it).
nlohmann::json traceStepJson(const Program& prog, const std::vector<TraceStep>& trace, size_t i);
// One violation (without "trace" unless withTrace); its "summary" is
// report_reader.h violationSummary, the lines shown before the steps.
nlohmann::json violationJson(const Program& prog, const Violation& v, bool withTrace = true);
nlohmann::json checkJson(const CheckReport& r);
// {"version":1,"results":[...],"errors":[...]} over every file checked.
nlohmann::json resultsJson(const std::vector<FileReport>& files);

// The reader: the check JSON back into a CheckReport. Tolerant: a missing or
// mistyped member reads as its default (a non-object step or entry is left
// out), never an exception. Names the JSON gives as text (files, functions,
// the function a spawn starts) are kept in `program`, a name table the
// writer and report_reader.h read them from (it holds no code to run).
// checkJson(checkFromJson(j)) == j for every j checkJson wrote; the typed
// report does not come back with what the JSON leaves out (annotation,
// reused, addresses as numbers, the steps' event and pc numbers, severity of
// `warnings` and `error`, CheckResult::nondetLimited).
CheckReport checkFromJson(const nlohmann::json& j);
// resultsJson read back: one FileReport per file of `results` (in order) and
// one per entry of `errors`.
std::vector<FileReport> resultsFromJson(const nlohmann::json& j);
// Whether j has every member checkJson writes that the front ends read, each
// with its type (result cache entries read back from disk are input: anything
// else is a miss).
bool completeCheckJson(const nlohmann::json& j);

// The file a source location of the program names ("" when unknown).
std::string fileOf(const Program& prog, const SourceLoc& l);

}  // namespace tsocheck

// Replay of a violation trace for the debug adapter (`tsocheck dap`): a
// position i over the N steps of a check's trace and the machine state after
// step i. Pure logic on the typed check report (a check JSON is read with
// service/report_json.h checkFromJson); no I/O. The engine has already said
// what each step means; this only looks it up:
//  * memory: values known so far (`tracePayload`);
//  * per thread, its store buffer after step i, oldest first, each entry with
//    the source position of its `store_step`;
//  * per thread, what it has read so far (loads and RMWs);
//  * whether step i is a stale read (its `stale`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_report.h"
#include "service/report_reader.h"

namespace tsocheck::dap {

using json = nlohmann::json;

struct PendingStore {
  uint32_t thread = 0;
  std::string address;
  json value;
  std::string file;
  uint32_t line = 0, column = 0;
  size_t storeIndex = 0;  // trace index of the store step
};

struct ReadRecord {
  std::string address;
  json value;
  bool fromBuffer = false;  // served by the thread's own store buffer
  bool rmw = false;
  uint32_t line = 0;
  size_t index = 0;  // trace index of the read step
};

struct StaleRead {
  uint32_t thread = 0;  // the reader
  std::string address;
  json value;           // what it read from memory
  std::string file;
  uint32_t line = 0, column = 0;
  uint32_t pendingIn = 0;  // the thread whose buffer holds the newer store
  json pendingValue;
  uint32_t pendingLine = 0, pendingColumn = 0;  // source of that buffered store
};

struct ReplayState {
  size_t index = 0;  // the step just performed
  json memory = json::object();                      // address -> value
  std::vector<std::vector<PendingStore>> buffers;    // per thread, oldest first
  std::vector<std::vector<ReadRecord>> reads;        // per thread, in trace order
  std::optional<StaleRead> staleRead;                // step `index` is a stale read
};

class Replay {
 public:
  // nullopt (and *error) when the check has no violation trace.
  static std::optional<Replay> fromReport(const CheckReport& check, std::string* error = nullptr);
  // The same for a check JSON (checkJson shape).
  static std::optional<Replay> fromCheck(const json& check, std::string* error = nullptr);

  size_t size() const { return steps_.size(); }
  size_t position() const { return pos_; }
  bool atEnd() const { return pos_ + 1 >= steps_.size(); }
  // Movement; false (and no change) when already at the bound.
  bool next();
  bool back();
  void toStart() { pos_ = 0; }
  void toEnd() { pos_ = steps_.empty() ? 0 : steps_.size() - 1; }

  // Trace step i as in `tracePayload` (with "label" and "memory"): the
  // protocol's view of it.
  const json& step(size_t i) const { return steps_.at(i); }
  const json& current() const { return steps_.at(pos_); }
  const json& violation() const { return violation_; }
  const json& check() const { return check_; }
  // The typed report and its violation's trace step i.
  const CheckReport& report() const { return report_; }
  const Violation& replayedViolation() const { return *report_.result.violation; }
  const TraceStep& traceStep(size_t i) const { return replayedViolation().trace.at(i); }
  // Where step i is: its file ("" when unknown), line and column.
  std::string fileOf(size_t i) const;
  std::string label(size_t i) const;
  // Label of step position+1, or "— end of trace (violation)".
  std::string nextEventLabel() const;

  uint32_t threadCount() const { return threads_; }
  // "T0 (main)", "T1 (worker)", or "T1" when the start function is unknown.
  std::string threadName(uint32_t t) const;
  // The most recent step of thread t at or before the position.
  std::optional<size_t> lastStepOf(uint32_t t) const;
  bool started(uint32_t t) const;  // t has a step at or before the position
  // t exists at the position: T0, or its spawn step is at or before it.
  bool spawned(uint32_t t) const;
  bool exited(uint32_t t) const;   // ... and that step is its exit

  // State after step i (default: the position; cached): the step's own
  // buffers and stale read, so a stop costs the same on a 20-step and a
  // 20,000-step trace (bench/dap_steps.py).
  ReplayState stateAt(size_t i) const;
  const ReplayState& state() const;

  // Under RC11 (no store buffers): per location, the writes thread t may
  // still read at the position (report_reader.h readableWrites); empty for
  // the other models.
  bool rc11() const;
  std::vector<ReadableLocation> mayRead(uint32_t t) const;

  // Body of the `tsocheckState` request (format in dap_server.h).
  json stateJson() const;

 private:
  CheckReport report_;
  json check_;
  json violation_;
  std::vector<json> steps_;                 // as payloadStep writes them
  std::vector<KnownMemory> memory_;         // per step: the memory known after it
  std::vector<std::string> startFunction_;  // per thread ("" = unknown)
  std::vector<size_t> spawnIndex_;          // per thread: its spawn step (SIZE_MAX = none seen)
  std::vector<std::vector<size_t>> stepsOf_;           // per thread: its trace indexes, ascending
  std::vector<std::vector<ReadRecord>> allReads_;      // per thread: every read of the trace
  using Buffers = std::vector<std::vector<PendingStore>>;
  mutable std::optional<ReplayState> cache_;  // the state at cache_->index

  Buffers buffersAt(size_t i) const;  // step i's buffers, entries sourced by their store steps
  ReplayState finish(Buffers buffers, size_t upTo) const;  // reads, memory, stale read after upTo
  uint32_t threads_ = 0;
  size_t pos_ = 0;
};

}  // namespace tsocheck::dap

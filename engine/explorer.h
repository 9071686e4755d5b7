// Optimal exploration of execution graphs (TruSt-style, Kokologiannakis et al.
// POPL'22, as recalled in seed 002): events are added one at a time from the
// leftmost thread that can move; a read tries every write it could read from,
// a write tries every coherence position and then revisits earlier reads of
// its location, deleting what was added after the read — but only when the
// deleted part was itself added "maximally", which makes every complete graph
// (= Shasha–Snir trace) reachable in exactly one way. Memory use is the
// recursion depth times the graph size: nothing grows with the number of
// executions explored.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/consistency.h"
#include "engine/graph.h"
#include "engine/interp.h"
#include "engine/preemption.h"
#include "engine/races.h"

namespace tsocheck {

class Explorer {
 public:
  Explorer(const Program& prog, const CheckOptions& opts);
  CheckResult run();

 private:
  struct State {
    Graph g;
    std::vector<std::optional<ThreadState>> ts;  // per thread id; empty when not alive
    PreemptionState pb;  // preemption bookkeeping (only with a preemption bound)
  };

  void visit(State& s);
  int pickThread(const State& s) const;
  bool mayRevisit(const State& s, uint32_t t, EventId w) const;
  void finishExecution(State& s);
  void noteLimit(const std::string& message, const SourceLoc& loc);
  // Validates a memory access (address, size) and creates its location; false
  // when an error was reported instead.
  bool prepareAccess(State& s, uint32_t t, const Action& a);
  int coLowerBound(const State& s, uint32_t t, Addr a) const;
  std::vector<EventId> candidates(const State& s, Addr a, int low) const;
  void handleRead(State& s, uint32_t t);
  void handleWrite(State& s, uint32_t t);
  void handleRmw(State& s, uint32_t t);
  // Backward revisits by the write w of thread t: every read of w's location
  // outside w's porf-prefix may be made to read w. `completeT`: deliver w's
  // result to thread t in each revisited state (false when t already has it:
  // the re-added write of a revisited RMW).
  void revisits(State& s, uint32_t t, EventId w, bool completeT = true);
  bool maximallyAdded(const Graph& g, EventId e, EventId w, const std::vector<uint32_t>& view) const;

  Event makeEvent(const State& s, uint32_t t, EvKind kind) const;
  EventId append(State& s, uint32_t t, Event e);
  void complete(State& s, uint32_t t);  // deliver the newest event's result to the thread
  ThreadState replay(const Graph& g, uint32_t t) const;
  uint32_t spawnId(uint32_t parent, uint32_t ordinal);

  Value initialValue(Addr a, uint8_t size) const;
  // Empty when the access is fine; otherwise a description of the memory error.
  std::string checkAccess(const State& s, Addr a, uint64_t size) const;
  bool useAfterFree(State& s, EventId access);
  bool stackUsedAfterExit(State& s, EventId exitId);
  // CheckOptions::exitEndsProgram: the Exit event e of thread t ends the
  // program; some thread's does in g.
  bool endsProgram(const Event& e, uint32_t t) const;
  bool programEnded(const Graph& g) const;
  bool sizeConflict(State& s, uint32_t t, Addr a, uint8_t size);

  void reportError(State& s, uint32_t t, ErrorKind kind, const std::string& msg, const SourceLoc& loc,
                   bool pendingIsError);
  void reportEngineError(const std::string& msg, const SourceLoc& loc);
  void recordExecution(const State& s, bool blocked);
  // The counterexample steps of g in its chronological order (empty order if
  // g were inconsistent).
  std::vector<TraceStep> traceOf(const Graph& g);
  // Data races of an ended execution (complete, blocked, cut or erroneous):
  // each new pair of source locations becomes a warning.
  void checkRaces(const State& s);
  // Robustness: records s as the witness when SC does not allow its graph.
  void checkRobust(const State& s);
  void finishRobustness();
  bool hasWitness() const { return res_.robustness && res_.robustness->witness; }
  // Every candidate graph passes here: once the time is up (or the check is
  // cancelled) no candidate is accepted any more, so that loops over many
  // candidates in one long execution end promptly too.
  bool consistent(const Graph& g) {
    if (outOfTime()) {
      timedOut_ = stopped_ = true;
      return false;
    }
    return checker_.consistent(g);
  }
  bool timeUp();      // outOfTime(), and progress reports
  bool outOfTime() const;  // the deadline passed or the check was cancelled
  // With a preemption bound: false (and counted) when g is pruned by it.
  bool withinPreemptionSlack(State& s);

  const Program& prog_;
  CheckOptions opts_;
  MemoryModel mm_;
  ConsistencyChecker checker_;
  ConsistencyChecker scChecker_{MemoryModel{Model::SC, -1}};  // robustness: SC is the reference model
  PreemptionCounter preemptions_;
  RaceDetector races_;
  bool raceCheck_ = false;  // opts_.raceCheck and the program has plain accesses
  std::vector<Race> raceScratch_;
  CheckResult res_;
  bool stopped_ = false;
  bool timedOut_ = false;
  ErrorKind witnessKind_ = ErrorKind::None;  // the violation recorded in the robustness witness's execution
  uint64_t visits_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, uint32_t>> spawnIds_;
  uint32_t nextThreadId_ = 1;
};

}  // namespace tsocheck

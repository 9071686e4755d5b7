// Explicit-state search over the operational semantics (the machine of
// Zhang, Kusano and Wang, PLDI 2015):
// thread steps and store-buffer flushes, per-thread FIFO buffers under TSO,
// per-address FIFOs under PSO (store-store barriers order flushes across
// them), at most k pending stores per thread, k = 0 being SC. A visited-state
// table (exact byte keys of threads, memory and buffers) stops the search
// below every state seen before, so loops over finite data end by themselves.
// Two searches (StateSearch): breadth-first over every reachable state, and
// Yang et al.'s stateful DPOR, which enters only the successors its backtrack
// sets need and reaches the same errors and final states.
//
// On top of it, buffer-bound deepening with the fixpoint of Narayan et al.
// (Theorem 1): the reachable states projected to (control locations and local
// state, memory, last pending write per address of every thread) stop growing
// from k to k+1 ⇒ they never grow again, so a program without a violation at
// that k is safe for unbounded store buffers.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/check.h"

namespace tsocheck {

// Bfs: breadth-first over every reachable state (what the deepening's
// fixpoint needs). Dpor: Yang et al.'s stateful dynamic partial-order reduction,
// depth-first (state_space.cpp, "Stateful DPOR"): the same verdicts and final
// states from far fewer states where steps are independent. --stateful uses it.
enum class StateSearch : uint8_t { Bfs, Dpor };

struct StateSpaceOptions {
  // The options every search shares (search.h): the state-space search reads
  // model, bufferBound (-1 = unbounded: may not terminate, see maxStates),
  // limits (step and call-depth limits, stateMemoryBytes), timeLimitSeconds,
  // cancel, stopAtFirstError (deadlocks and non-termination never stop it),
  // deadlocks, exitEndsProgram, onExecution (complete and blocked final
  // states, traceKey empty) and onProgress (called every 256 expanded states
  // with the distinct final states so far); the others are the graph explorer's.
  CheckOptions check;
  MemoryModel memoryModel() const { return check.memoryModel(); }
  StateSearch search = StateSearch::Bfs;  // Dpor never collects projections
  // Distinct states; reaching it cuts the search. The state memory limit
  // (limits.stateMemoryBytes) is what normally ends a search that does not end.
  uint64_t maxStates = 50000000;
  // Bytes the caller already holds for this search (the deepening's previous
  // projections): counted against limits.stateMemoryBytes.
  uint64_t memoryInUse = 0;
  bool collectProjections = false;  // fill StateSpaceResult::projections (for the fixpoint)
  // Partial-order reduction: buffered stores and fences on an empty buffer
  // run alone when that is safe (state_space.cpp). Never with projections.
  bool reduce = true;
};

struct StateSpaceResult {
  CheckResult result;   // executions = distinct complete final states, events = transitions
  uint64_t states = 0;  // distinct states visited
  uint64_t transitions = 0;  // successors made (Bfs) or transitions taken (Dpor), revisits included
  uint64_t revisits = 0;     // Dpor: transitions into a state visited before
  // True when every reachable state was explored: no step/depth limit, loop
  // bound, state limit or time limit cut anything.
  bool exhaustive = false;
  bool stateLimitHit = false;  // maxStates or the state memory limit stopped the search
  bool memoryLimitHit = false;  // ... and it was the memory limit
  uint64_t peakBytes = 0;       // largest estimated memory held (with memoryInUse)
  std::unordered_set<std::string> projections;  // Theorem 1 projections of all states
};

StateSpaceResult exploreStates(const Program& prog, const StateSpaceOptions& opts);

// Per-k figures of a deepening run.
struct DeepeningStep {
  int k = 0;
  uint64_t states = 0;
  uint64_t projections = 0;
  double elapsedMs = 0;
  Status status = Status::Verified;
};

struct DeepeningResult {
  // violation (the first k that shows one), verified (fixpoint reached with
  // nothing cut), bounded (largest k checked), error or timeout.
  CheckResult result;
  int largestK = -1;               // largest k fully checked without a violation
  std::optional<int> violationK;   // smallest k with a violation
  // Smallest k with a deadlock or non-termination, when the deepening went on
  // past it (hangs do not stop it) to look for an assertion or memory error.
  std::optional<int> hangK;
  std::optional<int> fixpointK;    // S_k and S_{k+1} have equal projections
  std::vector<DeepeningStep> steps;
};

// k = fromK, fromK+1, ... toK (under SC only one run). opts.model, limits,
// time limit (for the whole deepening) and stopAtFirstError are used; the
// state memory limit covers the projections kept between two k. A k
// whose search reaches maxStates or the memory limit ends the deepening (larger k only grow).
DeepeningResult deepenBufferBound(const Program& prog, const CheckOptions& opts, int fromK, int toK,
                                  uint64_t maxStates = 50000000);

}  // namespace tsocheck

// Differential check of one program under one model and buffer bound: the
// graph explorer (check()), the naive explorer (every interleaving of the
// operational machine) and the state-space search, both its breadth-first
// form and its stateful DPOR (--stateful), must
// agree on the verdict and on the set of final states, and the graph
// explorer must find each Shasha–Snir trace exactly once (its executions ==
// the naive explorer's distinct traces, the same trace keys).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/check.h"
#include "engine/state_space.h"

namespace tsocheck::testing {

struct DiffConfig {
  Model model = Model::TSO;
  int bound = -1;  // buffer bound, -1 unbounded
  // Trace keys name threads by (parent, spawn ordinal) in the explorer and by
  // global spawn order in the naive explorer: with nested spawns only final
  // states and verdicts are compared.
  bool compareTraces = true;
  // The state-space search has only a one-step persistent-set reduction, so
  // it explodes on 5-6 threads; past this many states it is left out of the
  // comparison (DiffOutcome::statefulSkipped) instead of being waited for.
  uint64_t maxStates = 30000;
  Limits limits{};  // for all three (the nondet range of typed nondeterministic inputs)
  // > 0: a naive exploration that takes longer than this, or caches more
  // than 2 million subtrees (memory), is abandoned and the program left out
  // of the comparison (DiffOutcome::naiveTimedOut).
  double naiveSeconds = 0;
  ExploreOrder order = ExploreOrder::Forward;  // the graph explorer's (parallelDifferential)
};

struct DiffOutcome {
  bool agree = true;
  std::string why;          // what disagreed (empty when agree)
  uint64_t executions = 0;  // graph explorer's complete executions
  bool violation = false;
  bool statefulSkipped = false;  // the BFS state space exceeded maxStates: left out of the comparison
  bool dporSkipped = false;      // likewise for the stateful DPOR
  bool naiveTimedOut = false;    // the naive explorer went over its budget (naiveSeconds): nothing compared
  uint64_t bfsStates = 0, dporStates = 0;
  bool nondetLimited = false;    // the graph explorer met a nondet input the range cut (the state space must agree)
  Status status = Status::Verified;  // the graph explorer's
};

// Final memory states of complete executions (address, value), as the
// explorers report them.
using FinalStates = std::set<std::vector<std::pair<Addr, Value>>>;

// The state-space search under c's model, bound and limits, every error
// reported (not stopping at the first), collecting the final states of
// complete executions into *finals; maxStates 0: the search's own default.
StateSpaceResult exploreStatesWithFinals(const Program& prog, const DiffConfig& c, uint64_t maxStates,
                                         FinalStates* finals, StateSearch search = StateSearch::Bfs);

DiffOutcome differential(const Program& prog, const DiffConfig& c);

// The graph explorer with several workers (CheckOptions::jobs, with a small
// cut depth so that small programs are split) against one worker, with and
// without stopping at the first error: the same status, counts, messages,
// violations and traces, and the same executions reported. "" when they
// agree, else what differs. (differential() runs it too.)
std::string parallelDifferential(const Program& prog, const DiffConfig& c);

// The graph explorer with CheckOptions::Testing::pruneStaleWaits off against its
// result `pruned` (and the complete executions it reported, prunedKeys) with
// it on, and the two under preemption bound 1: the same status, complete
// executions, kinds of violation (within the bound) and cuts, no more
// blocked executions. "" when they agree. (differential() runs it too.)
std::string staleWaitDifferential(const Program& prog, const DiffConfig& c, const CheckResult& pruned,
                                  const std::set<std::string>& prunedKeys);

// Every ExploreOrder against c.order: going on past errors, the same status,
// counts (executions, blocked, cut, events, violations) and executions
// reported; stopping at the first error, the same verdict; and each order's
// parallelDifferential. "" when they agree. (differential() runs it too.)
std::string orderDifferential(const Program& prog, const DiffConfig& c);

// Programs with atomic sections: differential() (the graph explorer's
// verdict, final states and Shasha–Snir traces against the naive explorer,
// and both state-space searches within maxStates), then both state-space
// searches without a cap against the naive explorer on the verdict and,
// when nothing fails, the final states (`executions`: the graph explorer's).
DiffOutcome sectionDifferential(const Program& prog, const DiffConfig& c);

// A program that ends while threads still run (RandomProgramSpec::mainReads:
// main joins one thread, copies a location into res0 and returns, with
// CheckOptions::exitEndsProgram): the graph explorer and both state-space
// searches must agree on the verdict and on the values main can read (the
// naive explorer does not model the end; final memory as a whole is not
// compared, as the others' buffered stores die with the program, which a
// graph does not model). A state-space search over maxStates (0: the
// search's own cap) is left out (statefulSkipped / dporSkipped).
DiffOutcome programEndDifferential(const Program& prog, Model model, uint64_t maxStates = 30000);
// Preemption bounding (no buffer bound): at each bound 0..maxBound, the
// bounded graph explorer must explore every Shasha–Snir class whose minimum
// preemption count (the naive explorer's) is within the bound, each once,
// with a lower bound never above that minimum. naiveSeconds > 0: the naive
// search's budget, time and cached subtrees as with DiffConfig::naiveSeconds
// (over it: DiffOutcome::naiveTimedOut, nothing compared).
DiffOutcome preemptionDifferential(const Program& prog, Model model, int maxBound, double naiveSeconds = 0);

// A split search (CheckOptions::shard): 2, 3 and 7 shards at cuts 2 and 5,
// stopping at the first violation and going on, merged (mergeShards), give
// the single run's counts, status, violations and traces; and the first
// violation is found again by a search of the top and its one piece
// (Shard::only) with the same trace.
DiffOutcome shardDifferential(const Program& prog, Model model);

// Data races under RC11 (a program with plain accesses among atomics of every
// order and fences: RandomProgramSpec::plainAccesses), against the matrix
// oracle of rc11_race_oracle.h:
//  * on every graph the explorer ends with, the race detector (with RC11's
//    hb) names only pairs the oracle finds racing, the same racing
//    addresses, and of every racing pair the one later in its linearisation
//    (so at least one of the two accesses) as the second access of a race;
//  * the oracle over the explorer's executions and over the naive
//    explorer's (every RC11-consistent execution) finds the same pairs of
//    racing source locations;
//  * the explorer (every error reported) reports only such pairs, exactly
//    the pairs the detector names on its graphs, a data race exactly when
//    there is one, and, unless it reached CheckResult::kMaxRaces, every
//    racing address and one access of every racing pair of source locations.
// `violation`: the program races. naiveSeconds as in DiffConfig.
DiffOutcome raceDifferential(const Program& prog, double naiveSeconds = 0);
// Whether the unbounded graph explorer finds a violation of prog under
// model. The explorer ends an execution at its error, so on such a program
// classes reachable only through a failing prefix are not explored;
// preemptionDifferential's class comparison applies to programs without one.
bool violates(const Program& prog, Model model);

}  // namespace tsocheck::testing

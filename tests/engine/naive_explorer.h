// Reference explorer used only by tests: enumerates every interleaving of the
// operational machine (thread steps and store-buffer flushes), no reduction.
// Exponential; for small programs only.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/check.h"

namespace tsocheck::testing {

struct NaiveResult {
  std::set<std::string> traces;  // canonical Shasha–Snir trace keys (format in engine/check.h)
  std::set<std::vector<std::pair<Addr, Value>>> finalStates;  // of complete executions
  uint64_t runs = 0;             // maximal interleavings explored
  uint64_t errorRuns = 0;        // runs that ended in an error (assertion, memory, ...)
  std::set<std::string> errorMessages;
  uint64_t deadlockRuns = 0;
  // exploreNaiveRc11Races only: the pairs of source locations
  // (Program::locString, the smaller first) of accesses that race in some
  // RC11-consistent execution (rc11_race_oracle.h), and their addresses.
  std::set<std::pair<std::string, std::string>> racePairs;
  std::set<Addr> racyAddrs;
  bool limitHit = false;         // a step limit cut some run
  bool timedOut = false;         // the limits' deadline passed: the result is incomplete
};

// bufferBound: -1 unbounded, 0 = SC, k >= 1 at most k pending stores per thread.
// maxCached > 0: past that many cached subtrees the search ends with
// timedOut (as when the limits' deadline passes), bounding its memory.
NaiveResult exploreNaive(const Program& prog, Model model, int bufferBound,
                         const Limits& limits = Limits{}, uint64_t maxCached = 0);

// exploreNaive under RC11 that also judges every execution's data races
// (a complete run, a deadlock, a cut or an error ends one) with the
// matrix oracle of rc11_race_oracle.h: NaiveResult::racePairs, racyAddrs.
NaiveResult exploreNaiveRc11Races(const Program& prog, const Limits& limits = Limits{}, uint64_t maxCached = 0);

// The same search without the subtree cache (for testing the cache).
NaiveResult exploreNaivePlain(const Program& prog, Model model, int bufferBound,
                              const Limits& limits = Limits{});

// Minimum preemption count (definition in engine/preemption.h: flushes are
// not thread steps; a switch away from a thread waiting for a held mutex or
// an unfinished join is free) of every Shasha–Snir class, over every run of
// the machine producing it; only classes whose minimum is <= maxPreemptions.
// maxCached > 0 and the limits' deadline bound the search as in exploreNaive;
// *timedOut (when given) tells whether it ended early (the map is incomplete).
std::map<std::string, int> naiveMinPreemptions(const Program& prog, Model model, int bufferBound,
                                               int maxPreemptions, const Limits& limits = Limits{},
                                               uint64_t maxCached = 0, bool* timedOut = nullptr);

// Canonical trace key (format in engine/check.h) from reads-from pairs
// (reader, writer or "init") and, per written address, writers in co order.
std::string naiveTraceKey(const std::vector<std::pair<std::string, std::string>>& rf,
                          const std::vector<std::pair<Addr, std::vector<std::string>>>& co,
                          const std::vector<std::pair<std::string, Value>>& choices = {});

}  // namespace tsocheck::testing

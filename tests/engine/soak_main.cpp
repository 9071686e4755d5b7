// tsocheck-soak: the differential check (differential.h: graph explorer,
// naive explorer, the state space's BFS and its stateful DPOR, parallel
// workers against one) on the stress families (stress_programs.h), both
// state-space searches and the graph explorer against the naive explorer on
// random programs with atomic sections (sectionDifferential), the three searches on random
// programs that end while threads still run (programEndDifferential), and
// preemption bounds 0..2 against
// the naive minimum preemption count on random programs and mutex programs
// (preemptionDifferential), and under RC11 the stress families and random
// programs with every memory order, data races of random programs with plain
// accesses among them against a matrix oracle (raceDifferential), and
// sharded searches merged against one run (shardDifferential), for a number
// of seeds or minutes.
//   tsocheck-soak [--minutes M] [--seeds N] [--first-seed S]
// Prints programs and configurations checked, executions explored,
// mismatches, and the first mismatching program as C-like text. Exit 1 on a
// mismatch.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/check.h"
#include "tests/engine/differential.h"
#include "tests/engine/random_programs.h"
#include "tests/engine/stress_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;

int main(int argc, char** argv) {
  double minutes = 0;
  uint64_t seeds = 0, first = 1;
  auto usage = [] {
    std::fprintf(stderr, "usage: tsocheck-soak [--minutes M] [--seeds N] [--first-seed S]\n");
    return 2;
  };
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 == argc) return usage();  // a flag without its value, or --help
    if (!std::strcmp(argv[i], "--minutes")) minutes = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seeds")) seeds = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--first-seed")) first = std::strtoull(argv[i + 1], nullptr, 10);
    else
      return usage();
  }
  if (minutes <= 0 && seeds == 0) seeds = 50;
  const std::vector<DiffConfig> configs = {{Model::SC, -1}, {Model::TSO, -1}, {Model::PSO, -1}, {Model::TSO, 1},
                                           {Model::TSO, 2},  {Model::PSO, 1},  {Model::PSO, 2},  {Model::RC11, -1}};
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  uint64_t programs = 0, checks = 0, mismatches = 0, execs = 0, violations = 0, skipped = 0, dporSkipped = 0;
  uint64_t bfsStates = 0, dporStates = 0, naiveTimedOut = 0;
  // A stress program whose naive exploration (the oracle) takes longer, or
  // caches over 2 million subtrees, is left out and counted, instead of
  // stalling the soak (a seed after 280020 ran the naive explorer for over
  // 15 minutes; with a time limit alone its cache reached 16 GB). The same
  // for the naive minimum preemption counts of the preemption checks (the
  // mutex program of seed 549048 took 1.8 GB under SC and over 23 GB under
  // TSO, and the kernel killed the soak).
  constexpr double kNaiveSeconds = 60;
  uint64_t perFamily[kStressFamilies] = {};
  uint64_t sectionPrograms = 0, sectionChecks = 0, preemptionChecks = 0;
  RandomProgramSpec sectionSpec;
  sectionSpec.atomicSections = true;
  RandomProgramSpec endSpec;
  endSpec.minLocations = 2;
  endSpec.mainReads = true;
  uint64_t endPrograms = 0, endChecks = 0;
  RandomProgramSpec orderSpec;
  orderSpec.memoryOrders = true;
  uint64_t orderPrograms = 0, shardPrograms = 0, shardChecks = 0;
  RandomProgramSpec raceSpec = orderSpec;
  raceSpec.plainAccesses = true;
  uint64_t racePrograms = 0, racyPrograms = 0;
  std::string firstMismatch;
  double lastReport = 0;
  for (uint64_t seed = first;; ++seed) {
    if (seeds && seed >= first + seeds) break;
    if (minutes > 0 && elapsed() > minutes * 60) break;
    // Counts a mismatch; the first one is kept with its program (what()).
    auto record = [&](const DiffOutcome& d, const auto& what) {
      if (d.agree) return;
      ++mismatches;
      if (firstMismatch.empty()) firstMismatch = "seed " + std::to_string(seed) + " " + what() + d.why + "\n";
    };
    for (int f = 0; f < kStressFamilies; ++f) {
      StressProgram sp = stressProgram(seed, StressFamily(f));
      Program p = buildStress(sp);
      ++programs;
      ++perFamily[f];
      for (DiffConfig c : configs) {
        c.compareTraces = sp.family != StressFamily::Nested;
        c.naiveSeconds = kNaiveSeconds;
        DiffOutcome d = differential(p, c);
        ++checks;
        naiveTimedOut += d.naiveTimedOut;
        execs += d.executions;
        violations += d.violation;
        skipped += d.statefulSkipped;
        dporSkipped += d.dporSkipped;
        if (!d.statefulSkipped && !d.dporSkipped) {
          bfsStates += d.bfsStates;
          dporStates += d.dporStates;
        }
        record(d, [&] { return std::string("family ") + stressFamilyName(sp.family) + "\n" + stressToC(sp); });
      }
    }
    // One random program with atomic sections per seed.
    {
      Program p = randomProgram(0x5ec7000000ull + seed, sectionSpec);
      if (hasAtomicSections(p)) {
        ++sectionPrograms;
        for (const DiffConfig& c : configs) {
          if (MemoryModel{c.model}.usesC11Orders()) continue;  // (RC11 has no atomic sections)
          DiffOutcome d = sectionDifferential(p, c);
          ++checks;
          ++sectionChecks;
          violations += d.violation;
          record(d, [&] {
            return "random program with atomic sections (seed " + std::to_string(0x5ec7000000ull + seed) + ")\n";
          });
        }
      }
    }
    // One random program whose accesses and fences take every C11 memory
    // order, under RC11: the graph explorer against the naive explorer's
    // own RC11 check.
    {
      const uint64_t orderSeed = 0xc1100000000ull + seed;
      const Program p = randomProgram(orderSeed, orderSpec);
      ++orderPrograms;
      DiffConfig c{Model::RC11, -1};
      c.naiveSeconds = kNaiveSeconds;
      const DiffOutcome d = differential(p, c);
      ++checks;
      naiveTimedOut += d.naiveTimedOut;
      execs += d.executions;
      violations += d.violation;
      record(d, [&] { return "random program with memory orders under RC11 (seed " + std::to_string(orderSeed) + ")\n"; });
    }
    // One random program with plain accesses among atomics of every order
    // and fences, under RC11: its data races by the explorer and by the
    // race detector on each graph against the matrix oracle on every
    // execution of both explorers.
    {
      const uint64_t raceSeed = 0x4ace000000ull + seed;
      const Program p = randomProgram(raceSeed, raceSpec);
      const DiffOutcome d = raceDifferential(p, kNaiveSeconds);
      ++checks;
      if (d.naiveTimedOut) {
        ++naiveTimedOut;
      } else {
        ++racePrograms;
        racyPrograms += d.violation;
        execs += d.executions;
        violations += d.violation;
      }
      record(d, [&] { return "random program with plain accesses, data races under RC11 (seed " + std::to_string(raceSeed) + ")\n"; });
    }
    // One random program (memory orders included) split into shards under
    // every model: the merge against the single run, and the counterexample
    // found again in its piece.
    {
      const uint64_t shardSeed = 0x54a4000000ull + seed;
      const Program p = randomProgram(shardSeed, orderSpec);
      ++shardPrograms;
      for (Model m : {Model::SC, Model::TSO, Model::PSO, Model::RC11}) {
        const DiffOutcome d = shardDifferential(p, m);
        ++checks;
        ++shardChecks;
        violations += d.violation;
        record(d, [&] { return "random program split into shards (seed " + std::to_string(shardSeed) + ")\n"; });
      }
    }
    // One random program that ends while threads still run (main joins one
    // and returns): the graph explorer and both state-space searches.
    {
      const uint64_t endSeed = 0xe7d0000000ull + seed;
      Program p = randomProgram(endSeed, endSpec);
      ++endPrograms;
      for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
        const DiffOutcome d = programEndDifferential(p, m);
        ++checks;
        ++endChecks;
        skipped += d.statefulSkipped;
        dporSkipped += d.dporSkipped;
        record(d, [&] { return "random program that ends early (seed " + std::to_string(endSeed) + ")\n"; });
      }
    }
    // One random program and one mutex-family program (waiting locks run
    // under a bound too) under preemption bounds 0..2 per seed and model.
    {
      Program p = randomProgram(0x9b00000000ull + seed);
      const StressProgram mp = stressProgram(0x9b10000000ull + seed, StressFamily::Mutex);
      const Program mutexProgram = buildStress(mp);
      for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
        ++checks;
        ++preemptionChecks;
        const DiffOutcome rd = preemptionDifferential(p, m, 2, kNaiveSeconds);
        naiveTimedOut += rd.naiveTimedOut;
        record(rd, [&] {
          return "random program under preemption bounds (seed " + std::to_string(0x9b00000000ull + seed) + ")\n";
        });
        if (violates(mutexProgram, m)) continue;  // a failing program is left out (differential.h violates)
        ++checks;
        ++preemptionChecks;
        const DiffOutcome md = preemptionDifferential(mutexProgram, m, 2, kNaiveSeconds);
        naiveTimedOut += md.naiveTimedOut;
        record(md, [&] {
          return "mutex program under preemption bounds (stress seed " + std::to_string(0x9b10000000ull + seed) +
                 ")\n" + stressToC(mp);
        });
      }
    }
    if (elapsed() - lastReport > 60) {
      lastReport = elapsed();
      std::printf("[%.0f s] seed %llu: %llu programs, %llu checks, %llu left out (naive explorer over budget), "
                  "%llu mismatches\n",
                  elapsed(), (unsigned long long)seed, (unsigned long long)programs, (unsigned long long)checks,
                  (unsigned long long)naiveTimedOut, (unsigned long long)mismatches);
      std::fflush(stdout);
    }
  }
  std::printf("soak: %.1f minutes, %llu programs (", elapsed() / 60, (unsigned long long)programs);
  for (int f = 0; f < kStressFamilies; ++f)
    std::printf("%s%s %llu", f ? ", " : "", stressFamilyName(StressFamily(f)), (unsigned long long)perFamily[f]);
  std::printf("; atomic sections %llu; ending early %llu; memory orders under RC11 %llu; data races under RC11 %llu, "
              "%llu of them racy; split into shards %llu), %llu checks (x %zu configurations; %llu of them state space vs naive on "
              "section programs, %llu preemption bounds 0..2 vs naive on random and mutex programs, %llu program ends "
              "across the three searches, %llu shard merges against one run), %llu graph-explorer executions, "
              "%llu with a violation, "
              "%llu without the BFS state space and %llu without the stateful DPOR (over the state cap), "
              "%llu left out (the naive explorer over %.0f s or its cache), "
              "states where both ran: BFS %llu, DPOR %llu; %llu mismatches\n",
              (unsigned long long)sectionPrograms, (unsigned long long)endPrograms,
              (unsigned long long)orderPrograms, (unsigned long long)racePrograms, (unsigned long long)racyPrograms,
              (unsigned long long)shardPrograms, (unsigned long long)checks,
              configs.size(), (unsigned long long)sectionChecks, (unsigned long long)preemptionChecks,
              (unsigned long long)endChecks, (unsigned long long)shardChecks, (unsigned long long)execs,
              (unsigned long long)violations, (unsigned long long)skipped, (unsigned long long)dporSkipped,
              (unsigned long long)naiveTimedOut, kNaiveSeconds,
              (unsigned long long)bfsStates, (unsigned long long)dporStates, (unsigned long long)mismatches);
  if (!firstMismatch.empty()) std::printf("first mismatch:\n%s", firstMismatch.c_str());
  return mismatches ? 1 : 0;
}

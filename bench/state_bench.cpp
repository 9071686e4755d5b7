// state_bench: the explicit-state searches (breadth-first, and the stateful
// DPOR that --stateful uses) against the stateless graph explorer on loop
// programs and loop-free ones with many independent steps, and buffer-bound
// deepening.
//
//   state_bench [--quick] [--time-limit SECONDS] [--only PREFIX]
//   (--only: the rows whose program name starts with PREFIX)
//
// Loop programs (each at growing sizes):
//   fig1-N      Yang et al.'s Figure 1: two threads, each N times lock; d = d + 1; unlock
//   spin-T/N    T threads, N critical sections each, behind a test-and-set lock
//               whose acquire is an exchange *loop*; the stateless explorer gets
//               the frontend's form of it (xchg + spin-await), since it cannot
//               run the raw loop to an end
//   bbuf-N      bounded buffer of 2 slots, one producer and one consumer moving
//               N items, waiting with spin-awaits on the count
//
//   indep-T/N   T threads, N rounds each of store/load/store on their own
//               globals: loop-free, every step independent of the other threads
//   indep-rb-T/N  the same, each load reading back the global just stored
//               (from the thread's own buffer under TSO/PSO)
//
// Prints, from one run, stateless executions and time, then states,
// transitions and time of the BFS and of the stateful DPOR, and the ratios
// (BFS / DPOR; stateless time / DPOR time). Then deepening k = 0..3 on SB, MP and the Figure 1 program. Timings
// are informational only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "engine/examples/state_programs.h"
#include "engine/state_space.h"

using namespace tsocheck;
using namespace tsocheck::examples;

namespace {

struct Row {
  std::string name;
  Program stateless, stateful;
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  double limit = 20;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--time-limit") && i + 1 < argc) limit = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
  }
  std::vector<Row> rows;
  for (int n : quick ? std::vector<int>{3, 5} : std::vector<int>{3, 5, 7, 9}) {
    Program p = figure1(n);
    rows.push_back({"fig1-" + std::to_string(n), p, p});
  }
  for (auto [t, n] : quick ? std::vector<std::pair<int, int>>{{2, 2}, {3, 1}}
                           : std::vector<std::pair<int, int>>{{2, 2}, {2, 4}, {3, 1}, {3, 2}})
    rows.push_back({"spin-" + std::to_string(t) + "/" + std::to_string(n), spinlock(t, n, false), spinlock(t, n, true)});
  for (int n : quick ? std::vector<int>{2, 3} : std::vector<int>{2, 3, 4, 6}) {
    Program p = boundedBuffer(n);
    rows.push_back({"bbuf-" + std::to_string(n), p, p});
  }

  for (auto [t, n] : quick ? std::vector<std::pair<int, int>>{{3, 2}, {4, 2}}
                           : std::vector<std::pair<int, int>>{{3, 2}, {4, 2}, {5, 2}}) {
    for (bool readBack : {false, true}) {
      Program p = independent(t, n, readBack);
      rows.push_back({std::string(readBack ? "indep-rb-" : "indep-") + std::to_string(t) + "/" + std::to_string(n), p, p});
    }
  }

  rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name.rfind(only, 0) != 0; }),
             rows.end());

  // One run, three searches: the stateless graph explorer (executions), the
  // breadth-first state space (every reachable state, the old --stateful)
  // and the stateful DPOR (--stateful now): states, transitions, time.
  std::printf("%-11s %-4s | %11s %9s | %9s %10s %9s | %9s %10s %9s | %8s %8s %8s %8s\n", "program", "mdl",
              "stateless", "ms", "bfs-st", "bfs-tr", "ms", "dpor-st", "dpor-tr", "ms", "st b/d", "tr b/d",
              "ms b/d", "ms sl/d");
  for (const Row& r : rows) {
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      CheckOptions co;
      co.model = m;
      co.timeLimitSeconds = limit;
      CheckResult a = check(r.stateless, co);
      StateSpaceOptions so;
      so.check.model = m;
      so.check.timeLimitSeconds = limit;
      so.maxStates = 2000000;
      so.search = StateSearch::Bfs;
      StateSpaceResult b = exploreStates(r.stateful, so);
      so.search = StateSearch::Dpor;
      StateSpaceResult d = exploreStates(r.stateful, so);
      auto cell = [](const Status st, uint64_t v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%llu", st == Status::Timeout ? ">" : "", static_cast<unsigned long long>(v));
        return std::string(buf);
      };
      auto ratio = [](double x, double y) { return x / std::max(y, 1e-9); };
      std::printf("%-11s %-4s | %11s %9.1f | %9s %10llu %9.1f | %9s %10llu %9.1f | %8.2f %8.2f %8.2f %8.2f   %s/%s/%s\n",
                  r.name.c_str(), modelName(m), cell(a.status, a.executions).c_str(), a.elapsedMs,
                  cell(b.result.status, b.states).c_str(), static_cast<unsigned long long>(b.transitions),
                  b.result.elapsedMs, cell(d.result.status, d.states).c_str(),
                  static_cast<unsigned long long>(d.transitions), d.result.elapsedMs,
                  ratio(double(b.states), double(d.states)), ratio(double(b.transitions), double(d.transitions)),
                  ratio(b.result.elapsedMs, d.result.elapsedMs), ratio(a.elapsedMs, d.result.elapsedMs),
                  statusName(a.status), statusName(b.result.status), statusName(d.result.status));
      std::fflush(stdout);
    }
  }

  // The raw exchange loop is what a stateless search faces without the
  // frontend's spin-loop transform: its executions never run out.
  std::printf("\nraw exchange loops, stateless (time limit %.0f s) vs stateful:\n", std::min(limit, 5.0));
  for (const Row& r : rows) {
    if (r.name.rfind("spin-", 0) != 0) continue;
    CheckOptions co;
    co.model = Model::TSO;
    co.timeLimitSeconds = std::min(limit, 5.0);
    CheckResult a = check(r.stateful, co);
    StateSpaceOptions so;
    so.check.model = Model::TSO;
    StateSpaceResult b = exploreStates(r.stateful, so);
    so.search = StateSearch::Dpor;
    StateSpaceResult d = exploreStates(r.stateful, so);
    std::printf("%-10s TSO  stateless: %llu executions, %llu cut, %s after %.0f ms; BFS: %llu states, %s in %.1f ms; "
                "DPOR: %llu states, %s in %.1f ms\n",
                r.name.c_str(), static_cast<unsigned long long>(a.executions),
                static_cast<unsigned long long>(a.cut), statusName(a.status), a.elapsedMs,
                static_cast<unsigned long long>(b.states), statusName(b.result.status), b.result.elapsedMs,
                static_cast<unsigned long long>(d.states), statusName(d.result.status), d.result.elapsedMs);
  }

  std::printf("\nbuffer-bound deepening k = 0..3 (states per k; first violation or fixpoint ends it)\n");
  struct Sample {
    std::string name;
    Program prog;
  };
  std::vector<Sample> samples;
  for (const auto& t : litmus::all())
    if (t.name == "SB" || t.name == "MP" || t.name == "SB+fences") samples.push_back({t.name, t.program});
  samples.push_back({"fig1-3", figure1(3)});
  samples.push_back({"bbuf-3", boundedBuffer(3)});
  for (const Sample& s : samples) {
    for (Model m : {Model::TSO, Model::PSO}) {
      CheckOptions co;
      co.model = m;
      co.timeLimitSeconds = limit;
      DeepeningResult d = deepenBufferBound(s.prog, co, 0, 3);
      std::printf("%-10s %-4s %-9s", s.name.c_str(), modelName(m), statusName(d.result.status));
      for (const DeepeningStep& st : d.steps)
        std::printf("  k=%d: %llu states (%llu projected) %.1f ms", st.k, static_cast<unsigned long long>(st.states),
                    static_cast<unsigned long long>(st.projections), st.elapsedMs);
      if (d.violationK) std::printf("  -> violation at k=%d", *d.violationK);
      if (d.fixpointK) std::printf("  -> fixpoint at k=%d", *d.fixpointK);
      std::printf("\n");
    }
  }
  return 0;
}

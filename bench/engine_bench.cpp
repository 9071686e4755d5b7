// engine_bench: exploration throughput of the engine on generated programs
// with many executions, under SC, TSO and PSO.
//
//   engine_bench [--budget SECONDS] [--run-limit SECONDS] [--quick] [--only FAMILY]
//
// Families (each at several sizes, smallest first):
//   SB-n        n threads in a ring; thread i writes a[i] then reads a[i+1]
//               (SC: 2^n - 1 traces, TSO/PSO: 2^n)
//   SB-n/2r     the same with two reads per thread, a[i+1] and a[i+2]
//   rw-W/R      W writers store once to x, R readers load x twice
//               (every model: W! * ((W+1)(W+2)/2)^R traces)
//   array-N/M   N threads each do M rounds of "a[i+j] = i+1; r = a[i+j+1]"
//               on a shared array of N cells
//
// Prints, per program and model: executions, events, wall time,
// executions/s, events/s and the execution count relative to SC. Timing is
// informational only. A family stops growing once a run hits the per-run time
// limit or the family's share of the budget is spent. The exit status is 1
// only when a count with a closed form differs from it.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/examples/state_programs.h"

using namespace tsocheck;

namespace {

struct BenchProgram {
  std::string name;
  Program prog;
  // Closed-form execution counts, where known.
  std::optional<uint64_t> sc, tso, pso;
};

struct Family {
  std::string name;
  std::vector<std::function<BenchProgram()>> sizes;  // smallest first
};

uint64_t pow2(unsigned n) { return uint64_t(1) << n; }

// Ring store buffering: thread i writes a[i] = 1, then reads a[i+1 .. i+reads].
BenchProgram sbRing(unsigned n, unsigned reads) {
  std::string name = "SB-" + std::to_string(n) + (reads > 1 ? "/" + std::to_string(reads) + "r" : "");
  ProgramBuilder pb(name + ".c");
  uint32_t arr = pb.global("a", 4 * n, 0, 4);
  uint32_t line = 3;
  std::vector<uint32_t> workers;
  for (unsigned i = 0; i < n; ++i) {
    FunctionBuilder& f = pb.function("t" + std::to_string(i), 1);
    f.fn().loc.line = line++;
    f.at(line++, 3).storeGlobal(arr, 1, 4, 4 * int64_t(i));
    for (unsigned k = 1; k <= reads; ++k) f.at(line++, 3).loadGlobal(arr, 4, 4 * int64_t((i + k) % n));
    f.at(line++, 3).ret(f.constant(0));
    line += 2;
    workers.push_back(f.index());
  }
  examples::emitMain(pb, workers, line);
  BenchProgram b{name, pb.build(), {}, {}, {}};
  if (reads == 1) {
    b.sc = pow2(n) - 1;
    b.tso = b.pso = pow2(n);
  }
  return b;
}

// Readers and writers of one location (engine/examples/state_programs.h).
BenchProgram readersWriters(unsigned writers, unsigned readers) {
  const uint64_t count = examples::readersWritersCount(writers, readers);
  return BenchProgram{"rw-" + std::to_string(writers) + "/" + std::to_string(readers),
                      examples::readersWriters(writers, readers), count, count, count};
}

// N threads, M rounds each of a store and a load on a shared array of N cells.
BenchProgram sharedArray(unsigned n, unsigned rounds) {
  std::string name = "array-" + std::to_string(n) + "/" + std::to_string(rounds);
  ProgramBuilder pb(name + ".c");
  uint32_t arr = pb.global("a", 4 * n, 0, 4);
  uint32_t line = 3;
  std::vector<uint32_t> workers;
  for (unsigned i = 0; i < n; ++i) {
    FunctionBuilder& f = pb.function("t" + std::to_string(i), 1);
    f.fn().loc.line = line++;
    for (unsigned j = 0; j < rounds; ++j) {
      f.at(line++, 3).storeGlobal(arr, i + 1, 4, 4 * int64_t((i + j) % n));
      f.at(line++, 3).loadGlobal(arr, 4, 4 * int64_t((i + j + 1) % n));
    }
    f.at(line++, 3).ret(f.constant(0));
    line += 2;
    workers.push_back(f.index());
  }
  examples::emitMain(pb, workers, line);
  return BenchProgram{name, pb.build(), {}, {}, {}};
}

std::vector<Family> families(bool quick) {
  std::vector<Family> fs;
  auto add = [&](std::string name, std::vector<std::function<BenchProgram()>> sizes) {
    if (quick) sizes.resize(1);
    fs.push_back(Family{std::move(name), std::move(sizes)});
  };
  // Sizes grow towards 10^4..10^5 executions per run.
  add("SB-n", {[] { return sbRing(8, 1); }, [] { return sbRing(11, 1); },
               [] { return sbRing(14, 1); }, [] { return sbRing(16, 1); }});
  add("SB-n/2r", {[] { return sbRing(4, 2); }, [] { return sbRing(6, 2); },
                  [] { return sbRing(7, 2); }, [] { return sbRing(8, 2); }});
  add("rw", {[] { return readersWriters(2, 3); }, [] { return readersWriters(3, 3); },
             [] { return readersWriters(3, 4); }, [] { return readersWriters(4, 3); }});
  add("array", {[] { return sharedArray(2, 2); }, [] { return sharedArray(3, 2); },
                [] { return sharedArray(4, 2); }, [] { return sharedArray(5, 2); },
                [] { return sharedArray(3, 3); }});
  return fs;
}

std::string human(double v) {
  char buf[32];
  if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  else if (v >= 1e4)
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void usage(FILE* out) {
  std::fprintf(out,
               "usage: engine_bench [--budget SECONDS] [--run-limit SECONDS] [--quick] [--only FAMILY]\n"
               "  --budget S     total time to spend, shared among the families (default 75)\n"
               "  --run-limit S  time limit of one check() run (default 20)\n"
               "  --quick        only the smallest size of each family\n"
               "  --only F       only the family named F (SB-n, SB-n/2r, rw, array)\n");
}

}  // namespace

int main(int argc, char** argv) {
  double budget = 75, runLimit = 20;
  bool quick = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage(stderr);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--budget") budget = std::atof(next().c_str());
    else if (a == "--run-limit") runLimit = std::atof(next().c_str());
    else if (a == "--quick") quick = true;
    else if (a == "--only") only = next();
    else if (a == "-h" || a == "--help") { usage(stdout); return 0; }
    else { usage(stderr); return 2; }
  }

  std::vector<Family> fams = families(quick);
  if (!only.empty()) {
    std::vector<Family> keep;
    for (Family& f : fams)
      if (f.name == only) keep.push_back(std::move(f));
    if (keep.empty()) {
      std::fprintf(stderr, "engine_bench: no family named '%s'\n", only.c_str());
      return 2;
    }
    fams = std::move(keep);
  }

  const Model models[] = {Model::SC, Model::TSO, Model::PSO};
  std::printf("%-12s %-5s %10s %11s %9s %10s %10s %7s %s\n", "program", "model", "executions",
              "events", "time(s)", "exec/s", "events/s", "vs SC", "");
  std::printf("%s\n", std::string(86, '-').c_str());

  auto benchStart = std::chrono::steady_clock::now();
  int countMismatches = 0;
  double totalExecs = 0, totalEvents = 0, totalSecs = 0;
  for (size_t fi = 0; fi < fams.size(); ++fi) {
    const Family& fam = fams[fi];
    // This family's share of what is left.
    double left = budget - seconds(benchStart, std::chrono::steady_clock::now());
    double share = left / double(fams.size() - fi);
    auto famStart = std::chrono::steady_clock::now();
    for (const auto& make : fam.sizes) {
      double famLeft = share - seconds(famStart, std::chrono::steady_clock::now());
      if (famLeft <= 0.05) {
        std::printf("%-12s (larger sizes skipped: budget)\n", fam.name.c_str());
        break;
      }
      BenchProgram b = make();
      bool timedOut = false;
      uint64_t scCount = 0;
      for (Model m : models) {
        CheckOptions o;
        o.model = m;
        o.stopAtFirstError = false;
        double limit = std::min(runLimit, std::max(0.5, share - seconds(famStart, std::chrono::steady_clock::now())));
        o.timeLimitSeconds = limit;
        auto t0 = std::chrono::steady_clock::now();
        CheckResult r = check(b.prog, o);
        double secs = seconds(t0, std::chrono::steady_clock::now());
        if (m == Model::SC) scCount = r.executions;

        std::optional<uint64_t> want = m == Model::SC ? b.sc : m == Model::TSO ? b.tso : b.pso;
        std::string note;
        if (r.status == Status::Timeout) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "timeout after %.1f s (partial)", limit);
          note = buf;
          timedOut = true;
        } else if (r.status != Status::Verified) {
          note = statusName(r.status);
        }
        if (want && r.status != Status::Timeout && r.executions != *want) {
          note += (note.empty() ? "" : "; ") + std::string("COUNT MISMATCH, expected ") + std::to_string(*want);
          ++countMismatches;
        }
        char ratio[16] = "-";
        if (scCount > 0) std::snprintf(ratio, sizeof ratio, "%.2f", double(r.executions) / double(scCount));
        double denom = std::max(secs, 1e-9);
        std::printf("%-12s %-5s %10llu %11llu %9.3f %10s %10s %7s %s\n", b.name.c_str(), modelName(m),
                    static_cast<unsigned long long>(r.executions),
                    static_cast<unsigned long long>(r.events), secs,
                    human(double(r.executions) / denom).c_str(), human(double(r.events) / denom).c_str(), ratio,
                    note.c_str());
        std::fflush(stdout);
        totalExecs += double(r.executions);
        totalEvents += double(r.events);
        totalSecs += secs;
        if (timedOut) break;
      }
      if (timedOut) {
        std::printf("%-12s (larger sizes skipped: time limit)\n", fam.name.c_str());
        break;
      }
    }
  }
  std::printf("%s\n", std::string(86, '-').c_str());
  double denom = std::max(totalSecs, 1e-9);
  std::printf("total: %s executions, %s events in %.2f s (%s executions/s, %s events/s)\n",
              human(totalExecs).c_str(), human(totalEvents).c_str(), totalSecs,
              human(totalExecs / denom).c_str(), human(totalEvents / denom).c_str());
  if (countMismatches) {
    std::printf("%d execution count(s) differ from the closed form\n", countMismatches);
    return 1;
  }
  return 0;
}

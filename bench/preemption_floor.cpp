// The floor of preemption bounding: how many Shasha–Snir classes of a C
// harness have a minimum preemption count of at most k, for every k. A
// complete and optimal bounded search explores at least these at bound k
// (one execution per class within the bound); what it explores beyond them
// is the price of its slack (engine/preemption.h). The minimum comes from the
// naive explorer (every interleaving of the operational machine,
// tests/engine/naive_explorer.h), so only small programs finish.
//
//   preemption_floor WORKER FILE [--model sc|tso|pso] [--time-limit S] [--max-cached N] [-- CLANG_ARGS...]
//
// WORKER is tsocheck-frontend (the lowering runs in it, as in `tsocheck
// check`); the file's first check function is the harness. Prints one line
// per bound up to the largest minimum: the classes with exactly that minimum,
// those within the bound and their share of all classes. Exit 2 on a
// lowering error or when the time limit or the cache's size (the naive
// explorer's cached subtrees, default 500,000: about 0.8 GB on Treiber(3);
// 0 = no cap: ttas(5) then takes 17 GB) cut the enumeration.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "tests/engine/naive_explorer.h"

using namespace tsocheck;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: preemption_floor WORKER FILE [--model sc|tso|pso] [--time-limit S] [--max-cached N] [-- CLANG_ARGS...]\n");
    return 2;
  }
  frontend::FrontendOptions opts;
  opts.process.worker = argv[1];
  const char* file = argv[2];
  double timeLimit = 600;
  uint64_t maxCached = 500000;
  for (int i = 3; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) {
      std::optional<Model> m = parseModel(argv[++i]);
      if (!m) {
        std::fprintf(stderr, "preemption_floor: unknown model %s\n", argv[i]);
        return 2;
      }
      opts.model = *m;
    } else if (a == "--time-limit" && i + 1 < argc) {
      timeLimit = std::atof(argv[++i]);
    } else if (a == "--max-cached" && i + 1 < argc) {
      maxCached = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--") {
      for (i++; i < argc; i++) opts.clangArgs.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "preemption_floor: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  frontend::FrontendResult lowered = frontend::lowerFile(file, opts);
  if (lowered.module.checks.empty() || lowered.module.checks[0].blockedBy) {
    for (const frontend::Diagnostic& d : lowered.diagnostics)
      std::fprintf(stderr, "%s:%u:%u: %s\n", d.file.c_str(), d.line, d.column, d.message.c_str());
    std::fprintf(stderr, "preemption_floor: no check function to run in %s\n", file);
    return 2;
  }
  Program prog = lowered.module.program;
  prog.entry = lowered.module.entryOf[0];
  Limits limits;
  limits.deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeLimit));
  bool timedOut = false;
  // Every class (a minimum above 1,000 preemptions does not occur in
  // programs the naive explorer can enumerate).
  std::map<std::string, int> minima = testing::naiveMinPreemptions(
      prog, opts.model, opts.model == Model::SC ? 0 : -1, 1000, limits, maxCached, &timedOut);
  if (timedOut) {
    std::printf("incomplete: the time limit (%g s) or the cache's size (%llu subtrees) cut the enumeration after %zu classes\n",
                timeLimit, (unsigned long long)maxCached, minima.size());
    return 2;
  }
  std::vector<size_t> exactly;
  for (const auto& [key, p] : minima) {
    if (exactly.size() <= size_t(p)) exactly.resize(p + 1);
    exactly[p]++;
  }
  std::printf("%zu classes\n", minima.size());
  size_t within = 0;
  for (size_t k = 0; k < exactly.size(); k++) {
    within += exactly[k];
    std::printf("bound %zu: %zu classes with minimum %zu, %zu within the bound (%.2f%%)\n", k, exactly[k], k, within,
                minima.empty() ? 0.0 : 100.0 * double(within) / double(minima.size()));
  }
  return 0;
}

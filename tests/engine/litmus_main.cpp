// tsocheck-litmus: runs the classic litmus tests under SC, TSO and PSO and
// compares the number of explored executions and the verdict with what the
// memory models allow.
//
//   tsocheck-litmus [--model sc|tso|pso] [--trace NAME]
//
// Exit status: 0 when every count and verdict matches, 1 when one differs,
// 2 on a usage error.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "tests/engine/trace_text.h"

using namespace tsocheck;

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: tsocheck-litmus [--model sc|tso|pso] [--trace NAME]\n"
               "  --model M    run only under memory model M\n"
               "  --trace NAME print the counterexample of litmus test NAME under every\n"
               "               model where it fails (default: SB under TSO)\n");
}

// The litmus tables hold one expected outcome per model (test data, not a rule).
uint64_t expectedCount(const litmus::LitmusTest& t, Model m) {
  switch (m) {
    case Model::SC: return t.expectedSC;
    case Model::TSO: return t.expectedTSO;
    case Model::PSO: return t.expectedPSO;
    case Model::RC11: break;  // (RC11's litmus outcomes: tests/engine/rc11_test.cpp)
  }
  return 0;
}

bool expectedWeak(const litmus::LitmusTest& t, Model m) {
  switch (m) {
    case Model::SC: return t.weakSC;
    case Model::TSO: return t.weakTSO;
    case Model::PSO: return t.weakPSO;
    case Model::RC11: break;
  }
  return false;
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Model> models = {Model::SC, Model::TSO, Model::PSO};  // the models the tables hold
  std::string traceName = "SB";
  std::optional<Model> traceOnlyModel = Model::TSO;  // the default: SB under TSO only

  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* opt) -> std::string {
      std::string prefix = std::string(opt) + "=";
      if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tsocheck-litmus: %s needs an argument\n", opt);
        usage(stderr);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else if (a == "--model" || a.rfind("--model=", 0) == 0) {
      std::string v = value("--model");
      auto m = parseModel(v);
      if (!m) {
        std::fprintf(stderr, "tsocheck-litmus: unknown model '%s' (sc, tso or pso)\n", v.c_str());
        return 2;
      }
      models = {*m};
    } else if (a == "--trace" || a.rfind("--trace=", 0) == 0) {
      traceName = value("--trace");
      traceOnlyModel.reset();
    } else {
      std::fprintf(stderr, "tsocheck-litmus: unknown argument '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }

  std::vector<litmus::LitmusTest> tests = litmus::all();
  bool known = false;
  for (const auto& t : tests) known = known || t.name == traceName;
  if (!known) {
    std::fprintf(stderr, "tsocheck-litmus: no litmus test named '%s'; known:", traceName.c_str());
    for (const auto& t : tests) std::fprintf(stderr, " %s", t.name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }

  struct Shown {
    std::string title;
    std::string text;
  };
  std::vector<Shown> traces;
  int mismatches = 0;

  std::printf("%-10s %-5s %10s %9s  %-22s %10s\n", "test", "model", "executions", "expected",
              "verdict", "time(ms)");
  std::printf("%s\n", std::string(72, '-').c_str());
  for (const auto& t : tests) {
    for (Model m : models) {
      uint64_t want = expectedCount(t, m);
      bool wantWeak = expectedWeak(t, m);
      auto start = std::chrono::steady_clock::now();

      CheckOptions countOpts;
      countOpts.model = m;
      countOpts.stopAtFirstError = false;
      CheckResult counted = check(t.program, countOpts);

      CheckOptions opts;
      opts.model = m;
      CheckResult r = check(t.program, opts);
      double ms = msSince(start);

      Status wantStatus = wantWeak ? Status::Violation : Status::Verified;
      bool countOk = counted.executions == want;
      bool verdictOk = r.status == wantStatus;
      if (!countOk || !verdictOk) ++mismatches;

      std::string verdict = statusName(r.status);
      if (!verdictOk) verdict += std::string(" (want ") + statusName(wantStatus) + ")";
      std::printf("%-10s %-5s %10llu %9llu  %-22s %10.2f%s\n", t.name.c_str(), modelName(m),
                  static_cast<unsigned long long>(counted.executions),
                  static_cast<unsigned long long>(want), verdict.c_str(), ms,
                  countOk && verdictOk ? "" : "  MISMATCH");

      bool wanted = t.name == traceName && (!traceOnlyModel || *traceOnlyModel == m);
      if (wanted && r.status == Status::Violation && r.violation) {
        traces.push_back({t.name + " under " + modelName(m) + ": " + r.violation->message,
                          testing::traceText(t.program, *r.violation)});
      }
    }
  }
  std::printf("%s\n", std::string(72, '-').c_str());
  if (mismatches == 0)
    std::printf("all %zu results as expected\n", tests.size() * models.size());
  else
    std::printf("%d of %zu results differ from the expectations\n", mismatches,
                tests.size() * models.size());

  if (traces.empty() && !traceOnlyModel)
    std::printf("\n%s: no violation under the model(s) run, so no counterexample to print\n",
                traceName.c_str());
  for (const Shown& s : traces) {
    std::printf("\nCounterexample, %s\n%s", s.title.c_str(), s.text.c_str());
    if (!s.text.empty() && s.text.back() != '\n') std::printf("\n");
  }
  return mismatches == 0 ? 0 : 1;
}

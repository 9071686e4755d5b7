// Robustness against TSO/PSO: litmus tests (non-robust exactly when the weak
// outcome is reachable), the witness trace and its location, bounds that make
// a "robust" answer incomplete, and a property test: a program is reported
// robust exactly when every Shasha–Snir trace of the weak model is also one
// of SC (trace sets from both explorations compared).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "engine/fences.h"
#include "tests/engine/random_programs.h"

using namespace tsocheck;

namespace {

CheckOptions robustnessUnder(Model m) {
  CheckOptions o;
  o.model = m;
  o.robustness = true;
  return o;
}

std::set<std::string> traceKeys(const Program& p, Model m) {
  std::set<std::string> keys;
  CheckOptions o;
  o.model = m;
  o.stopAtFirstError = false;
  o.onExecution = [&](const ExecutionInfo& e) { keys.insert(e.traceKey); };
  CheckResult r = check(p, o);
  REQUIRE(r.cut == 0);
  return keys;
}

}  // namespace

TEST_CASE("robustness: litmus tests are non-robust exactly where their weak outcome is reachable", "[robustness]") {
  for (const litmus::LitmusTest& t : litmus::all()) {
    for (Model m : {Model::TSO, Model::PSO}) {
      INFO(t.name << " under " << modelName(m));
      CheckResult r = check(t.program, robustnessUnder(m));
      REQUIRE(r.robustness);
      const bool weak = m == Model::TSO ? t.weakTSO : t.weakPSO;
      CHECK(r.robustness->robust == !weak);
      CHECK(r.robustness->witness.has_value() == weak);
      CHECK(r.robustness->complete);
      // The assertion verdict is unchanged by the robustness search.
      CHECK((r.status == Status::Violation) == weak);
    }
  }
}

TEST_CASE("robustness: SB's witness points at a stale load and shows the buffered store", "[robustness]") {
  CheckResult r = check(litmus::byName("SB").program, robustnessUnder(Model::TSO));
  REQUIRE(r.robustness);
  REQUIRE(r.robustness->witness);
  const Violation& w = *r.robustness->witness;
  CHECK(w.loc.line != 0);
  // The step at the witness location is a load from memory while another
  // thread's buffer holds a store to the same address.
  bool found = false;
  for (size_t i = 1; i < w.trace.size(); ++i) {
    const TraceStep& s = w.trace[i];
    if (s.kind != StepKind::LoadMem || s.loc.line != w.loc.line || s.thread != w.thread) continue;
    for (size_t u = 0; u < w.trace[i - 1].buffers.size(); ++u)
      for (const BufferEntry& e : w.trace[i - 1].buffers[u])
        if (u != s.thread && e.addr == s.addr) found = true;
  }
  CHECK(found);
  CHECK(r.robustness->point == "stale read");
  CHECK(r.robustness->message.find("not robust") == 0);
}

TEST_CASE("robustness: 2+2W under PSO points at the store that overtook an older one", "[robustness]") {
  CheckResult r = check(litmus::byName("2+2W").program, robustnessUnder(Model::PSO));
  REQUIRE(r.robustness);
  REQUIRE(r.robustness->witness);
  CHECK(r.robustness->point == "reordered flush");
  const Violation& w = *r.robustness->witness;
  bool found = false;  // a flush at the witness location while an older store of its thread was pending
  for (size_t i = 1; i < w.trace.size(); ++i) {
    const TraceStep& s = w.trace[i];
    const auto& own = w.trace[i - 1].buffers[s.thread];
    if (s.kind == StepKind::Flush && s.loc.line == w.loc.line && !own.empty() && own.front().addr != s.addr)
      found = true;
  }
  CHECK(found);
}

TEST_CASE("robustness: SC is robust by definition, bounds make the answer incomplete", "[robustness]") {
  const litmus::LitmusTest* mp = &litmus::byName("MP");
  CheckResult sc = check(mp->program, robustnessUnder(Model::SC));
  REQUIRE(sc.robustness);
  CHECK(sc.robustness->robust);
  CHECK(sc.robustness->complete);

  CheckOptions o = robustnessUnder(Model::TSO);
  o.preemptionBound = 0;
  CheckResult pb = check(mp->program, o);
  REQUIRE(pb.robustness);
  CHECK(pb.robustness->robust);
  CHECK_FALSE(pb.robustness->complete);

  o = robustnessUnder(Model::PSO);
  o.bufferBound = 0;  // k = 0 is SC: nothing weak can show
  CheckResult k0 = check(mp->program, o);
  REQUIRE(k0.robustness);
  CHECK(k0.robustness->robust);

  CHECK_FALSE(k0.robustness->complete);

  // MP under PSO: y = 1 overtakes the pending x = 1, so the writer holds two
  // stores at once.
  o.bufferBound = 1;
  CheckResult k1 = check(mp->program, o);
  REQUIRE(k1.robustness);
  CHECK(k1.robustness->robust);
  CHECK_FALSE(k1.robustness->complete);
  o.bufferBound = 2;
  CheckResult k2 = check(mp->program, o);
  REQUIRE(k2.robustness);
  CHECK_FALSE(k2.robustness->robust);
}

TEST_CASE("robustness: random programs are robust exactly when their weak traces are all SC traces",
          "[robustness][property]") {
  testing::RandomProgramSpec spec;
  int nonRobust[2] = {0, 0}, robust[2] = {0, 0};
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    Program p = testing::randomProgram(seed, spec);
    const std::set<std::string> scKeys = traceKeys(p, Model::SC);
    for (int mi = 0; mi < 2; ++mi) {
      const Model m = mi ? Model::PSO : Model::TSO;
      INFO("seed " << seed << " under " << modelName(m));
      const std::set<std::string> weakKeys = traceKeys(p, m);
      bool subset = true;
      for (const std::string& k : weakKeys)
        if (!scKeys.count(k)) subset = false;
      CheckResult r = check(p, robustnessUnder(m));
      REQUIRE(r.robustness);
      CHECK(r.robustness->complete);
      CHECK(r.robustness->robust == subset);
      (subset ? robust : nonRobust)[mi]++;
    }
  }
  // Both answers must actually occur, or the test proves little.
  CHECK(nonRobust[0] > 10);
  CHECK(robust[0] > 10);
  CHECK(nonRobust[1] > 10);
}

TEST_CASE("robustness fences: non-robust random programs become robust, and every fence is needed",
          "[robustness][fences][property]") {
  testing::RandomProgramSpec spec;
  int fixedCount = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    Program p = testing::randomProgram(seed, spec);
    for (Model m : {Model::TSO, Model::PSO}) {
      CheckOptions o = robustnessUnder(m);
      CheckResult r = check(p, o);
      REQUIRE(r.robustness);
      if (r.robustness->robust || r.status == Status::Violation) continue;
      INFO("seed " << seed << " under " << modelName(m));
      FenceSynthesisResult syn = synthesizeFences(p, o, &r);
      CHECK(syn.forRobustness);
      REQUIRE(syn.outcome == FenceOutcome::Fixed);
      REQUIRE_FALSE(syn.fences.empty());
      ++fixedCount;
      CheckResult after = check(insertFences(p, syn.fences), o);
      REQUIRE(after.robustness);
      CHECK(after.robustness->robust);
      CHECK(after.robustness->complete);
      // Minimal: leaving out any one fence brings a non-SC execution back.
      for (size_t i = 0; i < syn.fences.size(); ++i) {
        std::vector<FencePosition> fewer = syn.fences;
        fewer.erase(fewer.begin() + long(i));
        CheckResult less = check(insertFences(p, fewer), o);
        REQUIRE(less.robustness);
        CHECK_FALSE(less.robustness->robust);
      }
    }
  }
  CHECK(fixedCount > 20);
}

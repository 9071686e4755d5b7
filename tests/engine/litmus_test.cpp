// The classic litmus tests under SC, TSO and PSO: exact execution counts,
// verdicts, the shape of the counterexamples, and store-buffer bounds.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "tests/engine/trace_text.h"

using namespace tsocheck;

namespace {

const std::vector<litmus::LitmusTest>& tests() {
  static const std::vector<litmus::LitmusTest> all = litmus::all();
  return all;
}

uint64_t expected(const litmus::LitmusTest& t, Model m) {
  return m == Model::SC ? t.expectedSC : m == Model::TSO ? t.expectedTSO : t.expectedPSO;
}

bool weak(const litmus::LitmusTest& t, Model m) {
  return m == Model::SC ? t.weakSC : m == Model::TSO ? t.weakTSO : t.weakPSO;
}

CheckResult run(const Program& p, Model m, int bound, bool stop) {
  CheckOptions o;
  o.model = m;
  o.bufferBound = bound;
  o.stopAtFirstError = stop;
  return check(p, o);
}

// The source line of the entry function's assertion (the weak-outcome check).
uint32_t assertLine(const Program& p) {
  uint32_t line = 0;
  for (const Instr& in : p.functions.at(p.entry).code)
    if (in.op == Op::Assert) line = in.loc.line;
  return line;
}

// A load served by memory that returns 0 while another thread's buffer still
// holds a store to the same location: the signature of store buffering.
bool readsPastPendingStore(const std::vector<TraceStep>& trace) {
  for (const TraceStep& s : trace) {
    if (s.kind != StepKind::LoadMem || !s.hasValue || s.value != 0) continue;
    for (size_t u = 0; u < s.buffers.size(); ++u) {
      if (u == s.thread) continue;
      for (const BufferEntry& e : s.buffers[u])
        if (!s.hasAddr || e.addr == s.addr) return true;
    }
  }
  return false;
}

// No violation within a store-buffer bound. The explorer may call that
// "bounded" (the bound cut some behaviours) rather than "verified".
// A buffer bound under TSO/PSO may hide behaviours: never "verified".
bool noViolationWithinBound(const CheckResult& r) { return r.status == Status::Bounded; }

}  // namespace

TEST_CASE("litmus programs are well formed", "[litmus]") {
  REQUIRE(tests().size() == 6);
  std::vector<std::string> names;
  for (const auto& t : tests()) names.push_back(t.name);
  REQUIRE(names == std::vector<std::string>{"SB", "SB+fences", "MP", "LB", "2+2W", "IRIW"});
  for (const auto& t : tests()) {
    CAPTURE(t.name);
    REQUIRE(t.program.files.size() >= 2);
    REQUIRE(t.program.files[1] == t.name + ".c");
    REQUIRE(t.program.functions.at(t.program.entry).name == "main");
    REQUIRE(assertLine(t.program) > 0);
    // Weaker models allow at least as much.
    REQUIRE(t.expectedSC <= t.expectedTSO);
    REQUIRE(t.expectedTSO <= t.expectedPSO);
    REQUIRE_FALSE(t.weakSC);
    REQUIRE((!t.weakTSO || t.weakPSO));
  }
}

TEST_CASE("litmus execution counts match the Shasha-Snir trace counts", "[litmus]") {
  for (const auto& t : tests()) {
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      CAPTURE(t.name, modelName(m));
      CheckResult r = run(t.program, m, -1, false);
      CHECK(r.executions == expected(t, m));
      CHECK(r.blocked == 0);
      CHECK(r.cut == 0);
      CHECK(r.status == (weak(t, m) ? Status::Violation : Status::Verified));
    }
  }
}

TEST_CASE("litmus verdicts and counterexamples", "[litmus]") {
  for (const auto& t : tests()) {
    const uint32_t line = assertLine(t.program);
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      CAPTURE(t.name, modelName(m));
      CheckResult r = run(t.program, m, -1, true);
      if (!weak(t, m)) {
        CHECK(r.status == Status::Verified);
        CHECK_FALSE(r.violation.has_value());
        continue;
      }
      REQUIRE(r.status == Status::Violation);
      REQUIRE(r.violation.has_value());
      const Violation& v = *r.violation;
      CHECK(v.kind == ErrorKind::Assertion);
      CHECK(v.message.find("weak outcome") != std::string::npos);
      CHECK(v.thread == 0);  // main asserts
      CHECK(v.loc.line == line);
      REQUIRE_FALSE(v.trace.empty());
      CHECK(v.trace.back().kind == StepKind::Error);
      CHECK(v.trace.back().loc.line == line);
      CHECK(v.trace.back().thread == 0);
      CHECK_FALSE(testing::traceText(t.program, v).empty());
      if (t.name == "SB" && m == Model::TSO) {
        CHECK(readsPastPendingStore(v.trace));
      }
    }
  }
}

TEST_CASE("SB under TSO depends on the store-buffer bound", "[litmus][bound]") {
  const auto& sb = litmus::byName("SB");
  SECTION("bound 0 behaves like SC") {
    CheckResult counted = run(sb.program, Model::TSO, 0, false);
    CHECK(counted.executions == 3);
    CHECK(counted.blocked == 0);
    CheckResult r = run(sb.program, Model::TSO, 0, true);
    CHECK(noViolationWithinBound(r));
    CHECK_FALSE(r.violation.has_value());
  }
  SECTION("bound 1 already allows the weak outcome") {
    CheckResult counted = run(sb.program, Model::TSO, 1, false);
    CHECK(counted.executions == 4);
    CHECK(counted.blocked == 0);
    CheckResult r = run(sb.program, Model::TSO, 1, true);
    REQUIRE(r.status == Status::Violation);
    REQUIRE(r.violation.has_value());
    CHECK(readsPastPendingStore(r.violation->trace));
  }
}

TEST_CASE("MP under PSO depends on the store-buffer bound", "[litmus][bound]") {
  const auto& mp = litmus::byName("MP");
  SECTION("bound 1: one pending store per thread, like TSO") {
    CheckResult counted = run(mp.program, Model::PSO, 1, false);
    CHECK(counted.executions == 3);
    CheckResult r = run(mp.program, Model::PSO, 1, true);
    CHECK(noViolationWithinBound(r));
    CHECK_FALSE(r.violation.has_value());
  }
  SECTION("bound 2: the stores can reach memory out of order") {
    CheckResult counted = run(mp.program, Model::PSO, 2, false);
    CHECK(counted.executions == 4);
    CheckResult r = run(mp.program, Model::PSO, 2, true);
    CHECK(r.status == Status::Violation);
  }
}

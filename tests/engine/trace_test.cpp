// What the engine says about each counterexample step (engine/check.h):
// the store step behind every buffer entry, the thread a spawn starts, and
// stale reads — the same from the graph explorer and the state-space search,
// so no reader has to re-derive them.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "service/report_reader.h"

using namespace tsocheck;

namespace {

void checkMeaning(const std::vector<TraceStep>& trace) {
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceStep& s = trace[i];
    INFO(stepLabel(s));
    CHECK(s.step == i + 1);
    for (uint32_t t = 0; t < s.buffers.size(); ++t)
      for (const BufferEntry& e : s.buffers[t]) {
        // Each entry comes from a store step of its thread, address and value, at or before this step.
        REQUIRE(e.storeStep >= 1);
        REQUIRE(e.storeStep <= s.step);
        const TraceStep& st = trace[e.storeStep - 1];
        CHECK(st.kind == StepKind::Store);
        CHECK(st.thread == t);
        CHECK(st.addr == e.addr);
        CHECK(st.value == e.value);
      }
    // Stale: a load from memory while another thread's buffer holds its address.
    bool other = false;
    if (s.kind == StepKind::LoadMem)
      for (uint32_t u = 0; u < s.buffers.size(); ++u)
        for (const BufferEntry& e : s.buffers[u]) other = other || (u != s.thread && e.addr == s.addr);
    CHECK((s.staleThread != TraceStep::kNoThread) == other);
    if (other) {
      CHECK(s.staleThread != s.thread);
      CHECK(s.staleEntry.addr == s.addr);
      CHECK(s.staleEntry.storeStep >= 1);
    }
    if (s.kind == StepKind::Spawn) {
      REQUIRE(s.spawned != TraceStep::kNoThread);
      CHECK(s.spawned != s.thread);
      // The spawned thread does not run before its spawn.
      for (size_t j = 0; j < i; ++j) CHECK(trace[j].thread != s.spawned);
    } else {
      CHECK(s.spawned == TraceStep::kNoThread);
    }
  }
}

}  // namespace

TEST_CASE("trace steps carry their buffer entries' store steps, spawned threads and stale reads") {
  for (const char* name : {"SB", "MP", "IRIW", "2+2W"})
    for (Model model : {Model::TSO, Model::PSO})
      for (bool stateful : {false, true}) {
        const litmus::LitmusTest& t = litmus::byName(name);
        CheckOptions o;
        o.model = model;
        o.stateful = stateful;
        CheckResult r = check(t.program, o);
        INFO(name << " " << modelName(model) << (stateful ? " stateful" : " graph"));
        const bool weak = model == Model::TSO ? t.weakTSO : t.weakPSO;
        REQUIRE((r.status == Status::Violation) == weak);
        if (!weak) continue;
        checkMeaning(r.violation->trace);
        // Store buffering's weak outcome is a stale read by construction.
        if (std::string(name) == "SB") {
          bool stale = false;
          for (const TraceStep& s : r.violation->trace) stale = stale || s.staleThread != TraceStep::kNoThread;
          CHECK(stale);
        }
      }
}

TEST_CASE("a trace through many buffered stores stops copying the buffers, and says where") {
  // 250 stores sit in main's buffer when the assertion fails: a copy of the
  // buffer after every step would be 31,375 entries, above the budget.
  auto build = [](int stores) {
    ProgramBuilder pb("many_stores.c");
    auto x = pb.global("x");
    auto y = pb.global("y");
    auto& m = pb.function("main");
    for (int i = 0; i < stores; ++i) m.at(5).storeGlobal(x, Value(i + 1));
    Reg v = m.at(6).loadGlobal(y);
    m.at(6).assertTrue(m.cmpImm(CmpOp::Eq, v, 1), "y is 1");
    m.ret();
    return pb.build();
  };
  const std::string note = "store-buffer contents are not shown from this step on";
  for (int stores : {20, 250}) {
    CheckOptions o;
    o.model = Model::TSO;
    CheckResult r = check(build(stores), o);
    REQUIRE(r.status == Status::Violation);
    const std::vector<TraceStep>& trace = r.violations.front().trace;
    checkMeaning(trace);
    size_t withNote = 0, copied = 0, most = 0;
    bool omitted = false;
    for (const TraceStep& s : trace) {
      if (s.note.find(note) != std::string::npos) {
        ++withNote;
        omitted = true;
      }
      if (omitted) CHECK(s.buffers.empty());
      for (const auto& b : s.buffers) {
        copied += b.size();
        most = std::max(most, b.size());
      }
    }
    CAPTURE(stores);
    CHECK(withNote == (stores == 250 ? 1u : 0u));
    CHECK(copied <= 20000u);
    if (stores == 20) CHECK(most == 20u);  // (a short trace shows every buffer)
    if (stores == 250) CHECK(most > 100u);  // (the first steps still show them)
  }
}

// Explicit-state search (engine/state_space.h): litmus verdicts, buffer-bound
// deepening (smallest k), the Theorem 1 fixpoint on programs with unbounded
// loops, soundness of the verdicts when something is cut, and agreement with
// the graph explorer on random programs (final states and verdicts).
#include <catch2/catch.hpp>

#include <set>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "engine/examples/state_programs.h"
#include "engine/explorer.h"
#include "engine/search.h"
#include "engine/state_space.h"
#include "tests/engine/random_programs.h"

using namespace tsocheck;

namespace {

CheckOptions opts(Model m) {
  CheckOptions o;
  o.model = m;
  return o;
}

// T1: do { x = 1; x = 2; } while (flag == 0);   T2: flag = 1;
// main joins both and asserts x == 2 (true in every model: T1's last store to
// x is 2 and it drains before exiting). T1's buffer grows without bound under
// TSO/PSO while it spins, but only its newest pending x matters: fixpoint.
Program unboundedStoreLoop(bool bug) {
  ProgramBuilder pb("loop.c");
  auto x = pb.global("x"), flag = pb.global("flag");
  auto& t1 = pb.function("t1", 1);
  auto top = t1.newLabel(), out = t1.newLabel();
  t1.bind(top);
  t1.at(3).storeGlobal(x, 1);
  t1.at(4).storeGlobal(x, 2);
  Reg f = t1.at(5).loadGlobal(flag);
  t1.br(t1.cmpImm(CmpOp::Eq, f, 0), top, out);
  t1.bind(out);
  t1.at(6).ret(t1.constant(0));
  auto& t2 = pb.function("t2", 1);
  t2.at(9).storeGlobal(flag, 1);
  if (bug) {
    // Reads x while T1 may still be between its two stores.
    Reg v = t2.at(10).loadGlobal(x);
    t2.at(11).assertTrue(t2.cmpImm(CmpOp::Ne, v, 1), "x != 1");
  }
  t2.at(12).ret(t2.constant(0));
  auto& m = pb.function("main");
  Reg a = m.at(15).spawn(t1.index());
  Reg b = m.at(16).spawn(t2.index());
  m.at(17).joinDiscard(a);
  m.at(18).joinDiscard(b);
  Reg v = m.at(19).loadGlobal(x);
  m.at(20).assertTrue(m.cmpImm(CmpOp::Eq, v, 2), "x == 2");
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

// Test-and-set spinlock with an exchange loop (no spin-loop transform), N
// threads, `iters` critical sections each incrementing a counter.
Program xchgSpinlock(int threads, int iters) { return examples::spinlock(threads, iters, true); }

}  // namespace

TEST_CASE("deepening finds the smallest buffer bound of each litmus violation", "[state]") {
  struct Want {
    const char* name;
    Model model;
    int k;  // -1: no violation
  };
  const Want wants[] = {
      {"SB", Model::SC, -1},  {"SB", Model::TSO, 1}, {"SB", Model::PSO, 1},  {"SB+fences", Model::TSO, -1},
      {"MP", Model::TSO, -1}, {"MP", Model::PSO, 2},  // x and y both pending: two entries
      {"LB", Model::PSO, -1}, {"2+2W", Model::PSO, 2}, {"IRIW", Model::TSO, -1},
  };
  for (const Want& w : wants) {
    CAPTURE(w.name, modelName(w.model));
    const litmus::LitmusTest& t = litmus::byName(w.name);
    DeepeningResult d = deepenBufferBound(t.program, opts(w.model), 0, 3);
    if (w.k < 0) {
      REQUIRE(d.result.status == Status::Verified);
      REQUIRE(d.fixpointK.has_value());
      REQUIRE(!d.violationK);
    } else {
      REQUIRE(d.result.status == Status::Violation);
      REQUIRE(d.violationK == w.k);
      REQUIRE(d.steps.size() == size_t(w.k + 1));  // stopped at the first k that fails
      REQUIRE(d.result.violation->kind == ErrorKind::Assertion);
      REQUIRE(d.result.message.find("needs a store buffer of " + std::to_string(w.k)) != std::string::npos);
      // The trace shows a stale load while a store is still buffered, and
      // flushes at their store's source line.
      bool stale = false, flushes = false;
      for (const TraceStep& st : d.result.violation->trace) {
        if (st.kind == StepKind::LoadMem && st.value == 0)
          for (const auto& b : st.buffers) stale = stale || !b.empty();
        if (st.kind == StepKind::Flush) {
          flushes = true;
          REQUIRE(st.loc.line > 0);
        }
      }
      if (std::string(w.name) != "2+2W") REQUIRE(stale);  // 2+2W fails on final values, not loads
      REQUIRE(flushes);
    }
  }
}

TEST_CASE("the state space agrees with the litmus expectations per model", "[state]") {
  for (const litmus::LitmusTest& t : litmus::all()) {
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      CAPTURE(t.name, modelName(m));
      StateSpaceOptions so;
      so.check.model = m;
      StateSpaceResult r = exploreStates(t.program, so);
      const bool weak = m == Model::SC ? t.weakSC : m == Model::TSO ? t.weakTSO : t.weakPSO;
      REQUIRE((r.result.status == Status::Violation) == weak);
      if (!weak) {
        REQUIRE(r.result.status == Status::Verified);
        REQUIRE(r.exhaustive);
      }
    }
  }
}

TEST_CASE("a violation under SC is reported at k=0", "[state]") {
  ProgramBuilder pb("race.c");
  auto c = pb.global("c");
  auto& w = pb.function("w", 1);
  Reg v = w.at(2).loadGlobal(c);
  w.at(3).storeGlobalReg(c, w.binImm(BinOp::Add, v, 1));
  w.ret();
  auto& m = pb.function("main");
  Reg a = m.at(5).spawn(w.index()), b = m.at(6).spawn(w.index());
  m.at(7).joinDiscard(a);
  m.at(8).joinDiscard(b);
  m.at(9).assertTrue(m.cmpImm(CmpOp::Eq, m.loadGlobal(c), 2), "c == 2");
  m.ret();
  pb.setEntry(m.index());
  DeepeningResult d = deepenBufferBound(pb.build(), opts(Model::TSO), 0, 2);
  REQUIRE(d.result.status == Status::Violation);
  REQUIRE(d.violationK == 0);
  REQUIRE(d.result.message.find("under sequential consistency") != std::string::npos);
  // The trace ends with the failing assertion and shows both increments.
  const auto& tr = d.result.violation->trace;
  REQUIRE(tr.back().kind == StepKind::Error);
  REQUIRE(tr.back().loc.line == 9);
}

TEST_CASE("fixpoint: an unbounded store loop is verified for unbounded buffers", "[state]") {
  Program p = unboundedStoreLoop(false);
  for (Model m : {Model::TSO, Model::PSO}) {
    CAPTURE(modelName(m));
    // x keeps its initial 0 only while nothing is flushed, so "x == 0 in
    // memory" states of later iterations need longer buffers: the projection
    // grows up to k=4 and then stops.
    DeepeningResult d = deepenBufferBound(p, opts(m), 0, 8);
    CAPTURE(d.result.message, d.result.limitsHit, d.result.executions, d.result.blocked);
    REQUIRE(d.result.status == Status::Verified);
    REQUIRE(d.fixpointK.has_value());
    REQUIRE(*d.fixpointK >= 2);
    REQUIRE(*d.fixpointK <= 6);
    REQUIRE(d.result.message.find("fixpoint at k=" + std::to_string(*d.fixpointK)) != std::string::npos);
    // The full state sets keep growing with k: the projection is what converges.
    REQUIRE(d.steps.size() >= 2);
    REQUIRE(d.steps.back().states > d.steps[d.steps.size() - 2].states);
    REQUIRE(d.steps.back().projections == d.steps[d.steps.size() - 2].projections);
  }
  // With the racy read the same loop fails, under SC already.
  DeepeningResult bad = deepenBufferBound(unboundedStoreLoop(true), opts(Model::TSO), 0, 4);
  REQUIRE(bad.result.status == Status::Violation);
  REQUIRE(bad.violationK == 0);
}

TEST_CASE("no fixpoint within K gives bounded with the largest k", "[state]") {
  // The loop's buffer grows, so k=0 and k=1 differ: with K=0 there is no proof.
  DeepeningResult d = deepenBufferBound(unboundedStoreLoop(false), opts(Model::TSO), 0, 0);
  REQUIRE(d.result.status == Status::Bounded);
  REQUIRE(d.largestK == 0);
  REQUIRE(!d.fixpointK);
}

TEST_CASE("cut state spaces are never verified", "[state]") {
  // A state limit too small for the program.
  StateSpaceOptions so;
  so.check.model = Model::TSO;
  so.check.bufferBound = 2;
  so.maxStates = 20;
  StateSpaceResult r = exploreStates(xchgSpinlock(2, 1), so);
  REQUIRE(r.result.status == Status::Bounded);
  REQUIRE(!r.exhaustive);
  REQUIRE(!r.result.limitsHit.empty());
  DeepeningResult d = deepenBufferBound(xchgSpinlock(2, 1), opts(Model::TSO), 0, 3, 20);
  REQUIRE(d.result.status == Status::Bounded);
  REQUIRE(!d.fixpointK);

  // A store loop under unbounded buffers: every state is new and keys grow
  // with the buffer; the byte limit stops it early, as a cut.
  ProgramBuilder pr("runaway.c");
  auto x = pr.global("x");
  auto& w = pr.function("main");
  auto top = w.newLabel();
  w.bind(top);
  Reg v = w.at(2).loadGlobal(x);
  w.at(2).storeGlobalReg(x, w.binImm(BinOp::Add, v, 1));
  w.jmp(top);
  pr.setEntry(w.index());
  StateSpaceOptions ru;
  ru.check.limits.stateMemoryBytes = 4 << 20;
  const Program runaway = pr.build();
  StateSpaceResult rr = exploreStates(runaway, ru);
  REQUIRE(rr.result.status == Status::Bounded);
  REQUIRE(rr.stateLimitHit);
  REQUIRE(rr.memoryLimitHit);
  REQUIRE(rr.peakBytes <= ru.check.limits.stateMemoryBytes);
  REQUIRE(rr.peakBytes > ru.check.limits.stateMemoryBytes / 2);
  REQUIRE(rr.result.limitsHit.at(0).find("state memory limit (4 MiB") != std::string::npos);
  // Twice the memory holds more states.
  StateSpaceOptions twice = ru;
  twice.check.limits.stateMemoryBytes *= 2;
  StateSpaceResult r2 = exploreStates(runaway, twice);
  REQUIRE(r2.memoryLimitHit);
  REQUIRE(r2.states > rr.states * 3 / 2);
  // Deepening counts the projections it keeps between two k.
  CheckOptions dk = opts(Model::TSO);
  dk.limits.stateMemoryBytes = 4 << 20;
  DeepeningResult dd = deepenBufferBound(xchgSpinlock(3, 2), dk, 0, 3);
  REQUIRE(dd.result.status == Status::Bounded);
  REQUIRE(!dd.fixpointK);
  REQUIRE(std::find_if(dd.result.limitsHit.begin(), dd.result.limitsHit.end(), [](const std::string& l) {
            return l.find("state memory limit") != std::string::npos;
          }) != dd.result.limitsHit.end());

  // An Op::Cut (the frontend's loop bound) in a reachable state.
  ProgramBuilder pb("cut.c");
  auto& m = pb.function("main");
  m.at(2).cut("loop at cut.c:2 cut after 8 iterations (loop bound)");
  m.ret();
  pb.setEntry(m.index());
  DeepeningResult c = deepenBufferBound(pb.build(), opts(Model::TSO), 0, 3);
  REQUIRE(c.result.status == Status::Bounded);
  REQUIRE(c.result.limitsHit.size() == 1);
}

TEST_CASE("exchange-loop spinlock: the visited table ends the spinning", "[state]") {
  for (Model m : {Model::SC, Model::TSO}) {
    CAPTURE(modelName(m));
    StateSpaceOptions so;
    so.check.model = m;
    StateSpaceResult r = exploreStates(xchgSpinlock(3, 2), so);
    CAPTURE(r.result.message, r.result.limitsHit, r.result.executions, r.result.blocked, r.states);
    REQUIRE(r.result.status == Status::Verified);
    REQUIRE(r.result.executions == 1);  // one final state: counter == 6
    REQUIRE(r.states < 200000);
  }
  // Under PSO the plain release store may overtake the counter store: the
  // lost update needs both pending at once (k=2).
  DeepeningResult d = deepenBufferBound(xchgSpinlock(2, 1), opts(Model::PSO), 0, 3);
  REQUIRE(d.result.status == Status::Violation);
  REQUIRE(d.violationK == 2);
}

TEST_CASE("deadlocks, memory errors and locks in the state space", "[state]") {
  // Two mutexes taken in opposite orders.
  ProgramBuilder pb("dl.c");
  auto a = pb.global("a"), b = pb.global("b");
  auto& t1 = pb.function("t1", 1);
  t1.at(2).lock(t1.globalAddr(a));
  t1.at(3).lock(t1.globalAddr(b));
  t1.at(4).unlock(t1.globalAddr(b));
  t1.at(5).unlock(t1.globalAddr(a));
  t1.ret();
  auto& t2 = pb.function("t2", 1);
  t2.at(7).lock(t2.globalAddr(b));
  t2.at(8).lock(t2.globalAddr(a));
  t2.at(9).unlock(t2.globalAddr(a));
  t2.at(10).unlock(t2.globalAddr(b));
  t2.ret();
  auto& m = pb.function("main");
  Reg h1 = m.at(12).spawn(t1.index()), h2 = m.at(13).spawn(t2.index());
  m.at(14).joinDiscard(h1);
  m.at(15).joinDiscard(h2);
  m.ret();
  pb.setEntry(m.index());
  StateSpaceOptions so;
  StateSpaceResult r = exploreStates(pb.build(), so);
  REQUIRE(r.result.status == Status::Violation);
  REQUIRE(r.result.violation->kind == ErrorKind::Deadlock);

  // Use after free through another thread's load.
  ProgramBuilder pf("uaf.c");
  auto ptr = pf.global("p", 8);
  auto& rd = pf.function("reader", 1);
  Reg q = rd.at(2).loadGlobal(ptr, 8);
  auto skip = rd.newLabel(), go = rd.newLabel();
  rd.br(rd.cmpImm(CmpOp::Eq, q, 0), skip, go);
  rd.bind(go);
  rd.at(3).load(q, 4);
  rd.bind(skip);
  rd.ret();
  auto& mm = pf.function("main");
  Reg blk = mm.at(5).malloc(mm.constant(4));
  mm.at(6).store(mm.globalAddr(ptr), blk, 8);
  Reg h = mm.at(7).spawn(rd.index());
  mm.at(8).free(blk);
  mm.at(9).joinDiscard(h);
  mm.ret();
  pf.setEntry(mm.index());
  StateSpaceResult u = exploreStates(pf.build(), so);
  REQUIRE(u.result.status == Status::Violation);
  REQUIRE(u.result.violation->kind == ErrorKind::Memory);
  REQUIRE(u.result.violation->message.find("use after free") != std::string::npos);
}

TEST_CASE("a spin whose idle iteration has a fence between its reads is no hang when an earlier read is stale",
          "[state]") {
  // T2: do { a = x; fence; b = y; } while (a == 0) as an await of two reads;
  // T1: x = 1. When T2's iteration ran before T1's store, its read of x is
  // stale at the end: blocked, not spinning for ever (a re-run reads 1).
  // The state space once forgot the reads before the fence and reported
  // non-termination (`tsocheck check --stateful` on the fixed point seqlock
  // sample with an mfence in its reader's retry loop).
  ProgramBuilder pb("fence_spin.c");
  auto x = pb.global("x"), y = pb.global("y");
  auto& t1 = pb.function("t1", 1);
  t1.at(2).storeGlobal(x, 1);
  t1.ret();
  auto& t2 = pb.function("t2", 1);
  Reg saved = t2.at(4).readCountBegin();
  Reg a = t2.loadGlobal(x);
  t2.at(5).fence();
  t2.at(6).loadGlobal(y);
  Reg n = t2.readCountEnd(saved);
  t2.at(7).assume(t2.cmpImm(CmpOp::Ne, a, 0), true, false, n);
  t2.ret();
  auto& m = pb.function("main");
  Reg h1 = m.at(9).spawn(t1.index()), h2 = m.at(10).spawn(t2.index());
  m.at(11).joinDiscard(h1);
  m.at(12).joinDiscard(h2);
  m.ret();
  pb.setEntry(m.index());
  const Program p = pb.build();
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(model));
    CheckOptions co;
    co.model = model;
    const CheckResult g = check(p, co);
    REQUIRE(g.status == Status::Verified);
    for (StateSearch search : {StateSearch::Bfs, StateSearch::Dpor}) {
      StateSpaceOptions so;
      so.check.model = model;
      so.search = search;
      const StateSpaceResult r = exploreStates(p, so);
      CAPTURE(search == StateSearch::Bfs ? "BFS" : "DPOR", r.result.message);
      REQUIRE(r.result.status == Status::Verified);
      REQUIRE(r.result.blocked > 0);  // (T2 ran first: blocked on the stale x)
    }
  }
}

TEST_CASE("property: state space and graph explorer agree on random programs", "[state][property]") {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    Program p = testing::randomProgram(seed);
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      for (int k : {-1, 1}) {
        CAPTURE(seed, modelName(m), k);
        std::set<std::vector<std::pair<Addr, Value>>> fromGraphs, fromStates;
        CheckOptions co;
        co.model = m;
        co.bufferBound = k;
        co.stopAtFirstError = false;
        co.onExecution = [&](const ExecutionInfo& e) {
          if (!e.blocked) fromGraphs.insert(e.finalMemory);
        };
        CheckResult g = check(p, co);
        StateSpaceOptions so;
        so.check.model = m;
        so.check.bufferBound = k;
        so.check.stopAtFirstError = false;
        so.check.onExecution = [&](const ExecutionInfo& e) {
          if (!e.blocked) fromStates.insert(e.finalMemory);
        };
        StateSpaceResult s = exploreStates(p, so);
        REQUIRE(s.exhaustive == (g.cut == 0 && !g.violation));
        REQUIRE(bool(s.result.violation) == bool(g.violation));
        REQUIRE(fromStates == fromGraphs);
        ++compared;
      }
    }
  }
  REQUIRE(compared == 900);
}

TEST_CASE("property: stateful and stateless agree on random programs with loops", "[state][property]") {
  testing::RandomProgramSpec spec = testing::smallSpec();
  spec.loopIterations = 2;
  int compared = 0, weak = 0;
  uint64_t statelessExecutions = 0, statefulStates = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Program p = testing::randomProgram(seed, spec);
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      CAPTURE(seed, modelName(m));
      std::set<std::vector<std::pair<Addr, Value>>> fromGraphs, fromStates;
      CheckOptions co;
      co.model = m;
      co.stopAtFirstError = false;
      co.onExecution = [&](const ExecutionInfo& e) {
        if (!e.blocked) fromGraphs.insert(e.finalMemory);
      };
      CheckResult g = check(p, co);
      REQUIRE(g.cut == 0);
      co.stateful = true;
      co.onExecution = [&](const ExecutionInfo& e) {
        if (!e.blocked) fromStates.insert(e.finalMemory);
      };
      CheckResult s = check(p, co);  // the stateful search through the public API
      REQUIRE(s.status == g.status);
      REQUIRE(fromStates == fromGraphs);
      REQUIRE(s.executions == fromStates.size());  // one per distinct final state
      statelessExecutions += g.executions;
      statefulStates += s.events;
      if (m != Model::SC && fromGraphs.size() > 1) ++weak;
      ++compared;
    }
  }
  REQUIRE(compared == 180);
  REQUIRE(weak > 20);  // the loops do produce many outcomes
  UNSCOPED_INFO("stateless executions " << statelessExecutions << ", stateful states " << statefulStates);
}

TEST_CASE("property: stateful and stateless agree on random programs with spin-waits", "[state][property]") {
  testing::RandomProgramSpec spec = testing::smallSpec();
  spec.spinAwaits = true;
  int deadlocks = 0, passes = 0;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    Program p = testing::randomProgram(seed, spec);
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      CAPTURE(seed, modelName(m));
      std::set<std::vector<std::pair<Addr, Value>>> fromGraphs, fromStates;
      CheckOptions co;
      co.model = m;
      co.stopAtFirstError = true;
      CheckResult g = check(p, co);
      co.stateful = true;
      CheckResult s = check(p, co);
      REQUIRE(s.status == g.status);
      REQUIRE(bool(s.violation) == bool(g.violation));
      if (g.violation) {
        REQUIRE(s.violation->kind == g.violation->kind);
        deadlocks += isHang(g.violation->kind);  // spin-waits are non-termination, not deadlock
      } else {
        ++passes;
        // Same reachable final states when nothing deadlocks.
        co.stopAtFirstError = false;
        co.stateful = false;
        co.onExecution = [&](const ExecutionInfo& e) {
          if (!e.blocked) fromGraphs.insert(e.finalMemory);
        };
        check(p, co);
        co.stateful = true;
        co.onExecution = [&](const ExecutionInfo& e) {
          if (!e.blocked) fromStates.insert(e.finalMemory);
        };
        check(p, co);
        REQUIRE(fromStates == fromGraphs);
      }
    }
  }
  REQUIRE(deadlocks > 5);
  REQUIRE(passes > 20);
}

TEST_CASE("stateful checks and deepening report progress like the graph explorer", "[state]") {
  // Enough states for several reports (one per 256 expanded states).
  for (bool deepen : {false, true}) {
    INFO((deepen ? "deepening" : "stateful"));
    std::vector<uint64_t> reports;
    CheckOptions o = opts(Model::TSO);
    o.onProgress = [&](uint64_t n) { reports.push_back(n); };
    uint64_t executions = 0;
    if (deepen) {
      DeepeningResult d = deepenBufferBound(xchgSpinlock(3, 2), o, 0, 2);
      executions = d.result.executions;
    } else {
      o.stateful = true;
      o.bufferBound = 2;
      executions = check(xchgSpinlock(3, 2), o).executions;
    }
    REQUIRE(reports.size() >= 2);
    CHECK(std::is_sorted(reports.begin(), reports.end()));
    CHECK(reports.back() <= executions);
  }
}

// engine/search.h: the one place that picks the search. Its choice shows in
// the counts: the graph explorer counts graphs and their events, the
// explicit-state search distinct final states and transitions.
TEST_CASE("chooseSearch runs the explicit-state search for stateful checks and threads with atomic sections, else "
          "the explorer",
          "[state][search]") {
  const Program& sb = litmus::byName("SB").program;
  CheckOptions o = opts(Model::TSO);
  o.stopAtFirstError = false;
  StateSpaceOptions so;
  so.check = o;
  so.search = StateSearch::Dpor;
  const CheckResult graph = Explorer(sb, o).run();
  const CheckResult states = exploreStates(sb, so).result;
  REQUIRE(graph.events != states.events);  // the two are told apart

  CheckResult refused;
  std::unique_ptr<Search> s = chooseSearch(sb, o, &refused);
  REQUIRE(s);
  CheckResult r = s->run();
  CHECK(r.status == graph.status);
  CHECK(r.executions == graph.executions);
  CHECK(r.events == graph.events);

  o.stateful = true;
  s = chooseSearch(sb, o, &refused);
  REQUIRE(s);
  r = s->run();
  CHECK(r.status == states.status);
  CHECK(r.executions == states.executions);
  CHECK(r.events == states.events);
  CHECK(check(sb, o).events == states.events);

  // Threads that use atomic sections: the explicit-state search, the graph
  // explorer when asked for.
  ProgramBuilder pb("sec.c");
  auto x = pb.global("x");
  auto& t = pb.function("inc", 1);
  t.at(2).atomicBegin();
  Reg v = t.at(3).loadGlobal(x);
  t.at(4).storeGlobalReg(x, t.binImm(BinOp::Add, v, 1));
  t.at(5).atomicEnd();
  t.at(6).ret(t.constant(0));
  auto& m = pb.function("main");
  Reg a = m.at(8).spawn(t.index());
  Reg b = m.at(9).spawn(t.index());
  m.at(10).joinDiscard(a);
  m.at(11).joinDiscard(b);
  m.ret();
  pb.setEntry(m.index());
  const Program sec = pb.build();
  CheckOptions os = opts(Model::SC);
  os.stopAtFirstError = false;
  so.check = os;
  const CheckResult secGraph = Explorer(sec, os).run();
  const CheckResult secStates = exploreStates(sec, so).result;
  REQUIRE(secGraph.events != secStates.events);
  CHECK(exploresStates(sec, os));
  s = chooseSearch(sec, os, &refused);
  REQUIRE(s);
  r = s->run();
  CHECK(r.status == secStates.status);
  CHECK(r.executions == secStates.executions);
  CHECK(r.events == secStates.events);
  os.sectionsInGraph = true;
  CHECK_FALSE(exploresStates(sec, os));
  s = chooseSearch(sec, os, &refused);
  REQUIRE(s);
  r = s->run();
  CHECK(r.status == secGraph.status);
  CHECK(r.executions == secGraph.executions);
  CHECK(r.events == secGraph.events);
  CHECK(r.status == secStates.status);
  os.sectionsInGraph = false;

  // What neither supports: no search, an Error result that says why.
  os.preemptionBound = 1;
  CheckResult why;
  CHECK_FALSE(chooseSearch(sec, os, &why));
  CHECK(why.status == Status::Error);
  CHECK(why.message.find("atomic sections") != std::string::npos);
  o.robustness = true;
  CheckResult why2;
  CHECK_FALSE(chooseSearch(sb, o, &why2));
  CHECK(why2.status == Status::Error);
  CHECK(why2.message.find("robustness") != std::string::npos);
}

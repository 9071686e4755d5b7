// The stateful DPOR (StateSearch::Dpor, what --stateful runs): the same
// verdicts and final states as the stateless graph explorer and the naive
// explorer on random programs with loops, far fewer states than the
// breadth-first search where steps are independent, the visited-state win
// kept on reconverging loops, and the cycle proviso (a thread spinning in a
// cycle of states does not hide another thread's steps).
#include <catch2/catch.hpp>

#include <set>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "engine/examples/state_programs.h"
#include "engine/state_dpor.h"
#include "engine/state_space.h"
#include "tests/engine/differential.h"
#include "tests/engine/naive_explorer.h"
#include "tests/engine/random_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;
using tsocheck::examples::figure1;
using tsocheck::examples::independent;

namespace {

StateSpaceResult explore(const Program& p, Model m, StateSearch search, FinalStates* finals = nullptr) {
  StateSpaceOptions so;
  so.check.model = m;
  so.search = search;
  so.check.stopAtFirstError = false;
  if (finals)
    so.check.onExecution = [finals](const ExecutionInfo& e) {
      if (!e.blocked) finals->insert(e.finalMemory);
    };
  return exploreStates(p, so);
}

// T1 spins in a real loop (`while (flag == 0) ;`, each failed iteration
// returns to the same state) and then fails; T2 first writes y, which T1
// never reads, then sets flag. The failure needs T2's two steps while T1
// spins: a search that let T1's cycle postpone T2 forever would miss it.
Program spinThenFail() {
  ProgramBuilder pb("cycle.c");
  auto flag = pb.global("flag"), y = pb.global("y");
  auto& t1 = pb.function("t1", 1);
  auto top = t1.newLabel(), out = t1.newLabel();
  t1.bind(top);
  Reg f = t1.at(3).loadGlobal(flag);
  t1.br(t1.cmpImm(CmpOp::Eq, f, 0), top, out);
  t1.bind(out);
  t1.at(4).fail("reached after the spin");
  t1.ret();
  auto& t2 = pb.function("t2", 1);
  t2.at(7).storeGlobal(y, 1);
  t2.at(8).storeGlobal(flag, 1);
  t2.ret();
  auto& m = pb.function("main");
  Reg a = m.at(10).spawn(t1.index()), b = m.at(11).spawn(t2.index());
  m.at(12).joinDiscard(a);
  m.at(13).joinDiscard(b);
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

// Message passing with two data stores: T1 writes x and z, then (with
// `barrier`) a store-store barrier, then the flag y; T2 reads y, x, z and
// asserts that a set flag comes with both data. Under PSO only the barrier
// keeps y's flush after x's and z's.
Program messagePassing(bool barrier) {
  ProgramBuilder pb("mp.c");
  auto x = pb.global("x"), y = pb.global("y"), z = pb.global("z");
  auto& t1 = pb.function("t1", 1);
  t1.at(3).storeGlobal(x, 1);
  t1.at(4).storeGlobal(z, 1);
  if (barrier) t1.at(5).fence(FenceKind::StoreStore);
  t1.at(6).storeGlobal(y, 1);
  t1.ret();
  auto& t2 = pb.function("t2", 1);
  Reg a = t2.at(8).loadGlobal(y), b = t2.at(9).loadGlobal(x), c = t2.at(10).loadGlobal(z);
  Reg data = t2.bin(BinOp::And, t2.cmpImm(CmpOp::Eq, b, 1), t2.cmpImm(CmpOp::Eq, c, 1));
  t2.at(11).assertTrue(t2.bin(BinOp::Or, t2.cmpImm(CmpOp::Eq, a, 0), data), "flag without data");
  t2.ret();
  auto& m = pb.function("main");
  Reg h1 = m.at(13).spawn(t1.index()), h2 = m.at(14).spawn(t2.index());
  m.at(15).joinDiscard(h1);
  m.at(16).joinDiscard(h2);
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

// Both threads store x and load it back: T1 `x = 1; a = x;`, T2 `x = 2;
// b = x;`. Under TSO/PSO each load is served by its own buffer unless that
// store has flushed; T1 reads 2 only when its flush and then T2's come
// before its load. Four final states (x, a, b) under every model: (2,1,2),
// (2,2,2), (1,1,1), (1,1,2).
Program storeLoadBack() {
  ProgramBuilder pb("readback.c");
  auto x = pb.global("x"), a = pb.global("a"), b = pb.global("b");
  auto& t1 = pb.function("t1", 1);
  t1.at(3).storeGlobal(x, 1);
  t1.at(4).storeGlobalReg(a, t1.loadGlobal(x));
  t1.ret();
  auto& t2 = pb.function("t2", 1);
  t2.at(7).storeGlobal(x, 2);
  t2.at(8).storeGlobalReg(b, t2.loadGlobal(x));
  t2.ret();
  auto& m = pb.function("main");
  Reg h1 = m.at(10).spawn(t1.index()), h2 = m.at(11).spawn(t2.index());
  m.at(12).joinDiscard(h1);
  m.at(13).joinDiscard(h2);
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

}  // namespace

TEST_CASE("stateful DPOR: one thread's flushes of different addresses are independent unless a barrier orders them",
          "[sdpor]") {
  sdpor::Op fx, fy;
  fx.thread = fy.thread = 1;
  fx.flush = fy.flush = true;
  fx.cls = fy.cls = sdpor::OpClass::Write;
  fx.actor = 5, fy.actor = 6;
  fx.addr = 0x100, fy.addr = 0x104;
  fx.size = fy.size = 4;
  CHECK_FALSE(sdpor::dependent(fx, fy));
  sdpor::Op fxBarrier = fx;
  fxBarrier.barrier = true;  // the buffer holds a barrier: this flush may make y's entry a head
  CHECK(sdpor::dependent(fxBarrier, fy));
  CHECK(sdpor::dependent(fy, fxBarrier));
  sdpor::Op wide = fy;
  wide.addr = 0x100, wide.size = 8;  // overlapping ranges write the same bytes
  CHECK(sdpor::dependent(fx, wide));
  sdpor::Op other = fy;
  other.thread = 2, other.actor = 7, other.addr = 0x100;  // another thread's flush of x
  CHECK(sdpor::dependent(fx, other));

  // End to end under PSO: with the barrier the stateful DPOR verifies message
  // passing, without it finds the flag without the data; both agree with the
  // breadth-first search and the naive explorer on every final state.
  for (bool barrier : {true, false}) {
    CAPTURE(barrier);
    const Program p = messagePassing(barrier);
    FinalStates fd, fb;
    const StateSpaceResult d = explore(p, Model::PSO, StateSearch::Dpor, &fd);
    const StateSpaceResult b = explore(p, Model::PSO, StateSearch::Bfs, &fb);
    const NaiveResult naive = exploreNaive(p, Model::PSO, -1);
    REQUIRE(bool(d.result.violation) == !barrier);
    REQUIRE(bool(b.result.violation) == !barrier);
    REQUIRE((naive.errorRuns > 0) == !barrier);
    REQUIRE(fd == fb);
    if (barrier) REQUIRE(fd == naive.finalStates);
    REQUIRE(d.states < b.states);
  }
}

TEST_CASE("property: stateful DPOR, graph explorer and naive explorer agree on random programs with loops",
          "[sdpor][property]") {
  RandomProgramSpec loops = smallSpec();
  loops.loopIterations = 2;
  RandomProgramSpec spins = loops;
  spins.loopIterations = 0;
  spins.spinAwaits = true;
  int compared = 0, violations = 0, multiple = 0;
  uint64_t bfsStates = 0, dporStates = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    for (const RandomProgramSpec* spec : {&loops, &spins}) {
      Program p = randomProgram(seed, *spec);
      for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
        CAPTURE(seed, spec == &loops ? "loops" : "spin-waits", modelName(m));
        FinalStates graph, dpor;
        CheckOptions co;
        co.model = m;
        co.stopAtFirstError = false;
        co.onExecution = [&](const ExecutionInfo& e) {
          if (!e.blocked) graph.insert(e.finalMemory);
        };
        const CheckResult g = check(p, co);
        REQUIRE(g.cut == 0);
        const NaiveResult naive = exploreNaive(p, m, -1);
        const StateSpaceResult d = explore(p, m, StateSearch::Dpor, &dpor);
        const StateSpaceResult b = explore(p, m, StateSearch::Bfs);
        REQUIRE(d.result.status != Status::Error);
        REQUIRE(bool(d.result.violation) == bool(g.violation));
        if (d.result.violation) REQUIRE(d.result.violation->kind == g.violation->kind);
        // (The naive explorer does not judge spinning for ever: with
        // spin-waits the graph explorer's verdict is the reference.)
        const bool naiveError = spec == &spins ? bool(g.violation) : naive.errorRuns > 0 || naive.deadlockRuns > 0;
        REQUIRE(bool(d.result.violation) == naiveError);
        if (!naiveError) {
          REQUIRE(d.exhaustive);
          REQUIRE(dpor == naive.finalStates);
          REQUIRE(dpor == graph);
          REQUIRE(d.result.executions == dpor.size());  // one per distinct final state
        }
        violations += naiveError;
        multiple += dpor.size() > 1;
        bfsStates += b.states;
        dporStates += d.states;
        ++compared;
      }
    }
  }
  REQUIRE(compared == 240);
  REQUIRE(violations > 5);
  REQUIRE(multiple > 40);
  REQUIRE(dporStates < bfsStates);
  UNSCOPED_INFO("BFS states " << bfsStates << ", DPOR states " << dporStates);
}

TEST_CASE("property: stateful DPOR, BFS and graph explorer agree on what main reads when it returns before every "
          "thread has ended",
          "[sdpor][property][exit]") {
  // (programEndDifferential: the searches once disagreed here, the stateful
  // DPOR missing what a thread main never joined could still do before the
  // program ended.)
  RandomProgramSpec spec = smallSpec();
  spec.minLocations = 2;
  spec.mainReads = true;
  int compared = 0, multiple = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Program p = randomProgram(seed, spec);
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      CAPTURE(seed, modelName(m));
      const DiffOutcome d = programEndDifferential(p, m, 0);
      INFO(d.why);
      REQUIRE(d.agree);
      REQUIRE(!d.statefulSkipped);
      REQUIRE(!d.dporSkipped);
      REQUIRE(!d.violation);
      multiple += d.executions > 1;
      ++compared;
    }
  }
  REQUIRE(compared == 120);
  REQUIRE(multiple > 40);
}

TEST_CASE("stateful DPOR through check(): --stateful gives the litmus verdicts with usable traces", "[sdpor]") {
  int violations = 0;
  for (const litmus::LitmusTest& t : litmus::all()) {
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      CAPTURE(t.name, modelName(m));
      CheckOptions co;
      co.model = m;
      const CheckResult g = check(t.program, co);
      co.stateful = true;
      const CheckResult s = check(t.program, co);
      REQUIRE(s.status == g.status);
      const bool weak = m == Model::SC ? t.weakSC : m == Model::TSO ? t.weakTSO : t.weakPSO;
      REQUIRE(bool(s.violation) == weak);
      if (!s.violation) continue;
      ++violations;
      REQUIRE(s.violation->kind == g.violation->kind);
      const auto& tr = s.violation->trace;
      REQUIRE(tr.back().kind == StepKind::Error);
      bool flush = false;
      for (size_t i = 0; i < tr.size(); ++i) {
        REQUIRE(tr[i].step == i + 1);
        flush = flush || tr[i].kind == StepKind::Flush;
      }
      if (m != Model::SC) REQUIRE(flush);  // the weak outcome shows its flushes
    }
  }
  REQUIRE(violations >= 4);  // SB under TSO and PSO, MP and 2+2W under PSO
}

TEST_CASE("stateful DPOR: loop-free independent steps take one execution, not every interleaving", "[sdpor]") {
  // readBack: each thread loads the global it has just stored, which its own
  // buffer serves under TSO/PSO; the load and that buffer's flush commute,
  // so it takes one path too.
  const bool readBack = GENERATE(false, true);
  const Program p = independent(3, 2, readBack);
  for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(readBack, modelName(m));
    FinalStates fb, fd;
    const StateSpaceResult b = explore(p, m, StateSearch::Bfs, &fb);
    const StateSpaceResult d = explore(p, m, StateSearch::Dpor, &fd);
    CAPTURE(b.states, b.transitions, d.states, d.transitions, d.revisits);
    REQUIRE(b.result.status == Status::Verified);
    REQUIRE(d.result.status == Status::Verified);
    REQUIRE(fd == fb);
    REQUIRE(fd.size() == 1);
    // Nothing races: exactly one path through the state space (a tree
    // without branches), as the stateless explorer's one execution. (Under
    // PSO a thread's flushes of x and y are independent too: no barrier
    // orders them.)
    REQUIRE(d.revisits == 0);
    REQUIRE(d.transitions == d.states - 1);
    REQUIRE(d.states * 15 < b.states);
  }
}

TEST_CASE("stateful DPOR keeps the visited-state win on Yang et al.'s Figure 1 and exchange loops", "[sdpor]") {
  for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(m));
    const Program p = figure1(6);
    FinalStates fb, fd;
    const StateSpaceResult b = explore(p, m, StateSearch::Bfs, &fb);
    const StateSpaceResult d = explore(p, m, StateSearch::Dpor, &fd);
    REQUIRE(d.result.status == Status::Verified);
    REQUIRE(fd == fb);
    REQUIRE(d.revisits > 0);  // interleavings reconverge: the table ends them
    REQUIRE(d.states <= b.states);
    // The stateless explorer needs C(12, 6) = 924 executions here.
    CheckOptions co;
    co.model = m;
    const CheckResult g = check(p, co);
    REQUIRE(g.executions == 924);
    REQUIRE(d.states < 2 * g.executions);
  }
}

TEST_CASE("stateful DPOR: a thread spinning in a cycle does not hide another thread's steps", "[sdpor]") {
  for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(m));
    const StateSpaceResult d = explore(spinThenFail(), m, StateSearch::Dpor);
    REQUIRE(d.result.status == Status::Violation);
    REQUIRE(d.result.violation->kind == ErrorKind::Assertion);
    REQUIRE(d.revisits > 0);
  }
}

TEST_CASE("stateful DPOR: visited states count against the state memory limit", "[sdpor]") {
  // Two threads adding each other's counter (fib_bench): tens of thousands of states under TSO.
  ProgramBuilder pb("fib.c");
  auto i = pb.global("i", 4, 1), j = pb.global("j", 4, 1);
  std::vector<uint32_t> fs;
  for (int t = 0; t < 2; ++t) {
    auto& f = pb.function(t ? "t2" : "t1", 1);
    for (int k = 0; k < 4; ++k) {
      Reg a = f.at(3).loadGlobal(t ? j : i);
      Reg b = f.at(3).loadGlobal(t ? i : j);
      f.at(3).storeGlobalReg(t ? j : i, f.bin(BinOp::Add, a, b));
    }
    f.ret();
    fs.push_back(f.index());
  }
  auto& m = pb.function("main");
  Reg a = m.at(10).spawn(fs[0]), b = m.at(11).spawn(fs[1]);
  m.at(12).joinDiscard(a);
  m.at(13).joinDiscard(b);
  m.ret();
  pb.setEntry(m.index());
  const Program p = pb.build();
  StateSpaceOptions so;
  so.check.model = Model::TSO;
  so.search = StateSearch::Dpor;
  const StateSpaceResult whole = exploreStates(p, so);
  REQUIRE(whole.result.status == Status::Verified);
  REQUIRE(whole.states > 10000);
  REQUIRE(whole.peakBytes > whole.states * 64);  // at least the visited keys' entries
  so.check.limits.stateMemoryBytes = whole.peakBytes / 2;
  const StateSpaceResult cut = exploreStates(p, so);
  REQUIRE(cut.memoryLimitHit);
  REQUIRE(cut.result.status == Status::Bounded);
  REQUIRE(cut.states < whole.states);
}

TEST_CASE("stateful DPOR: a load its own buffer serves still meets another thread's flush between its own and it",
          "[sdpor]") {
  // The load and its own buffer's flush are independent (they commute); the
  // load stays dependent with the other thread's writes of x, and that race
  // reaches the runs where T1 reads T2's value.
  const Program p = storeLoadBack();
  for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(m));
    FinalStates fb, fd;
    const StateSpaceResult b = explore(p, m, StateSearch::Bfs, &fb);
    const StateSpaceResult d = explore(p, m, StateSearch::Dpor, &fd);
    CAPTURE(b.states, d.states, d.transitions);
    REQUIRE(b.result.status == Status::Verified);
    REQUIRE(d.result.status == Status::Verified);
    REQUIRE(fb.size() == 4);
    REQUIRE(fd == fb);
  }
}

// CheckOptions::exitEndsProgram (engine/hangs.h): when the harness returns or
// a thread calls exit(), the program ends, as in C. Both searches (graph
// explorer, state space), every model; off, the other threads run on.
#include <catch2/catch.hpp>

#include "engine/builder.h"
#include "engine/check.h"

using namespace tsocheck;

namespace {

CheckResult run(const Program& p, Model m, bool exitEnds, bool stateful) {
  CheckOptions o;
  o.model = m;
  o.exitEndsProgram = exitEnds;
  o.stateful = stateful;
  return check(p, o);
}

// main locks m and returns without unlocking; T then waits for m forever.
Program lockLeftHeld() {
  ProgramBuilder pb("held.c");
  auto mtx = pb.global("m");
  auto& m = pb.function("main");
  auto& t = pb.function("worker", 1);
  Reg tm = t.at(3).globalAddr(mtx);
  t.lock(tm);
  t.at(4).unlock(tm);
  t.ret();
  Reg mm = m.at(8).globalAddr(mtx);
  m.lock(mm);
  m.at(9).spawn(t.index());
  m.at(10).ret();
  return pb.build();
}

// T calls exit(); main joins T and then fails an assertion it never reaches in C.
Program exitThenJoin() {
  ProgramBuilder pb("exit.c");
  auto& m = pb.function("main");
  auto& t = pb.function("worker", 1);
  t.at(3).exitProgram();
  Reg h = m.at(8).spawn(t.index());
  m.at(9).joinDiscard(h);
  m.at(10).assertTrue(m.constant(0), "after the join");
  m.ret();
  return pb.build();
}

// main hands T the address of its stack slot and returns; T writes through it.
Program stackAfterReturn() {
  ProgramBuilder pb("stack.c");
  auto& m = pb.function("main");
  auto& t = pb.function("worker", 1);
  t.at(3).store(0, t.constant(1), 4);  // register 0: the argument
  t.ret();
  Reg slot = m.at(7).stackSlot(4, false);
  m.at(8).spawn(t.index(), slot);
  m.at(9).ret();
  return pb.build();
}

// T fails an assertion; main returns at once: still found (T can fail first).
Program failingWorker() {
  ProgramBuilder pb("fail.c");
  auto& m = pb.function("main");
  auto& t = pb.function("worker", 1);
  t.at(3).assertTrue(t.constant(0), "worker fails");
  t.ret();
  m.at(8).spawn(t.index());
  m.at(9).ret();
  return pb.build();
}

// T first reads y (nothing else touches y), then writes x; main never joins
// T, reads x and asserts it is still 0. The failure needs T to run before
// main returns: a search that only reverses races between steps it ran
// would never run T, since its pending read races with nothing but the
// return that ends the program.
Program unjoinedWriter() {
  ProgramBuilder pb("unjoined.c");
  auto x = pb.global("x");
  auto y = pb.global("y");
  auto& m = pb.function("main");
  auto& t = pb.function("worker", 1);
  t.at(3).loadGlobal(y);
  t.at(4).storeGlobal(x, 1);
  t.ret();
  m.at(8).spawn(t.index());
  Reg v = m.at(9).loadGlobal(x);
  m.at(10).assertTrue(m.cmpImm(CmpOp::Eq, v, 0), "x is still 0");
  m.ret();
  return pb.build();
}

}  // namespace

TEST_CASE("exit ends the program: a thread main never joins may still run before main returns", "[exit]") {
  // (The stateful DPOR once left it out: the return's race with the
  // thread's pending read was checked in no state, the read being pending
  // in none after the program ended. `tsocheck check --stateful` said
  // verified on such a C program that the graph explorer found failing.)
  for (bool stateful : {false, true})
    for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
      INFO("stateful " << stateful << " model " << modelName(model));
      CheckResult r = run(unjoinedWriter(), model, true, stateful);
      REQUIRE(r.violation);
      CHECK(r.violation->kind == ErrorKind::Assertion);
    }
}

TEST_CASE("exit ends the program: waiting threads stop, a join on exit() never returns", "[exit]") {
  for (bool stateful : {false, true})
    for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
      INFO("stateful " << stateful << " model " << modelName(model));
      CheckResult held = run(lockLeftHeld(), model, false, stateful);
      REQUIRE(!held.violations.empty());
      CHECK(held.violations[0].kind == ErrorKind::Deadlock);
      CheckResult heldC = run(lockLeftHeld(), model, true, stateful);
      CHECK(heldC.status == Status::Verified);
      CHECK(heldC.violations.empty());
      CHECK(heldC.executions >= 1);

      CheckResult joined = run(exitThenJoin(), model, false, stateful);
      REQUIRE(joined.violation);
      CHECK(joined.violation->kind == ErrorKind::Assertion);
      CheckResult joinedC = run(exitThenJoin(), model, true, stateful);
      CHECK(joinedC.status == Status::Verified);
      CHECK(joinedC.violations.empty());

      CheckResult stack = run(stackAfterReturn(), model, false, stateful);
      REQUIRE(stack.violation);
      CHECK(stack.violation->kind == ErrorKind::Memory);
      CheckResult stackC = run(stackAfterReturn(), model, true, stateful);
      CHECK(stackC.status == Status::Verified);

      for (bool ends : {false, true}) {
        CheckResult f = run(failingWorker(), model, ends, stateful);
        REQUIRE(f.violation);
        CHECK(f.violation->kind == ErrorKind::Assertion);
      }
    }
}

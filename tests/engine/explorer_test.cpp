// Explorer behaviour beyond the litmus counts: locks, deadlocks, memory
// errors, limits, blocked executions and what each status promises.
#include <catch2/catch.hpp>

#include <chrono>
#include <set>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/examples/state_programs.h"
#include "tests/engine/stress_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;

namespace {

CheckResult run(const Program& p, Model m = Model::TSO, int bound = -1, bool stop = true) {
  CheckOptions o;
  o.model = m;
  o.bufferBound = bound;
  o.stopAtFirstError = stop;
  return check(p, o);
}

// N threads each increment a counter `iters` times under a mutex (or not).
Program counter(int threads, int iters, bool locked) {
  ProgramBuilder pb("counter.c");
  auto cnt = pb.global("counter");
  auto mtx = pb.global("m");
  auto& m = pb.function("main");
  auto& w = pb.function("worker", 1);
  for (int i = 0; i < iters; ++i) {
    Reg mr = w.at(5).globalAddr(mtx);
    if (locked) w.lock(mr);
    Reg v = w.at(6).loadGlobal(cnt);
    w.at(6).storeGlobalReg(cnt, w.binImm(BinOp::Add, v, 1));
    if (locked) w.at(7).unlock(mr);
  }
  w.ret();
  std::vector<Reg> hs;
  for (int i = 0; i < threads; ++i) hs.push_back(m.at(10).spawn(w.index()));
  for (Reg h : hs) m.at(11).joinDiscard(h);
  Reg v = m.at(12).loadGlobal(cnt);
  m.at(13).assertTrue(m.cmpImm(CmpOp::Eq, v, Value(threads * iters)), "counter == total");
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

}  // namespace

TEST_CASE("a lost update is found without the mutex and ruled out with it", "[explorer]") {
  for (Model md : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(md));
    CheckResult bad = run(counter(2, 1, false), md);
    REQUIRE(bad.status == Status::Violation);
    REQUIRE(bad.violation->kind == ErrorKind::Assertion);
    REQUIRE(bad.violation->loc.line == 13);

    CheckResult good = run(counter(2, 2, true), md, -1, false);
    REQUIRE(good.status == Status::Verified);
    // Two threads, two critical sections each: the lock order is all that varies.
    REQUIRE(good.executions == 6);
  }
}

TEST_CASE("lock-order inversion is reported as a deadlock with both threads", "[explorer]") {
  ProgramBuilder pb("dl.c");
  auto a = pb.global("a"), b = pb.global("b");
  auto& m = pb.function("main");
  auto& t1 = pb.function("t1", 1);
  auto& t2 = pb.function("t2", 1);
  t1.at(3).lock(t1.globalAddr(a));
  t1.at(4).lock(t1.globalAddr(b));
  t1.at(5).unlock(t1.globalAddr(b));
  t1.unlock(t1.globalAddr(a));
  t1.ret();
  t2.at(8).lock(t2.globalAddr(b));
  t2.at(9).lock(t2.globalAddr(a));
  t2.at(10).unlock(t2.globalAddr(a));
  t2.unlock(t2.globalAddr(b));
  t2.ret();
  Reg h1 = m.at(12).spawn(t1.index());
  Reg h2 = m.spawn(t2.index());
  m.joinDiscard(h1);
  m.joinDiscard(h2);
  m.ret();
  pb.setEntry(m.index());
  Program p = pb.build();
  CheckResult r = run(p);
  REQUIRE(r.status == Status::Violation);
  REQUIRE(r.violation->kind == ErrorKind::Deadlock);
  REQUIRE(r.violation->message.find("T1 waits for mutex") != std::string::npos);
  REQUIRE(r.violation->message.find("T2 waits for mutex") != std::string::npos);
  int blockedSteps = 0;
  for (const TraceStep& s : r.violation->trace) blockedSteps += s.kind == StepKind::Blocked;
  REQUIRE(blockedSteps >= 2);
}

TEST_CASE("memory errors: null, out of bounds, double free, use after free", "[explorer]") {
  SECTION("null dereference") {
    ProgramBuilder pb("null.c");
    auto& m = pb.function("main");
    m.at(4, 7).load(m.constant(0));
    m.ret();
    CheckResult r = run(pb.build());
    REQUIRE(r.status == Status::Violation);
    REQUIRE(r.violation->kind == ErrorKind::Memory);
    REQUIRE(r.violation->message.find("null") != std::string::npos);
    REQUIRE(r.violation->loc.line == 4);
    REQUIRE(r.violation->loc.column == 7);
  }
  SECTION("heap overrun") {
    ProgramBuilder pb("oob.c");
    auto& m = pb.function("main");
    Reg p = m.malloc(m.constant(8));
    m.at(5).store(m.binImm(BinOp::Add, p, 8), m.constant(1), 4);
    m.ret();
    CheckResult r = run(pb.build());
    REQUIRE(r.status == Status::Violation);
    REQUIRE(r.violation->message.find("out-of-bounds") != std::string::npos);
  }
  SECTION("global overrun") {
    ProgramBuilder pb("oobg.c");
    auto arr = pb.global("arr", 8, 0, 4);
    auto& m = pb.function("main");
    m.at(6).storeGlobal(arr, 1, 4, 8);
    m.ret();
    CheckResult r = run(pb.build());
    REQUIRE(r.status == Status::Violation);
    REQUIRE(r.violation->message.find("`arr`") != std::string::npos);
  }
  SECTION("double free") {
    ProgramBuilder pb("df.c");
    auto& m = pb.function("main");
    Reg p = m.malloc(m.constant(8));
    m.at(3).free(p);
    m.at(4).free(p);
    m.ret();
    CheckResult r = run(pb.build());
    REQUIRE(r.status == Status::Violation);
    REQUIRE(r.violation->message.find("double free") != std::string::npos);
    REQUIRE(r.violation->loc.line == 4);
  }
  SECTION("use after free only when a thread can access after the free") {
    // main publishes a block; T1 reads the pointer and writes through it;
    // main frees the block after joining (safe) or without joining (racy).
    for (bool joinFirst : {true, false}) {
      ProgramBuilder pb("uaf.c");
      auto ptr = pb.global("ptr", 8);
      auto& m = pb.function("main");
      auto& t = pb.function("t", 1);
      Reg q = t.at(3).loadGlobal(ptr, 8);
      Reg nz = t.cmpImm(CmpOp::Ne, q, 0);
      Label doit = t.newLabel(), done = t.newLabel();
      t.br(nz, doit, done);
      t.bind(doit);
      t.at(4).store(q, t.constant(7), 4);
      t.bind(done);
      t.ret();
      Reg p = m.at(8).malloc(m.constant(16));
      m.at(9).storeGlobalReg(ptr, p, 8);
      Reg h = m.at(10).spawn(t.index());
      if (joinFirst) m.at(11).joinDiscard(h);
      m.at(12).free(p);
      if (!joinFirst) m.at(13).joinDiscard(h);
      m.ret();
      pb.setEntry(m.index());
      CheckResult r = run(pb.build(), Model::SC);
      CAPTURE(joinFirst);
      if (joinFirst) {
        REQUIRE(r.status == Status::Verified);
      } else {
        REQUIRE(r.status == Status::Violation);
        REQUIRE(r.violation->message.find("use after free") != std::string::npos);
      }
    }
  }
}

TEST_CASE("a runaway loop is reported as a bound, never as verified", "[explorer]") {
  ProgramBuilder pb("loop.c");
  auto flag = pb.global("flag");
  auto& m = pb.function("main");
  Label top = m.newLabel();
  m.bind(top);
  m.at(3).loadGlobal(flag);
  m.jmp(top);
  pb.setEntry(m.index());
  CheckOptions o;
  o.limits.maxSteps = 500;
  CheckResult r = check(pb.build(), o);
  REQUIRE(r.status == Status::Bounded);
  REQUIRE(r.cut >= 1);
  REQUIRE(r.executions == 0);
  REQUIRE_FALSE(r.limitsHit.empty());
  REQUIRE(r.limitsHit[0].find("loop.c:3") != std::string::npos);
}

TEST_CASE("zero complete executions are never verified", "[explorer]") {
  ProgramBuilder pb("assume.c");
  auto& m = pb.function("main");
  m.at(2).assume(m.constant(0));
  m.ret();
  CheckResult r = run(pb.build());
  REQUIRE(r.executions == 0);
  REQUIRE(r.blocked == 1);
  REQUIRE(r.status == Status::Bounded);
}

TEST_CASE("a spin-wait on a flag nobody sets is a hang, one that is set is fine", "[explorer]") {
  for (bool setter : {true, false}) {
    ProgramBuilder pb("spin.c");
    auto flag = pb.global("flag");
    auto& m = pb.function("main");
    auto& t = pb.function("t", 1);
    if (setter) t.at(3).storeGlobal(flag, 1);
    t.ret();
    Reg h = m.at(6).spawn(t.index());
    Reg v = m.at(7).loadGlobal(flag);
    m.assume(m.cmpImm(CmpOp::Eq, v, 1), true);
    m.at(8).joinDiscard(h);
    m.ret();
    pb.setEntry(m.index());
    CheckResult r = run(pb.build(), Model::TSO, -1, false);
    CAPTURE(setter);
    if (setter) {
      REQUIRE(r.status == Status::Verified);
      REQUIRE(r.executions == 1);
      // main's read of 0, made stale by the store of the only thread that can
      // still move, is not explored on (explorer.h freezesSpin).
      REQUIRE(r.blocked == 0);
      REQUIRE(r.staleWaits == 1);
    } else {
      REQUIRE(r.status == Status::Violation);
      REQUIRE(r.violation->kind == ErrorKind::NonTermination);  // a spin is not a deadlock
      REQUIRE(r.violation->message.find("spins forever") != std::string::npos);
    }
  }
}

TEST_CASE("mixed-size accesses are rejected with a located message", "[explorer]") {
  ProgramBuilder pb("mixed.c");
  auto x = pb.global("x", 8);
  auto& m = pb.function("main");
  m.at(2).storeGlobal(x, 1, 8);
  m.at(3, 5).loadGlobal(x, 4);
  m.ret();
  CheckResult r = run(pb.build());
  REQUIRE(r.status == Status::Error);
  REQUIRE(r.message.find("mixed.c:3:5") != std::string::npos);
}

TEST_CASE("a buffer bound under TSO gives a bounded result, never verified", "[explorer]") {
  ProgramBuilder pb("one.c");
  auto x = pb.global("x");
  auto& m = pb.function("main");
  m.at(2).storeGlobal(x, 1);
  m.ret();
  Program p = pb.build();
  REQUIRE(run(p, Model::TSO, 1).status == Status::Bounded);
  REQUIRE(run(p, Model::SC, 0).status == Status::Verified);
  REQUIRE(run(p, Model::TSO).status == Status::Verified);
}

TEST_CASE("store forwarding: a thread reads its own buffered store", "[explorer]") {
  // T1: x = 1; r = x; (r is always 1) — and the trace says where r came from.
  ProgramBuilder pb("fwd.c");
  auto x = pb.global("x");
  auto& m = pb.function("main");
  m.at(2).storeGlobal(x, 1);
  Reg r = m.at(3).loadGlobal(x);
  m.at(4).assertTrue(m.cmpImm(CmpOp::Eq, r, 2), "x == 2");
  m.ret();
  CheckResult res = run(pb.build(), Model::TSO);
  REQUIRE(res.status == Status::Violation);
  bool sawBufferLoad = false;
  for (const TraceStep& s : res.violation->trace)
    if (s.kind == StepKind::LoadBuf) {
      sawBufferLoad = true;
      REQUIRE(s.value == 1);
      REQUIRE(s.buffers[0].size() == 1);
    }
  REQUIRE(sawBufferLoad);
}

TEST_CASE("the time limit stops a large exploration with status timeout", "[explorer]") {
  CheckOptions o;
  o.timeLimitSeconds = 0.05;
  CheckResult r = check(counter(4, 4, true), o);
  REQUIRE(r.status == Status::Timeout);
}

namespace {
// main spawns `runaway` (an endless loop of `body`) and then `bad`, which fails
// an assertion: the runaway thread is leftmost and never blocks.
enum class Runaway { Increment, Spawn, Private };
Program starvation(Runaway kind) {
  ProgramBuilder pb("starve.c");
  auto x = pb.global("x");
  auto& m = pb.function("main");
  auto& nop = pb.function("nop", 1);
  nop.ret();
  auto& r = pb.function("runaway", 1);
  auto& bad = pb.function("bad", 1);
  Label top = r.newLabel();
  Reg acc = r.constant(0);
  r.bind(top);
  switch (kind) {
    case Runaway::Increment: {
      Reg v = r.at(5).loadGlobal(x);
      r.at(5).storeGlobalReg(x, r.binImm(BinOp::Add, v, 1));
      break;
    }
    case Runaway::Spawn: r.at(5).spawn(nop.index()); break;
    case Runaway::Private: r.at(5).mov(acc, r.binImm(BinOp::Add, acc, 1)); break;
  }
  r.jmp(top);
  bad.at(8).fail("assertion `0` failed");
  bad.ret();
  Reg a = m.at(10).spawn(r.index());
  Reg b = m.at(11).spawn(bad.index());
  m.at(12).joinDiscard(a);
  m.at(13).joinDiscard(b);
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}
}  // namespace

TEST_CASE("a thread cut by a limit does not starve the others", "[explorer][limits]") {
  // The leftmost thread loops forever without blocking; once the
  // per-thread event limit (or the step limit) cuts it, the other threads go
  // on and the assertion in `bad` is found.
  for (Runaway kind : {Runaway::Increment, Runaway::Spawn, Runaway::Private}) {
    for (Model md : {Model::SC, Model::TSO, Model::PSO})
    for (bool stateful : {false, true}) {
      CAPTURE(int(kind), modelName(md), stateful);
      CheckOptions o;
      o.model = md;
      o.stateful = stateful;  // the state-space search interleaves every thread anyway
      o.limits.maxEvents = 60;
      o.limits.maxSteps = 2000;
      o.timeLimitSeconds = 20;
      CheckResult r = check(starvation(kind), o);
      REQUIRE(r.status == Status::Violation);
      REQUIRE(r.violation->kind == ErrorKind::Assertion);
      CHECK(r.violation->loc.line == 8);
    }
  }
}

TEST_CASE("a cut thread stays cut and the execution ends as cut", "[explorer][limits]") {
  // runaway x++ beside a thread that reads x once: the reader's executions all
  // end with the runaway thread cut (bounded, never verified), and there are
  // finitely many of them.
  ProgramBuilder pb("cut.c");
  auto x = pb.global("x");
  auto& m = pb.function("main");
  auto& r = pb.function("runaway", 1);
  auto& rd = pb.function("reader", 1);
  Label top = r.newLabel();
  r.bind(top);
  Reg v = r.at(5).loadGlobal(x);
  r.at(5).storeGlobalReg(x, r.binImm(BinOp::Add, v, 1));
  r.jmp(top);
  rd.at(8).loadGlobal(x);
  rd.ret();
  Reg a = m.at(10).spawn(r.index());
  Reg b = m.at(11).spawn(rd.index());
  m.at(12).joinDiscard(b);
  m.at(13).joinDiscard(a);
  m.ret();
  pb.setEntry(m.index());
  CheckOptions o;
  o.limits.maxEvents = 40;
  o.timeLimitSeconds = 20;
  CheckResult res = check(pb.build(), o);
  REQUIRE(res.status == Status::Bounded);
  CHECK(res.executions == 0);
  // The reader reads the initial value or one of the runaway thread's 20 stores.
  CHECK(res.cut == 21);
  REQUIRE_FALSE(res.limitsHit.empty());
  CHECK(res.limitsHit[0].find("event limit (40 events per thread) reached in T1") == 0);
}

TEST_CASE("threads spawning threads without end hit the per-execution event limit", "[explorer][limits]") {
  // Every thread spawns one more and exits: a chain no per-thread limit ends.
  ProgramBuilder pb("chain.c");
  auto& m = pb.function("main");
  auto& c = pb.function("child", 1);
  c.at(4).spawn(c.index());
  c.ret();
  m.at(7).spawn(c.index());
  m.ret();
  pb.setEntry(m.index());
  CheckOptions o;
  o.limits.maxExecutionEvents = 300;
  o.timeLimitSeconds = 20;
  CheckResult r = check(pb.build(), o);
  REQUIRE(r.status == Status::Bounded);
  CHECK(r.cut == 1);
  REQUIRE_FALSE(r.limitsHit.empty());
  CHECK(r.limitsHit[0].find("event limit (300 events per execution)") == 0);
}

TEST_CASE("the time limit holds inside one long execution", "[explorer][limits]") {
  // One thread runs a private loop of 10^10 steps between two visible
  // actions: the interpreter polls the deadline, so the run ends on time.
  ProgramBuilder pb("long.c");
  auto x = pb.global("x");
  auto& m = pb.function("main");
  Label top = m.newLabel();
  Reg i = m.constant(0);
  m.bind(top);
  m.at(3).mov(i, m.binImm(BinOp::Add, i, 1));
  Label done = m.newLabel();
  m.at(3).br(m.cmpImm(CmpOp::Ult, i, 10000000000LL), top, done);
  m.bind(done);
  m.at(4).storeGlobal(x, 1);
  m.ret();
  pb.setEntry(m.index());
  const Program prog = pb.build();
  for (bool stateful : {false, true}) {
    CAPTURE(stateful);
    CheckOptions o;
    o.limits.maxSteps = uint64_t(1) << 40;
    o.timeLimitSeconds = 0.3;
    o.stateful = stateful;
    auto t0 = std::chrono::steady_clock::now();
    CheckResult r = check(prog, o);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(r.status == Status::Timeout);
    CHECK(s < 3.0);  // 0.3 s and a margin for a loaded machine
    CHECK(r.limitsHit.empty());
  }
}

namespace {

// Dekker's entry without the back-off (tests/cli/inputs/hang_or_cs.c): a
// thread that sees the other's flag waits for `go`, which nobody sets (a spin,
// or with `viaMutex` a second lock of a mutex it holds). Under SC one of them
// always sees the other's flag: every execution hangs. Under TSO both may read
// 0 and enter the critical section together: T1's assertion fails.
Program hangOrCriticalSection(bool viaMutex) {
  ProgramBuilder pb("hang_or_cs.c");
  auto x = pb.global("x"), y = pb.global("y"), go = pb.global("go"), in1 = pb.global("in1"),
       in2 = pb.global("in2"), mtx = pb.global("m");
  auto& m = pb.function("main");
  auto& t1 = pb.function("t1", 1);
  auto& t2 = pb.function("t2", 1);
  auto body = [&](FunctionBuilder& t, uint32_t mine, uint32_t other, uint32_t inMine, uint32_t inOther,
                  uint32_t line, bool asserts) {
    t.at(line).storeGlobal(mine, 1);
    Reg seen = t.at(line + 1).loadGlobal(other);
    Label wait = t.newLabel(), enter = t.newLabel();
    t.br(seen, wait, enter);
    t.bind(wait);
    if (viaMutex) {
      t.at(line + 2).lock(t.globalAddr(mtx));
      t.at(line + 3).lock(t.globalAddr(mtx));
    } else {
      Reg g = t.at(line + 2).loadGlobal(go);
      t.assume(t.cmpImm(CmpOp::Ne, g, 0), true);
    }
    t.jmp(enter);
    t.bind(enter);
    t.at(line + 4).storeGlobal(inMine, 1);
    if (asserts) {
      Reg o = t.at(line + 5).loadGlobal(inOther);
      t.assertTrue(t.cmpImm(CmpOp::Eq, o, 0), "!in2");
    }
    t.ret();
  };
  body(t1, x, y, in1, in2, 10, true);
  body(t2, y, x, in2, in1, 20, false);
  Reg h1 = m.at(30).spawn(t1.index());
  Reg h2 = m.at(31).spawn(t2.index());
  m.at(32).joinDiscard(h1);
  m.at(33).joinDiscard(h2);
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

}  // namespace

TEST_CASE("assertion, deadlock and non-termination are distinct kinds", "[explorer][kinds]") {
  for (bool stateful : {false, true}) {
    for (bool viaMutex : {false, true}) {
      CAPTURE(stateful, viaMutex);
      CheckOptions o;
      o.model = Model::SC;
      o.stateful = stateful;
      CheckResult r = check(hangOrCriticalSection(viaMutex), o);
      REQUIRE(r.status == Status::Violation);
      const ErrorKind want = viaMutex ? ErrorKind::Deadlock : ErrorKind::NonTermination;
      REQUIRE(r.violation->kind == want);
      REQUIRE(r.violations.size() == 1);
      CHECK(r.violations[0].kind == want);
      CHECK(r.violation->message.rfind("deadlock", 0) == std::string::npos);  // no "deadlock: " prefix
      if (viaMutex) {
        CHECK(r.violation->message.find("waits for mutex m") != std::string::npos);
      } else {
        CHECK(r.violation->message.find("spins forever at hang_or_cs.c:") != std::string::npos);
        // It points at the spinning thread, not at main's join.
        CHECK((r.violation->loc.line == 12 || r.violation->loc.line == 22));
      }
    }
  }
  CHECK(std::string(errorKindName(ErrorKind::NonTermination)) == "nontermination");
  CHECK(severity(ErrorKind::Assertion) < severity(ErrorKind::Deadlock));
  CHECK(severity(ErrorKind::Deadlock) < severity(ErrorKind::NonTermination));
}

TEST_CASE("a wait on a condition variable nobody signals is a deadlock, a spin is not", "[explorer][kinds]") {
  for (bool condWait : {false, true}) {
    ProgramBuilder pb("cond.c");
    auto flag = pb.global("flag");
    auto& m = pb.function("main");
    Reg v = m.at(5).loadGlobal(flag);
    m.assume(m.cmpImm(CmpOp::Ne, v, 0), true, condWait);
    m.ret();
    Program p = pb.build();
    for (bool stateful : {false, true}) {
      CAPTURE(condWait, stateful);
      CheckOptions o;
      o.stateful = stateful;
      CheckResult r = check(p, o);
      REQUIRE(r.status == Status::Violation);
      CHECK(r.violation->kind == (condWait ? ErrorKind::Deadlock : ErrorKind::NonTermination));
      CHECK(r.violation->message.find(condWait ? "condition variable" : "spins forever") != std::string::npos);
    }
  }
}

TEST_CASE("a deadlock does not hide an assertion failure found later", "[explorer][kinds]") {
  for (bool viaMutex : {false, true}) {
    for (Model md : {Model::TSO, Model::PSO}) {
      for (bool stateful : {false, true}) {
        CAPTURE(viaMutex, modelName(md), stateful);
        CheckOptions o;
        o.model = md;
        o.stateful = stateful;
        Program p = hangOrCriticalSection(viaMutex);
        // The graph explorer meets a hang before the assertion failure (it
        // used to stop there and report only the hang); the breadth-first
        // state search may meet the failure first.
        CheckResult r = check(p, o);
        REQUIRE(r.status == Status::Violation);
        REQUIRE(r.violation->kind == ErrorKind::Assertion);
        REQUIRE(r.violation->message.find("!in2") != std::string::npos);
        if (stateful) continue;
        REQUIRE(r.violations.size() == 2);
        CHECK(r.violations[0].kind == ErrorKind::Assertion);
        CHECK(r.violations[1].kind == (viaMutex ? ErrorKind::Deadlock : ErrorKind::NonTermination));
        CHECK(!r.violations[1].trace.empty());
        CHECK(r.executions >= 1);  // the hanging executions before the failure
      }
    }
  }
}

TEST_CASE("deadlocks=warning and deadlocks=ignore", "[explorer][kinds]") {
  for (bool stateful : {false, true}) {
    for (bool viaMutex : {false, true}) {
      CAPTURE(stateful, viaMutex);
      Program p = hangOrCriticalSection(viaMutex);
      CheckOptions o;
      o.model = Model::SC;  // every execution hangs, nothing else fails
      o.stateful = stateful;
      o.deadlocks = DeadlockMode::Warning;
      CheckResult w = check(p, o);
      CHECK(w.status == Status::Verified);
      CHECK(!w.violation);
      REQUIRE(w.violations.size() == 1);
      CHECK(w.violations[0].warning);
      CHECK(w.message.find("warnings: ") != std::string::npos);
      o.deadlocks = DeadlockMode::Ignore;
      CheckResult i = check(p, o);
      CHECK(i.status == Status::Verified);
      CHECK(i.violations.empty());
      CHECK(i.executions > 0);
      // Under TSO the assertion failure stays an error either way.
      o.model = Model::TSO;
      for (DeadlockMode dm : {DeadlockMode::Warning, DeadlockMode::Ignore}) {
        o.deadlocks = dm;
        CheckResult t = check(p, o);
        REQUIRE(t.status == Status::Violation);
        CHECK(t.violation->kind == ErrorKind::Assertion);
        CHECK(t.violations.size() == (dm == DeadlockMode::Warning ? 2u : 1u));
      }
    }
  }
}

TEST_CASE("a spin on an exchange whose lock is never released does not terminate", "[explorer][kinds]") {
  // holder: xchg(l, 1). spinner: while (xchg(l, 1)) — its idle iteration
  // writes back the 1 it read. When the holder goes first the spinner never
  // gets out; its own write after the read is not another thread's progress
  // (this used to be taken for a stale read: "verified").
  ProgramBuilder pb("tas.c");
  auto l = pb.global("l");
  auto& m = pb.function("main");
  auto& holder = pb.function("holder", 1);
  auto& spinner = pb.function("spinner", 1);
  holder.at(3).rmwGlobal(RmwOp::Xchg, l, 1);
  holder.ret();
  Reg r = spinner.at(6).rmwGlobal(RmwOp::Xchg, l, 1);
  spinner.assume(spinner.cmpImm(CmpOp::Eq, r, 0), true);
  spinner.ret();
  Reg h1 = m.at(9).spawn(holder.index());
  Reg h2 = m.at(10).spawn(spinner.index());
  m.at(11).joinDiscard(h1);
  m.at(12).joinDiscard(h2);
  m.ret();
  pb.setEntry(m.index());
  Program p = pb.build();
  for (Model md : {Model::SC, Model::TSO}) {
    for (bool stateful : {false, true}) {
      CAPTURE(modelName(md), stateful);
      CheckOptions o;
      o.model = md;
      o.stateful = stateful;
      CheckResult c = check(p, o);
      REQUIRE(c.status == Status::Violation);
      CHECK(c.violation->kind == ErrorKind::NonTermination);
      CHECK(c.violation->loc.line == 6);
    }
  }
}

TEST_CASE("a lock waits while its mutex is held: the same executions, no blocked ones from one lock per thread",
          "[explorer]") {
  // N threads, one critical section each: N! lock orders. With threads run
  // in id order, a lock added while the mutex is held ends blocked on the
  // branch where the unlock does not revisit it; with the waiting order
  // (CheckOptions::Testing::unblockLocks) such a lock is not added before the mutex
  // is free.
  for (Model md : {Model::SC, Model::TSO, Model::PSO})
    for (int n = 2; n <= 4; ++n) {
      CAPTURE(modelName(md), n);
      CheckOptions o;
      o.model = md;
      o.stopAtFirstError = false;
      o.testing.unblockLocks = false;
      CheckResult idOrder = check(counter(n, 1, true), o);
      o.testing.unblockLocks = true;
      CheckResult waiting = check(counter(n, 1, true), o);
      uint64_t orders = 1;
      for (int i = 2; i <= n; ++i) orders *= uint64_t(i);
      REQUIRE(idOrder.status == Status::Verified);
      REQUIRE(waiting.status == Status::Verified);
      CHECK(idOrder.executions == orders);
      CHECK(waiting.executions == orders);
      CHECK(idOrder.blocked > 0);
      CHECK(waiting.blocked == 0);
    }
}

TEST_CASE("the waiting order for locks explores the same executions as the id order", "[explorer]") {
  // Which thread runs next is the explorer's free choice: the mutex stress
  // programs (trylocks, several critical sections, up to 4 threads) give the
  // same trace keys, counts and verdicts either way, and never more blocked
  // executions with the waiting order.
  int compared = 0;
  uint64_t waitingBlocked = 0, idBlocked = 0;
  for (Model md : {Model::SC, Model::TSO, Model::PSO})
    for (uint64_t seed = 1; seed <= 25; ++seed) {
      StressProgram sp = stressProgram(seed, StressFamily::Mutex);
      Program p = buildStress(sp);
      CAPTURE(modelName(md), seed, stressToC(sp));
      std::set<std::string> keys[2];
      CheckResult r[2];
      for (int w = 0; w < 2; ++w) {
        CheckOptions o;
        o.model = md;
        o.stopAtFirstError = false;
        o.testing.unblockLocks = w == 1;
        o.onExecution = [&keys, w](const ExecutionInfo& info) {
          if (!info.blocked) keys[w].insert(info.traceKey);
        };
        r[w] = check(p, o);
      }
      CHECK(r[0].status == r[1].status);
      // (An execution that fails ends where it fails: which executions are
      // cut that way depends on the order threads run in.)
      if (r[0].violation) continue;
      ++compared;
      CHECK(r[0].executions == r[1].executions);
      CHECK(keys[0] == keys[1]);
      CHECK(r[1].blocked <= r[0].blocked);
      waitingBlocked += r[1].blocked;
      idBlocked += r[0].blocked;
    }
  CHECK(compared >= 30);
  CHECK(idBlocked > 0);
  CHECK(waitingBlocked == 0);
}

namespace {

// A test-and-test-and-set lock: `while (lock) ;` (a spin-await: load +
// assume), then `xchg(&lock, 1)` (assume it returned 0), a counter
// increment, a store-store fence and the unlock; `threads` workers, main joins them when `join`
// (else it returns at once: under exitEndsProgram the program ends while
// they run) and asserts the total when `check`.
Program ttasCounter(int threads, bool join, bool check) {
  ProgramBuilder pb("ttas.c");
  auto lk = pb.global("lock"), cnt = pb.global("counter");
  auto& w = pb.function("worker", 1);
  Reg l = w.at(3).loadGlobal(lk);
  w.at(3).assume(w.cmpImm(CmpOp::Eq, l, 0), true);
  Reg old = w.at(4).rmwGlobal(RmwOp::Xchg, lk, 1);
  w.at(4).assume(w.cmpImm(CmpOp::Eq, old, 0), true);
  Reg c = w.at(5).loadGlobal(cnt);
  w.at(5).storeGlobalReg(cnt, w.binImm(BinOp::Add, c, 1));
  w.at(6).fence(FenceKind::StoreStore);  // (PSO: the counter before the unlock)
  w.at(6).storeGlobal(lk, 0);
  w.ret();
  auto& m = pb.function("main");
  std::vector<Reg> hs;
  for (int i = 0; i < threads; ++i) hs.push_back(m.at(10).spawn(w.index()));
  if (join)
    for (Reg h : hs) m.at(11).joinDiscard(h);
  if (check) m.at(12).assertTrue(m.cmpImm(CmpOp::Eq, m.loadGlobal(cnt), Value(threads)), "counter == threads");
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

struct StaleRun {
  CheckResult r;
  std::set<std::string> keys;  // complete executions
};

StaleRun runStale(const Program& p, Model md, bool prune, bool exitEnds = false, int preemptionBound = -1) {
  StaleRun out;
  CheckOptions o;
  o.model = md;
  o.preemptionBound = preemptionBound;
  o.stopAtFirstError = false;
  o.exitEndsProgram = exitEnds;
  o.testing.pruneStaleWaits = prune;
  o.onExecution = [&out](const ExecutionInfo& info) {
    if (!info.blocked) out.keys.insert(info.traceKey);
  };
  out.r = check(p, o);
  return out;
}

}  // namespace

TEST_CASE("a spin that read a stale value ends its graph: the same executions, fewer blocked ones", "[explorer]") {
  // A waiter whose idle iteration read a write that another thread's write
  // follows can never go on in any graph explored from there
  // (CheckOptions::Testing::pruneStaleWaits): the TTAS lock keeps its executions and
  // verdict and loses most of its blocked ones.
  for (Model md : {Model::SC, Model::TSO, Model::PSO})
    for (int n = 2; n <= 4; ++n) {
      CAPTURE(modelName(md), n);
      const Program p = ttasCounter(n, true, true);
      const StaleRun full = runStale(p, md, false), pruned = runStale(p, md, true);
      REQUIRE(full.r.status == Status::Verified);
      REQUIRE(pruned.r.status == Status::Verified);
      CHECK(pruned.r.executions == full.r.executions);
      CHECK(pruned.keys == full.keys);
      CHECK(full.r.staleWaits + full.r.staleReads == 0);
      CHECK(pruned.r.staleWaits + pruned.r.staleReads > 0);
      CHECK(pruned.r.staleReads > 0);  // (stale values that stop the waiter at once are not given)
      CHECK(pruned.r.blocked < full.r.blocked);
      // Under a preemption bound: the same executions within it (and slack).
      for (int bound : {0, 1}) {
        CAPTURE(bound);
        const StaleRun fullB = runStale(p, md, false, false, bound), prunedB = runStale(p, md, true, false, bound);
        CHECK(prunedB.r.status == fullB.r.status);
        CHECK(prunedB.r.executions == fullB.r.executions);
        CHECK(prunedB.keys == fullB.keys);
        CHECK(prunedB.r.blocked <= fullB.r.blocked);
      }
    }
}

TEST_CASE("a stale read before the last one of an idle iteration does not end the graph", "[explorer]") {
  // w1: x = 1; x = 2.   rd: do { rx = x; ry = y; } while (rx == 0 && ry == 0);
  //                         assert(!(rx == 0 && ry == 1));   w2: y = 1.
  // w1 runs first, so rd's read of x = 0 is stale when it is added; its
  // read of y = 0 is the newest, and the thread stops on its await. w2's
  // y = 1 added later revisits that read: the re-run leaves the loop with
  // x = 0, y = 1 and fails — a graph only this one leads to. Only a stale
  // *last* read of the iteration fixes the iteration (explorer.h, stale
  // waits): this one must be explored to the violation.
  ProgramBuilder pb("stale_first.c");
  auto x = pb.global("x"), y = pb.global("y");
  auto& w1 = pb.function("w1", 1);
  w1.at(2).storeGlobal(x, 1);
  w1.at(2).storeGlobal(x, 2);
  w1.ret();
  auto& rd = pb.function("rd", 1);
  Reg saved = rd.at(3).readCountBegin();
  Reg rx = rd.at(3).loadGlobal(x);
  Reg ry = rd.at(3).loadGlobal(y);
  Reg reads = rd.at(3).readCountEnd(saved);
  rd.at(3).assume(rd.bin(BinOp::Or, rd.cmpImm(CmpOp::Ne, rx, 0), rd.cmpImm(CmpOp::Ne, ry, 0)), true, false, reads);
  rd.at(4).assertTrue(rd.bin(BinOp::Or, rd.cmpImm(CmpOp::Ne, rx, 0), rd.cmpImm(CmpOp::Ne, ry, 1)), "not (x == 0 && y == 1)");
  rd.ret();
  auto& w2 = pb.function("w2", 1);
  w2.at(5).storeGlobal(y, 1);
  w2.ret();
  auto& m = pb.function("main");
  std::vector<Reg> hs = {m.at(6).spawn(w1.index()), m.at(6).spawn(rd.index()), m.at(6).spawn(w2.index())};
  for (Reg h : hs) m.at(7).joinDiscard(h);
  m.ret();
  pb.setEntry(m.index());
  const Program p = pb.build();
  for (Model md : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(md));
    const StaleRun full = runStale(p, md, false), pruned = runStale(p, md, true);
    REQUIRE(full.r.status == Status::Violation);
    CHECK(pruned.r.status == Status::Violation);
    CHECK(pruned.r.executions == full.r.executions);
    CHECK(pruned.keys == full.keys);
  }
}

namespace {
// rd: while (x == 0) ;   then one writer thread per value in `writes`
// (spawned in that order after rd), each storing its value to x.
Program spinAndWriters(const std::vector<Value>& writes) {
  ProgramBuilder pb("frozen.c");
  auto x = pb.global("x");
  auto& rd = pb.function("rd", 1);
  Reg v = rd.at(2).loadGlobal(x);
  rd.at(2).assume(rd.cmpImm(CmpOp::Ne, v, 0), true);
  rd.ret();
  std::vector<uint32_t> writers;
  for (Value w : writes) {
    auto& f = pb.function("w" + std::to_string(w), 1);
    f.at(3).storeGlobal(x, w);
    f.ret();
    writers.push_back(f.index());
  }
  auto& m = pb.function("main");
  std::vector<Reg> hs = {m.at(4).spawn(rd.index())};
  for (uint32_t f : writers) hs.push_back(m.at(4).spawn(f));
  for (Reg h : hs) m.at(5).joinDiscard(h);
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

// With stale waits pruned (and spins frozen), the same complete executions
// and status as with every graph explored to its end, under each model;
// never more blocked ones. The unpruned runs' executions, per model.
std::vector<uint64_t> sameAsUnpruned(const Program& p) {
  std::vector<uint64_t> executions;
  for (Model md : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(md));
    const StaleRun full = runStale(p, md, false), pruned = runStale(p, md, true);
    CHECK(pruned.r.status == full.r.status);
    CHECK(pruned.r.executions == full.r.executions);
    CHECK(pruned.keys == full.keys);
    CHECK(pruned.r.blocked <= full.r.blocked);
    executions.push_back(full.r.executions);
  }
  return executions;
}
}  // namespace

TEST_CASE("a spin made stale after it stopped is left when only the writer can still move", "[explorer]") {
  // rd reads x = 0 and stops; w1's x = 1 then follows what it read. w1 is
  // the only thread that can still move (main waits to join rd), so every
  // later event sees x = 1 and no write can revisit rd's read again: the
  // graph in which rd keeps 0 can only end blocked, and it is left
  // (explorer.h freezesSpin). The graph where x = 1 revisits it stays.
  for (Model md : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(md));
    const Program p = spinAndWriters({1});
    const StaleRun full = runStale(p, md, false), pruned = runStale(p, md, true);
    REQUIRE(full.r.status == Status::Verified);
    REQUIRE(full.r.executions == 1);
    REQUIRE(full.r.blocked == 1);
    CHECK(pruned.r.status == Status::Verified);
    CHECK(pruned.r.executions == 1);
    CHECK(pruned.keys == full.keys);
    CHECK(pruned.r.blocked == 0);
    CHECK(pruned.r.staleWaits == 1);
  }
  // w1 stores 1, then w2 (not yet run, so not seeing w1's store) stores 2:
  // the graph in which rd keeps 0 after w1's store is where w2's store
  // revisits rd's read, so it is not left. rd reads 1 or 2, x = 1 before
  // or after x = 2: four executions.
  CHECK(sameAsUnpruned(spinAndWriters({1, 2})) == std::vector<uint64_t>{4, 4, 4});
  // Three writers: still every execution.
  sameAsUnpruned(spinAndWriters({1, 2, 3}));
  // Other threads moved after rd stopped (xr reads q, vw reads y and stores
  // x): when tw's q = 1 later revisits xr's read, vw's events go and vw
  // runs again, storing x without seeing tw's x = 1, which may revisit
  // rd's read. So tw's x = 1 does not end the graph where rd keeps 0.
  ProgramBuilder pb("frozen2.c");
  auto x = pb.global("x"), q = pb.global("q"), y = pb.global("y");
  auto& rd = pb.function("rd", 1);
  Reg v = rd.at(2).loadGlobal(x);
  rd.at(2).assume(rd.cmpImm(CmpOp::Ne, v, 0), true);
  rd.ret();
  auto& xr = pb.function("xr", 1);
  xr.at(3).loadGlobal(q);
  xr.ret();
  auto& vw = pb.function("vw", 1);
  Reg ry = vw.at(4).loadGlobal(y);
  vw.at(4).storeGlobalReg(x, vw.bin(BinOp::Add, vw.cmpImm(CmpOp::Eq, ry, 0), vw.cmpImm(CmpOp::Eq, ry, 0)));
  vw.ret();
  auto& tw = pb.function("tw", 1);
  tw.at(5).storeGlobal(x, 1);
  tw.at(5).storeGlobal(q, 1);
  tw.at(5).storeGlobal(y, 1);
  tw.ret();
  auto& m = pb.function("main");
  std::vector<Reg> hs = {m.at(6).spawn(rd.index()), m.at(6).spawn(xr.index()), m.at(6).spawn(vw.index()),
                         m.at(6).spawn(tw.index())};
  for (Reg h : hs) m.at(7).joinDiscard(h);
  m.ret();
  pb.setEntry(m.index());
  sameAsUnpruned(pb.build());
}

TEST_CASE("the loads an await may follow with nothing visible in between", "[explorer]") {
  // The explorer asks about stale values only at such loads (staleReadStops):
  // the TTAS worker's `while (lock)` load, not its counter load (a store
  // follows) nor main's (an assertion and the return follow).
  const Program p = ttasCounter(2, true, true);
  const auto marks = loadsBeforeAwaits(p);
  REQUIRE(marks.size() == p.functions.size());
  std::vector<std::pair<std::string, uint8_t>> loads;
  for (size_t f = 0; f < p.functions.size(); ++f)
    for (size_t i = 0; i < p.functions[f].code.size(); ++i)
      if (p.functions[f].code[i].op == Op::Load) loads.push_back({p.functions[f].name, marks[f][i]});
  const std::vector<std::pair<std::string, uint8_t>> want = {{"worker", 1}, {"worker", 0}, {"main", 0}};
  CHECK(loads == want);
}

TEST_CASE("stale waits: the program's end, a violation elsewhere and the await stress programs", "[explorer]") {
  for (Model md : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(md));
    // main returns while the workers spin (the C program ends there): a
    // waiter on a stale value still makes its execution blocked, never a
    // complete one, so the complete executions are the same.
    {
      const Program p = ttasCounter(3, false, false);
      const StaleRun full = runStale(p, md, false, true), pruned = runStale(p, md, true, true);
      CHECK(pruned.r.status == full.r.status);
      CHECK(pruned.r.executions == full.r.executions);
      CHECK(pruned.keys == full.keys);
      CHECK(pruned.r.blocked <= full.r.blocked);
    }
    // The lock without its joins: main's assertion fails in some executions
    // while workers spin; found either way.
    {
      const Program p = ttasCounter(3, false, true);
      const StaleRun full = runStale(p, md, false, true), pruned = runStale(p, md, true, true);
      REQUIRE(full.r.status == Status::Violation);
      CHECK(pruned.r.status == Status::Violation);
      CHECK(pruned.r.executions == full.r.executions);
      CHECK(pruned.keys == full.keys);
    }
    // Random spin-waits on flags (the differential soak's await family).
    int compared = 0;
    uint64_t left = 0;
    for (uint64_t seed = 1; seed <= 25; ++seed) {
      StressProgram sp = stressProgram(seed, StressFamily::Await);
      const Program p = buildStress(sp);
      CAPTURE(seed, stressToC(sp));
      const StaleRun full = runStale(p, md, false), pruned = runStale(p, md, true);
      CHECK(pruned.r.status == full.r.status);
      CHECK(bool(pruned.r.violation) == bool(full.r.violation));
      CHECK(pruned.r.blocked <= full.r.blocked);
      left += pruned.r.staleWaits + pruned.r.staleReads;
      if (full.r.violation) continue;  // (an execution that fails ends where it fails)
      ++compared;
      CHECK(pruned.r.executions == full.r.executions);
      CHECK(pruned.keys == full.keys);
    }
    CHECK(compared >= 10);
    CHECK(left > 0);
  }
}

TEST_CASE("helpers that join a long check late give the counts of one worker", "[explorer][parallel]") {
  // 600,000 executions, about 0.4 s: far longer than the helpers' delay
  // (work_sharing.h kHelperDelay), so they join while it runs.
  const Program p = examples::readersWriters(3, 5);
  for (Model md : {Model::SC, Model::TSO}) {
    CAPTURE(modelName(md));
    CheckOptions o;
    o.model = md;
    o.stopAtFirstError = false;
    const CheckResult one = check(p, o);
    o.jobs = 2;
    const CheckResult two = check(p, o);
    REQUIRE(one.status == Status::Verified);
    REQUIRE(one.executions == examples::readersWritersCount(3, 5));
    CHECK(two.status == Status::Verified);
    CHECK(two.executions == one.executions);
    CHECK(two.blocked == one.blocked);
  }
}

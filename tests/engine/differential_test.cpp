// Exactness on RMW chains (issue: the explorer lost executions when a
// backward revisit changed an RMW's read) and the three-way differential test
// (graph explorer vs naive explorer vs state-space search) on the stress
// families. Longer runs: tsocheck-soak (tests/engine/soak_main.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <set>

#include "engine/builder.h"
#include "engine/check.h"
#include "tests/engine/differential.h"
#include "tests/engine/naive_explorer.h"
#include "tests/engine/random_programs.h"
#include "tests/engine/stress_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;

namespace {

enum Thread { kStore, kFetchAdd, kXchg, kCasChain, kLoad, kMax, kMin, kUMin, kNand };

// main spawns one thread per entry of `kinds`, in that order, and joins them.
// fetch_add operands are 1, 10, 100, ... in spawn order among the adders;
// xchg values likewise; the i-th CAS of a chain does cas(x, i, i + 1).
// Each RMW thread stores what it read into r<i>; with `assertOutcome`, main
// asserts that the final state is not `forbidden` (values of r1..rN, x).
Program rmwProgram(const std::vector<Thread>& kinds, const std::vector<Value>* forbidden = nullptr) {
  ProgramBuilder pb("rmw.c");
  uint32_t x = pb.global("x");
  std::vector<uint32_t> results, funcs;
  Value operand = 1, xv = 1;
  uint32_t cas = 0;
  for (size_t i = 0; i < kinds.size(); ++i) {
    auto& f = pb.function("t" + std::to_string(i + 1), 1);
    f.at(uint32_t(10 + i));
    uint32_t res = pb.global("r" + std::to_string(i + 1));
    results.push_back(res);
    Reg v = kNoReg;
    switch (kinds[i]) {
      case kStore: f.storeGlobal(x, 5); break;
      case kFetchAdd: v = f.rmwGlobal(RmwOp::Add, x, operand); operand *= 10; break;
      case kXchg: v = f.rmwGlobal(RmwOp::Xchg, x, 10 * xv++); break;
      case kCasChain: v = f.casGlobal(x, cas, cas + 1); ++cas; break;
      case kLoad: v = f.loadGlobal(x); break;
      case kMax: v = f.rmwGlobal(RmwOp::Max, x, Value(-2) + Value(i)); break;  // signed: -2 + i
      case kMin: v = f.rmwGlobal(RmwOp::Min, x, Value(i) + 3); break;
      case kUMin: v = f.rmwGlobal(RmwOp::UMin, x, Value(i) + 1); break;
      case kNand: v = f.rmwGlobal(RmwOp::Nand, x, 6); break;
    }
    if (v != kNoReg) f.storeGlobalReg(res, v);
    f.ret();
    funcs.push_back(f.index());
  }
  auto& m = pb.function("main");
  m.at(1);
  std::vector<Reg> ids;
  for (uint32_t fi : funcs) ids.push_back(m.spawn(fi));
  for (Reg id : ids) m.joinDiscard(id);
  if (forbidden) {
    m.at(2);
    Reg all = m.constant(1);
    for (size_t i = 0; i < forbidden->size(); ++i) {
      Reg v = i < results.size() ? m.loadGlobal(results[i]) : m.loadGlobal(x);
      all = m.bin(BinOp::And, all, m.cmpImm(CmpOp::Eq, v, (*forbidden)[i]));
    }
    m.assertTrue(m.cmpImm(CmpOp::Eq, all, 0), "forbidden final state");
  }
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

uint64_t executions(const Program& p, Model m) {
  CheckOptions o;
  o.model = m;
  o.stopAtFirstError = false;
  CheckResult r = check(p, o);
  REQUIRE(r.status == Status::Verified);
  return r.executions;
}

uint64_t factorial(uint64_t n) { return n <= 1 ? 1 : n * factorial(n - 1); }

}  // namespace

TEST_CASE("store + N fetch_adds on one location: (N+1)! executions in every spawn order", "[rmw][exact]") {
  for (int n = 2; n <= 5; ++n) {
    // Spawn orders: the adders differ only by their operands, given in spawn
    // order, so the store thread's position is what tells orders apart.
    std::vector<std::vector<Thread>> orders;
    for (int pos = 0; pos <= n; ++pos) {
      std::vector<Thread> k(size_t(n + 1), kFetchAdd);
      k[size_t(pos)] = kStore;
      orders.push_back(k);
    }
    for (const auto& k : orders)
      for (Model m : kModels) {
        CAPTURE(n, modelName(m), std::find(k.begin(), k.end(), kStore) - k.begin());
        CHECK(executions(rmwProgram(k), m) == factorial(uint64_t(n + 1)));
      }
  }
}

TEST_CASE("the RMW-chain final state that was missed is reported", "[rmw][exact]") {
  // t1 stores 5; t2, t3, t4 add 1, 10, 100. t4 +100, t3 +10, t2 +1, then the
  // store: r2 (t2's read) = 110, r3 = 100, r4 = 0, x = 5.
  std::vector<Value> forbidden = {0, 110, 100, 0, 5};  // r1 (the store thread's, unused), r2, r3, r4, x
  Program p = rmwProgram({kStore, kFetchAdd, kFetchAdd, kFetchAdd}, &forbidden);
  for (Model m : kModels) {
    CAPTURE(modelName(m));
    CheckOptions o;
    o.model = m;
    CheckResult r = check(p, o);
    REQUIRE(r.status == Status::Violation);
    CHECK(r.violation->kind == ErrorKind::Assertion);
  }
}

TEST_CASE("exchanges, CAS chains and mixes on one location match the naive explorer", "[rmw][exact]") {
  std::vector<std::vector<Thread>> shapes = {
      {kXchg, kXchg, kXchg},
      {kXchg, kXchg, kXchg, kXchg},
      {kStore, kXchg, kXchg, kXchg},
      {kCasChain, kCasChain, kCasChain},
      {kCasChain, kCasChain, kCasChain, kCasChain},
      {kStore, kCasChain, kCasChain, kFetchAdd},
      {kLoad, kFetchAdd, kStore, kXchg},
      {kFetchAdd, kLoad, kCasChain, kStore, kXchg},
      {kLoad, kFetchAdd, kFetchAdd, kLoad, kStore},
      {kMax, kMin, kStore},
      {kMax, kMax, kUMin, kLoad},
      {kNand, kFetchAdd, kMin, kStore},
  };
  for (const auto& s : shapes) {
    std::vector<Thread> k = s;
    // The shape and its reverse spawn order.
    for (int rev = 0; rev < 2; ++rev) {
      for (Model m : kModels) {
        CAPTURE(rev, modelName(m), k.size());
        DiffOutcome d = differential(rmwProgram(k), DiffConfig{m, -1, true});
        INFO(d.why);
        CHECK(d.agree);
      }
      std::reverse(k.begin(), k.end());
    }
  }
  // N exchanges with distinct values: every order is its own trace.
  for (int n = 2; n <= 5; ++n)
    CHECK(executions(rmwProgram(std::vector<Thread>(size_t(n), kXchg)), Model::TSO) == factorial(uint64_t(n)));
}

TEST_CASE("three-way differential on the stress families", "[differential]") {
  // A fixed number of seeds per family and configuration keeps this part of
  // the normal suite well under a minute; tsocheck-soak runs the same check
  // for as long as asked.
  const std::vector<DiffConfig> configs = {{Model::SC, -1}, {Model::TSO, -1}, {Model::PSO, -1},
                                           {Model::TSO, 1}, {Model::TSO, 2}, {Model::PSO, 1}, {Model::PSO, 2}};
  int checked = 0, mismatches = 0;
  for (int f = 0; f < kStressFamilies; ++f)
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      StressProgram sp = stressProgram(seed, StressFamily(f));
      Program p = buildStress(sp);
      for (DiffConfig c : configs) {
        c.compareTraces = sp.family != StressFamily::Nested;
        DiffOutcome d = differential(p, c);
        ++checked;
        if (!d.agree && ++mismatches <= 3) {
          INFO("seed " << seed << "\n" << stressToC(sp) << d.why);
          CHECK(d.agree);
        }
      }
    }
  CHECK(checked == kStressFamilies * 6 * 7);
  CHECK(mismatches == 0);
}

TEST_CASE("preemption bounds on the mutex family: every class within the bound, once", "[differential][preemption]") {
  // Waiting locks run under a preemption bound too (explorer.h): the bounded
  // explorer against the naive minimum preemption count on mutex programs
  // (trylocks, two critical sections per thread, up to 4 threads).
  // A program with a failing assertion is left out: the explorer ends an
  // execution at its error, so classes reachable only through a failing
  // prefix are not explored, bounded or not (the verdict is the violation).
  int checked = 0, mismatches = 0;
  for (uint64_t seed = 1; seed <= 60 && checked < 20 * 3; ++seed) {
    StressProgram sp = stressProgram(seed, StressFamily::Mutex);
    Program p = buildStress(sp);
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      if (violates(p, m)) continue;
      DiffOutcome d = preemptionDifferential(p, m, 2);
      ++checked;
      if (!d.agree && ++mismatches <= 3) {
        INFO("seed " << seed << " " << modelName(m) << "\n" << stressToC(sp) << d.why);
        CHECK(d.agree);
      }
    }
  }
  CHECK(checked >= 20 * 3);
  CHECK(mismatches == 0);
}

namespace {
// T1: r = x; c = nondet(0..max); g = 2 * r + c.  T2: x = 1.  T1 is spawned
// first, so T2's store revisits T1's read and deletes T1's choice.
Program nondetProgram(Value max, bool assertNotBoth) {
  ProgramBuilder pb("nondet.c");
  uint32_t x = pb.global("x"), g = pb.global("g");
  auto& t1 = pb.function("t1", 1);
  t1.at(10);
  Reg r = t1.loadGlobal(x);
  Reg c = t1.at(11).nondet(max);
  t1.storeGlobalReg(g, t1.bin(BinOp::Add, t1.binImm(BinOp::Mul, r, 2), c));
  t1.ret();
  auto& t2 = pb.function("t2", 1);
  t2.at(20).storeGlobal(x, 1);
  t2.ret();
  auto& m = pb.function("main");
  m.at(1);
  Reg a = m.spawn(t1.index());
  Reg b = m.spawn(t2.index());
  m.joinDiscard(a);
  m.joinDiscard(b);
  if (assertNotBoth) {
    m.at(2);
    m.assertTrue(m.cmpImm(CmpOp::Ne, m.loadGlobal(g), 3), "g == 3");  // read x = 1 and chose 1
  }
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}
}  // namespace

TEST_CASE("a nondeterministic choice is explored with every value, once per graph", "[differential][nondet]") {
  for (Model m : kModels) {
    CAPTURE(modelName(m));
    // Reads x = 0 or 1, times choices 0 or 1: 4 executions, not 6 (a revisit
    // that deletes a choice of 1 would reach the same graphs twice).
    CHECK(executions(nondetProgram(1, false), m) == 4);
    CHECK(executions(nondetProgram(2, false), m) == 6);
    DiffOutcome d = differential(nondetProgram(1, false), DiffConfig{m, -1, true});
    INFO(d.why);
    CHECK(d.agree);
    CHECK(!d.violation);
    DiffOutcome e = differential(nondetProgram(1, true), DiffConfig{m, -1, true});
    INFO(e.why);
    CHECK(e.agree);
    CHECK(e.violation);
  }
}

namespace {
// T1: r = x; c = a typed nondet input (size bytes, signed or not); g = c + 1024 * r
// (8 bytes).  T2: x = 1.  With `failOn`, main asserts g != failOn (reachable
// only when T1 read x = 0 and chose that value).
Program typedNondetProgram(uint8_t size, bool isSigned, std::optional<Value> failOn = std::nullopt) {
  ProgramBuilder pb("nondet_typed.c");
  uint32_t x = pb.global("x"), g = pb.global("g", 8);
  auto& t1 = pb.function("t1", 1);
  t1.at(10);
  Reg r = t1.loadGlobal(x);
  Reg c = t1.at(11).nondetInput(size, isSigned);
  t1.storeGlobalReg(g, t1.bin(BinOp::Add, t1.binImm(BinOp::Mul, r, 1024), c), 8);
  t1.ret();
  auto& t2 = pb.function("t2", 1);
  t2.at(20).storeGlobal(x, 1);
  t2.ret();
  auto& m = pb.function("main");
  m.at(1);
  Reg a = m.spawn(t1.index());
  Reg b = m.spawn(t2.index());
  m.joinDiscard(a);
  m.joinDiscard(b);
  if (failOn) {
    m.at(2);
    m.assertTrue(m.cmpImm(CmpOp::Ne, m.loadGlobal(g, 8), *failOn), "g != failOn");
  }
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

Limits nondetRange(int64_t lo, int64_t hi) {
  Limits l;
  l.nondetLo = lo;
  l.nondetHi = hi;
  return l;
}

CheckResult checkWith(const Program& p, Model m, const Limits& l, bool stateful = false) {
  CheckOptions o;
  o.model = m;
  o.limits = l;
  o.stateful = stateful;
  o.stopAtFirstError = false;
  return check(p, o);
}
}  // namespace

TEST_CASE("typed nondet inputs take the range's values within their type, exactly once per graph",
          "[differential][nondet][exact]") {
  struct Case {
    uint8_t size;
    bool isSigned;
    int64_t lo, hi;
    uint64_t values;  // how many values the input takes
    bool limited;
  };
  const std::vector<Case> cases = {
      {1, true, -1, 1, 3, true},        // char with the default range
      {1, false, -1, 1, 2, true},       // unsigned char: 0..1
      {2, true, -2, 2, 5, true},        // short
      {2, false, -2, 2, 3, true},       // unsigned short: 0..2
      {4, true, -1, 1, 3, true},        // int
      {4, false, -1, 1, 2, true},       // unsigned int
      {8, true, -1, 1, 3, true},        // long, pointer
      {8, false, -1, 1, 2, true},       // unsigned long
      {1, false, 0, 255, 256, false},   // unsigned char, fully covered
      {1, false, -5, 300, 256, false},  // covered by a wider range
      {1, true, -128, 127, 256, false}, // char, fully covered
      {1, true, -128, 126, 255, true},  // one value short
  };
  for (const Case& k : cases)
    for (Model m : kModels) {
      CAPTURE(modelName(m), int(k.size), k.isSigned, k.lo, k.hi);
      const Program p = typedNondetProgram(k.size, k.isSigned);
      const Limits l = nondetRange(k.lo, k.hi);
      CheckResult r = checkWith(p, m, l);
      // T1 reads x = 0 or 1, times the values.
      CHECK(r.executions == 2 * k.values);
      CHECK(r.nondetLimited == k.limited);
      CHECK(r.status == (k.limited ? Status::Bounded : Status::Verified));
      if (k.limited) CHECK(r.message == "no violation found, but nondet values limited to " + std::to_string(k.lo) +
                                            ".." + std::to_string(k.hi));
      if (!MemoryModel{m}.usesC11Orders()) {  // the state space has no RC11
        CheckResult s = checkWith(p, m, l, true);
        CHECK(s.executions == 2 * k.values);  // distinct final states
        CHECK(s.nondetLimited == k.limited);
        CHECK(s.status == r.status);
      }
      if (k.values <= 5) {
        DiffConfig c{m, -1, true};
        c.limits = l;
        DiffOutcome d = differential(p, c);
        INFO(d.why);
        CHECK(d.agree);
        CHECK(d.executions == 2 * k.values);
      }
    }
}

TEST_CASE("a typed nondet value that only one value of the range reaches is found", "[differential][nondet]") {
  for (Model m : kModels) {
    CAPTURE(modelName(m));
    // g == -1 (as 8 bytes) only when T1 read x = 0 and a signed long input chose -1.
    const Program p = typedNondetProgram(8, true, Value(-1));
    CheckResult r = checkWith(p, m, nondetRange(-1, 1));
    REQUIRE(r.violation);
    CHECK(r.violation->kind == ErrorKind::Assertion);
    bool sawMinusOne = false;
    for (const TraceStep& st : r.violation->trace)
      if (st.kind == StepKind::Nondet) sawMinusOne = st.value == Value(-1) && st.note == "chosen: -1";
    CHECK(sawMinusOne);
    // A range without -1 cannot reach it: bounded, never verified.
    CheckResult ok = checkWith(p, m, nondetRange(0, 1));
    CHECK(!ok.violation);
    CHECK(ok.status == Status::Bounded);
    CHECK(ok.executions == 4);
    if (!MemoryModel{m}.usesC11Orders()) CHECK(checkWith(p, m, nondetRange(-1, 1), true).violation);
    // Unsigned char 255 is the bit pattern of -1 as a char: in range 0..255 only.
    const Program q = typedNondetProgram(1, false, 255);
    CHECK(!checkWith(q, m, nondetRange(-1, 1)).violation);
    CHECK(checkWith(q, m, nondetRange(0, 255)).violation);
    DiffConfig c{m, -1, true};
    c.limits = nondetRange(-1, 1);
    DiffOutcome d = differential(p, c);
    INFO(d.why);
    CHECK(d.agree);
    CHECK(d.violation);
  }
}

TEST_CASE("a typed nondet input with no value in the range cuts its thread", "[nondet]") {
  const Program p = typedNondetProgram(1, false);
  for (bool stateful : {false, true}) {
    CheckResult r = checkWith(p, Model::TSO, nondetRange(-3, -1), stateful);
    CHECK(r.status == Status::Bounded);
    REQUIRE(!r.limitsHit.empty());
    CHECK(r.limitsHit[0].find("no value of the nondet input's 8-bit unsigned type is in the range -3..-1") !=
          std::string::npos);
  }
}

namespace {
// Thread-local storage. T1 passes the address of its shared copy of `t`
// (init 5) to T2; both increment it with a load and a store (an update can
// be lost); T1 then publishes its copy in g. Every thread also increments
// its private copy of `p` (init 7); main checks its own copies stayed as
// initialised: t = 5, p = 8 after its own increment.
Program tlsProgram() {
  ProgramBuilder pb("tls.c");
  uint32_t g = pb.global("g"), mainSaw = pb.global("main_saw");
  uint32_t t = pb.threadLocal("t", 4, 5), p = pb.threadLocal("p", 4, 7, true);
  auto bumpPrivate = [&](FunctionBuilder& f) {
    Reg a = f.tlsAddr(p);
    f.store(a, f.binImm(BinOp::Add, f.load(a), 1));
  };
  auto& helper = pb.function("helper", 1);
  helper.at(10);
  bumpPrivate(helper);
  helper.store(0, helper.binImm(BinOp::Add, helper.load(0), 10));
  helper.ret();
  auto& owner = pb.function("owner", 1);
  owner.at(20);
  bumpPrivate(owner);
  Reg a = owner.tlsAddr(t);
  Reg h = owner.spawn(helper.index(), a);
  owner.store(a, owner.binImm(BinOp::Add, owner.load(a), 1));
  owner.joinDiscard(h);
  owner.storeGlobalReg(g, owner.load(a));
  owner.ret();
  auto& m = pb.function("main");
  m.at(1);
  bumpPrivate(m);
  Reg o = m.spawn(owner.index());
  m.joinDiscard(o);
  // 1000 * own t + own p: 5008 when main's copies are untouched.
  m.storeGlobalReg(mainSaw, m.bin(BinOp::Add, m.binImm(BinOp::Mul, m.load(m.tlsAddr(t)), 1000), m.load(m.tlsAddr(p))));
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}
}  // namespace

TEST_CASE("thread-local copies: per thread, initialised, exact when their address is passed on",
          "[differential][exact][tls]") {
  const Program prog = tlsProgram();
  CHECK(addressName(prog, layout::kTlsBase + layout::kTlsStride) == "t@T1");
  for (Model m : kModels) {
    CAPTURE(modelName(m));
    std::set<std::pair<Value, Value>> finals;  // (g, main_saw)
    CheckOptions o;
    o.model = m;
    o.onExecution = [&](const ExecutionInfo& info) {
      Value gv = 0, ms = 0;
      for (auto [addr, v] : info.finalMemory) {
        if (addr == prog.globals[0].addr) gv = v;
        if (addr == prog.globals[1].addr) ms = v;
      }
      finals.insert({gv, ms});
    };
    CheckResult r = check(prog, o);
    CHECK(r.status == Status::Verified);
    // T1's and T2's read-modify-writes of T1's copy: both read 5 (two
    // coherence orders: lost update) or one reads the other's write.
    CHECK(r.executions == 4);
    const std::set<std::pair<Value, Value>> want = {{16, 5008}, {6, 5008}, {15, 5008}};
    CHECK(finals == want);
    DiffOutcome d = differential(prog, DiffConfig{m, -1, true});
    INFO(d.why);
    CHECK(d.agree);
    CHECK(d.executions == 4);
  }
}

TEST_CASE("RC11 differential on random programs with every memory order", "[differential][rc11]") {
  // The graph explorer under RC11 against the naive explorer's own RC11
  // check: the same verdicts, final states and (rf, co) graphs, each once.
  RandomProgramSpec spec = smallSpec();
  spec.memoryOrders = true;
  int checked = 0, mismatches = 0, weak = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const Program p = randomProgram(seed, spec);
    DiffConfig c{Model::RC11, -1};
    c.naiveSeconds = 20;
    const DiffOutcome d = differential(p, c);
    if (d.naiveTimedOut) continue;
    ++checked;
    CheckOptions o;
    o.model = Model::SC;
    if (d.executions > check(p, o).executions) ++weak;
    if (!d.agree && ++mismatches <= 3) {
      INFO("seed " << seed << "\n" << d.why);
      CHECK(d.agree);
    }
  }
  CHECK(checked >= 50);
  CHECK(mismatches == 0);
  CHECK(weak > 5);  // RC11 allows more than SC on a good share of them
}

TEST_CASE("RC11 with every access seq_cst explores exactly the SC executions", "[differential][rc11]") {
  // RC11's SC condition: a program whose accesses are all seq_cst (and has
  // no plain ones) has exactly its SC executions.
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Program p = randomProgram(seed, smallSpec());
    std::set<std::string> keys[2];
    CheckResult r[2];
    for (int i = 0; i < 2; ++i) {
      CheckOptions o;
      o.model = i ? Model::RC11 : Model::SC;
      o.stopAtFirstError = false;
      o.onExecution = [&keys, i](const ExecutionInfo& info) {
        if (!info.blocked) keys[i].insert(info.traceKey);
      };
      r[i] = check(p, o);
    }
    CAPTURE(seed);
    CHECK(r[1].executions == r[0].executions);
    CHECK(keys[1] == keys[0]);
    CHECK(bool(r[1].violation) == bool(r[0].violation));
  }
}

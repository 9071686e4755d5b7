// Atomic sections (Op::AtomicBegin/AtomicEnd, __VERIFIER_atomic_*): while a
// thread is inside one no other thread steps, every store buffer still
// flushes. The graph explorer (CheckOptions::sectionsInGraph) and both
// state-space searches (check() runs the stateful DPOR on threads that use
// sections) are checked against the naive explorer (which
// implements the same rule on the operational machine) on hand-written and
// random programs, and the outcomes a user meets: blocked assumes, deadlocks
// inside a section, refused strategies.
#include <catch2/catch.hpp>

#include <set>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/fences.h"
#include "engine/state_space.h"
#include "tests/engine/differential.h"
#include "tests/engine/random_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;

namespace {

using Finals = FinalStates;

struct SectionRun {
  CheckResult result;
  Finals finals;
  bool exhaustive = false;
};

SectionRun runStates(const Program& p, Model m, int bound) {
  DiffConfig c;
  c.model = m;
  c.bound = bound;
  SectionRun out;
  const StateSpaceResult r = exploreStatesWithFinals(p, c, 0, &out.finals);
  out.result = r.result;
  out.exhaustive = r.exhaustive;
  return out;
}

// f(options) for check() with each search threads that use sections can
// get: the state space (the default) and the graph explorer.
template <class F>
void withBothSearches(Model m, F&& f) {
  for (bool graph : {false, true}) {
    INFO("graph explorer " << graph);
    CheckOptions o;
    o.model = m;
    o.sectionsInGraph = graph;
    f(o);
  }
}

std::string compare(const Program& p, Model m, int bound) {
  DiffConfig c;
  c.model = m;
  c.bound = bound;
  return sectionDifferential(p, c).why;
}

// Two threads each run { r = x; x = r + 1; } (inside an atomic section when
// `section`, with a full fence before leaving it when `fence`); main joins
// both and checks x == 2.
Program increments(bool section, bool fence, bool nested = false) {
  ProgramBuilder pb("inc.c");
  auto x = pb.global("x");
  auto& t = pb.function("inc", 1);
  if (section) t.at(2).atomicBegin();
  if (nested) t.at(3).atomicBegin();
  Reg r = t.at(4).loadGlobal(x);
  if (nested) t.at(5).atomicEnd();
  t.at(6).storeGlobalReg(x, t.binImm(BinOp::Add, r, 1));
  if (fence) t.at(7).fence(FenceKind::Full);
  if (section) t.at(8).atomicEnd();
  t.at(9).ret(t.constant(0));
  auto& m = pb.function("main");
  Reg a = m.at(12).spawn(t.index());
  Reg b = m.at(13).spawn(t.index());
  m.at(14).joinDiscard(a);
  m.at(15).joinDiscard(b);
  Reg v = m.at(16).loadGlobal(x);
  m.at(17).assertTrue(m.cmpImm(CmpOp::Eq, v, 2), "x == 2");
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

std::set<Value> finalValuesOf(const Finals& finals, Addr a) {
  std::set<Value> out;
  for (const auto& f : finals)
    for (const auto& [addr, v] : f)
      if (addr == a) out.insert(v);
  return out;
}

}  // namespace

TEST_CASE("an atomic section makes a read-modify-write atomic under SC, its store is still buffered under TSO/PSO",
          "[atomic-section]") {
  const Addr x = increments(true, true).globals.at(0).addr;  // the counter
  {
    CheckOptions o;
    o.model = Model::SC;
    o.stopAtFirstError = false;
    CHECK(check(increments(false, false), o).status == Status::Violation);
    CheckResult r = check(increments(true, false), o);
    CHECK(r.status == Status::Verified);
    CHECK(r.executions >= 1);
  }
  for (Model m : {Model::TSO, Model::PSO}) {
    INFO(modelName(m));
    // Without a fence the section's store can still sit in the buffer when
    // the other thread's section reads x: x == 1 is reachable.
    SectionRun plain = runStates(increments(true, false), m, -1);
    CHECK(plain.result.status == Status::Violation);
    // With a full fence before the section ends the increment is atomic.
    SectionRun fenced = runStates(increments(true, true), m, -1);
    CHECK(fenced.result.status == Status::Verified);
    CHECK(finalValuesOf(fenced.finals, x) == std::set<Value>{2});
    CHECK(compare(increments(true, false), m, -1) == "");
    CHECK(compare(increments(true, true), m, -1) == "");
  }
  // A section nested inside another ends only with the outer one.
  for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
    INFO(modelName(m));
    CHECK(compare(increments(true, m != Model::SC, true), m, -1) == "");
    SectionRun nested = runStates(increments(true, m != Model::SC, true), m, -1);
    CHECK(nested.result.status == Status::Verified);
  }
  // check() answers the same with either search.
  withBothSearches(Model::TSO, [&](const CheckOptions& o) {
    CHECK(check(increments(true, true), o).status == Status::Verified);
    CHECK(check(increments(true, false), o).status == Status::Violation);
  });
}

TEST_CASE("a failed assume inside an atomic section blocks the execution, a lock there can deadlock",
          "[atomic-section]") {
  // An atomic acquire as in the verification benchmarks:
  //   void __VERIFIER_atomic_acquire() { assume(m == 0); m = 1; }
  // used as a lock around c++ in two threads: verified, with blocked runs.
  ProgramBuilder pb("acq.c");
  auto mtx = pb.global("m"), c = pb.global("c");
  auto& t = pb.function("t", 1);
  t.at(2).atomicBegin();
  Reg mv = t.at(3).loadGlobal(mtx);
  t.assume(t.cmpImm(CmpOp::Eq, mv, 0));
  t.at(4).storeGlobal(mtx, 1);
  t.fence(FenceKind::Full);
  t.at(5).atomicEnd();
  Reg cv = t.at(6).loadGlobal(c);
  t.at(7).storeGlobalReg(c, t.binImm(BinOp::Add, cv, 1));
  t.at(8).fence(FenceKind::Full);
  t.at(9).atomicBegin();
  t.at(10).storeGlobal(mtx, 0);
  t.at(11).atomicEnd();
  t.at(12).ret(t.constant(0));
  auto& m = pb.function("main");
  Reg a = m.at(15).spawn(t.index());
  Reg b = m.at(16).spawn(t.index());
  m.at(17).joinDiscard(a);
  m.at(18).joinDiscard(b);
  Reg v = m.at(19).loadGlobal(c);
  m.at(20).assertTrue(m.cmpImm(CmpOp::Eq, v, 2), "c == 2");
  m.ret();
  pb.setEntry(m.index());
  const Program acquire = pb.build();
  for (Model md : {Model::SC, Model::TSO, Model::PSO}) {
    INFO(modelName(md));
    withBothSearches(md, [&](const CheckOptions& o) {
      CheckResult r = check(acquire, o);
      CHECK(r.status == Status::Verified);
      CHECK(r.blocked > 0);  // an acquire that found m held
    });
    CHECK(compare(acquire, md, -1) == "");
  }

  // T1 holds a mutex; main enters a section and locks it: nothing can
  // release it, so the section deadlocks (reported, not pruned).
  ProgramBuilder pd("dead.c");
  auto mu = pd.global("mu");
  auto& h = pd.function("holder", 1);
  Reg hm = h.at(2).globalAddr(mu);
  h.lock(hm);
  h.at(3).unlock(hm);
  h.at(4).ret(h.constant(0));
  auto& md = pd.function("main");
  Reg th = md.at(7).spawn(h.index());
  md.at(8).atomicBegin();
  Reg mm = md.at(9).globalAddr(mu);
  md.lock(mm);
  md.at(10).unlock(mm);
  md.at(11).atomicEnd();
  md.at(12).joinDiscard(th);
  md.ret();
  pd.setEntry(md.index());
  const Program dead = pd.build();
  for (Model m : {Model::SC, Model::TSO}) {
    INFO(modelName(m));
    withBothSearches(m, [&](const CheckOptions& o) {
      CheckResult r = check(dead, o);
      REQUIRE(r.status == Status::Violation);
      REQUIRE(r.violation);
      CHECK(r.violation->kind == ErrorKind::Deadlock);
      CHECK(r.violation->message.find("inside an atomic section") != std::string::npos);
    });
    CHECK(compare(dead, m, -1) == "");
  }
}

TEST_CASE("atomic sections: robustness and preemption bounds are refused",
          "[atomic-section]") {
  CheckOptions o;
  o.model = Model::TSO;
  o.robustness = true;
  CheckResult r = check(increments(true, false), o);
  CHECK(r.status == Status::Error);
  CHECK(r.message.find("atomic sections") != std::string::npos);
  CheckOptions p;
  p.preemptionBound = 1;
  CheckResult q = check(increments(true, false), p);
  CHECK(q.status == Status::Error);
  CHECK(q.message.find("atomic sections") != std::string::npos);
  CHECK(hasAtomicSections(increments(true, false)));
  CHECK_FALSE(hasAtomicSections(increments(false, false)));
}

TEST_CASE("random programs with atomic sections: the graph explorer and the state space match the naive explorer",
          "[atomic-section][differential]") {
  RandomProgramSpec spec;
  spec.atomicSections = true;
  spec.maxStates = 4000;
  int withSections = 0, several = 0;
  for (uint64_t seed = 0; seed < 120; ++seed) {
    const Program p = randomProgram(0xa70000 + seed, spec);
    if (!hasAtomicSections(p)) continue;
    ++withSections;
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
      for (int bound : {-1, 1}) {
        if (m == Model::SC && bound != -1) continue;
        INFO("seed " << seed << " " << modelName(m) << " bound " << bound);
        const std::string why = compare(p, m, bound);
        CHECK(why == "");
        if (why.empty() && m == Model::TSO && bound == -1 && runStates(p, m, bound).finals.size() > 1) ++several;
      }
    }
  }
  // The generator does produce sections, in programs with several outcomes.
  CHECK(withSections >= 60);
  CHECK(several >= withSections / 2);
}

TEST_CASE("fence synthesis works from the state space's counterexamples of section programs", "[atomic-section]") {
  for (Model m : {Model::TSO, Model::PSO}) {
    INFO(modelName(m));
    CheckOptions o;
    o.model = m;
    FenceSynthesisResult f = synthesizeFences(increments(true, false), o, nullptr, FenceSynthesisOptions{});
    REQUIRE(f.outcome == FenceOutcome::Fixed);
    REQUIRE(f.fences.size() == 1);
    CHECK(f.fences[0].loc.line == 6);  // right after the section's store x = r + 1
    CHECK(f.minimal);
  }
}

namespace {
// Which search check() ran: only the graph explorer names its executions'
// Shasha–Snir traces (ExecutionInfo::traceKey).
struct SearchSeen {
  CheckResult result;
  bool graph = false;
};
SearchSeen checkAndSee(const Program& p, CheckOptions o) {
  SearchSeen out;
  o.onExecution = [&out](const ExecutionInfo& info) { out.graph = out.graph || !info.traceKey.empty(); };
  out.result = check(p, o);
  return out;
}
}  // namespace

TEST_CASE("check() explores threads that use atomic sections with the state space unless the graph explorer is "
          "asked for, and a single thread's sections in the graph explorer",
          "[atomic-section]") {
  // One thread: x = 1; r = x; in a section, then assert r == 1.
  ProgramBuilder pb("one.c");
  auto x = pb.global("x");
  auto& m = pb.function("main");
  m.at(2).atomicBegin();
  m.at(3).storeGlobal(x, 1);
  Reg r = m.at(4).loadGlobal(x);
  m.at(5).atomicEnd();
  m.at(6).assertTrue(m.cmpImm(CmpOp::Eq, r, 1), "r == 1");
  m.ret();
  pb.setEntry(m.index());
  const Program single = pb.build();
  for (Model md : {Model::SC, Model::TSO, Model::PSO}) {
    INFO(modelName(md));
    CheckOptions o;
    o.model = md;
    SearchSeen one = checkAndSee(single, o);
    CHECK(one.result.status == Status::Verified);
    CHECK(one.result.executions == 1);
    CHECK(one.graph);
    SearchSeen two = checkAndSee(increments(true, false), o);
    CHECK_FALSE(two.graph);
    CHECK(two.result.status == (md == Model::SC ? Status::Verified : Status::Violation));
    o.sectionsInGraph = true;
    SearchSeen graph = checkAndSee(increments(true, false), o);
    CHECK(graph.graph);
    CHECK(graph.result.status == two.result.status);
    o.stateful = true;
    SearchSeen stateful = checkAndSee(increments(true, false), o);
    CHECK_FALSE(stateful.graph);
    CHECK(stateful.result.status == two.result.status);
  }
}

TEST_CASE("atomic sections in the graph explorer: each execution once and sections kept whole", "[atomic-section]") {
  // Two threads each run { x = 1; r = y; } and { y = 1; s = x; } in one
  // section: store buffering. Under SC with sections the two sections run
  // one after the other: 2 executions, never r == s == 0. Under TSO the
  // stores may still sit in the buffers: r == s == 0 is reachable.
  ProgramBuilder pb("sb.c");
  auto x = pb.global("x"), y = pb.global("y"), rr = pb.global("r"), ss = pb.global("s");
  auto& t0 = pb.function("t0", 1);
  t0.at(2).atomicBegin();
  t0.at(3).storeGlobal(x, 1);
  Reg a = t0.at(4).loadGlobal(y);
  t0.at(5).atomicEnd();
  t0.at(6).storeGlobalReg(rr, a);
  t0.ret(t0.constant(0));
  auto& t1 = pb.function("t1", 1);
  t1.at(8).atomicBegin();
  t1.at(9).storeGlobal(y, 1);
  Reg b = t1.at(10).loadGlobal(x);
  t1.at(11).atomicEnd();
  t1.at(12).storeGlobalReg(ss, b);
  t1.ret(t1.constant(0));
  auto& m = pb.function("main");
  Reg h0 = m.at(14).spawn(t0.index());
  Reg h1 = m.at(15).spawn(t1.index());
  m.at(16).joinDiscard(h0);
  m.at(17).joinDiscard(h1);
  Reg va = m.at(18).loadGlobal(rr);
  Reg vb = m.at(19).loadGlobal(ss);
  m.at(20).assertTrue(m.cmpImm(CmpOp::Ne, m.bin(BinOp::Or, va, vb), 0), "r || s");
  m.ret();
  pb.setEntry(m.index());
  const Program sb = pb.build();
  CheckOptions o;
  o.model = Model::SC;
  o.stopAtFirstError = false;
  o.sectionsInGraph = true;
  const CheckResult sc = check(sb, o);
  CHECK(sc.status == Status::Verified);
  CHECK(sc.executions == 2);
  o.model = Model::TSO;
  CHECK(check(sb, o).status == Status::Violation);
  for (Model md : {Model::SC, Model::TSO, Model::PSO}) {
    INFO(modelName(md));
    CHECK(compare(sb, md, -1) == "");
    if (md != Model::SC) CHECK(compare(sb, md, 1) == "");
  }
}

// Preemption bounding: the bounded DPOR against the naive explorer's minimum
// preemption count per class ([preemption]), plus small programs whose
// preemption needs are known.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/preemption.h"
#include "engine/preemption_rounds.h"
#include "tests/engine/naive_explorer.h"
#include "tests/engine/random_programs.h"
#include "tests/engine/stress_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;

namespace {

struct Bounded {
  CheckResult result;
  std::vector<std::string> keys;             // complete executions, in order
  std::map<std::string, int> lowerBounds;    // trace key -> the explorer's lower bound
};

Bounded runBounded(const Program& p, Model m, int bound, bool stop = false) {
  Bounded b;
  CheckOptions o;
  o.model = m;
  o.preemptionBound = bound;
  o.stopAtFirstError = stop;
  o.testing.checkOrders = true;  // self-checks, also of every pruning by the kept preemption bound
  o.onExecution = [&](const ExecutionInfo& info) {
    if (info.blocked) return;
    b.keys.push_back(info.traceKey);
    b.lowerBounds[info.traceKey] = info.preemptionLowerBound;
  };
  b.result = check(p, o);
  return b;
}

// Store buffering with the weak outcome as an assertion failure in main:
// T1: x = 1; r1 = y   T2: y = 1; r2 = x   main: assert(r1 || r2)
Program sbAssert(int extraThreads = 0) {
  ProgramBuilder pb("sb.c");
  uint32_t x = pb.global("x"), y = pb.global("y"), r1 = pb.global("r1"), r2 = pb.global("r2");
  uint32_t z = pb.global("z");
  auto& m = pb.function("main");
  auto& t1 = pb.function("t1", 1);
  auto& t2 = pb.function("t2", 1);
  auto& t3 = pb.function("t3", 1);
  pb.setEntry(m.index());
  t1.storeGlobal(x, 1);
  t1.storeGlobalReg(r1, t1.loadGlobal(y));
  t1.ret();
  t2.storeGlobal(y, 1);
  t2.storeGlobalReg(r2, t2.loadGlobal(x));
  t2.ret();
  t3.storeGlobal(z, 1);  // an unrelated thread
  t3.ret();
  std::vector<Reg> hs{m.spawn(t1.index()), m.spawn(t2.index())};
  for (int i = 0; i < extraThreads; ++i) hs.push_back(m.spawn(t3.index()));
  for (Reg h : hs) m.joinDiscard(h);
  Reg both = m.bin(BinOp::Or, m.loadGlobal(r1), m.loadGlobal(r2));
  m.assertTrue(m.cmpImm(CmpOp::Ne, both, 0), "r1 == 0 && r2 == 0");
  m.ret();
  return pb.build();
}

// n threads each increment a shared counter `iters` times without a lock;
// main checks the total (a lost update).
Program racyCounter(int threads, int iters) {
  ProgramBuilder pb("counter.c");
  uint32_t cnt = pb.global("counter");
  auto& m = pb.function("main");
  auto& w = pb.function("worker", 1);
  for (int i = 0; i < iters; ++i) w.storeGlobalReg(cnt, w.binImm(BinOp::Add, w.loadGlobal(cnt), 1));
  w.ret();
  std::vector<Reg> hs;
  for (int i = 0; i < threads; ++i) hs.push_back(m.spawn(w.index()));
  for (Reg h : hs) m.joinDiscard(h);
  m.assertTrue(m.cmpImm(CmpOp::Eq, m.loadGlobal(cnt), Value(threads * iters)), "counter == total");
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

}  // namespace

TEST_CASE("preemptions: SB needs one preemption under SC and none under TSO/PSO", "[preemption]") {
  Program p = sbAssert();
  // SC: every schedule producing r1 == r2 == 0 would need a store after the
  // other thread's load; impossible under SC, so no bound finds it.
  Bounded sc = runBounded(p, Model::SC, 0, true);
  CHECK(sc.result.status == Status::Bounded);
  CHECK(sc.result.message == "no violation with \xE2\x89\xA4 0 preemptions");
  for (Model m : {Model::TSO, Model::PSO}) {
    CAPTURE(modelName(m));
    Bounded b = runBounded(p, m, 0, true);
    REQUIRE(b.result.status == Status::Violation);
    REQUIRE(b.result.violation);
    CHECK_FALSE(b.result.violation->aboveBound);
    CHECK(b.result.violation->preemptions == 0);
  }
  // The naive explorer agrees: the weak class costs nothing under TSO.
  std::map<std::string, int> tso = naiveMinPreemptions(p, Model::TSO, -1, 0);
  std::map<std::string, int> sc0 = naiveMinPreemptions(p, Model::SC, -1, 0);
  std::map<std::string, int> sc1 = naiveMinPreemptions(p, Model::SC, -1, 1);
  // The weak outcome fails the assertion, so it is no complete class; the
  // three others: one thread entirely before the other (0 preemptions), or
  // both stores before both loads (r1 == r2 == 1: one preemption in every
  // model, since a store's issue is a thread step).
  CHECK(tso.size() == 2);
  CHECK(naiveMinPreemptions(p, Model::TSO, -1, 1).size() == 3);
  CHECK(sc0.size() == 2);
  CHECK(sc1.size() == 3);
}

TEST_CASE("preemptions: a lost update needs a preemption, the bound prunes, executions stay distinct",
          "[preemption]") {
  Program p = racyCounter(2, 1);
  for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(m));
    Bounded b0 = runBounded(p, m, 0, true);
    // Under TSO/PSO the lost update needs no preemption (both increments
    // read memory while the other's store is still buffered).
    if (m != Model::SC) {
      REQUIRE(b0.result.status == Status::Violation);
      CHECK_FALSE(b0.result.violation->aboveBound);
      CHECK(b0.result.violation->preemptions == 0);
    } else if (b0.result.status == Status::Violation) {
      // Main plus two workers: slack 1, so under SC the lost update may be
      // met above the bound; it must then be marked so.
      CHECK(b0.result.violation->aboveBound);
      CHECK(b0.result.violation->preemptions >= 1);
    } else {
      CHECK(b0.result.status == Status::Bounded);
    }
    Bounded b1 = runBounded(p, m, 1, true);
    REQUIRE(b1.result.status == Status::Violation);
    CHECK_FALSE(b1.result.violation->aboveBound);
  }

  Program big = racyCounter(3, 2);
  CheckOptions full;
  full.model = Model::SC;
  full.stopAtFirstError = false;
  CheckResult unbounded = check(big, full);
  uint64_t last = 0;
  for (int bound = 0; bound <= 2; ++bound) {
    Bounded b = runBounded(big, Model::SC, bound);
    CAPTURE(bound);
    std::set<std::string> distinct(b.keys.begin(), b.keys.end());
    CHECK(distinct.size() == b.keys.size());
    CHECK(b.result.executions <= unbounded.executions);
    CHECK(b.result.executions >= last);
    last = b.result.executions;
    if (bound == 0) {
      CHECK(b.result.boundBlocked > 0);
      CHECK(b.result.executions < unbounded.executions);
    }
  }
}

TEST_CASE("preemptions: slack violations are reported and marked, a within-bound one wins", "[preemption]") {
  // Under SC a lost update needs a preemption; with main and four workers
  // (slack 3) the bound-0 search meets it anyway, above the bound.
  Program p = racyCounter(4, 1);
  Bounded b = runBounded(p, Model::SC, 0, true);
  REQUIRE(b.result.status == Status::Violation);
  CHECK(b.result.violation->aboveBound);
  CHECK(b.result.violation->preemptions > 0);
  Bounded b1 = runBounded(p, Model::SC, 1, true);
  REQUIRE(b1.result.status == Status::Violation);
  CHECK_FALSE(b1.result.violation->aboveBound);
  CHECK(b1.result.violation->preemptions <= 1);
}

namespace {

// Seeds 1..300 per model by default; TSOCHECK_PREEMPTION_SEEDS=<count> for longer runs.
uint64_t seedCount() {
  const char* v = std::getenv("TSOCHECK_PREEMPTION_SEEDS");
  return v && *v ? std::strtoull(v, nullptr, 10) : 300;
}

// Returns the partial executions pruned only through the §5 slack.
uint64_t boundedAgainstNaive(Model model, const RandomProgramSpec& spec = RandomProgramSpec{},
                             uint64_t seeds = seedCount()) {
  int failures = 0;
  uint64_t pruned = 0, prunedSettled = 0, boundedExecs = 0, naiveClasses = 0, compared = 0;
  for (uint64_t seed = 1; seed <= seeds && failures < 3; ++seed) {
    Program prog = randomProgram(seed, spec);
    std::map<std::string, int> minP = naiveMinPreemptions(prog, model, -1, 2);
    for (int bound = 0; bound <= 2; ++bound) {
      Bounded b = runBounded(prog, model, bound);
      std::set<std::string> keys(b.keys.begin(), b.keys.end());
      std::vector<std::string> missing, underestimated;
      for (const auto& [key, n] : minP) {
        if (n <= bound && !keys.count(key)) missing.push_back(key);
        // The explorer's lower bound must never exceed the true minimum.
        auto it = b.lowerBounds.find(key);
        if (it != b.lowerBounds.end() && it->second > n) underestimated.push_back(key);
      }
      for (const auto& [key, n] : minP) naiveClasses += n <= bound;
      const bool twice = keys.size() != b.keys.size();
      compared++;
      pruned += b.result.boundBlocked;
      prunedSettled += b.result.boundBlockedSettled;
      boundedExecs += b.result.executions;
      if (missing.empty() && underestimated.empty() && !twice && !b.result.violation) continue;
      ++failures;
      INFO("seed " << seed << ", " << modelName(model) << ", bound " << bound);
      INFO("missing classes: " << missing.size() << (missing.empty() ? "" : "\n" + missing[0]));
      INFO("lower bound above the naive minimum: " << underestimated.size()
                                                   << (underestimated.empty() ? "" : "\n" + underestimated[0]));
      CHECK(missing.empty());
      CHECK(underestimated.empty());
      CHECK_FALSE(twice);
      CHECK_FALSE(b.result.violation.has_value());
    }
  }
  INFO(modelName(model) << ": " << compared << " runs, " << naiveClasses << " classes within the bound, "
                        << boundedExecs << " executions, " << pruned << " pruned (" << prunedSettled
                        << " only through the §5 slack)");
  CHECK(failures == 0);
  CHECK(compared == seeds * 3);
  CHECK(pruned > 0);  // the bound does cut something on these programs
  return prunedSettled;
}

// Three threads each add 1 to a counter twice, each time under a mutex;
// main joins them and stores the total in `res` or asserts it is 6.
Program lockedCounter(bool assertTotal, int rounds = 2, int workers = 3) {
  ProgramBuilder pb("counter.c");
  const uint32_t c = pb.global("c"), mu = pb.global("m"), res = pb.global("res", 16, 0, 4);
  auto& m = pb.function("main");
  auto& w = pb.function("w", 1);
  pb.setEntry(m.index());
  for (int round = 0; round < rounds; ++round) {  // critical sections: c = c + 1
    w.lock(w.globalAddr(mu));
    const Reg v = w.loadGlobal(c);
    w.storeGlobalReg(c, w.binImm(BinOp::Add, v, 1));
    w.unlock(w.globalAddr(mu));
  }
  w.ret();
  std::vector<Reg> hs;
  for (int i = 0; i < workers; ++i) hs.push_back(m.spawn(w.index()));
  for (Reg h : hs) m.joinDiscard(h);
  if (assertTotal) m.assertTrue(m.cmpImm(CmpOp::Eq, m.loadGlobal(c), workers * rounds), "c == workers * rounds");
  else m.storeGlobalReg(res, m.loadGlobal(c));
  m.ret();
  return pb.build();
}

}  // namespace

TEST_CASE("bounded DPOR explores every class within the bound once: SC", "[preemption][property]") {
  boundedAgainstNaive(Model::SC);
}
TEST_CASE("bounded DPOR explores every class within the bound once: TSO", "[preemption][property]") {
  boundedAgainstNaive(Model::TSO);
}
TEST_CASE("bounded DPOR explores every class within the bound once: PSO", "[preemption][property]") {
  boundedAgainstNaive(Model::PSO);
}
// Four threads (main included) with 3-5 accesses each: the slack N−2 is 2,
// and part of what the bound prunes it prunes only through the §5 slack
// (the threads with unsettled events, preemptionSlack; counted in
// CheckResult::boundBlockedSettled). Every class within the bound is still
// reached.
TEST_CASE("bounded DPOR explores every class within the bound once: the tighter slack on four threads",
          "[preemption][property]") {
  RandomProgramSpec spec;
  spec.minThreads = 3;
  spec.maxThreads = 3;
  spec.minAccesses = 3;
  spec.maxAccesses = 5;
  spec.maxLocations = 2;
  spec.maxStates = 15000;
  const uint64_t seeds = std::max<uint64_t>(1, seedCount() / 5);
  const uint64_t sc = boundedAgainstNaive(Model::SC, spec, seeds);
  const uint64_t tso = boundedAgainstNaive(Model::TSO, spec, seeds);
  INFO("pruned only through the tighter slack: SC " << sc << ", TSO " << tso);
  CHECK(sc + tso > 0);
}

// Stores stay buffered longer without fences: reads of other threads'
// buffered stores and the flush edges they bring (engine/preemption.h).
TEST_CASE("bounded DPOR explores every class within the bound once: TSO and PSO with long buffers",
          "[preemption][property]") {
  RandomProgramSpec spec;
  spec.fences = false;
  spec.minAccesses = 2;
  spec.maxAccesses = 4;
  spec.maxLocations = 2;
  spec.maxStates = 4000;
  const uint64_t seeds = std::max<uint64_t>(1, seedCount() / 6);
  boundedAgainstNaive(Model::TSO, spec, seeds);
  boundedAgainstNaive(Model::PSO, spec, seeds);
}

TEST_CASE("preemptions: a read of a flushed store orders what precedes the flush (TSO/PSO)", "[preemption]") {
  // A: u = 1; r = y        B: y = 1        C: s = u; t = y
  // In the class where C reads u == 1 and y == 0 while A reads y == 1, A
  // must be switched out between its two steps: C's load of y comes before
  // y = 1 flushes, A's load of y after. Only the flush of B's store links
  // them (B takes no step in between), so the lower bound sees it only
  // through the read of the flushed store.
  ProgramBuilder pb("flush.c");
  uint32_t u = pb.global("u"), y = pb.global("y");
  auto& m = pb.function("main");
  auto& a = pb.function("a", 1);
  auto& b = pb.function("b", 1);
  auto& c = pb.function("c", 1);
  pb.setEntry(m.index());
  a.storeGlobal(u, 1);
  a.loadGlobal(y);
  a.ret();
  b.storeGlobal(y, 1);
  b.ret();
  c.loadGlobal(u);
  c.loadGlobal(y);
  c.ret();
  std::vector<Reg> hs{m.spawn(a.index()), m.spawn(b.index()), m.spawn(c.index())};
  for (Reg h : hs) m.joinDiscard(h);
  m.ret();
  Program p = pb.build();
  for (Model model : {Model::TSO, Model::PSO}) {
    CAPTURE(modelName(model));
    std::map<std::string, int> minP = naiveMinPreemptions(p, model, -1, 5);
    Bounded all = runBounded(p, model, 5);
    REQUIRE(all.lowerBounds.size() == minP.size());
    int forced = 0;
    for (const auto& [key, lb] : all.lowerBounds) {
      REQUIRE(minP.count(key));
      CHECK(lb <= minP[key]);
      forced += lb == 1 && minP[key] == 1;
    }
    CHECK(forced >= 1);
  }
}

TEST_CASE("preemptions: more than 16 threads keep incremental clocks and find the bug in bound", "[preemption]") {
  // Two workers increment a counter once each (a lost update needs one
  // preemption under SC); 15 more threads each store to a variable of their
  // own. Main joins them all and checks the counter: 18 threads.
  ProgramBuilder pb("many.c");
  uint32_t cnt = pb.global("counter");
  uint32_t own = pb.global("own", 4 * 15, 0, 4);
  auto& m = pb.function("main");
  auto& w = pb.function("worker", 1);
  w.storeGlobalReg(cnt, w.binImm(BinOp::Add, w.loadGlobal(cnt), 1));
  w.ret();
  std::vector<uint32_t> fs{w.index(), w.index()};
  for (int i = 0; i < 15; ++i) {
    auto& l = pb.function("light" + std::to_string(i), 1);
    l.storeGlobal(own, 1, 4, 4 * int64_t(i));
    l.ret();
    fs.push_back(l.index());
  }
  std::vector<Reg> hs;
  for (uint32_t f : fs) hs.push_back(m.spawn(f));
  for (Reg h : hs) m.joinDiscard(h);
  m.assertTrue(m.cmpImm(CmpOp::Eq, m.loadGlobal(cnt), 2), "counter == 2");
  m.ret();
  pb.setEntry(m.index());
  Program p = pb.build();
  CheckOptions full;
  full.model = Model::SC;
  full.stopAtFirstError = false;
  CheckResult unbounded = check(p, full);
  Bounded b0 = runBounded(p, Model::SC, 0);
  std::set<std::string> distinct(b0.keys.begin(), b0.keys.end());
  CHECK(distinct.size() == b0.keys.size());
  CHECK(b0.result.executions <= unbounded.executions);
  REQUIRE(b0.result.violation);
  CHECK(b0.result.violation->aboveBound);  // the lost update, met in the slack
  CHECK(b0.result.violation->preemptions == 1);
  Bounded b1 = runBounded(p, Model::SC, 1, true);
  REQUIRE(b1.result.status == Status::Violation);
  CHECK_FALSE(b1.result.violation->aboveBound);
  CHECK(b1.result.violation->preemptions == 1);
}

// Bugs within the bound are found: a violation "final memory == S" (what an
// assertion on the final state would catch) fails in the bounded search
// whenever the unbounded search can reach S through a class whose minimum
// preemption count (naive explorer) is within the bound. Checked for every
// outcome of random programs, with the cheap upper bounds of the bounded
// search (engine/preemption.h) in play on programs of 3 to 5 threads.
TEST_CASE("bounded DPOR reaches every final state whose witness needs at most the bound",
          "[preemption][property]") {
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    uint64_t outcomesWithin = 0, compared = 0;
    int failures = 0;
    for (uint64_t seed = 1; seed <= std::max<uint64_t>(1, seedCount() / 3) && failures < 3; ++seed) {
      Program prog = randomProgram(1000 + seed);
      std::map<std::string, int> minP = naiveMinPreemptions(prog, model, -1, 2);
      // Outcome -> fewest preemptions over the classes producing it.
      std::map<std::vector<std::pair<Addr, Value>>, int> need;
      CheckOptions o;
      o.model = model;
      o.stopAtFirstError = false;
      o.onExecution = [&](const ExecutionInfo& info) {
        if (info.blocked) return;
        auto it = minP.find(info.traceKey);
        if (it == minP.end()) return;  // needs more than 2 preemptions
        auto [at, fresh] = need.emplace(info.finalMemory, it->second);
        if (!fresh) at->second = std::min(at->second, it->second);
      };
      check(prog, o);
      for (int bound = 0; bound <= 2; ++bound) {
        std::set<std::vector<std::pair<Addr, Value>>> reached;
        CheckOptions b = o;
        b.preemptionBound = bound;
        b.onExecution = [&](const ExecutionInfo& info) {
          if (!info.blocked) reached.insert(info.finalMemory);
        };
        check(prog, b);
        ++compared;
        for (const auto& [outcome, n] : need) {
          if (n > bound) continue;
          ++outcomesWithin;
          if (reached.count(outcome)) continue;
          ++failures;
          INFO("seed " << 1000 + seed << ", " << modelName(model) << ", bound " << bound << ": an outcome needing "
                       << n << " preemptions was not reached");
          CHECK(reached.count(outcome));
          break;
        }
      }
    }
    INFO(modelName(model) << ": " << compared << " bounded runs, " << outcomesWithin << " outcomes within the bound");
    CHECK(failures == 0);
    CHECK(outcomesWithin > compared);
  }
}

// The cheap phase of the bookkeeping (candidate count, then armingBound) only
// decides to skip the clocks; it must never hide a lower bound above the
// limit (that would prune less than the exact count does). On every complete
// graph of random programs: a fresh state told the limit lb - 1 reaches the
// exact count and reports it exceeded; told lb, it does not.
TEST_CASE("preemptions: the cheap upper bounds never hide an exceeded limit", "[preemption][property]") {
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    PreemptionCounter counter(model == Model::SC, model == Model::PSO);
    uint64_t graphs = 0, positive = 0;
    int failures = 0;
    for (uint64_t seed = 1; seed <= std::max<uint64_t>(1, seedCount() / 3) && failures < 3; ++seed) {
      CheckOptions o;
      o.model = model;
      o.stopAtFirstError = false;
      o.onExecution = [&](const ExecutionInfo& info) {
        if (!info.graph || failures >= 3) return;
        ++graphs;
        const int lb = counter.lowerBound(*info.graph);
        PreemptionState below, at;
        const bool exceeded = lb > 0 && counter.exceeds(*info.graph, below, lb - 1);
        const bool notAt = !counter.exceeds(*info.graph, at, lb);
        positive += lb > 0;
        if ((lb == 0 || exceeded) && notAt) return;
        ++failures;
        INFO("seed " << seed << ", " << modelName(model) << ", lower bound " << lb << "\n" << info.traceKey);
        CHECK((lb == 0 || exceeded));
        CHECK(notAt);
      };
      check(randomProgram(2000 + seed), o);
    }
    INFO(modelName(model) << ": " << graphs << " graphs, " << positive << " with a positive lower bound");
    CHECK(failures == 0);
    CHECK(positive > 0);
  }
}

// The slack counts the threads alive in the graph (preemptionSlack), not the
// program's: threads spawned late, after main waited for a join or a mutex
// held by another thread, are the case where the graph has fewer threads
// than the program while revisits happen (engine/preemption.h). Every class
// within bounds 0..2 (naive minimum) must still be reached.
TEST_CASE("preemptions: threads spawned after main waits keep every class within the bound",
          "[preemption]") {
  for (int variant = 0; variant < 4; ++variant) {
    ProgramBuilder pb("late.c");
    const uint32_t x = pb.global("x"), y = pb.global("y"), mu = pb.global("m");
    const uint32_t res = pb.global("res", 16, 0, 4);
    auto& m = pb.function("main");
    auto& t1 = pb.function("t1", 1);
    auto& t2 = pb.function("t2", 1);
    auto& t3 = pb.function("t3", 1);
    pb.setEntry(m.index());
    // t1 takes the mutex and reads y inside or after it; t2 writes x and
    // reads y; t3 (spawned late) writes y and reads x.
    t1.lock(t1.globalAddr(mu));
    t1.storeGlobal(x, 1);
    if (variant & 1) t1.unlock(t1.globalAddr(mu));
    t1.storeGlobalReg(res, t1.loadGlobal(y), 4, 0);
    if (!(variant & 1)) t1.unlock(t1.globalAddr(mu));
    t1.ret();
    t2.storeGlobalReg(res, t2.loadGlobal(y), 4, 4);
    t2.storeGlobal(x, 2);
    t2.ret();
    t3.storeGlobal(y, 1);
    t3.storeGlobalReg(res, t3.loadGlobal(x), 4, 8);
    t3.storeGlobal(y, 2);
    t3.ret();
    Reg h1 = m.spawn(t1.index()), h2 = m.spawn(t2.index());
    if (variant & 2) m.joinDiscard(h2);  // main waits for t2 first
    m.lock(m.globalAddr(mu));             // may wait for t1
    Reg h3 = m.spawn(t3.index());
    m.storeGlobalReg(res, m.loadGlobal(y), 4, 12);
    m.unlock(m.globalAddr(mu));
    if (!(variant & 2)) m.joinDiscard(h2);
    m.joinDiscard(h1);
    m.joinDiscard(h3);
    m.ret();
    const Program prog = pb.build();
    for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
      std::map<std::string, int> minP = naiveMinPreemptions(prog, model, -1, 2);
      REQUIRE_FALSE(minP.empty());
      for (int bound = 0; bound <= 2; ++bound) {
        Bounded b = runBounded(prog, model, bound);
        const std::set<std::string> keys(b.keys.begin(), b.keys.end());
        CAPTURE(variant, modelName(model), bound);
        CHECK(keys.size() == b.keys.size());
        for (const auto& [key, n] : minP) {
          if (n <= bound) CHECK(keys.count(key));
          auto it = b.lowerBounds.find(key);
          if (it != b.lowerBounds.end()) CHECK(it->second <= n);
        }
      }
    }
  }
}

// Waiting locks under a preemption bound (explorer.h): a lock that would
// find its mutex held waits instead of ending its execution blocked, so a
// bounded mutex program whose locks never deadlock explores no blocked
// execution (the plain treatment explores some), and still every class
// whose minimum preemption count (the naive explorer's) is within the
// bound, each once.
TEST_CASE("preemptions: locks wait for their mutex under a bound and keep every class within it",
          "[preemption]") {
  const Program prog = lockedCounter(false);
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    const std::map<std::string, int> minP = naiveMinPreemptions(prog, model, -1, 2);
    REQUIRE_FALSE(minP.empty());
    for (int bound = 0; bound <= 2; ++bound) {
      CAPTURE(modelName(model), bound);
      const Bounded a = runBounded(prog, model, bound);
      const std::set<std::string> keys(a.keys.begin(), a.keys.end());
      CHECK(keys.size() == a.keys.size());
      CHECK(a.result.blocked == 0);
      for (const auto& [key, n] : minP) {
        if (n <= bound) CHECK(keys.count(key));
        auto it = a.lowerBounds.find(key);
        if (it != a.lowerBounds.end()) CHECK(it->second <= n);
      }
      CheckOptions o;
      o.model = model;
      o.preemptionBound = bound;
      o.testing.unblockLocks = false;
      CHECK(check(prog, o).blocked > 0);
    }
  }
}

// A thread that takes its mutex again right after releasing it cannot have
// waited for another holder in between unless it was switched away from
// first (engine/preemption.cpp blockerFloor): critical sections of two
// workers that alternate cost preemptions, and the bound prunes there (every
// lock counted as a possible wait pruned nothing: the lower bound was 0 for
// every class). Every class within the bound is still explored, and no
// class's lower bound exceeds its naive minimum.
TEST_CASE("preemptions: a lock taken again after its own unlock is no free wait, and the bound prunes",
          "[preemption]") {
  const Program prog = lockedCounter(false, 3, 2);
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    const std::map<std::string, int> minP = naiveMinPreemptions(prog, model, -1, 100);
    REQUIRE(minP.size() == 20);  // the orders of 3 + 3 critical sections
    int highest = 0;
    for (int bound = 0; bound <= 2; ++bound) {
      CAPTURE(modelName(model), bound);
      const Bounded a = runBounded(prog, model, bound);
      CHECK(a.result.boundBlocked > 0);
      CHECK(a.keys.size() < minP.size());
      for (const auto& [key, n] : minP) {
        if (n <= bound) CHECK(std::count(a.keys.begin(), a.keys.end(), key) == 1);
        auto it = a.lowerBounds.find(key);
        if (it == a.lowerBounds.end()) continue;
        CHECK(it->second <= n);
        highest = std::max(highest, it->second);
      }
    }
    CHECK(highest >= 3);
  }
}

// The floor is tight: A releases the mutex, reads x and takes the mutex
// again; B, holding it, writes x twice. In the class where A reads B's first
// write, A is preempted after its unlock (B's lock and first write come
// next) and B between its writes; A's second lock then waits for B, and that
// wait takes the switch between A's read and B's second write: minimum 2. A
// floor one higher (the wait counted only for intervals starting after the
// read) gives that class a lower bound of 3.
TEST_CASE("preemptions: a wait for a mutex taken after the thread's own unlock still takes later switches",
          "[preemption]") {
  ProgramBuilder pb("relock.c");
  const uint32_t x = pb.global("x"), mu = pb.global("m"), r = pb.global("r");
  auto& m = pb.function("main");
  auto& a = pb.function("a", 1);
  auto& b = pb.function("b", 1);
  pb.setEntry(m.index());
  a.lock(a.globalAddr(mu));
  a.unlock(a.globalAddr(mu));
  a.storeGlobalReg(r, a.loadGlobal(x));
  a.lock(a.globalAddr(mu));
  a.unlock(a.globalAddr(mu));
  a.ret();
  b.lock(b.globalAddr(mu));
  b.storeGlobal(x, 1);
  b.storeGlobal(x, 2);
  b.unlock(b.globalAddr(mu));
  b.ret();
  const Reg ha = m.spawn(a.index()), hb = m.spawn(b.index());
  m.joinDiscard(ha);
  m.joinDiscard(hb);
  m.ret();
  const Program prog = pb.build();
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(model));
    const std::map<std::string, int> minP = naiveMinPreemptions(prog, model, -1, 100);
    REQUIRE_FALSE(minP.empty());
    const Bounded all = runBounded(prog, model, 100);
    int two = 0;
    for (const auto& [key, n] : minP) {
      auto it = all.lowerBounds.find(key);
      REQUIRE(it != all.lowerBounds.end());
      CHECK(it->second <= n);
      two += it->second == 2 && n == 2;
    }
    CHECK(two > 0);
  }
}

// Soak seed 430037 (a mutex program under TSO): a store placed co-between two
// writes while its own flush has no step yet took the fr edge into the later
// write's flush away, so the bound from scratch fell below the kept one (2
// against 3: the self-check's engine error). Flushes reach memory in co
// order, so the edge is inherited along co (inheritFlushSources). Every class
// within bounds 0..2 is explored, with the self-checks on.
TEST_CASE("preemptions: a store placed between two writes keeps the edges into the later flush", "[preemption]") {
  const StressProgram mp = stressProgram(665988796373ull, StressFamily::Mutex);
  const Program p = buildStress(mp);
  const std::map<std::string, int> minP = naiveMinPreemptions(p, Model::TSO, -1, 2);
  uint64_t pruned = 0;
  for (int bound = 0; bound <= 2; ++bound) {
    CAPTURE(bound);
    Bounded b = runBounded(p, Model::TSO, bound);
    INFO(b.result.message);
    CHECK(b.result.status != Status::Error);
    std::set<std::string> keys(b.keys.begin(), b.keys.end());
    int missing = 0;
    for (const auto& [key, n] : minP) missing += n <= bound && !keys.count(key);
    CHECK(missing == 0);
    pruned += b.result.boundBlocked;
  }
  CHECK(pruned > 0);
}

// The bound's probe (CheckOptions::boundProbe): when the first ended
// executions had nothing pruned the bound is dropped, and the search is then
// exactly the unbounded one (same counts, same verdict); when something was
// pruned first, nothing changes (the counts of a run that keeps the bound
// throughout). Two workers splitting eagerly make the same decision and
// reach the same counts: the probe runs on one worker.
TEST_CASE("preemptions: a bound that prunes nothing in its probe is dropped, otherwise kept", "[preemption][property]") {
  RandomProgramSpec spec;
  spec.maxStates = 15000;
  const uint64_t seeds = std::max<uint64_t>(1, seedCount() / 3);
  uint64_t dropped = 0, kept = 0, compared = 0;
  int failures = 0;
  auto counts = [](const CheckResult& r) {
    return std::vector<uint64_t>{r.executions, r.blocked, r.cut, r.staleWaits, uint64_t(r.status),
                                 r.violation ? uint64_t(r.violation->kind) : 99};
  };
  for (uint64_t seed = 1; seed <= seeds && failures < 3; ++seed) {
    const Program prog = randomProgram(seed, spec);
    for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
      CheckOptions o;
      o.model = model;
      o.testing.checkOrders = true;
      const CheckResult full = check(prog, o);
      for (int bound = 0; bound <= 2; ++bound) {
        o.preemptionBound = bound;
        o.boundProbe = 0;
        const CheckResult whole = check(prog, o);
        o.boundProbe = 1 + seed % 7;
        const CheckResult probed = check(prog, o);
        CheckOptions o2 = o;
        o2.jobs = 2;
        o2.testing.splitEagerly = true;
        const CheckResult two = check(prog, o2);
        CAPTURE(seed, modelName(model), bound, o.boundProbe, probed.boundDropped);
        ++compared;
        bool ok = two.boundDropped == probed.boundDropped && counts(two) == counts(probed) &&
                  two.boundBlocked == probed.boundBlocked;
        if (probed.boundDropped) {
          ++dropped;
          ok = ok && counts(probed) == counts(full) && probed.boundBlocked == 0;
        } else {
          ++kept;
          ok = ok && counts(probed) == counts(whole) && probed.boundBlocked == whole.boundBlocked;
        }
        if (ok) continue;
        ++failures;
        CHECK(two.boundDropped == probed.boundDropped);
        CHECK(counts(two) == counts(probed));
        CHECK(counts(probed) == counts(probed.boundDropped ? full : whole));
        CHECK(two.boundBlocked == probed.boundBlocked);
        CHECK(probed.boundBlocked == (probed.boundDropped ? 0 : whole.boundBlocked));
      }
    }
  }
  INFO(compared << " runs: " << dropped << " with the bound dropped, " << kept << " kept");
  CHECK(failures == 0);
  CHECK(dropped > 0);
  CHECK(kept > 0);
}

// A mutex program the bound cannot prune (one critical section per thread:
// every order of them is a run without preemptions, and every switch the
// counter forces is at a lock or join): the bound is dropped after the probe,
// the answer is the unbounded search's `verified`, and bounds tried in rounds
// stop at the first round (it searched everything).
TEST_CASE("preemptions: a dropped bound gives the full search's verified and ends the rounds", "[preemption]") {
  const Program prog = lockedCounter(true, 1);
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(model));
    CheckOptions o;
    o.model = model;
    const CheckResult full = check(prog, o);
    REQUIRE(full.status == Status::Verified);
    REQUIRE(full.executions > 5);
    o.preemptionBound = 0;
    o.boundProbe = 5;
    const CheckResult r = check(prog, o);
    CHECK(r.boundDropped);
    CHECK(r.status == Status::Verified);
    CHECK(r.executions == full.executions);
    CHECK(r.message.find("pruned nothing in the first 5 ended executions") != std::string::npos);
    const PreemptionRoundsResult rounds = checkPreemptionRounds(prog, o, 0, 3);
    CHECK(rounds.bound == 0);
    CHECK(rounds.result.status == Status::Verified);
    o.boundProbe = 0;  // kept: a bounded answer
    const CheckResult k = check(prog, o);
    CHECK_FALSE(k.boundDropped);
    CHECK(k.status == Status::Bounded);
    CHECK(k.executions == full.executions);
  }
}

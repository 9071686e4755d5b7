// The reference explorer on its own ([naive]), then the DPOR explorer
// against it on random programs ([property]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/builder.h"
#include "engine/check.h"
#include "tests/engine/naive_explorer.h"
#include "tests/engine/random_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;

namespace {

struct Config {
  Model model;
  int bound;  // -1 unbounded, 0 = SC
};

std::string configName(Config c) {
  return std::string(modelName(c.model)) + (c.bound < 0 ? "/unbounded" : "/k=" + std::to_string(c.bound));
}

// One trace per block, lines indented.
std::string showKeys(const std::set<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) {
    out += "  ----\n  ";
    for (char ch : k) out += ch == '\n' ? std::string("\n  ") : std::string(1, ch);
    out += "\n";
  }
  return out;
}

std::string showStates(const std::set<std::vector<std::pair<Addr, Value>>>& states) {
  std::ostringstream os;
  for (const auto& st : states) {
    os << " ";
    for (const auto& [a, v] : st) os << " 0x" << std::hex << a << "=" << std::dec << v;
    os << "\n";
  }
  return os.str();
}

template <class T>
std::set<T> minus(const std::set<T>& a, const std::set<T>& b) {
  std::set<T> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

// ---------------------------------------------------------------- programs

// Store buffering: T1: x = 1; r1 = y   T2: y = 1; r2 = x   (results in r1, r2)
Program storeBuffering(bool fences = false, bool checkWeak = false,
                       FenceKind fenceKind = FenceKind::Full) {
  ProgramBuilder pb("sb.c");
  uint32_t x = pb.global("x"), y = pb.global("y"), r1 = pb.global("r1"), r2 = pb.global("r2");
  auto& m = pb.function("main");
  auto& t1 = pb.function("t1", 1);
  auto& t2 = pb.function("t2", 1);
  pb.setEntry(m.index());
  t1.storeGlobal(x, 1);
  if (fences || fenceKind != FenceKind::Full) t1.fence(fenceKind);
  t1.storeGlobalReg(r1, t1.loadGlobal(y));
  t1.ret();
  t2.storeGlobal(y, 1);
  if (fences || fenceKind != FenceKind::Full) t2.fence(fenceKind);
  t2.storeGlobalReg(r2, t2.loadGlobal(x));
  t2.ret();
  Reg a = m.spawn(t1.index()), b = m.spawn(t2.index());
  m.joinDiscard(a);
  m.joinDiscard(b);
  if (checkWeak) {
    Reg both = m.bin(BinOp::Or, m.loadGlobal(r1), m.loadGlobal(r2));
    m.assertTrue(m.cmpImm(CmpOp::Ne, both, 0), "r1 == 0 && r2 == 0");
  }
  m.ret();
  return pb.build();
}

// Message passing: T1: x = 1; [fence] y = 1   T2: r1 = y; r2 = x
Program messagePassing(bool storeStoreFence = false) {
  ProgramBuilder pb("mp.c");
  uint32_t x = pb.global("x"), y = pb.global("y"), r1 = pb.global("r1"), r2 = pb.global("r2");
  auto& m = pb.function("main");
  auto& t1 = pb.function("t1", 1);
  auto& t2 = pb.function("t2", 1);
  pb.setEntry(m.index());
  t1.storeGlobal(x, 1);
  if (storeStoreFence) t1.fence(FenceKind::StoreStore);
  t1.storeGlobal(y, 1);
  t1.ret();
  Reg a1 = t2.loadGlobal(y);
  Reg a2 = t2.loadGlobal(x);
  t2.storeGlobalReg(r1, a1);
  t2.storeGlobalReg(r2, a2);
  t2.ret();
  Reg a = m.spawn(t1.index()), b = m.spawn(t2.index());
  m.joinDiscard(a);
  m.joinDiscard(b);
  m.ret();
  return pb.build();
}

// n threads each do: lock(m); x = x + 1; unlock(m)   (optionally in the
// opposite order of two mutexes, to deadlock)
Program lockedCounter(int threads, bool inverted = false) {
  ProgramBuilder pb("lock.c");
  uint32_t mA = pb.global("mA"), mB = pb.global("mB"), x = pb.global("x");
  auto& m = pb.function("main");
  pb.setEntry(m.index());
  std::vector<uint32_t> fs;
  for (int i = 0; i < threads; ++i) {
    auto& t = pb.function("t" + std::to_string(i + 1), 1);
    uint32_t first = inverted && i % 2 ? mB : mA, second = first == mA ? mB : mA;
    t.lock(t.globalAddr(first));
    if (inverted) t.lock(t.globalAddr(second));
    t.storeGlobalReg(x, t.binImm(BinOp::Add, t.loadGlobal(x), 1));
    if (inverted) t.unlock(t.globalAddr(second));
    t.unlock(t.globalAddr(first));
    t.ret();
    fs.push_back(t.index());
  }
  std::vector<Reg> ids;
  for (uint32_t f : fs) ids.push_back(m.spawn(f));
  for (Reg id : ids) m.joinDiscard(id);
  m.ret();
  return pb.build();
}

Value finalValue(const std::vector<std::pair<Addr, Value>>& state, Addr a) {
  for (const auto& [addr, v] : state)
    if (addr == a) return v;
  return ~Value(0);
}

}  // namespace

// ------------------------------------------------------------------ [naive]

TEST_CASE("naive: trace key format", "[naive]") {
  std::string key = naiveTraceKey({{"T2.0", "T1.0"}, {"T1.1", "init"}},
                                  {{0x10020, {"T2.3"}}, {0x10000, {"T1.0", "T2.3"}}});
  CHECK(key ==
        "co 0x10000 T1.0 T2.3\n"
        "co 0x10020 T2.3\n"
        "rf T1.1 <- init\n"
        "rf T2.0 <- T1.0");
  CHECK(naiveTraceKey({}, {}) == "");
  // std::sort order: "T10.0" sorts before "T2.0".
  CHECK(naiveTraceKey({{"T2.0", "init"}, {"T10.0", "init"}}, {}) ==
        "rf T10.0 <- init\nrf T2.0 <- init");
}

TEST_CASE("naive: store buffering", "[naive]") {
  Program p = storeBuffering();
  NaiveResult sc = exploreNaive(p, Model::SC, -1);
  NaiveResult tso = exploreNaive(p, Model::TSO, -1);
  NaiveResult pso = exploreNaive(p, Model::PSO, -1);
  CHECK(sc.traces.size() == 3);
  CHECK(tso.traces.size() == 4);
  CHECK(pso.traces.size() == 4);
  CHECK(sc.finalStates.size() == 3);
  CHECK(tso.finalStates.size() == 4);
  CHECK(exploreNaive(p, Model::TSO, 0).traces == sc.traces);  // bound 0 = SC
  CHECK(exploreNaive(p, Model::TSO, 1).traces == tso.traces);
  CHECK(exploreNaive(p, Model::PSO, 2).traces == pso.traces);
  for (const NaiveResult* r : {&sc, &tso, &pso}) {
    CHECK(r->errorRuns == 0);
    CHECK(r->deadlockRuns == 0);
    CHECK_FALSE(r->limitHit);
  }

  // The weak outcome, spelled out: both loads read the initial values.
  // Events: T1.0 = x store, T1.1 = y load, T1.2 = r1 store (likewise T2).
  auto addr = [&](int g) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)p.globals[size_t(g)].addr);
    return std::string(buf);
  };
  std::string weak = "co " + addr(0) + " T1.0\n" + "co " + addr(1) + " T2.0\n" + "co " + addr(2) +
                     " T1.2\n" + "co " + addr(3) + " T2.2\n" + "rf T1.1 <- init\nrf T2.1 <- init";
  CHECK(tso.traces.count(weak) == 1);
  CHECK(sc.traces.count(weak) == 0);

  // Every run counts: SC has 2 spawns, 2 joins and 6 accesses per run.
  CHECK(sc.runs > sc.traces.size());
  CHECK(tso.runs > sc.runs);
}

TEST_CASE("naive: message passing", "[naive]") {
  Program p = messagePassing();
  CHECK(exploreNaive(p, Model::SC, -1).traces.size() == 3);
  CHECK(exploreNaive(p, Model::TSO, -1).traces.size() == 3);
  CHECK(exploreNaive(p, Model::PSO, -1).traces.size() == 4);
  CHECK(exploreNaive(p, Model::PSO, 1).traces.size() == 3);  // one pending store: in order
  Program fenced = messagePassing(true);
  CHECK(exploreNaive(fenced, Model::PSO, -1).traces.size() == 3);
  CHECK(exploreNaive(fenced, Model::TSO, -1).traces.size() == 3);
}

TEST_CASE("naive: fences, assertions and own-buffer loads", "[naive]") {
  Program fenced = storeBuffering(true);
  CHECK(exploreNaive(fenced, Model::TSO, -1).traces.size() == 3);
  CHECK(exploreNaive(fenced, Model::PSO, -1).traces.size() == 3);
  // A store-store barrier does not order a store with a later load.
  CHECK(exploreNaive(storeBuffering(false, false, FenceKind::StoreStore), Model::PSO, -1).traces.size() == 4);

  Program sb = storeBuffering(false, true);
  NaiveResult sc = exploreNaive(sb, Model::SC, -1);
  NaiveResult tso = exploreNaive(sb, Model::TSO, -1);
  CHECK(sc.errorRuns == 0);
  CHECK(tso.errorRuns > 0);
  CHECK(tso.errorMessages == std::set<std::string>{"r1 == 0 && r2 == 0"});
  CHECK(tso.traces.size() == 3);  // error runs are not complete

  // A load after the thread's own store reads it from the buffer.
  ProgramBuilder pb("own.c");
  uint32_t x = pb.global("x"), r = pb.global("r");
  auto& m = pb.function("main");
  auto& t = pb.function("t", 1);
  pb.setEntry(m.index());
  t.storeGlobal(x, 5);
  t.storeGlobalReg(r, t.loadGlobal(x));
  t.ret();
  auto& u = pb.function("u", 1);
  u.storeGlobal(x, 7);
  u.ret();
  Reg a = m.spawn(t.index()), b = m.spawn(u.index());
  m.joinDiscard(a);
  m.joinDiscard(b);
  m.ret();
  Program own = pb.build();
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    NaiveResult res = exploreNaive(own, model, -1);
    INFO(modelName(model) << "\n" << showKeys(res.traces));
    // rf T1.1 <- T1.0 or <- T2.0 (u's store in between), times two coherence orders
    CHECK(res.traces.size() == 3);
    const Addr ra = own.globals[r].addr;
    std::set<Value> loaded;
    for (const auto& st : res.finalStates) loaded.insert(finalValue(st, ra));
    CHECK(loaded == std::set<Value>{5, 7});
    for (const std::string& k : res.traces)
      if (k.find("rf T1.1 <- init") != std::string::npos) FAIL("read past its own store:\n" << k);
  }
}

TEST_CASE("naive: PSO store-store barriers order flushes across them only", "[naive]") {
  // T1: x = 1; y = 1; stbar; z = 1     T2: r1 = z; r2 = y; r3 = x
  ProgramBuilder pb("stbar.c");
  uint32_t x = pb.global("x"), y = pb.global("y"), z = pb.global("z");
  uint32_t res = pb.global("res");
  auto& m = pb.function("main");
  auto& t1 = pb.function("t1", 1);
  auto& t2 = pb.function("t2", 1);
  pb.setEntry(m.index());
  t1.storeGlobal(x, 1);
  t1.storeGlobal(y, 1);
  t1.fence(FenceKind::StoreStore);
  t1.storeGlobal(z, 1);
  t1.ret();
  Reg a1 = t2.loadGlobal(z), a2 = t2.loadGlobal(y), a3 = t2.loadGlobal(x);
  Reg packed = t2.bin(BinOp::Or, t2.bin(BinOp::Shl, a1, t2.constant(8)),
                      t2.bin(BinOp::Or, t2.bin(BinOp::Shl, a2, t2.constant(4)), a3));
  t2.storeGlobalReg(res, packed);
  t2.ret();
  Reg a = m.spawn(t1.index()), b = m.spawn(t2.index());
  m.joinDiscard(a);
  m.joinDiscard(b);
  m.ret();
  Program p = pb.build();
  const Addr ra = p.globals[res].addr;
  std::set<Value> outcomes;
  for (const auto& st : exploreNaive(p, Model::PSO, -1).finalStates) outcomes.insert(finalValue(st, ra));
  // z = 1 seen implies y and x seen; y and x may still be seen out of order.
  CHECK(outcomes == std::set<Value>{0x000, 0x001, 0x010, 0x011, 0x111});
  std::set<Value> tso;
  for (const auto& st : exploreNaive(p, Model::TSO, -1).finalStates) tso.insert(finalValue(st, ra));
  CHECK(tso == std::set<Value>{0x000, 0x001, 0x011, 0x111});
}

TEST_CASE("naive: buffer bounds", "[naive]") {
  // T1: x = 1; y = 1; r1 = z     T2: z = 1; fence; r2 = x
  // r1 == 0 && r2 == 0 needs both of T1's stores pending at once.
  ProgramBuilder pb("bound.c");
  uint32_t x = pb.global("x"), y = pb.global("y"), z = pb.global("z");
  uint32_t r1 = pb.global("r1"), r2 = pb.global("r2");
  auto& m = pb.function("main");
  auto& t1 = pb.function("t1", 1);
  auto& t2 = pb.function("t2", 1);
  pb.setEntry(m.index());
  t1.storeGlobal(x, 1);
  t1.storeGlobal(y, 1);
  t1.storeGlobalReg(r1, t1.loadGlobal(z));
  t1.ret();
  t2.storeGlobal(z, 1);
  t2.fence();
  t2.storeGlobalReg(r2, t2.loadGlobal(x));
  t2.ret();
  Reg a = m.spawn(t1.index()), b = m.spawn(t2.index());
  m.joinDiscard(a);
  m.joinDiscard(b);
  m.ret();
  Program p = pb.build();
  const Addr a1 = p.globals[r1].addr, a2 = p.globals[r2].addr;
  auto weak = [&](const NaiveResult& r) {
    for (const auto& st : r.finalStates)
      if (finalValue(st, a1) == 0 && finalValue(st, a2) == 0) return true;
    return false;
  };
  NaiveResult k1 = exploreNaive(p, Model::TSO, 1), k2 = exploreNaive(p, Model::TSO, 2),
              inf = exploreNaive(p, Model::TSO, -1);
  CHECK_FALSE(weak(k1));
  CHECK(weak(k2));
  CHECK(k2.traces == inf.traces);
  CHECK(k1.traces.size() < k2.traces.size());
  CHECK_FALSE(weak(exploreNaive(p, Model::PSO, 1)));
  CHECK(weak(exploreNaive(p, Model::PSO, 2)));
}

TEST_CASE("naive: locks, deadlocks, trylock and join", "[naive]") {
  Program counter = lockedCounter(2);
  const Addr xa = counter.globals[2].addr;
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    NaiveResult r = exploreNaive(counter, model, -1);
    CHECK(r.traces.size() == 2);  // which thread takes the lock first
    CHECK(r.deadlockRuns == 0);
    CHECK(r.errorRuns == 0);
    for (const auto& st : r.finalStates) CHECK(finalValue(st, xa) == 2);
  }

  Program inverted = lockedCounter(2, true);
  NaiveResult d = exploreNaive(inverted, Model::TSO, -1);
  CHECK(d.deadlockRuns > 0);
  CHECK(d.traces.size() == 2);

  // unlock of a mutex the thread does not hold
  ProgramBuilder pb("unlock.c");
  uint32_t mu = pb.global("m");
  uint32_t got1 = pb.global("got1"), got2 = pb.global("got2"), res = pb.global("res");
  auto& m = pb.function("main");
  auto& child = pb.function("child", 1);
  pb.setEntry(m.index());
  child.ret(child.binImm(BinOp::Add, child.param(0), 1));
  m.storeGlobalReg(got1, m.trylock(m.globalAddr(mu)));  // 0: acquired
  m.storeGlobalReg(got2, m.trylock(m.globalAddr(mu)));  // EBUSY
  Reg id = m.spawn(child.index(), m.constant(41));
  m.storeGlobalReg(res, m.join(id));
  m.unlock(m.globalAddr(mu));
  m.unlock(m.globalAddr(mu));  // not held any more
  m.ret();
  Program p = pb.build();
  NaiveResult r = exploreNaive(p, Model::TSO, -1);
  CHECK(r.errorRuns == r.runs);
  CHECK(r.errorMessages == std::set<std::string>{"unlock of a mutex not held"});
  CHECK(r.traces.empty());

  // the same without the second unlock: check the delivered values
  ProgramBuilder pb2("trylock.c");
  mu = pb2.global("m");
  got1 = pb2.global("got1");
  got2 = pb2.global("got2");
  res = pb2.global("res");
  auto& m2 = pb2.function("main");
  auto& child2 = pb2.function("child", 1);
  pb2.setEntry(m2.index());
  child2.ret(child2.binImm(BinOp::Add, child2.param(0), 1));
  m2.storeGlobalReg(got1, m2.trylock(m2.globalAddr(mu)));
  m2.storeGlobalReg(got2, m2.trylock(m2.globalAddr(mu)));
  Reg id2 = m2.spawn(child2.index(), m2.constant(41));
  m2.storeGlobalReg(res, m2.join(id2));
  m2.unlock(m2.globalAddr(mu));
  m2.ret();
  Program q = pb2.build();
  NaiveResult rq = exploreNaive(q, Model::PSO, -1);
  REQUIRE(rq.finalStates.size() == 1);
  const auto& st = *rq.finalStates.begin();
  CHECK(finalValue(st, q.globals[mu].addr) == 0);
  CHECK(finalValue(st, q.globals[got1].addr) == 0);
  CHECK(finalValue(st, q.globals[got2].addr) == 16);
  CHECK(finalValue(st, q.globals[res].addr) == 42);
  CHECK(rq.errorRuns == 0);
  CHECK(rq.traces.size() == 1);
}

TEST_CASE("naive: assume and limits cut runs", "[naive]") {
  // T1: r = x; assume(r == 1)    T2: x = 1
  ProgramBuilder pb("assume.c");
  uint32_t x = pb.global("x");
  auto& m = pb.function("main");
  auto& t1 = pb.function("t1", 1);
  auto& t2 = pb.function("t2", 1);
  pb.setEntry(m.index());
  t1.assume(t1.cmpImm(CmpOp::Eq, t1.loadGlobal(x), 1));
  t1.ret();
  t2.storeGlobal(x, 1);
  t2.ret();
  Reg a = m.spawn(t1.index()), b = m.spawn(t2.index());
  m.joinDiscard(a);
  m.joinDiscard(b);
  m.ret();
  Program p = pb.build();
  for (Model model : {Model::SC, Model::TSO}) {
    NaiveResult r = exploreNaive(p, model, -1);
    CHECK(r.traces.size() == 1);
    CHECK(r.deadlockRuns == 0);
    CHECK(r.errorRuns == 0);
    CHECK(r.runs > 1);
  }

  ProgramBuilder pb2("spin.c");
  auto& s = pb2.function("main");
  pb2.setEntry(s.index());
  Label l = s.newLabel();
  s.bind(l);
  s.jmp(l);
  Program spin = pb2.build();
  Limits limits;
  limits.maxSteps = 1000;
  NaiveResult r = exploreNaive(spin, Model::SC, -1, limits);
  CHECK(r.limitHit);
  CHECK(r.runs == 1);
  CHECK(r.deadlockRuns == 0);
  CHECK(r.traces.empty());
}

TEST_CASE("naive: the subtree cache changes nothing", "[naive]") {
  std::vector<Program> programs;
  programs.push_back(storeBuffering());
  programs.push_back(storeBuffering(false, true));
  programs.push_back(messagePassing());
  programs.push_back(lockedCounter(2, true));
  for (uint64_t seed = 1; seed <= 60; ++seed) programs.push_back(randomProgram(seed));
  Limits limits;
  int compared = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    for (Config c : {Config{Model::SC, -1}, Config{Model::TSO, 1}, Config{Model::TSO, -1},
                     Config{Model::PSO, 2}, Config{Model::PSO, -1}}) {
      NaiveResult a = exploreNaive(programs[i], c.model, c.bound, limits);
      if (a.runs > 5000) continue;  // the plain search visits every run: keep it quick
      compared++;
      NaiveResult b = exploreNaivePlain(programs[i], c.model, c.bound, limits);
      INFO("program " << i << ", " << configName(c));
      CHECK(a.traces == b.traces);
      CHECK(a.finalStates == b.finalStates);
      CHECK(a.runs == b.runs);
      CHECK(a.errorRuns == b.errorRuns);
      CHECK(a.deadlockRuns == b.deadlockRuns);
      CHECK(a.errorMessages == b.errorMessages);
      CHECK(a.limitHit == b.limitHit);
    }
  }
  INFO("compared " << compared);
  CHECK(compared >= 50);
}

// --------------------------------------------------------------- [property]

TEST_CASE("random programs are deterministic and show weak behaviours", "[property]") {
  RandomProgramSpec spec;
  int tsoWeak = 0, psoWeak = 0, psoOverTso = 0;
  const int n = 200;
  for (uint64_t seed = 1; seed <= uint64_t(n); ++seed) {
    Program a = randomProgram(seed, spec), b = randomProgram(seed, spec);
    REQUIRE(a.functions.size() == b.functions.size());
    REQUIRE(a.functions.size() >= 3);  // main and 2-4 threads
    REQUIRE(a.functions.size() <= 5);
    for (size_t f = 0; f < a.functions.size(); ++f) {
      REQUIRE(a.functions[f].code.size() == b.functions[f].code.size());
      for (size_t i = 0; i < a.functions[f].code.size(); ++i) {
        REQUIRE(a.functions[f].code[i].op == b.functions[f].code[i].op);
        REQUIRE(a.functions[f].code[i].imm == b.functions[f].code[i].imm);
      }
    }
    size_t sc = exploreNaive(a, Model::SC, -1).traces.size();
    size_t tso = exploreNaive(a, Model::TSO, -1).traces.size();
    size_t pso = exploreNaive(a, Model::PSO, -1).traces.size();
    tsoWeak += tso > sc;
    psoWeak += pso > sc;
    psoOverTso += pso > tso;
  }
  INFO("TSO > SC: " << tsoWeak << ", PSO > SC: " << psoWeak << ", PSO > TSO: " << psoOverTso);
  CHECK(tsoWeak >= n / 20);
  CHECK(psoWeak >= n / 10);
  CHECK(psoOverTso >= n / 20);
}

namespace {

// Seeds 1..1000 by default (the same programs for every model). For longer
// runs: TSOCHECK_PROPERTY_SEEDS=<count>, TSOCHECK_PROPERTY_FIRST_SEED=<seed>.
uint64_t envOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}
const uint64_t kFirstSeed = envOr("TSOCHECK_PROPERTY_FIRST_SEED", 1);
const uint64_t kPrograms = envOr("TSOCHECK_PROPERTY_SEEDS", 1000);
constexpr int kMaxReportedFailures = 3;

// Compares check() with the naive explorer on one program; returns whether they agree.
bool agrees(const Program& prog, uint64_t seed, Config c) {
  NaiveResult naive = exploreNaive(prog, c.model, c.bound);

  std::vector<std::string> keys;
  std::set<std::vector<std::pair<Addr, Value>>> finals;
  uint64_t blockedCallbacks = 0;
  CheckOptions opts{.model = c.model,
                    .bufferBound = c.bound,
                    .limits = Limits{},
                    .timeLimitSeconds = 0,
                    .stopAtFirstError = false,
                    .onExecution = [&](const ExecutionInfo& info) {
                      if (info.blocked) {
                        blockedCallbacks++;
                        return;
                      }
                      keys.push_back(info.traceKey);
                      finals.insert(info.finalMemory);
                    },
                    .cancel = nullptr,
                    .onProgress = {},
                    .testing = {.checkOrders = true}};
  CheckResult result = check(prog, opts);
  std::set<std::string> keySet(keys.begin(), keys.end());

  bool sameFinals = finals == naive.finalStates;
  bool countOk = result.executions == naive.traces.size();
  bool distinct = keySet.size() == keys.size();
  bool sameKeys = keySet == naive.traces;
  bool noBlocked = result.blocked == 0 && blockedCallbacks == 0;
  bool noErrors = naive.errorRuns == 0 && naive.deadlockRuns == 0 && !result.violation;
  if (sameFinals && countOk && distinct && sameKeys && noBlocked && noErrors) return true;

  INFO("seed " << seed << ", model " << modelName(c.model) << ", bound " << c.bound
               << "  (reproduce: randomProgram(" << seed << ", RandomProgramSpec{}))");
  INFO("check(): status " << statusName(result.status) << ", executions " << result.executions
                          << ", blocked " << result.blocked << ", cut " << result.cut << ", message: "
                          << result.message);
  INFO("naive: " << naive.traces.size() << " traces, " << naive.runs << " runs, "
                 << naive.errorRuns << " error runs, " << naive.deadlockRuns << " deadlocks");
  INFO("trace keys only in naive:\n" << showKeys(minus(naive.traces, keySet)));
  INFO("trace keys only in check():\n" << showKeys(minus(keySet, naive.traces)));
  INFO("naive trace keys:\n" << showKeys(naive.traces));
  INFO("check() trace keys (" << keys.size() << " callbacks):\n" << showKeys(keySet));
  INFO("final states only in naive:\n" << showStates(minus(naive.finalStates, finals)));
  INFO("final states only in check():\n" << showStates(minus(finals, naive.finalStates)));
  CHECK(sameFinals);
  CHECK(result.executions == naive.traces.size());
  CHECK(keys.size() == keySet.size());  // every execution has its own trace
  CHECK(sameKeys);
  CHECK(result.blocked == 0);
  CHECK(blockedCallbacks == 0);
  CHECK(naive.errorRuns == 0);
  CHECK(naive.deadlockRuns == 0);
  CHECK_FALSE(result.violation.has_value());
  return false;
}

void runProperty(const std::vector<Config>& configs) {
  RandomProgramSpec spec;
  int failures = 0;
  uint64_t checked = 0;
  for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kPrograms; ++seed) {
    Program prog = randomProgram(seed, spec);
    for (Config c : configs) {
      checked++;
      if (!agrees(prog, seed, c) && ++failures >= kMaxReportedFailures) {
        FAIL("stopping after " << failures << " disagreeing programs");
      }
    }
  }
  CHECK(checked == kPrograms * configs.size());
}

}  // namespace

TEST_CASE("DPOR matches the naive explorer on random programs: SC", "[property]") {
  runProperty({{Model::SC, -1}, {Model::TSO, 0}});
}

TEST_CASE("DPOR matches the naive explorer on random programs: TSO", "[property]") {
  runProperty({{Model::TSO, 1}, {Model::TSO, 2}, {Model::TSO, -1}});
}

TEST_CASE("DPOR matches the naive explorer on random programs: PSO", "[property]") {
  runProperty({{Model::PSO, 1}, {Model::PSO, 2}, {Model::PSO, -1}});
}

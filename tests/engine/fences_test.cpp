// Fence synthesis on builder-made programs: the litmus tests, Peterson's
// algorithm with a spin loop (jump targets move when fences are inserted),
// and a program whose bug exists under SC.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "engine/fences.h"
#include "tests/engine/random_programs.h"

using namespace tsocheck;

namespace {

CheckOptions under(Model m) {
  CheckOptions o;
  o.model = m;
  return o;
}

// The positions must be stores; returns their functions' names.
std::multiset<std::string> fencedFunctions(const Program& p, const std::vector<FencePosition>& fs) {
  std::multiset<std::string> out;
  for (const FencePosition& f : fs) {
    REQUIRE(f.function < p.functions.size());
    REQUIRE(f.pc < p.functions[f.function].code.size());
    CHECK(p.functions[f.function].code[f.pc].op == Op::Store);
    CHECK(f.loc.line == p.functions[f.function].code[f.pc].loc.line);
    out.insert(p.functions[f.function].name);
  }
  return out;
}

// Synthesis must succeed; the fenced program must pass.
FenceSynthesisResult fixedBy(const Program& p, Model m, const CheckResult* first = nullptr) {
  FenceSynthesisResult r = synthesizeFences(p, under(m), first);
  INFO(modelName(m) << ": " << r.message);
  REQUIRE(r.outcome == FenceOutcome::Fixed);
  CHECK(r.minimal);
  CHECK(check(insertFences(p, r.fences), under(m)).status == Status::Verified);
  return r;
}

// Peterson's lock for two threads, each entering the critical section once;
// the critical section counts in `inside` and asserts mutual exclusion.
// flag[i] = 1; turn = 1-i; await !(flag[1-i] && turn == 1-i); ...
Program peterson(bool fenced) {
  ProgramBuilder pb("peterson.c");
  uint32_t flag0 = pb.global("flag0"), flag1 = pb.global("flag1"), turn = pb.global("turn");
  uint32_t inside = pb.global("inside");
  std::vector<uint32_t> threads;
  for (int i = 0; i < 2; ++i) {
    FunctionBuilder& f = pb.function("t" + std::to_string(i), 1);
    uint32_t line = 10 + 10 * uint32_t(i);
    f.at(line++, 3).storeGlobal(i == 0 ? flag0 : flag1, 1);
    f.at(line++, 3).storeGlobal(turn, Value(1 - i));
    if (fenced) f.at(line - 1, 3).fence();
    // The wait loop as the frontend lowers it: its reads + assume.
    Reg other = f.at(line, 3).loadGlobal(i == 0 ? flag1 : flag0);
    Reg t = f.at(line++, 3).loadGlobal(turn);
    Reg waits = f.bin(BinOp::And, f.cmpImm(CmpOp::Ne, other, 0), f.cmpImm(CmpOp::Eq, t, Value(1 - i)));
    f.assume(f.cmpImm(CmpOp::Eq, waits, 0));
    // Critical section; the check is a branch (jumps move when fences go in).
    Reg in = f.at(line++, 3).rmwGlobal(RmwOp::Add, inside, 1);
    auto ok = f.newLabel(), bad = f.newLabel();
    f.br(f.cmpImm(CmpOp::Eq, in, 0), ok, bad);
    f.bind(bad);
    f.at(line, 3).fail("mutual exclusion");
    f.bind(ok);
    ++line;
    f.at(line++, 3).rmwGlobal(RmwOp::Sub, inside, 1);
    f.at(line++, 3).storeGlobal(i == 0 ? flag0 : flag1, 0);
    f.at(line++, 3).ret(f.constant(0));
    threads.push_back(f.index());
  }
  FunctionBuilder& m = pb.function("main", 0);
  Reg a = m.at(40, 3).spawn(threads[0]);
  Reg b = m.at(41, 3).spawn(threads[1]);
  m.at(42, 3).joinDiscard(a);
  m.at(43, 3).joinDiscard(b);
  m.at(44, 3).ret(m.constant(0));
  pb.setEntry(m.index());
  return pb.build();
}

}  // namespace

TEST_CASE("fences: SB needs one fence per thread under TSO and PSO", "[fences]") {
  const Program& p = litmus::byName("SB").program;
  for (Model m : {Model::TSO, Model::PSO}) {
    FenceSynthesisResult r = fixedBy(p, m);
    REQUIRE(r.fences.size() == 2);
    CHECK(fencedFunctions(p, r.fences) == std::multiset<std::string>{"t1", "t2"});
    // One fence alone does not fix it.
    CHECK(check(insertFences(p, {r.fences[0]}), under(m)).status == Status::Violation);
    CHECK(check(insertFences(p, {r.fences[1]}), under(m)).status == Status::Violation);
  }
}

TEST_CASE("fences: MP needs one store-store fence in the writer under PSO, none under TSO", "[fences]") {
  const Program& p = litmus::byName("MP").program;
  FenceSynthesisResult pso = fixedBy(p, Model::PSO);
  REQUIRE(pso.fences.size() == 1);
  CHECK(fencedFunctions(p, pso.fences) == std::multiset<std::string>{"t1"});
  // The fence goes after the data store (x), the first store of t1.
  const Function& t1 = p.functions[pso.fences[0].function];
  size_t firstStore = 0;
  while (t1.code[firstStore].op != Op::Store) ++firstStore;
  CHECK(pso.fences[0].pc == firstStore);

  FenceSynthesisResult tso = synthesizeFences(p, under(Model::TSO));
  CHECK(tso.outcome == FenceOutcome::NotNeeded);
  CHECK(tso.fences.empty());
}

TEST_CASE("fences: 2+2W needs two fences under PSO", "[fences]") {
  const Program& p = litmus::byName("2+2W").program;
  FenceSynthesisResult r = fixedBy(p, Model::PSO);
  CHECK(r.fences.size() == 2);
  CHECK(fencedFunctions(p, r.fences) == std::multiset<std::string>{"t1", "t2"});
}

TEST_CASE("fences: programs that pass get none", "[fences]") {
  for (const char* name : {"SB+fences", "LB", "IRIW"})
    for (Model m : {Model::TSO, Model::PSO}) {
      INFO(name << " " << modelName(m));
      FenceSynthesisResult r = synthesizeFences(litmus::byName(name).program, under(m));
      CHECK(r.outcome == FenceOutcome::NotNeeded);
      CHECK(r.fences.empty());
      CHECK(r.rounds == 0);
    }
}

TEST_CASE("fences: Peterson needs two fences under TSO, fenced Peterson none", "[fences]") {
  Program p = peterson(false);
  REQUIRE(check(p, under(Model::SC)).status == Status::Verified);
  CheckResult first = check(p, under(Model::TSO));
  REQUIRE(first.status == Status::Violation);
  FenceSynthesisResult r = fixedBy(p, Model::TSO, &first);
  CHECK(r.fences.size() == 2);
  CHECK(fencedFunctions(p, r.fences) == std::multiset<std::string>{"t0", "t1"});

  FenceSynthesisResult none = synthesizeFences(peterson(true), under(Model::TSO));
  CHECK(none.outcome == FenceOutcome::NotNeeded);
}

TEST_CASE("fences: synthesis gives up honestly when its budget runs out", "[fences]") {
  const Program& p = litmus::byName("SB").program;
  CheckResult first = check(p, under(Model::TSO));
  REQUIRE(first.status == Status::Violation);
  FenceSynthesisOptions tiny;
  tiny.timeBudgetSeconds = 1e-9;
  FenceSynthesisResult r = synthesizeFences(p, under(Model::TSO), &first, tiny);
  CHECK(r.outcome == FenceOutcome::GaveUp);
  CHECK(r.fences.empty());
  CHECK(r.message.find("gave up") != std::string::npos);
  CHECK(r.message.find("timeout") != std::string::npos);
  // One round is not enough for SB (two fences, one counterexample at a time).
  FenceSynthesisOptions oneRound;
  oneRound.maxRounds = 1;
  r = synthesizeFences(p, under(Model::TSO), &first, oneRound);
  CHECK(r.outcome == FenceOutcome::GaveUp);
  CHECK(r.fences.empty());
  CHECK(r.message == "synthesis gave up after 1 round");
}

TEST_CASE("fences: a bug that exists under SC cannot be fixed by fences", "[fences]") {
  // Two unsynchronised increments: the lost update happens under SC.
  ProgramBuilder pb("race.c");
  uint32_t x = pb.global("x");
  FunctionBuilder& t = pb.function("inc", 1);
  Reg v = t.at(3, 3).loadGlobal(x);
  t.at(3, 3).storeGlobalReg(x, t.binImm(BinOp::Add, v, 1));
  t.at(4, 3).ret(t.constant(0));
  FunctionBuilder& m = pb.function("main", 0);
  Reg a = m.at(7, 3).spawn(t.index());
  Reg b = m.at(8, 3).spawn(t.index());
  m.at(9, 3).joinDiscard(a);
  m.at(10, 3).joinDiscard(b);
  m.at(11, 3).assertTrue(m.cmpImm(CmpOp::Eq, m.loadGlobal(x), 2), "both increments");
  m.at(12, 3).ret(m.constant(0));
  pb.setEntry(m.index());
  Program p = pb.build();
  for (Model model : {Model::TSO, Model::PSO, Model::SC}) {
    FenceSynthesisResult r = synthesizeFences(p, under(model));
    CHECK(r.outcome == FenceOutcome::ScViolation);
    CHECK(r.fences.empty());
    CHECK(r.message.find("no fence can fix it") != std::string::npos);
  }
}

TEST_CASE("fences: insertFences keeps control flow and maps pcs back", "[fences]") {
  Program p = peterson(false);
  // A fence after every store of both threads.
  std::vector<FencePosition> all;
  for (uint32_t f = 0; f < p.functions.size(); ++f)
    for (uint32_t pc = 0; pc < p.functions[f].code.size(); ++pc)
      if (p.functions[f].code[pc].op == Op::Store) all.push_back(FencePosition{f, pc, {}});
  std::vector<std::vector<uint32_t>> back;
  Program q = insertFences(p, all, &back);
  for (uint32_t f = 0; f < p.functions.size(); ++f) {
    size_t stores = 0;
    for (const Instr& in : p.functions[f].code) stores += in.op == Op::Store;
    CHECK(q.functions[f].code.size() == p.functions[f].code.size() + stores);
    REQUIRE(back[f].size() == q.functions[f].code.size());
    for (uint32_t pc = 0; pc < q.functions[f].code.size(); ++pc) {
      const Instr& in = q.functions[f].code[pc];
      if (in.op == Op::Fence) {
        CHECK(p.functions[f].code[back[f][pc]].op == Op::Store);
        continue;
      }
      CHECK(in.op == p.functions[f].code[back[f][pc]].op);
      if (in.op == Op::Jmp || in.op == Op::Br) {
        // Jumps land on the moved copy of their old target.
        CHECK(back[f][size_t(in.imm)] == uint32_t(p.functions[f].code[back[f][pc]].imm));
      }
    }
  }
  CHECK(check(q, under(Model::TSO)).status == Status::Verified);
  CHECK(check(q, under(Model::PSO)).status == Status::Verified);
}

TEST_CASE("fences: minimum hitting set is exact and honours its caps", "[fences]") {
  auto P = [](uint32_t pc) { return FencePosition{0, pc, {}}; };
  bool exact = false;
  // {1,2}, {2,3}, {3,4}: {2,3} (or {1,3}, {2,4}) — size 2, lexicographically first hitting set is {1,3}.
  auto h = minimumHittingSet({{P(1), P(2)}, {P(2), P(3)}, {P(3), P(4)}}, 5, 1000, &exact);
  CHECK(exact);
  REQUIRE(h.size() == 2);
  CHECK(h[0].pc == 1);
  CHECK(h[1].pc == 3);
  // A common element wins.
  h = minimumHittingSet({{P(1), P(5)}, {P(2), P(5)}, {P(3), P(5)}}, 5, 1000, &exact);
  REQUIRE(h.size() == 1);
  CHECK(h[0].pc == 5);
  // Size cap.
  CHECK(minimumHittingSet({{P(1)}, {P(2)}, {P(3)}}, 2, 1000, &exact).empty());
  // An empty set cannot be hit.
  CHECK(minimumHittingSet({{P(1)}, {}}, 5, 1000, &exact).empty());
  // Budget exhausted: greedy, still a hitting set.
  h = minimumHittingSet({{P(1)}, {P(2)}, {P(3)}, {P(4)}}, 5, 3, &exact);
  CHECK_FALSE(exact);
  CHECK(h.size() == 4);
}

namespace {

// p plus, at the end of main, an assertion that the final values of all
// globals form an outcome that some SC execution of p reaches. A failure
// under TSO/PSO is then exactly a non-SC outcome, and a fence set that makes
// the check pass makes every outcome SC.
Program withScOutcomeAssert(const Program& p) {
  std::set<std::vector<Value>> outcomes;
  auto initial = [&](const Global& g) {
    Value v = 0;
    for (size_t i = 0; i < g.init.size() && i < 8; ++i) v |= Value(g.init[i]) << (8 * i);
    return v;
  };
  CheckOptions o = under(Model::SC);
  o.stopAtFirstError = false;
  o.onExecution = [&](const ExecutionInfo& info) {
    if (info.blocked) return;
    std::vector<Value> vals;
    for (const Global& g : p.globals) {
      Value v = initial(g);
      for (const auto& [addr, value] : info.finalMemory)
        if (addr == g.addr) v = value;
      vals.push_back(v);
    }
    outcomes.insert(vals);
  };
  REQUIRE(check(p, o).status == Status::Verified);

  Program q = p;
  Function& m = q.functions[q.entry];
  REQUIRE(m.code.back().op == Op::Ret);
  m.code.pop_back();
  auto reg = [&]() { return Reg(m.numRegs++); };
  auto emit = [&](Op op, Reg a, Reg b = kNoReg, Reg c = kNoReg, int64_t imm = 0, uint8_t sub = 0, uint8_t size = 0) {
    Instr in;
    in.op = op, in.a = a, in.b = b, in.c = c, in.imm = imm, in.sub = sub, in.size = size;
    m.code.push_back(in);
    return a;
  };
  std::vector<Reg> vals;
  for (size_t g = 0; g < q.globals.size(); ++g) {
    Reg addr = emit(Op::GlobalAddr, reg(), kNoReg, kNoReg, int64_t(g));
    vals.push_back(emit(Op::Load, reg(), addr, kNoReg, 0, 0, uint8_t(q.globals[g].size)));
  }
  Reg any = emit(Op::Const, reg(), kNoReg, kNoReg, 0);
  for (const std::vector<Value>& out : outcomes) {
    Reg all = emit(Op::Const, reg(), kNoReg, kNoReg, 1);
    for (size_t g = 0; g < vals.size(); ++g) {
      Reg c = emit(Op::Const, reg(), kNoReg, kNoReg, int64_t(out[g]));
      Reg eq = emit(Op::Cmp, reg(), vals[g], c, 0, uint8_t(CmpOp::Eq));
      all = emit(Op::Bin, reg(), all, eq, 0, uint8_t(BinOp::And));
    }
    any = emit(Op::Bin, reg(), any, all, 0, uint8_t(BinOp::Or));
  }
  m.code.push_back(Instr{});
  m.code.back().op = Op::Assert;
  m.code.back().a = any;
  m.code.back().name = q.intern("the outcome is not sequentially consistent");
  emit(Op::Ret, kNoReg);
  return q;
}

}  // namespace

TEST_CASE("fences: random programs get a minimum fence set that makes every outcome SC", "[fences][property]") {
  size_t fixed = 0, multi = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    testing::RandomProgramSpec spec;
    spec.maxThreads = 3;
    Program q = withScOutcomeAssert(testing::randomProgram(seed, spec));
    std::vector<FencePosition> stores;
    for (uint32_t f = 0; f < q.functions.size(); ++f)
      for (uint32_t pc = 0; pc < q.functions[f].code.size(); ++pc)
        if (q.functions[f].code[pc].op == Op::Store) stores.push_back(FencePosition{f, pc, {}});
    for (Model m : {Model::TSO, Model::PSO}) {
      INFO("seed " << seed << " " << modelName(m));
      CheckResult first = check(q, under(m));
      REQUIRE(first.status != Status::Error);
      if (first.status != Status::Violation) {
        CHECK(synthesizeFences(q, under(m), &first).outcome == FenceOutcome::NotNeeded);
        continue;
      }
      FenceSynthesisResult r = fixedBy(q, under(m).model, &first);
      ++fixed;
      multi += r.fences.size() > 1;
      // Minimal: no smaller set of positions after stores works (brute force).
      if (stores.size() > 16) continue;
      const size_t n = stores.size();
      for (uint32_t mask = 0; mask < (1u << n); ++mask) {
        if (size_t(__builtin_popcount(mask)) >= r.fences.size()) continue;
        std::vector<FencePosition> subset;
        for (size_t i = 0; i < n; ++i)
          if (mask & (1u << i)) subset.push_back(stores[i]);
        INFO("a smaller fence set works: mask " << mask);
        CHECK(check(insertFences(q, subset), under(m)).status == Status::Violation);
      }
    }
  }
  CHECK(fixed >= 80);
  CHECK(multi >= 25);
  WARN("fixed " << fixed << " programs, " << multi << " needing more than one fence");
}

TEST_CASE("fences: sameProgram ignores locations and pure instructions around a fence, nothing else", "[fences]") {
  Program p = peterson(false);
  std::vector<FencePosition> stores;
  for (uint32_t f = 0; f < p.functions.size(); ++f)
    for (uint32_t pc = 0; pc < p.functions[f].code.size(); ++pc)
      if (p.functions[f].code[pc].op == Op::Store) stores.push_back(FencePosition{f, pc, {}});
  REQUIRE(stores.size() >= 2);
  const Program one = insertFences(p, {stores[0]});
  CHECK(sameProgram(one, one));
  CHECK_FALSE(sameProgram(one, p));
  CHECK_FALSE(sameProgram(one, insertFences(p, {stores[1]})));
  // Other lines (an #include added at the top): the same program.
  Program shifted = one;
  for (Function& f : shifted.functions)
    for (Instr& in : f.code) in.loc.line += 1;
  CHECK(sameProgram(one, shifted));
  // The fence after a register-only instruction that follows the store (a
  // fence after the statement): the same; after a load: not.
  Program later = one;
  for (Function& f : later.functions) {
    auto& c = f.code;
    for (size_t pc = 0; pc + 1 < c.size(); ++pc)
      if (c[pc].op == Op::Fence) {
        Instr pure;
        pure.op = Op::Const;
        pure.a = 0;
        pure.imm = 7;
        // Build both orders in copies of this function.
        std::vector<Instr> a = c, b = c;
        a.insert(a.begin() + long(pc), pure);      // const, fence
        b.insert(b.begin() + long(pc) + 1, pure);  // fence, const
        Program pa = one, pb = one;
        pa.functions[size_t(&f - &later.functions[0])].code = a;
        pb.functions[size_t(&f - &later.functions[0])].code = b;
        CHECK(sameProgram(pa, pb));
        Instr load;
        load.op = Op::Load;
        load.a = 0;
        load.b = 0;
        load.size = 4;
        a[pc] = load;
        b[pc + 1] = load;
        pa.functions[size_t(&f - &later.functions[0])].code = a;
        pb.functions[size_t(&f - &later.functions[0])].code = b;
        CHECK_FALSE(sameProgram(pa, pb));
        break;
      }
  }
}

// RC11 (engine/rc11.h): the classic litmus shapes with their RC11 outcomes,
// each relaxed, release/acquire and seq_cst, with fences and release
// sequences: whether the weak outcome is allowed and the exact number of
// consistent executions (one per (rf, co) graph), for the graph explorer and
// for the naive explorer's own RC11 check alike.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/fences.h"
#include "engine/order_fix.h"
#include "engine/rc11.h"
#include "tests/engine/naive_explorer.h"

using namespace tsocheck;

namespace {

enum class V { Rlx, RelAcq, SC };  // the variant: every access relaxed, release/acquire, seq_cst

struct Op {
  enum Kind { Store, Load, Fence, FetchAdd, Cas } kind = Store;
  int loc = 0;
  Value value = 0;  // Store; FetchAdd: the operand; Cas: the value it writes
  int reg = 0;      // Load / FetchAdd / Cas: the register (1-based) it fills
  // The order, when not the variant's (Fence, Cas: always given).
  bool fixed = false;
  MemOrder order = MemOrder::Relaxed;
  MemOrder failOrder = MemOrder::Relaxed;  // Cas: the order of a failed compare-exchange
  Value expected = 0;                      // Cas
};
Op st(int loc, Value v) { return Op{Op::Store, loc, v, 0}; }
Op ld(int reg, int loc) { return Op{Op::Load, loc, 0, reg}; }
Op fence(MemOrder o) { return Op{Op::Fence, 0, 0, 0, true, o}; }
Op with(Op op, MemOrder o) {
  op.fixed = true;
  op.order = o;
  return op;
}
Op faa(int reg, int loc, Value v) { return Op{Op::FetchAdd, loc, v, reg}; }
// r = compare-exchange of loc from `expected` to `desired` (success order
// `success`, failure order `failure`).
Op cas(int reg, int loc, Value expected, Value desired, MemOrder success, MemOrder failure) {
  return Op{Op::Cas, loc, desired, reg, true, success, failure, expected};
}

// A conjunct of the weak outcome: register r == v (isReg) or location l ends == v.
struct Cond {
  bool isReg;
  int index;
  Value value;
};
Cond reg(int r, Value v) { return Cond{true, r, v}; }
Cond fin(int l, Value v) { return Cond{false, l, v}; }

struct Shape {
  std::string name;
  int locs;
  std::vector<std::vector<Op>> threads;
  std::vector<Cond> weak;
};

MemOrder orderOf(const Op& op, V v) {
  if (op.fixed) return op.order;
  if (v == V::SC) return MemOrder::SeqCst;
  if (v == V::Rlx) return MemOrder::Relaxed;
  return op.kind == Op::Store ? MemOrder::Release : op.kind == Op::Load ? MemOrder::Acquire : MemOrder::AcqRel;
}

// main spawns the threads, joins them, reads the registers (plain result
// globals) and the locations, and asserts that the weak outcome did not
// happen (check: false, it only computes it).
Program build(const Shape& s, V v, bool check = true) {
  ProgramBuilder pb(s.name + ".c");
  std::vector<uint32_t> loc, res;
  for (int i = 0; i < s.locs; ++i) loc.push_back(pb.global(std::string(1, char('x' + i % 3)) + std::to_string(i)));
  int regs = 0;
  for (const auto& t : s.threads)
    for (const Op& op : t) regs = std::max(regs, op.reg);
  for (int i = 1; i <= regs; ++i) res.push_back(pb.global("r" + std::to_string(i)));
  std::vector<uint32_t> funcs;
  uint32_t line = 1;
  for (size_t t = 0; t < s.threads.size(); ++t) {
    FunctionBuilder& f = pb.function("t" + std::to_string(t + 1), 1);
    for (const Op& op : s.threads[t]) {
      f.at(line++);
      switch (op.kind) {
        case Op::Store: f.storeGlobal(loc[size_t(op.loc)], op.value); break;
        case Op::Fence: f.fence(); break;
        case Op::Load: {
          const Reg r = f.loadGlobal(loc[size_t(op.loc)]);
          f.setOrder(orderOf(op, v));
          f.storeGlobalReg(res[size_t(op.reg - 1)], r);
          f.markPlain();
          continue;
        }
        case Op::FetchAdd: {
          const Reg r = f.rmwGlobal(RmwOp::Add, loc[size_t(op.loc)], op.value);
          f.setOrder(orderOf(op, v));
          f.storeGlobalReg(res[size_t(op.reg - 1)], r);
          f.markPlain();
          continue;
        }
        case Op::Cas: {
          const Reg r = f.casGlobal(loc[size_t(op.loc)], op.expected, op.value);
          f.setOrder(op.order);
          f.setFailOrder(op.failOrder);
          f.storeGlobalReg(res[size_t(op.reg - 1)], r);
          f.markPlain();
          continue;
        }
      }
      f.setOrder(orderOf(op, v));
    }
    f.at(line++).ret(f.constant(0));
    funcs.push_back(f.index());
  }
  FunctionBuilder& m = pb.function("main", 0);
  std::vector<Reg> tids;
  for (uint32_t fn : funcs) tids.push_back(m.at(line++).spawn(fn));
  for (Reg t : tids) m.at(line++).joinDiscard(t);
  Reg all = m.constant(1);
  for (const Cond& c : s.weak) {
    const Reg x = m.loadGlobal(c.isReg ? res[size_t(c.index - 1)] : loc[size_t(c.index)]);
    m.markPlain();
    all = m.bin(BinOp::And, all, m.cmpImm(CmpOp::Eq, x, c.value));
  }
  if (check) m.at(line++).assertTrue(m.cmpImm(CmpOp::Eq, all, 0), "weak outcome");
  m.ret(m.constant(0));
  pb.setEntry(m.index());
  return pb.build();
}

struct Expect {
  bool weak;            // the weak outcome is allowed
  uint64_t executions;  // consistent executions (one per (rf, co) graph)
};

CheckResult runRc11(const Program& p) {
  CheckOptions o;
  o.model = Model::RC11;
  return check(p, o);
}

void expectOutcome(const Shape& s, V v, Expect e) {
  const char* vn = v == V::Rlx ? "relaxed" : v == V::RelAcq ? "rel/acq" : "seq_cst";
  CAPTURE(s.name, vn);
  const Program p = build(s, v);
  const CheckResult r = runRc11(p);
  CHECK(bool(r.violation) == e.weak);
  CHECK(r.status == (e.weak ? Status::Violation : Status::Verified));
  const testing::NaiveResult n = testing::exploreNaive(p, Model::RC11, -1);
  CHECK((n.errorRuns > 0) == e.weak);
  // Without the assertion every graph is a complete execution.
  const Program all = build(s, v, false);
  const CheckResult ra = runRc11(all);
  CHECK(ra.executions == e.executions);
  CHECK(testing::exploreNaive(all, Model::RC11, -1).traces.size() == e.executions);
}

const int x = 0, y = 1, z = 2;
const MemOrder Rlx = MemOrder::Relaxed, Rel = MemOrder::Release, Acq = MemOrder::Acquire,
               SC = MemOrder::SeqCst;

}  // namespace

TEST_CASE("RC11 litmus: MP, SB, LB", "[rc11][litmus]") {
  const Shape mp{"MP", 2, {{st(x, 1), st(y, 1)}, {ld(1, y), ld(2, x)}}, {reg(1, 1), reg(2, 0)}};
  expectOutcome(mp, V::Rlx, {true, 4});
  expectOutcome(mp, V::RelAcq, {false, 3});
  expectOutcome(mp, V::SC, {false, 3});
  const Shape sb{"SB", 2, {{st(x, 1), ld(1, y)}, {st(y, 1), ld(2, x)}}, {reg(1, 0), reg(2, 0)}};
  expectOutcome(sb, V::Rlx, {true, 4});
  expectOutcome(sb, V::RelAcq, {true, 4});
  expectOutcome(sb, V::SC, {false, 3});
  // po ∪ rf acyclic: no load buffering, whatever the orders.
  const Shape lb{"LB", 2, {{ld(1, x), st(y, 1)}, {ld(2, y), st(x, 1)}}, {reg(1, 1), reg(2, 1)}};
  expectOutcome(lb, V::Rlx, {false, 3});
  expectOutcome(lb, V::RelAcq, {false, 3});
  expectOutcome(lb, V::SC, {false, 3});
}

TEST_CASE("RC11 litmus: IRIW, WRC, ISA2", "[rc11][litmus]") {
  const Shape iriw{"IRIW", 2,
                   {{st(x, 1)}, {st(y, 1)}, {ld(1, x), ld(2, y)}, {ld(3, y), ld(4, x)}},
                   {reg(1, 1), reg(2, 0), reg(3, 1), reg(4, 0)}};
  expectOutcome(iriw, V::Rlx, {true, 16});
  expectOutcome(iriw, V::RelAcq, {true, 16});
  expectOutcome(iriw, V::SC, {false, 15});
  const Shape wrc{"WRC", 2, {{st(x, 1)}, {ld(1, x), st(y, 1)}, {ld(2, y), ld(3, x)}}, {reg(1, 1), reg(2, 1), reg(3, 0)}};
  expectOutcome(wrc, V::Rlx, {true, 8});
  expectOutcome(wrc, V::RelAcq, {false, 7});
  expectOutcome(wrc, V::SC, {false, 7});
  const Shape isa2{"ISA2", 3,
                   {{st(x, 1), st(y, 1)}, {ld(1, y), st(z, 1)}, {ld(2, z), ld(3, x)}},
                   {reg(1, 1), reg(2, 1), reg(3, 0)}};
  expectOutcome(isa2, V::Rlx, {true, 8});
  expectOutcome(isa2, V::RelAcq, {false, 7});
  expectOutcome(isa2, V::SC, {false, 7});
}

TEST_CASE("RC11 litmus: 2+2W, R, S, RWC, Z6", "[rc11][litmus]") {
  const Shape w22{"2+2W", 2, {{st(x, 1), st(y, 2)}, {st(y, 1), st(x, 2)}}, {fin(x, 1), fin(y, 1)}};
  expectOutcome(w22, V::Rlx, {true, 4});
  expectOutcome(w22, V::RelAcq, {true, 4});  // no reads: nothing synchronises
  expectOutcome(w22, V::SC, {false, 3});
  const Shape r{"R", 2, {{st(x, 1), st(y, 1)}, {st(y, 2), ld(1, x)}}, {fin(y, 2), reg(1, 0)}};
  expectOutcome(r, V::Rlx, {true, 4});
  expectOutcome(r, V::RelAcq, {true, 4});
  expectOutcome(r, V::SC, {false, 3});
  const Shape s{"S", 2, {{st(x, 2), st(y, 1)}, {ld(1, y), st(x, 1)}}, {reg(1, 1), fin(x, 2)}};
  expectOutcome(s, V::Rlx, {true, 4});
  expectOutcome(s, V::RelAcq, {false, 3});
  expectOutcome(s, V::SC, {false, 3});
  const Shape rwc{"RWC", 2, {{st(x, 1)}, {ld(1, x), ld(2, y)}, {st(y, 1), ld(3, x)}}, {reg(1, 1), reg(2, 0), reg(3, 0)}};
  expectOutcome(rwc, V::Rlx, {true, 8});
  expectOutcome(rwc, V::RelAcq, {true, 8});
  expectOutcome(rwc, V::SC, {false, 7});
  const Shape z6{"Z6", 3, {{st(x, 1), st(y, 1)}, {st(y, 2), st(z, 1)}, {ld(1, z), ld(2, x)}}, {fin(y, 2), reg(1, 1), reg(2, 0)}};
  expectOutcome(z6, V::Rlx, {true, 8});
  expectOutcome(z6, V::RelAcq, {true, 8});
  expectOutcome(z6, V::SC, {false, 7});
}

TEST_CASE("RC11 fences: release/acquire and seq_cst fences restore the strong outcome", "[rc11][litmus]") {
  // MP with relaxed accesses and a release fence / acquire fence between them.
  const Shape mpF{"MP+fences", 2, {{st(x, 1), fence(Rel), st(y, 1)}, {ld(1, y), fence(Acq), ld(2, x)}}, {reg(1, 1), reg(2, 0)}};
  expectOutcome(mpF, V::Rlx, {false, 3});
  // Only one side fenced: still weak.
  const Shape mpHalf{"MP+fence", 2, {{st(x, 1), fence(Rel), st(y, 1)}, {ld(1, y), ld(2, x)}}, {reg(1, 1), reg(2, 0)}};
  expectOutcome(mpHalf, V::Rlx, {true, 4});
  // A release fence before a relaxed store synchronises with an acquire load.
  const Shape mpFenceLoad{"MP+fence+acq", 2, {{st(x, 1), fence(Rel), st(y, 1)}, {with(ld(1, y), Acq), ld(2, x)}},
                          {reg(1, 1), reg(2, 0)}};
  expectOutcome(mpFenceLoad, V::Rlx, {false, 3});
  // SB: seq_cst fences forbid it, release/acquire fences do not.
  const Shape sbF{"SB+scfences", 2, {{st(x, 1), fence(SC), ld(1, y)}, {st(y, 1), fence(SC), ld(2, x)}}, {reg(1, 0), reg(2, 0)}};
  expectOutcome(sbF, V::Rlx, {false, 3});
  const Shape sbRA{"SB+acqrelfences", 2,
                   {{st(x, 1), fence(MemOrder::AcqRel), ld(1, y)}, {st(y, 1), fence(MemOrder::AcqRel), ld(2, x)}},
                   {reg(1, 0), reg(2, 0)}};
  expectOutcome(sbRA, V::Rlx, {true, 4});
  // IRIW with seq_cst fences between the readers' loads (psc_F).
  const Shape iriwF{"IRIW+scfences", 2,
                    {{st(x, 1)}, {st(y, 1)}, {ld(1, x), fence(SC), ld(2, y)}, {ld(3, y), fence(SC), ld(4, x)}},
                    {reg(1, 1), reg(2, 0), reg(3, 1), reg(4, 0)}};
  expectOutcome(iriwF, V::Rlx, {false, 15});
}

TEST_CASE("RC11 release sequences as in C++20: RMWs continue them, the writer's relaxed stores do not", "[rc11]") {
  // T1 releases y = 1, then stores y = 2 relaxed; T2 acquires y == 2: no
  // synchronisation (the C++11 release sequence would have included y = 2).
  const Shape own{"RS+own", 2, {{st(x, 1), with(st(y, 1), Rel), st(y, 2)}, {with(ld(1, y), Acq), ld(2, x)}},
                  {reg(1, 2), reg(2, 0)}};
  expectOutcome(own, V::Rlx, {true, 5});
  // Another thread's relaxed RMW on y continues the release sequence: the
  // acquire that reads the RMW's value synchronises with T1's release store.
  const Shape rmw{"RS+rmw", 2, {{st(x, 1), with(st(y, 1), Rel)}, {faa(3, y, 1)}, {with(ld(1, y), Acq), ld(2, x)}},
                  {reg(3, 1), reg(1, 2), reg(2, 0)}};
  expectOutcome(rmw, V::Rlx, {false, 9});
}

TEST_CASE("RC11 compare-exchange: a failed CAS reads with its failure order", "[rc11][litmus]") {
  // MP whose reader takes the flag with a CAS from 0 to 2 (success order
  // acq_rel): when the CAS fails it read the release store y = 1, and it
  // synchronises with it only when its failure order acquires. A relaxed
  // failure order lets the stale x = 0 through; acquire or seq_cst forbid it.
  const MemOrder AcqRel = MemOrder::AcqRel;
  for (MemOrder failure : {Rlx, Acq, SC}) {
    CAPTURE(memOrderName(failure));
    const Shape mpCas{"MP+cas", 2, {{st(x, 1), with(st(y, 1), Rel)}, {cas(1, y, 0, 2, AcqRel, failure), ld(2, x)}},
                      {reg(1, 1), reg(2, 0)}};
    // The CAS succeeds on y's initial value (x read as 0 or 1: nothing
    // synchronises), or fails on y = 1 (x = 1, and x = 0 when relaxed).
    if (failure == Rlx) expectOutcome(mpCas, V::Rlx, {true, 4});
    else expectOutcome(mpCas, V::Rlx, {false, 3});
  }
  // The failure order governs the read alone: a relaxed success order with an
  // acquire failure order still forbids the stale read.
  const Shape strongFail{"MP+cas+acqfail", 2, {{st(x, 1), with(st(y, 1), Rel)}, {cas(1, y, 0, 2, Rlx, Acq), ld(2, x)}},
                         {reg(1, 1), reg(2, 0)}};
  expectOutcome(strongFail, V::Rlx, {false, 3});
}

TEST_CASE("RC11 checker: a relaxed store does not synchronise, a release store does", "[rc11]") {
  // Graph-level: MP's weak graph is consistent with a relaxed flag store and
  // inconsistent with a release one (the explorer's counts above rest on this).
  for (MemOrder flag : {MemOrder::Relaxed, MemOrder::Release}) {
    CAPTURE(memOrderName(flag));
    const Shape mp{"MP1", 2, {{st(x, 1), with(st(y, 1), flag)}, {with(ld(1, y), Acq), ld(2, x)}}, {reg(1, 1), reg(2, 0)}};
    const CheckResult r = runRc11(build(mp, V::Rlx));
    CHECK(bool(r.violation) == (flag == MemOrder::Relaxed));
  }
}

TEST_CASE("RC11 under the other models: orders change nothing there", "[rc11]") {
  // MP relaxed is verified under SC, TSO and PSO (lowering's fences decide
  // there, and this program has none), and fails under RC11.
  const Shape mp{"MPm", 2, {{st(x, 1), st(y, 1)}, {ld(1, y), ld(2, x)}}, {reg(1, 1), reg(2, 0)}};
  const Program p = build(mp, V::Rlx);
  for (Model m : {Model::SC, Model::TSO}) {
    CheckOptions o;
    o.model = m;
    CHECK(check(p, o).status == Status::Verified);
  }
  CHECK(runRc11(p).status == Status::Violation);
}

TEST_CASE("RC11 refuses the searches it does not support", "[rc11]") {
  const Shape mp{"MPr", 2, {{st(x, 1), st(y, 1)}, {ld(1, y), ld(2, x)}}, {reg(1, 1), reg(2, 0)}};
  const Program p = build(mp, V::Rlx);
  CheckOptions o;
  o.model = Model::RC11;
  o.stateful = true;
  CheckResult r = check(p, o);
  CHECK(r.status == Status::Error);
  CHECK(r.message.find("RC11") != std::string::npos);
  o.stateful = false;
  o.preemptionBound = 1;
  r = check(p, o);
  CHECK(r.status == Status::Error);
  CHECK(r.message.find("preemption bound") != std::string::npos);
}

namespace {

// The upgraded sites of a search: "store release", "load seq_cst", ... sorted.
std::vector<std::string> upgradesOf(const OrderFixResult& r) {
  std::vector<std::string> out;
  for (size_t i = 0; i < r.sites.size(); ++i)
    if (r.rung[i] > 0) out.push_back(std::string(accessName(r.sites[i].op)) + " " + memOrderName(r.sites[i].ladder[r.rung[i]]));
  std::sort(out.begin(), out.end());
  return out;
}

OrderFixResult upgrade(const Program& p) {
  CheckOptions o;
  o.model = Model::RC11;
  return synthesizeOrders(p, o, orderSites(p, nullptr));
}

// GenMC's synthetic C11 programs as shapes: main starts n threads, thread i
// (1..n) gets i as its argument, runs `body` on the atomic int x, and main
// joins them all.
enum class Synth {
  Casrot,  // CAS(x, i - 1 -> i), relaxed / relaxed
  Ainc,    // fetch_add(x, 1) relaxed
  Casw,    // CAS(x, 0 -> 1) relaxed / relaxed, then x = i + 3 release
  Inc,     // r = x relaxed; x = r + (1 << i) release
};

Program synthetic(Synth kind, int n) {
  ProgramBuilder pb("synthetic.c");
  const uint32_t x = pb.global("x");
  FunctionBuilder& f = pb.function("thread_n", 1);
  const Reg arg = 0;
  const Reg addr = f.at(1).globalAddr(x);
  switch (kind) {
    case Synth::Casrot:
      f.at(2).rmw(RmwOp::Cas, addr, arg, 4, f.binImm(BinOp::Sub, arg, 1));
      f.setOrder(Rlx);
      f.setFailOrder(Rlx);
      break;
    case Synth::Ainc:
      f.at(2).rmw(RmwOp::Add, addr, f.constant(1));
      f.setOrder(Rlx);
      break;
    case Synth::Casw:
      f.at(2).rmw(RmwOp::Cas, addr, f.constant(1), 4, f.constant(0));
      f.setOrder(Rlx);
      f.setFailOrder(Rlx);
      f.at(3).store(addr, f.binImm(BinOp::Add, arg, 3));
      f.setOrder(Rel);
      break;
    case Synth::Inc: {
      const Reg r = f.at(2).load(addr);
      f.setOrder(Rlx);
      f.at(3).store(addr, f.bin(BinOp::Add, r, f.bin(BinOp::Shl, f.constant(1), arg)));
      f.setOrder(Rel);
      break;
    }
  }
  f.at(4).ret(f.constant(0));
  FunctionBuilder& m = pb.function("main", 0);
  std::vector<Reg> tids;
  for (int i = 1; i <= n; ++i) tids.push_back(m.at(10).spawn(f.index(), m.constant(Value(i))));
  for (Reg t : tids) m.at(11).joinDiscard(t);
  m.at(12).ret(m.constant(0));
  pb.setEntry(m.index());
  return pb.build();
}

}  // namespace

TEST_CASE("RC11 order upgrades: the cheapest orders that make a litmus shape pass, checked on the IR", "[rc11][fix]") {
  // MP relaxed: the flag's store must release and its load acquire; the data accesses stay relaxed.
  const Shape mp{"MP", 2, {{st(x, 1), st(y, 1)}, {ld(1, y), ld(2, x)}}, {reg(1, 1), reg(2, 0)}};
  const Program pm = build(mp, V::Rlx);
  const OrderFixResult rm = upgrade(pm);
  CHECK(rm.outcome == OrderOutcome::Fixed);
  CHECK(rm.minimal);
  CHECK(upgradesOf(rm) == std::vector<std::string>{"load acquire", "store release"});
  const Program fixedMp = upgradeOrders(pm, rm.sites, rm.rung);
  CHECK(runRc11(fixedMp).status == Status::Verified);
  CHECK(testing::exploreNaive(fixedMp, Model::RC11, -1).errorRuns == 0);
  // The upgraded program differs from the original only in its orders, and sameProgram sees it.
  CHECK(sameProgram(pm, pm));
  CHECK(!sameProgram(pm, fixedMp));
  // SB with release/acquire: only seq_cst on all four accesses forbids it.
  const Shape sb{"SB", 2, {{st(x, 1), ld(1, y)}, {st(y, 1), ld(2, x)}}, {reg(1, 0), reg(2, 0)}};
  const OrderFixResult rs = upgrade(build(sb, V::RelAcq));
  CHECK(rs.outcome == OrderOutcome::Fixed);
  CHECK(upgradesOf(rs) == std::vector<std::string>{"load seq_cst", "load seq_cst", "store seq_cst", "store seq_cst"});
  // LB is forbidden whatever the orders: nothing to fix. A lost update is
  // allowed whatever the orders: no upgrade fixes it.
  const Shape lost{"lost", 1, {{ld(1, x), st(x, 1)}, {ld(2, x), st(x, 1)}}, {reg(1, 0), reg(2, 0)}};
  const OrderFixResult rl = upgrade(build(lost, V::Rlx));
  CHECK(rl.outcome == OrderOutcome::NoFix);
  CHECK(upgradesOf(rl).empty());
}

TEST_CASE("RC11 counts GenMC v0.11 reports for its synthetic C11 programs", "[rc11][litmus]") {
  // GenMC's tests/correct/synthetic (casrot, ainc, casw, inc) under --rc11:
  // complete executions per thread count (bench/rc11_peers.sh compares
  // tsocheck with GenMC on the C programs themselves).
  struct Row {
    Synth kind;
    int n;
    uint64_t executions;
  };
  const std::vector<Row> rows = {
      {Synth::Casrot, 2, 2},  {Synth::Casrot, 3, 5},  {Synth::Casrot, 4, 14}, {Synth::Casrot, 5, 43},
      {Synth::Casrot, 6, 144}, {Synth::Ainc, 2, 2},   {Synth::Ainc, 3, 6},    {Synth::Ainc, 4, 24},
      {Synth::Ainc, 5, 120},  {Synth::Casw, 2, 6},    {Synth::Casw, 3, 66},   {Synth::Casw, 4, 1200},
      {Synth::Inc, 2, 4},     {Synth::Inc, 3, 36},    {Synth::Inc, 4, 576},
  };
  for (const Row& row : rows) {
    CAPTURE(int(row.kind), row.n);
    const Program p = synthetic(row.kind, row.n);
    const CheckResult r = runRc11(p);
    CHECK(r.status == Status::Verified);
    CHECK(r.executions == row.executions);
    CHECK(r.blocked == 0);
    // The naive explorer's own RC11 check agrees where it is small enough.
    if (row.executions <= 66) CHECK(testing::exploreNaive(p, Model::RC11, -1).traces.size() == row.executions);
  }
}

namespace {

// The trace's order is a linearisation of po ∪ rf (spawn and join
// included): each thread's steps in event order, a thread's first step
// after its spawn, every read after the write it read, every join after the
// joined thread's steps; and every step carries its facts.
void checkLinearisation(const std::vector<TraceStep>& trace) {
  std::vector<int64_t> lastEvent;
  std::vector<uint32_t> spawnedAt, lastStepOf;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceStep& s = trace[i];
    CAPTURE(s.step, s.thread, s.event);
    REQUIRE(s.step == i + 1);
    if (s.event == TraceStep::kNoEvent) continue;  // (an error step: no event of the graph)
    REQUIRE(s.rc11);
    if (s.thread >= lastEvent.size()) {
      lastEvent.resize(s.thread + 1, -1);
      spawnedAt.resize(s.thread + 1, 0);
      lastStepOf.resize(s.thread + 1, 0);
    }
    CHECK(int64_t(s.event) > lastEvent[s.thread]);
    if (lastEvent[s.thread] < 0 && s.thread != 0) CHECK(spawnedAt[s.thread] != 0);
    lastEvent[s.thread] = s.event;
    lastStepOf[s.thread] = s.step;
    if (s.rc11->reads && s.rc11->readsFrom) CHECK(s.rc11->readsFrom < s.step);
    for (uint32_t src : s.rc11->sw) CHECK(src < s.step);
    if (s.kind == StepKind::Spawn) {
      if (s.spawned >= spawnedAt.size()) {
        lastEvent.resize(s.spawned + 1, -1);
        spawnedAt.resize(s.spawned + 1, 0);
        lastStepOf.resize(s.spawned + 1, 0);
      }
      spawnedAt[s.spawned] = s.step;
    }
  }
}

// The step of thread t that accesses `address` with `kind` (the first).
const TraceStep& stepOf(const std::vector<TraceStep>& trace, uint32_t t, StepKind kind, const std::string& address) {
  for (const TraceStep& s : trace)
    if (s.thread == t && s.kind == kind && s.addrName == address) return s;
  FAIL("no step of T" << t << " on " << address);
  return trace.front();
}

bool contains(const std::vector<uint32_t>& v, uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// MP's violation trace (checked a linearisation) and its four accesses:
// T1's stores of x and y, T2's loads of y and x.
struct MpTrace {
  std::vector<TraceStep> tr;
  const TraceStep *sx, *sy, *ly, *lx;
};
MpTrace mpTrace(const Shape& mp, V v) {
  const CheckResult r = runRc11(build(mp, v));
  REQUIRE(r.violation);
  MpTrace m{r.violation->trace, nullptr, nullptr, nullptr, nullptr};
  checkLinearisation(m.tr);
  m.sx = &stepOf(m.tr, 1, StepKind::Store, "x0");
  m.sy = &stepOf(m.tr, 1, StepKind::Store, "y1");
  m.ly = &stepOf(m.tr, 2, StepKind::LoadMem, "y1");
  m.lx = &stepOf(m.tr, 2, StepKind::LoadMem, "x0");
  return m;
}

}  // namespace

TEST_CASE("RC11 traces: steps in po ∪ rf order with their reads-from, coherence and synchronisation facts", "[rc11]") {
  SECTION("MP relaxed: the payload load reads the initial value, the flag load the flag store, nothing synchronises") {
    const Shape mp{"MP", 2, {{st(x, 1), st(y, 1)}, {ld(1, y), ld(2, x)}}, {reg(1, 1), reg(2, 0)}};
    const MpTrace m = mpTrace(mp, V::Rlx);
    const std::vector<TraceStep>& tr = m.tr;
    const TraceStep &sx = *m.sx, &sy = *m.sy, &ly = *m.ly, &lx = *m.lx;
    CHECK(sx.rc11->writeCo == 0);
    CHECK(sy.rc11->writeCo == 0);
    CHECK(sy.rc11->order == MemOrder::Relaxed);
    CHECK(ly.rc11->reads);
    CHECK(ly.rc11->read == 1);
    CHECK(ly.rc11->readsFrom == sy.step);
    CHECK(ly.rc11->readCo == 0);
    CHECK_FALSE(contains(ly.rc11->sw, sy.step));  // relaxed: no synchronisation with the flag store
    CHECK(lx.rc11->read == 0);
    CHECK(lx.rc11->readsFrom == 0);
    CHECK(lx.rc11->readCo == -1);
    // T1's store of x does not happen before T2's load of x.
    CHECK(lx.rc11->hb.at(1) <= sx.event);
    // Spawn and join synchronise: T2's first step with main's spawn of it.
    const TraceStep* first2 = nullptr;
    for (const TraceStep& s : tr)
      if (!first2 && s.thread == 2) first2 = &s;
    REQUIRE(first2);
    REQUIRE(first2->rc11->sw.size() == 1);
    CHECK(tr.at(first2->rc11->sw[0] - 1).kind == StepKind::Spawn);
    CHECK(tr.at(first2->rc11->sw[0] - 1).spawned == 2);
  }
  SECTION("MP release/acquire: the acquire load synchronises with the release store, whose thread's writes happen before") {
    // The strong outcome made an assertion failure, to get its trace.
    const Shape mp{"MP", 2, {{st(x, 1), st(y, 1)}, {ld(1, y), ld(2, x)}}, {reg(1, 1), reg(2, 1)}};
    const MpTrace m = mpTrace(mp, V::RelAcq);
    const TraceStep &sx = *m.sx, &sy = *m.sy, &ly = *m.ly, &lx = *m.lx;
    CHECK(sy.rc11->order == MemOrder::Release);
    CHECK(ly.rc11->order == MemOrder::Acquire);
    CHECK(ly.rc11->readsFrom == sy.step);
    CHECK(contains(ly.rc11->sw, sy.step));
    CHECK_FALSE(contains(lx.rc11->sw, sy.step));  // synchronisation is the acquire's, not its successors'
    CHECK(lx.rc11->readsFrom == sx.step);
    CHECK(lx.rc11->hb.at(1) > sx.event);  // the payload store happens before the payload load
  }
  SECTION("MP with relaxed accesses and fences: the acquire fence synchronises with the release fence") {
    const Shape mpF{"MP+fences", 2, {{st(x, 1), fence(Rel), st(y, 1)}, {ld(1, y), fence(Acq), ld(2, x)}}, {reg(1, 1), reg(2, 1)}};
    const CheckResult r = runRc11(build(mpF, V::Rlx));
    REQUIRE(r.violation);
    const std::vector<TraceStep>& tr = r.violation->trace;
    checkLinearisation(tr);
    const TraceStep& ly = stepOf(tr, 2, StepKind::LoadMem, "y1");
    CHECK_FALSE(contains(ly.rc11->sw, stepOf(tr, 1, StepKind::Store, "y1").step));  // relaxed
    const TraceStep* relFence = nullptr;
    const TraceStep* acqFence = nullptr;
    for (const TraceStep& s : tr) {
      if (s.kind == StepKind::Fence && s.thread == 1) relFence = &s;
      if (s.kind == StepKind::Fence && s.thread == 2) acqFence = &s;
    }
    REQUIRE(relFence);
    REQUIRE(acqFence);
    CHECK(acqFence->rc11->sw == std::vector<uint32_t>{relFence->step});
  }
  SECTION("SB relaxed: both loads read the initial value although both stores came first") {
    const Shape sb{"SB", 2, {{st(x, 1), ld(1, y)}, {st(y, 1), ld(2, x)}}, {reg(1, 0), reg(2, 0)}};
    const CheckResult r = runRc11(build(sb, V::Rlx));
    REQUIRE(r.violation);
    const std::vector<TraceStep>& tr = r.violation->trace;
    checkLinearisation(tr);
    for (uint32_t t : {1u, 2u}) {
      const TraceStep& l = stepOf(tr, t, StepKind::LoadMem, t == 1 ? "y1" : "x0");
      CHECK(l.rc11->readsFrom == 0);
      CHECK(l.rc11->readCo == -1);
      CHECK_FALSE(contains(l.rc11->sw, stepOf(tr, 3 - t, StepKind::Store, t == 1 ? "y1" : "x0").step));
    }
  }
  SECTION("IRIW relaxed: the readers disagree on the order of the two writes") {
    const Shape iriw{"IRIW", 2,
                     {{st(x, 1)}, {st(y, 1)}, {ld(1, x), ld(2, y)}, {ld(3, y), ld(4, x)}},
                     {reg(1, 1), reg(2, 0), reg(3, 1), reg(4, 0)}};
    const CheckResult r = runRc11(build(iriw, V::Rlx));
    REQUIRE(r.violation);
    const std::vector<TraceStep>& tr = r.violation->trace;
    checkLinearisation(tr);
    const TraceStep& sx = stepOf(tr, 1, StepKind::Store, "x0");
    const TraceStep& sy = stepOf(tr, 2, StepKind::Store, "y1");
    CHECK(stepOf(tr, 3, StepKind::LoadMem, "x0").rc11->readsFrom == sx.step);
    CHECK(stepOf(tr, 3, StepKind::LoadMem, "y1").rc11->readsFrom == 0);
    CHECK(stepOf(tr, 4, StepKind::LoadMem, "y1").rc11->readsFrom == sy.step);
    CHECK(stepOf(tr, 4, StepKind::LoadMem, "x0").rc11->readsFrom == 0);
  }
  SECTION("2+2W: each location's stores in coherence order") {
    const Shape w22{"2+2W", 2, {{st(x, 1), st(y, 2)}, {st(y, 1), st(x, 2)}}, {fin(x, 1), fin(y, 1)}};
    const CheckResult r = runRc11(build(w22, V::Rlx));
    REQUIRE(r.violation);
    const std::vector<TraceStep>& tr = r.violation->trace;
    checkLinearisation(tr);
    // x ends 1: T2's x = 2 is co-before T1's x = 1; likewise for y.
    CHECK(stepOf(tr, 2, StepKind::Store, "x0").rc11->writeCo == 0);
    CHECK(stepOf(tr, 1, StepKind::Store, "x0").rc11->writeCo == 1);
    CHECK(stepOf(tr, 1, StepKind::Store, "y1").rc11->writeCo == 0);
    CHECK(stepOf(tr, 2, StepKind::Store, "y1").rc11->writeCo == 1);
  }
}

TEST_CASE("RC11 traces of the other models carry no RC11 facts", "[rc11]") {
  const Shape sb{"SB", 2, {{st(x, 1), ld(1, y)}, {st(y, 1), ld(2, x)}}, {reg(1, 0), reg(2, 0)}};
  CheckOptions o;
  o.model = Model::TSO;
  const CheckResult r = check(build(sb, V::Rlx), o);
  REQUIRE(r.violation);
  for (const TraceStep& s : r.violation->trace) CHECK_FALSE(s.rc11);
}

// Unit tests of the thread-local interpreter (ThreadState).
#include <catch2/catch.hpp>

#include <functional>

#include "engine/builder.h"
#include "engine/interp.h"

using namespace tsocheck;

namespace {

// Note: ThreadState keeps pointers to the program and the limits, so both
// must outlive it (no temporaries).

// Builds a program whose entry function is written by `body`.
Program oneFunction(const std::function<void(ProgramBuilder&, FunctionBuilder&)>& body) {
  ProgramBuilder pb("interp.c");
  auto& f = pb.function("main");
  pb.setEntry(f.index());
  body(pb, f);
  return pb.build();
}

Value exitValueOf(const Program& p, const Limits& limits = Limits{}) {
  ThreadState t(p, 0, p.entry, 0, limits);
  INFO("pending action kind " << int(t.pending().kind) << ": " << t.pending().message);
  REQUIRE(t.finished());
  return t.exitValue();
}

Value binary(BinOp op, Value x, Value y) {
  Program p = oneFunction([&](ProgramBuilder&, FunctionBuilder& f) {
    Reg a = f.constant(x), b = f.constant(y);
    f.ret(f.bin(op, a, b));
  });
  return exitValueOf(p);
}

Value compare(CmpOp op, Value x, Value y) {
  Program p = oneFunction([&](ProgramBuilder&, FunctionBuilder& f) {
    f.ret(f.cmp(op, f.constant(x), f.constant(y)));
  });
  return exitValueOf(p);
}

constexpr Value kMinus1 = ~Value(0);

}  // namespace

TEST_CASE("interp: arithmetic", "[interp]") {
  CHECK(binary(BinOp::Add, 40, 2) == 42);
  CHECK(binary(BinOp::Sub, 2, 3) == kMinus1);
  CHECK(binary(BinOp::Mul, 6, 7) == 42);
  CHECK(binary(BinOp::UDiv, 43, 5) == 8);
  CHECK(binary(BinOp::URem, 43, 5) == 3);
  CHECK(binary(BinOp::SDiv, Value(-43), 5) == Value(-8));
  CHECK(binary(BinOp::SRem, Value(-43), 5) == Value(-3));
  CHECK(binary(BinOp::SDiv, Value(INT64_MIN), kMinus1) == Value(INT64_MIN));  // wraps, no trap
  CHECK(binary(BinOp::And, 0b1100, 0b1010) == 0b1000);
  CHECK(binary(BinOp::Or, 0b1100, 0b1010) == 0b1110);
  CHECK(binary(BinOp::Xor, 0b1100, 0b1010) == 0b0110);
  CHECK(binary(BinOp::Shl, 1, 10) == 1024);
  CHECK(binary(BinOp::Shl, 1, 64) == 0);
  CHECK(binary(BinOp::LShr, kMinus1, 60) == 0xf);
  CHECK(binary(BinOp::AShr, Value(-64), 3) == Value(-8));

  CHECK(compare(CmpOp::Eq, 3, 3) == 1);
  CHECK(compare(CmpOp::Ne, 3, 3) == 0);
  CHECK(compare(CmpOp::Ult, kMinus1, 1) == 0);
  CHECK(compare(CmpOp::Slt, kMinus1, 1) == 1);
  CHECK(compare(CmpOp::Uge, kMinus1, 1) == 1);
  CHECK(compare(CmpOp::Sge, kMinus1, 1) == 0);
  CHECK(compare(CmpOp::Sle, 5, 5) == 1);
  CHECK(compare(CmpOp::Ugt, 6, 5) == 1);

  Program ext = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    Reg v = f.constant(0x1ff);
    Reg z = f.ext(v, 1, false);   // 0xff
    Reg s = f.ext(v, 1, true);    // -1
    Reg sel = f.select(f.cmpImm(CmpOp::Eq, s, kMinus1), z, f.constant(0));
    f.ret(sel);
  });
  CHECK(exitValueOf(ext) == 0xff);

  CHECK(maskToSize(0x1234, 1) == 0x34);
  CHECK(signExtend(0x80, 1) == Value(-128));
  bool writes = true;
  CHECK(rmwResult(RmwOp::Cas, 1, 5, 2, 4, &writes) == 1);
  CHECK_FALSE(writes);
  CHECK(rmwResult(RmwOp::Cas, 2, 5, 2, 4, &writes) == 5);
  CHECK(writes);
  CHECK(rmwResult(RmwOp::Add, 0xff, 1, 0, 1, &writes) == 0);
  CHECK(rmwResult(RmwOp::Sub, 0, 1, 0, 4, &writes) == 0xffffffff);
}

TEST_CASE("interp: branches and loops", "[interp]") {
  // sum = 0; for (i = 1; i <= 10; ++i) sum += i; return sum;
  Program p = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    Reg sum = f.constant(0), i = f.constant(1), one = f.constant(1), ten = f.constant(10);
    Label head = f.newLabel(), body = f.newLabel(), done = f.newLabel();
    f.bind(head);
    f.br(f.cmp(CmpOp::Ule, i, ten), body, done);
    f.bind(body);
    f.mov(sum, f.bin(BinOp::Add, sum, i));
    f.mov(i, f.bin(BinOp::Add, i, one));
    f.jmp(head);
    f.bind(done);
    f.ret(sum);
  });
  CHECK(exitValueOf(p) == 55);

  // if (x == 3) return 1; else return 2;  for both outcomes
  for (Value x : {Value(3), Value(4)}) {
    Program q = oneFunction([&](ProgramBuilder&, FunctionBuilder& f) {
      Label yes = f.newLabel(), no = f.newLabel();
      f.br(f.cmpImm(CmpOp::Eq, f.constant(x), 3), yes, no);
      f.bind(yes);
      f.ret(f.constant(1));
      f.bind(no);
      f.ret(f.constant(2));
    });
    CHECK(exitValueOf(q) == (x == 3 ? 1 : 2));
  }
}

TEST_CASE("interp: calls and returns", "[interp]") {
  ProgramBuilder pb("calls.c");
  auto& m = pb.function("main");
  auto& add3 = pb.function("add3", 3);
  auto& fact = pb.function("fact", 1);
  auto& noop = pb.function("noop", 0);
  pb.setEntry(m.index());

  add3.ret(add3.bin(BinOp::Add, add3.bin(BinOp::Add, add3.param(0), add3.param(1)), add3.param(2)));

  {  // fact(n) = n <= 1 ? 1 : n * fact(n - 1)
    Label base = fact.newLabel(), rec = fact.newLabel();
    fact.br(fact.cmpImm(CmpOp::Ule, fact.param(0), 1), base, rec);
    fact.bind(base);
    fact.ret(fact.constant(1));
    fact.bind(rec);
    Reg r = fact.call(fact.index(), {fact.binImm(BinOp::Sub, fact.param(0), 1)});
    fact.ret(fact.bin(BinOp::Mul, fact.param(0), r));
  }
  noop.ret();

  Reg a = m.call(add3.index(), {m.constant(1), m.constant(20), m.constant(300)});
  Reg f5 = m.call(fact.index(), {m.constant(5)});
  m.call(noop.index(), {}, false);
  Reg viaPtr = m.callInd(m.funcAddr(add3.index()), {m.constant(1), m.constant(1), m.constant(1)});
  Reg r = m.bin(BinOp::Add, m.bin(BinOp::Mul, a, m.constant(1000000)),
                m.bin(BinOp::Add, m.bin(BinOp::Mul, f5, m.constant(10)), viaPtr));
  m.ret(r);
  Program p = pb.build();
  CHECK(exitValueOf(p) == 321 * 1000000 + 120 * 10 + 3);
}

TEST_CASE("interp: private stack slots need no visible action", "[interp]") {
  Program p = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    Reg slot = f.stackSlot(16, true);
    f.store(slot, f.constant(0x1122334455667788ULL), 8);
    Reg byteAddr = f.binImm(BinOp::Add, slot, 1);
    f.store(byteAddr, f.constant(0xab), 1);   // overwrite byte 1
    Reg whole = f.load(slot, 8);
    Reg second = f.load(f.binImm(BinOp::Add, slot, 8), 4);  // zero-initialised
    f.ret(f.bin(BinOp::Add, whole, second));
  });
  Limits limits;
  ThreadState t(p, 0, p.entry, 0, limits);
  REQUIRE(t.pending().kind == ActionKind::Exit);  // never stopped on the way
  CHECK(t.exitValue() == 0x112233445566ab88ULL);
}

TEST_CASE("interp: ReadCount counts the shared reads of a call, nested calls included", "[interp]") {
  ProgramBuilder pb("reads.c");
  uint32_t x = pb.global("x"), y = pb.global("y");
  auto& m = pb.function("main");
  auto& outer = pb.function("outer");
  auto& inner = pb.function("inner");
  pb.setEntry(m.index());
  inner.loadGlobal(x);
  inner.loadGlobal(y);
  inner.ret();
  outer.loadGlobal(x);
  Reg s = outer.readCountBegin();
  outer.call(inner.index(), {}, false);
  Reg n = outer.readCountEnd(s);   // 2: inner's reads
  outer.storeGlobalReg(y, n);      // a store is not a read
  outer.loadGlobal(y);
  outer.ret();
  m.loadGlobal(x);                 // outside any count
  Reg s0 = m.readCountBegin();
  m.call(outer.index(), {}, false);
  Reg total = m.readCountEnd(s0);  // outer's 2 loads + inner's 2
  Reg after = m.readCountBegin();  // the counter is 0 again outside
  m.ret(m.bin(BinOp::Add, m.bin(BinOp::Mul, total, m.constant(10)), after));
  Program p = pb.build();
  Limits limits;
  ThreadState t(p, 0, p.entry, 0, limits);
  Value stored = 0;
  for (int i = 0; i < 20 && !t.finished(); ++i) {
    if (t.pending().kind == ActionKind::Store) stored = t.pending().value;
    t.complete(0);
  }
  REQUIRE(t.finished());
  CHECK(stored == 2);
  CHECK(t.exitValue() == 40);
}

TEST_CASE("interp: malloc of a negative or absurd size is a memory error naming it", "[interp]") {
  for (Value n : {~Value(0), (Value(1) << 30) + 1}) {
    Program p = oneFunction([&](ProgramBuilder&, FunctionBuilder& f) { f.ret(f.malloc(f.constant(n))); });
    Limits limits;
    ThreadState t(p, 0, p.entry, 0, limits);
    REQUIRE(t.pending().kind == ActionKind::Error);
    CHECK(t.pending().error == ErrorKind::Memory);
    CHECK(t.pending().message ==
          (n == ~Value(0) ? std::string("malloc of a negative size (-1)") : "malloc of 1073741825 bytes (more than 1 GiB)"));
  }
  Program ok = oneFunction([&](ProgramBuilder&, FunctionBuilder& f) { f.ret(f.malloc(f.constant(Value(1) << 30))); });
  Limits limits;
  ThreadState t(ok, 0, ok.entry, 0, limits);
  CHECK(t.finished());
}

TEST_CASE("interp: visible actions and delivered results", "[interp]") {
  ProgramBuilder pb("vis.c");
  uint32_t x = pb.global("x");
  auto& m = pb.function("main");
  auto& child = pb.function("child", 1);
  pb.setEntry(m.index());
  child.ret(child.param(0));
  Reg v = m.loadGlobal(x);
  m.storeGlobal(x, 0x1ff, 1);
  Reg old = m.rmw(RmwOp::Cas, m.globalAddr(x), m.constant(9), 4, m.constant(7));
  m.fence(FenceKind::StoreStore);
  Reg tid = m.spawn(child.index(), m.constant(5));
  Reg jv = m.join(tid);
  Reg got = m.trylock(m.globalAddr(x));
  m.ret(m.bin(BinOp::Add, m.bin(BinOp::Add, v, old), m.bin(BinOp::Add, jv, got)));
  Program p = pb.build();
  const Addr xa = p.globals[x].addr;

  Limits limits;
  ThreadState t(p, 0, p.entry, 0, limits);
  REQUIRE(t.pending().kind == ActionKind::Load);
  CHECK(t.pending().addr == xa);
  CHECK(t.pending().size == 4);
  t.complete(100);

  REQUIRE(t.pending().kind == ActionKind::Store);
  CHECK(t.pending().addr == xa);
  CHECK(t.pending().size == 1);
  CHECK(t.pending().value == 0xff);  // masked to the access size
  t.complete(0);

  REQUIRE(t.pending().kind == ActionKind::Rmw);
  CHECK(t.pending().rmw == RmwOp::Cas);
  CHECK(t.pending().value == 9);
  CHECK(t.pending().expected == 7);
  t.complete(20);

  REQUIRE(t.pending().kind == ActionKind::Fence);
  CHECK(t.pending().fence == FenceKind::StoreStore);
  t.complete(0);

  REQUIRE(t.pending().kind == ActionKind::Spawn);
  CHECK(t.pending().func == child.index());
  CHECK(t.pending().value == 5);

  // Copies are independent: each continues with its own results.
  ThreadState copy = t;
  t.complete(1);
  copy.complete(2);
  REQUIRE(t.pending().kind == ActionKind::Join);
  CHECK(t.pending().target == 1);
  CHECK(copy.pending().target == 2);
  t.complete(3000);

  REQUIRE(t.pending().kind == ActionKind::TryLock);
  CHECK(t.pending().addr == xa);
  t.complete(16);  // EBUSY
  REQUIRE(t.finished());
  CHECK(t.exitValue() == 100 + 20 + 3000 + 16);

  ThreadState c(p, 1, child.index(), 77, limits);
  REQUIRE(c.finished());
  CHECK(c.exitValue() == 77);
  CHECK(c.id() == 1);
}

TEST_CASE("interp: step and call-depth limits", "[interp]") {
  Program spin = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    Label l = f.newLabel();
    f.bind(l);
    f.jmp(l);
  });
  Limits limits;
  limits.maxSteps = 100;
  ThreadState t(spin, 0, spin.entry, 0, limits);
  CHECK(t.pending().kind == ActionKind::Limit);
  CHECK_FALSE(t.pending().message.empty());
  CHECK(t.steps() >= 100);

  ProgramBuilder pb("rec.c");
  auto& f = pb.function("forever", 0);
  f.call(f.index(), {});
  f.ret();
  Program rec = pb.build();
  Limits depth;
  depth.maxCallDepth = 8;
  ThreadState r(rec, 0, rec.entry, 0, depth);
  CHECK(r.pending().kind == ActionKind::Limit);
}

TEST_CASE("interp: errors", "[interp]") {
  Limits limits;
  for (BinOp op : {BinOp::UDiv, BinOp::SDiv, BinOp::URem, BinOp::SRem}) {
    Program p = oneFunction([&](ProgramBuilder&, FunctionBuilder& f) {
      f.ret(f.bin(op, f.constant(1), f.constant(0)));
    });
    ThreadState t(p, 0, p.entry, 0, limits);
    CHECK(t.pending().kind == ActionKind::Error);
    CHECK(t.pending().error == ErrorKind::Arithmetic);
  }

  Program a = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    f.at(7);
    f.assertTrue(f.constant(0), "boom");
    f.ret();
  });
  ThreadState ta(a, 0, a.entry, 0, limits);
  CHECK(ta.pending().kind == ActionKind::Error);
  CHECK(ta.pending().error == ErrorKind::Assertion);
  CHECK(ta.pending().message == "boom");
  CHECK(ta.pending().loc.line == 7);

  Program ok = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    f.assertTrue(f.constant(1), "fine");
    f.ret(f.constant(3));
  });
  CHECK(exitValueOf(ok) == 3);

  Program ab = oneFunction([](ProgramBuilder&, FunctionBuilder& f) { f.fail("abort() called"); });
  ThreadState tb(ab, 0, ab.entry, 0, limits);
  CHECK(tb.pending().kind == ActionKind::Error);
  CHECK(tb.pending().error == ErrorKind::Assertion);

  Program as = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    f.assume(f.constant(0));
    f.ret();
  });
  ThreadState tc(as, 0, as.entry, 0, limits);
  CHECK(tc.pending().kind == ActionKind::Blocked);

  Program spin = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    f.assume(f.constant(0), true);
    f.ret();
  });
  ThreadState ts(spin, 0, spin.entry, 0, limits);
  CHECK(ts.pending().kind == ActionKind::Blocked);
  CHECK(ts.pending().value == 1);  // a spin loop's await, not a plain assume
  CHECK(tc.pending().value == 0);

  Program cut = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    f.cut("loop cut after 8 iterations");
    f.ret();
  });
  ThreadState tcut(cut, 0, cut.entry, 0, limits);
  CHECK(tcut.pending().kind == ActionKind::Limit);
  CHECK(tcut.pending().message == "loop cut after 8 iterations");

  Program ex = oneFunction([](ProgramBuilder&, FunctionBuilder& f) {
    f.exit(f.constant(12));
    f.fail("not reached");
  });
  CHECK(exitValueOf(ex) == 12);
}

TEST_CASE("rmwResult: min/max are signed or unsigned at the access size, nand is ~(a & b)", "[interp][rmw]") {
  bool writes = false;
  CHECK(rmwResult(RmwOp::Max, 0xFFFFFFFF, 1, 0, 4, &writes) == 1);           // -1 < 1 as int
  CHECK(writes);
  CHECK(rmwResult(RmwOp::Min, 0xFFFFFFFF, 1, 0, 4, &writes) == 0xFFFFFFFF);  // min(-1, 1) = -1
  CHECK(rmwResult(RmwOp::UMax, 0xFFFFFFFF, 1, 0, 4, &writes) == 0xFFFFFFFF);
  CHECK(rmwResult(RmwOp::UMin, 0xFFFFFFFF, 1, 0, 4, &writes) == 1);
  CHECK(rmwResult(RmwOp::Max, 0x80, 0x7F, 0, 1, &writes) == 0x7F);           // -128 < 127 as char
  CHECK(rmwResult(RmwOp::Min, Value(-5), 3, 0, 8, &writes) == Value(-5));
  CHECK(rmwResult(RmwOp::Nand, 0xFF, 0x0F, 0, 4, &writes) == 0xFFFFFFF0);
  CHECK(rmwResult(RmwOp::Nand, 0xFF, 0x0F, 0, 1, &writes) == 0xF0);
}

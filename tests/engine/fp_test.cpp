// Floating point in the interpreter (engine/fp.h): bit-exact IEEE results on
// register bit patterns, NaN comparisons, signed zeros, conversions with the
// documented out-of-range results, and the floating RMWs.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <functional>
#include <limits>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/interp.h"

using namespace tsocheck;

namespace {

Value bitsD(double d) { return std::bit_cast<Value>(d); }
Value bitsF(float f) { return std::bit_cast<uint32_t>(f); }
double dOf(Value v) { return std::bit_cast<double>(v); }

Program oneFunction(const std::function<void(ProgramBuilder&, FunctionBuilder&)>& body) {
  ProgramBuilder pb("fp.c");
  auto& f = pb.function("main");
  pb.setEntry(f.index());
  body(pb, f);
  return pb.build();
}

Value run(const Program& p) {
  Limits limits;
  ThreadState t(p, 0, p.entry, 0, limits);
  INFO("pending action kind " << int(t.pending().kind) << ": " << t.pending().message);
  REQUIRE(t.finished());
  return t.exitValue();
}

// Each through the interpreter, not just the helper.
Value fbin(FBinOp op, unsigned size, Value x, Value y, Value z = 0) {
  return run(oneFunction([&](ProgramBuilder&, FunctionBuilder& f) {
    Reg c = op == FBinOp::Fma || op == FBinOp::MulAdd ? f.constant(z) : kNoReg;
    f.ret(f.fbin(op, f.constant(x), f.constant(y), size, c));
  }));
}
Value fun(FUnOp op, unsigned size, Value x) {
  return run(oneFunction([&](ProgramBuilder&, FunctionBuilder& f) { f.ret(f.fun(op, f.constant(x), size)); }));
}
Value fcmp(FCmpPred p, unsigned size, Value x, Value y) {
  return run(oneFunction([&](ProgramBuilder&, FunctionBuilder& f) {
    f.ret(f.fcmp(p, f.constant(x), f.constant(y), size));
  }));
}
Value fconv(FConvOp op, unsigned size, unsigned bits, Value x) {
  return run(oneFunction([&](ProgramBuilder&, FunctionBuilder& f) {
    f.ret(f.fconv(op, f.constant(x), size, bits));
  }));
}

const Value kQNaN = 0x7ff8000000000000ULL, kInf = 0x7ff0000000000000ULL, kNegZero = 0x8000000000000000ULL;
const Value kQNaNf = 0x7fc00000u, kNegZeroF = 0x80000000u;

}  // namespace

TEST_CASE("fp: double arithmetic is bit-exact IEEE with round-to-nearest", "[fp][interp]") {
  CHECK(fbin(FBinOp::Add, 8, bitsD(0.1), bitsD(0.2)) == bitsD(0.30000000000000004));
  CHECK(fbin(FBinOp::Add, 8, bitsD(0.1), bitsD(0.2)) != bitsD(0.3));
  CHECK(fbin(FBinOp::Sub, 8, bitsD(1.0), bitsD(1.0)) == 0);  // +0
  CHECK(fbin(FBinOp::Mul, 8, bitsD(-2.0), 0) == kNegZero);   // -2 * +0 = -0
  CHECK(fbin(FBinOp::Div, 8, bitsD(1.0), 0) == kInf);        // no trap
  CHECK(fbin(FBinOp::Div, 8, bitsD(1.0), kNegZero) == (kInf | kNegZero));
  CHECK(std::isnan(dOf(fbin(FBinOp::Div, 8, 0, 0))));
  CHECK(fbin(FBinOp::Div, 8, bitsD(1.0), bitsD(3.0)) == 0x3fd5555555555555ULL);
  CHECK(fbin(FBinOp::Rem, 8, bitsD(-7.5), bitsD(2.0)) == bitsD(-1.5));  // sign of the dividend
  CHECK(fbin(FBinOp::Rem, 8, bitsD(7.5), bitsD(-2.0)) == bitsD(1.5));
  CHECK(std::isnan(dOf(fbin(FBinOp::Rem, 8, bitsD(1.0), 0))));
  // 1 + 2^-60 is rounded away before the subtraction.
  CHECK(fbin(FBinOp::Sub, 8, fbin(FBinOp::Add, 8, bitsD(1.0), bitsD(std::ldexp(1.0, -60))), bitsD(1.0)) == 0);
}

TEST_CASE("fp: float arithmetic rounds to single precision after every operation", "[fp][interp]") {
  CHECK(fbin(FBinOp::Add, 4, bitsF(0.1f), bitsF(0.2f)) == bitsF(0.1f + 0.2f));
  CHECK(fbin(FBinOp::Add, 4, bitsF(0.1f), bitsF(0.2f)) == 0x3e99999au);
  CHECK(fbin(FBinOp::Add, 4, bitsF(16777216.0f), bitsF(1.0f)) == bitsF(16777216.0f));  // 2^24 + 1 rounds
  CHECK(fbin(FBinOp::Mul, 4, bitsF(3.0f), bitsF(1.0f / 3.0f)) == bitsF(1.0f));
  CHECK(fbin(FBinOp::Div, 4, bitsF(1.0f), bitsF(3.0f)) == 0x3eaaaaabu);
  CHECK(fbin(FBinOp::Mul, 4, bitsF(-1.0f), 0) == kNegZeroF);
  // Results are 32-bit patterns, zero-extended.
  CHECK(fbin(FBinOp::Sub, 4, bitsF(0.0f), bitsF(5.0f)) == 0xc0a00000u);
  CHECK(fun(FUnOp::Neg, 4, bitsF(2.0f)) == 0xc0000000u);
  CHECK(fun(FUnOp::Neg, 4, 0) == kNegZeroF);
}

TEST_CASE("fp: fused and unfused multiply-add differ by one rounding", "[fp][interp]") {
  // a*a - 1 with a = 1 + 2^-30: the exact product has a 2^-60 term that only fma keeps.
  const double a = 1.0 + std::ldexp(1.0, -30);
  const Value fused = fbin(FBinOp::Fma, 8, bitsD(a), bitsD(a), bitsD(-1.0));
  const Value twice = fbin(FBinOp::MulAdd, 8, bitsD(a), bitsD(a), bitsD(-1.0));
  CHECK(dOf(fused) == std::ldexp(1.0, -29) + std::ldexp(1.0, -60));
  CHECK(dOf(twice) == std::ldexp(1.0, -29));
}

TEST_CASE("fp: comparisons follow LLVM's ordered and unordered predicates", "[fp][interp]") {
  const Value one = bitsD(1.0), two = bitsD(2.0);
  struct Row { FCmpPred p; Value lt, eq, gt, nan; };
  const Row rows[] = {
      {FCmpPred::False, 0, 0, 0, 0}, {FCmpPred::Oeq, 0, 1, 0, 0}, {FCmpPred::Ogt, 0, 0, 1, 0},
      {FCmpPred::Oge, 0, 1, 1, 0},   {FCmpPred::Olt, 1, 0, 0, 0}, {FCmpPred::Ole, 1, 1, 0, 0},
      {FCmpPred::One, 1, 0, 1, 0},   {FCmpPred::Ord, 1, 1, 1, 0}, {FCmpPred::Uno, 0, 0, 0, 1},
      {FCmpPred::Ueq, 0, 1, 0, 1},   {FCmpPred::Ugt, 0, 0, 1, 1}, {FCmpPred::Uge, 0, 1, 1, 1},
      {FCmpPred::Ult, 1, 0, 0, 1},   {FCmpPred::Ule, 1, 1, 0, 1}, {FCmpPred::Une, 1, 0, 1, 1},
      {FCmpPred::True, 1, 1, 1, 1},
  };
  for (const Row& r : rows) {
    INFO("predicate " << int(r.p));
    CHECK(fcmp(r.p, 8, one, two) == r.lt);
    CHECK(fcmp(r.p, 8, two, two) == r.eq);
    CHECK(fcmp(r.p, 8, two, one) == r.gt);
    CHECK(fcmp(r.p, 8, kQNaN, one) == r.nan);
    CHECK(fcmp(r.p, 8, one, kQNaN) == r.nan);
    CHECK(fcmp(r.p, 4, bitsF(1.0f), bitsF(2.0f)) == r.lt);
    CHECK(fcmp(r.p, 4, kQNaNf, kQNaNf) == r.nan);
  }
  // NaN is not equal to itself, even with the same bits; -0 == +0.
  CHECK(fcmp(FCmpPred::Oeq, 8, kQNaN, kQNaN) == 0);
  CHECK(fcmp(FCmpPred::Une, 8, kQNaN, kQNaN) == 1);
  CHECK(fcmp(FCmpPred::Oeq, 8, kNegZero, 0) == 1);
  CHECK(fcmp(FCmpPred::Olt, 8, kNegZero, 0) == 0);
  CHECK(fcmp(FCmpPred::Oeq, 4, kNegZeroF, 0) == 1);
  CHECK(fcmp(FCmpPred::Olt, 8, bitsD(-INFINITY), bitsD(-1e308)) == 1);
}

TEST_CASE("fp: conversions, out-of-range results as x86-64 computes them", "[fp][interp]") {
  // Integer to floating: signed sources are 64-bit (sign-extended by the frontend).
  CHECK(fconv(FConvOp::SIToFP, 8, 64, Value(-3)) == bitsD(-3.0));
  CHECK(fconv(FConvOp::UIToFP, 8, 64, Value(-1)) == bitsD(18446744073709551616.0));
  CHECK(fconv(FConvOp::SIToFP, 4, 64, 16777217) == bitsF(16777216.0f));  // rounds to even
  CHECK(fconv(FConvOp::SIToFP, 8, 64, (Value(1) << 53) + 1) == bitsD(9007199254740992.0));
  CHECK(fconv(FConvOp::UIToFP, 4, 64, 0) == 0);
  // Floating to integer: truncation toward zero.
  CHECK(fconv(FConvOp::FPToSI, 8, 32, bitsD(-2.9)) == 0xfffffffeu);
  CHECK(fconv(FConvOp::FPToSI, 8, 64, bitsD(-2.9)) == Value(-2));
  CHECK(fconv(FConvOp::FPToSI, 4, 8, bitsF(-1.5f)) == 0xffu);
  CHECK(fconv(FConvOp::FPToUI, 8, 32, bitsD(4294967295.0)) == 0xffffffffu);
  CHECK(fconv(FConvOp::FPToUI, 8, 64, bitsD(9223372036854775808.0)) == (Value(1) << 63));
  CHECK(fconv(FConvOp::FPToUI, 8, 64, bitsD(18446744073709549568.0)) == 0xfffffffffffff800ULL);
  // Out of range: the integer indefinite value.
  CHECK(fconv(FConvOp::FPToSI, 8, 32, kQNaN) == 0x80000000u);
  CHECK(fconv(FConvOp::FPToSI, 8, 32, bitsD(3e9)) == 0x80000000u);
  CHECK(fconv(FConvOp::FPToSI, 8, 64, kInf) == (Value(1) << 63));
  CHECK(fconv(FConvOp::FPToSI, 8, 64, bitsD(-1e19)) == (Value(1) << 63));
  CHECK(fconv(FConvOp::FPToSI, 8, 64, bitsD(-9223372036854775808.0)) == (Value(1) << 63));  // in range
  CHECK(fconv(FConvOp::FPToSI, 8, 16, bitsD(40000.0)) == 40000u);  // 32-bit conversion, cut
  CHECK(fconv(FConvOp::FPToUI, 8, 64, kQNaN) == (Value(1) << 63));
  CHECK(fconv(FConvOp::FPToUI, 8, 64, bitsD(1e20)) == (Value(1) << 63));
  CHECK(fconv(FConvOp::FPToUI, 8, 64, bitsD(-1.0)) == ~Value(0));
  CHECK(fconv(FConvOp::FPToUI, 8, 32, bitsD(-1.0)) == 0xffffffffu);
  CHECK(fconv(FConvOp::FPToUI, 8, 32, bitsD(5e9)) == (Value(5000000000ULL) & 0xffffffffu));
  CHECK(fconv(FConvOp::FPToUI, 4, 8, bitsF(300.0f)) == (300u & 0xffu));
  // Between float and double.
  CHECK(fconv(FConvOp::FPExt, 4, 0, bitsF(0.1f)) == bitsD(double(0.1f)));
  CHECK(fconv(FConvOp::FPExt, 4, 0, kNegZeroF) == kNegZero);
  CHECK(fconv(FConvOp::FPTrunc, 8, 0, bitsD(0.1)) == bitsF(0.1f));
  CHECK(fconv(FConvOp::FPTrunc, 8, 0, bitsD(1e300)) == 0x7f800000u);  // overflows to +inf
  CHECK(fconv(FConvOp::FPTrunc, 8, 0, kQNaN) == kQNaNf);
  CHECK(fconv(FConvOp::FPExt, 4, 0, kQNaNf) == kQNaN);
}

TEST_CASE("fp: unary operations, min/max and copysign", "[fp][interp]") {
  CHECK(fun(FUnOp::Neg, 8, 0) == kNegZero);
  CHECK(fun(FUnOp::Neg, 8, kQNaN) == (kQNaN | kNegZero));  // only the sign bit changes
  CHECK(fun(FUnOp::Abs, 8, bitsD(-3.5)) == bitsD(3.5));
  CHECK(fun(FUnOp::Abs, 4, kNegZeroF) == 0);
  CHECK(fun(FUnOp::Sqrt, 8, bitsD(2.0)) == 0x3ff6a09e667f3bcdULL);
  CHECK(std::isnan(dOf(fun(FUnOp::Sqrt, 8, bitsD(-1.0)))));
  CHECK(fun(FUnOp::Sqrt, 8, kNegZero) == kNegZero);
  CHECK(fun(FUnOp::Floor, 8, bitsD(-1.5)) == bitsD(-2.0));
  CHECK(fun(FUnOp::Ceil, 8, bitsD(-1.5)) == bitsD(-1.0));
  CHECK(fun(FUnOp::Ceil, 8, bitsD(-0.5)) == kNegZero);
  CHECK(fun(FUnOp::Trunc, 4, bitsF(-1.7f)) == bitsF(-1.0f));
  CHECK(fun(FUnOp::Round, 8, bitsD(2.5)) == bitsD(3.0));  // half away from zero
  CHECK(fun(FUnOp::Rint, 8, bitsD(2.5)) == bitsD(2.0));   // half to even
  CHECK(fbin(FBinOp::MinNum, 8, kQNaN, bitsD(1.0)) == bitsD(1.0));
  CHECK(fbin(FBinOp::MaxNum, 8, bitsD(1.0), kQNaN) == bitsD(1.0));
  CHECK(std::isnan(dOf(fbin(FBinOp::Minimum, 8, kQNaN, bitsD(1.0)))));
  CHECK(fbin(FBinOp::MinNum, 8, 0, kNegZero) == kNegZero);
  CHECK(fbin(FBinOp::MinNum, 8, kNegZero, 0) == kNegZero);
  CHECK(fbin(FBinOp::MaxNum, 8, kNegZero, 0) == 0);
  CHECK(fbin(FBinOp::MaxNum, 4, bitsF(-1.0f), bitsF(2.0f)) == bitsF(2.0f));
  CHECK(fbin(FBinOp::CopySign, 8, bitsD(3.0), kNegZero) == bitsD(-3.0));
  // Classes, as llvm.is.fpclass numbers them.
  CHECK(fun(FUnOp::Class, 8, 0x7ff0000000000001ULL) == 1u << 0);  // signalling NaN
  CHECK(fun(FUnOp::Class, 8, kQNaN) == 1u << 1);
  CHECK(fun(FUnOp::Class, 8, kInf | kNegZero) == 1u << 2);
  CHECK(fun(FUnOp::Class, 8, bitsD(-1.0)) == 1u << 3);
  CHECK(fun(FUnOp::Class, 8, kNegZero | 1) == 1u << 4);
  CHECK(fun(FUnOp::Class, 8, kNegZero) == 1u << 5);
  CHECK(fun(FUnOp::Class, 8, 0) == 1u << 6);
  CHECK(fun(FUnOp::Class, 4, 1) == 1u << 7);
  CHECK(fun(FUnOp::Class, 4, bitsF(1e30f)) == 1u << 8);
  CHECK(fun(FUnOp::Class, 4, 0x7f800000u) == 1u << 9);
  CHECK(fun(FUnOp::Class, 4, kQNaNf) == 1u << 1);
}

TEST_CASE("fp: floating RMWs compute on the bit patterns", "[fp][rmw]") {
  bool writes = false;
  CHECK(rmwResult(RmwOp::FAdd, bitsD(0.1), bitsD(0.2), 0, 8, &writes) == bitsD(0.1 + 0.2));
  CHECK(writes);
  CHECK(rmwResult(RmwOp::FSub, bitsF(1.0f), bitsF(0.25f), 0, 4, &writes) == bitsF(0.75f));
  CHECK(rmwResult(RmwOp::FMax, kQNaN, bitsD(-1.0), 0, 8, &writes) == bitsD(-1.0));
  CHECK(rmwResult(RmwOp::FMin, bitsF(2.0f), bitsF(-2.0f), 0, 4, &writes) == bitsF(-2.0f));
}

TEST_CASE("fp: two threads adding to a shared double with atomic fadd never lose an update", "[fp][explorer]") {
  // The two orders associate 0.1 + 0.2 + 0.4 differently (0.7000000000000001
  // or 0.7): the assertion accepts exactly those two bit patterns.
  for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
    ProgramBuilder pb("fadd.c");
    const uint32_t x = pb.global("x", 8);
    auto& t = pb.function("t", 1);
    t.at(3).rmw(RmwOp::FAdd, t.globalAddr(x), t.param(0), 8);
    t.ret();
    auto& main = pb.function("main");
    main.at(10).storeGlobal(x, bitsD(0.1), 8);
    Reg a = main.at(11).spawn(t.index(), main.constant(bitsD(0.2)));
    Reg b = main.at(12).spawn(t.index(), main.constant(bitsD(0.4)));
    main.join(a);
    main.join(b);
    Reg v = main.at(14).loadGlobal(x, 8);
    Reg r1 = main.cmpImm(CmpOp::Eq, v, bitsD((0.1 + 0.2) + 0.4));
    Reg r2 = main.cmpImm(CmpOp::Eq, v, bitsD((0.1 + 0.4) + 0.2));
    main.at(15).assertTrue(main.bin(BinOp::Or, r1, r2), "sum");
    main.ret();
    pb.setEntry(main.index());
    Program p = pb.build();
    CheckOptions o;
    o.model = m;
    CheckResult res = check(p, o);
    INFO("model " << int(m));
    CHECK(res.status == Status::Verified);
    CHECK(res.executions == 2);
    // The two association orders really differ in the last bit.
    CHECK(bitsD((0.1 + 0.2) + 0.4) != bitsD((0.1 + 0.4) + 0.2));
  }
}

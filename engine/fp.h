// Floating point on register bit patterns (Op::FBin, FCmp, FUn, FConv and
// the floating RMWs). A `float` lives in a register as its 32-bit IEEE
// pattern zero-extended to 64 bits, a `double` as its 64-bit pattern; the
// arithmetic is the host's IEEE single/double arithmetic with
// round-to-nearest-even (fp.cpp is compiled without FMA contraction), so
// results are bit-exact and the same on every run.
#pragma once

#include <cstdint>

namespace tsocheck {

using Value = uint64_t;

enum class FBinOp : uint8_t {
  Add, Sub, Mul, Div,
  Rem,      // C fmod (LLVM frem): the sign of the dividend, exact
  MinNum,   // C fmin / llvm.minnum: a NaN operand yields the other; -0 < +0
  MaxNum,   // C fmax / llvm.maxnum
  Minimum,  // llvm.minimum: NaN if either is NaN; -0 < +0
  Maximum,  // llvm.maximum
  Fma,      // r[b] * r[c] + r[d] with one rounding (fma, llvm.fma)
  MulAdd,   // r[b] * r[c] + r[d] rounded twice (llvm.fmuladd: what x86-64 without FMA does)
  CopySign, // magnitude of r[b], sign of r[c]
};

// Class: the value's class as one bit, numbered as llvm.is.fpclass's mask:
// 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -subnormal, 5 -0,
// 6 +0, 7 +subnormal, 8 +normal, 9 +inf (isnan, isinf, fpclassify, ...).
enum class FUnOp : uint8_t { Neg, Abs, Sqrt, Floor, Ceil, Trunc, Round, Rint, Class };

// LLVM's fcmp predicates with its encoding: bit 0 = true when equal, bit 1 =
// when greater, bit 2 = when less, bit 3 = when unordered (a NaN operand).
enum class FCmpPred : uint8_t {
  False, Oeq, Ogt, Oge, Olt, Ole, One, Ord, Uno, Ueq, Ugt, Uge, Ult, Ule, Une, True
};

// Conversions. The floating side has `size` bytes (4 or 8); the integer side
// has `bits` bits (1..64). Integer sources are taken as 64-bit values
// (signed for SIToFP: the frontend sign-extends first). fpext: 4 → 8 bytes,
// fptrunc: 8 → 4 bytes (size = the source's).
enum class FConvOp : uint8_t { SIToFP, UIToFP, FPToSI, FPToUI, FPExt, FPTrunc };

Value fpBinary(FBinOp op, unsigned size, Value x, Value y, Value z = 0);
Value fpUnary(FUnOp op, unsigned size, Value x);
bool fpCompare(FCmpPred pred, unsigned size, Value x, Value y);
// Out-of-range float → integer conversions (NaN, infinities, values outside
// the target type) are defined as x86-64 computes them in the code Clang
// emits (cvttss2si/cvttsd2si, whose "integer indefinite" result is the most
// negative value): fptosi to 64 bits gives 0x8000000000000000; to 32 bits or
// fewer, the 32-bit conversion (0x80000000 when outside int32) cut to `bits`.
// fptoui to 64 bits: c = signed64(x), and when c is negative also c |=
// signed64(x - 2^63) (so 2^63..2^64 convert exactly, NaN and values ≥ 2^64
// give 0x8000000000000000, negative values wrap: -1.0 gives 2^64-1); to 17..32
// bits: signed64(x) cut to `bits`; to 16 bits or fewer: the 32-bit signed
// conversion cut to `bits`.
Value fpConvert(FConvOp op, unsigned size, unsigned bits, Value x);

}  // namespace tsocheck

// Floating-point operations on register bit patterns (fp.h). Compiled with
// -ffp-contract=off: a*b+c is never fused unless asked for (Fma).
#include "engine/fp.h"

#include <bit>
#include <cmath>
#include <limits>

namespace tsocheck {

namespace {

float toF(Value v) { return std::bit_cast<float>(uint32_t(v)); }
double toD(Value v) { return std::bit_cast<double>(v); }
Value ofF(float f) { return std::bit_cast<uint32_t>(f); }
Value ofD(double d) { return std::bit_cast<Value>(d); }

template <class T>
T minMax(T x, T y, bool max, bool nanPropagates) {
  if (std::isnan(x) || std::isnan(y)) {
    if (nanPropagates) return x + y;  // a quiet NaN
    return std::isnan(x) ? y : x;
  }
  if (x == y) {  // equal, or +0 and -0: -0 is the smaller
    const bool xNeg = std::signbit(x);
    if (max) return xNeg ? y : x;
    return xNeg ? x : y;
  }
  return max ? (x > y ? x : y) : (x < y ? x : y);
}

template <class T>
T binary(FBinOp op, T x, T y, T z) {
  switch (op) {
    case FBinOp::Add: return x + y;
    case FBinOp::Sub: return x - y;
    case FBinOp::Mul: return x * y;
    case FBinOp::Div: return x / y;
    case FBinOp::Rem: return std::fmod(x, y);
    case FBinOp::MinNum: return minMax(x, y, false, false);
    case FBinOp::MaxNum: return minMax(x, y, true, false);
    case FBinOp::Minimum: return minMax(x, y, false, true);
    case FBinOp::Maximum: return minMax(x, y, true, true);
    case FBinOp::Fma: return std::fma(x, y, z);
    case FBinOp::MulAdd: {
      volatile T p = x * y;  // rounded on its own
      return p + z;
    }
    case FBinOp::CopySign: return std::copysign(x, y);
  }
  return x;
}

template <class T>
T unary(FUnOp op, T x) {
  switch (op) {
    case FUnOp::Neg: return -x;
    case FUnOp::Abs: return std::fabs(x);
    case FUnOp::Sqrt: return std::sqrt(x);
    case FUnOp::Floor: return std::floor(x);
    case FUnOp::Ceil: return std::ceil(x);
    case FUnOp::Trunc: return std::trunc(x);
    case FUnOp::Round: return std::round(x);
    case FUnOp::Rint: return std::nearbyint(x);  // the rounding mode is always to-nearest-even
    case FUnOp::Class: return x;  // (fpUnary answers it on the bits)
  }
  return x;
}

template <class T>
bool compare(FCmpPred pred, T x, T y) {
  unsigned bit;
  if (std::isnan(x) || std::isnan(y)) bit = 8;
  else if (x == y) bit = 1;
  else if (x > y) bit = 2;
  else bit = 4;
  return (unsigned(pred) & bit) != 0;
}

// cvttsd2si with a 64-bit destination: NaN and values outside int64 give the
// integer indefinite 0x8000000000000000.
template <class T>
Value signed64(T x) {
  if (!(x >= T(-9223372036854775808.0) && x < T(9223372036854775808.0))) return Value(1) << 63;
  return Value(int64_t(x));
}
// cvttsd2si with a 32-bit destination, zero-extended.
template <class T>
Value signed32(T x) {
  if (!(x > T(-2147483649.0) && x < T(2147483648.0))) return 0x80000000u;
  return Value(uint32_t(int32_t(x)));
}

Value cut(Value v, unsigned bits) { return bits >= 64 ? v : v & ((Value(1) << bits) - 1); }

template <class T>
Value toInt(FConvOp op, T x, unsigned bits) {
  if (op == FConvOp::FPToSI) return cut(bits > 32 ? signed64(x) : signed32(x), bits);
  if (bits > 32) {
    Value c = signed64(x);
    if (int64_t(c) < 0) c |= signed64(T(x - T(9223372036854775808.0)));
    return cut(c, bits);
  }
  return cut(bits > 16 ? signed64(x) : signed32(x), bits);
}

}  // namespace

Value fpBinary(FBinOp op, unsigned size, Value x, Value y, Value z) {
  if (size == 4) return ofF(binary<float>(op, toF(x), toF(y), toF(z)));
  return ofD(binary<double>(op, toD(x), toD(y), toD(z)));
}

namespace {
Value classBit(unsigned size, Value x) {
  const unsigned mantBits = size == 4 ? 23 : 52, expBits = size == 4 ? 8 : 11;
  const Value mant = x & ((Value(1) << mantBits) - 1);
  const Value exp = (x >> mantBits) & ((Value(1) << expBits) - 1);
  const bool neg = (x >> (mantBits + expBits)) & 1;
  const Value expMax = (Value(1) << expBits) - 1;
  unsigned k;
  if (exp == expMax && mant) k = (mant >> (mantBits - 1)) ? 1 : 0;  // quiet bit: the top of the mantissa
  else if (exp == expMax) k = neg ? 2 : 9;
  else if (exp) k = neg ? 3 : 8;
  else if (mant) k = neg ? 4 : 7;
  else k = neg ? 5 : 6;
  return Value(1) << k;
}
}  // namespace

Value fpUnary(FUnOp op, unsigned size, Value x) {
  if (op == FUnOp::Class) return classBit(size, x);
  if (op == FUnOp::Neg) return size == 4 ? (x ^ 0x80000000u) & 0xffffffffu : x ^ (Value(1) << 63);
  if (op == FUnOp::Abs) return size == 4 ? x & 0x7fffffffu : x & ~(Value(1) << 63);
  if (size == 4) return ofF(unary<float>(op, toF(x)));
  return ofD(unary<double>(op, toD(x)));
}

bool fpCompare(FCmpPred pred, unsigned size, Value x, Value y) {
  if (size == 4) return compare<float>(pred, toF(x), toF(y));
  return compare<double>(pred, toD(x), toD(y));
}

Value fpConvert(FConvOp op, unsigned size, unsigned bits, Value x) {
  switch (op) {
    case FConvOp::SIToFP:
      return size == 4 ? ofF(float(int64_t(x))) : ofD(double(int64_t(x)));
    case FConvOp::UIToFP:
      return size == 4 ? ofF(float(x)) : ofD(double(x));
    case FConvOp::FPToSI:
    case FConvOp::FPToUI:
      return size == 4 ? toInt(op, toF(x), bits) : toInt(op, toD(x), bits);
    case FConvOp::FPExt:
      return ofD(double(toF(x)));
    case FConvOp::FPTrunc:
      return ofF(float(toD(x)));
  }
  return x;
}

}  // namespace tsocheck

// Floating point: float and double as their IEEE bit patterns in registers
// (a float zero-extended from 32 bits), arithmetic, fcmp, conversions, the
// llvm.* math intrinsics and the libm functions that map to engine ops
// (lowering.h). Other floating-point types are refused by name.
#include "frontend/lowering.h"

namespace tsocheck::frontend::lowering {

unsigned fpSize(const llvm::Type* t) {
  if (t->isFloatTy()) return 4;
  if (t->isDoubleTy()) return 8;
  return 0;
}

bool isFloatPair(const llvm::Type* t) {
  auto* v = dyn_cast<llvm::FixedVectorType>(t);
  return v && v->getNumElements() == 2 && v->getElementType()->isFloatTy();
}

std::string fpTypeRefusal(llvm::Type* t) {
  std::string what;
  if (t->isX86_FP80Ty()) what = "long double (x86_fp80)";
  else if (t->isFP128Ty()) what = "__float128 (fp128)";
  else if (t->isHalfTy()) what = "_Float16 (half)";
  else if (t->isBFloatTy()) what = "__bf16 (bfloat)";
  else what = typeName(t);
  return what + " is not supported (only float and double)";
}

namespace {

// libm functions that are engine ops: name → (op kind, operands). The float
// variant ends in 'f'; errno is not modelled (sqrt(-1) is NaN, nothing else).
struct MathFn {
  const char* name;
  enum Kind { Unary, Binary, Ternary } kind;
  uint8_t op;  // FUnOp or FBinOp
};

const MathFn kMath[] = {
    {"fabs", MathFn::Unary, uint8_t(FUnOp::Abs)},     {"sqrt", MathFn::Unary, uint8_t(FUnOp::Sqrt)},
    {"floor", MathFn::Unary, uint8_t(FUnOp::Floor)},  {"ceil", MathFn::Unary, uint8_t(FUnOp::Ceil)},
    {"trunc", MathFn::Unary, uint8_t(FUnOp::Trunc)},  {"round", MathFn::Unary, uint8_t(FUnOp::Round)},
    {"rint", MathFn::Unary, uint8_t(FUnOp::Rint)},    {"nearbyint", MathFn::Unary, uint8_t(FUnOp::Rint)},
    {"roundeven", MathFn::Unary, uint8_t(FUnOp::Rint)},
    {"fmin", MathFn::Binary, uint8_t(FBinOp::MinNum)}, {"fmax", MathFn::Binary, uint8_t(FBinOp::MaxNum)},
    {"fmod", MathFn::Binary, uint8_t(FBinOp::Rem)},   {"copysign", MathFn::Binary, uint8_t(FBinOp::CopySign)},
    {"fma", MathFn::Ternary, uint8_t(FBinOp::Fma)},
};

}  // namespace

bool FunctionLowering::lowerMathCall(llvm::CallInst& I, llvm::Function* callee) {
  llvm::StringRef n = callee->getName();
  unsigned size = fpSize(I.getType());
  if (!size) return false;
  llvm::StringRef base = n;
  if (size == 4) {
    if (!base.ends_with("f")) return false;
    base = base.drop_back();
  }
  for (const MathFn& m : kMath) {
    if (base != m.name) continue;
    const unsigned arity = m.kind == MathFn::Unary ? 1 : m.kind == MathFn::Binary ? 2 : 3;
    if (I.arg_size() != arity) return false;
    for (const llvm::Use& a : I.args())
      if (a->getType() != I.getType()) return false;
    if (m.kind == MathFn::Unary) {
      Reg x = argReg(I, 0);
      Instr& in = emit(Op::FUn);
      in.sub = m.op;
      in.a = resultReg(I);
      in.b = x;
      in.size = uint8_t(size);
    } else {
      Reg x = argReg(I, 0), y = argReg(I, 1), z = arity == 3 ? argReg(I, 2) : kNoReg;
      Instr& in = emit(Op::FBin);
      in.sub = m.op;
      in.a = resultReg(I);
      in.b = x;
      in.c = y;
      in.d = z;
      in.size = uint8_t(size);
    }
    return true;
  }
  return false;
}

bool isFloatIntrinsic(llvm::Intrinsic::ID id) {
  switch (id) {
    case llvm::Intrinsic::fabs:
    case llvm::Intrinsic::sqrt:
    case llvm::Intrinsic::floor:
    case llvm::Intrinsic::ceil:
    case llvm::Intrinsic::trunc:
    case llvm::Intrinsic::round:
    case llvm::Intrinsic::rint:
    case llvm::Intrinsic::nearbyint:
    case llvm::Intrinsic::roundeven:
    case llvm::Intrinsic::minnum:
    case llvm::Intrinsic::maxnum:
    case llvm::Intrinsic::minimum:
    case llvm::Intrinsic::maximum:
    case llvm::Intrinsic::copysign:
    case llvm::Intrinsic::fma:
    case llvm::Intrinsic::fmuladd:
    case llvm::Intrinsic::is_fpclass:
      return true;
    default:
      return false;
  }
}

bool FunctionLowering::lowerFloatIntrinsic(llvm::CallInst& I, llvm::Intrinsic::ID id) {
  if (!isFloatIntrinsic(id)) return false;
  if (id == llvm::Intrinsic::is_fpclass) {  // isnan, isinf, isfinite, isnormal, fpclassify: class & mask
    llvm::Type* t = I.getArgOperand(0)->getType();
    auto* mask = dyn_cast<llvm::ConstantInt>(I.getArgOperand(1));
    if (!fpSize(t) || !mask) {
      unsupported(t->isVectorTy() ? "vector floating-point operations are not supported (llvm.is.fpclass)"
                                  : "llvm.is.fpclass of " + fpTypeRefusal(t));
      return true;
    }
    Reg x = argReg(I, 0);
    Reg cls = newReg();
    Instr& in = emit(Op::FUn);
    in.sub = uint8_t(FUnOp::Class);
    in.a = cls;
    in.b = x;
    in.size = uint8_t(fpSize(t));
    cmp(CmpOp::Ne, bin(BinOp::And, cls, constVal(mask->getZExtValue())), constVal(0), resultReg(I));
    return true;
  }
  const unsigned size = fpSize(I.getType());
  if (!size) {
    unsupported(I.getType()->isVectorTy() ? "vector floating-point operations are not supported (" +
                                                I.getCalledFunction()->getName().str() + ")"
                                          : fpTypeRefusal(I.getType()));
    return true;
  }
  auto unary = [&](FUnOp op) {
    Reg x = argReg(I, 0);
    Instr& in = emit(Op::FUn);
    in.sub = uint8_t(op);
    in.a = resultReg(I);
    in.b = x;
    in.size = uint8_t(size);
  };
  auto binary = [&](FBinOp op) {
    Reg x = argReg(I, 0), y = argReg(I, 1), z = I.arg_size() > 2 ? argReg(I, 2) : kNoReg;
    Instr& in = emit(Op::FBin);
    in.sub = uint8_t(op);
    in.a = resultReg(I);
    in.b = x;
    in.c = y;
    in.d = z;
    in.size = uint8_t(size);
  };
  switch (id) {
    case llvm::Intrinsic::fabs: unary(FUnOp::Abs); break;
    case llvm::Intrinsic::sqrt: unary(FUnOp::Sqrt); break;
    case llvm::Intrinsic::floor: unary(FUnOp::Floor); break;
    case llvm::Intrinsic::ceil: unary(FUnOp::Ceil); break;
    case llvm::Intrinsic::trunc: unary(FUnOp::Trunc); break;
    case llvm::Intrinsic::round: unary(FUnOp::Round); break;
    case llvm::Intrinsic::rint:
    case llvm::Intrinsic::nearbyint:
    case llvm::Intrinsic::roundeven: unary(FUnOp::Rint); break;
    case llvm::Intrinsic::minnum: binary(FBinOp::MinNum); break;
    case llvm::Intrinsic::maxnum: binary(FBinOp::MaxNum); break;
    case llvm::Intrinsic::minimum: binary(FBinOp::Minimum); break;
    case llvm::Intrinsic::maximum: binary(FBinOp::Maximum); break;
    case llvm::Intrinsic::copysign: binary(FBinOp::CopySign); break;
    case llvm::Intrinsic::fma: binary(FBinOp::Fma); break;
    case llvm::Intrinsic::fmuladd: binary(FBinOp::MulAdd); break;  // not fused, as x86-64 without FMA
    default: return false;
  }
  return true;
}

void FunctionLowering::lowerFloatBinary(llvm::Instruction& I) {
  const unsigned size = fpSize(I.getType());
  if (!size) {
    unsupported(fpTypeRefusal(I.getType()));
    return;
  }
  if (I.getOpcode() == llvm::Instruction::FNeg) {
    Reg x = val(I.getOperand(0));
    Instr& in = emit(Op::FUn);
    in.sub = uint8_t(FUnOp::Neg);
    in.a = resultReg(I);
    in.b = x;
    in.size = uint8_t(size);
    return;
  }
  FBinOp op = FBinOp::Add;
  switch (I.getOpcode()) {
    case llvm::Instruction::FAdd: op = FBinOp::Add; break;
    case llvm::Instruction::FSub: op = FBinOp::Sub; break;
    case llvm::Instruction::FMul: op = FBinOp::Mul; break;
    case llvm::Instruction::FDiv: op = FBinOp::Div; break;
    case llvm::Instruction::FRem: op = FBinOp::Rem; break;
    default: unsupported(std::string("unsupported operator ") + I.getOpcodeName()); return;
  }
  Reg x = val(I.getOperand(0)), y = val(I.getOperand(1));
  Instr& in = emit(Op::FBin);
  in.sub = uint8_t(op);
  in.a = resultReg(I);
  in.b = x;
  in.c = y;
  in.size = uint8_t(size);
}

void FunctionLowering::lowerFCmp(llvm::FCmpInst& I) {
  const unsigned size = fpSize(I.getOperand(0)->getType());
  if (!size) {
    unsupported(fpTypeRefusal(I.getOperand(0)->getType()));
    return;
  }
  // FCmpPred uses LLVM's predicate numbering (0 = false .. 15 = true).
  static_assert(unsigned(FCmpPred::Oeq) == llvm::CmpInst::FCMP_OEQ && unsigned(FCmpPred::Ult) == llvm::CmpInst::FCMP_ULT &&
                unsigned(FCmpPred::True) == llvm::CmpInst::FCMP_TRUE);
  Reg x = val(I.getOperand(0)), y = val(I.getOperand(1));
  Instr& in = emit(Op::FCmp);
  in.sub = uint8_t(I.getPredicate());
  in.a = resultReg(I);
  in.b = x;
  in.c = y;
  in.size = uint8_t(size);
}

void FunctionLowering::lowerFloatCast(llvm::CastInst& I) {
  llvm::Type* st = I.getSrcTy();
  llvm::Type* dt = I.getDestTy();
  for (llvm::Type* t : {st, dt})
    if (t->isFloatingPointTy() && !fpSize(t)) {
      unsupported(fpTypeRefusal(t));
      return;
    }
  for (llvm::Type* t : {st, dt})
    if (t->isIntegerTy() && t->getIntegerBitWidth() > 64) {
      unsupported("integers wider than 64 bits are not supported (" + typeName(t) + ")");
      return;
    }
  Reg src = val(I.getOperand(0));
  FConvOp op = FConvOp::SIToFP;
  unsigned size = 0, bits = 0;
  switch (I.getOpcode()) {
    case llvm::Instruction::SIToFP:
      op = FConvOp::SIToFP;
      src = sextReg(src, st->getIntegerBitWidth());
      size = fpSize(dt);
      bits = 64;
      break;
    case llvm::Instruction::UIToFP:
      op = FConvOp::UIToFP;  // registers hold integers zero-extended
      size = fpSize(dt);
      bits = 64;
      break;
    case llvm::Instruction::FPToSI:
    case llvm::Instruction::FPToUI:
      op = I.getOpcode() == llvm::Instruction::FPToSI ? FConvOp::FPToSI : FConvOp::FPToUI;
      size = fpSize(st);
      bits = dt->getIntegerBitWidth();
      break;
    case llvm::Instruction::FPExt:
      op = FConvOp::FPExt;
      size = fpSize(st);
      break;
    case llvm::Instruction::FPTrunc:
      op = FConvOp::FPTrunc;
      size = fpSize(st);
      break;
    default:
      unsupported(std::string("unsupported conversion ") + I.getOpcodeName());
      return;
  }
  if (I.getOpcode() == llvm::Instruction::FPExt || I.getOpcode() == llvm::Instruction::FPTrunc) {
    if (size == fpSize(dt)) {  // same type: nothing to do
      mov(resultReg(I), src);
      return;
    }
  }
  Instr& in = emit(Op::FConv);
  in.sub = uint8_t(op);
  in.a = resultReg(I);
  in.b = src;
  in.size = uint8_t(size);
  in.imm = int64_t(bits);
}

}  // namespace tsocheck::frontend::lowering

// libc string and memory functions on (possibly shared) memory, as loops of
// visible one-byte accesses (lowering.h): memcmp, strlen, strcmp, strncmp,
// strcpy, strncpy; aligned_alloc and posix_memalign as malloc. (memcpy,
// memmove and memset arrive as LLVM intrinsics: lower_memory.cpp.) Each
// byte read or written is an event like any load or store, so a string
// another thread is still writing is read exactly as the hardware would.
#include "frontend/lowering.h"

namespace tsocheck::frontend::lowering {

bool isStringCall(Ext k) {
  switch (k) {
    case Ext::Memcmp: case Ext::Strlen: case Ext::Strcmp: case Ext::Strncmp:
    case Ext::Strcpy: case Ext::Strncpy: case Ext::AlignedAlloc: case Ext::PosixMemalign:
      return true;
    default:
      return false;
  }
}

Reg FunctionLowering::loadByte(Reg base, Reg index, uint32_t name) {
  Reg at = bin(BinOp::Add, base, index);
  Reg r = newReg();
  Instr& in = emit(Op::Load);
  in.a = r;
  in.b = at;
  in.size = 1;
  in.name = name;
  return r;
}

void FunctionLowering::storeByte(Reg base, Reg index, Reg value, uint32_t name) {
  Reg at = bin(BinOp::Add, base, index);
  emitStore(at, value, 1, name);
}

void FunctionLowering::lowerStringCall(llvm::CallInst& I, Ext k, const std::string& name) {
  markEffect();  // reads or writes memory other threads may write: never an idle iteration
  switch (k) {
    case Ext::Strlen:
      return lowerStrlen(I, name);
    case Ext::Memcmp:
    case Ext::Strcmp:
    case Ext::Strncmp:
      return lowerStringCompare(I, k, name);
    case Ext::Strcpy:
    case Ext::Strncpy:
      return lowerStringCopy(I, k, name);
    case Ext::AlignedAlloc:
    case Ext::PosixMemalign:
      return lowerAlignedAlloc(I, k, name);
    default:
      break;
  }
}

void FunctionLowering::lowerStrlen(llvm::CallInst& I, const std::string& name) {
  // i = 0; while (s[i]) i++; return i.
  if (!needArgs(I, 1, name)) return;
  Reg s = argReg(I, 0), i = newReg(), r = newReg();
  mov(i, constVal(0));
  int lTop = newLabel(), lNext = newLabel(), lEnd = newLabel();
  bind(lTop);
  br(loadByte(s, i, addrName(I.getArgOperand(0))), lNext, lEnd);
  bind(lNext);
  bin(BinOp::Add, i, constVal(1), i);
  jmp(lTop);
  bind(lEnd);
  mov(r, i);
  setCallResult(I, r);
}

void FunctionLowering::lowerStringCompare(llvm::CallInst& I, Ext k, const std::string& name) {
  auto nameOf = [&](unsigned i) { return addrName(I.getArgOperand(i)); };
  // Byte by byte (unsigned char) until a difference, the end of the count
  // (memcmp, strncmp) or a NUL in both (strcmp, strncmp): -1, 0 or 1.
  const bool counted = k != Ext::Strcmp, strings = k != Ext::Memcmp;
  if (!needArgs(I, counted ? 3 : 2, name)) return;
  Reg a = argReg(I, 0), b = argReg(I, 1), n = counted ? argReg(I, 2) : kNoReg;
  Reg i = newReg(), r = newReg();
  mov(i, constVal(0));
  int lTop = newLabel(), lBody = newLabel(), lDiff = newLabel(), lSame = newLabel(), lNext = newLabel(),
      lEqual = newLabel(), lEnd = newLabel();
  bind(lTop);
  if (counted) br(cmp(CmpOp::Ult, i, n), lBody, lEqual);
  else jmp(lBody);
  bind(lBody);
  Reg x = loadByte(a, i, nameOf(0)), y = loadByte(b, i, nameOf(1));
  br(cmp(CmpOp::Ne, x, y), lDiff, lSame);
  bind(lDiff);
  {
    // x < y ? -1 : 1, as the C int (registers hold it zero-extended)
    Reg less = cmp(CmpOp::Ult, x, y), minus = constVal(Value(-1)), plus = constVal(1);
    Instr& sel = emit(Op::Select);
    sel.a = r;
    sel.b = less;
    sel.c = minus;
    sel.d = plus;
    jmp(lEnd);
  }
  bind(lSame);
  if (strings) br(x, lNext, lEqual);
  else jmp(lNext);
  bind(lNext);
  bin(BinOp::Add, i, constVal(1), i);
  jmp(lTop);
  bind(lEqual);
  mov(r, constVal(0));
  bind(lEnd);
  setCallResult(I, r);
}

void FunctionLowering::lowerStringCopy(llvm::CallInst& I, Ext k, const std::string& name) {
  auto nameOf = [&](unsigned i) { return addrName(I.getArgOperand(i)); };
  // strcpy: copy through the NUL. strncpy: exactly n bytes, NUL-padded
  // after the source's end. Returns the destination.
  const bool counted = k == Ext::Strncpy;
  if (!needArgs(I, counted ? 3 : 2, name)) return;
  Reg d = argReg(I, 0), s = argReg(I, 1), n = counted ? argReg(I, 2) : kNoReg;
  Reg i = newReg(), ended = newReg(), c = newReg();
  mov(i, constVal(0));
  mov(ended, constVal(0));
  int lTop = newLabel(), lBody = newLabel(), lRead = newLabel(), lPad = newLabel(), lWrite = newLabel(),
      lEnd = newLabel();
  bind(lTop);
  if (counted) br(cmp(CmpOp::Ult, i, n), lBody, lEnd);
  else jmp(lBody);
  bind(lBody);
  br(ended, lPad, lRead);
  bind(lRead);
  mov(c, loadByte(s, i, nameOf(1)));
  jmp(lWrite);
  bind(lPad);
  mov(c, constVal(0));
  bind(lWrite);
  storeByte(d, i, c, nameOf(0));
  if (counted) {
    Reg nul = cmp(CmpOp::Eq, c, constVal(0));
    bin(BinOp::Or, ended, nul, ended);
    bin(BinOp::Add, i, constVal(1), i);
    jmp(lTop);
  } else {
    int lNext = newLabel();
    br(c, lNext, lEnd);
    bind(lNext);
    bin(BinOp::Add, i, constVal(1), i);
    jmp(lTop);
  }
  bind(lEnd);
  setCallResult(I, d);
}

// aligned_alloc(alignment, size) and posix_memalign(void **out, alignment,
// size): a heap block aligned to `alignment`. An alignment that is not a
// power of two is an error the call reports, as C17 and POSIX define it
// (not undefined behaviour): aligned_alloc returns NULL, posix_memalign
// returns EINVAL and leaves *out alone (it also wants a multiple of
// sizeof(void *)). C17 puts no condition on the size.
void FunctionLowering::lowerAlignedAlloc(llvm::CallInst& I, Ext k, const std::string& name) {
  const bool aligned = k == Ext::AlignedAlloc;
  if (!needArgs(I, aligned ? 2 : 3, name)) return;
  Reg align = argReg(I, aligned ? 0 : 1), n = argReg(I, aligned ? 1 : 2);
  Reg power = cmp(CmpOp::Eq, bin(BinOp::And, align, bin(BinOp::Sub, align, constVal(1))), constVal(0));
  Reg good = bin(BinOp::And, power, cmp(CmpOp::Uge, align, constVal(aligned ? 1 : 8)));
  Reg p = newReg(), r = newReg();
  const int lGood = newLabel(), lBad = newLabel(), lEnd = newLabel();
  br(good, lGood, lBad);
  bind(lGood);
  {
    Instr& in = emit(Op::Malloc);
    in.a = p;
    in.b = n;
    in.c = align;
  }
  if (aligned) {
    mov(r, p);
  } else {
    emitStore(argReg(I, 0), p, 8, addrName(I.getArgOperand(0)));
    mov(r, constVal(0));
  }
  jmp(lEnd);
  bind(lBad);
  mov(r, constVal(aligned ? 0 : kEINVAL));
  bind(lEnd);
  setCallResult(I, r);
}

}  // namespace tsocheck::frontend::lowering

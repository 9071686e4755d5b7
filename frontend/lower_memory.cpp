// Memory accesses: loads, stores, RMWs, compare-and-swap and fences with
// the fences each memory order needs per model, and mem* intrinsics as
// sequences of accesses (lowering.h).
#include "frontend/lowering.h"

namespace tsocheck::frontend::lowering {

void FunctionLowering::countRead(const llvm::Value* ptr) {
  auto loops = enclosingSpinLoops(cur_->getParent());
  if (loops.empty()) return;
  if (auto* a = dyn_cast<llvm::AllocaInst>(baseObject(ptr)); a && private_.count(a)) return;
  if (privateTls(ptr)) return;  // no event: not a read the idle iteration makes
  for (SpinLoop* s : loops) bin(BinOp::Add, s->reads, constVal(1), s->reads);
}

void FunctionLowering::lowerLoad(llvm::LoadInst& I) {
  unsigned size = accessSize(I.getType(), "load");
  if (!size) return;
  // Loads from constant globals (string literals, initialiser templates) are folded.
  {
    llvm::APInt off(64, 0);
    const llvm::Value* base = I.getPointerOperand()->stripAndAccumulateConstantOffsets(dl_, off, true);
    uint64_t v = 0;
    const llvm::GlobalVariable* g = ml_.resolveGlobal(base);
    if (g && isStdStream(g)) {  // stdout/stderr only feed ignored output calls
      Instr& in = emit(Op::Const);
      in.a = resultReg(I);
      return;
    }
    if (g && !I.isVolatile() && off.getSExtValue() >= 0 && ml_.constantBytes(g, off.getZExtValue(), size, v)) {
      Instr& in = emit(Op::Const);
      in.a = resultReg(I);
      in.imm = int64_t(v);
      return;
    }
  }
  Reg addr = val(I.getPointerOperand());
  const uint8_t order = accessOrderFlags(I.isAtomic(), I.isVolatile(), I.getOrdering(), false);
  const MemOrder mo = accessOrder(I.isAtomic(), I.isVolatile(), I.getOrdering());
  if (isFloatPair(I.getType())) {
    // struct { float x, y; } by value: two 4-byte loads (its fields), so the
    // accesses have the fields' size wherever the struct lives.
    Reg lo = newReg(), hi = newReg();
    for (int i = 0; i < 2; ++i) {
      Reg at = addOffset(addr, 4 * i);
      Instr& ld = emit(Op::Load);
      ld.a = i ? hi : lo;
      ld.b = at;
      ld.size = 4;
      ld.sub = order;
      ld.order = mo;
      countRead(I.getPointerOperand());
    }
    bin(BinOp::Or, lo, bin(BinOp::Shl, hi, constVal(32)), resultReg(I));
    return;
  }
  Instr& in = emit(Op::Load);
  in.a = resultReg(I);
  in.b = addr;
  in.size = uint8_t(size);
  in.name = addrName(I.getPointerOperand());
  in.sub = order;
  in.order = mo;
  countRead(I.getPointerOperand());
}

namespace {
// A plain C access the lowering makes up (mem* intrinsics): a data race on
// it is a race; under RC11 it is non-atomic.
void setPlain(Instr& in) {
  in.sub = kPlainAccess;
  in.order = MemOrder::NonAtomic;
}
MemOrder memOrder(llvm::AtomicOrdering o) {
  using AO = llvm::AtomicOrdering;
  switch (o) {
    case AO::Acquire: return MemOrder::Acquire;
    case AO::Release: return MemOrder::Release;
    case AO::AcquireRelease: return MemOrder::AcqRel;
    case AO::SequentiallyConsistent: return MemOrder::SeqCst;
    default: return MemOrder::Relaxed;  // not atomic, unordered, monotonic
  }
}
}  // namespace

MemOrder FunctionLowering::accessOrder(bool atomic, bool isVolatile, llvm::AtomicOrdering o) {
  // (A volatile access is no plain access for the race detector either.)
  if (!atomic) return isVolatile ? MemOrder::Relaxed : MemOrder::NonAtomic;
  return memOrder(o);
}

void FunctionLowering::emitFence(std::optional<FenceKind> k) {
  if (!k) return;
  Instr& in = emit(Op::Fence);
  in.sub = uint8_t(*k);
}

void FunctionLowering::lowerStore(llvm::StoreInst& I) {
  unsigned size = accessSize(I.getValueOperand()->getType(), "store");
  if (!size) return;
  Reg addr = val(I.getPointerOperand());
  Reg v = val(I.getValueOperand());
  emitFence(ml_.opts_.memoryModel().fenceBeforeStore(memOrder(I.getOrdering())));
  const uint8_t order = accessOrderFlags(I.isAtomic(), I.isVolatile(), I.getOrdering(), true);
  const MemOrder mo = accessOrder(I.isAtomic(), I.isVolatile(), I.getOrdering());
  if (isFloatPair(I.getValueOperand()->getType())) {  // two 4-byte stores, as the load above
    Reg hi = bin(BinOp::LShr, v, constVal(32));
    for (int i = 0; i < 2; ++i) {
      Reg at = addOffset(addr, 4 * i);
      Instr& st = emit(Op::Store);
      st.b = at;
      st.c = i ? hi : v;  // a 4-byte store writes the low half
      st.size = 4;
      st.sub = order;
      st.order = mo;
    }
  } else {
    Instr& in = emitStore(addr, v, size, addrName(I.getPointerOperand()));
    in.sub = order;
    in.order = mo;
  }
  emitFence(ml_.opts_.memoryModel().fenceAfterStore(memOrder(I.getOrdering())));
  auto* slot = dyn_cast<llvm::AllocaInst>(baseObject(I.getPointerOperand()));
  if (!slot || !private_.count(slot)) {
    markEffect();
    return;
  }
  for (SpinLoop* s : enclosingSpinLoops(I.getParent()))
    if (slotLiveAtHeader(slot, s->loop)) {
      Instr& c = emit(Op::Const);
      c.a = s->flag;
      c.imm = 1;
    }
}

void FunctionLowering::lowerRmw(llvm::AtomicRMWInst& I) {
  RmwOp op = RmwOp::Xchg;
  switch (I.getOperation()) {
    case llvm::AtomicRMWInst::Xchg: op = RmwOp::Xchg; break;
    case llvm::AtomicRMWInst::Add: op = RmwOp::Add; break;
    case llvm::AtomicRMWInst::Sub: op = RmwOp::Sub; break;
    case llvm::AtomicRMWInst::And: op = RmwOp::And; break;
    case llvm::AtomicRMWInst::Or: op = RmwOp::Or; break;
    case llvm::AtomicRMWInst::Xor: op = RmwOp::Xor; break;
    case llvm::AtomicRMWInst::Nand: op = RmwOp::Nand; break;
    case llvm::AtomicRMWInst::Max: op = RmwOp::Max; break;
    case llvm::AtomicRMWInst::Min: op = RmwOp::Min; break;
    case llvm::AtomicRMWInst::UMax: op = RmwOp::UMax; break;
    case llvm::AtomicRMWInst::UMin: op = RmwOp::UMin; break;
    case llvm::AtomicRMWInst::FAdd: op = RmwOp::FAdd; break;
    case llvm::AtomicRMWInst::FSub: op = RmwOp::FSub; break;
    case llvm::AtomicRMWInst::FMax: op = RmwOp::FMax; break;
    case llvm::AtomicRMWInst::FMin: op = RmwOp::FMin; break;
    default:
      unsupported("atomic read-modify-write '" + llvm::AtomicRMWInst::getOperationName(I.getOperation()).str() +
                  "' is not supported (only xchg, add, sub, and, or, xor, nand, min, max, umin, umax, fadd, "
                  "fsub, fmin, fmax)");
      return;
  }
  unsigned size = accessSize(I.getValOperand()->getType(), "atomic read-modify-write");
  if (!size) return;
  Reg addr = val(I.getPointerOperand());
  Reg operand = val(I.getValOperand());
  Reg old = resultReg(I);
  Instr& in = emit(Op::Rmw);
  in.sub = uint8_t(op);
  in.imm = rmwOrderFlags(I.getOrdering());
  in.order = memOrder(I.getOrdering());
  in.a = old;
  in.b = addr;
  in.c = operand;
  in.size = uint8_t(size);
  in.name = addrName(I.getPointerOperand());
  countRead(I.getPointerOperand());
  // An RMW that writes back the value it read (a failed test-and-set) changes
  // nothing. (Marked outside loops too: for a caller's loop around the call.)
  Reg changed = kNoReg;
  Reg zero = constVal(0);
  switch (op) {
    case RmwOp::Xchg: changed = cmp(CmpOp::Ne, operand, old); break;
    case RmwOp::Add:
    case RmwOp::Sub:
    case RmwOp::Xor: changed = cmp(CmpOp::Ne, operand, zero); break;
    case RmwOp::And: changed = cmp(CmpOp::Ne, bin(BinOp::And, old, operand), old); break;
    case RmwOp::Or: changed = cmp(CmpOp::Ne, bin(BinOp::Or, old, operand), old); break;
    case RmwOp::Cas: break;
    case RmwOp::Nand:
    case RmwOp::Max:
    case RmwOp::Min:
    case RmwOp::UMax:
    case RmwOp::UMin:
    case RmwOp::FAdd:  // (adding -0.0 writes the same bits back: still counted, which is safe)
    case RmwOp::FSub:
    case RmwOp::FMax:
    case RmwOp::FMin:
      markEffect();  // (may write back the value it read: counted as an effect, which is safe)
      break;
  }
  if (changed != kNoReg) markEffectIf(changed);
}

uint8_t FunctionLowering::accessOrderFlags(bool atomic, bool isVolatile, llvm::AtomicOrdering o, bool store) const {
  if (!atomic) return isVolatile ? 0 : kPlainAccess;
  // A load acquires, a store releases, from acquire / release on (or with a fence).
  const bool synchronises = store ? isAtLeastOrStrongerThan(o, llvm::AtomicOrdering::Release) || releaseFence_
                                  : isAtLeastOrStrongerThan(o, llvm::AtomicOrdering::Acquire) || acquireFence_;
  return synchronises ? 0 : kRelaxedAccess;
}

int64_t FunctionLowering::rmwOrderFlags(llvm::AtomicOrdering o) const {
  using AO = llvm::AtomicOrdering;
  const bool acquires = o == AO::Acquire || o == AO::AcquireRelease || o == AO::SequentiallyConsistent;
  const bool releases = o == AO::Release || o == AO::AcquireRelease || o == AO::SequentiallyConsistent;
  return (acquires || acquireFence_ ? 0 : kRmwNoAcquire) | (releases || releaseFence_ ? 0 : kRmwNoRelease);
}

void FunctionLowering::lowerCmpXchg(llvm::AtomicCmpXchgInst& I) {
  unsigned size = accessSize(I.getNewValOperand()->getType(), "compare-and-swap");
  if (!size) return;
  Reg addr = val(I.getPointerOperand());
  Reg expected = val(I.getCompareOperand());
  Reg desired = val(I.getNewValOperand());
  Reg old = regs_.at(&I);
  Instr& in = emit(Op::Rmw);
  in.sub = uint8_t(RmwOp::Cas);
  in.imm = rmwOrderFlags(I.getSuccessOrdering());
  in.order = memOrder(I.getSuccessOrdering());
  in.failOrder = memOrder(I.getFailureOrdering());  // (a failed CAS is a read with it: engine/rc11.h)
  in.a = old;
  in.b = addr;
  in.c = desired;
  in.d = expected;
  in.size = uint8_t(size);
  in.name = addrName(I.getPointerOperand());
  Reg ok = cmp(CmpOp::Eq, old, expected, success_.at(&I));
  countRead(I.getPointerOperand());
  // A failed CAS writes nothing; a successful one may write the old value
  // back. (Marked outside loops too: for a caller's loop around the call.)
  Reg changed = bin(BinOp::And, ok, cmp(CmpOp::Ne, old, desired));
  markEffectIf(changed);
}

void FunctionLowering::lowerFence(llvm::FenceInst& I) {
  if (I.getSyncScopeID() == llvm::SyncScope::SingleThread) return;  // atomic_signal_fence
  if (ml_.opts_.memoryModel().usesC11Orders()) {  // the fence keeps its order (engine/rc11.h)
    Instr& in = emit(Op::Fence);
    in.sub = uint8_t(FenceKind::Full);
    in.order = memOrder(I.getOrdering());
    return;
  }
  emitFence(ml_.opts_.memoryModel().fenceFor(memOrder(I.getOrdering())));
}


// memcpy/memmove/memset of a small constant size: one access per scalar field.
void FunctionLowering::lowerMemIntrinsic(llvm::MemIntrinsic& I) {
  auto* lenC = dyn_cast<llvm::ConstantInt>(I.getLength());
  if (!lenC) {
    unsupported(std::string(isa<llvm::MemSetInst>(I) ? "memset" : "memcpy") + " with a non-constant size is not supported");
    return;
  }
  uint64_t len = lenC->getZExtValue();
  if (len == 0) return;
  if (len > 4096) {
    unsupported(std::string(isa<llvm::MemSetInst>(I) ? "memset" : "memcpy") + " of " + std::to_string(len) +
                " bytes is too large (at most 4096)");
    return;
  }
  MemLeaves leaves;
  if (!memIntrinsicLeaves(I, len, leaves)) return;
  Reg dst = val(I.getRawDest());
  if (auto* ms = dyn_cast<llvm::MemSetInst>(&I)) lowerMemset(*ms, dst, leaves);
  else lowerMemTransfer(cast<llvm::MemTransferInst>(I), dst, leaves);
  markEffect();
}

// Scalar leaves (offset, size) of a type; false when one is not 1, 2, 4 or
// 8 bytes or an array is too long.
bool FunctionLowering::flattenType(llvm::Type* t, uint64_t base, MemLeaves& out) {
  if (t->isIntegerTy() || t->isPointerTy() || t->isFloatingPointTy()) {
    uint64_t n = dl_.getTypeStoreSize(t);
    if (n != 1 && n != 2 && n != 4 && n != 8) return false;
    out.push_back({base, unsigned(n)});
    return true;
  }
  if (auto* at = dyn_cast<llvm::ArrayType>(t)) {
    uint64_t esz = dl_.getTypeAllocSize(at->getElementType());
    if (at->getNumElements() > 4096) return false;
    for (uint64_t i = 0; i < at->getNumElements(); ++i)
      if (!flattenType(at->getElementType(), base + i * esz, out)) return false;
    return true;
  }
  if (auto* st = dyn_cast<llvm::StructType>(t)) {
    const llvm::StructLayout* sl = dl_.getStructLayout(st);
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      if (!flattenType(st->getElementType(i), base + sl->getElementOffset(i), out)) return false;
    return true;
  }
  return false;
}

// The type of the stack slot or global p points into (off: p's offset in
// it), or null when p's object is not known.
llvm::Type* FunctionLowering::objectTypeAt(const llvm::Value* p, uint64_t& off) {
  llvm::APInt o(64, 0);
  const llvm::Value* b = p->stripAndAccumulateConstantOffsets(dl_, o, true);
  off = o.getZExtValue();
  if (auto* a = dyn_cast<llvm::AllocaInst>(b)) {
    llvm::Type* t = a->getAllocatedType();
    if (auto* c = dyn_cast<llvm::ConstantInt>(a->getArraySize()); c && c->getZExtValue() != 1)
      t = llvm::ArrayType::get(t, c->getZExtValue());
    return t;
  }
  if (auto* g = ml_.resolveGlobal(b)) return g->getValueType();
  return nullptr;
}

// The scalar accesses of a copy or fill of len bytes, relative to its start:
// the fields of the destination's (else the source's) object that it covers
// whole; else one access when len is a scalar size. False (reported) when
// neither works.
bool FunctionLowering::memIntrinsicLeaves(llvm::MemIntrinsic& I, uint64_t len, MemLeaves& leaves) {
  std::vector<const llvm::Value*> ptrs{I.getRawDest()};
  if (auto* mt = dyn_cast<llvm::MemTransferInst>(&I)) ptrs.push_back(mt->getRawSource());
  for (const llvm::Value* p : ptrs) {
    uint64_t off = 0;
    llvm::Type* t = objectTypeAt(p, off);
    if (!t) continue;
    MemLeaves all;
    if (!flattenType(t, 0, all)) continue;
    MemLeaves in;
    bool partial = false;
    for (auto& [o, n] : all) {
      if (o + n <= off || o >= off + len) continue;
      if (o < off || o + n > off + len) partial = true;
      in.push_back({o - off, n});
    }
    if (partial || in.empty()) continue;
    leaves = std::move(in);
    return true;
  }
  if (len == 1 || len == 2 || len == 4 || len == 8) {
    leaves.push_back({0, unsigned(len)});
    return true;
  }
  // Copying in pieces of another size would mix access sizes on the same
  // memory, which the engine refuses later with a less direct message.
  unsupported(std::string(isa<llvm::MemSetInst>(I) ? "memset" : "memcpy") + " of " + std::to_string(len) +
              " bytes through a pointer of unknown element type is not supported: neither pointer points into a "
              "variable whose type gives the fields (a heap block, a pointer passed in); copy field by field "
              "(d->a = s->a; ...) or through a typed local");
  return false;
}

// memset: the byte repeated over each leaf, stored.
void FunctionLowering::lowerMemset(llvm::MemSetInst& ms, Reg dst, const MemLeaves& leaves) {
  llvm::Value* byteV = ms.getValue();
  for (auto& [o, n] : leaves) {
    Reg v;
    if (auto* c = dyn_cast<llvm::ConstantInt>(byteV)) {
      uint64_t b = c->getZExtValue() & 0xff, pat = 0;
      for (unsigned i = 0; i < n; ++i) pat |= b << (8 * i);
      v = constVal(pat);
    } else {
      uint64_t ones = 0;
      for (unsigned i = 0; i < n; ++i) ones |= uint64_t(1) << (8 * i);
      v = bin(BinOp::Mul, val(byteV), constVal(ones));
    }
    Reg at = addOffset(dst, int64_t(o));
    Instr& st = emitStore(at, v, n);
    if (!ms.isVolatile()) setPlain(st);
  }
}

// memcpy / memmove: every leaf read first (constant bytes of a constant
// global folded), then written.
void FunctionLowering::lowerMemTransfer(llvm::MemTransferInst& mt, Reg dst, const MemLeaves& leaves) {
  llvm::APInt soff(64, 0);
  const llvm::Value* sbase = mt.getRawSource()->stripAndAccumulateConstantOffsets(dl_, soff, true);
  const llvm::GlobalVariable* sg = ml_.resolveGlobal(sbase);
  Reg src = val(mt.getRawSource());
  std::vector<Reg> vals;
  for (auto& [o, n] : leaves) {
    uint64_t cv = 0;
    if (sg && !mt.isVolatile() && ml_.constantBytes(sg, soff.getZExtValue() + o, n, cv)) {
      vals.push_back(constVal(cv));
      continue;
    }
    Reg r = newReg();
    Reg at = addOffset(src, int64_t(o));
    Instr& ld = emit(Op::Load);
    ld.a = r;
    ld.b = at;
    ld.size = uint8_t(n);
    if (!mt.isVolatile()) setPlain(ld);
    vals.push_back(r);
    countRead(mt.getRawSource());
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    Reg at = addOffset(dst, int64_t(leaves[i].first));
    Instr& st = emitStore(at, vals[i], leaves[i].second);
    if (!mt.isVolatile()) setPlain(st);
  }
}

}  // namespace tsocheck::frontend::lowering

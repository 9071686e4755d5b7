// Function lowering: emission helpers, blocks and edges, branches and
// switches, arithmetic, comparisons, casts and address computation
// (lowering.h).
#include "frontend/lowering.h"

namespace tsocheck::frontend::lowering {

// ---------------------------------------------------------------------------
// FunctionLowering: emission helpers

FunctionLowering::FunctionLowering(ModuleLowering& ml, llvm::Function& f, uint32_t index)
    : ml_(ml), f_(f), index_(index), out_(&ml.p_.functions[index]), dl_(ml.dl_) {}

Instr& FunctionLowering::emit(Op op) {
  Instr in;
  in.op = op;
  in.loc = loc_;
  body_.push_back(in);
  return body_.back();
}

Instr& FunctionLowering::emitStore(Reg at, Reg value, unsigned size, uint32_t name) {
  Instr& st = emit(Op::Store);
  st.b = at;
  st.c = value;
  st.size = uint8_t(size);
  st.name = name;
  return st;
}

void FunctionLowering::jmp(int l) {
  fixups_.push_back({body_.size(), l, false});
  emit(Op::Jmp);
}

void FunctionLowering::br(Reg c, int t, int f) {
  fixups_.push_back({body_.size(), t, false});
  fixups_.push_back({body_.size(), f, true});
  Instr& in = emit(Op::Br);
  in.a = c;
}

Reg FunctionLowering::constVal(uint64_t v) {
  auto it = consts_.find(v);
  if (it != consts_.end()) return it->second;
  Reg r = newReg();
  Instr in;
  in.op = Op::Const;
  in.a = r;
  in.imm = int64_t(v);
  in.loc = out_->loc;
  prologue_.push_back(in);
  consts_[v] = r;
  return r;
}

void FunctionLowering::unsupported(const std::string& msg) {
  failed_ = true;
  ml_.error(loc_, msg);
}

Reg FunctionLowering::val(llvm::Value* v) {
  auto it = regs_.find(v);
  if (it != regs_.end()) return it->second;
  if (auto* c = dyn_cast<llvm::Constant>(v)) {
    if (auto* a = dyn_cast<llvm::GlobalAlias>(c)) {
      c = a->getAliaseeObject();
      if (!c) {
        unsupported("alias '" + a->getName().str() + "' has no resolvable target");
        return constVal(0);
      }
    }
    if (auto* g = dyn_cast<llvm::GlobalVariable>(c)) {
      if (g->isDeclaration() && !isStdStream(g))
        unsupported("global variable '" + g->getName().str() + "' is declared but not defined in this file");
      auto gi = ml_.globalIndex_.find(g);
      if (gi != ml_.globalIndex_.end()) {
        auto key = std::make_pair(int64_t(gi->second), int64_t(0));
        auto ga = globalAddrs_.find(key);
        if (ga != globalAddrs_.end()) return ga->second;
        Reg r = newReg();
        Instr in;
        in.op = Op::GlobalAddr;
        in.a = r;
        in.imm = gi->second;
        in.loc = out_->loc;
        prologue_.push_back(in);
        globalAddrs_[key] = r;
        return r;
      }
    }
    if (auto* fn = dyn_cast<llvm::Function>(c)) {
      auto fi = ml_.funcIndex_.find(fn);
      if (fi == ml_.funcIndex_.end()) {
        unsupported("address of function '" + fn->getName().str() +
                    "' is used, but it has " + ml_.noDefinition());
        return constVal(0);
      }
      auto fa = funcAddrs_.find(fi->second);
      if (fa != funcAddrs_.end()) return fa->second;
      Reg r = newReg();
      Instr in;
      in.op = Op::FuncAddr;
      in.a = r;
      in.imm = fi->second;
      in.loc = out_->loc;
      prologue_.push_back(in);
      funcAddrs_[fi->second] = r;
      return r;
    }
    // Constant offsets into globals stay symbolic (GlobalAddr + offset).
    if (auto* ce = dyn_cast<llvm::ConstantExpr>(c)) {
      llvm::APInt off(64, 0);
      const llvm::Value* base = ce->stripAndAccumulateConstantOffsets(dl_, off, true);
      if (auto* g = ml_.resolveGlobal(base); g && ce->getType()->isPointerTy()) {
        auto gi = ml_.globalIndex_.find(g);
        if (gi != ml_.globalIndex_.end()) {
          auto key = std::make_pair(int64_t(gi->second), off.getSExtValue());
          auto ga = globalAddrs_.find(key);
          if (ga != globalAddrs_.end()) return ga->second;
          Reg r = newReg();
          Instr in;
          in.op = Op::GlobalAddr;
          in.a = r;
          in.imm = gi->second;
          in.imm2 = off.getSExtValue();
          in.loc = out_->loc;
          prologue_.push_back(in);
          globalAddrs_[key] = r;
          return r;
        }
      }
    }
    uint64_t x = 0;
    std::string err;
    if (!ml_.evalConst(c, x, err)) {
      unsupported(err);
      return constVal(0);
    }
    return constVal(x);
  }
  if (isa<llvm::MetadataAsValue>(v) || isa<llvm::InlineAsm>(v)) return constVal(0);
  // A value defined in a block we did not lower (unreachable code).
  Reg r = newReg();
  regs_[v] = r;
  return r;
}

Reg FunctionLowering::bin(BinOp op, Reg a, Reg b, Reg dst) {
  if (dst == kNoReg) dst = newReg();
  Instr& in = emit(Op::Bin);
  in.sub = uint8_t(op);
  in.a = dst;
  in.b = a;
  in.c = b;
  return dst;
}

Reg FunctionLowering::cmp(CmpOp op, Reg a, Reg b, Reg dst) {
  if (dst == kNoReg) dst = newReg();
  Instr& in = emit(Op::Cmp);
  in.sub = uint8_t(op);
  in.a = dst;
  in.b = a;
  in.c = b;
  return dst;
}

void FunctionLowering::mov(Reg dst, Reg src) {
  if (dst == src) return;
  Instr& in = emit(Op::Mov);
  in.a = dst;
  in.b = src;
}

void FunctionLowering::maskInPlace(Reg r, unsigned bits) {
  if (bits >= 64) return;
  if (bits == 8 || bits == 16 || bits == 32) {
    Instr& in = emit(Op::Ext);
    in.a = r;
    in.b = r;
    in.size = uint8_t(bits / 8);
    in.sub = 0;
    return;
  }
  bin(BinOp::And, r, constVal((uint64_t(1) << bits) - 1), r);
}

Reg FunctionLowering::sextReg(Reg src, unsigned bits) {
  Reg r = newReg();
  if (bits >= 64) {
    mov(r, src);
  } else if (bits == 8 || bits == 16 || bits == 32) {
    Instr& in = emit(Op::Ext);
    in.a = r;
    in.b = src;
    in.size = uint8_t(bits / 8);
    in.sub = 1;
  } else {
    bin(BinOp::Shl, src, constVal(64 - bits), r);
    bin(BinOp::AShr, r, constVal(64 - bits), r);
  }
  return r;
}

Reg FunctionLowering::addOffset(Reg base, int64_t off) {
  if (off == 0) return base;
  return bin(BinOp::Add, base, constVal(uint64_t(off)));
}

Reg FunctionLowering::resultReg(llvm::Instruction& I) {
  auto it = regs_.find(&I);
  if (it != regs_.end()) return it->second;
  Reg r = newReg();
  regs_[&I] = r;
  return r;
}

void FunctionLowering::setResult(llvm::Instruction& I, Reg r) { mov(resultReg(I), r); }

uint32_t FunctionLowering::addrName(const llvm::Value* ptr) {
  llvm::APInt off(64, 0);
  const llvm::Value* base = ptr->stripAndAccumulateConstantOffsets(dl_, off, true);
  int64_t o = off.getSExtValue();
  if (o < 0) return 0;
  if (auto* g = ml_.resolveGlobal(base)) {
    auto gi = ml_.globalIndex_.find(g);
    if (gi == ml_.globalIndex_.end()) return 0;
    auto dt = ml_.globalDIType_.find(g);
    if (dt == ml_.globalDIType_.end()) return 0;  // the engine prints x, arr[2], s+4
    std::string path = diPath(dt->second, uint64_t(o));
    if (path.empty() || path[0] == '+') return 0;  // scalars: the engine's name is the same
    return ml_.p_.intern(ml_.p_.globals[gi->second].name + path);
  }
  if (auto* a = dyn_cast<llvm::AllocaInst>(base)) {
    if (private_.count(a)) return 0;
    llvm::DILocalVariable* var = nullptr;
    for (auto* d : llvm::findDVRDeclares(const_cast<llvm::AllocaInst*>(a))) {
      var = d->getVariable();
      break;
    }
    if (!var)
      for (auto* d : llvm::findDbgDeclares(const_cast<llvm::AllocaInst*>(a))) {
        var = d->getVariable();
        break;
      }
    if (!var || var->getName().empty()) return 0;
    std::string path = diPath(var->getType(), uint64_t(o));
    return ml_.p_.intern(var->getName().str() + path);
  }
  return 0;
}


// ---------------------------------------------------------------------------
// Lowering

unsigned FunctionLowering::accessSize(llvm::Type* t, const char* what) {
  if (t->isFloatingPointTy() && !fpSize(t)) {
    unsupported(std::string(what) + " of " + fpTypeRefusal(t));
    return 0;
  }
  if (!(t->isIntegerTy() || t->isPointerTy() || t->isFloatingPointTy() || isFloatPair(t))) {
    unsupported(std::string(what) + " of type " + typeName(t) +
                " is not supported (only integers, pointers, float and double)");
    return 0;
  }
  uint64_t n = dl_.getTypeStoreSize(t);
  if (n != 1 && n != 2 && n != 4 && n != 8) {
    unsupported(std::string(what) + " of " + std::to_string(n) + " bytes (" + typeName(t) + ") is not supported");
    return 0;
  }
  return unsigned(n);
}

bool FunctionLowering::checkTypes(llvm::Instruction& I) {
  // float and double are bit patterns in registers; other floating-point
  // types (long double, __float128, _Float16) and vectors are refused.
  auto badFP = [](llvm::Type* t) { return t->isFloatingPointTy() && !fpSize(t); };
  if (isa<llvm::CallInst>(I)) {  // memcpy of structs holding doubles is fine; calls check their arguments
    if (I.getType()->isVectorTy() && !isFloatPair(I.getType())) {
      unsupported("calls returning a vector (" + typeName(I.getType()) + ") are not supported");
      return false;
    }
    if (badFP(I.getType())) {
      unsupported("call returning " + fpTypeRefusal(I.getType()));
      return false;
    }
    return true;
  }
  auto badVec = [](llvm::Type* t) { return t->isVectorTy() && !isFloatPair(t); };
  bool vec = badVec(I.getType());
  bool pair = isFloatPair(I.getType());
  for (const llvm::Use& u : I.operands()) {
    vec = vec || badVec(u->getType());
    pair = pair || isFloatPair(u->getType());
  }
  // A struct of two floats passed or returned by value is only moved.
  if (pair && !isa<llvm::LoadInst>(I) && !isa<llvm::StoreInst>(I) && !isa<llvm::ReturnInst>(I) &&
      !isa<llvm::PHINode>(I) && !isa<llvm::SelectInst>(I) && !isa<llvm::FreezeInst>(I))
    vec = true;
  if (vec) {
    unsupported(std::string(I.getType()->isFPOrFPVectorTy() ? "vector floating-point operations"
                                                            : "vector operations") +
                " are not supported (" + I.getOpcodeName() + ")");
    return false;
  }
  llvm::Type* fp = badFP(I.getType()) ? I.getType() : nullptr;
  for (const llvm::Use& u : I.operands())
    if (!fp && badFP(u->getType())) fp = u->getType();
  if (fp) {
    unsupported(std::string(I.getOpcodeName()) + " of " + fpTypeRefusal(fp));
    return false;
  }
  if (I.getType()->isIntegerTy() && I.getType()->getIntegerBitWidth() > 64) {
    unsupported("integers wider than 64 bits are not supported (" + typeName(I.getType()) + ")");
    return false;
  }
  return true;
}

bool FunctionLowering::atomicSection() const {
  const llvm::StringRef n = f_.getName();
  const Ext e = classifyExternal(n);
  return n.starts_with("__VERIFIER_atomic_") && e != Ext::AtomicBegin && e != Ext::AtomicEnd;
}

void FunctionLowering::findFences() {
  using AO = llvm::AtomicOrdering;
  auto scan = [&](const llvm::Function& f, auto& self, int depth) -> void {
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& I : bb) {
        if (auto* fe = dyn_cast<llvm::FenceInst>(&I)) {
          if (fe->getSyncScopeID() == llvm::SyncScope::SingleThread) continue;
          AO o = fe->getOrdering();
          acquireFence_ |= o == AO::Acquire || o == AO::AcquireRelease || o == AO::SequentiallyConsistent;
          releaseFence_ |= o == AO::Release || o == AO::AcquireRelease || o == AO::SequentiallyConsistent;
        } else if (auto* call = dyn_cast<llvm::CallBase>(&I); call && depth == 0) {
          const llvm::Function* callee = call->getCalledFunction();
          if (callee && !callee->isDeclaration()) self(*callee, self, 1);
        }
      }
  };
  scan(f_, scan, 0);
}

void FunctionLowering::run() {
  for (unsigned i = 0; i < f_.arg_size(); ++i) regs_[f_.getArg(i)] = Reg(i);
  loc_ = out_->loc;
  dt_.recalculate(f_);
  li_ = std::make_unique<llvm::LoopInfo>(dt_);
  computePrivateAllocas();
  findSpinLoops();
  findFences();

  // Blocks reachable from the entry, in layout order.
  std::vector<llvm::BasicBlock*> order;
  for (llvm::BasicBlock& bb : f_)
    if (dt_.isReachableFromEntry(&bb)) order.push_back(&bb);
  for (llvm::BasicBlock* bb : order) blockLabel_[bb] = newLabel();
  // Registers for every value first (phis are assigned on edges before their block runs).
  for (llvm::BasicBlock* bb : order)
    for (llvm::Instruction& I : *bb)
      if (isa<llvm::AtomicCmpXchgInst>(I)) {
        regs_[&I] = newReg();      // old value
        success_[&I] = newReg();   // success flag
      } else if (!I.getType()->isVoidTy() && !I.getType()->isStructTy()) {
        resultReg(I);
      }

  // A function named __VERIFIER_atomic_* (the verification benchmarks'
  // convention) runs as one atomic section: entered before its first
  // instruction, left at each return (nothing can jump back to the entry).
  if (atomicSection()) emit(Op::AtomicBegin);
  for (size_t i = 0; i < order.size(); ++i) lowerBlock(order[i], i + 1 < order.size() ? order[i + 1] : nullptr);

  // Assemble: prologue (constants) + body, then resolve labels.
  int64_t shift = int64_t(prologue_.size());
  std::vector<Instr> code = std::move(prologue_);
  code.insert(code.end(), body_.begin(), body_.end());
  for (const Fixup& fx : fixups_) {
    int64_t target = labels_[fx.label];
    if (target < 0) target = int64_t(body_.size());  // unbound: falls off the end
    Instr& in = code[size_t(shift) + fx.pc];
    if (fx.second) in.imm2 = target + shift;
    else in.imm = target + shift;
  }
  out_->code = std::move(code);
}

void FunctionLowering::lowerBlock(llvm::BasicBlock* bb, llvm::BasicBlock* next) {
  bind(blockLabel_[bb]);
  // Loop headers of spin loops: start a fresh iteration record.
  if (llvm::Loop* L = li_->getLoopFor(bb); L && L->getHeader() == bb) {
    auto it = spins_.find(L);
    if (it != spins_.end()) {
      SpinLoop& s = it->second;
      if (!bb->empty()) loc_ = ml_.locOf(&*bb->getFirstNonPHIOrDbg(), &f_);
      for (Reg r : {s.reads, s.flag, s.mutex, s.pending}) {
        if (r == kNoReg) continue;
        Instr& x = emit(Op::Const);
        x.a = r;
      }
    }
  }
  for (llvm::Instruction& I : *bb) {
    cur_ = &I;
    SourceLoc l = ml_.locOf(&I, &f_);
    if (I.getDebugLoc() && I.getDebugLoc().getLine()) loc_ = l;
    else if (loc_.line == 0) loc_ = l;
    if (auto* b = dyn_cast<llvm::BranchInst>(&I)) {
      lowerBranch(*b, next);
      continue;
    }
    lowerInst(I);
  }
  // Edge code of conditional branches.
  std::vector<PendingEdge> pend = std::move(pendingEdges_);
  pendingEdges_.clear();
  for (const PendingEdge& e : pend) {
    bind(e.label);
    emitEdgeCode(e.from, e.to);
    jmp(blockLabel_[e.to]);
  }
}

bool FunctionLowering::edgeNeedsCode(llvm::BasicBlock* from, llvm::BasicBlock* to) {
  if (isa<llvm::PHINode>(to->front())) return true;
  if (llvm::Loop* L = li_->getLoopFor(to); L && L->getHeader() == to && spins_.count(L)) {
    const SpinLoop& s = spins_.at(L);
    if (L->contains(from)) return true;     // back edge: idle check
    if (s.idle != kNoReg || s.bound != kNoReg) return true;  // entry: reset the idle/bound counters
  }
  return false;
}

int FunctionLowering::edgeTarget(llvm::BasicBlock* from, llvm::BasicBlock* to) {
  if (!edgeNeedsCode(from, to)) return blockLabel_[to];
  int l = newLabel();
  pendingEdges_.push_back({l, from, to});
  return l;
}

// Phi copies (parallel: through temporaries when a source is also a target)
// and the spin-loop back-edge check.
void FunctionLowering::emitEdgeCode(llvm::BasicBlock* from, llvm::BasicBlock* to) {
  struct Copy { Reg dst; Reg src; };
  std::vector<Copy> copies;
  std::vector<const llvm::PHINode*> copyPhis;  // the phi of each copy
  for (llvm::PHINode& phi : to->phis()) {
    if (phi.getType()->isStructTy()) {
      unsupported("aggregate phi values are not supported");
      continue;
    }
    llvm::Value* in = phi.getIncomingValueForBlock(from);
    if (!in || isa<llvm::UndefValue>(in)) continue;
    copies.push_back({resultReg(phi), val(in)});
    copyPhis.push_back(&phi);
  }
  SpinLoop* spin = nullptr;
  if (llvm::Loop* L = li_->getLoopFor(to); L && L->getHeader() == to) {
    auto it = spins_.find(L);
    if (it != spins_.end()) {
      if (L->contains(from)) {
        spin = &it->second;
      } else {
        for (Reg r : {it->second.idle, it->second.bound}) {
          if (r == kNoReg) continue;
          Instr& z = emit(Op::Const);
          z.a = r;
        }
      }
    }
  }
  bool conflict = false;
  for (const Copy& c : copies)
    for (const Copy& d : copies)
      if (&c != &d && c.src == d.dst) conflict = true;
  if (spin) conflict = true;  // the check compares old and new values
  if (!conflict) {
    for (const Copy& c : copies) mov(c.dst, c.src);
    return;
  }
  std::vector<Reg> tmp;
  for (const Copy& c : copies) {
    Reg t = newReg();
    mov(t, c.src);
    tmp.push_back(t);
  }
  if (spin) {
    // diff == 0: the iteration wrote nothing and the next one starts in the same state.
    Reg diff = kNoReg;
    auto orIn = [&](Reg x) { diff = diff == kNoReg ? x : bin(BinOp::Or, diff, x); };
    orIn(spin->flag);
    if (spin->pending != kNoReg) orIn(spin->pending);
    for (size_t i = 0; i < copies.size(); ++i) orIn(bin(BinOp::Xor, tmp[i], copies[i].dst));
    if (diff == kNoReg) diff = constVal(0);
    if (!spin->hasCondWait) {
      emitSpinStop(spin, diff);
      if (spin->refresh) {  // (its loop has one latch: this edge comes from it)
        // Only the re-read value changed, read at the same address: blocked
        // (plain assume), since removing the iteration gives the same state.
        Reg again = bin(BinOp::Xor, val(spin->refreshEntry->getPointerOperand()),
                        val(spin->refreshLatch->getPointerOperand()));
        again = bin(BinOp::Or, again, spin->flag);
        for (size_t i = 0; i < copies.size(); ++i)
          if (copyPhis[i] != spin->refresh) again = bin(BinOp::Or, again, bin(BinOp::Xor, tmp[i], copies[i].dst));
        Instr& as = emit(Op::Assume);
        as.a = again;
      }
      emitBoundCheck(spin);  // reached only after a non-idle iteration
    } else {
      int lProg = newLabel(), lIdle = newLabel(), lFirst = newLabel(), lBlock = newLabel(), lUnl = newLabel(),
          lStop = newLabel(), lCopies = newLabel();
      br(diff, lProg, lIdle);
      bind(lIdle);
      br(spin->idle, lBlock, lFirst);
      bind(lFirst);
      {
        Instr& c = emit(Op::Const);
        c.a = spin->idle;
        c.imm = 1;
      }
      jmp(lCopies);
      bind(lBlock);
      br(spin->mutex, lUnl, lStop);
      bind(lUnl);
      {
        Instr& u = emit(Op::Unlock);
        u.b = spin->mutex;
      }
      // That unlock reads the mutex too: the hang check's window of the
      // thread's last reads must still reach back over the idle iteration.
      bin(BinOp::Add, spin->reads, constVal(1), spin->reads);
      bind(lStop);
      emitSpinStop(spin, diff);
      jmp(lCopies);
      bind(lProg);
      {
        Instr& c = emit(Op::Const);
        c.a = spin->idle;
      }
      emitBoundCheck(spin);
      bind(lCopies);
    }
  }
  for (size_t i = 0; i < copies.size(); ++i) mov(copies[i].dst, tmp[i]);
}

void FunctionLowering::lowerBranch(llvm::BranchInst& I, llvm::BasicBlock* next) {
  if (I.isUnconditional()) {
    llvm::BasicBlock* to = I.getSuccessor(0);
    if (edgeNeedsCode(I.getParent(), to)) emitEdgeCode(I.getParent(), to);
    if (to != next) jmp(blockLabel_[to]);
    return;
  }
  Reg c = val(I.getCondition());
  int t = edgeTarget(I.getParent(), I.getSuccessor(0));
  int f = edgeTarget(I.getParent(), I.getSuccessor(1));
  br(c, t, f);
}

void FunctionLowering::lowerSwitch(llvm::SwitchInst& I) {
  Reg c = val(I.getCondition());
  for (auto& cs : I.cases()) {
    Reg eq = cmp(CmpOp::Eq, c, val(cs.getCaseValue()));
    int t = edgeTarget(I.getParent(), cs.getCaseSuccessor());
    int nx = newLabel();
    br(eq, t, nx);
    bind(nx);
  }
  jmp(edgeTarget(I.getParent(), I.getDefaultDest()));
}

void FunctionLowering::lowerInst(llvm::Instruction& I) {
  if (isa<llvm::PHINode>(I)) return;  // on edges
  if (!checkTypes(I)) return;
  if (lowerComputation(I) || lowerMemoryInst(I) || lowerControlInst(I)) return;
  unsupported(std::string("unsupported LLVM instruction '") + I.getOpcodeName() + "'");
}

// Integer and floating-point arithmetic, comparisons, casts, select, freeze
// and address arithmetic. False: not one of these (or one not supported).
bool FunctionLowering::lowerComputation(llvm::Instruction& I) {
  switch (I.getOpcode()) {
    case llvm::Instruction::Add:
    case llvm::Instruction::Sub:
    case llvm::Instruction::Mul:
    case llvm::Instruction::UDiv:
    case llvm::Instruction::SDiv:
    case llvm::Instruction::URem:
    case llvm::Instruction::SRem:
    case llvm::Instruction::Shl:
    case llvm::Instruction::LShr:
    case llvm::Instruction::AShr:
    case llvm::Instruction::And:
    case llvm::Instruction::Or:
    case llvm::Instruction::Xor:
      lowerBinary(cast<llvm::BinaryOperator>(I));
      return true;
    case llvm::Instruction::ICmp:
      lowerICmp(cast<llvm::ICmpInst>(I));
      return true;
    case llvm::Instruction::FAdd:
    case llvm::Instruction::FSub:
    case llvm::Instruction::FMul:
    case llvm::Instruction::FDiv:
    case llvm::Instruction::FRem:
    case llvm::Instruction::FNeg:
      lowerFloatBinary(I);
      return true;
    case llvm::Instruction::FCmp:
      lowerFCmp(cast<llvm::FCmpInst>(I));
      return true;
    case llvm::Instruction::SIToFP:
    case llvm::Instruction::UIToFP:
    case llvm::Instruction::FPToSI:
    case llvm::Instruction::FPToUI:
    case llvm::Instruction::FPExt:
    case llvm::Instruction::FPTrunc:
      lowerFloatCast(cast<llvm::CastInst>(I));
      return true;
    case llvm::Instruction::Trunc:
    case llvm::Instruction::ZExt:
    case llvm::Instruction::SExt:
    case llvm::Instruction::PtrToInt:
    case llvm::Instruction::IntToPtr:
    case llvm::Instruction::BitCast:
    case llvm::Instruction::AddrSpaceCast:
      lowerCast(cast<llvm::CastInst>(I));
      return true;
    case llvm::Instruction::Select: {
      auto& s = cast<llvm::SelectInst>(I);
      if (s.getType()->isStructTy()) return false;
      Instr& in = emit(Op::Select);
      in.a = resultReg(I);
      in.b = val(s.getCondition());
      in.c = val(s.getTrueValue());
      in.d = val(s.getFalseValue());
      return true;
    }
    case llvm::Instruction::Freeze:
      setResult(I, val(I.getOperand(0)));
      return true;
    case llvm::Instruction::GetElementPtr:
      lowerGEP(cast<llvm::GetElementPtrInst>(I));
      return true;
    default:
      return false;
  }
}

// Loads, stores, atomics, fences, a cmpxchg's success flag and stack slots.
// False: not one of these (or one not supported).
bool FunctionLowering::lowerMemoryInst(llvm::Instruction& I) {
  switch (I.getOpcode()) {
    case llvm::Instruction::Load:
      lowerLoad(cast<llvm::LoadInst>(I));
      return true;
    case llvm::Instruction::Store:
      lowerStore(cast<llvm::StoreInst>(I));
      return true;
    case llvm::Instruction::AtomicRMW:
      lowerRmw(cast<llvm::AtomicRMWInst>(I));
      return true;
    case llvm::Instruction::AtomicCmpXchg:
      lowerCmpXchg(cast<llvm::AtomicCmpXchgInst>(I));
      return true;
    case llvm::Instruction::Fence:
      lowerFence(cast<llvm::FenceInst>(I));
      return true;
    case llvm::Instruction::ExtractValue: {
      auto& ev = cast<llvm::ExtractValueInst>(I);
      auto it = success_.find(ev.getAggregateOperand());
      if (it != success_.end() && ev.getNumIndices() == 1) {
        setResult(I, ev.getIndices()[0] == 0 ? val(ev.getAggregateOperand()) : it->second);
        return true;
      }
      return false;
    }
    case llvm::Instruction::Alloca: {
      auto& a = cast<llvm::AllocaInst>(I);
      if (!a.isStaticAlloca() && !isa<llvm::ConstantInt>(a.getArraySize())) {
        unsupported("variable-length arrays and alloca() with a non-constant size are not supported");
        return true;
      }
      uint64_t n = dl_.getTypeAllocSize(a.getAllocatedType()).getFixedValue();
      if (auto* c = dyn_cast<llvm::ConstantInt>(a.getArraySize())) n *= c->getZExtValue();
      Instr& in = emit(Op::Alloca);
      in.a = resultReg(I);
      in.imm = int64_t(std::max<uint64_t>(n, 1));
      in.sub = private_.count(&a) ? 1 : 0;
      markEffect();
      return true;
    }
    default:
      return false;
  }
}

// Calls, switches, returns and the control flow that is refused. False: not
// one of these.
bool FunctionLowering::lowerControlInst(llvm::Instruction& I) {
  switch (I.getOpcode()) {
    case llvm::Instruction::Call:
      lowerCall(cast<llvm::CallInst>(I));
      return true;
    case llvm::Instruction::Switch:
      lowerSwitch(cast<llvm::SwitchInst>(I));
      return true;
    case llvm::Instruction::Ret: {
      auto& r = cast<llvm::ReturnInst>(I);
      if (atomicSection()) emit(Op::AtomicEnd);
      Instr& in = emit(Op::Ret);
      in.a = r.getReturnValue() ? val(r.getReturnValue()) : kNoReg;
      if (r.getReturnValue() && r.getReturnValue()->getType()->isStructTy()) {
        unsupported("returning a struct value is not supported");
      }
      return true;
    }
    case llvm::Instruction::Unreachable: {
      Instr& in = emit(Op::Fail);
      in.name = ml_.p_.intern("unreachable code reached");
      return true;
    }
    case llvm::Instruction::VAArg:
      unsupported("variadic functions (va_arg) are not supported");
      return true;
    case llvm::Instruction::IndirectBr:
      unsupported("computed goto is not supported");
      return true;
    case llvm::Instruction::CallBr:
      unsupported("asm goto is not supported");
      return true;
    default:
      return false;
  }
}

void FunctionLowering::lowerBinary(llvm::BinaryOperator& I) {
  unsigned bits = I.getType()->getIntegerBitWidth();
  Reg a = val(I.getOperand(0)), b = val(I.getOperand(1));
  Reg dst = resultReg(I);
  switch (I.getOpcode()) {
    case llvm::Instruction::Add: bin(BinOp::Add, a, b, dst); maskInPlace(dst, bits); return;
    case llvm::Instruction::Sub: bin(BinOp::Sub, a, b, dst); maskInPlace(dst, bits); return;
    case llvm::Instruction::Mul: bin(BinOp::Mul, a, b, dst); maskInPlace(dst, bits); return;
    case llvm::Instruction::Shl: bin(BinOp::Shl, a, b, dst); maskInPlace(dst, bits); return;
    case llvm::Instruction::UDiv: bin(BinOp::UDiv, a, b, dst); return;
    case llvm::Instruction::URem: bin(BinOp::URem, a, b, dst); return;
    case llvm::Instruction::LShr: bin(BinOp::LShr, a, b, dst); return;
    case llvm::Instruction::And: bin(BinOp::And, a, b, dst); return;
    case llvm::Instruction::Or: bin(BinOp::Or, a, b, dst); return;
    case llvm::Instruction::Xor: bin(BinOp::Xor, a, b, dst); return;
    case llvm::Instruction::SDiv:
    case llvm::Instruction::SRem: {
      Reg sa = sextReg(a, bits), sb = sextReg(b, bits);
      bin(I.getOpcode() == llvm::Instruction::SDiv ? BinOp::SDiv : BinOp::SRem, sa, sb, dst);
      maskInPlace(dst, bits);
      return;
    }
    case llvm::Instruction::AShr: {
      Reg sa = sextReg(a, bits);
      bin(BinOp::AShr, sa, b, dst);
      maskInPlace(dst, bits);
      return;
    }
    default:
      unsupported(std::string("unsupported operator ") + I.getOpcodeName());
  }
}

void FunctionLowering::lowerICmp(llvm::ICmpInst& I) {
  llvm::Type* t = I.getOperand(0)->getType();
  if (!(t->isIntegerTy() || t->isPointerTy())) {
    unsupported("comparison of " + typeName(t) + " is not supported");
    return;
  }
  unsigned bits = t->isIntegerTy() ? t->getIntegerBitWidth() : 64;
  Reg a = val(I.getOperand(0)), b = val(I.getOperand(1));
  CmpOp op = CmpOp::Eq;
  bool isSigned = false;
  switch (I.getPredicate()) {
    case llvm::CmpInst::ICMP_EQ: op = CmpOp::Eq; break;
    case llvm::CmpInst::ICMP_NE: op = CmpOp::Ne; break;
    case llvm::CmpInst::ICMP_ULT: op = CmpOp::Ult; break;
    case llvm::CmpInst::ICMP_ULE: op = CmpOp::Ule; break;
    case llvm::CmpInst::ICMP_UGT: op = CmpOp::Ugt; break;
    case llvm::CmpInst::ICMP_UGE: op = CmpOp::Uge; break;
    case llvm::CmpInst::ICMP_SLT: op = CmpOp::Slt; isSigned = true; break;
    case llvm::CmpInst::ICMP_SLE: op = CmpOp::Sle; isSigned = true; break;
    case llvm::CmpInst::ICMP_SGT: op = CmpOp::Sgt; isSigned = true; break;
    case llvm::CmpInst::ICMP_SGE: op = CmpOp::Sge; isSigned = true; break;
    default: unsupported("unsupported comparison"); return;
  }
  if (isSigned && bits < 64) {
    a = sextReg(a, bits);
    b = sextReg(b, bits);
  }
  cmp(op, a, b, resultReg(I));
}

void FunctionLowering::lowerCast(llvm::CastInst& I) {
  llvm::Type* st = I.getSrcTy();
  llvm::Type* dt = I.getDestTy();
  unsigned sb = st->isIntegerTy() ? st->getIntegerBitWidth() : 64;
  unsigned db = dt->isIntegerTy() ? dt->getIntegerBitWidth() : 64;
  Reg src = val(I.getOperand(0));
  Reg dst = resultReg(I);
  switch (I.getOpcode()) {
    case llvm::Instruction::SExt: {
      Reg s = sextReg(src, sb);
      mov(dst, s);
      maskInPlace(dst, db);
      return;
    }
    case llvm::Instruction::Trunc:
    case llvm::Instruction::PtrToInt:
      mov(dst, src);
      maskInPlace(dst, db);
      return;
    default:  // zext, inttoptr, bitcast, addrspacecast: value unchanged
      mov(dst, src);
      return;
  }
}

void FunctionLowering::lowerGEP(llvm::GetElementPtrInst& I) {
  if (I.getType()->isVectorTy()) {
    unsupported("vector getelementptr is not supported");
    return;
  }
  llvm::MapVector<llvm::Value*, llvm::APInt> vars;
  llvm::APInt coff(64, 0);
  if (!cast<llvm::GEPOperator>(I).collectOffset(dl_, 64, vars, coff)) {
    unsupported("unsupported address computation (getelementptr)");
    return;
  }
  Reg dst = resultReg(I);
  Reg cur = val(I.getPointerOperand());
  for (auto& [v, scale] : vars) {
    unsigned bits = v->getType()->getIntegerBitWidth();
    Reg idx = val(v);
    if (bits < 64) idx = sextReg(idx, bits);
    if (scale != 1) idx = bin(BinOp::Mul, idx, constVal(scale.getZExtValue()));
    bin(BinOp::Add, cur, idx, dst);
    cur = dst;
  }
  if (coff != 0) {
    bin(BinOp::Add, cur, constVal(coff.getZExtValue()), dst);
    cur = dst;
  }
  mov(dst, cur);
}

}  // namespace tsocheck::frontend::lowering

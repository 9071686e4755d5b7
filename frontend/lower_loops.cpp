// Analyses of a function: escaping allocas, spin loops and their idle
// iterations, shared-dependent loops and their bound (lowering.h; the rules
// are described there).
#include "frontend/lowering.h"

namespace tsocheck::frontend::lowering {

// ---------------------------------------------------------------------------
// Analyses

// An alloca stays private when its address is only used to access it.
bool FunctionLowering::escapes(const llvm::Value* v, int depth) {
  if (depth > 32) return true;
  for (const llvm::Use& u : v->uses()) {
    const llvm::User* user = u.getUser();
    if (isa<llvm::LoadInst>(user)) continue;
    if (auto* st = dyn_cast<llvm::StoreInst>(user)) {
      if (u.getOperandNo() == st->getPointerOperandIndex()) continue;
      return true;
    }
    if (auto* rmw = dyn_cast<llvm::AtomicRMWInst>(user)) {
      if (u.getOperandNo() == rmw->getPointerOperandIndex()) continue;
      return true;
    }
    if (auto* cx = dyn_cast<llvm::AtomicCmpXchgInst>(user)) {
      if (u.getOperandNo() == cx->getPointerOperandIndex()) continue;
      return true;
    }
    if (auto* gep = dyn_cast<llvm::GetElementPtrInst>(user)) {
      if (u.getOperandNo() != 0) return true;
      if (escapes(gep, depth + 1)) return true;
      continue;
    }
    if (isa<llvm::BitCastInst>(user) || isa<llvm::AddrSpaceCastInst>(user)) {
      if (escapes(user, depth + 1)) return true;
      continue;
    }
    if (isa<llvm::ICmpInst>(user)) continue;
    if (auto* call = dyn_cast<llvm::CallInst>(user)) {
      llvm::Function* callee = call->getCalledFunction();
      if (!callee || call->isBundleOperand(&u)) return true;
      if (callee->isIntrinsic()) {
        auto id = callee->getIntrinsicID();
        if (isIgnorableIntrinsic(id)) continue;
        if (isa<llvm::MemIntrinsic>(call)) continue;  // lowered to loads/stores
        return true;
      }
      if (callee->isDeclaration()) {
        Ext k = classifyExternal(callee->getName());
        unsigned argNo = call->getArgOperandNo(&u);
        if (k == Ext::PthreadCreate && argNo == 0) continue;  // receives the thread id
        if (k == Ext::PthreadJoin && argNo == 1) continue;    // receives the return value
        if (k == Ext::Ignored) continue;                      // printf("%p", &x) does not publish it
      }
      return true;
    }
    return true;
  }
  return false;
}

bool FunctionLowering::privateTls(const llvm::Value* ptr) const {
  auto* call = dyn_cast<llvm::IntrinsicInst>(baseObject(ptr));
  if (!call || call->getIntrinsicID() != llvm::Intrinsic::threadlocal_address) return false;
  auto* g = ml_.resolveGlobal(call->getArgOperand(0));
  auto it = g ? ml_.tlsIndex_.find(g) : ml_.tlsIndex_.end();
  return it != ml_.tlsIndex_.end() && ml_.p_.threadLocals[it->second].isPrivate;
}

void FunctionLowering::computePrivateAllocas() {
  for (llvm::BasicBlock& bb : f_)
    for (llvm::Instruction& I : bb)
      if (auto* a = dyn_cast<llvm::AllocaInst>(&I))
        if (!escapes(a, 0)) private_.insert(a);
}

void FunctionLowering::findSpinLoops() {
  for (llvm::Loop* L : li_->getLoopsInPreorder()) {
    SpinLoop s;
    s.loop = L;
    s.flag = newReg();
    s.reads = newReg();
    bool locks = false;
    for (llvm::BasicBlock* bb : L->blocks())
      for (llvm::Instruction& I : *bb)
        if (auto* call = dyn_cast<llvm::CallInst>(&I))
          if (llvm::Function* callee = call->getCalledFunction(); callee && callee->isDeclaration()) {
            Ext k = classifyExternal(callee->getName());
            // (Without spurious wake-ups a pthread_cond_wait is an effect: no idle iterations.)
            if ((k == Ext::CondWait && ml_.opts_.spuriousWakeups) || k == Ext::CondTimedWait) s.hasCondWait = true;
            if (k == Ext::MutexLock || k == Ext::MutexUnlock) locks = true;
          }
    if (locks) s.pending = newReg();
    if (s.hasCondWait) {
      s.idle = newReg();
      s.mutex = newReg();
    }
    if (ml_.opts_.loopBound > 0 && ml_.spawnsThreads_ && sharedDependent(L)) {
      s.bound = newReg();
      llvm::DebugLoc dl = L->getStartLoc();
      if (!dl || !dl.getLine())
        for (llvm::Instruction& I : *L->getHeader())
          if (I.getDebugLoc() && I.getDebugLoc().getLine()) {
            dl = I.getDebugLoc();
            break;
          }
      std::string file = "?";
      if (dl && dl.getLine()) {
        file = debugPath(dl->getFilename(), dl->getDirectory());
        s.boundLoc.file = ml_.p_.fileIndex(file);
        s.boundLoc.line = dl.getLine();
        s.boundLoc.column = dl.getCol();
      } else {
        s.boundLoc = out_->loc;
        if (s.boundLoc.file < ml_.p_.files.size()) file = ml_.p_.files[s.boundLoc.file];
      }
      s.boundMsg = ml_.p_.intern("loop at " + file + ":" + std::to_string(s.boundLoc.line) + " cut after " +
                                 std::to_string(ml_.opts_.loopBound) +
                                 (ml_.opts_.loopBound == 1 ? " iteration" : " iterations") + " (loop bound)");
    }
    findRefresh(s);
    spins_[L] = s;
  }
}

// The spin-loop rules for a carried re-read value (lowering.h): the one
// header phi of a read-only loop that takes a load from outside and a load
// of the same kind from the latch, each the last visible action of its block.
void FunctionLowering::findRefresh(SpinLoop& s) {
  llvm::Loop* L = s.loop;
  llvm::BasicBlock* latch = L->getLoopLatch();
  llvm::BasicBlock* entering = L->getLoopPredecessor();
  if (!latch || !entering || s.hasCondWait) return;
  auto visible = [](const llvm::Instruction& I) {
    if (auto* call = dyn_cast<llvm::CallInst>(&I)) {
      const llvm::Function* callee = call->getCalledFunction();
      return !(callee && callee->isIntrinsic() && isIgnorableIntrinsic(callee->getIntrinsicID()));
    }
    return I.mayReadOrWriteMemory() || isa<llvm::FenceInst>(I);
  };
  for (llvm::BasicBlock* bb : L->blocks())
    for (llvm::Instruction& I : *bb)
      if (visible(I) && !isa<llvm::LoadInst>(I)) return;  // only loads may touch memory
  // The load v when nothing after it in its block is visible.
  auto lastLoad = [&](llvm::Value* v, const llvm::BasicBlock* bb) -> llvm::LoadInst* {
    auto* ld = dyn_cast<llvm::LoadInst>(v);
    if (!ld || ld->getParent() != bb) return nullptr;
    for (const llvm::Instruction* I = ld->getNextNode(); I; I = I->getNextNode())
      if (visible(*I)) return nullptr;
    return ld;
  };
  for (llvm::PHINode& phi : L->getHeader()->phis()) {
    if (phi.getNumIncomingValues() != 2) continue;
    llvm::LoadInst* in = lastLoad(phi.getIncomingValueForBlock(entering), entering);
    llvm::LoadInst* back = lastLoad(phi.getIncomingValueForBlock(latch), latch);
    if (!in || !back || in->getType() != back->getType() || in->getOrdering() != back->getOrdering() ||
        in->isVolatile() != back->isVolatile() || in->getSyncScopeID() != back->getSyncScopeID() ||
        in->getPointerOperandType() != back->getPointerOperandType())
      continue;
    s.refresh = &phi;
    s.refreshEntry = in;
    s.refreshLatch = back;
    return;  // (one: the two loads can be back to back for one phi only)
  }
}

// Whether every path from b ends in an error: `unreachable` after
// assert/abort/__VERIFIER_error/trap (or on its own), never a return or an
// exit()/pthread_exit()/call of a defined noreturn function.
bool FunctionLowering::errorPath(const llvm::BasicBlock* b) {
  std::vector<const llvm::BasicBlock*> todo{b};
  std::unordered_set<const llvm::BasicBlock*> seen{b};
  while (!todo.empty()) {
    const llvm::BasicBlock* cur = todo.back();
    todo.pop_back();
    const llvm::Instruction* t = cur->getTerminator();
    if (!t || isa<llvm::ReturnInst>(t)) return false;
    if (isa<llvm::UnreachableInst>(t)) {
      for (const llvm::Instruction& I : *cur)
        if (auto* call = dyn_cast<llvm::CallInst>(&I)) {
          auto* callee = dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
          if (!callee) return false;
          if (callee->isIntrinsic()) continue;
          if (!callee->isDeclaration()) return false;
          Ext k = classifyExternal(callee->getName());
          if (k == Ext::Exit || k == Ext::PthreadExit || k == Ext::Unknown) return false;
        }
      continue;
    }
    for (const llvm::BasicBlock* succ : llvm::successors(cur))
      if (seen.insert(succ).second) todo.push_back(succ);
  }
  return true;
}

namespace {

// One iteration of a loop as a graph: the loop's blocks plus two sinks, kCont
// (the back edge: next iteration) and kLeave (out of the loop). Edges into an
// error path (a failed assert) are dropped: they end the execution as a
// violation and never decide how often the loop runs.
struct Iteration {
  std::vector<llvm::BasicBlock*> blocks;
  std::unordered_map<const llvm::BasicBlock*, size_t> index;
  std::vector<std::vector<size_t>> succs;
  std::vector<llvm::BitVector> pdom;  // post-dominators within the iteration
  size_t kCont = 0, kLeave = 0;
  bool leaves = false;  // some edge leaves the loop

  template <class ErrorPath>
  Iteration(llvm::Loop* L, ErrorPath errorPath) : blocks(L->getBlocks()) {
    const size_t n = blocks.size();
    kCont = n;
    kLeave = n + 1;
    for (size_t i = 0; i < n; ++i) index[blocks[i]] = i;
    succs.resize(n);
    for (size_t i = 0; i < n; ++i)
      for (const llvm::BasicBlock* succ : llvm::successors(blocks[i])) {
        size_t to;
        if (succ == L->getHeader()) to = kCont;
        else if (L->contains(succ)) to = index.at(succ);
        else if (!errorPath(succ)) to = kLeave;
        else continue;
        if (std::find(succs[i].begin(), succs[i].end(), to) == succs[i].end()) succs[i].push_back(to);
        leaves = leaves || to == kLeave;
      }
    // Post-dominators (iterative, from "everything").
    pdom.assign(n + 2, llvm::BitVector(unsigned(n + 2), true));
    for (size_t sink : {kCont, kLeave}) {
      pdom[sink].reset();
      pdom[sink].set(unsigned(sink));
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = n; i-- > 0;) {
        llvm::BitVector x(unsigned(n + 2), true);
        for (size_t s : succs[i]) x &= pdom[s];
        x.set(unsigned(i));
        if (x != pdom[i]) {
          pdom[i] = x;
          changed = true;
        }
      }
    }
  }

  bool exits(size_t i) const { return std::find(succs[i].begin(), succs[i].end(), kLeave) != succs[i].end(); }

  // Blocks whose branch decides whether b runs in an iteration (control
  // dependence, transitively): x has a successor that b post-dominates, and
  // b does not post-dominate x.
  void controlDeps(const llvm::BasicBlock* b, std::vector<const llvm::BasicBlock*>& out) const {
    const size_t n = blocks.size();
    std::vector<size_t> todo{index.at(b)};
    std::vector<bool> seenB(n, false);
    seenB[index.at(b)] = true;
    while (!todo.empty()) {
      size_t cur = todo.back();
      todo.pop_back();
      for (size_t x = 0; x < n; ++x) {
        if (seenB[x] || succs[x].size() < 2 || pdom[x].test(unsigned(cur))) continue;
        bool dep = false;
        for (size_t s : succs[x]) dep = dep || pdom[s].test(unsigned(cur));
        if (!dep) continue;
        seenB[x] = true;
        out.push_back(blocks[x]);
        todo.push_back(x);
      }
    }
  }
};

// What a call's result in an exit condition depends on.
enum class CallResult { Shared, Arguments, Fixed };
CallResult callResult(Ext k) {
  switch (k) {
    case Ext::MutexTryLock:
    case Ext::PthreadJoin:
    case Ext::PthreadSelf:
    case Ext::Unknown:
    case Ext::BarrierWait:
    case Ext::SemTryWait:
    case Ext::SemGetValue:
    case Ext::RwTryRdLock:
    case Ext::RwTryWrLock:
    case Ext::CondTimedWait:
    case Ext::ThrdJoin:
    case Ext::MtxTryLock:
    case Ext::Memcmp:
    case Ext::Strlen:
    case Ext::Strcmp:
    case Ext::Strncmp:
    case Ext::XchgAwait:
    case Ext::LoadAwait:
    case Ext::Time:          // a clock: another reading may differ
    case Ext::ClockGettime:
      return CallResult::Shared;
    case Ext::PthreadEqual:
    case Ext::Malloc:
    case Ext::Calloc:
      return CallResult::Arguments;
    default:
      return CallResult::Fixed;  // result 0 (output, mutexes, cond_wait, ...) or no result
  }
}

// The address an atomic read-modify-write or compare-exchange works on.
const llvm::Value* rmwPointer(const llvm::Instruction* I) {
  return isa<llvm::AtomicRMWInst>(I) ? cast<llvm::AtomicRMWInst>(I)->getPointerOperand()
                                     : cast<llvm::AtomicCmpXchgInst>(I)->getPointerOperand();
}

}  // namespace

const llvm::AllocaInst* FunctionLowering::privateSlot(const llvm::Value* ptr) const {
  auto* a = dyn_cast<llvm::AllocaInst>(baseObject(ptr));
  return a && private_.count(a) ? a : nullptr;
}

// Memory whose contents no other thread can change: private slots, constants, std streams.
bool FunctionLowering::sharedMemory(const llvm::Value* ptr) const {
  if (privateSlot(ptr) || privateTls(ptr)) return false;
  if (auto* g = ml_.resolveGlobal(baseObject(ptr)))
    if (isStdStream(g) || (g->isConstant() && g->hasDefinitiveInitializer())) return false;
  return true;
}

// No exit condition at all (`for (;;)`, `while (1)` without a break; it ends
// only by exit()/abort()/a callee): bounded when an iteration touches what
// other threads see — a shared access, a call to a defined function, a thread
// or mutex operation — so that a runaway worker is cut at the loop bound like
// other shared-dependent loops rather than at the engine's event limit. Loops
// over registers and private memory run to the step limit.
bool FunctionLowering::iterationTouchesShared(llvm::Loop* L) const {
  for (llvm::BasicBlock* bb : L->blocks())
    for (llvm::Instruction& I : *bb) {
      if (auto* ld = dyn_cast<llvm::LoadInst>(&I)) {
        if (sharedMemory(ld->getPointerOperand())) return true;
      } else if (auto* st = dyn_cast<llvm::StoreInst>(&I)) {
        if (sharedMemory(st->getPointerOperand())) return true;
      } else if (isa<llvm::AtomicRMWInst>(&I) || isa<llvm::AtomicCmpXchgInst>(&I)) {
        if (sharedMemory(rmwPointer(&I))) return true;
      } else if (auto* mi = dyn_cast<llvm::MemIntrinsic>(&I)) {
        if (sharedMemory(mi->getRawDest())) return true;
        if (auto* mt = dyn_cast<llvm::MemTransferInst>(mi); mt && sharedMemory(mt->getRawSource())) return true;
      } else if (auto* call = dyn_cast<llvm::CallInst>(&I)) {
        auto* callee = dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
        if (!callee || !callee->isDeclaration()) return true;  // indirect, inline asm or defined
        if (callee->isIntrinsic()) continue;
        const Ext k = classifyExternal(callee->getName());
        if (isPrimitive(k) || isStringCall(k)) return true;
        switch (k) {
          case Ext::Unknown:
          case Ext::PthreadCreate:
          case Ext::PthreadJoin:
          case Ext::MutexLock:
          case Ext::MutexUnlock:
          case Ext::MutexTryLock:
          case Ext::CondWait:
          case Ext::Realloc:
          case Ext::Free:
          case Ext::XchgAwait:
          case Ext::LoadAwait:
            return true;
          case Ext::CondSignal:
          case Ext::CondInit:
            if (!ml_.opts_.spuriousWakeups) return true;  // (no-ops otherwise)
            continue;
          default:
            continue;  // output, malloc, pthread_self, error paths: nothing another thread sees
        }
      }
    }
  return false;
}

// Whether whether L goes on can depend on what other threads write (see the
// comment at the top): a backward walk from the exit conditions over the
// values (and gating branches) computed inside the loop.
bool FunctionLowering::sharedDependent(llvm::Loop* L) {
  const Iteration it(L, [&](const llvm::BasicBlock* b) { return errorPath(b); });
  if (!it.leaves) return iterationTouchesShared(L);
  // Instructions of the loop that write private slots (a load from one depends on them).
  std::unordered_map<const llvm::AllocaInst*, std::vector<const llvm::Instruction*>> writers;
  for (llvm::BasicBlock* bb : L->blocks())
    for (llvm::Instruction& I : *bb) {
      const llvm::Value* ptr = nullptr;
      if (auto* st = dyn_cast<llvm::StoreInst>(&I)) ptr = st->getPointerOperand();
      else if (isa<llvm::AtomicRMWInst>(&I) || isa<llvm::AtomicCmpXchgInst>(&I)) ptr = rmwPointer(&I);
      else if (auto* mi = dyn_cast<llvm::MemIntrinsic>(&I)) ptr = mi->getRawDest();
      else if (auto* call = dyn_cast<llvm::CallInst>(&I)) {
        for (const llvm::Use& a : call->args())
          if (a->getType()->isPointerTy())
            if (const llvm::AllocaInst* al = privateSlot(a.get())) writers[al].push_back(&I);
        continue;
      }
      if (ptr)
        if (const llvm::AllocaInst* al = privateSlot(ptr)) writers[al].push_back(&I);
    }

  bool shared = false;
  std::unordered_set<const llvm::Value*> seen;
  std::unordered_set<const llvm::BasicBlock*> seenCtl;
  std::unordered_set<const llvm::AllocaInst*> seenSlot;
  std::vector<const llvm::Value*> work;
  auto push = [&](const llvm::Value* v) {
    if (v && seen.insert(v).second) work.push_back(v);
  };
  auto pushTerm = [&](const llvm::BasicBlock* x) {  // the value x's terminator branches on
    auto i = it.index.find(x);
    if (i == it.index.end() || it.succs[i->second].size() < 2 || !seenCtl.insert(x).second) return;  // no choice
    const llvm::Instruction* t = x->getTerminator();
    if (auto* b = dyn_cast<llvm::BranchInst>(t); b && b->isConditional()) push(b->getCondition());
    else if (auto* sw = dyn_cast<llvm::SwitchInst>(t)) push(sw->getCondition());
  };
  auto pushControl = [&](const llvm::BasicBlock* b) {
    if (!it.index.count(b)) return;  // an unreachable predecessor
    std::vector<const llvm::BasicBlock*> deps;
    it.controlDeps(b, deps);
    for (const llvm::BasicBlock* x : deps) pushTerm(x);
  };
  std::function<void(const llvm::AllocaInst*)> pushSlot = [&](const llvm::AllocaInst* al) {
    if (!seenSlot.insert(al).second) return;
    auto w = writers.find(al);
    if (w == writers.end()) return;
    for (const llvm::Instruction* wr : w->second) {
      if (auto* mt = dyn_cast<llvm::MemTransferInst>(wr)) {
        if (sharedMemory(mt->getRawSource())) shared = true;
        push(mt->getRawSource());
        if (const llvm::AllocaInst* src = privateSlot(mt->getRawSource())) pushSlot(src);
        push(mt->getRawDest());
      } else if (auto* call = dyn_cast<llvm::CallInst>(wr); call && !isa<llvm::MemIntrinsic>(wr)) {
        // pthread_create stores the new thread's id (deterministic); printf("%p") writes nothing.
        auto* callee = dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
        Ext k = callee && callee->isDeclaration() ? classifyExternal(callee->getName()) : Ext::Unknown;
        if (callee && callee->isIntrinsic() && isIgnorableIntrinsic(callee->getIntrinsicID())) continue;
        if (k != Ext::PthreadCreate && k != Ext::Ignored) shared = true;  // pthread_join's result, ...
      } else {
        for (const llvm::Use& u : wr->operands()) push(u.get());  // stored values, addresses
      }
    }
  };

  for (size_t i = 0; i < it.blocks.size(); ++i)
    if (it.exits(i)) {
      pushTerm(it.blocks[i]);
      pushControl(it.blocks[i]);
    }
  while (!work.empty() && !shared) {
    auto* I = dyn_cast<llvm::Instruction>(work.back());
    work.pop_back();
    if (!I || !L->contains(I)) continue;  // constants, arguments, values fixed before the loop
    if (auto* ld = dyn_cast<llvm::LoadInst>(I)) {
      if (sharedMemory(ld->getPointerOperand())) return true;
      push(ld->getPointerOperand());
      if (const llvm::AllocaInst* al = privateSlot(ld->getPointerOperand())) pushSlot(al);
      continue;
    }
    if (isa<llvm::AtomicRMWInst>(I) || isa<llvm::AtomicCmpXchgInst>(I)) {
      if (sharedMemory(rmwPointer(I))) return true;
      for (const llvm::Use& u : I->operands()) push(u.get());
      if (const llvm::AllocaInst* al = privateSlot(rmwPointer(I))) pushSlot(al);
      continue;
    }
    if (auto* phi = dyn_cast<llvm::PHINode>(I)) {
      // The value also depends on the branches that chose the incoming edge.
      bool header = phi->getParent() == L->getHeader();
      for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i) {
        push(phi->getIncomingValue(i));
        const llvm::BasicBlock* from = phi->getIncomingBlock(i);
        if (header && !L->contains(from)) continue;  // the entry edge: fixed per loop instance
        pushTerm(from);
        pushControl(from);
      }
      continue;
    }
    if (auto* call = dyn_cast<llvm::CallInst>(I)) {
      auto* callee = dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
      if (!callee) return true;  // indirect call or inline assembly
      if (callee->isIntrinsic()) {
        for (const llvm::Use& a : call->args()) push(a.get());
        continue;
      }
      if (!callee->isDeclaration()) return true;  // may read shared memory
      switch (callResult(classifyExternal(callee->getName()))) {
        case CallResult::Shared: return true;
        case CallResult::Arguments:
          for (const llvm::Use& a : call->args()) push(a.get());
          continue;
        case CallResult::Fixed: continue;
      }
    }
    for (const llvm::Use& u : I->operands()) push(u.get());
  }
  return shared;
}

// An effect counts for the enclosing spin loops of this function and, through
// Op::EffectCount, for a caller's loop around the call that runs this code.
void FunctionLowering::markEffect() {
  for (SpinLoop* s : enclosingSpinLoops(cur_->getParent())) {
    Instr& in = emit(Op::Const);
    in.a = s->flag;
    in.imm = 1;
  }
  markCallEffect(kNoReg);
}

void FunctionLowering::markEffectIf(Reg changed) {
  for (SpinLoop* s : enclosingSpinLoops(cur_->getParent())) bin(BinOp::Or, s->flag, changed, s->flag);
  markCallEffect(changed);
}

void FunctionLowering::markCallEffect(Reg changed) {
  Instr& in = emit(Op::EffectCount);
  in.sub = 2;
  in.b = changed;
}

// pending == 0 → lock(m) makes pending = m; unlock(pending) clears it. Any
// other lock/unlock (nested, or of a mutex held before the iteration) is an effect.
void FunctionLowering::markLock(Reg m, bool lock) {
  countSyncRead();
  markCallEffect(kNoReg);  // for a caller: a lock or unlock inside a call is an effect
  for (SpinLoop* s : enclosingSpinLoops(cur_->getParent())) {
    if (s->pending == kNoReg) {
      Instr& in = emit(Op::Const);
      in.a = s->flag;
      in.imm = 1;
      continue;
    }
    Reg zero = constVal(0);
    Reg ok = lock ? cmp(CmpOp::Eq, s->pending, zero) : cmp(CmpOp::Eq, s->pending, m);
    Reg bad = bin(BinOp::Xor, ok, constVal(1));
    bin(BinOp::Or, s->flag, bad, s->flag);
    Instr& sel = emit(Op::Select);
    sel.a = s->pending;
    sel.b = ok;
    sel.c = lock ? m : zero;
    sel.d = s->pending;
  }
}

// Whether private slot `a` may be read, from the start of L's header on,
// before a store overwrites all of it. Only then is a store into it inside L
// state that the next iteration sees (an effect); a slot that every path
// overwrites first is a temporary (Clang at -O0 passes an atomic load of a
// pointer through one) and storing into it changes nothing.
bool FunctionLowering::slotLiveAtHeader(const llvm::AllocaInst* a, llvm::Loop* L) {
  auto key = std::make_pair(a, static_cast<const llvm::Loop*>(L));
  if (auto it = slotLive_.find(key); it != slotLive_.end()) return it->second;
  bool& live = slotLive_[key];
  live = true;
  if (a->isArrayAllocation()) return live;
  const uint64_t slotSize = dl_.getTypeStoreSize(a->getAllocatedType());
  // Instructions that use the slot: true = overwrites all of it, false = may read it.
  std::unordered_map<const llvm::Instruction*, bool> uses;
  std::vector<const llvm::Value*> work{a};
  std::unordered_set<const llvm::Value*> seen{a};
  while (!work.empty()) {
    const llvm::Value* v = work.back();
    work.pop_back();
    for (const llvm::Use& u : v->uses()) {
      auto* user = dyn_cast<llvm::Instruction>(u.getUser());
      if (!user) return live;
      if (isa<llvm::GetElementPtrInst>(user) || isa<llvm::BitCastInst>(user) || isa<llvm::AddrSpaceCastInst>(user)) {
        if (seen.insert(user).second) work.push_back(user);
        continue;
      }
      if (isa<llvm::ICmpInst>(user)) continue;
      if (auto* st = dyn_cast<llvm::StoreInst>(user); st && u.getOperandNo() == st->getPointerOperandIndex()) {
        bool whole = st->getPointerOperand()->stripPointerCasts() == a &&
                     dl_.getTypeStoreSize(st->getValueOperand()->getType()) >= slotSize;
        if (whole) uses[user] = true;  // a partial store neither reads nor overwrites
        continue;
      }
      uses[user] = false;  // loads, and anything else that might read (calls, memcpy, RMW)
    }
  }
  std::vector<const llvm::BasicBlock*> todo{L->getHeader()};
  std::unordered_set<const llvm::BasicBlock*> visited{L->getHeader()};
  while (!todo.empty()) {
    const llvm::BasicBlock* bb = todo.back();
    todo.pop_back();
    bool killed = false;
    for (const llvm::Instruction& I : *bb) {
      auto it = uses.find(&I);
      if (it == uses.end()) continue;
      if (!it->second) return live;  // read before being overwritten
      killed = true;
      break;
    }
    if (killed) continue;
    for (const llvm::BasicBlock* succ : llvm::successors(bb))
      if (visited.insert(succ).second) todo.push_back(succ);
  }
  live = false;
  return live;
}

std::vector<SpinLoop*> FunctionLowering::enclosingSpinLoops(const llvm::BasicBlock* bb) {
  std::vector<SpinLoop*> v;
  for (llvm::Loop* L = li_->getLoopFor(bb); L; L = L->getParentLoop()) {
    auto it = spins_.find(L);
    if (it != spins_.end()) v.push_back(&it->second);
  }
  return v;
}


void FunctionLowering::countSyncRead() {
  for (SpinLoop* s : enclosingSpinLoops(cur_->getParent())) bin(BinOp::Add, s->reads, constVal(1), s->reads);
}

// Assume(diff): stops the thread when the iteration was idle (diff == 0).
void FunctionLowering::emitSpinStop(SpinLoop* spin, Reg diff) {
  // The engine reports a hang only if all of the iteration's reads (Assume.b)
  // saw the newest value; otherwise the execution was merely blocked.
  Instr& as = emit(Op::Assume);
  as.a = diff;
  as.b = spin->reads;
  as.sub = spin->hasCondWait ? 2 : 1;  // 2: a hang there waits on a condition variable (deadlock)
}

// Back edge of a shared-dependent loop after a non-idle iteration: one more
// iteration done; the next one is cut when the bound is reached.
void FunctionLowering::emitBoundCheck(SpinLoop* spin) {
  if (spin->bound == kNoReg) return;
  bin(BinOp::Add, spin->bound, constVal(1), spin->bound);
  Reg hit = cmp(CmpOp::Uge, spin->bound, constVal(ml_.opts_.loopBound));
  int lCut = newLabel(), lGo = newLabel();
  br(hit, lCut, lGo);
  bind(lCut);
  Instr& c = emit(Op::Cut);
  c.name = spin->boundMsg;
  c.loc = spin->boundLoc;
  bind(lGo);
}

}  // namespace tsocheck::frontend::lowering

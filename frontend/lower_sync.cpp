// Synchronisation primitives built from the engine's loads, RMWs and awaits
// (lowering.h): pthread barriers, rwlocks and once, POSIX semaphores,
// pthread_cond_timedwait, and C11 <threads.h>. Every RMW is a locked
// instruction on x86 (a full fence), so each primitive orders memory the way
// its x86 implementation does; a wait that can never end is an await
// (Op::Assume sub=2), which the engine reports as a deadlock.
//
// Layouts (the objects are zero-initialised statics or set by *_init):
//   pthread_barrier_t: [0] count, [4] arrived, [8] generation, [12] kBarrierReady
//                      from init to destroy
//   sem_t:             [0] value
//   pthread_rwlock_t:  [0] readers, or kWriter while write-locked
//   pthread_once_t / once_flag: [0] 0 = not run, 1 = running, 2 = done
#include "frontend/lowering.h"

namespace tsocheck::frontend::lowering {

namespace {
constexpr Value kWriter = 0x40000000;     // rwlock word while write-locked
constexpr Value kBarrierSerial = Value(-1);  // PTHREAD_BARRIER_SERIAL_THREAD
constexpr Value kBarrierReady = 0x62617272;  // a barrier's word at [12] while initialised ("barr")
constexpr Value kThrdSuccess = 0, kThrdBusy = 1, kThrdError = 2, kThrdTimedout = 4;  // glibc's <threads.h>
}  // namespace

bool isPrimitive(Ext k) {
  switch (k) {
    case Ext::BarrierInit: case Ext::BarrierWait: case Ext::BarrierDestroy:
    case Ext::SemInit: case Ext::SemWait: case Ext::SemTryWait: case Ext::SemPost: case Ext::SemGetValue:
    case Ext::RwInit: case Ext::RwRdLock: case Ext::RwTryRdLock: case Ext::RwWrLock: case Ext::RwTryWrLock:
    case Ext::RwUnlock:
    case Ext::Once: case Ext::CondTimedWait:
    case Ext::ThrdCreate: case Ext::ThrdJoin: case Ext::MtxTryLock:
    case Ext::KeyCreate: case Ext::KeySet: case Ext::KeyGet: case Ext::KeyDelete:
      return true;
    default:
      return false;
  }
}

// (Operands are computed before emit(): emitting may move the code vector.)
Reg FunctionLowering::syncLoad(Reg obj, int64_t off, uint32_t name, unsigned size) {
  Reg r = newReg();
  Reg at = addOffset(obj, off);
  Instr& in = emit(Op::Load);
  in.a = r;
  in.b = at;
  in.size = uint8_t(size);
  in.name = name;
  return r;
}

Reg FunctionLowering::syncRmw(RmwOp op, Reg obj, int64_t off, Reg operand, uint32_t name, Reg expected,
                              unsigned size) {
  Reg r = newReg();
  Reg at = addOffset(obj, off);
  Instr& in = emit(Op::Rmw);
  in.sub = uint8_t(op);
  in.a = r;
  in.b = at;
  in.c = operand;
  in.d = expected;
  in.size = uint8_t(size);
  in.name = name;
  return r;
}

void FunctionLowering::syncAwait(Reg cond, const std::string& what) {
  Instr& as = emit(Op::Assume);
  as.a = cond;
  as.b = kNoReg;  // the one read that computed cond
  as.sub = 3;     // a hang here is a deadlock, worded as `what`
  as.name = ml_.p_.intern(what);
}

void FunctionLowering::syncMisuse(Reg ok, const std::string& what) {
  Instr& in = emit(Op::Assert);
  in.a = ok;
  in.sub = 1;  // a memory error
  in.name = ml_.p_.intern(what);
}

// The name of the object a primitive works on, for deadlock reports
// ("barrier bar", "semaphore s.sem", ...).
std::string FunctionLowering::syncObject(llvm::CallInst& I, const char* kind) {
  const uint32_t n = I.arg_size() ? addrName(I.getArgOperand(0)) : 0;
  std::string base = n && n < ml_.p_.strings.size() ? ml_.p_.strings[n] : std::string();
  if (auto dot = base.find(".__"); dot != std::string::npos) base.resize(dot);  // bar.__size[0] → bar
  if (base.empty() && I.arg_size())
    if (auto* g = dyn_cast<llvm::GlobalVariable>(I.getArgOperand(0)->stripPointerCasts()))
      base = g->getName().str();
  return std::string(kind) + (base.empty() ? "" : " " + base);
}

// pthread_barrier_init / _wait / _destroy: count at 0, arrived at 4,
// generation at 8, kBarrierReady at 12 from init to destroy. Initialising an
// initialised barrier and destroying one that threads wait on are memory
// errors (undefined in POSIX).
void FunctionLowering::lowerBarrier(llvm::CallInst& I, Ext k, const std::string& name) {
  switch (k) {
    case Ext::BarrierInit: {  // (barrier, attr, count)
      if (!needArgs(I, 3, name)) return;
      Reg b = argReg(I, 0);
      const uint32_t n = addrName(I.getArgOperand(0));
      Reg was = syncRmw(RmwOp::Xchg, b, 12, constVal(kBarrierReady), n);
      syncMisuse(cmp(CmpOp::Ne, was, constVal(kBarrierReady)),
                 name + " of " + syncObject(I, "barrier") + ", which is initialised (and not destroyed)");
      syncRmw(RmwOp::Xchg, b, 0, argReg(I, 2), n);
      syncRmw(RmwOp::Xchg, b, 4, constVal(0), n);
      setCallResult(I, constVal(0));
      return;
    }
    case Ext::BarrierWait: {
      // g = generation; if (fetch_add(arrived, 1) + 1 == count) { arrived = 0;
      // generation++; return SERIAL; } await(generation != g); return 0.
      if (!needArgs(I, 1, name)) return;
      Reg b = argReg(I, 0);
      const uint32_t n = addrName(I.getArgOperand(0));
      Reg g = syncLoad(b, 8, n);
      Reg old = syncRmw(RmwOp::Add, b, 4, constVal(1), n);
      Reg count = syncLoad(b, 0, n);
      Reg arrived = bin(BinOp::Add, old, constVal(1));
      Reg last = cmp(CmpOp::Eq, bin(BinOp::And, arrived, constVal(0xffffffff)), count);
      Reg r = newReg();
      int lLast = newLabel(), lWait = newLabel(), lEnd = newLabel();
      br(last, lLast, lWait);
      bind(lLast);
      syncRmw(RmwOp::Xchg, b, 4, constVal(0), n);
      syncRmw(RmwOp::Add, b, 8, constVal(1), n);
      mov(r, constVal(kBarrierSerial));
      jmp(lEnd);
      bind(lWait);
      Reg now = syncLoad(b, 8, n);
      syncAwait(cmp(CmpOp::Ne, now, g), "waits at " + syncObject(I, "barrier") + " for parties that never arrive");
      mov(r, constVal(0));
      bind(lEnd);
      setCallResult(I, r);
      return;
    }
    case Ext::BarrierDestroy: {
      // Threads that arrived at the barrier and wait for the others to arrive.
      if (!needArgs(I, 1, name)) return;
      Reg b = argReg(I, 0);
      const uint32_t n = addrName(I.getArgOperand(0));
      Reg waiting = syncLoad(b, 4, n);
      syncMisuse(cmp(CmpOp::Eq, waiting, constVal(0)), name + " of " + syncObject(I, "barrier") + " while threads wait on it");
      syncRmw(RmwOp::Xchg, b, 12, constVal(0), n);
      setCallResult(I, constVal(0));
      return;
    }
    default:
      return;
  }
}

// POSIX semaphores: the value at offset 0.
void FunctionLowering::lowerSemaphore(llvm::CallInst& I, Ext k, const std::string& name) {
  switch (k) {
    case Ext::SemInit: {  // (sem, pshared, value)
      if (!needArgs(I, 3, name)) return;
      syncRmw(RmwOp::Xchg, argReg(I, 0), 0, argReg(I, 2), addrName(I.getArgOperand(0)));
      setCallResult(I, constVal(0));
      return;
    }
    case Ext::SemPost: {
      if (!needArgs(I, 1, name)) return;
      syncRmw(RmwOp::Add, argReg(I, 0), 0, constVal(1), addrName(I.getArgOperand(0)));
      setCallResult(I, constVal(0));
      return;
    }
    case Ext::SemWait:
    case Ext::SemTryWait: {
      // retry: v = value; wait: await(v != 0) / try: v == 0 → EAGAIN;
      // if (cas(value, v, v - 1) != v) goto retry.
      if (!needArgs(I, 1, name)) return;
      Reg s = argReg(I, 0);
      const uint32_t n = addrName(I.getArgOperand(0));
      Reg r = newReg();
      int lRetry = newLabel(), lTake = newLabel(), lBusy = newLabel(), lEnd = newLabel();
      bind(lRetry);
      Reg v = syncLoad(s, 0, n);
      Reg positive = cmp(CmpOp::Ne, v, constVal(0));
      if (k == Ext::SemWait) {
        syncAwait(positive, "waits on " + syncObject(I, "semaphore") + ", which no thread will post");
        jmp(lTake);
      } else {
        br(positive, lTake, lBusy);
      }
      bind(lTake);
      Reg old = syncRmw(RmwOp::Cas, s, 0, bin(BinOp::Sub, v, constVal(1)), n, v);
      int lDone = newLabel();
      br(cmp(CmpOp::Eq, old, v), lDone, lRetry);
      bind(lDone);
      mov(r, constVal(0));
      jmp(lEnd);
      bind(lBusy);
      mov(r, constVal(Value(-1)));  // errno would be EAGAIN
      bind(lEnd);
      setCallResult(I, r);
      return;
    }
    case Ext::SemGetValue: {  // (sem, int *out)
      if (!needArgs(I, 2, name)) return;
      Reg v = syncLoad(argReg(I, 0), 0, addrName(I.getArgOperand(0)));
      Reg out = argReg(I, 1);
      emitStore(out, v, 4, addrName(I.getArgOperand(1)));
      setCallResult(I, constVal(0));
      return;
    }
    default:
      return;
  }
}

// Reader-writer locks.
void FunctionLowering::lowerRwLock(llvm::CallInst& I, Ext k, const std::string& name) {
  switch (k) {
    case Ext::RwInit: {
      if (!needArgs(I, 1, name)) return;
      syncRmw(RmwOp::Xchg, argReg(I, 0), 0, constVal(0), addrName(I.getArgOperand(0)));
      setCallResult(I, constVal(0));
      return;
    }
    case Ext::RwRdLock:
    case Ext::RwTryRdLock:
    case Ext::RwWrLock:
    case Ext::RwTryWrLock: {
      // retry: v = word; free = reader ? v != kWriter : v == 0; wait: await(free)
      // / try: !free → EBUSY; if (cas(word, v, reader ? v + 1 : kWriter) != v) goto retry.
      if (!needArgs(I, 1, name)) return;
      const bool reader = k == Ext::RwRdLock || k == Ext::RwTryRdLock;
      const bool tryOnly = k == Ext::RwTryRdLock || k == Ext::RwTryWrLock;
      Reg w = argReg(I, 0);
      const uint32_t n = addrName(I.getArgOperand(0));
      Reg r = newReg();
      int lRetry = newLabel(), lTake = newLabel(), lBusy = newLabel(), lDone = newLabel(), lEnd = newLabel();
      bind(lRetry);
      Reg v = syncLoad(w, 0, n);
      Reg free = reader ? cmp(CmpOp::Ne, v, constVal(kWriter)) : cmp(CmpOp::Eq, v, constVal(0));
      if (!tryOnly) {
        syncAwait(free, std::string("waits to ") + (reader ? "read" : "write") + "-lock " + syncObject(I, "rwlock") +
                            ", which " + (reader ? "a writer holds" : "is held") + " for good");
        jmp(lTake);
      } else {
        br(free, lTake, lBusy);
      }
      bind(lTake);
      Reg desired = reader ? bin(BinOp::Add, v, constVal(1)) : constVal(kWriter);
      Reg old = syncRmw(RmwOp::Cas, w, 0, desired, n, v);
      br(cmp(CmpOp::Eq, old, v), lDone, lRetry);
      bind(lDone);
      mov(r, constVal(0));
      jmp(lEnd);
      bind(lBusy);
      mov(r, constVal(kEBUSY));
      bind(lEnd);
      setCallResult(I, r);
      return;
    }
    case Ext::RwUnlock: {
      // The holder of a write lock is alone: word = 0; a reader: fetch_add(-1).
      if (!needArgs(I, 1, name)) return;
      Reg w = argReg(I, 0);
      const uint32_t n = addrName(I.getArgOperand(0));
      Reg v = syncLoad(w, 0, n);
      int lWriter = newLabel(), lReader = newLabel(), lEnd = newLabel();
      br(cmp(CmpOp::Eq, v, constVal(kWriter)), lWriter, lReader);
      bind(lWriter);
      syncRmw(RmwOp::Xchg, w, 0, constVal(0), n);
      jmp(lEnd);
      bind(lReader);
      Reg held = cmp(CmpOp::Ne, v, constVal(0));
      Instr& fail = emit(Op::Assert);  // unlocking a rwlock nobody holds
      fail.a = held;
      fail.name = ml_.p_.intern("pthread_rwlock_unlock of a rwlock that is not held");
      syncRmw(RmwOp::Add, w, 0, constVal(Value(0xffffffff)), n);
      bind(lEnd);
      setCallResult(I, constVal(0));
      return;
    }
    default:
      return;
  }
}

// pthread_once, pthread_cond_timedwait and the C11 thread functions.
void FunctionLowering::lowerOtherPrimitive(llvm::CallInst& I, Ext k, const std::string& name) {
  const bool wantsResult = !I.getType()->isVoidTy();
  switch (k) {
    case Ext::Once: {
      // if (cas(flag, 0, 1) == 0) { routine(); flag = 2 (xchg) } else await(flag == 2).
      if (!needArgs(I, 2, name)) return;
      Reg f = argReg(I, 0);
      const uint32_t n = addrName(I.getArgOperand(0));
      Reg old = syncRmw(RmwOp::Cas, f, 0, constVal(1), n, constVal(0));
      int lRun = newLabel(), lWait = newLabel(), lEnd = newLabel();
      br(cmp(CmpOp::Eq, old, constVal(0)), lRun, lWait);
      bind(lRun);
      llvm::Value* fnV = I.getArgOperand(1)->stripPointerCasts();
      if (auto* fn = dyn_cast<llvm::Function>(fnV); fn && ml_.funcIndex_.count(fn)) {
        Instr& c = emit(Op::Call);
        c.a = kNoReg;
        c.imm = ml_.funcIndex_[fn];
        c.argBegin = uint32_t(out_->args.size());
        c.argCount = 0;
      } else if (fn) {
        unsupported("once routine '" + fn->getName().str() + "' has " + ml_.noDefinition());
        return;
      } else {
        Reg fp = argReg(I, 1);
        Instr& c = emit(Op::CallInd);
        c.a = kNoReg;
        c.b = fp;
        c.argBegin = uint32_t(out_->args.size());
        c.argCount = 0;
      }
      syncRmw(RmwOp::Xchg, f, 0, constVal(2), n);
      jmp(lEnd);
      bind(lWait);
      syncAwait(cmp(CmpOp::Eq, syncLoad(f, 0, n), constVal(2)),
                "waits for the once routine of " + syncObject(I, "flag") + ", which never finishes");
      bind(lEnd);
      setCallResult(I, constVal(0));
      return;
    }
    case Ext::CondTimedWait: {
      // As pthread_cond_wait, with either result: woken (0) or timed out
      // (ETIMEDOUT / thrd_timedout).
      if (!needArgs(I, 2, name)) return;
      emitCondWait(I, false);  // a time-out may come at any time, signalled or not
      if (wantsResult) {
        Reg c = newReg();
        Instr& nd = emit(Op::Nondet);
        nd.a = c;
        nd.imm = 1;
        const bool c11 = name == "cnd_timedwait";
        setCallResult(I, bin(BinOp::Mul, c, constVal(c11 ? kThrdTimedout : kETIMEDOUT)));
      }
      return;
    }
    case Ext::ThrdCreate: {  // (thrd_t *, int (*)(void *), void *) → thrd_success
      if (!needArgs(I, 3, name)) return;
      if (!emitSpawn(I, 0, 1, 2)) return;
      setCallResult(I, constVal(kThrdSuccess));
      return;
    }
    case Ext::ThrdJoin: {  // (thrd_t, int *res)
      if (!needArgs(I, 2, name)) return;
      emitJoin(I, 4);
      setCallResult(I, constVal(kThrdSuccess));
      return;
    }
    case Ext::MtxTryLock: {  // thrd_success or thrd_busy
      if (!needArgs(I, 1, name)) return;
      Reg r = newReg(), m = argReg(I, 0);
      Instr& in = emit(Op::TryLock);
      in.a = r;
      in.b = m;
      in.name = addrName(I.getArgOperand(0));
      countSyncRead();
      setCallResult(I, bin(BinOp::Mul, cmp(CmpOp::Ne, r, constVal(0)), constVal(kThrdBusy)));
      return;
    }
    default:
      return;
  }
}

void FunctionLowering::lowerPrimitiveCall(llvm::CallInst& I, Ext k, const std::string& name) {
  // Every primitive changes shared state (or may, for the try-variants):
  // never an idle iteration of an enclosing loop. A timed wait is a
  // condition wait (an enclosing loop's idle iteration may end in it) unless
  // its result is looked at.
  if (k != Ext::CondTimedWait || !I.use_empty()) markEffect();
  switch (k) {
    case Ext::BarrierInit:
    case Ext::BarrierWait:
    case Ext::BarrierDestroy: return lowerBarrier(I, k, name);
    case Ext::SemInit:
    case Ext::SemPost:
    case Ext::SemWait:
    case Ext::SemTryWait:
    case Ext::SemGetValue: return lowerSemaphore(I, k, name);
    case Ext::RwInit:
    case Ext::RwRdLock:
    case Ext::RwTryRdLock:
    case Ext::RwWrLock:
    case Ext::RwTryWrLock:
    case Ext::RwUnlock: return lowerRwLock(I, k, name);
    case Ext::KeyCreate:
    case Ext::KeySet:
    case Ext::KeyGet:
    case Ext::KeyDelete: return lowerThreadSpecific(I, k, name);
    default: return lowerOtherPrimitive(I, k, name);
  }
}


// Thread-specific data. A key is an index into each thread's private table
// of kMaxKeys values (zero until set: a thread sees only what it set itself);
// pthread_key_create takes the next index from a shared counter (an RMW, so
// racing creations get distinct keys) and stores it into *key. Destructors
// are not run at thread exit. A key outside the table is refused like glibc
// does (EINVAL / thrd_error; get returns NULL).
void FunctionLowering::lowerThreadSpecific(llvm::CallInst& I, Ext k, const std::string& name) {
  const bool c11 = name.rfind("tss_", 0) == 0;
  if (!ml_.keysGlobal_ || !ml_.keyValuesLocal_) {
    unsupported("'" + name + "': thread-specific data is not set up for this module");
    return;
  }
  // This thread's slot for `key`, valid when key < kMaxKeys.
  auto slot = [&](Reg key) {
    Reg table = newReg();
    Instr& t = emit(Op::TlsAddr);
    t.a = table;
    t.imm = *ml_.keyValuesLocal_;
    return bin(BinOp::Add, table, bin(BinOp::Mul, key, constVal(8)));
  };
  auto inRange = [&](Reg key) { return cmp(CmpOp::Ult, key, constVal(ModuleLowering::kMaxKeys)); };
  // onSlot(this thread's slot for key)'s result, or `bad` for a key outside the table.
  auto inSlot = [&](Reg key32, Value bad, auto onSlot) {
    Reg key = bin(BinOp::And, key32, constVal(0xffffffff));
    Reg r = newReg();
    int lOk = newLabel(), lBad = newLabel(), lEnd = newLabel();
    br(inRange(key), lOk, lBad);
    bind(lOk);
    mov(r, onSlot(slot(key)));
    jmp(lEnd);
    bind(lBad);
    mov(r, constVal(bad));
    bind(lEnd);
    return r;
  };
  switch (k) {
    case Ext::KeyCreate: {  // (key *, destructor)
      if (!needArgs(I, 2, name)) return;
      Reg out = argReg(I, 0);
      Reg counter = newReg();
      Instr& g = emit(Op::GlobalAddr);
      g.a = counter;
      g.imm = *ml_.keysGlobal_;
      Reg key = syncRmw(RmwOp::Add, counter, 0, constVal(1), ml_.p_.intern("thread-specific keys"));
      Reg ok = inRange(key);
      Reg r = newReg();
      int lOk = newLabel(), lFull = newLabel(), lEnd = newLabel();
      br(ok, lOk, lFull);
      bind(lOk);
      emitStore(out, key, 4, addrName(I.getArgOperand(0)));
      mov(r, constVal(c11 ? kThrdSuccess : 0));
      jmp(lEnd);
      bind(lFull);
      mov(r, constVal(c11 ? kThrdError : kEAGAIN));
      bind(lEnd);
      setCallResult(I, r);
      return;
    }
    case Ext::KeySet: {  // (key, value)
      if (!needArgs(I, 2, name)) return;
      Reg value = argReg(I, 1);
      setCallResult(I, inSlot(argReg(I, 0), c11 ? kThrdError : kEINVAL, [&](Reg at) {
        emitStore(at, value, 8, ml_.p_.intern("thread-specific value"));
        return constVal(c11 ? kThrdSuccess : 0);
      }));
      return;
    }
    case Ext::KeyGet:  // (key) → value or NULL
      if (!needArgs(I, 1, name)) return;
      setCallResult(I, inSlot(argReg(I, 0), 0, [&](Reg at) {
        Reg v = newReg();
        Instr& ld = emit(Op::Load);
        ld.a = v;
        ld.b = at;
        ld.size = 8;
        ld.name = ml_.p_.intern("thread-specific value");
        return v;
      }));
      return;
    case Ext::KeyDelete:  // the values stay; the key is not reused
      setCallResult(I, constVal(0));
      return;
    default:
      return;
  }
}

}  // namespace tsocheck::frontend::lowering

// Calls: defined functions, intrinsics, and the models of libc and pthread
// functions; classification of external functions and inline assembly
// (lowering.h).
#include "frontend/lowering.h"

namespace tsocheck::frontend::lowering {

// ---------------------------------------------------------------------------
// Classification of external functions and inline assembly: one table per
// family of calls.

namespace {

using ExtEntry = std::pair<const char*, Ext>;

// Threads: POSIX and C11 creation, joining and identity, and the calls with
// no effect on a model (detach, yield, attributes).
const ExtEntry kThreadCalls[] = {
    {"pthread_create", Ext::PthreadCreate},
    {"pthread_join", Ext::PthreadJoin},
    {"pthread_exit", Ext::PthreadExit},
    {"pthread_self", Ext::PthreadSelf},
    {"pthread_equal", Ext::PthreadEqual},
    {"pthread_detach", Ext::Ignored},
    {"thrd_create", Ext::ThrdCreate},
    {"thrd_join", Ext::ThrdJoin},
    {"thrd_exit", Ext::PthreadExit},
    {"thrd_yield", Ext::Ignored},
    {"thrd_current", Ext::PthreadSelf},
    {"thrd_equal", Ext::PthreadEqual},
    {"thrd_detach", Ext::Ignored},
    {"pthread_attr_init", Ext::Ignored},
    {"pthread_attr_destroy", Ext::Ignored},
    {"pthread_attr_setdetachstate", Ext::Ignored},
    {"pthread_yield", Ext::Ignored},
    {"sched_yield", Ext::Ignored},
};

// Mutexes, spinlocks and read-write locks (POSIX and C11).
const ExtEntry kLockCalls[] = {
    {"pthread_mutex_lock", Ext::MutexLock},
    {"pthread_mutex_unlock", Ext::MutexUnlock},
    {"pthread_mutex_trylock", Ext::MutexTryLock},
    {"pthread_spin_lock", Ext::MutexLock},
    {"pthread_spin_unlock", Ext::MutexUnlock},
    {"pthread_spin_trylock", Ext::MutexTryLock},
    {"pthread_rwlock_init", Ext::RwInit},
    {"pthread_rwlock_rdlock", Ext::RwRdLock},
    {"pthread_rwlock_tryrdlock", Ext::RwTryRdLock},
    {"pthread_rwlock_wrlock", Ext::RwWrLock},
    {"pthread_rwlock_trywrlock", Ext::RwTryWrLock},
    {"pthread_rwlock_unlock", Ext::RwUnlock},
    {"pthread_rwlock_destroy", Ext::Ignored},
    {"pthread_rwlockattr_init", Ext::Ignored},
    {"pthread_rwlockattr_destroy", Ext::Ignored},
    {"mtx_init", Ext::MutexInit},
    {"mtx_lock", Ext::MutexLock},
    {"mtx_unlock", Ext::MutexUnlock},
    {"mtx_trylock", Ext::MtxTryLock},
    {"mtx_destroy", Ext::MutexDestroy},
    {"pthread_mutex_init", Ext::MutexInit},
    {"pthread_mutex_destroy", Ext::MutexDestroy},
    {"pthread_mutexattr_init", Ext::Ignored},
    {"pthread_mutexattr_destroy", Ext::Ignored},
    {"pthread_mutexattr_settype", Ext::Ignored},
    {"pthread_spin_init", Ext::MutexInit},
    {"pthread_spin_destroy", Ext::MutexDestroy},
};

// Condition variables, barriers, semaphores and once-initialisation (POSIX and C11).
const ExtEntry kWaitCalls[] = {
    {"pthread_cond_wait", Ext::CondWait},
    {"pthread_barrier_init", Ext::BarrierInit},
    {"pthread_barrier_wait", Ext::BarrierWait},
    {"pthread_barrier_destroy", Ext::BarrierDestroy},
    {"pthread_barrierattr_init", Ext::Ignored},
    {"pthread_barrierattr_destroy", Ext::Ignored},
    {"sem_init", Ext::SemInit},
    {"sem_wait", Ext::SemWait},
    {"sem_trywait", Ext::SemTryWait},
    {"sem_post", Ext::SemPost},
    {"sem_getvalue", Ext::SemGetValue},
    {"sem_destroy", Ext::Ignored},
    {"pthread_once", Ext::Once},
    {"pthread_cond_timedwait", Ext::CondTimedWait},
    {"cnd_init", Ext::CondInit},
    {"cnd_destroy", Ext::Ignored},
    {"cnd_signal", Ext::CondSignal},
    {"cnd_broadcast", Ext::CondSignal},
    {"cnd_wait", Ext::CondWait},
    {"cnd_timedwait", Ext::CondTimedWait},
    {"call_once", Ext::Once},
    {"pthread_cond_init", Ext::CondInit},
    {"pthread_cond_destroy", Ext::Ignored},
    {"pthread_cond_signal", Ext::CondSignal},
    {"pthread_cond_broadcast", Ext::CondSignal},
};

// Thread-specific data (POSIX keys, C11 tss).
const ExtEntry kThreadSpecificCalls[] = {
    {"pthread_key_create", Ext::KeyCreate},
    {"pthread_setspecific", Ext::KeySet},
    {"pthread_getspecific", Ext::KeyGet},
    {"pthread_key_delete", Ext::KeyDelete},
    {"tss_create", Ext::KeyCreate},
    {"tss_set", Ext::KeySet},
    {"tss_get", Ext::KeyGet},
    {"tss_delete", Ext::KeyDelete},
};

// libc: strings, memory allocation, output and sleeping (output and sleep
// have no effect on a model).
const ExtEntry kLibcCalls[] = {
    {"memcmp", Ext::Memcmp},
    {"strlen", Ext::Strlen},
    {"strcmp", Ext::Strcmp},
    {"strncmp", Ext::Strncmp},
    {"strcpy", Ext::Strcpy},
    {"strncpy", Ext::Strncpy},
    {"aligned_alloc", Ext::AlignedAlloc},
    {"posix_memalign", Ext::PosixMemalign},
    {"usleep", Ext::Ignored},
    {"sleep", Ext::Ignored},
    {"nanosleep", Ext::Ignored},
    {"printf", Ext::Ignored},
    {"fprintf", Ext::Ignored},
    {"dprintf", Ext::Ignored},
    {"vprintf", Ext::Ignored},
    {"vfprintf", Ext::Ignored},
    {"puts", Ext::Ignored},
    {"fputs", Ext::Ignored},
    {"putchar", Ext::Ignored},
    {"putc", Ext::Ignored},
    {"fputc", Ext::Ignored},
    {"fflush", Ext::Ignored},
    {"perror", Ext::Ignored},
    {"__printf_chk", Ext::Ignored},
    {"__fprintf_chk", Ext::Ignored},
    {"malloc", Ext::Malloc},
    {"calloc", Ext::Calloc},
    {"realloc", Ext::Realloc},
    {"free", Ext::Free},
};

// Clocks: nondeterministic readings.
const ExtEntry kClockCalls[] = {
    {"time", Ext::Time},
    {"clock_gettime", Ext::ClockGettime},
};

// Calls that end the thread or the program: failed assertions, abort, exit.
const ExtEntry kEndCalls[] = {
    {"__assert_fail", Ext::AssertFail},
    {"__assert_rtn", Ext::AssertFail},
    {"__assert", Ext::AssertFail},
    {"abort", Ext::Abort},
    {"exit", Ext::Exit},
    {"_exit", Ext::Exit},
    {"_Exit", Ext::Exit},
};

// SV-COMP's verifier calls: assume, error, atomic sections and nondeterministic values.
const ExtEntry kVerifierCalls[] = {
    {"__VERIFIER_assume", Ext::Assume},
    {"__tsocheck_assume", Ext::Assume},
    {"__VERIFIER_error", Ext::VerifierError},
    {"__VERIFIER_atomic_begin", Ext::AtomicBegin},
    {"__VERIFIER_atomic_end", Ext::AtomicEnd},
    {"reach_error", Ext::VerifierError},
    {"__VERIFIER_nondet_bool", Ext::NondetBool},
    {"__VERIFIER_nondet__Bool", Ext::NondetBool},
    {"__VERIFIER_opt_begin", Ext::OptBegin},
    {"__VERIFIER_nondet_char", Ext::NondetSigned},  // char is signed on x86-64
    {"__VERIFIER_nondet_schar", Ext::NondetSigned},
    {"__VERIFIER_nondet_short", Ext::NondetSigned},
    {"__VERIFIER_nondet_int", Ext::NondetSigned},
    {"__VERIFIER_nondet_long", Ext::NondetSigned},
    {"__VERIFIER_nondet_longlong", Ext::NondetSigned},
    {"__VERIFIER_nondet_pointer", Ext::NondetSigned},  // the range's integers as addresses
    {"__VERIFIER_nondet_float", Ext::NondetSigned},    // the range's integers as floats
    {"__VERIFIER_nondet_double", Ext::NondetSigned},
    {"__VERIFIER_nondet_uchar", Ext::NondetUnsigned},
    {"__VERIFIER_nondet_ushort", Ext::NondetUnsigned},
    {"__VERIFIER_nondet_uint", Ext::NondetUnsigned},
    {"__VERIFIER_nondet_unsigned", Ext::NondetUnsigned},
    {"__VERIFIER_nondet_ulong", Ext::NondetUnsigned},
    {"__VERIFIER_nondet_ulonglong", Ext::NondetUnsigned},
    {"__VERIFIER_nondet_size_t", Ext::NondetUnsigned},
};

// setjmp / longjmp (refused).
const ExtEntry kSetJmpCalls[] = {
    {"setjmp", Ext::SetJmp},
    {"_setjmp", Ext::SetJmp},
    {"__sigsetjmp", Ext::SetJmp},
    {"sigsetjmp", Ext::SetJmp},
    {"longjmp", Ext::SetJmp},
    {"_longjmp", Ext::SetJmp},
    {"siglongjmp", Ext::SetJmp},
    {"__longjmp_chk", Ext::SetJmp},
};

}  // namespace

// The family tables above, as one map from name to kind.
Ext classifyExternal(llvm::StringRef n) {
  static const std::unordered_map<std::string, Ext> table = [] {
    std::unordered_map<std::string, Ext> t;
    auto add = [&t](const auto& family) {
      for (const auto& [name, kind] : family) t.emplace(name, kind);
    };
    add(kThreadCalls);
    add(kLockCalls);
    add(kWaitCalls);
    add(kThreadSpecificCalls);
    add(kLibcCalls);
    add(kEndCalls);
    add(kVerifierCalls);
    add(kSetJmpCalls);
    add(kClockCalls);
    return t;
  }();
  auto it = table.find(n.str());
  if (it != table.end()) return it->second;
  // Nidhugg's await helpers, one per value type (_aint, _i32, ...).
  if (n.starts_with("__VERIFIER_xchg_await_")) return Ext::XchgAwait;
  if (n.starts_with("__VERIFIER_load_await_")) return Ext::LoadAwait;
  return Ext::Unknown;
}

DeclaredObject declaredObject(const llvm::Function* f, unsigned arg) {
  DeclaredObject o;
  if (!f || arg >= f->arg_size()) return o;
  const llvm::Attribute size = f->getAttributes().getParamAttr(arg, "tsocheck-object-size");
  if (!size.isStringAttribute() || size.getValueAsString().getAsInteger(10, o.bytes)) return DeclaredObject();
  o.type = f->getAttributes().getParamAttr(arg, "tsocheck-object-type").getValueAsString().str();
  return o;
}


// Fences and compiler barriers written as inline assembly.
AsmKind classifyAsm(const llvm::InlineAsm* ia) {
  std::string raw = ia->getAsmString();
  std::string s;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '$' && i + 1 < raw.size() && raw[i + 1] == '$') continue;  // "$$" is a literal '$'
    if (std::isspace(static_cast<unsigned char>(c)) || c == ';') continue;
    s += char(std::tolower(static_cast<unsigned char>(c)));
  }
  if (s.empty()) return AsmKind::Nothing;  // asm volatile("" ::: "memory")
  if (s == "mfence") return AsmKind::Full;
  if (s == "pause" || s == "repnop" || s == "nop" || s == "lfence") return AsmKind::Nothing;
  if (s == "sfence") return AsmKind::StoreStore;
  static const std::regex lockAdd(R"(^lock(add|or)[bwlq]?\$0,(-?(0x)?[0-9a-f]+)?\(%[re]sp\)$)");
  if (std::regex_match(s, lockAdd)) return AsmKind::Full;
  return AsmKind::Unsupported;
}

// The x86 fence and spin-wait intrinsics (_mm_mfence, _mm_sfence,
// _mm_lfence, _mm_pause / __builtin_ia32_pause): what the same instruction
// written as inline assembly is. Unsupported: not one of them.
AsmKind classifyX86Intrinsic(llvm::StringRef name) {
  if (name == "llvm.x86.sse2.mfence") return AsmKind::Full;
  if (name == "llvm.x86.sse.sfence") return AsmKind::StoreStore;
  if (name == "llvm.x86.sse2.lfence" || name == "llvm.x86.sse2.pause") return AsmKind::Nothing;
  return AsmKind::Unsupported;
}

bool isIgnorableIntrinsic(llvm::Intrinsic::ID id) {
  switch (id) {
    case llvm::Intrinsic::dbg_declare:
    case llvm::Intrinsic::dbg_value:
    case llvm::Intrinsic::dbg_label:
    case llvm::Intrinsic::dbg_assign:
    case llvm::Intrinsic::lifetime_start:
    case llvm::Intrinsic::lifetime_end:
    case llvm::Intrinsic::assume:
    case llvm::Intrinsic::donothing:
    case llvm::Intrinsic::experimental_noalias_scope_decl:
    case llvm::Intrinsic::var_annotation:
    case llvm::Intrinsic::codeview_annotation:
    case llvm::Intrinsic::sideeffect:
      return true;
    default:
      return false;
  }
}


// The access size the program uses on a realloc'ed block: the first load,
// store or GEP element found among the users of the result or of the old
// pointer (through GEPs); 8 when none says.
unsigned FunctionLowering::reallocElementSize(llvm::CallInst& I) {
  std::vector<const llvm::Value*> work{&I, I.getArgOperand(0)};
  std::set<const llvm::Value*> seen;
  while (!work.empty()) {
    const llvm::Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    for (const llvm::User* u : v->users()) {
      llvm::Type* t = nullptr;
      if (auto* ld = dyn_cast<llvm::LoadInst>(u)) t = ld->getType();
      else if (auto* st = dyn_cast<llvm::StoreInst>(u); st && st->getPointerOperand() == v) t = st->getValueOperand()->getType();
      else if (auto* gep = dyn_cast<llvm::GetElementPtrInst>(u)) {
        if (gep->getSourceElementType()->isIntegerTy() || gep->getSourceElementType()->isPointerTy())
          t = gep->getSourceElementType();
        else
          work.push_back(gep);
      }
      if (t && (t->isIntegerTy() || t->isPointerTy())) {
        uint64_t n = dl_.getTypeStoreSize(t);
        if (n == 1 || n == 2 || n == 4 || n == 8) return unsigned(n);
      }
    }
  }
  return 8;
}


void FunctionLowering::lowerCall(llvm::CallInst& I) {
  if (auto* ia = dyn_cast<llvm::InlineAsm>(I.getCalledOperand())) {
    const AsmKind kind = classifyAsm(ia);
    if (kind == AsmKind::Unsupported) {
      unsupported("inline assembly \"" + ia->getAsmString() +
                  "\" is not supported (only mfence, lock-prefixed add/or to the stack, sfence/lfence/pause "
                  "and empty compiler barriers)");
      return;
    }
    emitAsmFence(kind);
    if (!I.getType()->isVoidTy()) {
      unsupported("inline assembly with outputs is not supported: \"" + ia->getAsmString() + "\"");
    }
    return;
  }
  llvm::Function* callee = dyn_cast<llvm::Function>(I.getCalledOperand()->stripPointerCasts());
  if (callee && callee->isIntrinsic()) {
    lowerIntrinsic(I, callee);
    return;
  }
  // reach_error()/__VERIFIER_error() are the benchmarks' error: an error at
  // the call even when the file defines them (e.g. as __assert_fail(...)).
  // Likewise the atomic-section markers, whatever body a file gives them.
  const Ext forced = callee ? classifyExternal(callee->getName()) : Ext::Unknown;
  if (callee && (callee->isDeclaration() || forced == Ext::VerifierError || forced == Ext::AtomicBegin ||
                 forced == Ext::AtomicEnd)) {
    lowerExternal(I, callee);
    return;
  }
  for (const llvm::Use& a : I.args())
    if (a->getType()->isFloatingPointTy() && !fpSize(a->getType())) {
      unsupported("argument of " + fpTypeRefusal(a->getType()));
      return;
    }
  if (I.getType()->isStructTy()) {
    unsupported("calls returning a struct value are not supported");
    return;
  }
  std::vector<Reg> args;
  for (const llvm::Use& a : I.args()) {
    if (a->getType()->isStructTy() || a->getType()->isArrayTy() ||
        (a->getType()->isVectorTy() && !isFloatPair(a->getType()))) {
      unsupported("passing aggregate values by value is not supported");
      return;
    }
    args.push_back(val(a.get()));
  }
  uint32_t argBegin = uint32_t(out_->args.size());
  out_->args.insert(out_->args.end(), args.begin(), args.end());
  Reg target = callee ? kNoReg : val(I.getCalledOperand());
  const bool readOnlyCall = callee && ml_.readOnly(callee);
  auto loops = enclosingSpinLoops(I.getParent());
  // A call inside a spin loop: the engine counts the callee's shared reads
  // (however many), which count as the iteration's reads, and (unless it is
  // read-only) the effects the callee marks, which make the iteration
  // non-idle only when they happened. Outside loops the callee's marks go to
  // whatever level is open (a caller's loop further out).
  auto counter = [&](Op op, uint8_t sub, Reg saved) {  // begin (saved: kNoReg) or end of a count
    Reg r = newReg();
    Instr& c = emit(op);
    c.sub = sub;
    c.a = r;
    c.b = saved;
    return r;
  };
  Reg saved = kNoReg, savedEffects = kNoReg;
  if (!loops.empty()) {
    saved = counter(Op::ReadCount, 1, kNoReg);
    if (!readOnlyCall) savedEffects = counter(Op::EffectCount, 1, kNoReg);
  }
  Instr& in = emit(callee ? Op::Call : Op::CallInd);
  in.a = I.getType()->isVoidTy() ? kNoReg : resultReg(I);
  in.argBegin = argBegin;
  in.argCount = uint32_t(args.size());
  if (callee) in.imm = ml_.funcIndex_.at(callee);
  else in.b = target;
  if (saved == kNoReg) return;
  const Reg n = counter(Op::ReadCount, 0, saved);
  for (SpinLoop* s : loops) bin(BinOp::Add, s->reads, n, s->reads);
  if (savedEffects == kNoReg) return;
  const Reg k = counter(Op::EffectCount, 0, savedEffects);
  for (SpinLoop* s : loops) bin(BinOp::Or, s->flag, k, s->flag);  // (the count went out with the end)
}

void FunctionLowering::lowerIntrinsic(llvm::CallInst& I, llvm::Function* callee) {
  auto id = callee->getIntrinsicID();
  if (isIgnorableIntrinsic(id)) return;
  switch (id) {
    case llvm::Intrinsic::expect:
    case llvm::Intrinsic::expect_with_probability:
    case llvm::Intrinsic::ptr_annotation:
    case llvm::Intrinsic::annotation:
    case llvm::Intrinsic::launder_invariant_group:
    case llvm::Intrinsic::strip_invariant_group:
      setResult(I, val(I.getArgOperand(0)));
      return;
    case llvm::Intrinsic::memcpy:
    case llvm::Intrinsic::memcpy_inline:
    case llvm::Intrinsic::memmove:
    case llvm::Intrinsic::memset:
    case llvm::Intrinsic::memset_inline:
      lowerMemIntrinsic(cast<llvm::MemIntrinsic>(I));
      return;
    case llvm::Intrinsic::stacksave:
    case llvm::Intrinsic::stackrestore:
      unsupported("variable-length arrays are not supported");
      return;
    case llvm::Intrinsic::trap:
    case llvm::Intrinsic::debugtrap:
    case llvm::Intrinsic::ubsantrap: {
      Instr& in = emit(Op::Fail);
      in.name = ml_.p_.intern("trap (__builtin_trap) reached");
      return;
    }
    case llvm::Intrinsic::vastart:
    case llvm::Intrinsic::vaend:
    case llvm::Intrinsic::vacopy:
      unsupported("variadic functions are not supported");
      return;
    case llvm::Intrinsic::threadlocal_address: {
      // This thread's copy of a thread-local variable (ir.h, ThreadLocal).
      auto* g = ml_.resolveGlobal(I.getArgOperand(0));
      auto it = g ? ml_.tlsIndex_.find(g) : ml_.tlsIndex_.end();
      if (it == ml_.tlsIndex_.end() || g->isDeclaration()) {
        unsupported("thread-local variable '" + (g ? g->getName().str() : std::string("?")) +
                    "' is declared but not defined in this file");
        return;
      }
      Instr& in = emit(Op::TlsAddr);
      in.a = resultReg(I);
      in.imm = it->second;
      return;
    }
    case llvm::Intrinsic::eh_sjlj_setjmp:
    case llvm::Intrinsic::eh_sjlj_longjmp:
      unsupported("setjmp/longjmp is not supported");
      return;
    default:
      break;
  }
  if (const AsmKind kind = classifyX86Intrinsic(callee->getName()); kind != AsmKind::Unsupported) {
    emitAsmFence(kind);  // pause: nothing, so a spin loop's iteration stays idle
    return;
  }
  if (lowerFloatIntrinsic(I, id)) return;
  if (callee->getName().starts_with("llvm.x86."))
    unsupported("intrinsic " + callee->getName().str() +
                " is not supported (the x86 intrinsics supported are _mm_mfence, _mm_sfence, _mm_lfence and "
                "_mm_pause)");
  else
    unsupported("intrinsic " + callee->getName().str() + " is not supported");
}

// A fence written as an instruction (inline assembly or an x86 intrinsic):
// what the model keeps of it (the memory-order table in frontend/README.md).
void FunctionLowering::emitAsmFence(AsmKind kind) {
  if (kind == AsmKind::Full) emitFence(ml_.opts_.memoryModel().fenceKept(FenceKind::Full));
  if (kind == AsmKind::StoreStore) emitFence(ml_.opts_.memoryModel().fenceKept(FenceKind::StoreStore));
}


Reg FunctionLowering::argReg(llvm::CallInst& I, unsigned i) { return val(I.getArgOperand(i)); }

bool FunctionLowering::needArgs(llvm::CallInst& I, unsigned n, const std::string& name) {
  if (I.arg_size() >= n) return true;
  unsupported("call to " + name + " with too few arguments");
  return false;
}

void FunctionLowering::setCallResult(llvm::CallInst& I, Reg r) {
  if (I.getType()->isVoidTy()) return;
  // As the C type holds it: registers keep integers zero-extended.
  const unsigned bits = I.getType()->isIntegerTy() ? I.getType()->getIntegerBitWidth() : 64;
  setResult(I, bits < 64 ? bin(BinOp::And, r, constVal((Value(1) << bits) - 1)) : r);
}

void FunctionLowering::resultZero(llvm::CallInst& I) {
  if (!I.getType()->isVoidTy()) setResult(I, constVal(0));
}

// A thread creation: the start routine is argument fnArg, its argument
// argArg; the new thread's id is stored through argument tidArg, in as many
// bytes as the program's pthread_t / thrd_t has (8, the C library's, when
// the declaration does not say; at most 8). An id too large for a 1- or
// 2-byte type is an error naming the type.
bool FunctionLowering::emitSpawn(llvm::CallInst& I, unsigned tidArg, unsigned fnArg, unsigned argArg) {
  const DeclaredObject idType = declaredObject(I.getCalledFunction(), tidArg);
  const unsigned width = !idType.bytes || idType.bytes >= 8 ? 8 : idType.bytes >= 4 ? 4 : idType.bytes >= 2 ? 2 : 1;
  Reg tidAddr = argReg(I, tidArg);
  Reg a = argReg(I, argArg);
  Reg tid = newReg();
  llvm::Value* fnV = I.getArgOperand(fnArg)->stripPointerCasts();
  if (auto* fn = dyn_cast<llvm::Function>(fnV)) {
    auto it = ml_.funcIndex_.find(fn);
    if (it == ml_.funcIndex_.end()) {
      unsupported("thread start routine '" + fn->getName().str() + "' has " + ml_.noDefinition());
      return false;
    }
    Instr& in = emit(Op::Spawn);
    in.a = tid;
    in.b = a;
    in.imm = it->second;
  } else {
    Reg fr = argReg(I, fnArg);
    Instr& in = emit(Op::SpawnInd);
    in.a = tid;
    in.b = a;
    in.c = fr;
  }
  if (width < 4) {
    const int lFits = newLabel(), lTooLarge = newLabel();
    br(cmp(CmpOp::Ult, tid, constVal(Value(1) << (8 * width))), lFits, lTooLarge);
    bind(lTooLarge);
    Instr& f = emit(Op::Fail);
    f.name = ml_.p_.intern("the new thread's id does not fit in " + idType.type + " (" + std::to_string(idType.bytes) +
                           (idType.bytes == 1 ? " byte" : " bytes") + " here)");
    bind(lFits);
  }
  emitStore(tidAddr, tid, width, addrName(I.getArgOperand(tidArg)));
  return true;
}

// The bytes a model keeps in the object argument `arg` points to (the
// layouts at the top of lower_sync.cpp; a lock word is 4 bytes); 0: none.
namespace {
std::pair<unsigned, unsigned> modelObject(Ext k) {  // (argument, bytes)
  switch (k) {
    case Ext::MutexLock: case Ext::MutexUnlock: case Ext::MutexTryLock: case Ext::MtxTryLock:
    case Ext::MutexInit: case Ext::MutexDestroy:
    case Ext::SemInit: case Ext::SemWait: case Ext::SemTryWait: case Ext::SemPost: case Ext::SemGetValue:
    case Ext::RwInit: case Ext::RwRdLock: case Ext::RwTryRdLock: case Ext::RwWrLock: case Ext::RwTryWrLock:
    case Ext::RwUnlock:
    case Ext::Once: case Ext::KeyCreate:
      return {0, 4};
    case Ext::CondWait: case Ext::CondTimedWait:
      return {1, 4};  // the mutex
    case Ext::BarrierInit: case Ext::BarrierWait: case Ext::BarrierDestroy:
      return {0, 16};
    default:
      return {0, 0};
  }
}
}  // namespace

bool FunctionLowering::objectFits(llvm::CallInst& I, Ext k, const std::string& name) {
  const auto [arg, need] = modelObject(k);
  if (!need) return true;
  const DeclaredObject o = declaredObject(I.getCalledFunction(), arg);
  if (!o.bytes || o.bytes >= need) return true;
  unsupported(name + "() on a " + o.type + " of " + std::to_string(o.bytes) + (o.bytes == 1 ? " byte" : " bytes") +
              " (as declared here) is not supported: the model of " + name + "() keeps " + std::to_string(need) +
              " bytes in it (the C library's type, from <pthread.h> / <semaphore.h>, is large enough)");
  return false;
}

// A join of thread argument 0 whose result goes (resultSize bytes) through
// argument 1 unless that is NULL.
void FunctionLowering::emitJoin(llvm::CallInst& I, uint8_t resultSize) {
  Reg t = argReg(I, 0);
  Reg r = newReg();
  Instr& in = emit(Op::Join);
  in.a = r;
  in.b = t;
  llvm::Value* retp = I.getArgOperand(1);
  if (isa<llvm::ConstantPointerNull>(retp)) return;
  Reg p = val(retp);
  int lSt = newLabel(), lEnd = newLabel();
  br(p, lSt, lEnd);
  bind(lSt);
  emitStore(p, r, resultSize, addrName(retp));
  bind(lEnd);
}

void FunctionLowering::lowerThreadCall(llvm::CallInst& I, Ext k, const std::string& name) {
  switch (k) {
    case Ext::PthreadCreate: {
      if (!needArgs(I, 4, name)) return;
      if (!emitSpawn(I, 0, 2, 3)) return;
      markEffect();
      resultZero(I);
      return;
    }
    case Ext::PthreadJoin: {
      if (!needArgs(I, 2, name)) return;
      emitJoin(I, 8);
      markEffect();
      resultZero(I);
      return;
    }
    case Ext::PthreadExit: {
      Instr& in = emit(Op::Exit);
      in.a = I.arg_size() ? argReg(I, 0) : kNoReg;
      return;
    }
    case Ext::PthreadSelf: {
      Instr& in = emit(Op::Self);
      in.a = resultReg(I);
      return;
    }
    case Ext::PthreadEqual:
      if (!needArgs(I, 2, name)) return;
      cmp(CmpOp::Eq, argReg(I, 0), argReg(I, 1), resultReg(I));
      return;
    default:
      break;
  }
}

// pthread_cond_wait(c, m) and its kin: with spurious wake-ups, release and
// re-acquire the mutex (argument 1). Without them (untilSignal): s = the
// condition variable's signal count, read while the mutex is held; unlock;
// await(count != s); lock. A signal or broadcast made after the unlock (or
// between the read and the unlock, which another thread holding the mutex
// cannot do) wakes every waiter that read an older count.
void FunctionLowering::emitCondWait(llvm::CallInst& I, bool untilSignal) {
  Reg m = argReg(I, 1);
  Reg c = kNoReg, seen = kNoReg;
  const uint32_t cName = addrName(I.getArgOperand(0));
  if (untilSignal) {
    c = argReg(I, 0);
    seen = syncLoad(c, 0, cName);
  }
  {
    Instr& u = emit(Op::Unlock);
    u.b = m;
    u.name = addrName(I.getArgOperand(1));
  }
  if (untilSignal)
    syncAwait(cmp(CmpOp::Ne, syncLoad(c, 0, cName), seen),
              "waits on " + syncObject(I, "condition variable") + ", which no thread signals any more");
  {
    Instr& l = emit(Op::Lock);
    l.b = m;
    l.name = addrName(I.getArgOperand(1));
  }
  countSyncRead();
  countSyncRead();
  for (SpinLoop* s : enclosingSpinLoops(I.getParent()))
    if (s->mutex != kNoReg) mov(s->mutex, m);
}

void FunctionLowering::lowerSyncCall(llvm::CallInst& I, Ext k, const std::string& name) {
  switch (k) {
    case Ext::MutexLock:
    case Ext::MutexUnlock: {
      if (!needArgs(I, 1, name)) return;
      Reg m = argReg(I, 0);
      Instr& in = emit(k == Ext::MutexLock ? Op::Lock : Op::Unlock);
      in.b = m;
      in.name = addrName(I.getArgOperand(0));
      markLock(m, k == Ext::MutexLock);
      resultZero(I);
      return;
    }
    case Ext::MutexInit:
    case Ext::MutexDestroy: {
      if (!needArgs(I, 1, name)) return;
      resultZero(I);
      if (k == Ext::MutexInit && !ml_.destroysMutexes_) return;  // a mutex starts unlocked anyway
      // destroy: xchg(lock word, kMutexDestroyed); init: cas(lock word, kMutexDestroyed → 0).
      Reg m = argReg(I, 0);
      Reg v = constVal(k == Ext::MutexDestroy ? kMutexDestroyed : 0);
      Reg expected = k == Ext::MutexInit ? constVal(kMutexDestroyed) : kNoReg;
      Reg old = newReg();
      Instr& in = emit(Op::Rmw);
      in.sub = uint8_t(k == Ext::MutexDestroy ? RmwOp::Xchg : RmwOp::Cas);
      in.a = old;
      in.b = m;
      in.c = v;
      in.d = expected;
      in.size = 4;
      in.name = addrName(I.getArgOperand(0));
      countSyncRead();
      markEffect();
      return;
    }
    case Ext::MutexTryLock: {
      if (!needArgs(I, 1, name)) return;
      Reg m = argReg(I, 0);
      Reg r = I.getType()->isVoidTy() ? newReg() : resultReg(I);
      Instr& in = emit(Op::TryLock);
      in.a = r;
      in.b = m;
      in.name = addrName(I.getArgOperand(0));
      countSyncRead();
      markEffectIf(cmp(CmpOp::Eq, r, constVal(0)));
      return;
    }
    case Ext::CondWait: {
      if (!needArgs(I, 2, name)) return;
      const bool untilSignal = !ml_.opts_.spuriousWakeups;
      if (untilSignal) markEffect();  // every wake-up consumed a signal: never an idle iteration
      emitCondWait(I, untilSignal);
      resultZero(I);
      return;
    }
    case Ext::CondSignal:
    case Ext::CondInit: {
      // Waits that may wake spuriously never look at the condition variable.
      if (!needArgs(I, 1, name)) return;
      resultZero(I);
      if (ml_.opts_.spuriousWakeups) return;
      syncRmw(k == Ext::CondSignal ? RmwOp::Add : RmwOp::Xchg, argReg(I, 0), 0,
              constVal(k == Ext::CondSignal ? 1 : 0), addrName(I.getArgOperand(0)));
      markEffect();
      return;
    }
    default:
      break;
  }
}

void FunctionLowering::lowerHeapCall(llvm::CallInst& I, Ext k, const std::string& name) {
  switch (k) {
    case Ext::Malloc:
    case Ext::Calloc: {
      if (!needArgs(I, k == Ext::Malloc ? 1 : 2, name)) return;
      Reg n = k == Ext::Malloc ? argReg(I, 0) : bin(BinOp::Mul, argReg(I, 0), argReg(I, 1));
      Instr& in = emit(Op::Malloc);
      in.a = resultReg(I);
      in.b = n;
      markEffect();
      return;
    }
    case Ext::Free: {
      if (!needArgs(I, 1, name)) return;
      Instr& in = emit(Op::Free);
      in.b = argReg(I, 0);
      markEffect();
      return;
    }
    default:
      break;
  }
}

// realloc(p, n) as malloc(n), an element-wise copy of min(old size, n)
// bytes, and free(p).
void FunctionLowering::lowerRealloc(llvm::CallInst& I, const std::string& name) {
  // q = malloc(n); copy min(old size, n) bytes element-wise; free(p).
  // The element size is the one the program uses on the new block (loads,
  // stores and GEPs of the result), so the copies hit the same locations.
  if (!needArgs(I, 2, name)) return;
  Reg p = argReg(I, 0), n = argReg(I, 1);
  Reg q = resultReg(I);
  {
    Instr& in = emit(Op::Malloc);
    in.a = q;
    in.b = n;
  }
  unsigned esz = reallocElementSize(I);
  int lCopy = newLabel(), lLoop = newLabel(), lBody = newLabel(), lEnd = newLabel(), lDone = newLabel();
  br(cmp(CmpOp::Ne, p, constVal(0)), lCopy, lDone);
  bind(lCopy);
  Reg old = newReg();
  {
    Instr& in = emit(Op::BlockSize);
    in.a = old;
    in.b = p;
  }
  Reg m = newReg();
  Reg smaller = cmp(CmpOp::Ult, old, n);
  {
    Instr& in = emit(Op::Select);
    in.a = m;
    in.b = smaller;
    in.c = old;
    in.d = n;
  }
  Reg i = newReg();
  mov(i, constVal(0));
  bind(lLoop);
  Reg next = bin(BinOp::Add, i, constVal(esz));
  br(cmp(CmpOp::Ule, next, m), lBody, lEnd);
  bind(lBody);
  Reg v = newReg();
  Reg from = bin(BinOp::Add, p, i);
  {
    Instr& ld = emit(Op::Load);
    ld.a = v;
    ld.b = from;
    ld.size = uint8_t(esz);
  }
  Reg to = bin(BinOp::Add, q, i);
  {
    emitStore(to, v, esz);
  }
  mov(i, next);
  jmp(lLoop);
  bind(lEnd);
  {
    Instr& in = emit(Op::Free);
    in.b = p;
  }
  bind(lDone);
  markEffect();
  return;
}

void FunctionLowering::lowerExternal(llvm::CallInst& I, llvm::Function* callee) {
  std::string name = callee->getName().str();
  Ext k = classifyExternal(name);
  if (!objectFits(I, k, name)) return;
  if (isPrimitive(k)) return lowerPrimitiveCall(I, k, name);
  if (isStringCall(k)) return lowerStringCall(I, k, name);
  switch (k) {
    case Ext::Ignored:  // output: floating-point arguments (printf's %f) are ignored like the others
      for (const llvm::Use& a : I.args())
        if (a->getType()->isFloatingPointTy() && !fpSize(a->getType())) {
          unsupported("argument of " + fpTypeRefusal(a->getType()) + " to " + name);
          return;
        }
      resultZero(I);
      return;
    case Ext::PthreadCreate:
    case Ext::PthreadJoin:
    case Ext::PthreadExit:
    case Ext::PthreadSelf:
    case Ext::PthreadEqual:
      return lowerThreadCall(I, k, name);
    case Ext::MutexLock:
    case Ext::MutexUnlock:
    case Ext::MutexInit:
    case Ext::MutexDestroy:
    case Ext::MutexTryLock:
    case Ext::CondWait:
    case Ext::CondSignal:
    case Ext::CondInit:
      return lowerSyncCall(I, k, name);
    case Ext::Malloc:
    case Ext::Calloc:
    case Ext::Free:
      return lowerHeapCall(I, k, name);
    case Ext::Realloc:
      return lowerRealloc(I, name);
    case Ext::AssertFail:
    case Ext::Abort:
    case Ext::AtomicBegin:
    case Ext::AtomicEnd:
    case Ext::VerifierError:
    case Ext::Exit:
    case Ext::Assume:
      return lowerVerifierCall(I, k, name);
    case Ext::NondetBool:
    case Ext::OptBegin:
    case Ext::NondetSigned:
    case Ext::NondetUnsigned:
      return lowerNondetCall(I, k, name);
    case Ext::SetJmp:
      unsupported("setjmp/longjmp is not supported (" + name + ")");
      return;
    case Ext::XchgAwait:
    case Ext::LoadAwait:
      return lowerAwaitCall(I, k, name);
    case Ext::Time:
    case Ext::ClockGettime:
      return lowerClockCall(I, k, name);
    case Ext::Unknown:
      if (lowerMathCall(I, callee)) return;
      break;
    default:  // isPrimitive / isStringCall kinds: lowered above
      break;
  }
  unsupported("call to external function '" + name + "' is not supported (" + ml_.noDefinition() + ")");
}

// GenMC's __VERIFIER_optional(x) is `if (__VERIFIER_opt_begin()) { x;
// __VERIFIER_assume(0); }`: true when the call's result only decides a
// branch whose taken side, as long as it stays inside the code that side
// dominates, ends at a __VERIFIER_assume(0) on every path (or at an
// unreachable), never leaving that code (break, continue, goto, return).
bool FunctionLowering::optionalEndsBlocked(const llvm::CallInst& I) const {
  if (!I.hasOneUse()) return false;
  auto* br = dyn_cast<llvm::BranchInst>(*I.user_begin());
  if (!br || !br->isConditional() || br->getCondition() != &I) return false;
  const llvm::BasicBlock* taken = br->getSuccessor(0);
  if (taken == br->getSuccessor(1) || !taken->getSinglePredecessor()) return false;
  auto blocks = [](const llvm::BasicBlock* b) {
    for (const llvm::Instruction& x : *b)
      if (auto* c = dyn_cast<llvm::CallInst>(&x))
        if (const llvm::Function* f = c->getCalledFunction(); f && classifyExternal(f->getName()) == Ext::Assume &&
                                                                 c->arg_size() == 1)
          if (auto* k = dyn_cast<llvm::ConstantInt>(c->getArgOperand(0)); k && k->isZero()) return true;
    return false;
  };
  std::vector<const llvm::BasicBlock*> work{taken};
  std::set<const llvm::BasicBlock*> seen{taken};
  while (!work.empty()) {
    const llvm::BasicBlock* b = work.back();
    work.pop_back();
    if (!dt_.dominates(taken, b)) return false;  // left the taken side
    if (blocks(b)) continue;
    const llvm::Instruction* term = b->getTerminator();
    if (!term || isa<llvm::ReturnInst>(term)) return false;
    for (const llvm::BasicBlock* n : llvm::successors(b))
      if (seen.insert(n).second) work.push_back(n);
  }
  return true;
}

// assert failures, abort, exit, the verifier's error / assume calls and
// atomic sections.
void FunctionLowering::lowerVerifierCall(llvm::CallInst& I, Ext k, const std::string& name) {
  switch (k) {
    case Ext::AssertFail: {
      std::string expr;
      if (I.arg_size() >= 1) {
        llvm::APInt off(64, 0);
        const llvm::Value* b = I.getArgOperand(0)->stripAndAccumulateConstantOffsets(dl_, off, true);
        if (auto* g = ml_.resolveGlobal(b); g && g->hasInitializer())
          if (auto* d = dyn_cast<llvm::ConstantDataArray>(g->getInitializer()); d && d->isString())
            expr = d->getAsCString().str();
      }
      Instr& in = emit(Op::Fail);
      in.name = ml_.p_.intern(expr.empty() ? "assertion failed" : "assertion `" + expr + "` failed");
      return;
    }
    case Ext::Abort: {
      if (ml_.opts_.abortEnds) {
        // The end of the program, not an error. Abort has no effect other
        // threads can see, so stopping this thread for good (a plain assume:
        // never a deadlock) loses nothing: any step another thread takes
        // after the abort it could take before it.
        Instr& in = emit(Op::Assume);
        in.a = constVal(0);
        in.sub = 0;
        return;
      }
      Instr& in = emit(Op::Fail);
      in.name = ml_.p_.intern("abort() called");
      return;
    }
    case Ext::AtomicBegin:
      emit(Op::AtomicBegin);
      return;
    case Ext::AtomicEnd:
      emit(Op::AtomicEnd);
      return;
    case Ext::VerifierError: {
      Instr& in = emit(Op::Fail);
      in.name = ml_.p_.intern(name + "() called");
      return;
    }
    case Ext::Exit: {
      Instr& in = emit(Op::Exit);
      in.a = I.arg_size() ? argReg(I, 0) : kNoReg;
      in.sub = kExitProgram;  // the whole program ends (CheckOptions::exitEndsProgram)
      return;
    }
    case Ext::Assume: {
      if (!needArgs(I, 1, name)) return;
      Instr& in = emit(Op::Assume);
      in.a = argReg(I, 0);
      in.sub = 0;
      return;
    }
    default:
      break;
  }
}

// __VERIFIER_nondet_*: one value of the check's nondet range per branch.
void FunctionLowering::lowerNondetCall(llvm::CallInst& I, Ext k, const std::string& name) {
  switch (k) {
    case Ext::NondetBool:
    case Ext::OptBegin: {
      Instr& in = emit(Op::Nondet);
      in.a = I.getType()->isVoidTy() ? kNoReg : resultReg(I);
      in.imm = 1;
      // Never an idle iteration: the next one may choose differently (a
      // thread that may still choose to leave does not spin forever). An
      // optional block's choice is the exception when choosing it always
      // ends the thread blocked: then no choice lets the thread go on.
      if (k != Ext::OptBegin || !optionalEndsBlocked(I)) markEffect();
      return;
    }
    case Ext::NondetSigned:
    case Ext::NondetUnsigned: {
      // Width from the declared result type; values: the check's nondet range
      // within the type (CheckOptions' limits), each one explored.
      llvm::Type* t = I.getType();
      if (fpSize(t)) {
        // float/double: the range's integers, converted (never every value
        // of the type, so a check that ran one is `bounded`).
        Reg n = newReg();
        Instr& in = emit(Op::Nondet);
        in.a = n;
        in.sub = 1;
        in.size = 8;
        in.imm = 1;
        Instr& cv = emit(Op::FConv);
        cv.sub = uint8_t(FConvOp::SIToFP);
        cv.a = resultReg(I);
        cv.b = n;
        cv.size = uint8_t(fpSize(t));
        cv.imm = 64;
        markEffect();
        return;
      }
      const unsigned bits = t->isPointerTy() ? 64 : t->isIntegerTy() ? t->getIntegerBitWidth() : 0;
      if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
        unsupported(name + "() returning " + typeName(t) + " is not supported (integer, pointer, float and double types only)");
        return;
      }
      setResult(I, emitNondet(bits / 8, k == Ext::NondetSigned));
      return;
    }
    default:
      break;
  }
}

// A typed nondet input of `bytes` bytes (Op::Nondet sub = 1): never an
// idle iteration of an enclosing loop (the next one may choose differently).
Reg FunctionLowering::emitNondet(unsigned bytes, bool isSigned) {
  Reg r = newReg();
  Instr& in = emit(Op::Nondet);
  in.a = r;
  in.sub = 1;
  in.size = uint8_t(bytes);
  in.imm = isSigned ? 1 : 0;
  markEffect();
  return r;
}

// time(t) and clock_gettime(clock, ts): the clock's readings are
// nondeterministic inputs (each reading independent of the others), within
// the check's nondet range like __VERIFIER_nondet_long(): time() returns its
// reading and stores it through t unless t is NULL; clock_gettime stores
// tv_sec and tv_nsec (0..999999999) and returns 0.
void FunctionLowering::lowerClockCall(llvm::CallInst& I, Ext k, const std::string& name) {
  const unsigned arg = k == Ext::Time ? 0 : 1;
  if (!needArgs(I, arg + 1, name)) return;
  llvm::Value* out = I.getArgOperand(arg);
  const DeclaredObject o = declaredObject(I.getCalledFunction(), arg);
  const unsigned need = k == Ext::Time ? 8 : 16;  // time_t; struct timespec
  if (o.bytes && o.bytes < need) {
    unsupported(name + "() writing a " + o.type + " of " + std::to_string(o.bytes) +
                " bytes (as declared here) is not supported (the C library's is " + std::to_string(need) + ")");
    return;
  }
  Reg sec = emitNondet(8, true);
  Reg nsec = kNoReg;
  if (k == Ext::ClockGettime) {
    nsec = emitNondet(4, false);
    Reg valid = cmp(CmpOp::Ult, nsec, constVal(1000000000));
    Instr& as = emit(Op::Assume);  // only valid readings
    as.a = valid;
    as.sub = 0;
  }
  if (!isa<llvm::ConstantPointerNull>(out)) {
    Reg p = val(out);
    const uint32_t n = addrName(out);
    const int lStore = newLabel(), lEnd = newLabel();
    br(p, lStore, lEnd);
    bind(lStore);
    emitStore(p, sec, 8, n);
    if (nsec != kNoReg) emitStore(addOffset(p, 8), nsec, 8, n);
    bind(lEnd);
  }
  setCallResult(I, k == Ext::Time ? sec : constVal(0));
}

// Nidhugg's __VERIFIER_xchg_await_<type>(p, v, cond, x) and
// __VERIFIER_load_await_<type>(p, cond, x): the thread waits until *p
// compares to x as cond says, then (xchg) exchanges v into *p; the result
// is the value that satisfied the condition. As Nidhugg defines them, an
// execution in which the condition never holds is blocked (discarded, like
// __VERIFIER_assume), not a deadlock: the exchange (or load) happens, and
// executions where the value it saw does not satisfy the condition are
// discarded (another execution has it happen when it does). cond: bit 0
// greater, 1 equal, 2 less, 3 signed comparison; any other value is an
// error at the call.
void FunctionLowering::lowerAwaitCall(llvm::CallInst& I, Ext k, const std::string& name) {
  const bool xchg = k == Ext::XchgAwait;
  const unsigned condArg = xchg ? 2 : 1;
  if (!needArgs(I, condArg + 2, name)) return;
  llvm::Type* t = I.getArgOperand(condArg + 1)->getType();
  const unsigned bits = t->isIntegerTy() ? t->getIntegerBitWidth() : 0;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    unsupported(name + "() comparing a " + typeName(t) + " is not supported (integers of 1, 2, 4 or 8 bytes)");
    return;
  }
  const unsigned bytes = bits / 8;
  Reg p = argReg(I, 0), c = argReg(I, condArg), x = argReg(I, condArg + 1);
  const uint32_t n = addrName(I.getArgOperand(0));
  {
    const int lOk = newLabel(), lBad = newLabel();
    Reg valid = bin(BinOp::And, cmp(CmpOp::Ult, c, constVal(16)), cmp(CmpOp::Ne, bin(BinOp::And, c, constVal(7)), constVal(0)));
    br(valid, lOk, lBad);
    bind(lBad);
    Instr& f = emit(Op::Fail);
    f.name = ml_.p_.intern(name + "(): invalid condition (bits 0..3: greater, equal, less, signed; one of the first three)");
    bind(lOk);
  }
  const Reg isSigned = bin(BinOp::And, bin(BinOp::LShr, c, constVal(3)), constVal(1));
  auto bit = [&](unsigned b) { return bin(BinOp::And, bin(BinOp::LShr, c, constVal(b)), constVal(1)); };
  // cond(v): (greater && v > x) || (equal && v == x) || (less && v < x), signed when bit 3 is set.
  auto holds = [&](Reg v) {
    Reg sv = sextReg(v, bits), sx = sextReg(x, bits);
    auto pick = [&](CmpOp s, CmpOp u) {
      Reg sr = cmp(s, sv, sx), ur = cmp(u, v, x);
      return bin(BinOp::Or, bin(BinOp::And, isSigned, sr), bin(BinOp::And, bin(BinOp::Xor, isSigned, constVal(1)), ur));
    };
    Reg gt = pick(CmpOp::Sgt, CmpOp::Ugt);
    Reg lt = pick(CmpOp::Slt, CmpOp::Ult);
    Reg eq = cmp(CmpOp::Eq, v, x);
    return bin(BinOp::Or, bin(BinOp::Or, bin(BinOp::And, bit(0), gt), bin(BinOp::And, bit(1), eq)),
               bin(BinOp::And, bit(2), lt));
  };
  const Reg result = xchg ? syncRmw(RmwOp::Xchg, p, 0, argReg(I, 1), n, kNoReg, bytes) : syncLoad(p, 0, n, bytes);
  const Reg satisfied = holds(result);
  Instr& as = emit(Op::Assume);
  as.a = satisfied;
  as.sub = 0;
  if (xchg) markEffect();
  setCallResult(I, result);
}

}  // namespace tsocheck::frontend::lowering

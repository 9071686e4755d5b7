// Internal to the frontend: the lowering of LLVM IR (after mem2reg) to
// engine IR, split by concern over lower_module.cpp (module, globals,
// constants, checks), lower_function.cpp (emission, control flow,
// arithmetic), lower_loops.cpp (escape analysis, spin loops, loop bounds),
// lower_memory.cpp (loads, stores, atomics and fences per model, mem*
// intrinsics) and lower_calls.cpp (calls, intrinsics, libc and pthread
// models). The public entry point is lower.h.
//
// Registers hold every integer zero-extended to 64 bits (loads zero-extend,
// so this is the natural invariant); operations that can leave garbage above
// the value's width (add, sub, mul, shl, signed division, ashr, sext) are
// masked again, and signed operations sign-extend their operands first.
//
// Memory keeps its program order: every load/store/RMW of the LLVM module is
// one engine access. Allocas that provably do not escape become private stack
// slots (no events); the others are shared stack slots.
//
// Spin loops (Nidhugg's load+assume, generalised): every loop is lowered as
// written, but on its back edge the thread checks whether the iteration that
// just ended was *idle*: it changed no memory (no store; no RMW that wrote a
// new value; no successful CAS that changed the value; every mutex it locked
// it also unlocked; no call that had effects) and every header phi gets
// back the value it had. The next iteration would then repeat the same
// computation over possibly newer values, so the thread stops with
// Assume(sub=1) instead of looping. An execution in which the loop exits
// after k idle iterations is equivalent to one where they are removed (they
// only read, and removing reads, fences and silent lock/unlock pairs keeps an
// execution consistent), so nothing is lost; a thread stuck there on the
// newest values spins forever. This covers `while (!flag);`, `while (x != v)
// {}`, do-while, conditions over several loads, `while (xchg(&l, 1));` and
// CAS loops, lock-protected polling, waits whose reads are in a called
// read-only function (the engine counts them: Op::ReadCount around the call),
// retry loops calling a function whose effects did not happen this time (a
// `try_lock()` whose CAS failed: every function marks its effects with
// Op::EffectCount, counted around a call in a loop, with its reads)
// and waits on an _Atomic pointer that Clang passes through a temporary stack
// slot (a store into a slot dead at the header is no effect).
// A loop that only reads (no store, RMW, CAS, fence or call in it) may also
// carry one re-read value (`seen = flag; while (2 <= seen && flag <= 3) seen
// = flag;`): a header phi whose value from the one block entering the loop is
// a load with no visible action after it in that block, and whose value from
// the one latch is a load of the same type and order with no visible action
// after it in the latch. An iteration in which only that phi changed, and
// whose load read the address the entering load read, stops the thread with
// a plain Assume (blocked, never a hang): an execution that goes on from
// there is equivalent to one where the iteration is removed and the load
// that gave the phi its value at the iteration's start read what the
// latch's load read — the two loads are back to back but for the removed
// reads, and the thread's header state is then the same. (A phi that gets
// its old value back is the idle case above, which may be a hang.) Loops around
// pthread_cond_wait get one idle iteration (so that the wait can be followed by a successful
// check) and release the mutex before stopping; without spurious wake-ups
// (FrontendOptions::spuriousWakeups) a wait is an effect, as it consumed a
// signal (a timed wait may always time out: it keeps the idle iteration). Loops with real effects run
// as written (the engine's step limit bounds them), except that
// shared-dependent ones are cut at the loop bound:
//
// Loop bounding (FrontendOptions::loopBound, default 8; 0 = off): a loop is
// *shared-dependent* when whether it goes on depends on what other threads
// write: the condition of one of its exiting branches (or a switch value)
// depends, through SSA data flow inside the loop (phis included, and the
// branches that decide which incoming value a phi takes or whether an
// exiting branch is reached), on a value produced inside the loop by a load
// of non-private memory, an RMW/CAS, pthread_mutex_trylock, pthread_join,
// pthread_self or a call to a defined function. Counting loops over
// registers and private memory never are. A shared-dependent loop gets a
// counter, zeroed on every edge that enters its header from outside and
// incremented on every back edge taken after a non-idle iteration (idle ones
// stop the thread anyway); when it reaches the bound the thread executes
// Op::Cut ("loop at f.c:12 cut after 8 iterations (loop bound)"), so the
// result is `bounded`, never `verified`. A loop with no exit condition at all
// (`for (;;)` without a break) is bounded the same way when an iteration
// touches shared memory, calls a defined function or does a thread/mutex
// operation. A module that never calls
// pthread_create has no other threads: nothing is bounded there.
#pragma once

#include "frontend/lower.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <llvm/ADT/BitVector.h>
#include <llvm/ADT/MapVector.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace tsocheck::frontend::lowering {

// glibc's errno values that the models of pthread and libc calls return.
constexpr Value kEAGAIN = 11, kEBUSY = 16, kEINVAL = 22, kETIMEDOUT = 110;

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

enum class Ext {
  Unknown,
  Ignored,       // output, yields, sleeps, attribute and destroy bookkeeping: result 0
  PthreadCreate,
  PthreadJoin,
  PthreadExit,
  PthreadSelf,
  PthreadEqual,
  MutexLock,
  MutexUnlock,
  MutexTryLock,
  MutexInit,     // a no-op, except in modules that destroy mutexes: makes a destroyed mutex usable again
  MutexDestroy,  // leaves kMutexDestroyed in the lock word: later lock/unlock is a memory error
  CondWait,
  // pthread_cond_signal / _broadcast, cnd_signal / _broadcast, and the
  // initialisers: no-ops while waits may wake spuriously; without spurious
  // wake-ups a signal counts up the condition variable's word (offset 0)
  // and init sets it to 0.
  CondSignal,
  CondInit,
  Malloc,
  Calloc,
  Realloc,
  Free,
  AssertFail,
  Abort,
  Exit,
  Assume,
  VerifierError,
  // Primitives built from loads, RMWs and awaits (lower_sync.cpp):
  BarrierInit, BarrierWait, BarrierDestroy,  // pthread_barrier_*
  SemInit, SemWait, SemTryWait, SemPost, SemGetValue,  // POSIX semaphores
  RwInit, RwRdLock, RwTryRdLock, RwWrLock, RwTryWrLock, RwUnlock,  // pthread_rwlock_*
  Once,                                // pthread_once, call_once
  CondTimedWait,                       // pthread_cond_timedwait, cnd_timedwait
  ThrdCreate, ThrdJoin, MtxTryLock,    // C11 <threads.h> where it differs from pthreads
  KeyCreate, KeySet, KeyGet, KeyDelete,  // thread-specific data: pthread_key_*, *specific, tss_*
  // libc on memory, as loops of one-byte accesses (lower_libc.cpp):
  Memcmp, Strlen, Strcmp, Strncmp, Strcpy, Strncpy, AlignedAlloc, PosixMemalign,
  AtomicBegin,   // __VERIFIER_atomic_begin(): enter an atomic section (Op::AtomicBegin)
  AtomicEnd,     // __VERIFIER_atomic_end(): leave it
  NondetBool,    // __VERIFIER_nondet_bool(): 0 or 1, both explored
  OptBegin,      // __VERIFIER_opt_begin() (GenMC's __VERIFIER_optional): likewise
  NondetSigned,  // __VERIFIER_nondet_int() and other signed types (and pointer): the
                 // check's nondet range within the type (width from the result type)
  NondetUnsigned,// __VERIFIER_nondet_uint() and other unsigned types: likewise
  SetJmp,
  // Nidhugg's await helpers, __VERIFIER_xchg_await_<type>(p, v, cond, x) and
  // __VERIFIER_load_await_<type>(p, cond, x): wait until *p compares to x as
  // cond says (bits 0..3: greater, equal, less, signed), then exchange v
  // into *p / read it; the result is the value that satisfied the condition.
  XchgAwait,
  LoadAwait,
  // Clocks: time() and clock_gettime() read nondeterministic values.
  Time,
  ClockGettime,
};

enum class AsmKind { Nothing, Full, StoreStore, Unsupported };

// Debug-info file names may be relative to the compilation directory: kept
// as they are when that directory is ours, else made absolute.
std::string debugPath(llvm::StringRef file, llvm::StringRef dir);
Ext classifyExternal(llvm::StringRef n);
// What a declared function's pointer parameter `arg` points to, as the
// program declares it (its C type's size and spelling; clang_driver.cpp
// records them as the parameter attributes tsocheck-object-size / -type).
// bytes = 0: unknown (no prototype, not a pointer, an incomplete type).
struct DeclaredObject {
  uint64_t bytes = 0;
  std::string type;
};
DeclaredObject declaredObject(const llvm::Function* f, unsigned arg);
// The primitives lower_sync.cpp builds (they write shared memory; lowerPrimitiveCall).
bool isPrimitive(Ext k);
// The libc functions lower_libc.cpp builds (lowerStringCall).
bool isStringCall(Ext k);
// Fences and compiler barriers written as inline assembly.
AsmKind classifyAsm(const llvm::InlineAsm* ia);
AsmKind classifyX86Intrinsic(llvm::StringRef name);  // _mm_mfence & co.; Unsupported: another one
bool isIgnorableIntrinsic(llvm::Intrinsic::ID id);
bool isStdStream(const llvm::GlobalVariable* g);
std::string typeName(llvm::Type* t);
const llvm::Value* baseObject(const llvm::Value* v);
std::string diPath(const llvm::DIType* t, uint64_t off, int depth = 0);
// Floating point (lower_float.cpp): 4 for float, 8 for double, 0 for the
// types that are refused (long double, __float128, _Float16, ...), whose
// refusal fpTypeRefusal words.
unsigned fpSize(const llvm::Type* t);
std::string fpTypeRefusal(llvm::Type* t);
bool isFloatIntrinsic(llvm::Intrinsic::ID id);
// <2 x float>: how the x86-64 ABI passes and returns a struct of two floats
// (struct { float x, y; } by value). Moved as one 8-byte bit pattern (loads,
// stores, arguments, returns, phis, selects); arithmetic on it is refused.
bool isFloatPair(const llvm::Type* t);  // llvm.fabs, sqrt, floor, ..., fma, fmuladd

class ModuleLowering;

struct SpinLoop {
  llvm::Loop* loop = nullptr;
  Reg flag = kNoReg;     // nonzero: this iteration had an effect
  Reg reads = kNoReg;    // shared reads made by this iteration (Assume.b)
  Reg pending = kNoReg;  // mutex locked in this iteration and not yet unlocked (0: none)
  Reg idle = kNoReg;     // cond_wait loops: an idle iteration already happened
  Reg mutex = kNoReg;    // cond_wait loops: the mutex of the last wait (0: none)
  bool hasCondWait = false;
  Reg bound = kNoReg;    // shared-dependent loops: non-idle iterations of this loop instance
  uint32_t boundMsg = 0; // Program::strings: "loop at f.c:12 cut after 8 iterations (loop bound)"
  SourceLoc boundLoc;    // the loop's for/while/do line
  // A loop that only reads (no store, RMW, fence or call) may carry one
  // value it re-reads: a header phi whose value from outside is a load that
  // ends the entering block's visible actions, and whose value from the
  // latch a load of the same kind that ends the iteration's. An iteration
  // that changes that phi only (and reads the same address) is as redundant
  // as an idle one (lowering.h, spin-loop rules).
  const llvm::PHINode* refresh = nullptr;
  llvm::LoadInst* refreshEntry = nullptr;  // the load outside the loop
  llvm::LoadInst* refreshLatch = nullptr;  // the load in the latch
};

class FunctionLowering {
 public:
  // Whether a pointer is used other than to access memory through it (an
  // alloca's or a thread-local copy's address then escapes).
  static bool escapes(const llvm::Value* v, int depth);
  FunctionLowering(ModuleLowering& ml, llvm::Function& f, uint32_t index);
  void run();
  bool atomicSection() const;  // a __VERIFIER_atomic_* function: its body is one atomic section

 private:
  // Emission.
  Instr& emit(Op op);
  // A store of `size` bytes of `value` to `at` (name: address name hint); the caller may set its sub.
  Instr& emitStore(Reg at, Reg value, unsigned size, uint32_t name = 0);
  Reg newReg() { return Reg(out_->numRegs++); }
  int newLabel() {
    labels_.push_back(-1);
    return int(labels_.size() - 1);
  }
  void bind(int l) { labels_[l] = int64_t(body_.size()); }
  void jmp(int l);
  void br(Reg c, int t, int f);
  Reg constVal(uint64_t v);
  Reg val(llvm::Value* v);  // register holding v (materialises constants)
  Reg bin(BinOp op, Reg a, Reg b, Reg dst = kNoReg);
  Reg cmp(CmpOp op, Reg a, Reg b, Reg dst = kNoReg);
  void mov(Reg dst, Reg src);
  void maskInPlace(Reg r, unsigned bits);
  Reg sextReg(Reg src, unsigned bits);
  Reg addOffset(Reg base, int64_t off);

  // Analysis.
  void computePrivateAllocas();
  // Whether ptr points into a private thread-local copy (its accesses are no events).
  bool privateTls(const llvm::Value* ptr) const;
  void findSpinLoops();
  void findRefresh(SpinLoop& s);
  bool sharedDependent(llvm::Loop* L);
  // Parts of sharedDependent: the private slot ptr points into (nullptr:
  // none); whether other threads can change what ptr points to; whether an
  // iteration of a loop without an exit condition touches shared state.
  const llvm::AllocaInst* privateSlot(const llvm::Value* ptr) const;
  bool sharedMemory(const llvm::Value* ptr) const;
  bool iterationTouchesShared(llvm::Loop* L) const;
  bool slotLiveAtHeader(const llvm::AllocaInst* a, llvm::Loop* L);
  bool errorPath(const llvm::BasicBlock* b);
  std::vector<SpinLoop*> enclosingSpinLoops(const llvm::BasicBlock* bb);
  void markEffect();                 // the current instruction changed state (loops, and the call's count)
  void markEffectIf(Reg changed);    // ... if changed != 0
  void markCallEffect(Reg changed);  // Op::EffectCount mark (kNoReg: unconditional)
  void markLock(Reg m, bool lock);   // lock/unlock: balanced pairs are not effects

  // Lowering.
  void lowerBlock(llvm::BasicBlock* bb, llvm::BasicBlock* next);
  void lowerInst(llvm::Instruction& I);
  bool lowerComputation(llvm::Instruction& I);  // lowerInst's families; false: not one of them
  bool lowerMemoryInst(llvm::Instruction& I);
  bool lowerControlInst(llvm::Instruction& I);
  void lowerBinary(llvm::BinaryOperator& I);
  void lowerICmp(llvm::ICmpInst& I);
  void lowerCast(llvm::CastInst& I);
  void lowerGEP(llvm::GetElementPtrInst& I);
  // Floating point (lower_float.cpp).
  void lowerFloatBinary(llvm::Instruction& I);  // fadd, fsub, fmul, fdiv, frem, fneg
  void lowerFCmp(llvm::FCmpInst& I);
  void lowerFloatCast(llvm::CastInst& I);       // sitofp, uitofp, fptosi, fptoui, fpext, fptrunc
  bool lowerFloatIntrinsic(llvm::CallInst& I, llvm::Intrinsic::ID id);  // false: not one
  bool lowerMathCall(llvm::CallInst& I, llvm::Function* callee);  // libm fabs, sqrt, ...; false: not one
  void lowerLoad(llvm::LoadInst& I);
  void lowerStore(llvm::StoreInst& I);
  void lowerRmw(llvm::AtomicRMWInst& I);
  void lowerCmpXchg(llvm::AtomicCmpXchgInst& I);
  void lowerFence(llvm::FenceInst& I);
  void lowerCall(llvm::CallInst& I);
  void lowerIntrinsic(llvm::CallInst& I, llvm::Function* callee);
  void lowerExternal(llvm::CallInst& I, llvm::Function* callee);
  // lowerExternal's models, by group (name: the callee, for messages).
  void lowerThreadCall(llvm::CallInst& I, Ext k, const std::string& name);  // pthread_create/join/exit/self/equal
  void lowerSyncCall(llvm::CallInst& I, Ext k, const std::string& name);    // mutexes, spinlocks, cond_wait
  void lowerHeapCall(llvm::CallInst& I, Ext k, const std::string& name);    // malloc, calloc, free
  void lowerRealloc(llvm::CallInst& I, const std::string& name);
  void lowerVerifierCall(llvm::CallInst& I, Ext k, const std::string& name);  // assert, abort, exit, assume, ...
  void lowerNondetCall(llvm::CallInst& I, Ext k, const std::string& name);    // __VERIFIER_nondet_*
  bool optionalEndsBlocked(const llvm::CallInst& I) const;  // __VERIFIER_opt_begin's use
  bool emitSpawn(llvm::CallInst& I, unsigned tidArg, unsigned fnArg, unsigned argArg);  // false: refused
  // False (refused, naming the type) when the object a model writes through
  // argument 0 is declared smaller than the model's layout.
  bool objectFits(llvm::CallInst& I, Ext k, const std::string& name);
  void lowerAwaitCall(llvm::CallInst& I, Ext k, const std::string& name);  // __VERIFIER_{xchg,load}_await_*
  void lowerClockCall(llvm::CallInst& I, Ext k, const std::string& name);  // time, clock_gettime
  Reg emitNondet(unsigned bytes, bool isSigned);  // a typed nondet input (the check's range within the type)
  // Release and re-acquire the mutex (argument 1); with untilSignal, wait in
  // between for a signal or broadcast on the condition variable (argument 0).
  void emitCondWait(llvm::CallInst& I, bool untilSignal);
  void emitJoin(llvm::CallInst& I, uint8_t resultSize);  // join argument 0, result through argument 1
  // Barriers, semaphores, rwlocks, once, timed waits, C11 threads (lower_sync.cpp).
  void lowerPrimitiveCall(llvm::CallInst& I, Ext k, const std::string& name);
  // lowerPrimitiveCall by family (lower_sync.cpp).
  void lowerBarrier(llvm::CallInst& I, Ext k, const std::string& name);
  void lowerSemaphore(llvm::CallInst& I, Ext k, const std::string& name);
  void lowerRwLock(llvm::CallInst& I, Ext k, const std::string& name);
  void lowerOtherPrimitive(llvm::CallInst& I, Ext k, const std::string& name);
  void lowerThreadSpecific(llvm::CallInst& I, Ext k, const std::string& name);
  std::string syncObject(llvm::CallInst& I, const char* kind);
  Reg syncLoad(Reg obj, int64_t off, uint32_t name, unsigned size = 4);  // a field of a primitive
  Reg syncRmw(RmwOp op, Reg obj, int64_t off, Reg operand, uint32_t name, Reg expected = kNoReg,
              unsigned size = 4);
  void syncAwait(Reg cond, const std::string& what);
  // A memory error `what` (a misuse of a primitive, Op::Assert sub=1) unless r[ok] != 0.
  void syncMisuse(Reg ok, const std::string& what);
  // memcmp, strlen, strcmp, strncmp, strcpy, strncpy, aligned_alloc, posix_memalign (lower_libc.cpp).
  void lowerStringCall(llvm::CallInst& I, Ext k, const std::string& name);
  void lowerStrlen(llvm::CallInst& I, const std::string& name);
  void lowerStringCompare(llvm::CallInst& I, Ext k, const std::string& name);  // memcmp, strcmp, strncmp
  void lowerStringCopy(llvm::CallInst& I, Ext k, const std::string& name);     // strcpy, strncpy
  void lowerAlignedAlloc(llvm::CallInst& I, Ext k, const std::string& name);   // aligned_alloc, posix_memalign
  Reg loadByte(Reg base, Reg index, uint32_t name);
  void storeByte(Reg base, Reg index, Reg value, uint32_t name);  // Op::Assume sub=3: a wait; never ending is a deadlock
  Reg argReg(llvm::CallInst& I, unsigned i);
  bool needArgs(llvm::CallInst& I, unsigned n, const std::string& name);  // else unsupported
  void resultZero(llvm::CallInst& I);  // a non-void call's result is 0
  void setCallResult(llvm::CallInst& I, Reg r);  // a non-void call's result, cut to its C type
  void lowerMemIntrinsic(llvm::MemIntrinsic& I);
  using MemLeaves = std::vector<std::pair<uint64_t, unsigned>>;  // (offset, size) of scalar accesses
  bool flattenType(llvm::Type* t, uint64_t base, MemLeaves& out);
  llvm::Type* objectTypeAt(const llvm::Value* p, uint64_t& off);
  bool memIntrinsicLeaves(llvm::MemIntrinsic& I, uint64_t len, MemLeaves& leaves);
  void lowerMemset(llvm::MemSetInst& ms, Reg dst, const MemLeaves& leaves);
  void lowerMemTransfer(llvm::MemTransferInst& mt, Reg dst, const MemLeaves& leaves);
  void lowerBranch(llvm::BranchInst& I, llvm::BasicBlock* next);
  void lowerSwitch(llvm::SwitchInst& I);
  void countRead(const llvm::Value* ptr);
  void countSyncRead();  // lock/unlock/trylock: the engine counts them as reads
  void emitSpinStop(SpinLoop* spin, Reg diff);
  void emitBoundCheck(SpinLoop* spin);
  void emitFence(std::optional<FenceKind> k);  // none: nothing (the model needs no fence there)
  void emitAsmFence(AsmKind kind);  // an instruction's fence: mfence, sfence, lfence, pause (inline asm, intrinsics)
  int edgeTarget(llvm::BasicBlock* from, llvm::BasicBlock* to);  // label to jump to
  bool edgeNeedsCode(llvm::BasicBlock* from, llvm::BasicBlock* to);
  void emitEdgeCode(llvm::BasicBlock* from, llvm::BasicBlock* to);
  void setResult(llvm::Instruction& I, Reg r);
  Reg resultReg(llvm::Instruction& I);
  uint32_t addrName(const llvm::Value* ptr);
  void unsupported(const std::string& msg);
  bool checkTypes(llvm::Instruction& I);
  unsigned accessSize(llvm::Type* t, const char* what);
  unsigned reallocElementSize(llvm::CallInst& I);

  ModuleLowering& ml_;
  llvm::Function& f_;
  uint32_t index_;
  Function* out_;
  const llvm::DataLayout& dl_;
  std::vector<Instr> prologue_, body_;
  std::vector<int64_t> labels_;
  struct Fixup { size_t pc; int label; bool second; };
  std::vector<Fixup> fixups_;
  std::unordered_map<const llvm::Value*, Reg> regs_;
  std::unordered_map<const llvm::Value*, Reg> success_;  // cmpxchg → success flag register
  std::map<uint64_t, Reg> consts_;
  std::map<std::pair<int64_t, int64_t>, Reg> globalAddrs_;
  std::map<uint32_t, Reg> funcAddrs_;
  std::unordered_map<const llvm::BasicBlock*, int> blockLabel_;
  std::unordered_set<const llvm::AllocaInst*> private_;
  // The function (or a function it calls directly) has an acquire / release
  // fence: its relaxed atomics count as acquiring / releasing (ir.h kRelaxedAccess).
  bool acquireFence_ = false, releaseFence_ = false;
  void findFences();
  // Memory-order flags for the race detector: a Load / Store's `sub` (ir.h
  // kPlainAccess, kRelaxedAccess), an Rmw's `imm` (kRmwNoAcquire, kRmwNoRelease).
  uint8_t accessOrderFlags(bool atomic, bool isVolatile, llvm::AtomicOrdering o, bool store) const;
  // Instr::order of a load or store (a plain one: NonAtomic).
  static MemOrder accessOrder(bool atomic, bool isVolatile, llvm::AtomicOrdering o);
  int64_t rmwOrderFlags(llvm::AtomicOrdering o) const;
  llvm::DominatorTree dt_;
  std::unique_ptr<llvm::LoopInfo> li_;
  std::unordered_map<const llvm::Loop*, SpinLoop> spins_;
  std::map<std::pair<const llvm::AllocaInst*, const llvm::Loop*>, bool> slotLive_;
  SourceLoc loc_;
  const llvm::Instruction* cur_ = nullptr;
  // Conditional-branch edges whose code is emitted after the block.
  struct PendingEdge { int label; llvm::BasicBlock* from; llvm::BasicBlock* to; };
  std::vector<PendingEdge> pendingEdges_;
  bool failed_ = false;
};

class ModuleLowering {
 public:
  ModuleLowering(llvm::Module& m, const FrontendOptions& opts,
                 const std::map<std::string, AnnotatedDecl>& decls, FrontendResult& res)
      : m_(m), dl_(m.getDataLayout()), opts_(opts), decls_(decls), res_(res), p_(res.module.program) {}

  void run();

  // Shared with FunctionLowering.
  llvm::Module& m_;
  const llvm::DataLayout& dl_;
  const FrontendOptions& opts_;
  const std::map<std::string, AnnotatedDecl>& decls_;
  FrontendResult& res_;
  Program& p_;
  std::unordered_map<const llvm::Function*, uint32_t> funcIndex_;
  std::unordered_map<const llvm::GlobalVariable*, uint32_t> globalIndex_;
  // Thread-local variables: index into Program::threadLocals.
  std::unordered_map<const llvm::GlobalVariable*, uint32_t> tlsIndex_;
  // Thread-specific data (pthread_key_*, tss_*), when the module uses it: the
  // shared key counter (a global) and each thread's values, kMaxKeys slots of
  // 8 bytes in its private thread-local window.
  std::optional<uint32_t> keysGlobal_, keyValuesLocal_;
  static constexpr uint32_t kMaxKeys = 64;
  std::unordered_map<const llvm::GlobalVariable*, const llvm::DIType*> globalDIType_;
  bool errors_ = false;  // errors that concern the whole file
  std::set<std::string> seenErrors_;
  // Errors inside one function or one global's initialiser: only the checks
  // that reach it are refused.
  const llvm::Value* errorOwner_ = nullptr;
  std::vector<std::pair<const llvm::Value*, Diagnostic>> ownedErrors_;

  void error(const SourceLoc& loc, const std::string& msg);
  // "no definition in this file", naming the other files linked or searched.
  std::string noDefinition() const;
  void diag(const std::string& severity, const std::string& file, uint32_t line, uint32_t col,
            const std::string& msg);
  SourceLoc locOf(const llvm::Instruction* I, const llvm::Function* f);
  SourceLoc locOfFunction(const llvm::Function* f);
  // Integer/address value of a constant (addresses of globals and functions).
  bool evalConst(const llvm::Constant* c, uint64_t& v, std::string& err);
  bool writeConst(const llvm::Constant* c, uint8_t* buf, uint64_t size, std::string& err);
  bool constantBytes(const llvm::GlobalVariable* g, uint64_t off, unsigned size, uint64_t& v);
  const llvm::GlobalVariable* resolveGlobal(const llvm::Value* v);
  // Whether calling f can change memory other threads (or the caller) see.
  bool readOnly(const llvm::Function* f);
  bool spawnsThreads_ = false;  // some lowered function calls pthread_create
  bool destroysMutexes_ = false;  // some lowered function calls pthread_mutex_destroy

 private:
  std::unordered_map<const llvm::Function*, int> readOnly_;  // 0 = in progress/no, 1 = yes
  std::unordered_set<const llvm::GlobalVariable*> usedGlobals_;  // referenced from lowered code
  std::unordered_map<const llvm::GlobalVariable*, uint64_t> oversized_;  // globals above kMaxGlobalBytes
  static constexpr uint64_t kMaxGlobalBytes = uint64_t(256) << 20;
  void findChecks(std::vector<std::pair<llvm::Function*, std::string>>& checks);
  // --main: a `void main.harness(void)` that calls the file's main (argc = 1,
  // argv = {"prog", NULL}); nullptr when there is no usable main.
  llvm::Function* makeMainHarness();
  llvm::Function* harness_ = nullptr;
  llvm::Function* harnessOf_ = nullptr;  // the main it calls
  void collectReachable(const std::vector<llvm::Function*>& roots, std::vector<llvm::Function*>& out,
                        std::unordered_set<const llvm::Value*>* reached = nullptr);
  void layoutGlobals();
  void fillInitialisers();
};

}  // namespace tsocheck::frontend::lowering

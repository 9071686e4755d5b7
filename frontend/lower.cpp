// LLVM IR (after mem2reg) → engine IR.
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
// it also unlocked; no call that may have effects) and every header phi gets
// back the value it had. The next iteration would then repeat the same
// computation over possibly newer values, so the thread stops with
// Assume(sub=1) instead of looping. An execution in which the loop exits
// after k idle iterations is equivalent to one where they are removed (they
// only read, and removing reads, fences and silent lock/unlock pairs keeps an
// execution consistent), so nothing is lost; a thread stuck there on the
// newest values spins forever. This covers `while (!flag);`, `while (x != v)
// {}`, do-while, conditions over several loads, `while (xchg(&l, 1));` and
// CAS loops, lock-protected polling, waits whose reads are in a called
// read-only function (the engine counts them: Op::ReadCount around the call)
// and waits on an _Atomic pointer that Clang passes through a temporary stack
// slot (a store into a slot dead at the header is no effect). Loops around
// pthread_cond_wait get one idle iteration (so that the wait can be followed by a successful
// check) and release the mutex before stopping. Loops with real effects run
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
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace tsocheck::frontend {
namespace {

// Debug-info file names may be relative to the compilation directory. Keep
// them as they are when that directory is ours (they then read the way the
// user named the file); otherwise make them absolute.
std::string debugPath(llvm::StringRef file, llvm::StringRef dir) {
  if (file.empty() || llvm::sys::path::is_absolute(file) || dir.empty()) return file.str();
  llvm::SmallString<256> cwd;
  if (!llvm::sys::fs::current_path(cwd) && cwd == dir) return file.str();
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, file);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p.str());
}

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

// ---------------------------------------------------------------------------
// Classification of external functions and inline assembly.

enum class Ext {
  Unknown,
  Ignored,       // output, yields, sleeps, attribute/condvar bookkeeping: result 0
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
  Malloc,
  Calloc,
  Realloc,
  Free,
  AssertFail,
  Abort,
  Exit,
  Assume,
  VerifierError,
  SetJmp,
};

Ext classifyExternal(llvm::StringRef n) {
  static const std::unordered_map<std::string, Ext> table = {
      {"pthread_create", Ext::PthreadCreate},
      {"pthread_join", Ext::PthreadJoin},
      {"pthread_exit", Ext::PthreadExit},
      {"pthread_self", Ext::PthreadSelf},
      {"pthread_equal", Ext::PthreadEqual},
      {"pthread_mutex_lock", Ext::MutexLock},
      {"pthread_mutex_unlock", Ext::MutexUnlock},
      {"pthread_mutex_trylock", Ext::MutexTryLock},
      {"pthread_spin_lock", Ext::MutexLock},
      {"pthread_spin_unlock", Ext::MutexUnlock},
      {"pthread_spin_trylock", Ext::MutexTryLock},
      {"pthread_cond_wait", Ext::CondWait},
      {"pthread_mutex_init", Ext::MutexInit},
      {"pthread_mutex_destroy", Ext::MutexDestroy},
      {"pthread_mutexattr_init", Ext::Ignored},
      {"pthread_mutexattr_destroy", Ext::Ignored},
      {"pthread_mutexattr_settype", Ext::Ignored},
      {"pthread_spin_init", Ext::MutexInit},
      {"pthread_spin_destroy", Ext::MutexDestroy},
      {"pthread_cond_init", Ext::Ignored},
      {"pthread_cond_destroy", Ext::Ignored},
      {"pthread_cond_signal", Ext::Ignored},
      {"pthread_cond_broadcast", Ext::Ignored},
      {"pthread_attr_init", Ext::Ignored},
      {"pthread_attr_destroy", Ext::Ignored},
      {"pthread_attr_setdetachstate", Ext::Ignored},
      {"pthread_yield", Ext::Ignored},
      {"sched_yield", Ext::Ignored},
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
      {"__assert_fail", Ext::AssertFail},
      {"__assert_rtn", Ext::AssertFail},
      {"__assert", Ext::AssertFail},
      {"abort", Ext::Abort},
      {"exit", Ext::Exit},
      {"_exit", Ext::Exit},
      {"_Exit", Ext::Exit},
      {"__VERIFIER_assume", Ext::Assume},
      {"__tsocheck_assume", Ext::Assume},
      {"__VERIFIER_error", Ext::VerifierError},
      {"reach_error", Ext::VerifierError},
      {"setjmp", Ext::SetJmp},
      {"_setjmp", Ext::SetJmp},
      {"__sigsetjmp", Ext::SetJmp},
      {"sigsetjmp", Ext::SetJmp},
      {"longjmp", Ext::SetJmp},
      {"_longjmp", Ext::SetJmp},
      {"siglongjmp", Ext::SetJmp},
      {"__longjmp_chk", Ext::SetJmp},
  };
  auto it = table.find(n.str());
  return it == table.end() ? Ext::Unknown : it->second;
}

enum class AsmKind { Nothing, Full, StoreStore, Unsupported };

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

bool isStdStream(const llvm::GlobalVariable* g) {
  llvm::StringRef n = g->getName();
  return g->isDeclaration() && (n == "stdin" || n == "stdout" || n == "stderr");
}

std::string typeName(llvm::Type* t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return os.str();
}

// Base object of a pointer through casts and GEPs (any offsets).
const llvm::Value* baseObject(const llvm::Value* v) {
  for (int i = 0; i < 64; ++i) {
    if (auto* g = dyn_cast<llvm::GEPOperator>(v)) v = g->getPointerOperand();
    else if (auto* c = dyn_cast<llvm::BitCastOperator>(v)) v = c->getOperand(0);
    else if (auto* a = dyn_cast<llvm::AddrSpaceCastOperator>(v)) v = a->getOperand(0);
    else break;
  }
  return v;
}

// "x.f[2]" for byte offset `off` inside a variable of debug type `t`.
std::string diPath(const llvm::DIType* t, uint64_t off, int depth = 0) {
  if (!t || depth > 16) return "";
  if (auto* d = dyn_cast<llvm::DIDerivedType>(t)) {
    auto tag = d->getTag();
    if (tag == llvm::dwarf::DW_TAG_typedef || tag == llvm::dwarf::DW_TAG_const_type ||
        tag == llvm::dwarf::DW_TAG_volatile_type || tag == llvm::dwarf::DW_TAG_atomic_type ||
        tag == llvm::dwarf::DW_TAG_restrict_type)
      return diPath(d->getBaseType(), off, depth + 1);
    return off == 0 ? "" : "+" + std::to_string(off);
  }
  auto* c = dyn_cast<llvm::DICompositeType>(t);
  if (!c) return off == 0 ? "" : "+" + std::to_string(off);
  if (c->getTag() == llvm::dwarf::DW_TAG_array_type) {
    const llvm::DIType* et = c->getBaseType();
    // Strip qualifiers to get the element size.
    uint64_t esz = 0;
    for (const llvm::DIType* x = et; x; ) {
      esz = x->getSizeInBits() / 8;
      if (esz) break;
      auto* dd = dyn_cast<llvm::DIDerivedType>(x);
      x = dd ? dd->getBaseType() : nullptr;
    }
    if (!esz) return "";
    // Multi-dimensional arrays: one DISubrange per dimension.
    std::vector<uint64_t> dims;
    for (auto* e : c->getElements())
      if (auto* sr = dyn_cast_or_null<llvm::DISubrange>(e)) {
        auto cnt = sr->getCount();
        if (auto* ci = dyn_cast_if_present<llvm::ConstantInt*>(cnt)) dims.push_back(ci->getZExtValue());
        else dims.push_back(0);
      }
    if (dims.empty()) dims.push_back(0);
    std::vector<uint64_t> stride(dims.size(), esz);
    for (size_t i = dims.size() - 1; i > 0; --i) stride[i - 1] = stride[i] * std::max<uint64_t>(dims[i], 1);
    std::string s;
    uint64_t rest = off;
    for (size_t i = 0; i < dims.size(); ++i) {
      s += "[" + std::to_string(rest / stride[i]) + "]";
      rest %= stride[i];
    }
    return s + diPath(et, rest, depth + 1);
  }
  if (c->getTag() == llvm::dwarf::DW_TAG_structure_type || c->getTag() == llvm::dwarf::DW_TAG_union_type) {
    for (auto* e : c->getElements()) {
      auto* m = dyn_cast_or_null<llvm::DIDerivedType>(e);
      if (!m || m->getTag() != llvm::dwarf::DW_TAG_member) continue;
      uint64_t mo = m->getOffsetInBits() / 8, ms = m->getSizeInBits() / 8;
      if (off >= mo && off < mo + std::max<uint64_t>(ms, 1))
        return "." + m->getName().str() + diPath(m->getBaseType(), off - mo, depth + 1);
    }
  }
  return off == 0 ? "" : "+" + std::to_string(off);
}


// ---------------------------------------------------------------------------

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
};

class FunctionLowering {
 public:
  FunctionLowering(ModuleLowering& ml, llvm::Function& f, uint32_t index);
  void run();

 private:
  // Emission.
  Instr& emit(Op op);
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
  bool escapes(const llvm::Value* v, int depth);
  void findSpinLoops();
  bool sharedDependent(llvm::Loop* L);
  bool slotLiveAtHeader(const llvm::AllocaInst* a, llvm::Loop* L);
  bool errorPath(const llvm::BasicBlock* b);
  std::vector<SpinLoop*> enclosingSpinLoops(const llvm::BasicBlock* bb);
  void markEffect();                 // the current instruction changed state
  void markEffectIf(Reg changed);    // ... if changed != 0
  void markLock(Reg m, bool lock);   // lock/unlock: balanced pairs are not effects

  // Lowering.
  void lowerBlock(llvm::BasicBlock* bb, llvm::BasicBlock* next);
  void lowerInst(llvm::Instruction& I);
  void lowerBinary(llvm::BinaryOperator& I);
  void lowerICmp(llvm::ICmpInst& I);
  void lowerCast(llvm::CastInst& I);
  void lowerGEP(llvm::GetElementPtrInst& I);
  void lowerLoad(llvm::LoadInst& I);
  void lowerStore(llvm::StoreInst& I);
  void lowerRmw(llvm::AtomicRMWInst& I);
  void lowerCmpXchg(llvm::AtomicCmpXchgInst& I);
  void lowerFence(llvm::FenceInst& I);
  void lowerCall(llvm::CallInst& I);
  void lowerIntrinsic(llvm::CallInst& I, llvm::Function* callee);
  void lowerExternal(llvm::CallInst& I, llvm::Function* callee);
  void lowerMemIntrinsic(llvm::MemIntrinsic& I);
  void lowerBranch(llvm::BranchInst& I, llvm::BasicBlock* next);
  void lowerSwitch(llvm::SwitchInst& I);
  void countRead(const llvm::Value* ptr);
  void countSyncRead();  // lock/unlock/trylock: the engine counts them as reads
  void emitSpinStop(SpinLoop* spin, Reg diff);
  void emitBoundCheck(SpinLoop* spin);
  void emitFenceForStore(llvm::AtomicOrdering o, bool before);
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
  std::unordered_map<const llvm::GlobalVariable*, const llvm::DIType*> globalDIType_;
  bool errors_ = false;  // errors that concern the whole file
  std::set<std::string> seenErrors_;
  // Errors inside one function or one global's initialiser: only the checks
  // that reach it are refused.
  const llvm::Value* errorOwner_ = nullptr;
  std::vector<std::pair<const llvm::Value*, Diagnostic>> ownedErrors_;

  void error(const SourceLoc& loc, const std::string& msg);
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
  void collectReachable(const std::vector<llvm::Function*>& roots, std::vector<llvm::Function*>& out,
                        std::unordered_set<const llvm::Value*>* reached = nullptr);
  void layoutGlobals();
  void fillInitialisers();
};

// ---------------------------------------------------------------------------
// ModuleLowering

void ModuleLowering::diag(const std::string& severity, const std::string& file, uint32_t line, uint32_t col,
                          const std::string& msg) {
  Diagnostic d;
  d.file = file;
  d.line = line;
  d.column = col;
  d.severity = severity;
  d.message = msg;
  res_.diagnostics.push_back(std::move(d));
}

void ModuleLowering::error(const SourceLoc& loc, const std::string& msg) {
  std::string file = loc.file < p_.files.size() ? p_.files[loc.file] : std::string();
  if (errorOwner_) ownedErrors_.push_back({errorOwner_, Diagnostic{file, loc.line, loc.column, "error", msg}});
  else errors_ = true;
  std::string key = file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + ":" + msg;
  if (!seenErrors_.insert(key).second) return;
  diag("error", file, loc.line, loc.column, msg);
}

SourceLoc ModuleLowering::locOfFunction(const llvm::Function* f) {
  SourceLoc l;
  if (!f) return l;
  if (auto* sp = f->getSubprogram()) {
    l.file = p_.fileIndex(debugPath(sp->getFilename(), sp->getDirectory()));
    l.line = sp->getLine();
    l.column = 1;
  }
  auto it = decls_.find(f->getName().str());
  if (it != decls_.end() && it->second.line) {
    l.file = p_.fileIndex(it->second.file);
    l.line = it->second.line;
    l.column = it->second.column;
  }
  return l;
}

SourceLoc ModuleLowering::locOf(const llvm::Instruction* I, const llvm::Function* f) {
  if (I) {
    const llvm::DebugLoc& d = I->getDebugLoc();
    if (d && d.getLine()) {
      SourceLoc l;
      l.file = p_.fileIndex(debugPath(d->getFilename(), d->getDirectory()));
      l.line = d.getLine();
      l.column = d.getCol();
      return l;
    }
  }
  return locOfFunction(f);
}

const llvm::GlobalVariable* ModuleLowering::resolveGlobal(const llvm::Value* v) {
  if (auto* a = dyn_cast<llvm::GlobalAlias>(v)) v = a->getAliaseeObject();
  return dyn_cast_or_null<llvm::GlobalVariable>(v);
}

bool ModuleLowering::evalConst(const llvm::Constant* c, uint64_t& v, std::string& err) {
  if (auto* ci = dyn_cast<llvm::ConstantInt>(c)) {
    if (ci->getBitWidth() > 64) {
      err = "integers wider than 64 bits are not supported";
      return false;
    }
    v = ci->getZExtValue();
    return true;
  }
  if (isa<llvm::ConstantPointerNull>(c) || isa<llvm::UndefValue>(c) || isa<llvm::ConstantAggregateZero>(c)) {
    v = 0;
    return true;
  }
  if (isa<llvm::ConstantFP>(c)) {
    err = "floating point is not supported";
    return false;
  }
  if (auto* a = dyn_cast<llvm::GlobalAlias>(c)) return evalConst(a->getAliasee(), v, err);
  if (auto* g = dyn_cast<llvm::GlobalVariable>(c)) {
    auto it = globalIndex_.find(g);
    if (it == globalIndex_.end()) {
      err = "global '" + g->getName().str() + "' is not laid out";
      return false;
    }
    v = p_.globals[it->second].addr;
    return true;
  }
  if (auto* fn = dyn_cast<llvm::Function>(c)) {
    auto it = funcIndex_.find(fn);
    // A function never reached from a check: its address is never used to call.
    v = it == funcIndex_.end() ? 0 : layout::kFunctionBase + Value(it->second) * 16;
    return true;
  }
  if (auto* ce = dyn_cast<llvm::ConstantExpr>(c)) {
    if (auto* gep = dyn_cast<llvm::GEPOperator>(ce)) {
      llvm::APInt off(64, 0);
      if (!gep->accumulateConstantOffset(dl_, off)) {
        err = "unsupported constant address expression";
        return false;
      }
      uint64_t base = 0;
      if (!evalConst(cast<llvm::Constant>(gep->getPointerOperand()), base, err)) return false;
      v = base + off.getZExtValue();
      return true;
    }
    unsigned bits = ce->getType()->isIntegerTy() ? ce->getType()->getIntegerBitWidth() : 64;
    auto mask = [&](uint64_t x) { return bits >= 64 ? x : (x & ((uint64_t(1) << bits) - 1)); };
    switch (ce->getOpcode()) {
      case llvm::Instruction::PtrToInt:
      case llvm::Instruction::IntToPtr:
      case llvm::Instruction::BitCast:
      case llvm::Instruction::AddrSpaceCast:
      case llvm::Instruction::Trunc:
      case llvm::Instruction::ZExt: {
        uint64_t x = 0;
        if (!evalConst(ce->getOperand(0), x, err)) return false;
        v = mask(x);
        return true;
      }
      case llvm::Instruction::Add:
      case llvm::Instruction::Sub:
      case llvm::Instruction::Mul: {
        uint64_t x = 0, y = 0;
        if (!evalConst(ce->getOperand(0), x, err) || !evalConst(ce->getOperand(1), y, err)) return false;
        uint64_t r = ce->getOpcode() == llvm::Instruction::Add   ? x + y
                     : ce->getOpcode() == llvm::Instruction::Sub ? x - y
                                                                 : x * y;
        v = mask(r);
        return true;
      }
      default:
        break;
    }
    err = std::string("unsupported constant expression (") + ce->getOpcodeName() + ")";
    return false;
  }
  if (isa<llvm::BlockAddress>(c)) {
    err = "label addresses (computed goto) are not supported";
    return false;
  }
  err = "unsupported constant of type " + typeName(c->getType());
  return false;
}

bool ModuleLowering::writeConst(const llvm::Constant* c, uint8_t* buf, uint64_t size, std::string& err) {
  llvm::Type* t = c->getType();
  if (isa<llvm::ConstantAggregateZero>(c) || isa<llvm::ConstantPointerNull>(c) || isa<llvm::UndefValue>(c))
    return true;  // buffers start zeroed
  auto putInt = [&](const llvm::APInt& x) {
    uint64_t n = std::min<uint64_t>(size, dl_.getTypeStoreSize(t));
    llvm::APInt w = x.zextOrTrunc(unsigned(std::max<uint64_t>(n, 1) * 8));
    for (uint64_t i = 0; i < n; ++i) buf[i] = uint8_t(w.extractBitsAsZExtValue(8, unsigned(i * 8)));
  };
  if (auto* ci = dyn_cast<llvm::ConstantInt>(c)) {
    putInt(ci->getValue());
    return true;
  }
  if (auto* cf = dyn_cast<llvm::ConstantFP>(c)) {  // bytes only; arithmetic is rejected elsewhere
    putInt(cf->getValueAPF().bitcastToAPInt());
    return true;
  }
  if (auto* cds = dyn_cast<llvm::ConstantDataSequential>(c)) {
    uint64_t esz = dl_.getTypeAllocSize(cds->getElementType());
    for (unsigned i = 0; i < cds->getNumElements(); ++i)
      if ((i + 1) * esz <= size && !writeConst(cds->getElementAsConstant(i), buf + i * esz, esz, err)) return false;
    return true;
  }
  if (auto* ca = dyn_cast<llvm::ConstantArray>(c)) {
    uint64_t esz = dl_.getTypeAllocSize(ca->getType()->getElementType());
    for (unsigned i = 0; i < ca->getNumOperands(); ++i)
      if ((i + 1) * esz <= size && !writeConst(ca->getOperand(i), buf + i * esz, esz, err)) return false;
    return true;
  }
  if (auto* cs = dyn_cast<llvm::ConstantStruct>(c)) {
    const llvm::StructLayout* sl = dl_.getStructLayout(cs->getType());
    for (unsigned i = 0; i < cs->getNumOperands(); ++i) {
      uint64_t off = sl->getElementOffset(i);
      uint64_t esz = dl_.getTypeAllocSize(cs->getOperand(i)->getType());
      if (off + esz <= size && !writeConst(cs->getOperand(i), buf + off, esz, err)) return false;
    }
    return true;
  }
  if (isa<llvm::ConstantVector>(c)) {
    err = "vector constants are not supported";
    return false;
  }
  uint64_t v = 0;
  if (!evalConst(c, v, err)) return false;
  uint64_t n = std::min<uint64_t>({size, dl_.getTypeStoreSize(t), 8});
  for (uint64_t i = 0; i < n; ++i) buf[i] = uint8_t(v >> (8 * i));
  return true;
}

bool ModuleLowering::constantBytes(const llvm::GlobalVariable* g, uint64_t off, unsigned size, uint64_t& v) {
  if (!g->isConstant() || !g->hasDefinitiveInitializer()) return false;
  auto it = globalIndex_.find(g);
  if (it == globalIndex_.end()) return false;
  const Global& gl = p_.globals[it->second];
  if (off + size > gl.size) return false;
  v = 0;
  for (unsigned i = 0; i < size; ++i) v |= uint64_t(off + i < gl.init.size() ? gl.init[off + i] : 0) << (8 * i);
  return true;
}

bool ModuleLowering::readOnly(const llvm::Function* f) {
  auto it = readOnly_.find(f);
  if (it != readOnly_.end()) return it->second == 1;
  readOnly_[f] = 0;  // recursion: not read-only
  if (f->isDeclaration()) return false;
  auto local = [&](const llvm::Value* ptr) {
    auto* a = dyn_cast<llvm::AllocaInst>(baseObject(ptr));
    return a && a->getFunction() == f;
  };
  for (const llvm::BasicBlock& bb : *f)
    for (const llvm::Instruction& I : bb) {
      if (auto* st = dyn_cast<llvm::StoreInst>(&I)) {
        if (!local(st->getPointerOperand())) return false;
      } else if (auto* rmw = dyn_cast<llvm::AtomicRMWInst>(&I)) {
        if (!local(rmw->getPointerOperand())) return false;
      } else if (auto* cx = dyn_cast<llvm::AtomicCmpXchgInst>(&I)) {
        if (!local(cx->getPointerOperand())) return false;
      } else if (auto* call = dyn_cast<llvm::CallInst>(&I)) {
        if (auto* ia = dyn_cast<llvm::InlineAsm>(call->getCalledOperand())) {
          if (classifyAsm(ia) == AsmKind::Unsupported) return false;
          continue;
        }
        const llvm::Function* callee = call->getCalledFunction();
        if (!callee) return false;
        if (callee->isIntrinsic()) {
          if (isIgnorableIntrinsic(callee->getIntrinsicID())) continue;
          if (auto* mi = dyn_cast<llvm::MemIntrinsic>(call); mi && local(mi->getRawDest())) continue;
          auto id = callee->getIntrinsicID();
          if (id == llvm::Intrinsic::expect || id == llvm::Intrinsic::expect_with_probability) continue;
          return false;
        }
        if (callee->isDeclaration()) {
          switch (classifyExternal(callee->getName())) {
            case Ext::Ignored:
            case Ext::PthreadSelf:
            case Ext::PthreadEqual:
            case Ext::AssertFail:
            case Ext::Abort:
            case Ext::VerifierError:
            case Ext::Assume:
              continue;
            default:
              return false;
          }
        }
        if (!readOnly(callee)) return false;
      }
    }
  readOnly_[f] = 1;
  return true;
}

void ModuleLowering::findChecks(std::vector<std::pair<llvm::Function*, std::string>>& checks) {
  llvm::GlobalVariable* ann = m_.getGlobalVariable("llvm.global.annotations");
  if (!ann || !ann->hasInitializer()) return;
  auto* arr = dyn_cast<llvm::ConstantArray>(ann->getInitializer());
  if (!arr) return;
  for (unsigned i = 0; i < arr->getNumOperands(); ++i) {
    auto* entry = dyn_cast<llvm::ConstantStruct>(arr->getOperand(i));
    if (!entry || entry->getNumOperands() < 2) continue;
    auto* fn = dyn_cast<llvm::Function>(entry->getOperand(0)->stripPointerCasts());
    auto* strg = dyn_cast<llvm::GlobalVariable>(entry->getOperand(1)->stripPointerCasts());
    if (!fn || !strg || !strg->hasInitializer()) continue;
    auto* data = dyn_cast<llvm::ConstantDataArray>(strg->getInitializer());
    if (!data || !data->isString()) continue;
    std::string text = data->getAsCString().str();
    if (text.rfind("tsocheck", 0) != 0) continue;
    std::string rest = text.substr(8);
    if (!rest.empty() && !std::isspace(static_cast<unsigned char>(rest[0]))) continue;  // "tsocheckfoo"
    size_t b = rest.find_first_not_of(" \t\n");
    size_t e = rest.find_last_not_of(" \t\n");
    rest = b == std::string::npos ? "" : rest.substr(b, e - b + 1);
    checks.push_back({fn, rest});
  }
}

void ModuleLowering::collectReachable(const std::vector<llvm::Function*>& roots, std::vector<llvm::Function*>& out,
                                      std::unordered_set<const llvm::Value*>* reached) {
  std::unordered_set<const llvm::Function*> seen;
  std::unordered_set<const llvm::Constant*> seenConst;
  std::vector<llvm::Function*> work;
  auto addFn = [&](llvm::Function* f) {
    if (f->isDeclaration() || f->isIntrinsic()) return;
    if (seen.insert(f).second) work.push_back(f);
  };
  std::function<void(const llvm::Constant*)> walkConst = [&](const llvm::Constant* c) {
    if (!seenConst.insert(c).second) return;
    if (auto* f = dyn_cast<llvm::Function>(c)) {
      addFn(const_cast<llvm::Function*>(f));
      return;
    }
    if (auto* a = dyn_cast<llvm::GlobalAlias>(c)) {
      walkConst(a->getAliasee());
      return;
    }
    if (auto* g = dyn_cast<llvm::GlobalVariable>(c)) {
      usedGlobals_.insert(g);
      if (reached) reached->insert(g);
      if (g->hasInitializer()) walkConst(g->getInitializer());
      return;
    }
    for (const llvm::Use& u : c->operands())
      if (auto* cc = dyn_cast<llvm::Constant>(u.get())) walkConst(cc);
  };
  for (llvm::Function* f : roots) addFn(f);
  while (!work.empty()) {
    llvm::Function* f = work.back();
    work.pop_back();
    for (llvm::BasicBlock& bb : *f)
      for (llvm::Instruction& I : bb)
        for (const llvm::Use& u : I.operands())
          if (auto* c = dyn_cast<llvm::Constant>(u.get())) walkConst(c);
  }
  for (llvm::Function& f : m_)
    if (seen.count(&f)) out.push_back(&f);
  if (reached) reached->insert(seen.begin(), seen.end());
}

void ModuleLowering::layoutGlobals() {
  Addr next = layout::kGlobalBase;
  std::map<std::string, int> nameCount;
  std::vector<std::pair<llvm::GlobalVariable*, std::string>> gvs;
  for (llvm::GlobalVariable& g : m_.globals()) {
    if (g.getName().starts_with("llvm.")) continue;
    if (g.hasSection() && g.getSection() == "llvm.metadata") continue;
    std::string name = g.getName().str();
    llvm::SmallVector<llvm::DIGlobalVariableExpression*, 1> dis;
    g.getDebugInfo(dis);
    for (auto* e : dis)
      if (auto* v = e->getVariable()) {
        if (!v->getName().empty()) name = v->getName().str();
        globalDIType_[&g] = v->getType();
        break;
      }
    nameCount[name]++;
    gvs.push_back({&g, name});
  }
  for (auto& [g, name] : gvs) {
    llvm::Type* t = g->getValueType();
    uint64_t size = t->isSized() ? dl_.getTypeAllocSize(t).getFixedValue() : 8;
    uint64_t align = std::max<uint64_t>(dl_.getPreferredAlign(g).value(), 1);
    next = (next + align - 1) / align * align;
    Global gl;
    gl.name = nameCount[name] > 1 ? g->getName().str() : name;  // static locals clash: use "f.x"
    gl.addr = next;
    if (size > kMaxGlobalBytes) {
      // Memory is materialised per byte: refuse (in fillInitialisers, at the
      // definition, when a check uses it) instead of allocating gigabytes.
      oversized_[g] = size;
      size = 1;
    }
    gl.size = uint32_t(size);
    gl.init.assign(size, 0);
    llvm::Type* et = t;
    while (auto* at = dyn_cast<llvm::ArrayType>(et)) et = at->getElementType();
    if (et != t && et->isSized()) gl.elemSize = uint32_t(dl_.getTypeAllocSize(et).getFixedValue());
    globalIndex_[g] = uint32_t(p_.globals.size());
    p_.globals.push_back(std::move(gl));
    next += std::max<uint64_t>(size, 1);
  }
}

void ModuleLowering::fillInitialisers() {
  for (const llvm::GlobalVariable& gv : m_.globals()) {  // module order: stable diagnostics
    const llvm::GlobalVariable* g = &gv;
    auto it = globalIndex_.find(g);
    auto big = oversized_.find(g);
    if (it == globalIndex_.end() || (!g->hasInitializer() && big == oversized_.end())) continue;
    Global& gl = p_.globals[it->second];
    std::string err, what = "initialiser of '" + gl.name + "': ";
    bool bad = false;
    if (big != oversized_.end()) {
      what = "global '" + gl.name + "' is too large: ";
      err = std::to_string(big->second) + " bytes; tsocheck supports globals of at most " +
            std::to_string(kMaxGlobalBytes >> 20) + " MiB";
      bad = true;
    } else {
      bad = !writeConst(g->getInitializer(), gl.init.data(), gl.init.size(), err);
    }
    if (bad && usedGlobals_.count(g)) {
      errorOwner_ = g;
      // Only an error if some check can see the global; report it at the definition.
      SourceLoc l;
      llvm::SmallVector<llvm::DIGlobalVariableExpression*, 1> dis;
      g->getDebugInfo(dis);
      if (!dis.empty() && dis[0]->getVariable()) {
        l.file = p_.fileIndex(debugPath(dis[0]->getVariable()->getFilename(), dis[0]->getVariable()->getDirectory()));
        l.line = dis[0]->getVariable()->getLine();
        l.column = 1;
      }
      error(l, what + err);
      errorOwner_ = nullptr;
    }
  }
}

void ModuleLowering::run() {
  std::vector<std::pair<llvm::Function*, std::string>> checks;
  findChecks(checks);
  // Annotated in the source but not emitted: a static function nothing uses.
  for (const auto& [name, decl] : decls_) {
    bool emitted = false;
    for (auto& c : checks) emitted = emitted || c.first->getName() == name;
    if (!emitted) {
      errors_ = true;
      diag("error", decl.file, decl.line, decl.column,
           "check function '" + name + "' was not emitted by the compiler (a static function nothing calls): "
           "make it non-static or add __attribute__((used)) (the TSOCHECK macro does)");
    }
  }
  if (checks.empty()) {
    if (errors_) {
      res_.ok = false;
      return;
    }
    std::string file = m_.getSourceFileName();
    diag("error", file, 0, 0,
         "no check function found: annotate a `void NAME(void)` function with TSOCHECK "
         "(__attribute__((annotate(\"tsocheck\"))), see tsocheck.h)");
    res_.ok = false;
    return;
  }
  std::vector<llvm::Function*> roots;
  for (auto& [fn, text] : checks) {
    if (fn->isDeclaration()) {
      error(locOfFunction(fn), "check function '" + fn->getName().str() + "' has no body");
      continue;
    }
    if (!fn->getReturnType()->isVoidTy() || fn->arg_size() != 0 || fn->isVarArg()) {
      error(locOfFunction(fn), "check function '" + fn->getName().str() + "' must have the signature void " +
                                   fn->getName().str() + "(void)");
      continue;
    }
    roots.push_back(fn);
  }
  std::vector<llvm::Function*> funcs;
  collectReachable(roots, funcs);
  for (llvm::Function* f : funcs) {
    uint32_t idx = uint32_t(p_.functions.size());
    funcIndex_[f] = idx;
    Function fn;
    fn.name = f->getName().str();
    fn.numParams = uint32_t(f->arg_size());
    fn.numRegs = fn.numParams;
    fn.loc = locOfFunction(f);
    p_.functions.push_back(std::move(fn));
  }
  layoutGlobals();
  fillInitialisers();
  for (llvm::Function* f : funcs)
    for (llvm::BasicBlock& bb : *f)
      for (llvm::Instruction& I : bb)
        if (auto* call = dyn_cast<llvm::CallInst>(&I))
          if (auto* callee = dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
              callee && callee->isDeclaration()) {
            Ext k = classifyExternal(callee->getName());
            if (k == Ext::PthreadCreate) spawnsThreads_ = true;
            if (k == Ext::MutexDestroy) destroysMutexes_ = true;
          }
  for (llvm::Function* f : funcs) {
    errorOwner_ = f;
    FunctionLowering fl(*this, *f, funcIndex_[f]);
    fl.run();
    errorOwner_ = nullptr;
  }
  for (auto& [fn, text] : checks) {
    auto it = funcIndex_.find(fn);
    if (it == funcIndex_.end()) continue;
    CheckFunction cf;
    cf.name = fn->getName().str();
    SourceLoc l = locOfFunction(fn);
    cf.file = l.file < p_.files.size() ? p_.files[l.file] : "";
    cf.line = l.line;
    cf.column = l.column;
    cf.annotation = text;
    if (!ownedErrors_.empty()) {
      std::unordered_set<const llvm::Value*> reached;
      std::vector<llvm::Function*> ignored;
      collectReachable({fn}, ignored, &reached);
      for (const auto& [owner, d] : ownedErrors_)
        if (reached.count(owner)) {
          cf.blockedBy = d;
          break;
        }
    }
    res_.module.checks.push_back(cf);
    res_.module.entryOf.push_back(it->second);
  }
  if (!res_.module.entryOf.empty()) p_.entry = res_.module.entryOf.front();
  res_.module.model = opts_.model;
  res_.module.loopBound = opts_.loopBound;
  res_.ok = !errors_ && ownedErrors_.empty() && !res_.module.checks.empty();
  res_.fileErrors = errors_;
}

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
                    "' is used, but it has no definition in this file");
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
            if (k == Ext::CondWait) s.hasCondWait = true;
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
    spins_[L] = s;
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

// Whether whether L goes on can depend on what other threads write (see the
// comment at the top): a backward walk from the exit conditions over the
// values (and gating branches) computed inside the loop.
bool FunctionLowering::sharedDependent(llvm::Loop* L) {
  // One iteration as a graph: the loop's blocks plus two sinks, kCont (the
  // back edge: next iteration) and kLeave (out of the loop). Edges into an
  // error path (a failed assert) are dropped: they end the execution as a
  // violation and never decide how often the loop runs.
  const std::vector<llvm::BasicBlock*>& blocks = L->getBlocks();
  const size_t n = blocks.size(), kCont = n, kLeave = n + 1;
  std::unordered_map<const llvm::BasicBlock*, size_t> index;
  for (size_t i = 0; i < n; ++i) index[blocks[i]] = i;
  std::vector<std::vector<size_t>> succs(n);
  bool leaves = false;
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
  // Post-dominators within the iteration (iterative, from "everything").
  std::vector<llvm::BitVector> pdom(n + 2, llvm::BitVector(unsigned(n + 2), true));
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
  // Blocks whose branch decides whether b runs in an iteration (control
  // dependence, transitively): x has a successor that b post-dominates, and
  // b does not post-dominate x.
  auto controlDeps = [&](const llvm::BasicBlock* b, std::vector<const llvm::BasicBlock*>& out) {
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
  };
  auto privateBase = [&](const llvm::Value* ptr) -> const llvm::AllocaInst* {
    auto* a = dyn_cast<llvm::AllocaInst>(baseObject(ptr));
    return a && private_.count(a) ? a : nullptr;
  };
  // Memory whose contents no other thread can change: private slots, constants, std streams.
  auto sharedMemory = [&](const llvm::Value* ptr) {
    if (privateBase(ptr)) return false;
    if (auto* g = ml_.resolveGlobal(baseObject(ptr)))
      if (isStdStream(g) || (g->isConstant() && g->hasDefinitiveInitializer())) return false;
    return true;
  };
  if (!leaves) {
    // No exit condition at all (`for (;;)`, `while (1)` without a break; it
    // ends only by exit()/abort()/a callee): bounded when an iteration touches
    // what other threads see — a shared access, a call to a defined function,
    // a thread or mutex operation — so that a runaway worker is cut at the
    // loop bound like other shared-dependent loops rather than at the engine's
    // event limit. Loops over registers and private memory run to the step limit.
    for (llvm::BasicBlock* bb : L->blocks())
      for (llvm::Instruction& I : *bb) {
        if (auto* ld = dyn_cast<llvm::LoadInst>(&I)) {
          if (sharedMemory(ld->getPointerOperand())) return true;
        } else if (auto* st = dyn_cast<llvm::StoreInst>(&I)) {
          if (sharedMemory(st->getPointerOperand())) return true;
        } else if (isa<llvm::AtomicRMWInst>(&I) || isa<llvm::AtomicCmpXchgInst>(&I)) {
          const llvm::Value* ptr = isa<llvm::AtomicRMWInst>(&I)
                                       ? cast<llvm::AtomicRMWInst>(&I)->getPointerOperand()
                                       : cast<llvm::AtomicCmpXchgInst>(&I)->getPointerOperand();
          if (sharedMemory(ptr)) return true;
        } else if (auto* mi = dyn_cast<llvm::MemIntrinsic>(&I)) {
          if (sharedMemory(mi->getRawDest())) return true;
          if (auto* mt = dyn_cast<llvm::MemTransferInst>(mi); mt && sharedMemory(mt->getRawSource())) return true;
        } else if (auto* call = dyn_cast<llvm::CallInst>(&I)) {
          auto* callee = dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
          if (!callee || !callee->isDeclaration()) return true;  // indirect, inline asm or defined
          if (callee->isIntrinsic()) continue;
          switch (classifyExternal(callee->getName())) {
            case Ext::Unknown:
            case Ext::PthreadCreate:
            case Ext::PthreadJoin:
            case Ext::MutexLock:
            case Ext::MutexUnlock:
            case Ext::MutexTryLock:
            case Ext::CondWait:
            case Ext::Realloc:
            case Ext::Free:
              return true;
            default:
              continue;  // output, malloc, pthread_self, error paths: nothing another thread sees
          }
        }
      }
    return false;
  }
  // Instructions of the loop that write private slots (a load from one depends on them).
  std::unordered_map<const llvm::AllocaInst*, std::vector<const llvm::Instruction*>> writers;
  for (llvm::BasicBlock* bb : L->blocks())
    for (llvm::Instruction& I : *bb) {
      const llvm::Value* ptr = nullptr;
      if (auto* st = dyn_cast<llvm::StoreInst>(&I)) ptr = st->getPointerOperand();
      else if (auto* rmw = dyn_cast<llvm::AtomicRMWInst>(&I)) ptr = rmw->getPointerOperand();
      else if (auto* cx = dyn_cast<llvm::AtomicCmpXchgInst>(&I)) ptr = cx->getPointerOperand();
      else if (auto* mi = dyn_cast<llvm::MemIntrinsic>(&I)) ptr = mi->getRawDest();
      else if (auto* call = dyn_cast<llvm::CallInst>(&I)) {
        for (const llvm::Use& a : call->args())
          if (a->getType()->isPointerTy())
            if (const llvm::AllocaInst* al = privateBase(a.get())) writers[al].push_back(&I);
        continue;
      }
      if (ptr)
        if (const llvm::AllocaInst* al = privateBase(ptr)) writers[al].push_back(&I);
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
    auto it = index.find(x);
    if (it == index.end() || succs[it->second].size() < 2 || !seenCtl.insert(x).second) return;  // no choice
    const llvm::Instruction* t = x->getTerminator();
    if (auto* b = dyn_cast<llvm::BranchInst>(t); b && b->isConditional()) push(b->getCondition());
    else if (auto* sw = dyn_cast<llvm::SwitchInst>(t)) push(sw->getCondition());
  };
  auto pushControl = [&](const llvm::BasicBlock* b) {
    if (!index.count(b)) return;  // an unreachable predecessor
    std::vector<const llvm::BasicBlock*> deps;
    controlDeps(b, deps);
    for (const llvm::BasicBlock* x : deps) pushTerm(x);
  };
  std::function<void(const llvm::AllocaInst*)> pushSlot = [&](const llvm::AllocaInst* al) {
    if (!seenSlot.insert(al).second) return;
    auto it = writers.find(al);
    if (it == writers.end()) return;
    for (const llvm::Instruction* w : it->second) {
      if (auto* mt = dyn_cast<llvm::MemTransferInst>(w)) {
        if (sharedMemory(mt->getRawSource())) shared = true;
        push(mt->getRawSource());
        if (const llvm::AllocaInst* src = privateBase(mt->getRawSource())) pushSlot(src);
        push(mt->getRawDest());
      } else if (auto* call = dyn_cast<llvm::CallInst>(w); call && !isa<llvm::MemIntrinsic>(w)) {
        // pthread_create stores the new thread's id (deterministic); printf("%p") writes nothing.
        auto* callee = dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
        Ext k = callee && callee->isDeclaration() ? classifyExternal(callee->getName()) : Ext::Unknown;
        if (callee && callee->isIntrinsic() && isIgnorableIntrinsic(callee->getIntrinsicID())) continue;
        if (k != Ext::PthreadCreate && k != Ext::Ignored) shared = true;  // pthread_join's result, ...
      } else {
        for (const llvm::Use& u : w->operands()) push(u.get());  // stored values, addresses
      }
    }
  };

  for (size_t i = 0; i < n; ++i)
    if (std::find(succs[i].begin(), succs[i].end(), kLeave) != succs[i].end()) {  // an exiting block
      pushTerm(blocks[i]);
      pushControl(blocks[i]);
    }
  while (!work.empty() && !shared) {
    auto* I = dyn_cast<llvm::Instruction>(work.back());
    work.pop_back();
    if (!I || !L->contains(I)) continue;  // constants, arguments, values fixed before the loop
    if (auto* ld = dyn_cast<llvm::LoadInst>(I)) {
      if (sharedMemory(ld->getPointerOperand())) return true;
      push(ld->getPointerOperand());
      if (const llvm::AllocaInst* al = privateBase(ld->getPointerOperand())) pushSlot(al);
      continue;
    }
    if (isa<llvm::AtomicRMWInst>(I) || isa<llvm::AtomicCmpXchgInst>(I)) {
      const llvm::Value* ptr = isa<llvm::AtomicRMWInst>(I) ? cast<llvm::AtomicRMWInst>(I)->getPointerOperand()
                                                            : cast<llvm::AtomicCmpXchgInst>(I)->getPointerOperand();
      if (sharedMemory(ptr)) return true;
      for (const llvm::Use& u : I->operands()) push(u.get());
      if (const llvm::AllocaInst* al = privateBase(ptr)) pushSlot(al);
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
      switch (classifyExternal(callee->getName())) {
        case Ext::MutexTryLock:
        case Ext::PthreadJoin:
        case Ext::PthreadSelf:
        case Ext::Unknown:
          return true;
        case Ext::PthreadEqual:
        case Ext::Malloc:
        case Ext::Calloc:
          for (const llvm::Use& a : call->args()) push(a.get());
          continue;
        default:
          continue;  // result 0 (output, mutexes, cond_wait, ...) or no result
      }
    }
    for (const llvm::Use& u : I->operands()) push(u.get());
  }
  return shared;
}

void FunctionLowering::markEffect() {
  for (SpinLoop* s : enclosingSpinLoops(cur_->getParent())) {
    Instr& in = emit(Op::Const);
    in.a = s->flag;
    in.imm = 1;
  }
}

void FunctionLowering::markEffectIf(Reg changed) {
  for (SpinLoop* s : enclosingSpinLoops(cur_->getParent())) bin(BinOp::Or, s->flag, changed, s->flag);
}

// pending == 0 → lock(m) makes pending = m; unlock(pending) clears it. Any
// other lock/unlock (nested, or of a mutex held before the iteration) is an effect.
void FunctionLowering::markLock(Reg m, bool lock) {
  countSyncRead();
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

// ---------------------------------------------------------------------------
// Lowering

unsigned FunctionLowering::accessSize(llvm::Type* t, const char* what) {
  if (t->isFloatingPointTy()) {
    unsupported(std::string("floating point is not supported (") + what + " of " + typeName(t) + ")");
    return 0;
  }
  if (!(t->isIntegerTy() || t->isPointerTy())) {
    unsupported(std::string(what) + " of type " + typeName(t) + " is not supported (only integers and pointers)");
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
  auto bad = [](llvm::Type* t) {
    return t->isFPOrFPVectorTy() || (t->isVectorTy());
  };
  if (isa<llvm::CallInst>(I)) {  // memcpy of structs holding doubles is fine; calls check themselves
    if (I.getType()->isFPOrFPVectorTy()) {
      unsupported("floating point is not supported (call returning " + typeName(I.getType()) + ")");
      return false;
    }
    return true;
  }
  bool fp = bad(I.getType());
  for (const llvm::Use& u : I.operands()) fp = fp || bad(u->getType());
  if (fp) {
    bool vec = I.getType()->isVectorTy();
    for (const llvm::Use& u : I.operands()) vec = vec || u->getType()->isVectorTy();
    if (vec && !I.getType()->isFPOrFPVectorTy())
      unsupported(std::string("vector operations are not supported (") + I.getOpcodeName() + ")");
    else
      unsupported(std::string("floating point is not supported (") + I.getOpcodeName() + ")");
    return false;
  }
  if (I.getType()->isIntegerTy() && I.getType()->getIntegerBitWidth() > 64) {
    unsupported("integers wider than 64 bits are not supported (" + typeName(I.getType()) + ")");
    return false;
  }
  return true;
}

void FunctionLowering::run() {
  for (unsigned i = 0; i < f_.arg_size(); ++i) regs_[f_.getArg(i)] = Reg(i);
  loc_ = out_->loc;
  dt_.recalculate(f_);
  li_ = std::make_unique<llvm::LoopInfo>(dt_);
  computePrivateAllocas();
  findSpinLoops();

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
  for (llvm::PHINode& phi : to->phis()) {
    if (phi.getType()->isStructTy()) {
      unsupported("aggregate phi values are not supported");
      continue;
    }
    llvm::Value* in = phi.getIncomingValueForBlock(from);
    if (!in || isa<llvm::UndefValue>(in)) continue;
    copies.push_back({resultReg(phi), val(in)});
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
      return;
    case llvm::Instruction::ICmp:
      lowerICmp(cast<llvm::ICmpInst>(I));
      return;
    case llvm::Instruction::Trunc:
    case llvm::Instruction::ZExt:
    case llvm::Instruction::SExt:
    case llvm::Instruction::PtrToInt:
    case llvm::Instruction::IntToPtr:
    case llvm::Instruction::BitCast:
    case llvm::Instruction::AddrSpaceCast:
      lowerCast(cast<llvm::CastInst>(I));
      return;
    case llvm::Instruction::Select: {
      auto& s = cast<llvm::SelectInst>(I);
      if (s.getType()->isStructTy()) break;
      Instr& in = emit(Op::Select);
      in.a = resultReg(I);
      in.b = val(s.getCondition());
      in.c = val(s.getTrueValue());
      in.d = val(s.getFalseValue());
      return;
    }
    case llvm::Instruction::Freeze:
      setResult(I, val(I.getOperand(0)));
      return;
    case llvm::Instruction::GetElementPtr:
      lowerGEP(cast<llvm::GetElementPtrInst>(I));
      return;
    case llvm::Instruction::Load:
      lowerLoad(cast<llvm::LoadInst>(I));
      return;
    case llvm::Instruction::Store:
      lowerStore(cast<llvm::StoreInst>(I));
      return;
    case llvm::Instruction::AtomicRMW:
      lowerRmw(cast<llvm::AtomicRMWInst>(I));
      return;
    case llvm::Instruction::AtomicCmpXchg:
      lowerCmpXchg(cast<llvm::AtomicCmpXchgInst>(I));
      return;
    case llvm::Instruction::Fence:
      lowerFence(cast<llvm::FenceInst>(I));
      return;
    case llvm::Instruction::ExtractValue: {
      auto& ev = cast<llvm::ExtractValueInst>(I);
      auto it = success_.find(ev.getAggregateOperand());
      if (it != success_.end() && ev.getNumIndices() == 1) {
        setResult(I, ev.getIndices()[0] == 0 ? val(ev.getAggregateOperand()) : it->second);
        return;
      }
      break;
    }
    case llvm::Instruction::Alloca: {
      auto& a = cast<llvm::AllocaInst>(I);
      if (!a.isStaticAlloca() && !isa<llvm::ConstantInt>(a.getArraySize())) {
        unsupported("variable-length arrays and alloca() with a non-constant size are not supported");
        return;
      }
      uint64_t n = dl_.getTypeAllocSize(a.getAllocatedType()).getFixedValue();
      if (auto* c = dyn_cast<llvm::ConstantInt>(a.getArraySize())) n *= c->getZExtValue();
      Instr& in = emit(Op::Alloca);
      in.a = resultReg(I);
      in.imm = int64_t(std::max<uint64_t>(n, 1));
      in.sub = private_.count(&a) ? 1 : 0;
      markEffect();
      return;
    }
    case llvm::Instruction::Call:
      lowerCall(cast<llvm::CallInst>(I));
      return;
    case llvm::Instruction::Switch:
      lowerSwitch(cast<llvm::SwitchInst>(I));
      return;
    case llvm::Instruction::Ret: {
      auto& r = cast<llvm::ReturnInst>(I);
      Instr& in = emit(Op::Ret);
      in.a = r.getReturnValue() ? val(r.getReturnValue()) : kNoReg;
      if (r.getReturnValue() && r.getReturnValue()->getType()->isStructTy()) {
        unsupported("returning a struct value is not supported");
      }
      return;
    }
    case llvm::Instruction::Unreachable: {
      Instr& in = emit(Op::Fail);
      in.name = ml_.p_.intern("unreachable code reached");
      return;
    }
    case llvm::Instruction::VAArg:
      unsupported("variadic functions (va_arg) are not supported");
      return;
    case llvm::Instruction::IndirectBr:
      unsupported("computed goto is not supported");
      return;
    case llvm::Instruction::CallBr:
      unsupported("asm goto is not supported");
      return;
    default:
      break;
  }
  unsupported(std::string("unsupported LLVM instruction '") + I.getOpcodeName() + "'");
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

void FunctionLowering::countRead(const llvm::Value* ptr) {
  auto loops = enclosingSpinLoops(cur_->getParent());
  if (loops.empty()) return;
  if (auto* a = dyn_cast<llvm::AllocaInst>(baseObject(ptr)); a && private_.count(a)) return;
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
  Instr& in = emit(Op::Load);
  in.a = resultReg(I);
  in.b = addr;
  in.size = uint8_t(size);
  in.name = addrName(I.getPointerOperand());
  countRead(I.getPointerOperand());
}

void FunctionLowering::emitFenceForStore(llvm::AtomicOrdering o, bool before) {
  Model m = ml_.opts_.model;
  if (m == Model::SC) return;
  using AO = llvm::AtomicOrdering;
  bool releaseLike = o == AO::Release || o == AO::AcquireRelease || o == AO::SequentiallyConsistent;
  if (before) {
    if (m == Model::PSO && releaseLike) {
      Instr& in = emit(Op::Fence);
      in.sub = uint8_t(FenceKind::StoreStore);
    }
  } else if (o == AO::SequentiallyConsistent) {
    Instr& in = emit(Op::Fence);
    in.sub = uint8_t(FenceKind::Full);
  }
}

void FunctionLowering::lowerStore(llvm::StoreInst& I) {
  unsigned size = accessSize(I.getValueOperand()->getType(), "store");
  if (!size) return;
  Reg addr = val(I.getPointerOperand());
  Reg v = val(I.getValueOperand());
  emitFenceForStore(I.getOrdering(), true);
  Instr& in = emit(Op::Store);
  in.b = addr;
  in.c = v;
  in.size = uint8_t(size);
  in.name = addrName(I.getPointerOperand());
  emitFenceForStore(I.getOrdering(), false);
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
    default:
      unsupported("atomic read-modify-write '" + llvm::AtomicRMWInst::getOperationName(I.getOperation()).str() +
                  "' is not supported (only xchg, add, sub, and, or, xor)");
      return;
  }
  unsigned size = accessSize(I.getValOperand()->getType(), "atomic read-modify-write");
  if (!size) return;
  Reg addr = val(I.getPointerOperand());
  Reg operand = val(I.getValOperand());
  Reg old = resultReg(I);
  Instr& in = emit(Op::Rmw);
  in.sub = uint8_t(op);
  in.a = old;
  in.b = addr;
  in.c = operand;
  in.size = uint8_t(size);
  in.name = addrName(I.getPointerOperand());
  countRead(I.getPointerOperand());
  if (!enclosingSpinLoops(I.getParent()).empty()) {
    // An RMW that writes back the value it read (a failed test-and-set) changes nothing.
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
    }
    if (changed != kNoReg) markEffectIf(changed);
  }
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
  in.a = old;
  in.b = addr;
  in.c = desired;
  in.d = expected;
  in.size = uint8_t(size);
  in.name = addrName(I.getPointerOperand());
  Reg ok = cmp(CmpOp::Eq, old, expected, success_.at(&I));
  countRead(I.getPointerOperand());
  if (!enclosingSpinLoops(I.getParent()).empty()) {
    // A failed CAS writes nothing; a successful one may write the old value back.
    Reg changed = bin(BinOp::And, ok, cmp(CmpOp::Ne, old, desired));
    markEffectIf(changed);
  }
}

void FunctionLowering::lowerFence(llvm::FenceInst& I) {
  if (I.getSyncScopeID() == llvm::SyncScope::SingleThread) return;  // atomic_signal_fence
  Model m = ml_.opts_.model;
  if (m == Model::SC) return;
  using AO = llvm::AtomicOrdering;
  AO o = I.getOrdering();
  if (o == AO::SequentiallyConsistent) {
    Instr& in = emit(Op::Fence);
    in.sub = uint8_t(FenceKind::Full);
  } else if (m == Model::PSO && (o == AO::Release || o == AO::AcquireRelease)) {
    Instr& in = emit(Op::Fence);
    in.sub = uint8_t(FenceKind::StoreStore);
  }
}

void FunctionLowering::lowerCall(llvm::CallInst& I) {
  if (auto* ia = dyn_cast<llvm::InlineAsm>(I.getCalledOperand())) {
    switch (classifyAsm(ia)) {
      case AsmKind::Nothing:
        break;
      case AsmKind::Full: {
        if (ml_.opts_.model == Model::SC) break;
        Instr& in = emit(Op::Fence);
        in.sub = uint8_t(FenceKind::Full);
        break;
      }
      case AsmKind::StoreStore:
        if (ml_.opts_.model == Model::PSO) {
          Instr& in = emit(Op::Fence);
          in.sub = uint8_t(FenceKind::StoreStore);
        }
        break;
      case AsmKind::Unsupported:
        unsupported("inline assembly \"" + ia->getAsmString() +
                    "\" is not supported (only mfence, lock-prefixed add/or to the stack, sfence/lfence/pause "
                    "and empty compiler barriers)");
        return;
    }
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
  if (callee && callee->isDeclaration()) {
    lowerExternal(I, callee);
    return;
  }
  for (const llvm::Use& a : I.args())
    if (a->getType()->isFPOrFPVectorTy()) {
      unsupported("floating point is not supported (floating-point argument)");
      return;
    }
  if (I.getType()->isStructTy()) {
    unsupported("calls returning a struct value are not supported");
    return;
  }
  std::vector<Reg> args;
  for (const llvm::Use& a : I.args()) {
    if (a->getType()->isStructTy() || a->getType()->isArrayTy() || a->getType()->isVectorTy()) {
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
  // A read-only call inside a spin loop: the engine counts the callee's
  // shared reads (however many), and they count as the iteration's reads.
  Reg saved = kNoReg;
  if (readOnlyCall && !loops.empty()) {
    saved = newReg();
    Instr& b = emit(Op::ReadCount);
    b.sub = 1;
    b.a = saved;
  }
  Instr& in = emit(callee ? Op::Call : Op::CallInd);
  in.a = I.getType()->isVoidTy() ? kNoReg : resultReg(I);
  in.argBegin = argBegin;
  in.argCount = uint32_t(args.size());
  if (callee) in.imm = ml_.funcIndex_.at(callee);
  else in.b = target;
  if (!readOnlyCall) {
    markEffect();
  } else if (saved != kNoReg) {
    Reg n = newReg();
    Instr& e = emit(Op::ReadCount);
    e.sub = 0;
    e.a = n;
    e.b = saved;
    for (SpinLoop* s : loops) bin(BinOp::Add, s->reads, n, s->reads);
  }
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
    case llvm::Intrinsic::threadlocal_address:
      unsupported("thread-local variables are not supported");
      return;
    case llvm::Intrinsic::eh_sjlj_setjmp:
    case llvm::Intrinsic::eh_sjlj_longjmp:
      unsupported("setjmp/longjmp is not supported");
      return;
    default:
      break;
  }
  if (callee->getName() == "llvm.x86.sse2.pause") return;
  for (const llvm::Use& a : I.args())
    if (a->getType()->isFPOrFPVectorTy()) {
      unsupported("floating point is not supported (" + callee->getName().str() + ")");
      return;
    }
  unsupported("intrinsic " + callee->getName().str() + " is not supported");
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
  // Scalar leaves (offset, size) of a type.
  std::function<bool(llvm::Type*, uint64_t, std::vector<std::pair<uint64_t, unsigned>>&)> flatten =
      [&](llvm::Type* t, uint64_t base, std::vector<std::pair<uint64_t, unsigned>>& out) -> bool {
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
        if (!flatten(at->getElementType(), base + i * esz, out)) return false;
      return true;
    }
    if (auto* st = dyn_cast<llvm::StructType>(t)) {
      const llvm::StructLayout* sl = dl_.getStructLayout(st);
      for (unsigned i = 0; i < st->getNumElements(); ++i)
        if (!flatten(st->getElementType(i), base + sl->getElementOffset(i), out)) return false;
      return true;
    }
    return false;
  };
  auto typeOf = [&](const llvm::Value* p, uint64_t& off) -> llvm::Type* {
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
  };
  std::vector<std::pair<uint64_t, unsigned>> leaves;  // relative to the start of the copy
  bool found = false;
  std::vector<const llvm::Value*> ptrs{I.getRawDest()};
  if (auto* mt = dyn_cast<llvm::MemTransferInst>(&I)) ptrs.push_back(mt->getRawSource());
  for (const llvm::Value* p : ptrs) {
    uint64_t off = 0;
    llvm::Type* t = typeOf(p, off);
    if (!t) continue;
    std::vector<std::pair<uint64_t, unsigned>> all;
    if (!flatten(t, 0, all)) continue;
    std::vector<std::pair<uint64_t, unsigned>> in;
    bool partial = false;
    for (auto& [o, n] : all) {
      if (o + n <= off || o >= off + len) continue;
      if (o < off || o + n > off + len) partial = true;
      in.push_back({o - off, n});
    }
    if (partial || in.empty()) continue;
    leaves = std::move(in);
    found = true;
    break;
  }
  if (!found) {
    if (len == 1 || len == 2 || len == 4 || len == 8) {
      leaves.push_back({0, unsigned(len)});
    } else {
      unsupported(std::string(isa<llvm::MemSetInst>(I) ? "memset" : "memcpy") + " of " + std::to_string(len) +
                  " bytes through a pointer of unknown element type is not supported (copy field by field)");
      return;
    }
  }
  Reg dst = val(I.getRawDest());
  if (auto* ms = dyn_cast<llvm::MemSetInst>(&I)) {
    llvm::Value* byteV = ms->getValue();
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
      Instr& st = emit(Op::Store);
      st.b = at;
      st.c = v;
      st.size = uint8_t(n);
    }
    markEffect();
    return;
  }
  auto& mt = cast<llvm::MemTransferInst>(I);
  llvm::APInt soff(64, 0);
  const llvm::Value* sbase = mt.getRawSource()->stripAndAccumulateConstantOffsets(dl_, soff, true);
  const llvm::GlobalVariable* sg = ml_.resolveGlobal(sbase);
  Reg src = val(mt.getRawSource());
  // memmove: read everything first, then write.
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
    vals.push_back(r);
    countRead(mt.getRawSource());
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    Reg at = addOffset(dst, int64_t(leaves[i].first));
    Instr& st = emit(Op::Store);
    st.b = at;
    st.c = vals[i];
    st.size = uint8_t(leaves[i].second);
  }
  markEffect();
}

void FunctionLowering::lowerExternal(llvm::CallInst& I, llvm::Function* callee) {
  std::string name = callee->getName().str();
  Ext k = classifyExternal(name);
  auto arg = [&](unsigned i) { return val(I.getArgOperand(i)); };
  auto needArgs = [&](unsigned n) {
    if (I.arg_size() < n) {
      unsupported("call to " + name + " with too few arguments");
      return false;
    }
    return true;
  };
  auto resultZero = [&]() {
    if (!I.getType()->isVoidTy()) setResult(I, constVal(0));
  };
  switch (k) {
    case Ext::Ignored:
      for (const llvm::Use& a : I.args())
        if (a->getType()->isFPOrFPVectorTy()) {
          unsupported("floating point is not supported (floating-point argument to " + name + ")");
          return;
        }
      resultZero();
      return;
    case Ext::PthreadCreate: {
      if (!needArgs(4)) return;
      Reg tidAddr = arg(0);
      Reg a = arg(3);
      Reg tid = newReg();
      llvm::Value* fnV = I.getArgOperand(2)->stripPointerCasts();
      if (auto* fn = dyn_cast<llvm::Function>(fnV)) {
        auto it = ml_.funcIndex_.find(fn);
        if (it == ml_.funcIndex_.end()) {
          unsupported("thread start routine '" + fn->getName().str() + "' has no definition in this file");
          return;
        }
        Instr& in = emit(Op::Spawn);
        in.a = tid;
        in.b = a;
        in.imm = it->second;
      } else {
        Reg fr = arg(2);
        Instr& in = emit(Op::SpawnInd);
        in.a = tid;
        in.b = a;
        in.c = fr;
      }
      Instr& st = emit(Op::Store);
      st.b = tidAddr;
      st.c = tid;
      st.size = 8;
      st.name = addrName(I.getArgOperand(0));
      markEffect();
      resultZero();
      return;
    }
    case Ext::PthreadJoin: {
      if (!needArgs(2)) return;
      Reg t = arg(0);
      Reg r = newReg();
      Instr& in = emit(Op::Join);
      in.a = r;
      in.b = t;
      llvm::Value* retp = I.getArgOperand(1);
      if (!isa<llvm::ConstantPointerNull>(retp)) {
        Reg p = val(retp);
        int lSt = newLabel(), lEnd = newLabel();
        br(p, lSt, lEnd);
        bind(lSt);
        Instr& st = emit(Op::Store);
        st.b = p;
        st.c = r;
        st.size = 8;
        st.name = addrName(retp);
        bind(lEnd);
      }
      markEffect();
      resultZero();
      return;
    }
    case Ext::PthreadExit: {
      Instr& in = emit(Op::Exit);
      in.a = I.arg_size() ? arg(0) : kNoReg;
      return;
    }
    case Ext::PthreadSelf: {
      Instr& in = emit(Op::Self);
      in.a = resultReg(I);
      return;
    }
    case Ext::PthreadEqual:
      if (!needArgs(2)) return;
      cmp(CmpOp::Eq, arg(0), arg(1), resultReg(I));
      return;
    case Ext::MutexLock:
    case Ext::MutexUnlock: {
      if (!needArgs(1)) return;
      Reg m = arg(0);
      Instr& in = emit(k == Ext::MutexLock ? Op::Lock : Op::Unlock);
      in.b = m;
      in.name = addrName(I.getArgOperand(0));
      markLock(m, k == Ext::MutexLock);
      resultZero();
      return;
    }
    case Ext::MutexInit:
    case Ext::MutexDestroy: {
      if (!needArgs(1)) return;
      resultZero();
      if (k == Ext::MutexInit && !ml_.destroysMutexes_) return;  // a mutex starts unlocked anyway
      // destroy: xchg(lock word, kMutexDestroyed); init: cas(lock word, kMutexDestroyed → 0).
      Reg m = arg(0);
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
      if (!needArgs(1)) return;
      Reg m = arg(0);
      Reg r = I.getType()->isVoidTy() ? newReg() : resultReg(I);
      Instr& in = emit(Op::TryLock);
      in.a = r;
      in.b = m;
      in.name = addrName(I.getArgOperand(0));
      countSyncRead();
      if (!enclosingSpinLoops(I.getParent()).empty()) markEffectIf(cmp(CmpOp::Eq, r, constVal(0)));
      return;
    }
    case Ext::CondWait: {
      // Spurious wake-ups are allowed: release and re-acquire the mutex.
      if (!needArgs(2)) return;
      Reg m = arg(1);
      {
        Instr& u = emit(Op::Unlock);
        u.b = m;
        u.name = addrName(I.getArgOperand(1));
      }
      {
        Instr& l = emit(Op::Lock);
        l.b = m;
        l.name = addrName(I.getArgOperand(1));
      }
      countSyncRead();
      countSyncRead();
      for (SpinLoop* s : enclosingSpinLoops(I.getParent()))
        if (s->mutex != kNoReg) mov(s->mutex, m);
      resultZero();
      return;
    }
    case Ext::Malloc:
    case Ext::Calloc: {
      if (!needArgs(k == Ext::Malloc ? 1 : 2)) return;
      Reg n = k == Ext::Malloc ? arg(0) : bin(BinOp::Mul, arg(0), arg(1));
      Instr& in = emit(Op::Malloc);
      in.a = resultReg(I);
      in.b = n;
      markEffect();
      return;
    }
    case Ext::Free: {
      if (!needArgs(1)) return;
      Instr& in = emit(Op::Free);
      in.b = arg(0);
      markEffect();
      return;
    }
    case Ext::Realloc: {
      // q = malloc(n); copy min(old size, n) bytes element-wise; free(p).
      // The element size is the one the program uses on the new block (loads,
      // stores and GEPs of the result), so the copies hit the same locations.
      if (!needArgs(2)) return;
      Reg p = arg(0), n = arg(1);
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
        Instr& st = emit(Op::Store);
        st.b = to;
        st.c = v;
        st.size = uint8_t(esz);
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
      Instr& in = emit(Op::Fail);
      in.name = ml_.p_.intern("abort() called");
      return;
    }
    case Ext::VerifierError: {
      Instr& in = emit(Op::Fail);
      in.name = ml_.p_.intern(name + "() called");
      return;
    }
    case Ext::Exit: {
      Instr& in = emit(Op::Exit);
      in.a = I.arg_size() ? arg(0) : kNoReg;
      return;
    }
    case Ext::Assume: {
      if (!needArgs(1)) return;
      Instr& in = emit(Op::Assume);
      in.a = arg(0);
      in.sub = 0;
      return;
    }
    case Ext::SetJmp:
      unsupported("setjmp/longjmp is not supported (" + name + ")");
      return;
    case Ext::Unknown:
      break;
  }
  unsupported("call to external function '" + name + "' is not supported (no definition in this file)");
}

}  // namespace

void lowerModule(llvm::Module& m, const FrontendOptions& opts, const std::map<std::string, AnnotatedDecl>& decls,
                 FrontendResult& result) {
  ModuleLowering ml(m, opts, decls, result);
  ml.run();
}

}  // namespace tsocheck::frontend

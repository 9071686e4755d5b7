// Program representation: a compact register machine that threads run.
//
// Every instruction carries a source location; memory instructions may carry
// a printable name for the address they touch (`x`, `m->payload[3]`). The
// frontend lowers C to this form; tests build programs directly with
// ProgramBuilder (builder.h).
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "engine/fp.h"  // FBinOp, FUnOp, FCmpPred, FConvOp
#include "engine/memory_model.h"  // FenceKind

namespace tsocheck {

using Reg = int32_t;            // index into the current frame's registers
using Value = uint64_t;         // every register holds 64 bits
using Addr = uint64_t;
constexpr Reg kNoReg = -1;
// What pthread_mutex_destroy leaves in a mutex's 4-byte lock word (0: free,
// t+1: held by thread t): a later lock, trylock or unlock is a memory error.
constexpr Value kMutexDestroyed = 0xFFFFFFFF;

// Instr::sub of a Load or Store: the access is a plain C access (neither
// atomic nor volatile), so a race on it is a data race (engine/races.h).
// Loads and stores the lowering makes up (primitives, libc) are atomic.
constexpr uint8_t kPlainAccess = 1;
// Memory orders, for the race detector under SC, TSO and PSO only (no effect
// on execution; RC11 judges races by Instr::order): an atomic Load whose
// `sub` has kRelaxedAccess does not acquire, such a Store does not release;
// an Rmw's `imm` has kRmwNoAcquire / kRmwNoRelease for a read / write part
// that does not. (Relaxed accesses in a function with an acquire / release
// fence count as acquiring / releasing: fence synchronisation is not
// modelled event by event there.)
constexpr uint8_t kRelaxedAccess = 2;
// Exit's `sub`: exit() / _Exit(): the whole program ends (pthread_exit: 0).
constexpr uint8_t kExitProgram = 1;
constexpr int64_t kRmwNoAcquire = 1, kRmwNoRelease = 2;

struct SourceLoc {
  uint32_t file = 0;  // index into Program::files; 0 = unknown
  uint32_t line = 0;
  uint32_t column = 0;
  bool operator==(const SourceLoc& o) const { return file == o.file && line == o.line && column == o.column; }
};

enum class Op : uint8_t {
  Const,    // r[a] = imm
  Mov,      // r[a] = r[b]
  Bin,      // r[a] = r[b] (BinOp sub) r[c]
  Cmp,      // r[a] = r[b] (CmpOp sub) r[c] ? 1 : 0
  Ext,      // r[a] = sign- (sub=1) or zero- (sub=0) extend low `size` bytes of r[b]
  Select,   // r[a] = r[b] ? r[c] : r[d]
  Jmp,      // goto imm
  Br,       // if r[a] != 0 goto imm else goto imm2
  Call,     // r[a] = functions[imm](args...)   (a may be kNoReg)
  CallInd,  // r[a] = function whose address is r[b] (args...)
  FuncAddr, // r[a] = address of functions[imm]
  GlobalAddr, // r[a] = address of globals[imm] + imm2
  TlsAddr,  // r[a] = address of this thread's copy of threadLocals[imm] + imm2
  Ret,      // return r[a] (a may be kNoReg)
  Load,     // r[a] = *(size bytes)(r[b]); sub & kPlainAccess: a plain C access
  Store,    // *(size bytes)(r[b]) = r[c]; sub & kPlainAccess: a plain C access
  Rmw,      // r[a] = old value; RmwOp sub; address r[b], operand r[c], expected r[d] (Cas)
  Fence,    // FenceKind sub
  Spawn,    // r[a] = new thread running functions[imm](r[b])
  SpawnInd, // r[a] = new thread running the function whose address is r[c], argument r[b]
  Join,     // r[a] = return value of thread r[b] (a may be kNoReg); waits for it
  Exit,     // the thread ends with value r[a] (a may be kNoReg); sub = kExitProgram: exit()
  Self,     // r[a] = this thread's id
  Lock,     // acquire mutex at r[b]; blocks while held
  TryLock,  // r[a] = 0 if acquired, else EBUSY(16); mutex at r[b]
  Unlock,   // release mutex at r[b]
  Assert,   // if r[a] == 0: assertion failure; message = strings[name]; sub=1: a misuse of a
            // library object (pthread_barrier_destroy while threads wait, ...): a memory error
  Assume,   // if r[a] == 0: this thread blocks for good; sub=1: spin-loop await whose
            // idle iteration made r[b] reads (b may be kNoReg: one read); sub=2: the
            // same for a loop around pthread_cond_wait (a hang there is a deadlock); sub=3:
            // the wait of a blocking primitive (barrier, semaphore, rwlock, once; a deadlock),
            // strings[name] says what it waits for ("waits at barrier b")
  Fail,     // unconditional error (abort()); message = strings[name]
  Cut,      // a bound was reached: the execution is cut here (result `bounded`);
            // message = strings[name], e.g. "loop at f.c:12 cut after 8 iterations"
  Malloc,   // r[a] = fresh heap block of r[b] bytes (zeroed), 16-byte aligned or, when c is
            // a register, aligned to r[c] (a power of two: aligned_alloc, posix_memalign)
  Free,     // free(r[b]); r[b] == 0 is a no-op
  BlockSize,// r[a] = size of the heap block that starts at r[b] (0 when r[b] == 0)
  Alloca,   // r[a] = address of a new stack slot of imm bytes; sub=1: private (never escapes)
  ReadCount,// counts the shared reads (load, RMW, lock, trylock, unlock actions) of a call:
            // sub=1: r[a] = the thread's counter, counter = 0, one counting level deeper;
            // sub=0: r[a] = reads since the matching sub=1, counter = r[b] + r[a], one level out
  EffectCount,  // counts a call's effects for the spin-loop analysis (the frontend marks
                // them: stores, RMWs that changed memory, ...), like ReadCount:
                // sub=1: r[a] = the thread's counter, counter = 0, one counting level deeper;
                // sub=0: r[a] = effects since the matching sub=1, counter = r[b] + r[a], one level out;
                // sub=2: one effect if b is no register or r[b] != 0 (while a level is open)
  Nondet,   // r[a] = a value chosen nondeterministically; every one is explored.
            // sub=0: any value in imm2..imm (signed).  sub=1: a value of an integer type
            // of `size` bytes (imm=1: signed, 0: unsigned) within Limits' nondet range
            // (__VERIFIER_nondet_int and friends); zero-extended from `size` bytes
  AtomicBegin,  // enter an atomic section (__VERIFIER_atomic_*): until the matching
                // AtomicEnd no other thread steps and no other store buffer flushes
  AtomicEnd,    // leave the innermost atomic section
  // Floating point (engine/fp.h) on bit patterns: size = 4 (float, the low 32
  // bits of the register, zero-extended) or 8 (double).
  FBin,     // r[a] = r[b] (FBinOp sub) r[c]; Fma/MulAdd: r[b] * r[c] + r[d]
  FUn,      // r[a] = (FUnOp sub) r[b]
  FCmp,     // r[a] = r[b] (FCmpPred sub) r[c] ? 1 : 0 (LLVM's 16 predicates)
  FConv,    // r[a] = (FConvOp sub) r[b]; size = the floating side's bytes (the source's
            // for fpext/fptrunc), imm = the integer side's bits
  Nop,
};

enum class BinOp : uint8_t { Add, Sub, Mul, UDiv, SDiv, URem, SRem, And, Or, Xor, Shl, LShr, AShr };
enum class CmpOp : uint8_t { Eq, Ne, Ult, Ule, Ugt, Uge, Slt, Sle, Sgt, Sge };
// Max/Min: signed at the access size. FAdd..FMin: float (size 4) or double
// (size 8) arithmetic on the bit patterns (atomicrmw fadd/fsub/fmax/fmin; the
// last two are fmax/fmin: a NaN operand yields the other).
enum class RmwOp : uint8_t { Xchg, Cas, Add, Sub, And, Or, Xor, Nand, Max, Min, UMax, UMin, FAdd, FSub, FMax, FMin };
// FenceKind: engine/memory_model.h (the fences a model has).

struct Instr {
  Op op = Op::Nop;
  uint8_t size = 0;   // access size for Load/Store/Rmw/Ext (1, 2, 4, 8)
  uint8_t sub = 0;    // BinOp / CmpOp / RmwOp / FenceKind / flags
  // Load / Store / Rmw / Fence: the C11 memory order (NonAtomic: a plain C
  // access). Only RC11 reads it (MemoryModel::usesC11Orders); the other
  // models get fences from lowering instead. Made-up accesses are seq_cst.
  MemOrder order = MemOrder::SeqCst;
  // Rmw Cas: the order of a compare-exchange that fails (then only a read;
  // C11's failure order). RC11 only, like `order`.
  MemOrder failOrder = MemOrder::SeqCst;
  Reg a = kNoReg, b = kNoReg, c = kNoReg, d = kNoReg;
  int64_t imm = 0;
  int64_t imm2 = 0;
  uint32_t argBegin = 0, argCount = 0;  // Call/CallInd: Function::args[argBegin..]
  uint32_t name = 0;  // Program::strings index: address name hint, or assert message
  SourceLoc loc;
};

// What an instruction does, field by field, without its name and location
// (indices into its Program): what two programs must agree on to be the same
// program (engine/fences.h sameProgram) and what a result-cache key hashes
// (service/result_cache.cpp). A field added to Instr belongs here too.
inline auto semanticFields(const Instr& i) {
  return std::tie(i.op, i.size, i.sub, i.order, i.failOrder, i.a, i.b, i.c, i.d, i.imm, i.imm2, i.argBegin,
                  i.argCount);
}

struct Function {
  std::string name;
  uint32_t numParams = 0;  // parameters arrive in registers 0..numParams-1
  uint32_t numRegs = 0;
  std::vector<Instr> code;
  std::vector<Reg> args;   // argument registers of the calls in `code`
  SourceLoc loc;
};

struct Global {
  std::string name;
  Addr addr = 0;
  uint32_t size = 0;
  std::vector<uint8_t> init;  // size bytes (zero-filled when shorter)
  // Optional element size, so that addresses inside arrays print as name[i].
  uint32_t elemSize = 0;
};

// A thread-local variable (__thread, _Thread_local, thread_local): every
// thread has its own copy, initialised from `init` when the thread starts.
// A variable whose address never leaves the thread's own accesses is
// *private*: its copy lives in the thread's private window (layout::
// kPrivateBase + t * kThreadStride + offset, below its private stack slots)
// and its accesses are no events. The others live in the thread-local window
// (kTlsBase + t * kTlsStride + offset) and are ordinary shared memory, so a
// copy whose address is passed to another thread is accessed exactly.
struct ThreadLocal {
  std::string name;
  uint64_t offset = 0;        // in the thread's private or thread-local window
  uint32_t size = 0;
  bool isPrivate = false;
  std::vector<uint8_t> init;  // size bytes
  uint32_t elemSize = 0;      // arrays: element size (names print as name[i]@T1)
};

// Address-space layout. Every region is deterministic: the address of a
// heap block, stack slot or thread-local copy depends only on the owning
// thread's own history, never on the interleaving.
namespace layout {
constexpr Addr kNullLimit = 0x1000;
constexpr Addr kGlobalBase = 0x10000;
constexpr Addr kFirstGlobal = kGlobalBase + 0x1000;  // a red zone before the first global too
constexpr Addr kFunctionBase = 0x0F00'0000;         // fake code addresses
constexpr Addr kTlsBase = 0x0800'0000'0000ULL;      // shared thread-local copies, one window per thread
constexpr Addr kTlsStride = 0x100'0000ULL;          // 16 MiB of thread-local data per thread (524,288 threads)
constexpr Addr kStackBase = 0x1000'0000'0000ULL;    // shared (escaping) stack slots
constexpr Addr kPrivateBase = 0x2000'0000'0000ULL;  // private (non-escaping) stack slots
constexpr Addr kHeapBase = 0x4000'0000'0000ULL;
constexpr Addr kThreadStride = 0x1'0000'0000ULL;    // per-thread window inside a region
// The gap left after an object (a global, a heap block or a stack slot): an access that
// runs past the object's end by up to the gap, or before the next object's
// start, lands in no object and is reported as out of bounds instead of
// reaching the neighbour. As large as the object (so `a[i]` with i below
// twice the length is caught), at least 64 bytes, at most 4 KiB.
constexpr uint64_t redZone(uint64_t size) {
  const uint64_t r = (size + 15) / 16 * 16;
  return r < 64 ? 64 : r > 4096 ? 4096 : r;
}
// Where a thread's first stack slot goes in its private and shared windows.
constexpr uint64_t kFirstSlot = 0x1000;
// Places an object of `size` bytes aligned to `align` at or after `next`, and
// moves `next` past it and its red zone.
inline Addr placeObject(Addr& next, uint64_t size, uint64_t align) {
  const Addr a = (next + align - 1) / align * align;
  next = a + (size ? size : 1) + redZone(size);
  return a;
}
}  // namespace layout

struct Program {
  std::vector<std::string> files{""};    // files[0] = unknown
  std::vector<std::string> strings{""};  // strings[0] = empty
  std::vector<Function> functions;
  std::vector<Global> globals;
  std::vector<ThreadLocal> threadLocals;
  uint64_t tlsPrivateSize = 0;  // bytes of private thread-local copies (a multiple of 16)
  uint32_t entry = 0;  // function run by the main thread (no parameters)

  uint32_t intern(const std::string& s);
  uint32_t fileIndex(const std::string& path);
  const Global* globalAt(Addr a) const;  // global containing a, or nullptr
  // The thread-local variable (private or shared ones) whose copy contains
  // `offset` of a thread's window, or nullptr.
  const ThreadLocal* threadLocalAt(uint64_t offset, bool isPrivate) const;
  std::string locString(const SourceLoc& l) const;  // "file:line:col"
};

// Whether any function has an instruction with opcode `op`.
bool usesOp(const Program& p, Op op);
// Per function and instruction: 1 for a Load after which the thread may
// reach a spin loop's await (Op::Assume, sub 1) with no visible action or
// call in between (the explorer's staleReadStops asks only there).
std::vector<std::vector<uint8_t>> loadsBeforeAwaits(const Program& p);
// Whether any function has an atomic section (Op::AtomicBegin).
inline bool hasAtomicSections(const Program& p) { return usesOp(p, Op::AtomicBegin); }

// Human-readable name of an address: "x", "arr[2]", "s+4", "heap@T1+8",
// "counter@T2" (thread T2's copy of a thread-local variable).
std::string addressName(const Program& p, Addr a);

const char* opName(Op op);

}  // namespace tsocheck

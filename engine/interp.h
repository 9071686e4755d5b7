// Thread-local interpreter: runs one thread's instructions until the next
// operation that other threads can observe (a visible action), then stops so
// that an explorer decides its outcome (which write a load reads, ...).
//
// Everything a thread does between two visible actions is deterministic and
// local: registers, private stack slots, heap allocation. Re-running a thread
// and feeding it the same results reproduces exactly the same actions.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/inline_vector.h"
#include "engine/ir.h"

namespace tsocheck {

enum class ActionKind : uint8_t {
  Load,
  Store,
  Rmw,       // rmw/cas; a Cas whose comparison fails writes nothing
  Fence,
  Spawn,     // result: the new thread's id
  Join,      // result: the joined thread's exit value
  Exit,      // the thread has ended (value = exit value)
  Lock,      // result must be delivered only when acquired
  TryLock,   // result: 0 if acquired, 16 (EBUSY) if not
  Unlock,
  Free,
  BlockSize, // result: size of the heap block starting at addr (for realloc)
  Error,     // the thread hit an error (assertion, abort, arithmetic)
  Blocked,   // assume(false): the thread never runs again (value 1: spin-loop await,
             // 2: the await of a loop around pthread_cond_wait, 3: a blocking
             // primitive's wait, `message` what it waits for; target: how many
             // of the thread's last reads the idle iteration made)
  Limit,     // step or recursion limit reached: exploration is cut here
  Choice,    // result: choiceValue(action, i) for every i in 0..value, each one explored
             // (__VERIFIER_nondet_*); `expected` is the first value, `size` the width,
             // `limited` says the type has values the range left out
  AtomicBegin,  // entering an atomic section: once taken, only this thread runs
                // until the section ends (every store buffer still flushes)
};

// Deadlock: every live thread waits on a mutex, a join or a condition
// variable (at least one on a mutex or condition variable). NonTermination:
// a thread spins forever on values no other thread will change (the others
// have exited, wait to join, or spin too).
// Race: a data race on a plain access (engine/races.h), a warning under SC,
// TSO and PSO; DataRace: the same under RC11, where a data race is undefined
// behaviour (an error).
enum class ErrorKind : uint8_t { None, Assertion, Deadlock, Memory, Arithmetic, NonTermination, Race, DataRace };
// Race or DataRace.
inline bool isRace(ErrorKind k) { return k == ErrorKind::Race || k == ErrorKind::DataRace; }
const char* errorKindName(ErrorKind k);

struct Action {
  ActionKind kind = ActionKind::Exit;
  Addr addr = 0;
  uint8_t size = 0;
  RmwOp rmw = RmwOp::Xchg;
  FenceKind fence = FenceKind::Full;
  MemOrder order = MemOrder::SeqCst;  // Load / Store / Rmw / Fence: Instr::order
  MemOrder failOrder = MemOrder::SeqCst;  // Rmw: Instr::failOrder
  Value value = 0;     // Store value, Rmw operand, Exit value, Spawn argument
  Value expected = 0;  // Cas expected value
  uint32_t func = 0;   // Spawn: function to run
  uint32_t target = 0; // Join: thread id to wait for
  ErrorKind error = ErrorKind::None;
  bool limited = false; // Choice: values of the type were left out (CheckOptions' nondet range)
  std::string message; // Error / Limit
  // Where it happened.
  uint32_t function = 0;
  uint32_t pc = 0;
  SourceLoc loc;
  uint32_t name = 0;   // address name hint (Program::strings)
};

// A Blocked action that waits for another thread (value 2 or 3), worded for
// a deadlock report: "waits on a condition variable no thread will signal",
// "waits at barrier b, where no thread will arrive", ...
bool isWait(const Action& a);
// A Blocked action that is a spin loop's await (value 1).
inline bool isAwait(const Action& a) { return a.kind == ActionKind::Blocked && a.value == 1; }
std::string waitText(const Action& a);

// The largest heap block malloc/calloc/realloc may ask for; more (or a
// negative size converted to size_t) is reported as a memory error.
constexpr uint64_t kMaxAllocation = uint64_t(1) << 30;
// The largest non-escaping local kept in the private window (its bytes are
// copied with the thread's state); a larger one is a shared stack slot.
constexpr uint64_t kMaxPrivateSlot = uint64_t(1) << 16;

struct HeapBlock {
  Addr addr = 0;
  uint64_t size = 0;
};

// The default memory limit (MiB) of a check: the state searches' ceiling
// (Limits::stateMemoryBytes) and the frontend process's ceiling.
constexpr uint64_t kDefaultMemoryLimitMiB = 512;

struct Limits {
  uint64_t maxSteps = 200000;   // instructions per thread per execution
  uint32_t maxCallDepth = 64;
  // Visible events per thread per execution: a thread that reaches it is cut
  // (it takes no more steps) and the other threads go on.
  uint32_t maxEvents = 10000;
  // Visible events per execution (all threads): reaching it cuts the whole
  // execution (keeps executions finite when threads spawn threads without end).
  uint32_t maxExecutionEvents = 50000;
  // Set by the explorer / state-space search from the time limit and the
  // cancel flag: a thread running long between visible actions polls them
  // and stops with a Limit action ("time limit reached") once either fires.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* cancel = nullptr;
  // The one time check of both searches (graph explorer, state space) and of
  // a thread's long run: the deadline passed or the check was cancelled.
  bool timeUp() const {
    if (cancel && cancel->load(std::memory_order_relaxed)) return true;
    return deadline != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() >= deadline;
  }
  // A search starting at `start` with a time limit of `seconds` (0: none)
  // and a cancel flag: the deadline becomes the earlier of the one already
  // set (e.g. for a whole check with fence synthesis) and start + seconds.
  void startClock(std::chrono::steady_clock::time_point start, double seconds, const std::atomic<bool>* cancelFlag) {
    if (seconds > 0)
      deadline = std::min(deadline, start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(seconds)));
    cancel = cancelFlag;
  }
  // Memory the explicit-state searches (engine/state_space.h: --stateful,
  // buffer-bound deepening) may hold in visited states, queued states and
  // fixpoint projections, estimated from their sizes: reaching it cuts the
  // search (`bounded`, "state memory limit"). --memory-limit, memory_limit=.
  uint64_t stateMemoryBytes = kDefaultMemoryLimitMiB << 20;
  // Set by the caller when the process's memory passed the limit (the
  // service watches the resident memory): the state searches end there as
  // at their own estimate, so an estimate that undercounts cannot overshoot.
  const std::atomic<bool>* memoryFull = nullptr;
  bool memoryIsFull() const { return memoryFull && memoryFull->load(std::memory_order_relaxed); }
  // Values a typed nondeterministic input (Op::Nondet sub=1: __VERIFIER_nondet_int,
  // ...) takes: this range intersected with its type's range. A call whose
  // type has values outside it makes the result `bounded` (nondetRangeText).
  int64_t nondetLo = -1, nondetHi = 1;
};

// "nondet values limited to -1..1" (the limits' nondet range).
std::string nondetRangeText(const Limits& l);

// The i-th value (0-based) of a Choice action: the first value + i, wrapped to its width.
Value choiceValue(const Action& a, Value i);

class ThreadState {
 public:
  ThreadState(const Program& prog, uint32_t tid, uint32_t func, Value arg, const Limits& limits);

  // The action the thread is stopped at.
  const Action& pending() const { return pending_; }
  bool finished() const { return pending_.kind == ActionKind::Exit; }
  uint32_t id() const { return tid_; }
  Value exitValue() const { return pending_.value; }
  uint64_t steps() const { return steps_; }

  // (The program must outlive the thread state; limits are copied.)
  // Deliver the pending action's result (ignored where there is none) and run
  // to the next visible action. Not allowed on Exit/Error/Blocked/Limit.
  void complete(Value result);

  // Cuts the thread where it stands: its pending action becomes a Limit with
  // this message (same place), so it takes no more steps (the explorer's
  // per-thread event limit).
  void cut(std::string message);
  // Whether the thread stopped because the deadline passed or the check was
  // cancelled (a Limit that is not a bound of the program).
  bool stoppedByTime() const { return stoppedByTime_; }
  // Inside an atomic section (Op::AtomicBegin taken, its AtomicEnd not yet
  // run): the explorers let no other thread step.
  bool inAtomic() const { return atomicDepth_ > 0 && !frames_.empty(); }

  // The heap block containing a (allocated by this thread), or nullptr.
  const HeapBlock* heapBlockAt(Addr a) const;
  // The block allocated last below a (for naming overruns), or nullptr.
  const HeapBlock* heapBlockBefore(Addr a) const;
  // Whether a lies in a shared stack slot this thread has allocated.
  bool ownsStackAddress(Addr a, uint64_t size) const;
  // For an access at a in this thread's shared or private stack window that
  // no slot holds: the slot it runs out of ("offset 16 of an 8-byte stack
  // slot": the nearest one, before or after), or "" when there is none.
  std::string slotOverrun(Addr a) const;

  // Appends a byte encoding of everything that decides the thread's future
  // (frames, registers, stack and heap bookkeeping, pending action) but not
  // the step counter, so that equal encodings mean equal local states
  // (visited-state tables, engine/state_space.h).
  void appendKey(std::string& out) const;
  // Heap bytes this thread state holds (frames, registers, private stack,
  // heap bookkeeping), for the state searches' memory estimate.
  size_t heapBytes() const;

  // Registers of the innermost frame (for trace display).
  const std::vector<Value>& currentRegisters() const;
  uint32_t currentFunction() const;

 private:
  struct Frame {
    uint32_t func = 0;
    uint32_t pc = 0;
    Reg ret = kNoReg;
    uint32_t privSlotMark = 0;  // privSlots_.size() when the frame began
    uint64_t stackMark = 0;
    std::vector<Value> regs;
  };
  // Stack slots lie apart: after each a red zone (layout::redZone) that no
  // slot covers, so an index past a local array's end (or before its start)
  // is out of bounds instead of reaching the next slot. A private slot's
  // bytes are kept without the gaps: `store` is its offset in priv_.
  struct PrivSlot {
    uint64_t at;  // offset in the thread's private window
    uint64_t size;
    uint64_t store;
  };
  struct StackSlot {
    uint64_t at;  // offset in the thread's shared stack window
    uint64_t size;
  };

  void run();  // advance until a visible action; fills pending_
  void stop(ActionKind k, const Instr& in);
  void fail(ErrorKind e, const Instr& in, std::string msg);
  bool isPrivate(Addr a) const;
  bool privateAccess(const Instr& in, Addr a, bool store, Value* v);
  bool doCall(uint32_t func, const Instr& in, Frame& caller);
  void doReturn(Value v, bool hasValue);

  const Program* prog_;
  Limits limits_;
  uint32_t tid_;
  std::vector<Frame> frames_;
  uint64_t stackTop_ = 0;   // bump pointer of the shared stack window
  uint64_t privTop_ = 0;        // bytes of priv_ in use
  uint64_t privAddrTop_ = 0;    // bump pointer of the private window (slots and red zones)
  std::vector<uint8_t> priv_;  // private stack bytes
  // The live private slots by address (the private thread-locals first, one
  // slot), and the shared slots handed out, by address: those of returned
  // frames stay until a new slot reuses their place (ownsStackAddress).
  InlineVector<PrivSlot, 4> privSlots_;
  InlineVector<StackSlot, 2> stackSlots_;
  std::vector<HeapBlock> heap_;
  uint64_t heapTop_ = 0;
  uint64_t steps_ = 0;
  bool stoppedByTime_ = false;
  // Op::ReadCount / Op::EffectCount: nested counting levels around calls.
  struct CallCounter {
    uint32_t depth = 0;  // open levels (counted while > 0)
    Value count = 0;     // counted at the innermost open level
    void add() {
      if (depth > 0) ++count;
    }
    Value begin() {  // the enclosing level's count, to restore at the end
      const Value saved = count;
      count = 0;
      ++depth;
      return saved;
    }
    Value end(Value saved) {  // this level's count; the enclosing level counts it as its own
      const Value inner = count;
      if (depth > 0) --depth;
      count = depth > 0 ? saved + inner : 0;
      return inner;
    }
  };
  CallCounter reads_;    // shared reads (Op::ReadCount)
  CallCounter effects_;  // effects the frontend marks (Op::EffectCount)
  uint32_t atomicDepth_ = 0; // open atomic sections (nested ones count)
  Action pending_;
};

Value maskToSize(Value v, unsigned size);
Value signExtend(Value v, unsigned size);
// Result of an RMW given the old value (the value written); `writes` false for a failed Cas.
Value rmwResult(RmwOp op, Value old, Value operand, Value expected, unsigned size, bool* writes);

}  // namespace tsocheck

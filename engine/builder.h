// A small C++ API for writing programs directly (tests, examples, benches).
//
//   ProgramBuilder pb("sb.c");
//   auto x = pb.global("x"), y = pb.global("y");
//   auto& t1 = pb.function("t1", 1);
//   t1.at(3).storeGlobal(x, 1);
//   Reg r = t1.at(4).loadGlobal(y);
//   ...
//   Program p = pb.build();
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "engine/fp.h"
#include "engine/ir.h"

namespace tsocheck {

struct Label {
  int id = -1;
};

class FunctionBuilder {
 public:
  FunctionBuilder(Program* prog, uint32_t index, uint32_t numParams);

  uint32_t index() const { return index_; }
  Reg param(uint32_t i) const { return Reg(i); }
  Reg newReg();

  // Source location of the instructions emitted next.
  FunctionBuilder& at(uint32_t line, uint32_t column = 1);

  Reg constant(Value v);
  void constantTo(Reg dst, Value v);
  void mov(Reg dst, Reg src);
  Reg bin(BinOp op, Reg a, Reg b);
  Reg binImm(BinOp op, Reg a, Value imm);
  Reg cmp(CmpOp op, Reg a, Reg b);
  Reg cmpImm(CmpOp op, Reg a, Value imm);
  Reg ext(Reg a, unsigned size, bool isSigned);
  Reg select(Reg cond, Reg a, Reg b);
  // Floating point (size 4: float, 8: double; engine/fp.h).
  Reg fbin(FBinOp op, Reg a, Reg b, unsigned size = 8, Reg c = kNoReg);
  Reg fun(FUnOp op, Reg a, unsigned size = 8);
  Reg fcmp(FCmpPred pred, Reg a, Reg b, unsigned size = 8);
  Reg fconv(FConvOp op, Reg a, unsigned size, unsigned intBits);
  Reg globalAddr(uint32_t global, int64_t offset = 0);
  Reg tlsAddr(uint32_t threadLocal, int64_t offset = 0);  // this thread's copy (Op::TlsAddr)
  Reg funcAddr(uint32_t func);

  Reg load(Reg addr, unsigned size = 4, const std::string& name = "");
  void store(Reg addr, Reg value, unsigned size = 4, const std::string& name = "");
  // Marks the load or store emitted last as a plain C access (kPlainAccess,
  // MemOrder::NonAtomic).
  void markPlain();
  // The C11 memory order of the access or fence emitted last (Instr::order);
  // a compare-exchange fails with the strongest failure order o allows (as
  // C++'s one-order compare_exchange: acq_rel fails acquire, release relaxed).
  void setOrder(MemOrder o);
  // The failure order of the compare-exchange emitted last (Instr::failOrder).
  void setFailOrder(MemOrder o);
  Reg loadGlobal(uint32_t global, unsigned size = 4, int64_t offset = 0);
  void storeGlobal(uint32_t global, Value v, unsigned size = 4, int64_t offset = 0);
  void storeGlobalReg(uint32_t global, Reg v, unsigned size = 4, int64_t offset = 0);
  Reg rmw(RmwOp op, Reg addr, Reg operand, unsigned size = 4, Reg expected = kNoReg);
  Reg rmwGlobal(RmwOp op, uint32_t global, Value operand, unsigned size = 4);
  Reg casGlobal(uint32_t global, Value expected, Value desired, unsigned size = 4);
  void fence(FenceKind k = FenceKind::Full);

  Reg spawn(uint32_t func, Reg arg = kNoReg);
  Reg spawnInd(Reg funcPtr, Reg arg = kNoReg);
  Reg join(Reg tid);
  void joinDiscard(Reg tid);
  void exit(Reg value = kNoReg);
  void exitProgram(Reg value = kNoReg);  // exit(): Op::Exit with kExitProgram
  Reg self();
  Reg nondet(Value max);  // Op::Nondet: any value in 0..max
  // Op::Nondet sub=1: a value of a `size`-byte integer type within the check's nondet range.
  Reg nondetInput(uint8_t size, bool isSigned);
  void atomicBegin();     // Op::AtomicBegin / Op::AtomicEnd: an atomic section
  void atomicEnd();
  // Op::ReadCount: begin returns the saved counter; end(saved) returns the
  // shared reads made since the matching begin.
  Reg readCountBegin();
  Reg readCountEnd(Reg saved);
  void lock(Reg mutex);
  Reg trylock(Reg mutex);
  void unlock(Reg mutex);
  void assertTrue(Reg cond, const std::string& message = "");
  // spin=true marks the load+assume that replaces a spin loop: a thread stuck
  // there while reading the newest value is a hang, not a pruned execution
  // (non-termination; with condWait, the wait of a pthread_cond_wait loop: a
  // deadlock).
  // `reads`: for a spin, a register holding how many reads its idle
  // iteration made (readCountEnd; default: one).
  void assume(Reg cond, bool spin = false, bool condWait = false, Reg reads = kNoReg);
  void fail(const std::string& message = "abort() called");
  void cut(const std::string& message);  // Op::Cut
  Reg malloc(Reg size);
  void free(Reg ptr);
  Reg stackSlot(uint32_t bytes, bool isPrivate);  // Op::Alloca

  Reg call(uint32_t func, const std::vector<Reg>& args, bool wantResult = true);
  Reg callInd(Reg funcPtr, const std::vector<Reg>& args, bool wantResult = true);
  void ret(Reg value = kNoReg);

  Label newLabel();
  void bind(Label l);
  void jmp(Label l);
  void br(Reg cond, Label ifTrue, Label ifFalse);

  Function& fn();

 private:
  Instr& emit(Op op);
  friend class ProgramBuilder;
  void finish();

  Program* prog_;
  uint32_t index_;
  SourceLoc loc_;
  std::vector<int64_t> labels_;  // label -> pc (-1 = unbound)
  struct Fixup { uint32_t pc; int label; bool second; };
  std::vector<Fixup> fixups_;
};

class ProgramBuilder {
 public:
  explicit ProgramBuilder(const std::string& file = "test.c");

  // A global of `size` bytes whose first bytes hold `init` (little-endian).
  uint32_t global(const std::string& name, uint32_t size = 4, Value init = 0, uint32_t elemSize = 0);
  // A thread-local variable (ir.h, ThreadLocal): shared copies in the
  // thread-local window, or private ones (accesses are no events).
  uint32_t threadLocal(const std::string& name, uint32_t size = 4, Value init = 0, bool isPrivate = false);
  uint32_t globalBytes(const std::string& name, std::vector<uint8_t> bytes, uint32_t elemSize = 0);
  FunctionBuilder& function(const std::string& name, uint32_t numParams = 0);
  FunctionBuilder& get(uint32_t index) { return funcs_[index]; }
  void setEntry(uint32_t func) { prog_.entry = func; }
  Program& program() { return prog_; }

  // Resolves labels; the builder must not be used afterwards.
  Program build();

 private:
  Program prog_;
  std::deque<FunctionBuilder> funcs_;
  Addr nextGlobal_ = layout::kFirstGlobal;
};

}  // namespace tsocheck

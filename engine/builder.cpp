#include "engine/builder.h"

#include <algorithm>

#include <stdexcept>

namespace tsocheck {

FunctionBuilder::FunctionBuilder(Program* prog, uint32_t index, uint32_t numParams)
    : prog_(prog), index_(index) {
  fn().numParams = numParams;
  fn().numRegs = numParams;
}

Function& FunctionBuilder::fn() { return prog_->functions[index_]; }

Reg FunctionBuilder::newReg() { return Reg(fn().numRegs++); }

FunctionBuilder& FunctionBuilder::at(uint32_t line, uint32_t column) {
  loc_.file = fn().loc.file;
  loc_.line = line;
  loc_.column = column;
  return *this;
}

Instr& FunctionBuilder::emit(Op op) {
  Instr in;
  in.op = op;
  in.loc = loc_;
  if (in.loc.file == 0) in.loc.file = fn().loc.file;
  fn().code.push_back(in);
  return fn().code.back();
}

Reg FunctionBuilder::constant(Value v) {
  Reg r = newReg();
  constantTo(r, v);
  return r;
}
void FunctionBuilder::constantTo(Reg dst, Value v) {
  Instr& in = emit(Op::Const);
  in.a = dst;
  in.imm = int64_t(v);
}
void FunctionBuilder::mov(Reg dst, Reg src) {
  Instr& in = emit(Op::Mov);
  in.a = dst;
  in.b = src;
}
Reg FunctionBuilder::bin(BinOp op, Reg a, Reg b) {
  Reg r = newReg();
  Instr& in = emit(Op::Bin);
  in.sub = uint8_t(op);
  in.a = r; in.b = a; in.c = b;
  return r;
}
Reg FunctionBuilder::binImm(BinOp op, Reg a, Value imm) { return bin(op, a, constant(imm)); }
Reg FunctionBuilder::cmp(CmpOp op, Reg a, Reg b) {
  Reg r = newReg();
  Instr& in = emit(Op::Cmp);
  in.sub = uint8_t(op);
  in.a = r; in.b = a; in.c = b;
  return r;
}
Reg FunctionBuilder::cmpImm(CmpOp op, Reg a, Value imm) { return cmp(op, a, constant(imm)); }
Reg FunctionBuilder::ext(Reg a, unsigned size, bool isSigned) {
  Reg r = newReg();
  Instr& in = emit(Op::Ext);
  in.a = r; in.b = a; in.size = uint8_t(size); in.sub = isSigned ? 1 : 0;
  return r;
}
Reg FunctionBuilder::fbin(FBinOp op, Reg a, Reg b, unsigned size, Reg c) {
  Reg r = newReg();
  Instr& in = emit(Op::FBin);
  in.sub = uint8_t(op);
  in.a = r; in.b = a; in.c = b; in.d = c; in.size = uint8_t(size);
  return r;
}
Reg FunctionBuilder::fun(FUnOp op, Reg a, unsigned size) {
  Reg r = newReg();
  Instr& in = emit(Op::FUn);
  in.sub = uint8_t(op);
  in.a = r; in.b = a; in.size = uint8_t(size);
  return r;
}
Reg FunctionBuilder::fcmp(FCmpPred pred, Reg a, Reg b, unsigned size) {
  Reg r = newReg();
  Instr& in = emit(Op::FCmp);
  in.sub = uint8_t(pred);
  in.a = r; in.b = a; in.c = b; in.size = uint8_t(size);
  return r;
}
Reg FunctionBuilder::fconv(FConvOp op, Reg a, unsigned size, unsigned intBits) {
  Reg r = newReg();
  Instr& in = emit(Op::FConv);
  in.sub = uint8_t(op);
  in.a = r; in.b = a; in.size = uint8_t(size); in.imm = int64_t(intBits);
  return r;
}
Reg FunctionBuilder::select(Reg cond, Reg a, Reg b) {
  Reg r = newReg();
  Instr& in = emit(Op::Select);
  in.a = r; in.b = cond; in.c = a; in.d = b;
  return r;
}
Reg FunctionBuilder::globalAddr(uint32_t global, int64_t offset) {
  Reg r = newReg();
  Instr& in = emit(Op::GlobalAddr);
  in.a = r; in.imm = global; in.imm2 = offset;
  return r;
}
Reg FunctionBuilder::tlsAddr(uint32_t threadLocal, int64_t offset) {
  Reg r = newReg();
  Instr& in = emit(Op::TlsAddr);
  in.a = r; in.imm = threadLocal; in.imm2 = offset;
  return r;
}
Reg FunctionBuilder::funcAddr(uint32_t func) {
  Reg r = newReg();
  Instr& in = emit(Op::FuncAddr);
  in.a = r; in.imm = func;
  return r;
}

Reg FunctionBuilder::load(Reg addr, unsigned size, const std::string& name) {
  Reg r = newReg();
  Instr& in = emit(Op::Load);
  in.a = r; in.b = addr; in.size = uint8_t(size);
  if (!name.empty()) in.name = prog_->intern(name);
  return r;
}
void FunctionBuilder::store(Reg addr, Reg value, unsigned size, const std::string& name) {
  Instr& in = emit(Op::Store);
  in.b = addr; in.c = value; in.size = uint8_t(size);
  if (!name.empty()) in.name = prog_->intern(name);
}
void FunctionBuilder::markPlain() {
  Instr& in = fn().code.back();
  if (in.op == Op::Load || in.op == Op::Store) {
    in.sub |= kPlainAccess;
    in.order = MemOrder::NonAtomic;
  }
}
void FunctionBuilder::setOrder(MemOrder o) {
  Instr& in = fn().code.back();
  in.order = o;
  in.failOrder = o == MemOrder::AcqRel ? MemOrder::Acquire : o == MemOrder::Release ? MemOrder::Relaxed : o;
}
void FunctionBuilder::setFailOrder(MemOrder o) { fn().code.back().failOrder = o; }
Reg FunctionBuilder::loadGlobal(uint32_t global, unsigned size, int64_t offset) {
  return load(globalAddr(global, offset), size);
}
void FunctionBuilder::storeGlobal(uint32_t global, Value v, unsigned size, int64_t offset) {
  Reg a = globalAddr(global, offset);
  store(a, constant(v), size);
}
void FunctionBuilder::storeGlobalReg(uint32_t global, Reg v, unsigned size, int64_t offset) {
  store(globalAddr(global, offset), v, size);
}
Reg FunctionBuilder::rmw(RmwOp op, Reg addr, Reg operand, unsigned size, Reg expected) {
  Reg r = newReg();
  Instr& in = emit(Op::Rmw);
  in.sub = uint8_t(op);
  in.a = r; in.b = addr; in.c = operand; in.d = expected; in.size = uint8_t(size);
  return r;
}
Reg FunctionBuilder::rmwGlobal(RmwOp op, uint32_t global, Value operand, unsigned size) {
  Reg a = globalAddr(global);
  return rmw(op, a, constant(operand), size);
}
Reg FunctionBuilder::casGlobal(uint32_t global, Value expected, Value desired, unsigned size) {
  Reg a = globalAddr(global);
  Reg e = constant(expected);
  return rmw(RmwOp::Cas, a, constant(desired), size, e);
}
void FunctionBuilder::fence(FenceKind k) { emit(Op::Fence).sub = uint8_t(k); }

Reg FunctionBuilder::spawn(uint32_t func, Reg arg) {
  if (arg == kNoReg) arg = constant(0);
  Reg r = newReg();
  Instr& in = emit(Op::Spawn);
  in.a = r; in.b = arg; in.imm = func;
  return r;
}
Reg FunctionBuilder::spawnInd(Reg funcPtr, Reg arg) {
  if (arg == kNoReg) arg = constant(0);
  Reg r = newReg();
  Instr& in = emit(Op::SpawnInd);
  in.a = r; in.b = arg; in.c = funcPtr;
  return r;
}
Reg FunctionBuilder::join(Reg tid) {
  Reg r = newReg();
  Instr& in = emit(Op::Join);
  in.a = r; in.b = tid;
  return r;
}
void FunctionBuilder::joinDiscard(Reg tid) {
  Instr& in = emit(Op::Join);
  in.b = tid;
}
void FunctionBuilder::exit(Reg value) { emit(Op::Exit).a = value; }
void FunctionBuilder::exitProgram(Reg value) {
  Instr& in = emit(Op::Exit);
  in.a = value;
  in.sub = kExitProgram;
}
Reg FunctionBuilder::self() {
  Reg r = newReg();
  emit(Op::Self).a = r;
  return r;
}
Reg FunctionBuilder::nondet(Value max) {
  Reg r = newReg();
  Instr& in = emit(Op::Nondet);
  in.a = r;
  in.imm = int64_t(max);
  return r;
}
Reg FunctionBuilder::nondetInput(uint8_t size, bool isSigned) {
  Reg r = newReg();
  Instr& in = emit(Op::Nondet);
  in.a = r;
  in.sub = 1;
  in.size = size;
  in.imm = isSigned ? 1 : 0;
  return r;
}

void FunctionBuilder::atomicBegin() { emit(Op::AtomicBegin); }
void FunctionBuilder::atomicEnd() { emit(Op::AtomicEnd); }
Reg FunctionBuilder::readCountBegin() {
  Reg r = newReg();
  Instr& in = emit(Op::ReadCount);
  in.a = r;
  in.sub = 1;
  return r;
}
Reg FunctionBuilder::readCountEnd(Reg saved) {
  Reg r = newReg();
  Instr& in = emit(Op::ReadCount);
  in.a = r;
  in.b = saved;
  return r;
}
void FunctionBuilder::lock(Reg mutex) { emit(Op::Lock).b = mutex; }
Reg FunctionBuilder::trylock(Reg mutex) {
  Reg r = newReg();
  Instr& in = emit(Op::TryLock);
  in.a = r; in.b = mutex;
  return r;
}
void FunctionBuilder::unlock(Reg mutex) { emit(Op::Unlock).b = mutex; }
void FunctionBuilder::assertTrue(Reg cond, const std::string& message) {
  Instr& in = emit(Op::Assert);
  in.a = cond;
  if (!message.empty()) in.name = prog_->intern(message);
}
void FunctionBuilder::assume(Reg cond, bool spin, bool condWait, Reg reads) {
  Instr& in = emit(Op::Assume);
  in.a = cond;
  in.b = reads;
  in.sub = condWait ? 2 : spin ? 1 : 0;
}
void FunctionBuilder::fail(const std::string& message) {
  Instr& in = emit(Op::Fail);
  in.name = prog_->intern(message);
}
void FunctionBuilder::cut(const std::string& message) {
  Instr& in = emit(Op::Cut);
  in.name = prog_->intern(message);
}
Reg FunctionBuilder::malloc(Reg size) {
  Reg r = newReg();
  Instr& in = emit(Op::Malloc);
  in.a = r; in.b = size;
  return r;
}
void FunctionBuilder::free(Reg ptr) { emit(Op::Free).b = ptr; }
Reg FunctionBuilder::stackSlot(uint32_t bytes, bool isPrivate) {
  Reg r = newReg();
  Instr& in = emit(Op::Alloca);
  in.a = r; in.imm = bytes; in.sub = isPrivate ? 1 : 0;
  return r;
}

Reg FunctionBuilder::call(uint32_t func, const std::vector<Reg>& args, bool wantResult) {
  Reg r = wantResult ? newReg() : kNoReg;
  Function& f = fn();
  uint32_t begin = uint32_t(f.args.size());
  f.args.insert(f.args.end(), args.begin(), args.end());
  Instr& in = emit(Op::Call);
  in.a = r; in.imm = func; in.argBegin = begin; in.argCount = uint32_t(args.size());
  return r;
}
Reg FunctionBuilder::callInd(Reg funcPtr, const std::vector<Reg>& args, bool wantResult) {
  Reg r = wantResult ? newReg() : kNoReg;
  Function& f = fn();
  uint32_t begin = uint32_t(f.args.size());
  f.args.insert(f.args.end(), args.begin(), args.end());
  Instr& in = emit(Op::CallInd);
  in.a = r; in.b = funcPtr; in.argBegin = begin; in.argCount = uint32_t(args.size());
  return r;
}
void FunctionBuilder::ret(Reg value) { emit(Op::Ret).a = value; }

Label FunctionBuilder::newLabel() {
  labels_.push_back(-1);
  return Label{int(labels_.size() - 1)};
}
void FunctionBuilder::bind(Label l) { labels_.at(size_t(l.id)) = int64_t(fn().code.size()); }
void FunctionBuilder::jmp(Label l) {
  fixups_.push_back({uint32_t(fn().code.size()), l.id, false});
  emit(Op::Jmp);
}
void FunctionBuilder::br(Reg cond, Label ifTrue, Label ifFalse) {
  uint32_t pc = uint32_t(fn().code.size());
  fixups_.push_back({pc, ifTrue.id, false});
  fixups_.push_back({pc, ifFalse.id, true});
  emit(Op::Br).a = cond;
}

void FunctionBuilder::finish() {
  for (const Fixup& f : fixups_) {
    int64_t target = labels_.at(size_t(f.label));
    if (target < 0) throw std::logic_error("unbound label in " + fn().name);
    Instr& in = fn().code[f.pc];
    (f.second ? in.imm2 : in.imm) = target;
  }
  fixups_.clear();
}

ProgramBuilder::ProgramBuilder(const std::string& file) { prog_.fileIndex(file); }

uint32_t ProgramBuilder::global(const std::string& name, uint32_t size, Value init, uint32_t elemSize) {
  std::vector<uint8_t> bytes(size, 0);
  for (uint32_t i = 0; i < size && i < 8; ++i) bytes[i] = uint8_t(init >> (8 * i));
  return globalBytes(name, std::move(bytes), elemSize);
}

uint32_t ProgramBuilder::globalBytes(const std::string& name, std::vector<uint8_t> bytes, uint32_t elemSize) {
  Global g;
  g.name = name;
  g.size = uint32_t(bytes.size());
  g.addr = layout::placeObject(nextGlobal_, g.size, 16);
  g.init = std::move(bytes);
  g.elemSize = elemSize;
  prog_.globals.push_back(std::move(g));
  return uint32_t(prog_.globals.size() - 1);
}

uint32_t ProgramBuilder::threadLocal(const std::string& name, uint32_t size, Value init, bool isPrivate) {
  ThreadLocal v;
  v.name = name;
  v.size = size;
  v.isPrivate = isPrivate;
  v.init.assign(size, 0);
  for (uint32_t i = 0; i < size && i < 8; ++i) v.init[i] = uint8_t(init >> (8 * i));
  uint64_t end = 0;
  for (const ThreadLocal& o : prog_.threadLocals)
    if (o.isPrivate == isPrivate) end = std::max<uint64_t>(end, o.offset + o.size);
  v.offset = (end + 15) / 16 * 16;
  if (isPrivate) prog_.tlsPrivateSize = (v.offset + size + 15) / 16 * 16;
  prog_.threadLocals.push_back(std::move(v));
  return uint32_t(prog_.threadLocals.size() - 1);
}

FunctionBuilder& ProgramBuilder::function(const std::string& name, uint32_t numParams) {
  Function f;
  f.name = name;
  f.loc.file = 1;
  prog_.functions.push_back(std::move(f));
  funcs_.emplace_back(&prog_, uint32_t(prog_.functions.size() - 1), numParams);
  return funcs_.back();
}

Program ProgramBuilder::build() {
  for (FunctionBuilder& f : funcs_) f.finish();
  return std::move(prog_);
}

}  // namespace tsocheck

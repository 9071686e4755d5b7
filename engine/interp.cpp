#include "engine/interp.h"

#include <algorithm>
#include <cstring>

#include "engine/fp.h"

namespace tsocheck {

bool isWait(const Action& a) { return a.kind == ActionKind::Blocked && (a.value == 2 || a.value == 3); }

std::string waitText(const Action& a) {
  if (a.value == 3 && !a.message.empty()) return a.message;
  return "waits on a condition variable no thread will signal";
}


const char* errorKindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::None: return "none";
    case ErrorKind::Assertion: return "assertion";
    case ErrorKind::Deadlock: return "deadlock";
    case ErrorKind::Memory: return "memory";
    case ErrorKind::Arithmetic: return "arithmetic";
    case ErrorKind::NonTermination: return "nontermination";
    case ErrorKind::Race: return "race";
    case ErrorKind::DataRace: return "data-race";
  }
  return "?";
}

Value maskToSize(Value v, unsigned size) {
  if (size >= 8) return v;
  return v & ((Value(1) << (8 * size)) - 1);
}

Value signExtend(Value v, unsigned size) {
  if (size >= 8) return v;
  unsigned bits = 8 * size;
  Value m = Value(1) << (bits - 1);
  v = maskToSize(v, size);
  return (v ^ m) - m;
}

std::string nondetRangeText(const Limits& l) {
  return "nondet values limited to " + std::to_string(l.nondetLo) + ".." + std::to_string(l.nondetHi);
}

Value choiceValue(const Action& a, Value i) { return maskToSize(a.expected + i, a.size ? a.size : 8); }

Value rmwResult(RmwOp op, Value old, Value operand, Value expected, unsigned size, bool* writes) {
  *writes = true;
  Value r = 0;
  switch (op) {
    case RmwOp::Xchg: r = operand; break;
    case RmwOp::Cas:
      if (maskToSize(old, size) != maskToSize(expected, size)) {
        *writes = false;
        return old;
      }
      r = operand;
      break;
    case RmwOp::Add: r = old + operand; break;
    case RmwOp::Sub: r = old - operand; break;
    case RmwOp::And: r = old & operand; break;
    case RmwOp::Or: r = old | operand; break;
    case RmwOp::Xor: r = old ^ operand; break;
    case RmwOp::Nand: r = ~(old & operand); break;
    case RmwOp::Max:
    case RmwOp::Min: {
      const int64_t a = int64_t(signExtend(old, size)), b = int64_t(signExtend(operand, size));
      r = Value(op == RmwOp::Max ? std::max(a, b) : std::min(a, b));
      break;
    }
    case RmwOp::UMax:
    case RmwOp::UMin: {
      const Value a = maskToSize(old, size), b = maskToSize(operand, size);
      r = op == RmwOp::UMax ? std::max(a, b) : std::min(a, b);
      break;
    }
    case RmwOp::FAdd: r = fpBinary(FBinOp::Add, size, old, operand); break;
    case RmwOp::FSub: r = fpBinary(FBinOp::Sub, size, old, operand); break;
    case RmwOp::FMax: r = fpBinary(FBinOp::MaxNum, size, old, operand); break;
    case RmwOp::FMin: r = fpBinary(FBinOp::MinNum, size, old, operand); break;
  }
  return maskToSize(r, size);
}

namespace {
constexpr uint64_t align16(uint64_t n) { return (n + 15) & ~uint64_t(15); }
}  // namespace

ThreadState::ThreadState(const Program& prog, uint32_t tid, uint32_t func, Value arg,
                         const Limits& limits)
    : prog_(&prog), limits_(limits), tid_(tid) {
  const Function& f = prog.functions.at(func);
  Frame fr;
  fr.func = func;
  fr.regs.assign(std::max<uint32_t>(f.numRegs, 1), 0);
  if (f.numParams > 0) fr.regs[0] = arg;
  // Private thread-local copies open the private window, initialised.
  if (prog.tlsPrivateSize) {
    privTop_ = prog.tlsPrivateSize;
    priv_.assign(privTop_, 0);
    for (const ThreadLocal& v : prog.threadLocals)
      if (v.isPrivate)
        std::copy(v.init.begin(), v.init.begin() + std::min<size_t>(v.init.size(), v.size), priv_.begin() + v.offset);
    privSlots_.push_back(PrivSlot{0, privTop_, 0});
  }
  // A red zone before the first slot too (an underrun stays in the window).
  privAddrTop_ = std::max<uint64_t>(privTop_ + layout::redZone(privTop_), layout::kFirstSlot);
  stackTop_ = layout::kFirstSlot;
  fr.stackMark = stackTop_;
  fr.privSlotMark = uint32_t(privSlots_.size());
  frames_.push_back(std::move(fr));
  run();
}

const std::vector<Value>& ThreadState::currentRegisters() const {
  static const std::vector<Value> empty;
  return frames_.empty() ? empty : frames_.back().regs;
}

uint32_t ThreadState::currentFunction() const {
  return frames_.empty() ? 0 : frames_.back().func;
}

const HeapBlock* ThreadState::heapBlockAt(Addr a) const {
  // Blocks are allocated at increasing addresses.
  auto it = std::upper_bound(heap_.begin(), heap_.end(), a,
                             [](Addr x, const HeapBlock& b) { return x < b.addr; });
  if (it == heap_.begin()) return nullptr;
  --it;
  if (a >= it->addr && a < it->addr + std::max<uint64_t>(it->size, 1)) return &*it;
  return nullptr;
}

const HeapBlock* ThreadState::heapBlockBefore(Addr a) const {
  auto it = std::upper_bound(heap_.begin(), heap_.end(), a,
                             [](Addr x, const HeapBlock& b) { return x < b.addr; });
  return it == heap_.begin() ? nullptr : &*(it - 1);
}

namespace {
// The slot of `slots` (by increasing `at`) that holds [off, off + size), or
// nullptr. Scanned from the newest: the slot accessed is nearly always one of
// the last few.
template <class Slots>
auto slotHolding(const Slots& slots, uint64_t off, uint64_t size) -> decltype(&*slots.begin()) {
  for (auto p = slots.end(); p != slots.begin();) {
    --p;
    if (p->at <= off) return off + size <= p->at + p->size ? &*p : nullptr;
  }
  return nullptr;
}
}  // namespace

bool ThreadState::ownsStackAddress(Addr a, uint64_t size) const {
  Addr base = layout::kStackBase + tid_ * layout::kThreadStride;
  return a >= base && a - base < layout::kThreadStride && slotHolding(stackSlots_, a - base, size);
}

std::string ThreadState::slotOverrun(Addr a) const {
  const Addr priv = layout::kPrivateBase + tid_ * layout::kThreadStride;
  const Addr shared = layout::kStackBase + tid_ * layout::kThreadStride;
  const bool isPriv = a >= priv && a - priv < layout::kThreadStride;
  if (!isPriv && !(a >= shared && a - shared < layout::kThreadStride)) return "";
  const uint64_t rel = a - (isPriv ? priv : shared);
  // The nearest slot: the one whose end or start is closest to rel.
  int64_t best = -1;
  uint64_t bestSize = 0, bestDist = UINT64_MAX;
  auto consider = [&](uint64_t at, uint64_t size) {
    const uint64_t d = rel < at ? at - rel : rel >= at + size ? rel - (at + size) + 1 : 0;
    if (d < bestDist) bestDist = d, best = int64_t(rel) - int64_t(at), bestSize = size;
  };
  if (isPriv) {
    for (const PrivSlot& p : privSlots_) consider(p.at, p.size);
  } else {
    for (const StackSlot& p : stackSlots_) consider(p.at, p.size);
  }
  if (bestDist == UINT64_MAX || bestDist > layout::kThreadStride / 2) return "";
  return "out-of-bounds access to a stack slot (offset " + std::to_string(best) + " of a " + std::to_string(bestSize) +
         "-byte slot)";
}

bool ThreadState::isPrivate(Addr a) const {
  return a >= layout::kPrivateBase && a < layout::kHeapBase;
}

void ThreadState::stop(ActionKind k, const Instr& in) {
  pending_ = Action{};
  pending_.kind = k;
  pending_.function = frames_.empty() ? 0 : frames_.back().func;
  pending_.pc = frames_.empty() ? 0 : frames_.back().pc;
  pending_.loc = in.loc;
  pending_.name = in.name;
  pending_.order = in.order;
  pending_.failOrder = in.failOrder;
  if (k == ActionKind::Load || k == ActionKind::Rmw || k == ActionKind::Lock || k == ActionKind::TryLock ||
      k == ActionKind::Unlock)
    reads_.add();
}

void ThreadState::fail(ErrorKind e, const Instr& in, std::string msg) {
  stop(ActionKind::Error, in);
  pending_.error = e;
  pending_.message = std::move(msg);
}

// Loads and stores to private stack slots never leave the thread.
bool ThreadState::privateAccess(const Instr& in, Addr a, bool store, Value* v) {
  Addr base = layout::kPrivateBase + tid_ * layout::kThreadStride;
  const PrivSlot* slot = a >= base && a - base < privAddrTop_ ? slotHolding(privSlots_, a - base, in.size) : nullptr;
  if (!slot) {
    const std::string overrun = slotOverrun(a);
    fail(ErrorKind::Memory, in,
         overrun.empty() ? "access to a private stack slot of another thread or out of its bounds" : overrun);
    return false;
  }
  const uint64_t off = slot->store + (a - base - slot->at);
  if (store) {
    Value x = *v;
    std::memcpy(&priv_[off], &x, in.size);  // little-endian host
  } else {
    Value x = 0;
    std::memcpy(&x, &priv_[off], in.size);
    *v = x;
  }
  return true;
}

bool ThreadState::doCall(uint32_t func, const Instr& in, Frame& caller) {
  const Function& f = prog_->functions[func];
  if (frames_.size() >= limits_.maxCallDepth) {
    stop(ActionKind::Limit, in);
    pending_.message = "call depth limit (" + std::to_string(limits_.maxCallDepth) +
                       ") reached calling " + f.name;
    return false;
  }
  Frame fr;
  fr.func = func;
  fr.ret = in.a;
  fr.regs.assign(std::max<uint32_t>(f.numRegs, 1), 0);
  const Function& cf = prog_->functions[caller.func];
  for (uint32_t i = 0; i < in.argCount && i < f.numParams; ++i)
    fr.regs[i] = caller.regs[cf.args[in.argBegin + i]];
  fr.stackMark = stackTop_;
  fr.privSlotMark = uint32_t(privSlots_.size());
  caller.pc++;  // resume after the call on return
  frames_.push_back(std::move(fr));
  return true;
}

void ThreadState::doReturn(Value v, bool hasValue) {
  Frame done = std::move(frames_.back());
  frames_.pop_back();
  stackTop_ = done.stackMark;
  // The frame's private slots end with it (the first one began where the
  // frame's began).
  if (privSlots_.size() > done.privSlotMark) {
    const PrivSlot& first = privSlots_.begin()[done.privSlotMark];
    privTop_ = first.store;
    privAddrTop_ = first.at;
    privSlots_.shrink(done.privSlotMark);
  }
  if (frames_.empty()) {
    // Returning from the thread's entry function ends the thread.
    const Function& f = prog_->functions[done.func];
    Instr fake;
    fake.loc = f.code.empty() ? f.loc : f.code[std::min<size_t>(done.pc, f.code.size() - 1)].loc;
    stop(ActionKind::Exit, fake);
    pending_.function = done.func;
    pending_.pc = done.pc;
    pending_.value = hasValue ? v : 0;
    return;
  }
  if (done.ret != kNoReg) frames_.back().regs[done.ret] = v;
}

void ThreadState::complete(Value result) {
  Frame& fr = frames_.back();
  const Instr& in = prog_->functions[fr.func].code[fr.pc];
  switch (in.op) {
    case Op::Load:
    case Op::Rmw:
    case Op::Spawn:
    case Op::SpawnInd:
    case Op::Join:
    case Op::TryLock:
    case Op::BlockSize:
    case Op::Nondet:
      if (in.a != kNoReg) fr.regs[in.a] = result;
      break;
    case Op::AtomicBegin:
      ++atomicDepth_;
      break;
    default: break;
  }
  fr.pc++;
  run();
}

void ThreadState::cut(std::string message) {
  pending_.kind = ActionKind::Limit;
  pending_.message = std::move(message);
}

void ThreadState::run() {
  for (;;) {
    if (frames_.empty()) return;  // Exit already set by doReturn
    Frame& fr = frames_.back();
    const Function& f = prog_->functions[fr.func];
    if (fr.pc >= f.code.size()) {  // falling off the end: implicit return
      doReturn(0, false);
      if (frames_.empty()) return;
      continue;
    }
    const Instr& in = f.code[fr.pc];
    if (++steps_ > limits_.maxSteps) {
      stop(ActionKind::Limit, in);
      pending_.message = "step limit (" + std::to_string(limits_.maxSteps) +
                         " instructions) reached in " + f.name;
      return;
    }
    // A long run between visible actions still honours the time limit.
    if ((steps_ & 0xffff) == 0 && limits_.timeUp()) {
      stop(ActionKind::Limit, in);
      pending_.message = "time limit reached";
      stoppedByTime_ = true;
      return;
    }
    auto R = [&](Reg r) -> Value& { return fr.regs[r]; };
    switch (in.op) {
      case Op::Nop: fr.pc++; break;
      case Op::Const: R(in.a) = Value(in.imm); fr.pc++; break;
      case Op::Mov: R(in.a) = R(in.b); fr.pc++; break;
      case Op::Bin: {
        Value x = R(in.b), y = R(in.c), r = 0;
        switch (BinOp(in.sub)) {
          case BinOp::Add: r = x + y; break;
          case BinOp::Sub: r = x - y; break;
          case BinOp::Mul: r = x * y; break;
          case BinOp::And: r = x & y; break;
          case BinOp::Or: r = x | y; break;
          case BinOp::Xor: r = x ^ y; break;
          case BinOp::Shl: r = (y >= 64) ? 0 : x << y; break;
          case BinOp::LShr: r = (y >= 64) ? 0 : x >> y; break;
          case BinOp::AShr: r = Value(int64_t(x) >> std::min<Value>(y, 63)); break;
          case BinOp::UDiv: case BinOp::SDiv: case BinOp::URem: case BinOp::SRem:
            if (y == 0) { fail(ErrorKind::Arithmetic, in, "division by zero"); return; }
            if (BinOp(in.sub) == BinOp::UDiv) r = x / y;
            else if (BinOp(in.sub) == BinOp::URem) r = x % y;
            else if (int64_t(y) == -1) r = BinOp(in.sub) == BinOp::SDiv ? Value(0) - x : 0;
            else if (BinOp(in.sub) == BinOp::SDiv) r = Value(int64_t(x) / int64_t(y));
            else r = Value(int64_t(x) % int64_t(y));
            break;
        }
        R(in.a) = r;
        fr.pc++;
        break;
      }
      case Op::Cmp: {
        Value x = R(in.b), y = R(in.c);
        int64_t sx = int64_t(x), sy = int64_t(y);
        bool r = false;
        switch (CmpOp(in.sub)) {
          case CmpOp::Eq: r = x == y; break;
          case CmpOp::Ne: r = x != y; break;
          case CmpOp::Ult: r = x < y; break;
          case CmpOp::Ule: r = x <= y; break;
          case CmpOp::Ugt: r = x > y; break;
          case CmpOp::Uge: r = x >= y; break;
          case CmpOp::Slt: r = sx < sy; break;
          case CmpOp::Sle: r = sx <= sy; break;
          case CmpOp::Sgt: r = sx > sy; break;
          case CmpOp::Sge: r = sx >= sy; break;
        }
        R(in.a) = r ? 1 : 0;
        fr.pc++;
        break;
      }
      case Op::Ext:
        R(in.a) = in.sub ? signExtend(R(in.b), in.size) : maskToSize(R(in.b), in.size);
        fr.pc++;
        break;
      case Op::FBin:
        R(in.a) = fpBinary(FBinOp(in.sub), in.size, R(in.b), R(in.c), in.d == kNoReg ? 0 : R(in.d));
        fr.pc++;
        break;
      case Op::FUn: R(in.a) = fpUnary(FUnOp(in.sub), in.size, R(in.b)); fr.pc++; break;
      case Op::FCmp: R(in.a) = fpCompare(FCmpPred(in.sub), in.size, R(in.b), R(in.c)) ? 1 : 0; fr.pc++; break;
      case Op::FConv: R(in.a) = fpConvert(FConvOp(in.sub), in.size, unsigned(in.imm), R(in.b)); fr.pc++; break;
      case Op::Select: R(in.a) = R(in.b) ? R(in.c) : R(in.d); fr.pc++; break;
      case Op::Jmp: fr.pc = uint32_t(in.imm); break;
      case Op::Br: fr.pc = uint32_t(R(in.a) ? in.imm : in.imm2); break;
      case Op::FuncAddr: R(in.a) = layout::kFunctionBase + Value(in.imm) * 16; fr.pc++; break;
      case Op::GlobalAddr:
        R(in.a) = prog_->globals.at(size_t(in.imm)).addr + Value(in.imm2);
        fr.pc++;
        break;
      case Op::TlsAddr: {
        const ThreadLocal& v = prog_->threadLocals.at(size_t(in.imm));
        R(in.a) = (v.isPrivate ? layout::kPrivateBase + tid_ * layout::kThreadStride
                               : layout::kTlsBase + tid_ * layout::kTlsStride) +
                  v.offset + Value(in.imm2);
        fr.pc++;
        break;
      }
      case Op::Self: R(in.a) = tid_; fr.pc++; break;
      case Op::ReadCount:
      case Op::EffectCount: {
        CallCounter& c = in.op == Op::ReadCount ? reads_ : effects_;
        if (in.sub == 2) {
          if (in.b == kNoReg || R(in.b) != 0) c.add();
        } else if (in.sub == 1) {
          R(in.a) = c.begin();
        } else {
          R(in.a) = c.end(in.b == kNoReg ? 0 : R(in.b));
        }
        fr.pc++;
        break;
      }
      case Op::Call:
        if (!doCall(uint32_t(in.imm), in, fr)) return;
        break;
      case Op::CallInd: {
        Value t = R(in.b);
        Value idx = (t - layout::kFunctionBase) / 16;
        if (t < layout::kFunctionBase || (t - layout::kFunctionBase) % 16 != 0 ||
            idx >= prog_->functions.size()) {
          fail(ErrorKind::Memory, in, "call through an invalid function pointer");
          return;
        }
        if (!doCall(uint32_t(idx), in, fr)) return;
        break;
      }
      case Op::Ret: {
        bool has = in.a != kNoReg;
        Value v = has ? R(in.a) : 0;
        doReturn(v, has);
        if (frames_.empty()) return;  // thread exit
        break;
      }
      case Op::Alloca: {
        const uint64_t size = uint64_t(std::max<int64_t>(in.imm, 1));  // the slot (its accesses stay inside)
        if (size > kMaxAllocation) {
          fail(ErrorKind::Memory, in, "a local variable of " + std::to_string(size) + " bytes (more than 1 GiB)");
          return;
        }
        uint64_t n = align16(size);
        // A large non-escaping local goes to the shared window instead: a
        // private slot's bytes are copied with the thread's state. (Its
        // accesses then become events; the address is valid either way.)
        const bool priv = in.sub && size <= kMaxPrivateSlot;
        if ((priv ? privAddrTop_ : stackTop_) + n + layout::redZone(n) > layout::kThreadStride) {
          fail(ErrorKind::Memory, in, "stack overflow: the thread's stack window (4 GiB) is exhausted");
          return;
        }
        // (Slots and their red zones: Frame, PrivSlot.)
        if (priv) {
          privSlots_.push_back(PrivSlot{privAddrTop_, size, privTop_});
          Addr a = layout::kPrivateBase + tid_ * layout::kThreadStride + privAddrTop_;
          privAddrTop_ += n + layout::redZone(n);
          privTop_ += n;
          if (priv_.size() < privTop_) priv_.resize(privTop_);
          std::fill(priv_.begin() + (privTop_ - n), priv_.begin() + privTop_, 0);
          R(in.a) = a;
        } else {
          // A returned frame's slots stay valid until this one takes their place.
          while (!stackSlots_.empty() && stackSlots_.back().at >= stackTop_) stackSlots_.pop_back();
          stackSlots_.push_back(StackSlot{stackTop_, size});
          Addr a = layout::kStackBase + tid_ * layout::kThreadStride + stackTop_;
          stackTop_ += n + layout::redZone(n);
          R(in.a) = a;
        }
        fr.pc++;
        break;
      }
      case Op::Malloc: {
        uint64_t n = R(in.b);
        if (n > kMaxAllocation) {
          fail(ErrorKind::Memory, in,
               int64_t(n) < 0 ? "malloc of a negative size (" + std::to_string(int64_t(n)) + ")"
                              : "malloc of " + std::to_string(n) + " bytes (more than 1 GiB)");
          return;
        }
        // Blocks start 16-byte aligned; r[c] (a power of two) may ask for more.
        const uint64_t align = in.c == kNoReg ? 16 : std::max<uint64_t>(R(in.c), 16);
        const uint64_t start = align > layout::kThreadStride ? layout::kThreadStride
                                                             : (heapTop_ + align - 1) & ~(align - 1);
        if (start + align16(std::max<uint64_t>(n, 1)) + layout::redZone(n) > layout::kThreadStride) {
          fail(ErrorKind::Memory, in, "malloc of " + std::to_string(n) + " bytes: the thread's heap (4 GiB) is exhausted");
          return;
        }
        Addr a = layout::kHeapBase + tid_ * layout::kThreadStride + start;
        heapTop_ = start + align16(std::max<uint64_t>(n, 1)) + layout::redZone(n);  // the gap catches overruns
        heap_.push_back(HeapBlock{a, n});
        R(in.a) = a;
        fr.pc++;
        break;
      }
      case Op::Load: {
        Addr a = R(in.b);
        if (isPrivate(a)) {
          Value v = 0;
          if (!privateAccess(in, a, false, &v)) return;
          R(in.a) = v;
          fr.pc++;
          break;
        }
        stop(ActionKind::Load, in);
        pending_.addr = a;
        pending_.size = in.size;
        return;
      }
      case Op::Store: {
        Addr a = R(in.b);
        Value v = maskToSize(R(in.c), in.size);
        if (isPrivate(a)) {
          if (!privateAccess(in, a, true, &v)) return;
          fr.pc++;
          break;
        }
        stop(ActionKind::Store, in);
        pending_.addr = a;
        pending_.size = in.size;
        pending_.value = v;
        return;
      }
      case Op::Rmw: {
        Addr a = R(in.b);
        if (isPrivate(a)) {
          Value old = 0;
          if (!privateAccess(in, a, false, &old)) return;
          bool writes = false;
          Value nv = rmwResult(RmwOp(in.sub), old, R(in.c), in.d == kNoReg ? 0 : R(in.d), in.size, &writes);
          if (writes && !privateAccess(in, a, true, &nv)) return;
          R(in.a) = old;
          fr.pc++;
          break;
        }
        stop(ActionKind::Rmw, in);
        pending_.addr = a;
        pending_.size = in.size;
        pending_.rmw = RmwOp(in.sub);
        pending_.value = maskToSize(R(in.c), in.size);
        pending_.expected = in.d == kNoReg ? 0 : maskToSize(R(in.d), in.size);
        return;
      }
      case Op::Fence:
        stop(ActionKind::Fence, in);
        pending_.fence = FenceKind(in.sub);
        return;
      case Op::Spawn:
        stop(ActionKind::Spawn, in);
        pending_.func = uint32_t(in.imm);
        pending_.value = R(in.b);
        return;
      case Op::SpawnInd: {
        Value t = R(in.c);
        Value idx = (t - layout::kFunctionBase) / 16;
        if (t < layout::kFunctionBase || (t - layout::kFunctionBase) % 16 != 0 ||
            idx >= prog_->functions.size()) {
          fail(ErrorKind::Memory, in, "thread start routine is not a valid function pointer");
          return;
        }
        stop(ActionKind::Spawn, in);
        pending_.func = uint32_t(idx);
        pending_.value = R(in.b);
        return;
      }
      case Op::Join:
        stop(ActionKind::Join, in);
        pending_.target = uint32_t(R(in.b));
        return;
      case Op::Exit:
        stop(ActionKind::Exit, in);
        pending_.value = in.a == kNoReg ? 0 : R(in.a);
        frames_.clear();
        return;
      case Op::Lock:
      case Op::TryLock:
      case Op::Unlock:
        stop(in.op == Op::Lock ? ActionKind::Lock
                               : in.op == Op::TryLock ? ActionKind::TryLock : ActionKind::Unlock,
             in);
        pending_.addr = R(in.b);
        pending_.size = 4;
        return;
      case Op::Nondet: {
        // The values as signed 128-bit integers: [lo, hi] of the type, cut to the range.
        __int128 lo = in.imm2, hi = in.imm;
        unsigned size = 8;
        bool limited = false;
        if (in.sub == 1) {
          size = in.size >= 1 && in.size <= 8 ? in.size : 8;
          const unsigned bits = 8 * size;
          const __int128 tmin = in.imm ? -(__int128(1) << (bits - 1)) : 0;
          const __int128 tmax = in.imm ? (__int128(1) << (bits - 1)) - 1 : (__int128(1) << bits) - 1;
          lo = std::max<__int128>(tmin, limits_.nondetLo);
          hi = std::min<__int128>(tmax, limits_.nondetHi);
          limited = lo != tmin || hi != tmax;
          if (lo > hi) {
            stop(ActionKind::Limit, in);
            pending_.message = "no value of the nondet input's " + std::to_string(bits) + "-bit " +
                               (in.imm ? "signed" : "unsigned") + " type is in the range " +
                               std::to_string(limits_.nondetLo) + ".." + std::to_string(limits_.nondetHi);
            return;
          }
        }
        stop(ActionKind::Choice, in);
        pending_.size = uint8_t(size);
        pending_.expected = maskToSize(Value(int64_t(lo)), size);
        pending_.value = Value(hi - lo);
        pending_.limited = limited;
        return;
      }
      case Op::AtomicBegin:
        if (atomicDepth_ > 0) {  // nested: already alone
          ++atomicDepth_;
          fr.pc++;
          break;
        }
        stop(ActionKind::AtomicBegin, in);
        return;
      case Op::AtomicEnd:
        if (atomicDepth_ > 0) --atomicDepth_;
        fr.pc++;
        break;
      case Op::BlockSize:
        if (R(in.b) == 0) {
          R(in.a) = 0;
          fr.pc++;
          break;
        }
        stop(ActionKind::BlockSize, in);
        pending_.addr = R(in.b);
        return;
      case Op::Free:
        if (R(in.b) == 0) { fr.pc++; break; }
        stop(ActionKind::Free, in);
        pending_.addr = R(in.b);
        return;
      case Op::Assert:
        if (R(in.a) == 0) {
          std::string msg = in.name ? prog_->strings[in.name] : std::string("assertion failed");
          fail(in.sub == 1 ? ErrorKind::Memory : ErrorKind::Assertion, in, msg);
          return;
        }
        fr.pc++;
        break;
      case Op::Assume:
        if (R(in.a) == 0) {
          Value reads = (in.sub && in.b != kNoReg) ? R(in.b) : 1;
          stop(ActionKind::Blocked, in);
          pending_.value = in.sub;  // 1: a spin loop's await, 2: a cond_wait loop's, 3: a
                                    // blocking primitive's (message: what it waits for), 0: a plain assume
          pending_.target = uint32_t(reads);  // await: reads made by the idle iteration
          if (in.sub == 3 && in.name) pending_.message = prog_->strings[in.name];
          return;
        }
        fr.pc++;
        break;
      case Op::Cut:
        stop(ActionKind::Limit, in);
        pending_.message = in.name ? prog_->strings[in.name] : std::string("bound reached");
        return;
      case Op::Fail:
        fail(ErrorKind::Assertion, in, in.name ? prog_->strings[in.name] : std::string("abort() called"));
        return;
    }
  }
}

}  // namespace tsocheck

namespace tsocheck {

namespace {
template <class T>
void putRaw(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
}  // namespace

size_t ThreadState::heapBytes() const {
  size_t n = frames_.capacity() * sizeof(Frame) + priv_.capacity() + heap_.capacity() * sizeof(HeapBlock) +
             privSlots_.heapBytes() + stackSlots_.heapBytes() +
             pending_.message.capacity();
  for (const Frame& f : frames_) n += f.regs.capacity() * sizeof(Value);
  return n;
}

void ThreadState::appendKey(std::string& out) const {
  putRaw(out, uint32_t(frames_.size()));
  for (const Frame& f : frames_) {
    putRaw(out, f.func);
    putRaw(out, f.pc);
    putRaw(out, f.ret);
    putRaw(out, f.stackMark);
    putRaw(out, f.privSlotMark);
    putRaw(out, uint32_t(f.regs.size()));
    out.append(reinterpret_cast<const char*>(f.regs.data()), f.regs.size() * sizeof(Value));
  }
  putRaw(out, stackTop_);
  putRaw(out, privTop_);
  putRaw(out, privAddrTop_);
  // Bytes above privTop_ are zeroed again when a slot is handed out.
  const size_t live = std::min<size_t>(priv_.size(), privTop_);
  out.append(reinterpret_cast<const char*>(priv_.data()), live);
  putRaw(out, uint32_t(privSlots_.size()));
  for (const PrivSlot& p : privSlots_) putRaw(out, p.size);
  putRaw(out, uint32_t(stackSlots_.size()));
  for (const StackSlot& p : stackSlots_) {
    putRaw(out, p.at);
    putRaw(out, p.size);
  }
  putRaw(out, uint32_t(heap_.size()));
  for (const HeapBlock& b : heap_) {
    putRaw(out, b.addr);
    putRaw(out, b.size);
  }
  putRaw(out, heapTop_);
  putRaw(out, reads_.depth);
  putRaw(out, atomicDepth_);
  putRaw(out, reads_.count);
  putRaw(out, effects_.depth);
  putRaw(out, effects_.count);
  const Action& a = pending_;
  putRaw(out, uint8_t(a.kind));
  putRaw(out, a.addr);
  putRaw(out, a.size);
  putRaw(out, uint8_t(a.rmw));
  putRaw(out, uint8_t(a.fence));
  putRaw(out, a.value);
  putRaw(out, a.expected);
  putRaw(out, a.func);
  putRaw(out, a.target);
  putRaw(out, a.function);
  putRaw(out, a.pc);
}

}  // namespace tsocheck

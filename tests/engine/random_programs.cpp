#include "tests/engine/random_programs.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/builder.h"

namespace tsocheck::testing {

namespace {

// Program shape, generated first so that its size can be estimated before
// anything is built.
struct GenOp {
  enum Kind { Store, Load, FenceFull, FenceStoreStore, FetchAdd, Xchg, Cas, Branch, SectionBegin, SectionEnd } kind = Store;
  uint32_t loc = 0;
  Value value = 0;     // stored constant / rmw operand / cas desired / branch constant
  Value expected = 0;  // cas expected
  int slot = -1;       // Load/RMW: result slot; Branch: slot of the tested value
  MemOrder order = MemOrder::SeqCst;  // accesses and fences (RandomProgramSpec::memoryOrders)
  MemOrder failOrder = MemOrder::SeqCst;  // Cas: the order of a failed compare-exchange
  bool plain = false;  // Load / Store: a plain C access (RandomProgramSpec::plainAccesses)
  std::vector<GenOp> thenOps, elseOps;
};

struct GenThread {
  std::vector<GenOp> ops;
  int slots = 0;  // values read
};

struct GenProgram {
  uint32_t locations = 1;
  std::vector<Value> init;
  std::vector<GenThread> threads;
};

class Gen {
 public:
  Gen(uint64_t seed, const RandomProgramSpec& spec) : rng_(seed), spec_(spec) {}

  // Shape first (thread count, locations), so that the budget below only
  // shrinks thread bodies and never skews the distribution of shapes.
  GenProgram shape() {
    GenProgram p;
    // Fewer single-location programs: they cannot show weak behaviours.
    p.locations = range(spec_.minLocations, spec_.maxLocations);
    if (p.locations == 1 && spec_.maxLocations > 1 && pick(2)) p.locations = 2;
    for (uint32_t i = 0; i < p.locations; ++i) p.init.push_back(pick(4) == 0 ? 1 : 0);
    // Thread counts weighted towards the low end (the state space grows fast).
    uint32_t threads = spec_.minThreads;
    while (threads < spec_.maxThreads && pick(5) < 2) ++threads;
    p.threads.resize(threads);
    return p;
  }

  // maxAccesses: cap on the per-thread access count (lowered by the caller
  // while candidates stay over budget).
  void bodies(GenProgram& p, uint32_t maxAccesses) {
    // Two times out of three the threads start from a critical cycle, like diy's
    // litmus tests: thread i accesses location i, then location i+1 (store or
    // load each), which gives SB, MP, LB, 2+2W, R, S, ... shapes.
    bool cycle = p.locations >= 2 && maxAccesses >= 2 && pick(3) != 0;
    uint32_t first = pick(p.locations);
    for (size_t t = 0; t < p.threads.size(); ++t) {
      std::vector<GenOp> skeleton;
      if (cycle) {
        for (uint32_t j = 0; j < 2; ++j) {
          GenOp op;
          // Mostly store-then-load (SB-like, where buffering shows).
          op.kind = (pick(3) == 0) == (j == 0) ? GenOp::Load : GenOp::Store;
          op.loc = uint32_t((first + t + j) % p.locations);
          op.value = 1 + pick(3);
          skeleton.push_back(op);
        }
      }
      p.threads[t] = thread(p.locations, maxAccesses, std::move(skeleton));
    }
  }

 private:
  uint32_t pick(uint32_t n) { return n <= 1 ? 0 : uint32_t(rng_() % n); }
  uint32_t range(uint32_t lo, uint32_t hi) { return hi <= lo ? lo : lo + pick(hi - lo + 1); }

  // A single shared access. Loads prefer locations the thread has not stored
  // to (a load of an own buffered store hides the buffer from others).
  GenOp access(uint32_t locations, std::vector<bool>& written) {
    GenOp op;
    uint32_t r = pick(spec_.rmws ? 20 : 17);
    if (r < 9) {
      op.kind = GenOp::Store;
      op.value = 1 + pick(3);
    } else if (r < 17) {
      op.kind = GenOp::Load;
    } else if (r < 19) {
      op.kind = pick(2) ? GenOp::FetchAdd : GenOp::Xchg;
      op.value = op.kind == GenOp::FetchAdd ? 1 + pick(2) : 1 + pick(3);
    } else {
      op.kind = GenOp::Cas;
      op.expected = pick(3);
      op.value = 1 + pick(3);
    }
    op.loc = pick(locations);
    if (op.kind == GenOp::Load && written[op.loc] && pick(4) != 0) op.loc = pick(locations);
    if (op.kind != GenOp::Load) written[op.loc] = true;
    return op;
  }

  static bool reads(const GenOp& op) {
    return op.kind == GenOp::Load || op.kind == GenOp::FetchAdd || op.kind == GenOp::Xchg ||
           op.kind == GenOp::Cas;
  }

  GenThread thread(uint32_t locations, uint32_t maxAccesses, std::vector<GenOp> skeleton) {
    GenThread th;
    uint32_t n = range(spec_.minAccesses, std::max(spec_.minAccesses, maxAccesses));
    std::vector<bool> written(locations, false);
    std::vector<GenOp> ops;
    if (skeleton.empty()) {
      for (uint32_t i = 0; i < n; ++i) ops.push_back(access(locations, written));
      // Often stores first, then the rest (SB-like shapes, where buffering shows).
      if (pick(2))
        std::stable_partition(ops.begin(), ops.end(), [](const GenOp& op) { return op.kind == GenOp::Store; });
    } else {
      ops = std::move(skeleton);
      for (const GenOp& op : ops) written[op.loc] = written[op.loc] || op.kind == GenOp::Store;
      // Extra random accesses at random places; sometimes an RMW in place of one.
      for (uint32_t i = uint32_t(ops.size()); i < n; ++i) {
        GenOp op = access(locations, written);
        ops.insert(ops.begin() + std::ptrdiff_t(pick(uint32_t(ops.size()) + 1)), op);
      }
      if (spec_.rmws && pick(4) == 0) {
        GenOp& op = ops[pick(uint32_t(ops.size()))];
        op.kind = pick(2) ? GenOp::Xchg : GenOp::FetchAdd;
        op.value = 1 + pick(2);
      }
    }

    // Fences between accesses.
    if (spec_.fences) {
      uint32_t fences = 0;
      for (size_t i = 1; i < ops.size() && fences < spec_.maxFencesPerThread; ++i) {
        if (pick(8) != 0) continue;
        GenOp f;
        f.kind = pick(2) ? GenOp::FenceFull : GenOp::FenceStoreStore;
        ops.insert(ops.begin() + std::ptrdiff_t(i), f);
        ++i;
        ++fences;
      }
    }

    // A branch on a loaded value: the 1-2 operations right after a top-level
    // load become the arms of `if (r == c)`.
    if (spec_.branches && pick(3) == 0) {
      std::vector<size_t> candidates;
      for (size_t i = 0; i + 1 < ops.size(); ++i)
        if (ops[i].kind == GenOp::Load) candidates.push_back(i);
      if (!candidates.empty()) {
        size_t at = candidates[pick(uint32_t(candidates.size()))];
        size_t len = std::min<size_t>(ops.size() - at - 1, 1 + pick(2));
        GenOp b;
        b.kind = GenOp::Branch;
        b.value = pick(3);
        std::vector<GenOp> chunk(ops.begin() + std::ptrdiff_t(at + 1),
                                 ops.begin() + std::ptrdiff_t(at + 1 + len));
        if (chunk.size() == 2 && pick(2)) {
          b.thenOps = {chunk[0]};
          b.elseOps = {chunk[1]};
        } else if (pick(2)) {
          b.thenOps = chunk;
        } else {
          b.elseOps = chunk;
        }
        ops.erase(ops.begin() + std::ptrdiff_t(at + 1), ops.begin() + std::ptrdiff_t(at + 1 + len));
        ops.insert(ops.begin() + std::ptrdiff_t(at + 1), std::move(b));
      }
    }

    // Atomic sections around top-level runs of operations, sometimes nested.
    if (spec_.atomicSections && ops.size() >= 2 && pick(3) != 0) {
      size_t b = pick(uint32_t(ops.size() - 1));
      size_t e = b + 2 + pick(uint32_t(ops.size() - b - 1));  // [b, e) holds 2 or more ops
      GenOp open, close;
      open.kind = GenOp::SectionBegin;
      close.kind = GenOp::SectionEnd;
      ops.insert(ops.begin() + std::ptrdiff_t(e), close);
      if (pick(4) == 0) {  // nested: a second section inside, around one op
        size_t i = b + pick(uint32_t(e - b));
        ops.insert(ops.begin() + std::ptrdiff_t(i + 1), close);
        ops.insert(ops.begin() + std::ptrdiff_t(i), open);
      }
      ops.insert(ops.begin() + std::ptrdiff_t(b), open);
      if (b >= 2 && pick(3) == 0) {  // a second section right before it (back to back)
        ops.insert(ops.begin() + std::ptrdiff_t(b), close);
        ops.insert(ops.begin() + std::ptrdiff_t(b - 2), open);
      }
    }

    if (spec_.memoryOrders) assignOrders(ops);
    if (spec_.plainAccesses) makePlain(ops);
    // Result slots in program order; the branch refers to the load before it.
    assignSlots(ops, th.slots);
    th.ops = std::move(ops);
    return th;
  }

  // A random C11 order for every access and fence, among those its kind
  // takes (a fence: acquire, release, acq_rel or seq_cst).
  void assignOrders(std::vector<GenOp>& ops) {
    using O = MemOrder;
    for (GenOp& op : ops) {
      switch (op.kind) {
        case GenOp::Load: op.order = std::array<O, 3>{O::Relaxed, O::Acquire, O::SeqCst}[pick(3)]; break;
        case GenOp::Store: op.order = std::array<O, 3>{O::Relaxed, O::Release, O::SeqCst}[pick(3)]; break;
        case GenOp::FenceFull:
        case GenOp::FenceStoreStore: op.order = std::array<O, 4>{O::Acquire, O::Release, O::AcqRel, O::SeqCst}[pick(4)]; break;
        case GenOp::FetchAdd:
        case GenOp::Xchg: op.order = O(pick(5)); break;  // relaxed .. seq_cst
        case GenOp::Cas:  // any success order; a failure order independent of it (C++17)
          op.order = O(pick(5));
          op.failOrder = std::array<O, 3>{O::Relaxed, O::Acquire, O::SeqCst}[pick(3)];
          break;
        case GenOp::Branch:
          assignOrders(op.thenOps);
          assignOrders(op.elseOps);
          break;
        default: break;
      }
    }
  }

  // A third of the loads and stores plain, at random.
  void makePlain(std::vector<GenOp>& ops) {
    for (GenOp& op : ops) {
      if (op.kind == GenOp::Load || op.kind == GenOp::Store) op.plain = pick(3) == 0;
      makePlain(op.thenOps);
      makePlain(op.elseOps);
    }
  }

  static void assignSlots(std::vector<GenOp>& ops, int& next) {
    int lastLoad = -1;
    for (GenOp& op : ops) {
      if (op.kind == GenOp::Branch) {
        op.slot = lastLoad;
        assignSlots(op.thenOps, next);
        assignSlots(op.elseOps, next);
        continue;
      }
      if (reads(op)) {
        op.slot = next++;
        if (op.kind == GenOp::Load) lastLoad = op.slot;
      }
    }
  }

  std::mt19937_64 rng_;
  const RandomProgramSpec& spec_;
};

// Longest path in steps, counting a flush for every store (the PSO worst case).
uint32_t steps(const std::vector<GenOp>& ops) {
  uint32_t n = 0;
  for (const GenOp& op : ops) {
    switch (op.kind) {
      case GenOp::Store: n += 2; break;
      case GenOp::Branch: n += std::max(steps(op.thenOps), steps(op.elseOps)); break;
      default: n += 1; break;
    }
  }
  return n;
}

void collect(const std::vector<GenOp>& ops, std::vector<double>& reads, std::vector<double>& writes) {
  for (const GenOp& op : ops) {
    switch (op.kind) {
      case GenOp::Store: writes[op.loc]++; break;
      case GenOp::Load: reads[op.loc]++; break;
      case GenOp::FetchAdd: case GenOp::Xchg: case GenOp::Cas:
        reads[op.loc]++;
        writes[op.loc]++;
        break;
      case GenOp::Branch:
        collect(op.thenOps, reads, writes);
        collect(op.elseOps, reads, writes);
        break;
      default: break;
    }
  }
}

// Rough size of the naive explorer's state space, which holds the trace built
// so far: (product over threads of their positions, flushes included) times
// (a crude bound on the number of traces: writers each read may read from,
// times the interleavings of each location's writes).
double estimate(const GenProgram& p) {
  double positions = 1;
  const size_t n = p.threads.size(), L = p.locations;
  std::vector<std::vector<double>> reads(n, std::vector<double>(L, 0)), writes = reads;
  for (size_t t = 0; t < n; ++t) {
    const GenThread& th = p.threads[t];
    positions *= steps(th.ops) + (th.slots > 0 ? 2 : 0) + 1;
    collect(th.ops, reads[t], writes[t]);
  }
  double logTraces = 0;
  for (size_t l = 0; l < L; ++l) {
    double total = 0;
    for (size_t t = 0; t < n; ++t) total += writes[t][l];
    logTraces += std::lgamma(total + 1);
    for (size_t t = 0; t < n; ++t) {
      logTraces -= std::lgamma(writes[t][l] + 1);
      double sources = 1 + (total - writes[t][l]) + (writes[t][l] > 0 ? 1 : 0);
      logTraces += reads[t][l] * std::log(sources);
    }
  }
  return positions * std::exp(logTraces);
}

class Emitter {
 public:
  Emitter(FunctionBuilder& f, const std::vector<uint32_t>& shared, uint32_t firstLine)
      : f_(f), shared_(shared), line_(firstLine) {}
  // Flag relaxed accesses as the lowering does (ir.h kRelaxedAccess,
  // kRmwNoAcquire / kRmwNoRelease: an access that neither has the order nor
  // sits in a function with a matching fence), given the thread's ops.
  void flagRelaxed(const std::vector<GenOp>& all) {
    flags_ = true;
    fenceOrders(all);
  }

  void ops(const std::vector<GenOp>& list, std::vector<Reg>& slotRegs, Reg acc) {
    for (const GenOp& op : list) emit(op, slotRegs, acc);
  }

 private:
  void record(int slot, Reg value, std::vector<Reg>& slotRegs, Reg acc) {
    slotRegs[size_t(slot)] = value;
    // acc |= (value & 0xff) << (8 * slot)
    Reg b = f_.binImm(BinOp::And, value, 0xff);
    Reg s = f_.binImm(BinOp::Shl, b, Value(8 * slot));
    Reg n = f_.bin(BinOp::Or, acc, s);
    f_.mov(acc, n);
  }

  void fenceOrders(const std::vector<GenOp>& list) {
    for (const GenOp& op : list) {
      if (op.kind == GenOp::FenceFull || op.kind == GenOp::FenceStoreStore) {
        acquireFence_ |= acquires(op.order);
        releaseFence_ |= releases(op.order);
      }
      fenceOrders(op.thenOps);
      fenceOrders(op.elseOps);
    }
  }
  // The last instruction, an access with `op`'s order: its lowering flags.
  void lowerFlags(const GenOp& op) {
    if (!flags_ || op.plain) return;
    Instr& in = f_.fn().code.back();
    if (op.kind == GenOp::Load && !acquires(op.order) && !acquireFence_) in.sub |= kRelaxedAccess;
    if (op.kind == GenOp::Store && !releases(op.order) && !releaseFence_) in.sub |= kRelaxedAccess;
    if (in.op == Op::Rmw)
      in.imm = (acquires(op.order) || acquireFence_ ? 0 : kRmwNoAcquire) | (releases(op.order) || releaseFence_ ? 0 : kRmwNoRelease);
  }

  void emit(const GenOp& op, std::vector<Reg>& slotRegs, Reg acc) {
    f_.at(++line_);
    uint32_t g = op.loc < shared_.size() ? shared_[op.loc] : 0;
    switch (op.kind) {
      case GenOp::Store:
        f_.storeGlobal(g, op.value);
        f_.setOrder(op.order);
        if (op.plain) f_.markPlain();
        lowerFlags(op);
        break;
      case GenOp::Load: {
        const Reg r = f_.loadGlobal(g);
        f_.setOrder(op.order);
        if (op.plain) f_.markPlain();
        lowerFlags(op);
        if (op.kind == GenOp::Cas) f_.setFailOrder(op.failOrder);
        record(op.slot, r, slotRegs, acc);
        break;
      }
      case GenOp::FenceFull: f_.fence(FenceKind::Full); f_.setOrder(op.order); break;
      case GenOp::FenceStoreStore: f_.fence(FenceKind::StoreStore); f_.setOrder(op.order); break;
      case GenOp::SectionBegin: f_.atomicBegin(); break;
      case GenOp::SectionEnd: f_.atomicEnd(); break;
      case GenOp::FetchAdd:
      case GenOp::Xchg:
      case GenOp::Cas: {
        const Reg r = op.kind == GenOp::Cas    ? f_.casGlobal(g, op.expected, op.value)
                    : op.kind == GenOp::Xchg ? f_.rmwGlobal(RmwOp::Xchg, g, op.value)
                                             : f_.rmwGlobal(RmwOp::Add, g, op.value);
        f_.setOrder(op.order);
        lowerFlags(op);
        if (op.kind == GenOp::Cas) f_.setFailOrder(op.failOrder);
        record(op.slot, r, slotRegs, acc);
        break;
      }
      case GenOp::Branch: {
        Reg c = f_.cmpImm(CmpOp::Eq, slotRegs[size_t(op.slot)], op.value);
        Label lThen = f_.newLabel(), lElse = f_.newLabel(), lEnd = f_.newLabel();
        f_.br(c, lThen, lElse);
        f_.bind(lThen);
        ops(op.thenOps, slotRegs, acc);
        f_.jmp(lEnd);
        f_.bind(lElse);
        ops(op.elseOps, slotRegs, acc);
        f_.bind(lEnd);
        break;
      }
    }
  }

  FunctionBuilder& f_;
  const std::vector<uint32_t>& shared_;
  uint32_t line_;
  bool flags_ = false, acquireFence_ = false, releaseFence_ = false;
};

// ownLines (RandomProgramSpec::plainAccesses): each thread's operations on
// lines of their own, relaxed accesses flagged as the lowering flags them.
Program build(const GenProgram& gp, uint32_t loopIterations, bool spinAwaits, bool mainReads, bool ownLines) {
  ProgramBuilder pb("random.c");
  std::vector<uint32_t> shared;
  for (uint32_t i = 0; i < gp.locations; ++i)
    shared.push_back(pb.global(std::string(1, char('x' + (i % 3))) + (i >= 3 ? std::to_string(i) : ""),
                               4, gp.init[i]));
  auto& mainFn = pb.function("main");
  pb.setEntry(mainFn.index());
  std::vector<uint32_t> funcs;
  for (size_t t = 0; t < gp.threads.size(); ++t) {
    const GenThread& th = gp.threads[t];
    auto& f = pb.function("t" + std::to_string(t + 1), 1);
    funcs.push_back(f.index());
    f.at(1);
    Reg acc = f.constant(0);
    std::vector<Reg> slotRegs(size_t(th.slots), kNoReg);
    Emitter e(f, shared, ownLines ? uint32_t(1000 * (t + 1)) : 1);
    if (ownLines) e.flagRelaxed(th.ops);
    if (mainReads && t > 0) {
      // A first step nothing else races with (a store to a global of the
      // thread's own): what the thread does next to the shared locations
      // must still be tried before main returns.
      f.storeGlobal(pb.global("own" + std::to_string(t + 1), 4, 0), 1);
    }
    if (spinAwaits && t % 2 == 1) {
      // Wait until the first location differs from its initial value (a
      // spin-loop await: the idle iteration is one read). May never happen:
      // then the program deadlocks.
      Reg v = f.loadGlobal(shared[0]);
      f.assume(f.cmpImm(CmpOp::Ne, v, gp.init[0]), true);
    }
    if (loopIterations > 0) {
      // for (i = 0; i < loopIterations; ++i) { body }
      Reg i = f.constant(0);
      Label top = f.newLabel(), out = f.newLabel();
      f.bind(top);
      e.ops(th.ops, slotRegs, acc);
      f.mov(i, f.binImm(BinOp::Add, i, 1));
      f.br(f.cmpImm(CmpOp::Ult, i, loopIterations), top, out);
      f.bind(out);
    } else {
      e.ops(th.ops, slotRegs, acc);
    }
    if (th.slots > 0) {
      // Only this thread writes its result global.
      uint32_t res = pb.global("res" + std::to_string(t + 1), 8, 0);
      f.at(100);
      f.storeGlobalReg(res, acc, 8);
    }
    f.ret();
  }
  mainFn.at(1);
  std::vector<Reg> ids;
  for (uint32_t fi : funcs) ids.push_back(mainFn.spawn(fi));
  if (!mainReads) {
    for (Reg id : ids) mainFn.joinDiscard(id);
  } else {
    // Joins the first thread only, reads the first location into res0 and
    // returns while the others may still run (what they do to the other
    // locations is independent of main's steps).
    mainFn.joinDiscard(ids[0]);
    mainFn.storeGlobalReg(pb.global("res0", 8, 0), mainFn.loadGlobal(shared[0]), 8);
  }
  mainFn.ret();
  return pb.build();
}

}  // namespace

Program randomProgram(uint64_t seed, const RandomProgramSpec& spec) {
  Gen gen(seed, spec);
  GenProgram best = gen.shape();
  double bestCost = -1;
  const uint32_t attempts = std::max<uint32_t>(spec.maxAttempts, 1);
  for (uint32_t attempt = 0; attempt < attempts; ++attempt) {
    // The access cap goes down from maxAccesses to minAccesses over the attempts.
    uint32_t span = spec.maxAccesses > spec.minAccesses ? spec.maxAccesses - spec.minAccesses : 0;
    uint32_t cap = spec.maxAccesses - uint32_t(uint64_t(span) * attempt / attempts);
    GenProgram p = best;
    gen.bodies(p, cap);
    double cost = estimate(p);
    if (bestCost < 0 || cost < bestCost) {
      best = std::move(p);
      bestCost = cost;
    }
    if (bestCost <= spec.maxStates) break;
  }
  return build(best, spec.loopIterations, spec.spinAwaits, spec.mainReads, spec.plainAccesses);
}

}  // namespace tsocheck::testing

#include "tests/engine/stress_programs.h"

#include <algorithm>
#include <random>

#include "engine/builder.h"

namespace tsocheck::testing {

const char* stressFamilyName(StressFamily f) {
  switch (f) {
    case StressFamily::OneLocation: return "one-location";
    case StressFamily::RmwHeavy: return "rmw-heavy";
    case StressFamily::Mixed: return "mixed";
    case StressFamily::Mutex: return "mutex";
    case StressFamily::Await: return "await";
    case StressFamily::Nested: return "nested";
  }
  return "?";
}

namespace {

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed * 0x9E3779B97F4A7C15ull + 7) {}
  uint32_t pick(uint32_t n) { return n <= 1 ? 0 : uint32_t(rng_() % n); }
  uint32_t range(uint32_t lo, uint32_t hi) { return hi <= lo ? lo : lo + pick(hi - lo + 1); }

  // One shared access to a location in [lo, hi]; `rmwWeight` out of 10 are RMWs.
  StressOp access(uint32_t lo, uint32_t hi, uint32_t rmwWeight, bool fences) {
    StressOp op;
    op.loc = range(lo, hi);
    uint32_t r = pick(10);
    if (fences && pick(8) == 0) {
      op.kind = pick(2) ? StressOp::FenceFull : StressOp::FenceStoreStore;
      return op;
    }
    if (r < rmwWeight) {
      switch (pick(5)) {
        case 0: case 1: op.kind = StressOp::FetchAdd; op.value = nextOperand(); break;
        case 2: op.kind = StressOp::Xchg; op.value = 1 + pick(4); break;
        case 3: op.kind = StressOp::Cas; op.expected = pick(3); op.value = 1 + pick(4); break;
        default: op.kind = StressOp::CasSeen; op.value = 1 + pick(4); break;
      }
    } else if (r < rmwWeight + (10 - rmwWeight) / 2) {
      op.kind = StressOp::Store;
      op.value = 1 + pick(4);
    } else {
      op.kind = StressOp::Load;
    }
    return op;
  }

 private:
  // Distinct fetch_add operands make RMW chains produce distinct values.
  Value nextOperand() {
    Value v = operand_;
    operand_ = operand_ >= 64 ? 1 : operand_ * 4;
    return v;
  }
  std::mt19937_64 rng_;
  Value operand_ = 1;
};

}  // namespace

StressProgram stressProgram(uint64_t seed, StressFamily family) {
  Gen g(seed * 8 + uint64_t(family));
  StressProgram p;
  p.family = family;
  uint32_t threads = 2;
  switch (family) {
    case StressFamily::OneLocation: {
      p.locations = 1;
      threads = g.range(3, 5);
      for (uint32_t t = 0; t < threads; ++t) {
        StressThread th;
        uint32_t n = threads >= 5 ? 1 : g.range(1, 2);
        for (uint32_t i = 0; i < n; ++i) th.ops.push_back(g.access(0, 0, 5, false));
        p.threads.push_back(th);
      }
      break;
    }
    case StressFamily::RmwHeavy: {
      p.locations = g.range(1, 2);
      threads = g.range(4, 6);
      for (uint32_t t = 0; t < threads; ++t) {
        StressThread th;
        uint32_t n = threads >= 5 ? 1 : g.range(1, 2);
        for (uint32_t i = 0; i < n; ++i) th.ops.push_back(g.access(0, p.locations - 1, 8, false));
        p.threads.push_back(th);
      }
      break;
    }
    case StressFamily::Mixed: {
      p.locations = g.range(2, 3);
      threads = g.range(3, 4);
      for (uint32_t t = 0; t < threads; ++t) {
        StressThread th;
        uint32_t n = threads >= 4 ? g.range(1, 2) : g.range(2, 3);
        for (uint32_t i = 0; i < n; ++i) th.ops.push_back(g.access(0, p.locations - 1, 3, true));
        p.threads.push_back(th);
      }
      break;
    }
    case StressFamily::Mutex: {
      // Location 0 is the mutex; data in 1..2.
      p.hasMutex = true;
      // Sometimes 4 threads with one short section each, or threads that
      // lock twice (waiting locks: several waiters, re-made locks).
      p.locations = 1 + g.range(1, 2);
      threads = g.pick(4) == 0 ? 4 : g.range(2, 3);
      const bool twice = threads <= 3 && g.pick(3) == 0;
      for (uint32_t t = 0; t < threads; ++t) {
        StressThread th;
        if (g.pick(3) == 0) th.ops.push_back(g.access(1, p.locations - 1, 2, true));
        const uint32_t sections = twice && g.pick(3) != 0 ? 2 : 1;
        for (uint32_t k = 0; k < sections; ++k) {
          bool tryLock = g.pick(3) == 0;
          th.ops.push_back(StressOp{tryLock ? StressOp::TryLockBegin : StressOp::Lock, 0, 0, 0});
          uint32_t n = threads >= 4 || sections > 1 ? 1 : g.range(1, 2);
          for (uint32_t i = 0; i < n; ++i) th.ops.push_back(g.access(1, p.locations - 1, 3, false));
          th.ops.push_back(StressOp{tryLock ? StressOp::TryLockEnd : StressOp::Unlock, 0, 0, 0});
        }
        if (g.pick(3) == 0) th.ops.push_back(g.access(1, p.locations - 1, 2, true));
        p.threads.push_back(th);
      }
      break;
    }
    case StressFamily::Await: {
      // Location 0 is a flag only the setter writes (to 1); waiters spin on it.
      p.locations = 1 + g.range(1, 2);
      threads = g.range(2, 4);
      uint32_t setter = g.pick(threads);
      for (uint32_t t = 0; t < threads; ++t) {
        StressThread th;
        if (t == setter) {
          uint32_t n = g.range(1, 2);
          for (uint32_t i = 0; i < n; ++i) th.ops.push_back(g.access(1, p.locations - 1, 2, true));
          th.ops.push_back(StressOp{StressOp::Store, 0, 1, 0});
        } else {
          if (g.pick(3) != 0) {
            // One await in three also leaves when another location gets a
            // value another thread stores (chosen below): its idle
            // iteration reads the flag, then that location.
            if (g.pick(3) == 0) th.ops.push_back(StressOp{StressOp::AwaitEither, g.range(1, p.locations - 1), 1 + g.pick(4), 0});
            else th.ops.push_back(StressOp{StressOp::Await, 0, 1, 0});
          }
          uint32_t n = g.range(1, 2);
          // One waiter in four takes a TTAS lock (a location of its own,
          // added below) around its accesses.
          const bool tas = g.pick(4) == 0;
          if (tas) th.ops.push_back(StressOp{StressOp::TasAcquire, 0, 0, 0});
          for (uint32_t i = 0; i < n; ++i) th.ops.push_back(g.access(1, p.locations - 1, 3, true));
          if (tas) th.ops.push_back(StressOp{StressOp::TasRelease, 0, 0, 0});
        }
        p.threads.push_back(th);
      }
      for (StressThread& th : p.threads)
        for (StressOp& op : th.ops)
          if (op.kind == StressOp::TasAcquire || op.kind == StressOp::TasRelease) {
            if (!p.tasLock) p.tasLock = p.locations++;
            op.loc = p.tasLock;
          }
      for (size_t t = 0; t < p.threads.size(); ++t)
        for (StressOp& op : p.threads[t].ops) {
          if (op.kind != StressOp::AwaitEither) continue;
          std::vector<const StressOp*> stores;  // another thread's store to a location other than the flag
          for (size_t u = 0; u < p.threads.size(); ++u)
            for (const StressOp& o : p.threads[u].ops)
              if (u != t && o.kind == StressOp::Store && o.loc != 0) stores.push_back(&o);
          if (stores.empty()) continue;
          const StressOp* o = stores[g.pick(uint32_t(stores.size()))];
          op.loc = o->loc;
          op.value = o->value;
        }
      break;
    }
    case StressFamily::Nested: {
      p.locations = g.range(1, 2);
      threads = 2;
      for (uint32_t t = 0; t < threads; ++t) {
        StressThread th;
        uint32_t n = g.range(1, 2);
        for (uint32_t i = 0; i < n; ++i) th.ops.push_back(g.access(0, p.locations - 1, 4, true));
        if (t == 0 || g.pick(2) == 0) {
          th.spawnsChild = true;
          uint32_t m = g.range(1, 2);
          for (uint32_t i = 0; i < m; ++i) th.child.push_back(g.access(0, p.locations - 1, 4, false));
        }
        p.threads.push_back(th);
      }
      break;
    }
  }
  // One program in four asserts something about a value read (some of these
  // fail in some executions: the verdicts must agree too).
  if (g.pick(4) == 0) {
    std::vector<std::pair<uint32_t, size_t>> reads;
    for (uint32_t t = 0; t < p.threads.size(); ++t)
      for (size_t i = 0; i < p.threads[t].ops.size(); ++i) {
        StressOp::Kind k = p.threads[t].ops[i].kind;
        if (k == StressOp::Load || k == StressOp::FetchAdd || k == StressOp::Xchg || k == StressOp::Cas ||
            k == StressOp::CasSeen)
          reads.push_back({t, i});
      }
    if (!reads.empty()) {
      auto [t, i] = reads[g.pick(uint32_t(reads.size()))];
      auto& ops = p.threads[t].ops;
      ops.insert(ops.begin() + long(i) + 1, StressOp{StressOp::AssertNot, 0, g.pick(6), 0});
    }
  }
  for (uint32_t i = 0; i < p.locations; ++i)
    p.init.push_back(((p.hasMutex || family == StressFamily::Await) && i == 0) || (p.tasLock && i == p.tasLock)
                         ? 0
                         : (g.pick(4) == 0 ? 1 : 0));
  for (uint32_t t = 0; t < p.threads.size(); ++t) p.spawnOrder.push_back(t);
  for (uint32_t i = uint32_t(p.spawnOrder.size()); i > 1; --i) std::swap(p.spawnOrder[i - 1], p.spawnOrder[g.pick(i)]);
  return p;
}

namespace {

std::string locName(const StressProgram& p, uint32_t loc) {
  if (p.hasMutex && loc == 0) return "m";
  if (p.family == StressFamily::Await && loc == 0) return "flag";
  return std::string(1, char('x' + loc));
}

// Emits one thread body; values read are packed into `acc`.
void emitOps(FunctionBuilder& f, const StressProgram& p, const std::vector<uint32_t>& globals,
             const std::vector<StressOp>& ops, Reg acc, uint32_t& line) {
  Reg lastRead = kNoReg;
  std::vector<Label> tryEnds;
  auto record = [&](Reg v) {
    f.mov(acc, f.bin(BinOp::Or, f.binImm(BinOp::Shl, acc, 8), f.binImm(BinOp::And, v, 0xff)));
    lastRead = v;
  };
  for (const StressOp& op : ops) {
    f.at(line++);
    const uint32_t gl = globals[op.loc];
    switch (op.kind) {
      case StressOp::Store: f.storeGlobal(gl, op.value); break;
      case StressOp::Load: record(f.loadGlobal(gl)); break;
      case StressOp::FetchAdd: record(f.rmwGlobal(RmwOp::Add, gl, op.value)); break;
      case StressOp::Xchg: record(f.rmwGlobal(RmwOp::Xchg, gl, op.value)); break;
      case StressOp::Cas: record(f.casGlobal(gl, op.expected, op.value)); break;
      case StressOp::CasSeen: {
        Reg expected = lastRead != kNoReg ? lastRead : f.constant(p.init[op.loc]);
        record(f.rmw(RmwOp::Cas, f.globalAddr(gl), f.constant(op.value), 4, expected));
        break;
      }
      case StressOp::FenceFull: f.fence(FenceKind::Full); break;
      case StressOp::FenceStoreStore: f.fence(FenceKind::StoreStore); break;
      case StressOp::Lock: f.lock(f.globalAddr(gl)); break;
      case StressOp::Unlock: f.unlock(f.globalAddr(gl)); break;
      case StressOp::TryLockBegin: {
        Reg r = f.trylock(f.globalAddr(gl));
        Label in = f.newLabel(), out = f.newLabel();
        f.br(f.cmpImm(CmpOp::Eq, r, 0), in, out);
        f.bind(in);
        tryEnds.push_back(out);
        break;
      }
      case StressOp::TryLockEnd:
        f.unlock(f.globalAddr(gl));
        f.bind(tryEnds.back());
        tryEnds.pop_back();
        break;
      case StressOp::Await: {
        Reg v = f.loadGlobal(gl);
        f.assume(f.cmpImm(CmpOp::Eq, v, op.value), true);
        break;
      }
      case StressOp::AwaitEither: {
        Reg saved = f.readCountBegin();
        Reg v = f.loadGlobal(globals[0]);
        Reg w = f.loadGlobal(gl);
        Reg reads = f.readCountEnd(saved);
        f.assume(f.bin(BinOp::Or, f.cmpImm(CmpOp::Eq, v, 1), f.cmpImm(CmpOp::Eq, w, op.value)), true, false, reads);
        record(v);  // (which of the two let it go)
        record(w);
        break;
      }
      case StressOp::TasAcquire: {
        // The outer loop's idle iteration reads twice (the load that saw 0,
        // then the exchange that saw the lock taken); the inner one once.
        Reg saved = f.readCountBegin();
        Reg v = f.loadGlobal(gl);
        Reg first = f.readCountEnd(saved);
        f.assume(f.cmpImm(CmpOp::Eq, v, 0), true, false, first);
        saved = f.readCountBegin();
        Reg old = f.rmwGlobal(RmwOp::Xchg, gl, 1);
        Reg second = f.readCountEnd(saved);
        f.assume(f.cmpImm(CmpOp::Eq, old, 0), true, false, f.bin(BinOp::Add, first, second));
        break;
      }
      case StressOp::TasRelease: f.storeGlobal(gl, 0); break;
      case StressOp::AssertNot:
        if (lastRead != kNoReg) f.assertTrue(f.cmpImm(CmpOp::Ne, lastRead, op.value), "assertion");
        break;
    }
  }
}

}  // namespace

Program buildStress(const StressProgram& p) {
  ProgramBuilder pb("stress.c");
  std::vector<uint32_t> globals;
  for (uint32_t i = 0; i < p.locations; ++i) globals.push_back(pb.global(locName(p, i), 4, p.init[i]));
  auto& mainFn = pb.function("main");
  pb.setEntry(mainFn.index());
  uint32_t line = 10;
  auto body = [&](const std::string& name, const std::vector<StressOp>& ops, int childFunc) {
    auto& f = pb.function(name, 1);
    f.at(line++);
    Reg acc = f.constant(0);
    Reg child = childFunc >= 0 ? f.spawn(uint32_t(childFunc)) : kNoReg;
    emitOps(f, p, globals, ops, acc, line);
    if (child != kNoReg) f.joinDiscard(child);
    uint32_t res = pb.global("res_" + name, 8, 0);
    f.at(line++);
    f.storeGlobalReg(res, acc, 8);
    f.ret();
    return f.index();
  };
  std::vector<uint32_t> funcs;
  for (size_t t = 0; t < p.threads.size(); ++t) {
    const StressThread& th = p.threads[t];
    int child = th.spawnsChild ? int(body("t" + std::to_string(t + 1) + "c", th.child, -1)) : -1;
    funcs.push_back(body("t" + std::to_string(t + 1), th.ops, child));
  }
  mainFn.at(1);
  std::vector<Reg> ids;
  for (uint32_t t : p.spawnOrder) ids.push_back(mainFn.spawn(funcs[t]));
  for (Reg id : ids) mainFn.joinDiscard(id);
  mainFn.ret();
  return pb.build();
}

std::string stressToC(const StressProgram& p) {
  std::string out = "// family " + std::string(stressFamilyName(p.family)) + "\n";
  for (uint32_t i = 0; i < p.locations; ++i)
    out += (p.hasMutex && i == 0 ? "pthread_mutex_t " : "int ") + locName(p, i) +
           (p.hasMutex && i == 0 ? " = PTHREAD_MUTEX_INITIALIZER" : " = " + std::to_string(p.init[i])) + ";\n";
  auto opText = [&](const StressOp& op) -> std::string {
    std::string l = locName(p, op.loc), v = std::to_string(op.value);
    switch (op.kind) {
      case StressOp::Store: return l + " = " + v + ";";
      case StressOp::Load: return "r = " + l + ";";
      case StressOp::FetchAdd: return "r = atomic_fetch_add(&" + l + ", " + v + ");";
      case StressOp::Xchg: return "r = atomic_exchange(&" + l + ", " + v + ");";
      case StressOp::Cas: return "r = cas(&" + l + ", " + std::to_string(op.expected) + ", " + v + ");";
      case StressOp::CasSeen: return "r = cas(&" + l + ", r /* last value read */, " + v + ");";
      case StressOp::FenceFull: return "atomic_thread_fence(memory_order_seq_cst);";
      case StressOp::FenceStoreStore: return "store_store_barrier();";
      case StressOp::Lock: return "pthread_mutex_lock(&" + l + ");";
      case StressOp::Unlock: return "pthread_mutex_unlock(&" + l + ");";
      case StressOp::TryLockBegin: return "if (pthread_mutex_trylock(&" + l + ") == 0) {";
      case StressOp::TryLockEnd: return "pthread_mutex_unlock(&" + l + "); }";
      case StressOp::Await: return "while (" + l + " != " + v + ") ;";
      case StressOp::AwaitEither: return "while (" + locName(p, 0) + " != 1 && " + l + " != " + v + ") ;";
      case StressOp::TasRelease: return l + " = 0;";
      case StressOp::TasAcquire: return "for (;;) { while (" + l + " != 0) ; if (atomic_exchange(&" + l + ", 1) == 0) break; }";
      case StressOp::AssertNot: return "assert(r != " + v + ");";
    }
    return "?";
  };
  auto fn = [&](const std::string& name, const std::vector<StressOp>& ops, bool child) {
    out += "void *" + name + "(void *a) {\n";
    if (child) out += "  pthread_t c; pthread_create(&c, 0, " + name + "c, 0);\n";
    for (const StressOp& op : ops) out += "  " + opText(op) + "   // record r\n";
    if (child) out += "  pthread_join(c, 0);\n";
    out += "  return 0;\n}\n";
  };
  for (size_t t = 0; t < p.threads.size(); ++t) {
    const std::string name = "t" + std::to_string(t + 1);
    if (p.threads[t].spawnsChild) fn(name + "c", p.threads[t].child, false);
    fn(name, p.threads[t].ops, p.threads[t].spawnsChild);
  }
  out += "int main(void) {  // spawn order:";
  for (uint32_t t : p.spawnOrder) out += " t" + std::to_string(t + 1);
  out += ", then join all\n}\n";
  return out;
}

}  // namespace tsocheck::testing

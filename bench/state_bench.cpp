// state_bench: the explicit-state search with its visited table against the
// stateless graph explorer on loop programs, and buffer-bound deepening.
//
//   state_bench [--quick] [--time-limit SECONDS]
//
// Loop programs (each at growing sizes):
//   fig1-N      seed 004's Figure 1: two threads, each N times lock; d = d + 1; unlock
//   spin-T/N    T threads, N critical sections each, behind a test-and-set lock
//               whose acquire is an exchange *loop*; the stateless explorer gets
//               the frontend's form of it (xchg + spin-await), since it cannot
//               run the raw loop to an end
//   bbuf-N      bounded buffer of 2 slots, one producer and one consumer moving
//               N items, waiting with spin-awaits on the count
//
// Prints stateless executions and time, stateful states and time, and the
// ratios. Then deepening k = 0..3 on SB, MP and the Figure 1 program. Timings
// are informational only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "engine/state_space.h"

using namespace tsocheck;

namespace {

Program figure1(int n) {
  ProgramBuilder pb("fig1.c");
  auto d = pb.global("d"), m = pb.global("m");
  std::vector<uint32_t> fs;
  for (int t = 0; t < 2; ++t) {
    auto& f = pb.function(t == 0 ? "thread1" : "thread2", 1);
    Reg i = f.constant(0);
    auto top = f.newLabel(), out = f.newLabel();
    f.bind(top);
    f.at(3).lock(f.globalAddr(m));
    Reg v = f.at(4).loadGlobal(d);
    f.at(4).storeGlobalReg(d, f.binImm(BinOp::Add, v, 1));
    f.at(5).unlock(f.globalAddr(m));
    f.mov(i, f.binImm(BinOp::Add, i, 1));
    f.br(f.cmpImm(CmpOp::Ult, i, Value(n)), top, out);
    f.bind(out);
    f.ret();
    fs.push_back(f.index());
  }
  auto& mn = pb.function("main");
  Reg a = mn.at(10).spawn(fs[0]), b = mn.at(11).spawn(fs[1]);
  mn.at(12).joinDiscard(a);
  mn.at(13).joinDiscard(b);
  mn.at(14).assertTrue(mn.cmpImm(CmpOp::Eq, mn.loadGlobal(d), Value(2 * n)), "d == 2N");
  mn.ret();
  pb.setEntry(mn.index());
  return pb.build();
}

// rawLoop: `while (xchg(&lock, 1)) ;` as a real loop; otherwise the
// frontend's spin-await form (xchg; assume(old == 0) as an idle iteration).
Program spinlock(int threads, int iters, bool rawLoop) {
  ProgramBuilder pb("spin.c");
  auto lk = pb.global("lock"), cnt = pb.global("counter");
  auto& w = pb.function("worker", 1);
  for (int i = 0; i < iters; ++i) {
    if (rawLoop) {
      auto retry = w.newLabel(), got = w.newLabel();
      w.bind(retry);
      Reg old = w.at(3).rmwGlobal(RmwOp::Xchg, lk, 1);
      w.br(w.cmpImm(CmpOp::Eq, old, 0), got, retry);
      w.bind(got);
    } else {
      Reg old = w.at(3).rmwGlobal(RmwOp::Xchg, lk, 1);
      w.at(3).assume(w.cmpImm(CmpOp::Eq, old, 0), true);
    }
    Reg c = w.at(4).loadGlobal(cnt);
    w.at(4).storeGlobalReg(cnt, w.binImm(BinOp::Add, c, 1));
    w.at(5).storeGlobal(lk, 0);
  }
  w.ret();
  auto& m = pb.function("main");
  std::vector<Reg> hs;
  for (int i = 0; i < threads; ++i) hs.push_back(m.at(10).spawn(w.index()));
  for (Reg h : hs) m.at(11).joinDiscard(h);
  m.at(13).assertTrue(m.cmpImm(CmpOp::Eq, m.loadGlobal(cnt), Value(threads * iters)), "counter == total");
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

Program boundedBuffer(int items) {
  ProgramBuilder pb("bbuf.c");
  auto buf = pb.global("buf", 8), count = pb.global("count"), head = pb.global("head"), tail = pb.global("tail"),
       m = pb.global("m"), sum = pb.global("sum");
  auto& prod = pb.function("producer", 1);
  {
    Reg i = prod.constant(0);
    auto top = prod.newLabel(), out = prod.newLabel();
    prod.bind(top);
    Reg c = prod.at(3).loadGlobal(count);
    prod.at(3).assume(prod.cmpImm(CmpOp::Ult, c, 2), true);
    prod.at(4).lock(prod.globalAddr(m));
    Reg t = prod.at(5).loadGlobal(tail);
    Reg slot = prod.bin(BinOp::Add, prod.globalAddr(buf), prod.binImm(BinOp::Mul, t, 4));
    prod.at(5).store(slot, prod.binImm(BinOp::Add, i, 1), 4, "buf[tail]");
    prod.at(6).storeGlobalReg(tail, prod.binImm(BinOp::Xor, t, 1));
    Reg c2 = prod.at(7).loadGlobal(count);
    prod.at(7).storeGlobalReg(count, prod.binImm(BinOp::Add, c2, 1));
    prod.at(8).unlock(prod.globalAddr(m));
    prod.mov(i, prod.binImm(BinOp::Add, i, 1));
    prod.br(prod.cmpImm(CmpOp::Ult, i, Value(items)), top, out);
    prod.bind(out);
    prod.ret();
  }
  auto& cons = pb.function("consumer", 1);
  {
    Reg i = cons.constant(0);
    auto top = cons.newLabel(), out = cons.newLabel();
    cons.bind(top);
    Reg c = cons.at(13).loadGlobal(count);
    cons.at(13).assume(cons.cmpImm(CmpOp::Ugt, c, 0), true);
    cons.at(14).lock(cons.globalAddr(m));
    Reg h = cons.at(15).loadGlobal(head);
    Reg slot = cons.bin(BinOp::Add, cons.globalAddr(buf), cons.binImm(BinOp::Mul, h, 4));
    Reg v = cons.at(15).load(slot, 4, "buf[head]");
    cons.at(16).storeGlobalReg(head, cons.binImm(BinOp::Xor, h, 1));
    Reg c2 = cons.at(17).loadGlobal(count);
    cons.at(17).storeGlobalReg(count, cons.binImm(BinOp::Sub, c2, 1));
    Reg s = cons.at(18).loadGlobal(sum);
    cons.at(18).storeGlobalReg(sum, cons.bin(BinOp::Add, s, v));
    cons.at(19).unlock(cons.globalAddr(m));
    cons.mov(i, cons.binImm(BinOp::Add, i, 1));
    cons.br(cons.cmpImm(CmpOp::Ult, i, Value(items)), top, out);
    cons.bind(out);
    cons.ret();
  }
  auto& mn = pb.function("main");
  Reg a = mn.at(22).spawn(prod.index()), b = mn.at(23).spawn(cons.index());
  mn.at(24).joinDiscard(a);
  mn.at(25).joinDiscard(b);
  mn.at(26).assertTrue(mn.cmpImm(CmpOp::Eq, mn.loadGlobal(sum), Value(items * (items + 1) / 2)), "sum");
  mn.ret();
  pb.setEntry(mn.index());
  return pb.build();
}

struct Row {
  std::string name;
  Program stateless, stateful;
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  double limit = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--time-limit") && i + 1 < argc) limit = std::atof(argv[++i]);
  }
  std::vector<Row> rows;
  for (int n : quick ? std::vector<int>{3, 5} : std::vector<int>{3, 5, 7, 9}) {
    Program p = figure1(n);
    rows.push_back({"fig1-" + std::to_string(n), p, p});
  }
  for (auto [t, n] : quick ? std::vector<std::pair<int, int>>{{2, 2}, {3, 1}}
                           : std::vector<std::pair<int, int>>{{2, 2}, {2, 4}, {3, 1}, {3, 2}})
    rows.push_back({"spin-" + std::to_string(t) + "/" + std::to_string(n), spinlock(t, n, false), spinlock(t, n, true)});
  for (int n : quick ? std::vector<int>{2, 3} : std::vector<int>{2, 3, 4, 6}) {
    Program p = boundedBuffer(n);
    rows.push_back({"bbuf-" + std::to_string(n), p, p});
  }

  std::printf("%-10s %-4s %12s %10s %10s %10s %10s %10s\n", "program", "mdl", "stateless-ex", "ms", "states",
              "ms", "ex/states", "speedup");
  for (const Row& r : rows) {
    for (Model m : {Model::SC, Model::TSO}) {
      CheckOptions co;
      co.model = m;
      co.timeLimitSeconds = limit;
      CheckResult a = check(r.stateless, co);
      StateSpaceOptions so;
      so.model = m;
      so.timeLimitSeconds = limit;
      so.maxStates = 2000000;
      StateSpaceResult b = exploreStates(r.stateful, so);
      char exs[32];
      std::snprintf(exs, sizeof exs, "%s%llu", a.status == Status::Timeout ? ">" : "",
                    static_cast<unsigned long long>(a.executions));
      std::printf("%-10s %-4s %12s %10.1f %10llu %10.1f %10.1f %10.1f   %s/%s\n", r.name.c_str(), modelName(m), exs,
                  a.elapsedMs, static_cast<unsigned long long>(b.states), b.result.elapsedMs,
                  double(a.executions) / double(std::max<uint64_t>(b.states, 1)),
                  a.elapsedMs / std::max(b.result.elapsedMs, 0.01), statusName(a.status),
                  statusName(b.result.status));
    }
  }

  // The raw exchange loop is what a stateless search faces without the
  // frontend's spin-loop transform: its executions never run out.
  std::printf("\nraw exchange loops, stateless (time limit %.0f s) vs stateful:\n", std::min(limit, 5.0));
  for (const Row& r : rows) {
    if (r.name.rfind("spin-", 0) != 0) continue;
    CheckOptions co;
    co.model = Model::TSO;
    co.timeLimitSeconds = std::min(limit, 5.0);
    CheckResult a = check(r.stateful, co);
    StateSpaceOptions so;
    so.model = Model::TSO;
    StateSpaceResult b = exploreStates(r.stateful, so);
    std::printf("%-10s TSO  stateless: %llu executions, %llu cut, %s after %.0f ms; stateful: %llu states, %s in %.1f ms\n",
                r.name.c_str(), static_cast<unsigned long long>(a.executions),
                static_cast<unsigned long long>(a.cut), statusName(a.status), a.elapsedMs,
                static_cast<unsigned long long>(b.states), statusName(b.result.status), b.result.elapsedMs);
  }

  std::printf("\nbuffer-bound deepening k = 0..3 (states per k; first violation or fixpoint ends it)\n");
  struct Sample {
    std::string name;
    Program prog;
  };
  std::vector<Sample> samples;
  for (const auto& t : litmus::all())
    if (t.name == "SB" || t.name == "MP" || t.name == "SB+fences") samples.push_back({t.name, t.program});
  samples.push_back({"fig1-3", figure1(3)});
  samples.push_back({"bbuf-3", boundedBuffer(3)});
  for (const Sample& s : samples) {
    for (Model m : {Model::TSO, Model::PSO}) {
      CheckOptions co;
      co.model = m;
      co.timeLimitSeconds = limit;
      DeepeningResult d = deepenBufferBound(s.prog, co, 0, 3);
      std::printf("%-10s %-4s %-9s", s.name.c_str(), modelName(m), statusName(d.result.status));
      for (const DeepeningStep& st : d.steps)
        std::printf("  k=%d: %llu states (%llu projected) %.1f ms", st.k, static_cast<unsigned long long>(st.states),
                    static_cast<unsigned long long>(st.projections), st.elapsedMs);
      if (d.violationK) std::printf("  -> violation at k=%d", *d.violationK);
      if (d.fixpointK) std::printf("  -> fixpoint at k=%d", *d.fixpointK);
      std::printf("\n");
    }
  }
  return 0;
}

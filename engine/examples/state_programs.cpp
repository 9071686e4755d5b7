#include "engine/examples/state_programs.h"

#include <string>
#include <vector>

#include "engine/builder.h"

namespace tsocheck::examples {

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

// T threads, each `steps` times: store to its own global x_t, load a global
// of its own (readBack: x_t again, served by its store buffer under
// TSO/PSO; otherwise z_t, which nobody writes), store the value to y_t.
// Loop-free; no step of a thread depends on another thread's. Main joins
// them and asserts x_t == steps.
Program independent(int threads, int steps, bool readBack) {
  ProgramBuilder pb("indep.c");
  std::vector<uint32_t> fs, xs;
  for (int t = 0; t < threads; ++t) {
    const std::string n = std::to_string(t);
    auto x = pb.global("x" + n), z = pb.global("z" + n, 4, 7), y = pb.global("y" + n);
    xs.push_back(x);
    auto& f = pb.function("worker" + n, 1);
    for (int i = 0; i < steps; ++i) {
      f.at(3).storeGlobal(x, Value(i + 1));
      Reg v = f.at(4).loadGlobal(readBack ? x : z);
      f.at(5).storeGlobalReg(y, v);
    }
    f.ret();
    fs.push_back(f.index());
  }
  auto& m = pb.function("main");
  std::vector<Reg> hs;
  for (int t = 0; t < threads; ++t) hs.push_back(m.at(10).spawn(fs[size_t(t)]));
  for (Reg h : hs) m.at(11).joinDiscard(h);
  for (int t = 0; t < threads; ++t)
    m.at(12).assertTrue(m.cmpImm(CmpOp::Eq, m.loadGlobal(xs[size_t(t)]), Value(steps)), "x == N");
  m.ret();
  pb.setEntry(m.index());
  return pb.build();
}

void emitMain(ProgramBuilder& pb, const std::vector<uint32_t>& workers, uint32_t& line) {
  FunctionBuilder& m = pb.function("main", 0);
  m.fn().loc.line = line++;
  std::vector<Reg> tids;
  for (uint32_t w : workers) tids.push_back(m.at(line++, 3).spawn(w));
  for (Reg t : tids) m.at(line++, 3).joinDiscard(t);
  m.at(line++, 3).ret(m.constant(0));
  pb.setEntry(m.index());
}

Program readersWriters(unsigned writers, unsigned readers) {
  ProgramBuilder pb("rw-" + std::to_string(writers) + "-" + std::to_string(readers) + ".c");
  const uint32_t x = pb.global("x");
  uint32_t line = 3;
  std::vector<uint32_t> workers;
  for (unsigned w = 0; w < writers; ++w) {
    FunctionBuilder& f = pb.function("writer" + std::to_string(w), 1);
    f.fn().loc.line = line++;
    f.at(line++, 3).storeGlobal(x, w + 1);
    f.at(line++, 3).ret(f.constant(0));
    line += 2;
    workers.push_back(f.index());
  }
  for (unsigned r = 0; r < readers; ++r) {
    FunctionBuilder& f = pb.function("reader" + std::to_string(r), 1);
    f.fn().loc.line = line++;
    f.at(line++, 3).loadGlobal(x);
    f.at(line++, 3).loadGlobal(x);
    f.at(line++, 3).ret(f.constant(0));
    line += 2;
    workers.push_back(f.index());
  }
  emitMain(pb, workers, line);
  return pb.build();
}

uint64_t readersWritersCount(unsigned writers, unsigned readers) {
  uint64_t count = 1;
  for (unsigned i = 2; i <= writers; ++i) count *= i;
  const uint64_t pairs = uint64_t(writers + 1) * (writers + 2) / 2;
  for (unsigned r = 0; r < readers; ++r) count *= pairs;
  return count;
}

}  // namespace tsocheck::examples

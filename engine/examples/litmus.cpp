// The classic litmus tests, built with ProgramBuilder.
//
// Every test is described by a small table (shared locations, threads and
// their operations, the weak outcome) and lowered the same way, as if it
// were a C file "<name>.c" laid out like this (SB shown):
//
//    1  #include <assert.h>
//    2  #include <pthread.h>
//    3
//    4  int x, y;
//    5  int r1, r2;
//    6
//    7  void *t1(void *arg) {
//    8    x = 1;
//    9    int v1 = y;
//   10    r1 = v1;
//   11    return NULL;
//   12  }
//   13
//   14  void *t2(void *arg) {
//        ...
//   21  int main(void) {
//   22    pthread_t t[2];
//   23    pthread_create(&t[0], NULL, t1, NULL);
//   24    pthread_create(&t[1], NULL, t2, NULL);
//   25    pthread_join(t[0], NULL);
//   26    pthread_join(t[1], NULL);
//   27    int v1 = r1;
//   28    int v2 = r2;
//   29    assert(!(v1 == 0 && v2 == 0) && "weak outcome r1==0 && r2==0 observed");
//   30    return 0;
//   31  }
//
// Every statement gets its own line; the instructions a statement lowers to
// (address computation, constant, the access itself) share it.
#include "engine/examples/litmus.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/builder.h"

namespace tsocheck::litmus {

namespace {

struct LitOp {
  enum Kind { Store, Load, Fence } kind = Store;
  int loc = 0;      // index into Spec::locs (Store, Load)
  Value value = 0;  // Store
  int reg = 0;      // Load: register number, 1-based (r1, r2, ...)
};

LitOp st(int loc, Value v) { return LitOp{LitOp::Store, loc, v, 0}; }
LitOp ld(int reg, int loc) { return LitOp{LitOp::Load, loc, 0, reg}; }
LitOp fence() { return LitOp{LitOp::Fence, 0, 0, 0}; }

// One conjunct of the weak outcome: a register (isReg) or the final value of
// a shared location equals `value`.
struct Cond {
  bool isReg = true;
  int index = 0;  // register number (1-based) or location index
  Value value = 0;
};

struct Spec {
  std::string name, description;
  std::vector<std::string> locs;
  std::vector<std::vector<LitOp>> threads;
  std::vector<Cond> weak;
  uint64_t sc = 0, tso = 0, pso = 0;
  bool weakSC = false, weakTSO = false, weakPSO = false;
};

int numRegs(const Spec& s) {
  int n = 0;
  for (const auto& t : s.threads)
    for (const LitOp& op : t)
      if (op.kind == LitOp::Load && op.reg > n) n = op.reg;
  return n;
}

// "r1==0" or "x==1", as the assertion message spells it.
std::string condText(const Spec& s, const Cond& c) {
  std::string var = c.isReg ? "r" + std::to_string(c.index) : s.locs[size_t(c.index)];
  return var + "==" + std::to_string(c.value);
}

Program lower(const Spec& s) {
  ProgramBuilder pb(s.name + ".c");
  uint32_t line = 1;
  line += 3;  // two #includes and a blank line

  std::vector<uint32_t> locGlobals;
  for (const std::string& l : s.locs) locGlobals.push_back(pb.global(l, 4, 0));
  ++line;  // int x, y;
  const int regs = numRegs(s);
  std::vector<uint32_t> regGlobals;
  for (int r = 1; r <= regs; ++r) regGlobals.push_back(pb.global("r" + std::to_string(r), 4, 0));
  if (regs > 0) ++line;  // int r1, r2;
  ++line;                // blank

  std::vector<uint32_t> threadFuncs;
  for (size_t t = 0; t < s.threads.size(); ++t) {
    FunctionBuilder& f = pb.function("t" + std::to_string(t + 1), 1);
    f.fn().loc.line = line++;  // void *tN(void *arg) {
    std::vector<std::pair<int, Reg>> loaded;
    for (const LitOp& op : s.threads[t]) {
      f.at(line++, 3);
      switch (op.kind) {
        case LitOp::Store: f.storeGlobal(locGlobals[size_t(op.loc)], op.value); break;
        case LitOp::Load: loaded.emplace_back(op.reg, f.loadGlobal(locGlobals[size_t(op.loc)])); break;
        case LitOp::Fence: f.fence(FenceKind::Full); break;
      }
    }
    for (const auto& [reg, r] : loaded) f.at(line++, 3).storeGlobalReg(regGlobals[size_t(reg - 1)], r);
    f.at(line++, 3).ret(f.constant(0));  // return NULL;
    line += 2;                           // } and a blank line
    threadFuncs.push_back(f.index());
  }

  FunctionBuilder& m = pb.function("main", 0);
  m.fn().loc.line = line++;  // int main(void) {
  ++line;                    // pthread_t t[N];
  std::vector<Reg> tids;
  for (uint32_t fn : threadFuncs) tids.push_back(m.at(line++, 3).spawn(fn));
  for (Reg tid : tids) m.at(line++, 3).joinDiscard(tid);

  // Read what the weak outcome talks about: registers, then final values.
  std::vector<Reg> values;
  for (const Cond& c : s.weak) {
    m.at(line++, 3);
    values.push_back(c.isReg ? m.loadGlobal(regGlobals[size_t(c.index - 1)])
                             : m.loadGlobal(locGlobals[size_t(c.index)]));
  }

  std::string message = "weak outcome ";
  for (size_t i = 0; i < s.weak.size(); ++i) {
    if (i) message += " && ";
    message += condText(s, s.weak[i]);
  }
  message += " observed";

  m.at(line++, 3);
  Reg all = kNoReg;
  for (size_t i = 0; i < s.weak.size(); ++i) {
    Reg c = m.cmpImm(CmpOp::Eq, values[i], s.weak[i].value);
    all = all == kNoReg ? c : m.bin(BinOp::And, all, c);
  }
  m.assertTrue(m.cmpImm(CmpOp::Eq, all, 0), message);
  m.at(line++, 3).ret(m.constant(0));  // return 0;
  pb.setEntry(m.index());
  return pb.build();
}

std::vector<Spec> specs() {
  enum { X = 0, Y = 1 };
  std::vector<Spec> v;
  {
    Spec s;
    s.name = "SB";
    s.description = "store buffering: each thread writes one location and reads the other";
    s.locs = {"x", "y"};
    s.threads = {{st(X, 1), ld(1, Y)}, {st(Y, 1), ld(2, X)}};
    s.weak = {{true, 1, 0}, {true, 2, 0}};
    s.sc = 3, s.tso = 4, s.pso = 4;
    s.weakSC = false, s.weakTSO = true, s.weakPSO = true;
    v.push_back(std::move(s));
  }
  {
    Spec s;
    s.name = "SB+fences";
    s.description = "store buffering with a full fence between each thread's store and load";
    s.locs = {"x", "y"};
    s.threads = {{st(X, 1), fence(), ld(1, Y)}, {st(Y, 1), fence(), ld(2, X)}};
    s.weak = {{true, 1, 0}, {true, 2, 0}};
    s.sc = 3, s.tso = 3, s.pso = 3;
    v.push_back(std::move(s));
  }
  {
    Spec s;
    s.name = "MP";
    s.description = "message passing: the reader sees the flag but not the data";
    s.locs = {"x", "y"};
    s.threads = {{st(X, 1), st(Y, 1)}, {ld(1, Y), ld(2, X)}};
    s.weak = {{true, 1, 1}, {true, 2, 0}};
    s.sc = 3, s.tso = 3, s.pso = 4;
    s.weakPSO = true;
    v.push_back(std::move(s));
  }
  {
    Spec s;
    s.name = "LB";
    s.description = "load buffering: each thread reads a location and then writes the other";
    s.locs = {"x", "y"};
    s.threads = {{ld(1, X), st(Y, 1)}, {ld(2, Y), st(X, 1)}};
    s.weak = {{true, 1, 1}, {true, 2, 1}};
    s.sc = 3, s.tso = 3, s.pso = 3;
    v.push_back(std::move(s));
  }
  {
    Spec s;
    s.name = "2+2W";
    s.description = "two threads write both locations in opposite orders; both first writes win";
    s.locs = {"x", "y"};
    s.threads = {{st(X, 1), st(Y, 2)}, {st(Y, 1), st(X, 2)}};
    s.weak = {{false, X, 1}, {false, Y, 1}};
    s.sc = 3, s.tso = 3, s.pso = 4;
    s.weakPSO = true;
    v.push_back(std::move(s));
  }
  {
    Spec s;
    s.name = "IRIW";
    s.description = "independent reads of independent writes: two readers disagree on the order";
    s.locs = {"x", "y"};
    s.threads = {{st(X, 1)}, {st(Y, 1)}, {ld(1, X), ld(2, Y)}, {ld(3, Y), ld(4, X)}};
    s.weak = {{true, 1, 1}, {true, 2, 0}, {true, 3, 1}, {true, 4, 0}};
    s.sc = 15, s.tso = 15, s.pso = 15;
    v.push_back(std::move(s));
  }
  return v;
}

}  // namespace

std::vector<LitmusTest> all() {
  std::vector<LitmusTest> out;
  for (const Spec& s : specs()) {
    LitmusTest t;
    t.name = s.name;
    t.description = s.description;
    t.program = lower(s);
    t.expectedSC = s.sc;
    t.expectedTSO = s.tso;
    t.expectedPSO = s.pso;
    t.weakSC = s.weakSC;
    t.weakTSO = s.weakTSO;
    t.weakPSO = s.weakPSO;
    out.push_back(std::move(t));
  }
  return out;
}

const LitmusTest& byName(const std::string& name) {
  static const std::vector<LitmusTest> tests = all();
  for (const LitmusTest& t : tests)
    if (t.name == name) return t;
  throw std::invalid_argument("no litmus test named " + name);
}

}  // namespace tsocheck::litmus

// Data races under RC11 (engine/races.h with engine/rc11.h's happens-before):
// release sequences as in C++20 and fences event by event, on hand-written
// programs whose relaxed accesses carry the flags the lowering gives them
// (ir.h kRelaxedAccess: a relaxed access in a function without a matching
// fence); then the detector and the explorer against a matrix oracle on
// random programs (differential.h raceDifferential).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/builder.h"
#include "engine/check.h"
#include "tests/engine/differential.h"
#include "tests/engine/random_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;

namespace {

// The names of the locations RC11 finds a data race on (every race reported).
std::set<std::string> rc11RacyNames(const Program& p) {
  CheckOptions o;
  o.model = Model::RC11;
  o.stopAtFirstError = false;
  const CheckResult r = check(p, o);
  std::set<std::string> out;
  for (const Violation& v : r.violations) {
    REQUIRE(v.kind == ErrorKind::DataRace);
    const std::string m = v.message;
    const size_t at = m.find("data race on ");
    REQUIRE(at != std::string::npos);
    out.insert(m.substr(at + 13, m.find(':', at) - at - 13));
  }
  if (out.empty()) CHECK(r.status == Status::Verified);
  return out;
}

// The last instruction gets order o; a relaxed load or store also the flag
// the lowering sets in a function without a matching fence.
void order(FunctionBuilder& f, MemOrder o, bool fenceInFunction = false) {
  f.setOrder(o);
  if (o == MemOrder::Relaxed && !fenceInFunction) f.fn().code.back().sub |= kRelaxedAccess;
}

struct Mp {
  ProgramBuilder pb{"mp.c"};
  uint32_t data = pb.global("data"), x = pb.global("x");
  FunctionBuilder& main = pb.function("main");
  FunctionBuilder& writer = pb.function("writer", 1);
  FunctionBuilder& reader = pb.function("reader", 1);
  // reader: if (got == want) read data (plain).
  void readDataIf(Reg got, Value want) {
    Label go = reader.newLabel(), skip = reader.newLabel();
    reader.br(reader.cmpImm(CmpOp::Eq, got, want), go, skip);
    reader.bind(go);
    reader.at(20).loadGlobal(data);
    reader.markPlain();
    reader.bind(skip);
    reader.ret();
  }
  Program build() {
    writer.ret();
    Reg a = main.at(30).spawn(writer.index());
    Reg b = main.at(31).spawn(reader.index());
    main.joinDiscard(a);
    main.joinDiscard(b);
    main.ret();
    return pb.build();
  }
};

}  // namespace

TEST_CASE("RC11 races: a relaxed store after the release store ends its release sequence, an RMW continues it",
          "[races][rc11]") {
  for (const bool rmw : {false, true}) {
    CAPTURE(rmw);
    // writer: data = 1; x.store(1, release); x.store(2, relaxed) or x.fetch_add(1, relaxed)
    // reader: if (x.load(acquire) == 2) read data
    Mp mp;
    mp.writer.at(10).storeGlobal(mp.data, 1);
    mp.writer.markPlain();
    mp.writer.at(11).storeGlobal(mp.x, 1);
    order(mp.writer, MemOrder::Release);
    if (rmw) {
      mp.writer.at(12).rmwGlobal(RmwOp::Add, mp.x, 1);
      mp.writer.setOrder(MemOrder::Relaxed);
      mp.writer.fn().code.back().imm = kRmwNoAcquire | kRmwNoRelease;
    } else {
      mp.writer.at(12).storeGlobal(mp.x, 2);
      order(mp.writer, MemOrder::Relaxed);
    }
    Reg v = mp.reader.at(19).loadGlobal(mp.x);
    order(mp.reader, MemOrder::Acquire);
    mp.readDataIf(v, 2);
    const Program p = mp.build();
    // C++20: only RMWs continue a release sequence, so reading the relaxed
    // store's 2 synchronises with nothing.
    CHECK(rc11RacyNames(p) == (rmw ? std::set<std::string>{} : std::set<std::string>{"data"}));
  }
}

TEST_CASE("RC11 races: a release fence orders a relaxed store made in another function", "[races][rc11]") {
  // writer: data = 1; atomic_thread_fence(release); publish();  publish: x.store(1, relaxed)
  // reader: if (x.load(acquire) == 1) read data
  Mp mp;
  FunctionBuilder& publish = mp.pb.function("publish");
  publish.at(5).storeGlobal(mp.x, 1);
  order(publish, MemOrder::Relaxed);  // (publish has no fence of its own)
  publish.ret();
  mp.writer.at(10).storeGlobal(mp.data, 1);
  mp.writer.markPlain();
  mp.writer.at(11).fence();
  mp.writer.setOrder(MemOrder::Release);
  mp.writer.at(12).call(publish.index(), {}, false);
  Reg v = mp.reader.at(19).loadGlobal(mp.x);
  order(mp.reader, MemOrder::Acquire);
  mp.readDataIf(v, 1);
  CHECK(rc11RacyNames(mp.build()).empty());
}

TEST_CASE("RC11 races: an acquire fence after a relaxed load orders what follows it, one before it does not",
          "[races][rc11]") {
  for (const bool fenceFirst : {false, true}) {
    CAPTURE(fenceFirst);
    // writer: data = 1; x.store(1, release)
    // reader, fence after: v = load();  atomic_thread_fence(acquire); if (v == 1) read data
    //         (load: x.load(relaxed), a function without a fence)
    // reader, fence before: atomic_thread_fence(acquire); v = x.load(relaxed); if (v == 1) read data
    Mp mp;
    mp.writer.at(10).storeGlobal(mp.data, 1);
    mp.writer.markPlain();
    mp.writer.at(11).storeGlobal(mp.x, 1);
    order(mp.writer, MemOrder::Release);
    Reg v;
    if (fenceFirst) {
      mp.reader.at(18).fence();
      mp.reader.setOrder(MemOrder::Acquire);
      v = mp.reader.at(19).loadGlobal(mp.x);
      order(mp.reader, MemOrder::Relaxed, /*fenceInFunction=*/true);
    } else {
      FunctionBuilder& load = mp.pb.function("load");
      Reg r = load.at(5).loadGlobal(mp.x);
      order(load, MemOrder::Relaxed);
      load.ret(r);
      v = mp.reader.at(17).call(load.index(), {});
      mp.reader.at(18).fence();
      mp.reader.setOrder(MemOrder::Acquire);
    }
    mp.readDataIf(v, 1);
    CHECK(rc11RacyNames(mp.build()) == (fenceFirst ? std::set<std::string>{"data"} : std::set<std::string>{}));
  }
}

TEST_CASE("RC11 races: the detector and the explorer agree with a matrix oracle on random programs",
          "[races][rc11][property]") {
  RandomProgramSpec spec;
  spec.memoryOrders = true;
  spec.plainAccesses = true;
  uint64_t racy = 0, clean = 0, executions = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const Program p = randomProgram(0x5ace0000ull + seed, spec);
    const DiffOutcome d = raceDifferential(p);
    INFO("seed " << seed << "\n" << d.why);
    CHECK(d.agree);
    (d.violation ? racy : clean)++;
    executions += d.executions;
  }
  // Both kinds of program were met.
  WARN("racy " << racy << ", race-free " << clean << ", executions " << executions);
  CHECK(racy > 20);
  CHECK(clean > 20);
}

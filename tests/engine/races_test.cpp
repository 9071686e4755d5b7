// Data races (engine/races.h): hand-written programs, then the detector
// against an all-pairs happens-before closure on every graph the explorer
// ends with, on random programs with random plain accesses.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/builder.h"
#include "engine/check.h"
#include "engine/graph.h"
#include "engine/races.h"
#include "tests/engine/random_programs.h"

using namespace tsocheck;
using namespace tsocheck::testing;

namespace {

CheckResult run(const Program& p, Model m = Model::TSO, bool races = true) {
  CheckOptions o;
  o.model = m;
  o.raceCheck = races;
  return check(p, o);
}

std::vector<const Violation*> racesOf(const CheckResult& r) {
  std::vector<const Violation*> out;
  for (const Violation& v : r.violations)
    if (v.kind == ErrorKind::Race) out.push_back(&v);
  return out;
}

// Message passing: T1 writes data then flag, T2 reads flag then data.
// plainFlag: the flag accesses are plain too; plainData likewise.
Program messagePassing(bool plainData, bool plainFlag) {
  ProgramBuilder pb("mp.c");
  auto data = pb.global("data");
  auto flag = pb.global("flag");
  auto& m = pb.function("main");
  auto& w = pb.function("writer", 1);
  auto& r = pb.function("reader", 1);
  w.at(3).storeGlobal(data, 1);
  if (plainData) w.markPlain();
  w.at(4).storeGlobal(flag, 1);
  if (plainFlag) w.markPlain();
  w.ret();
  Reg f = r.at(7).loadGlobal(flag);
  if (plainFlag) r.markPlain();
  Label go = r.newLabel(), skip = r.newLabel();
  r.br(f, go, skip);
  r.bind(go);
  r.at(8).loadGlobal(data);
  if (plainData) r.markPlain();
  r.bind(skip);
  r.ret();
  Reg a = m.at(10).spawn(w.index());
  Reg b = m.at(11).spawn(r.index());
  m.at(12).joinDiscard(a);
  m.at(13).joinDiscard(b);
  m.ret();
  return pb.build();
}

}  // namespace

TEST_CASE("races: plain message passing races on both locations, atomic flag orders the data", "[races]") {
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    CheckResult both = run(messagePassing(true, true), model);
    CHECK(both.status == Status::Verified);  // a race is a warning
    CHECK(!both.violation);
    auto rs = racesOf(both);
    REQUIRE(rs.size() == 2);
    std::set<uint32_t> lines;
    for (const Violation* v : rs) {
      CHECK(v->warning);
      REQUIRE(v->other);
      CHECK(v->other->thread != v->thread);
      lines.insert(std::min(v->loc.line, v->other->loc.line) * 100 + std::max(v->loc.line, v->other->loc.line));
      CHECK(!v->trace.empty());
    }
    CHECK(lines == std::set<uint32_t>{308, 407});
    CHECK(both.message.find("warnings: race") != std::string::npos);

    // An atomic flag (release/acquire) orders the plain data: no race.
    CHECK(racesOf(run(messagePassing(true, false), model)).empty());
    // Atomic data, plain flag: the flag races, the data accesses are atomic.
    CheckResult flagRes = run(messagePassing(false, true), model);
    auto flagOnly = racesOf(flagRes);
    REQUIRE(flagOnly.size() == 1);
    CHECK(flagOnly[0]->message.find("flag") != std::string::npos);
    // Off: nothing looked for.
    CHECK(racesOf(run(messagePassing(true, true), model, false)).empty());
  }
}

TEST_CASE("races: a mutex, spawn and join order plain accesses", "[races]") {
  ProgramBuilder pb("locked.c");
  auto cnt = pb.global("counter");
  auto mtx = pb.global("m");
  auto& m = pb.function("main");
  auto& w = pb.function("worker", 1);
  Reg mr = w.at(5).globalAddr(mtx);
  w.lock(mr);
  Reg v = w.at(6).loadGlobal(cnt);
  w.markPlain();
  w.at(6).storeGlobalReg(cnt, w.binImm(BinOp::Add, v, 1));
  w.markPlain();
  w.at(7).unlock(mr);
  w.ret();
  m.at(9).storeGlobal(cnt, 5);  // before the spawns
  m.markPlain();
  Reg a = m.at(10).spawn(w.index());
  Reg b = m.at(10).spawn(w.index());
  m.at(11).joinDiscard(a);
  m.at(11).joinDiscard(b);
  m.at(12).loadGlobal(cnt);  // after the joins
  m.markPlain();
  m.ret();
  CheckResult r = run(pb.build(), Model::TSO);
  CHECK(r.status == Status::Verified);
  CHECK(racesOf(r).empty());
}

TEST_CASE("races: an unlocked counter races, and so does a read after only one join", "[races]") {
  ProgramBuilder pb("unlocked.c");
  auto cnt = pb.global("counter");
  auto& m = pb.function("main");
  auto& w = pb.function("worker", 1);
  Reg v = w.at(6).loadGlobal(cnt);
  w.markPlain();
  w.at(7).storeGlobalReg(cnt, w.binImm(BinOp::Add, v, 1));
  w.markPlain();
  w.ret();
  Reg a = m.at(10).spawn(w.index());
  Reg b = m.at(10).spawn(w.index());
  m.at(11).joinDiscard(a);
  m.at(12).loadGlobal(cnt);  // b may still run
  m.markPlain();
  m.at(13).joinDiscard(b);
  m.ret();
  CheckResult r = run(pb.build(), Model::SC);
  auto rs = racesOf(r);
  // Pairs of lines: worker's load/store against the other worker's store
  // (6-7, 7-7) and main's read against worker b's store (7-12).
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const Violation* x : rs)
    pairs.insert({std::min(x->loc.line, x->other->loc.line), std::max(x->loc.line, x->other->loc.line)});
  CHECK(pairs.count({7, 12}) == 1);
  CHECK((pairs.count({6, 7}) + pairs.count({7, 7})) >= 1);
  for (const auto& p : pairs) CHECK((p == std::make_pair(6u, 7u) || p == std::make_pair(7u, 7u) || p == std::make_pair(7u, 12u)));
}

namespace {

// Store buffering guarding a plain counter, plus a plain `shared` that T1
// writes and T2 reads: under SC at most one thread enters the guarded
// increment, so only `shared` races (T2 may read it before T1 writes, with
// nothing ordering the two); TSO and PSO let both enter. x and y are relaxed,
// which matters to RC11 alone (both threads may enter there too).
Program guardedCounter() {
  ProgramBuilder pb("guarded.c");
  auto x = pb.global("x"), y = pb.global("y"), counter = pb.global("counter"), shared = pb.global("shared");
  auto& m = pb.function("main");
  auto thread = [&](const char* name, uint32_t mine, uint32_t other, uint32_t line, bool writesShared) -> FunctionBuilder& {
    auto& f = pb.function(name, 1);
    if (writesShared) {
      f.at(line).storeGlobal(shared, 1);
      f.markPlain();
    }
    f.at(line + 1).storeGlobal(mine, 1);
    f.setOrder(MemOrder::Relaxed);
    Reg r = f.at(line + 2).loadGlobal(other);
    f.setOrder(MemOrder::Relaxed);
    Label in = f.newLabel(), out = f.newLabel();
    f.br(f.cmpImm(CmpOp::Eq, r, 0), in, out);
    f.bind(in);
    Reg c = f.at(line + 3).loadGlobal(counter);
    f.markPlain();
    f.storeGlobalReg(counter, f.binImm(BinOp::Add, c, 1));
    f.markPlain();
    f.bind(out);
    if (!writesShared) {
      f.at(line + 4).loadGlobal(shared);
      f.markPlain();
    }
    f.ret();
    return f;
  };
  auto& t1 = thread("t1", x, y, 3, true);
  auto& t2 = thread("t2", y, x, 10, false);
  Reg a = m.at(20).spawn(t1.index());
  Reg b = m.at(21).spawn(t2.index());
  m.at(22).joinDiscard(a);
  m.at(23).joinDiscard(b);
  m.ret();
  return pb.build();
}

// The racing location of each race (by the lines of its two accesses).
std::set<std::string> racyLocations(const CheckResult& r, ErrorKind kind) {
  std::set<std::string> out;
  for (const Violation& v : r.violations) {
    if (v.kind != kind) continue;
    REQUIRE(v.other);
    const uint32_t lo = std::min(v.loc.line, v.other->loc.line), hi = std::max(v.loc.line, v.other->loc.line);
    out.insert(lo == 3 && hi == 14 ? "shared" : lo == 6 && hi == 13 ? "counter" : v.message);
  }
  return out;
}

}  // namespace

TEST_CASE("races: a data race is the program's: the same races under SC, TSO and PSO, an error under RC11", "[races][rc11]") {
  const Program p = guardedCounter();
  for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(model));
    const CheckResult r = run(p, model);
    // TSO and PSO let both threads increment the counter, but SC does not:
    // that is no race of the C program (its SC executions have none).
    CHECK(racyLocations(r, ErrorKind::Race) == std::set<std::string>{"shared"});
    CHECK(racyLocations(r, ErrorKind::DataRace).empty());
    CHECK(r.status == Status::Verified);  // a warning
    for (const Violation& v : r.violations) CHECK(v.warning);
  }
  // RC11: relaxed x and y let both threads in, and every race is undefined
  // behaviour: an error of its own kind; the search stops at the first one.
  CheckOptions o;
  o.model = Model::RC11;
  CheckResult r = check(p, o);
  CHECK(r.status == Status::Violation);
  REQUIRE(r.violation);
  CHECK(r.violation->kind == ErrorKind::DataRace);
  CHECK(!r.violation->warning);
  CHECK(std::string(errorKindName(ErrorKind::DataRace)) == "data-race");
  o.stopAtFirstError = false;
  r = check(p, o);
  CHECK(racyLocations(r, ErrorKind::DataRace) == std::set<std::string>{"shared", "counter"});
  CHECK(racyLocations(r, ErrorKind::Race).empty());
  o.raceCheck = false;
  CHECK(check(p, o).status == Status::Verified);
}

namespace {

// All-pairs reference on one graph: happens-before by closure over po,
// release-sequence-to-acquire rf, spawn and join edges; the locations with a race.
std::set<Addr> racyLocationsByClosure(const Graph& g, const RaceDetector& d) {
  std::vector<EventId> evs;
  for (uint32_t t = 0; t < g.threads.size(); ++t)
    if (g.threads[t].alive)
      for (uint32_t i = 0; i < g.threads[t].events.size(); ++i) evs.push_back({t, i});
  auto idx = [&](EventId e) {
    for (size_t k = 0; k < evs.size(); ++k)
      if (evs[k] == e) return k;
    return evs.size();
  };
  const size_t n = evs.size();
  std::vector<std::vector<size_t>> succ(n);
  for (size_t k = 0; k < n; ++k) {
    const EventId e = evs[k];
    const ThreadInfo& th = g.threads[e.thread];
    const Event& x = th.events[e.index];
    if (e.index + 1 < th.events.size()) succ[k].push_back(idx({e.thread, e.index + 1}));
    if (x.kind == EvKind::Spawn && g.threads[x.aux].alive && !g.threads[x.aux].events.empty())
      succ[k].push_back(idx({x.aux, 0}));
    if (x.kind == EvKind::Join && !g.threads[x.aux].events.empty())
      succ[idx({x.aux, uint32_t(g.threads[x.aux].events.size() - 1)})].push_back(k);
    // An acquiring read synchronises with every releasing write of the
    // release sequence it reads from (the write, and back through RMWs).
    if (x.reads && d.acquires(x))
      for (EventId w = x.rf; !w.isInit() && !d.isPlain(g.ev(w));) {
        const Event& we = g.ev(w);
        if (d.releases(we)) succ[idx(w)].push_back(k);
        // The coherence predecessor continues the sequence for an RMW (it
        // reads from it) and for a write of the same thread.
        const Location* l = g.findLoc(we.addr);
        const int at = l ? Graph::coIndex(*l, w) : -1;
        if (at <= 0) break;
        const EventId prev = l->co[size_t(at - 1)];
        if (!(we.reads && we.writes) && prev.thread != w.thread) break;
        w = prev;
      }
  }
  std::vector<std::vector<char>> reach(n, std::vector<char>(n, 0));
  for (size_t s = 0; s < n; ++s) {
    std::vector<size_t> stack{s};
    while (!stack.empty()) {
      size_t u = stack.back();
      stack.pop_back();
      for (size_t v : succ[u])
        if (!reach[s][v]) {
          reach[s][v] = 1;
          stack.push_back(v);
        }
    }
  }
  auto access = [](const Event& e) {
    return (e.kind == EvKind::Load || e.kind == EvKind::Store || e.kind == EvKind::Rmw || e.kind == EvKind::Lock ||
            e.kind == EvKind::TryLock || e.kind == EvKind::Unlock) &&
           (e.reads || e.writes);
  };
  std::set<Addr> out;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      const Event& x = g.ev(evs[a]);
      const Event& y = g.ev(evs[b]);
      if (evs[a].thread == evs[b].thread || !access(x) || !access(y) || x.addr != y.addr) continue;
      if (!(x.writes || y.writes) || !(d.isPlain(x) || d.isPlain(y))) continue;
      if (!reach[a][b] && !reach[b][a]) out.insert(x.addr);
    }
  return out;
}

}  // namespace

TEST_CASE("races: the detector agrees with an all-pairs closure on random programs' graphs", "[races][property]") {
  uint64_t graphs = 0, racy = 0, knownSkips = 0, knownSearches = 0;
  RaceDetector::Counts ends;
  for (uint64_t seed = 1; seed <= 250; ++seed) {
    Program p = randomProgram(seed * 7919);
    std::mt19937_64 rng(seed);
    // Accesses plain (most), relaxed or acquire/release at random; from seed
    // 151 on, fewer plain ones in the threads.
    const uint64_t plainPicks = seed <= 150 ? 3 : 1;
    for (Function& f : p.functions)
      for (Instr& in : f.code) {
        const uint64_t pick = rng() % 6;
        if ((in.op == Op::Load || in.op == Op::Store) && pick < plainPicks) in.sub |= kPlainAccess;
        else if ((in.op == Op::Load || in.op == Op::Store) && pick == 3) in.sub |= kRelaxedAccess;
        else if (in.op == Op::Rmw) in.imm = int64_t(pick % 4);  // kRmwNoAcquire / kRmwNoRelease / both / neither
      }
    if (seed > 150) {
      // A new main: the old one's threads, spawned and joined in a random
      // order, with plain accesses to the shared globals before the spawns,
      // between them, between the joins and after them (what a spawn or a
      // join alone may order, or not), each at random.
      std::vector<uint32_t> threadFuncs;
      for (const Instr& in : p.functions[p.entry].code)
        if (in.op == Op::Spawn) threadFuncs.push_back(uint32_t(in.imm));
      Function h;
      h.name = "harness";
      h.loc.file = 1;
      p.functions.push_back(h);
      FunctionBuilder fb(&p, uint32_t(p.functions.size() - 1), 0);
      std::vector<uint32_t> shared;
      for (uint32_t gi = 0; gi < p.globals.size(); ++gi)
        if (p.globals[gi].size == 4) shared.push_back(gi);
      auto accesses = [&](uint64_t oneIn) {
        for (uint32_t gi : shared)
          if (rng() % oneIn == 0) {
            if (rng() % 2) fb.storeGlobal(gi, 7);
            else fb.loadGlobal(gi);
            fb.markPlain();
          }
      };
      std::vector<Reg> ids;
      accesses(2);
      for (uint32_t f : threadFuncs) {
        ids.push_back(fb.spawn(f));
        accesses(6);
      }
      std::shuffle(ids.begin(), ids.end(), rng);
      for (Reg id : ids) {
        fb.joinDiscard(id);
        accesses(4);
      }
      fb.ret();
      p.entry = fb.index();
    }
    // A source location per instruction (the known pairs below are pairs of them).
    for (size_t f = 0; f < p.functions.size(); ++f)
      for (size_t pc = 0; pc < p.functions[f].code.size(); ++pc)
        p.functions[f].code[pc].loc = SourceLoc{1, uint32_t(pc + 1), uint32_t(f + 1)};
    RaceDetector d(p);
    RaceDetector withKnown(p);
    for (Model model : {Model::SC, Model::TSO, Model::PSO}) {
      CheckOptions o;
      o.model = model;
      o.stopAtFirstError = false;
      // The pairs of source locations found racing so far (at most 8, as
      // the explorer reports): given them, find() either answers as without
      // them or answers nothing, and then every race it would name is known.
      RaceDetector::Known known;
      o.onExecution = [&](const ExecutionInfo& info) {
        REQUIRE(info.graph);
        std::vector<Race> found;
        d.find(*info.graph, found);
        std::vector<Race> foundWithKnown;
        withKnown.find(*info.graph, foundWithKnown, known);
        auto pairOf = [&](const Race& r) {
          return std::make_pair(info.graph->ev(r.first).loc, info.graph->ev(r.second).loc);
        };
        auto isKnown = [&](const Race& r) {
          const auto [a, b] = pairOf(r);
          return std::any_of(known.begin(), known.end(),
                             [&](const auto& k) { return (k.first == a && k.second == b) || (k.first == b && k.second == a); });
        };
        if (foundWithKnown.empty() && !found.empty()) {
          ++knownSkips;
          for (const Race& r : found) CHECK(isKnown(r));
        } else {
          knownSearches += !found.empty();
          REQUIRE(foundWithKnown.size() == found.size());
          for (size_t k = 0; k < found.size(); ++k) {
            CHECK(foundWithKnown[k].first == found[k].first);
            CHECK(foundWithKnown[k].second == found[k].second);
          }
        }
        for (const Race& r : found)
          if (known.size() < 8 && !isKnown(r)) known.push_back(pairOf(r));
        std::set<Addr> got;
        for (const Race& r : found) {
          const Event& a = info.graph->ev(r.first);
          const Event& b = info.graph->ev(r.second);
          CHECK(a.addr == b.addr);
          CHECK(r.first.thread != r.second.thread);
          got.insert(a.addr);
        }
        std::set<Addr> want = racyLocationsByClosure(*info.graph, d);
        INFO("seed " << seed << " model " << modelName(model));
        CHECK(got == want);
        ++graphs;
        racy += !want.empty();
      };
      check(p, o);
    }
    ends.noCandidate += d.counts().noCandidate;
    ends.spawnJoinOrdered += d.counts().spawnJoinOrdered;
    ends.searched += d.counts().searched;
  }
  CHECK(graphs > 1000);
  CHECK(racy > 100);
  CHECK(racy < graphs);
  // Known pairs both ended searches and let them run.
  INFO("racy graphs skipped as known " << knownSkips << ", searched " << knownSearches);
  CHECK(knownSkips > 0);
  CHECK(knownSearches > 0);
  // Each way find() can end was taken, the early ones without a race found.
  INFO("no candidate " << ends.noCandidate << ", ordered by spawn/join " << ends.spawnJoinOrdered << ", searched "
                       << ends.searched);
  CHECK(ends.noCandidate > 0);
  CHECK(ends.spawnJoinOrdered > 0);
  CHECK(ends.searched > 0);
  WARN("no candidate " << ends.noCandidate << ", ordered by spawn/join " << ends.spawnJoinOrdered << ", searched "
                       << ends.searched);
}

TEST_CASE("races: a race's trace ends with the later of its two accesses", "[races]") {
  // Two workers race on the counter, then each writes a location of its own
  // many times: the traces stop at the racing pair.
  ProgramBuilder pb("tail.c");
  auto cnt = pb.global("counter");
  auto& m = pb.function("main");
  std::vector<uint32_t> workers;
  for (int k = 0; k < 2; ++k) {
    auto own = pb.global(k == 0 ? "own0" : "own1");
    auto& w = pb.function(k == 0 ? "worker0" : "worker1", 1);
    Reg v = w.at(6).loadGlobal(cnt);
    w.markPlain();
    w.at(7).storeGlobalReg(cnt, w.binImm(BinOp::Add, v, 1));
    w.markPlain();
    for (int i = 0; i < 30; ++i) w.at(9).storeGlobal(own, Value(i));
    w.ret();
    workers.push_back(w.index());
  }
  Reg a = m.at(12).spawn(workers[0]);
  Reg b = m.at(12).spawn(workers[1]);
  m.at(13).joinDiscard(a);
  m.at(13).joinDiscard(b);
  m.ret();
  const Program prog = pb.build();
  for (Model model : {Model::SC, Model::TSO}) {
    CheckResult r = run(prog, model);
    auto rs = racesOf(r);
    REQUIRE(!rs.empty());
    for (const Violation* x : rs) {
      REQUIRE(!x->trace.empty());
      const TraceStep& last = x->trace.back();
      CAPTURE(modelName(model), x->message, last.loc.line);
      CHECK(((last.thread == x->thread && last.loc.line == x->loc.line) ||
             (last.thread == x->other->thread && last.loc.line == x->other->loc.line)));
      // Both accesses are in it.
      for (const auto& [t, line] : {std::pair{x->thread, x->loc.line}, std::pair{x->other->thread, x->other->loc.line}})
        CHECK(std::any_of(x->trace.begin(), x->trace.end(),
                          [&](const TraceStep& s) { return s.thread == t && s.loc.line == line; }));
    }
  }
}

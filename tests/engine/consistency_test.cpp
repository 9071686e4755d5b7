// Incremental consistency (consistency.h "Incremental checks"): the order kept
// in the graph gives the same answers as sorting from scratch, and is used.
#include <catch2/catch.hpp>

#include <sstream>

#include "engine/check.h"
#include "engine/consistency.h"
#include "tests/engine/random_programs.h"
#include "tests/engine/trace_text.h"

using namespace tsocheck;
using tsocheck::testing::randomProgram;
using tsocheck::testing::RandomProgramSpec;

namespace {

// A graph under construction, one event at a time, the way the explorer adds
// them: memory accesses wait for their choice and are then placed; other
// events take the end of the order at once.
struct GraphBuilder {
  Graph g;
  explicit GraphBuilder(uint32_t threads) {
    g.threads.resize(threads);
    for (uint32_t t = 0; t < threads; ++t) g.threads[t].alive = true;
  }
  EventId add(uint32_t t, Event e) {
    e.stamp = e.wstamp = g.nextStamp++;
    g.threads[t].events.push_back(e);
    const EventId id{t, uint32_t(g.threads[t].events.size() - 1)};
    if (e.reads || e.writes) ++g.unplaced;
    else ConsistencyChecker::placeLast(g, id);
    return id;
  }
  EventId spawn(uint32_t parent, uint32_t child) {
    Event e;
    e.kind = EvKind::Spawn;
    e.aux = child;
    const EventId id = add(parent, e);
    g.threads[child].parent = parent;
    g.threads[child].spawnIndex = id.index;
    return id;
  }
  EventId store(uint32_t t, Addr a, Value v) {
    Event e;
    e.kind = EvKind::Store;
    e.writes = true;
    e.addr = a;
    e.size = 4;
    e.wval = v;
    g.locFor(a, 4, 0);
    return add(t, e);
  }
  EventId load(uint32_t t, Addr a) {
    Event e;
    e.kind = EvKind::Load;
    e.reads = true;
    e.addr = a;
    e.size = 4;
    g.locFor(a, 4, 0);
    return add(t, e);
  }
  CoOrder& co(Addr a) { return g.findLoc(a)->co; }
  // A store that goes last in co, or a load of rf, asked about and placed.
  EventId newestStore(ConsistencyChecker& c, uint32_t t, Addr a, Value v) {
    const EventId w = store(t, a, v);
    co(a).push_back(w);
    REQUIRE(c.consistentWith(g, w));
    c.place(g, w);
    return w;
  }
  EventId loadOf(ConsistencyChecker& c, uint32_t t, Addr a, EventId rf) {
    const EventId r = load(t, a);
    g.mut(r).rf = rf;
    REQUIRE(c.consistentWith(g, r));
    c.place(g, r);
    return r;
  }
};

constexpr Addr kX = 0x10000, kY = 0x10004;

// body(c, b, m) under SC and TSO with unbounded buffers: a self-checking
// checker (every answer also from scratch, keys checked) and a graph of two
// threads, T0 having spawned T1 (the spawn's id passed).
template <class Body>
void underScAndTso(Body body) {
  for (Model m : {Model::SC, Model::TSO}) {
    CAPTURE(modelName(m));
    ConsistencyChecker c(MemoryModel{m, -1});
    c.setSelfCheck(true);
    GraphBuilder b(2);
    const EventId sp = b.spawn(0, 1);
    body(c, b, m, sp);
  }
}

}  // namespace

TEST_CASE("incremental consistency: events fit the kept order, or a sort from scratch decides", "[consistency]") {
  for (Model m : {Model::SC, Model::TSO}) {
    CAPTURE(modelName(m));
    ConsistencyChecker c(MemoryModel{m, -1});
    GraphBuilder b(2);
    b.spawn(0, 1);
    // T0: x = 1 goes at the end of the co order and of the kept order.
    const EventId w = b.newestStore(c, 0, kX, 1);
    CHECK(c.counts().fromScratch == 0);
    CHECK(c.counts().atEnd == 2);  // the question and the placing
    // T1 reads the initial x: it must come before T0's store, after the
    // spawn: it fits between the two.
    const EventId r = b.loadOf(c, 1, kX, kInit);
    CHECK(c.counts().between == 2);
    CHECK(c.counts().fromScratch == 0);
    CHECK(c.keysHold(b.g));
    CHECK(b.g.ev(r).orderKey < b.g.ev(w).orderKey);
    // T0 then reads the initial x after its own store: SC and TSO forbid it
    // (T0's own store is newer). The kept order has no place; mending it
    // finds the cycle (the store must both precede and follow the read), with
    // no sort; the graph's keys are untouched.
    const EventId r2 = b.load(0, kX);
    b.g.mut(r2).rf = kInit;
    const uint64_t wKey = b.g.ev(w).orderKey, rKey = b.g.ev(r).orderKey;
    CHECK_FALSE(c.consistentWith(b.g, r2));
    CHECK(c.counts().mended == 1);
    CHECK(c.counts().fromScratch == 0);
    CHECK(b.g.ev(w).orderKey == wKey);
    CHECK(b.g.ev(r).orderKey == rKey);
    // Reading its own store instead is allowed (TSO: forwarded).
    b.g.mut(r2).rf = w;
    CHECK(c.consistentWith(b.g, r2));
    c.place(b.g, r2);
    CHECK(c.keysHold(b.g));
  }
}

TEST_CASE("incremental consistency: a stale read the kept order cannot hold is sorted afresh", "[consistency]") {
  // Store buffering under TSO: T0 x = 1; r0 = y. T1 y = 1; r1 = x. Both reads
  // of 0 are allowed (both stores still buffered); under SC they are not.
  underScAndTso([](ConsistencyChecker& c, GraphBuilder& b, Model m, EventId) {
    const EventId wx = b.newestStore(c, 0, kX, 1);
    b.loadOf(c, 0, kY, kInit);
    b.newestStore(c, 1, kY, 1);
    const EventId r1 = b.load(1, kX);
    b.g.mut(r1).rf = kInit;
    CHECK(c.consistentWith(b.g, r1) == (m == Model::TSO));
    b.g.mut(r1).rf = wx;
    CHECK(c.consistentWith(b.g, r1));
  });
}

TEST_CASE("incremental consistency: the kept order is mended by moving only the nodes in the way", "[consistency]") {
  // T0: x = 1. T1: r0 = y (0); r1 = x (0). The kept order has x = 1 before
  // T1's first read, so the read of x's initial value finds no room; the
  // order y-read, x-read, x = 1 allows it under SC and TSO. Mending swaps
  // the two placed nodes; nothing else moves and nothing is sorted.
  underScAndTso([](ConsistencyChecker& c, GraphBuilder& b, Model, EventId sp) {
    const EventId wx = b.newestStore(c, 0, kX, 1);
    const EventId ry = b.loadOf(c, 1, kY, kInit);
    REQUIRE(b.g.ev(wx).orderKey < b.g.ev(ry).orderKey);
    const uint64_t spKey = b.g.ev(sp).orderKey, wxKey = b.g.ev(wx).orderKey, ryKey = b.g.ev(ry).orderKey;
    const EventId rx = b.load(1, kX);
    b.g.mut(rx).rf = kInit;
    const uint64_t sorts = c.counts().fromScratch;
    CHECK(c.consistentWith(b.g, rx));
    CHECK(c.counts().mended == 1);
    CHECK(c.counts().fromScratch == sorts);
    CHECK(b.g.ev(sp).orderKey == spKey);  // untouched
    CHECK(b.g.ev(ry).orderKey == wxKey);  // the two swapped their keys
    CHECK(b.g.ev(wx).orderKey == ryKey);
    c.place(b.g, rx);
    CHECK(c.keysHold(b.g));
    CHECK(b.g.ev(ry).orderKey < b.g.ev(rx).orderKey);
    CHECK(b.g.ev(rx).orderKey < b.g.ev(wx).orderKey);
    CHECK(c.counts().fromScratch == sorts);
    // T0 now reads y = 0 after x = 1: allowed (nothing writes y).
    const EventId r0 = b.load(0, kY);
    b.g.mut(r0).rf = kInit;
    CHECK(c.consistentWith(b.g, r0));
  });
}

TEST_CASE("incremental consistency: a load's candidates tried in one scope get the answers of separate checks",
          "[consistency]") {
  // T0: x = 1; r0 = y (0). T1: x = 2; y = 1; r1 = x, with x = 2 (its own,
  // co-first), x = 1 and the initial x tried in turn inside a
  // LoadCandidates scope (the edges of everything but r1 built once), each
  // answer against a checker that builds every edge each time. Both check
  // themselves: every answer is also a sort from scratch.
  for (Model m : {Model::SC, Model::TSO, Model::PSO}) {
    CAPTURE(modelName(m));
    ConsistencyChecker c(MemoryModel{m, -1}), fresh(MemoryModel{m, -1});
    c.setSelfCheck(true);
    fresh.setSelfCheck(true);
    GraphBuilder b(2);
    b.spawn(0, 1);
    const EventId x2 = b.newestStore(c, 1, kX, 2);
    const EventId x1 = b.newestStore(c, 0, kX, 1);
    b.loadOf(c, 0, kY, kInit);
    const EventId y1 = b.store(1, kY, 1);
    b.co(kY).push_back(y1);
    REQUIRE(c.consistentWith(b.g, y1));
    c.place(b.g, y1);
    const EventId r1 = b.load(1, kX);
    const Graph before = b.g;
    std::vector<bool> scoped, separate;
    const auto sorted = c.counts().mended + c.counts().fromScratch;
    {
      const ConsistencyChecker::LoadCandidates scope(c, b.g, r1);
      for (EventId w : {x2, x1, kInit}) {
        b.g.setRf(r1, w);
        scoped.push_back(c.consistentWith(b.g, r1));
      }
    }
    for (EventId w : {x2, x1, kInit}) {
      Graph g = before;
      g.setRf(r1, w);
      separate.push_back(fresh.consistentWith(g, r1));
    }
    CHECK(scoped == separate);
    CHECK(c.counts().mended + c.counts().fromScratch > sorted);  // the scope's edges were used
    CHECK_FALSE(scoped[2]);  // the initial x after its own x = 2: never
    CHECK(scoped[1]);        // x = 1, co-latest: every model
  }
}

TEST_CASE("incremental consistency: a write that splits an RMW from what it read is ruled out at once", "[consistency]") {
  ConsistencyChecker c(MemoryModel{Model::TSO, -1});
  c.setSelfCheck(true);
  GraphBuilder b(2);
  b.spawn(0, 1);
  Event rmw;
  rmw.kind = EvKind::Rmw;
  rmw.reads = rmw.writes = true;
  rmw.addr = kX;
  rmw.size = 4;
  b.g.locFor(kX, 4, 0);
  const EventId u = b.add(0, rmw);
  b.g.mut(u).rf = kInit;
  b.co(kX).push_back(u);
  REQUIRE(c.consistentWith(b.g, u));
  c.place(b.g, u);
  // T1's store between the initial value and the RMW that read it.
  const EventId w = b.store(1, kX, 5);
  b.co(kX).insert(0, w);
  const uint64_t before = c.counts().fromScratch;
  CHECK_FALSE(c.consistentWith(b.g, w));
  CHECK(c.counts().fromScratch == before);  // no sort needed to say no
  // After the RMW it is fine.
  b.co(kX).erase(0);
  b.co(kX).push_back(w);
  CHECK(c.consistentWith(b.g, w));
}

TEST_CASE("incremental consistency changes no result of the explorer", "[consistency]") {
  // The same search with and without the kept order: every count, message and
  // trace equal; with the self-check on, every incremental answer is also
  // compared with a sort from scratch (a logic_error otherwise).
  RandomProgramSpec spec, loops;
  loops.loopIterations = 2;  // longer executions: keys fitted many times
  loops.spinAwaits = true;
  int compared = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const Program prog = randomProgram(seed, seed % 2 ? spec : loops);
    for (auto [m, k] : {std::pair{Model::SC, -1}, {Model::TSO, -1}, {Model::PSO, -1}, {Model::TSO, 1}}) {
      CheckResult r[2];
      for (int i = 0; i < 2; ++i) {
        CheckOptions o;
        o.model = m;
        o.bufferBound = k;
        o.stopAtFirstError = false;
        o.testing.incrementalConsistency = i == 0;
        o.testing.checkOrders = i == 0;
        REQUIRE_NOTHROW(r[i] = check(prog, o));
      }
      INFO("seed " << seed << " " << modelName(m) << " bound " << k);
      CHECK(r[0].status == r[1].status);
      CHECK(r[0].executions == r[1].executions);
      CHECK(r[0].blocked == r[1].blocked);
      CHECK(r[0].events == r[1].events);
      REQUIRE(r[0].violations.size() == r[1].violations.size());
      for (size_t v = 0; v < r[0].violations.size(); ++v)
        CHECK(testing::traceText(prog, r[0].violations[v]) == testing::traceText(prog, r[1].violations[v]));
      ++compared;
    }
  }
  CHECK(compared == 600);
}

// Sharded searches (CheckOptions::shard, engine/work_sharing.h "Shards"):
// the merge of every shard's result is the single run's result.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/examples/litmus.h"
#include "engine/work_sharing.h"
#include "tests/engine/random_programs.h"
#include "tests/engine/stress_programs.h"
#include "tests/engine/trace_text.h"

using namespace tsocheck;
using namespace tsocheck::testing;

namespace {

std::string described(const Program& prog, const CheckResult& r) {
  std::string s = std::string(statusName(r.status)) + " | " + r.message + " | executions " +
                  std::to_string(r.executions) + " blocked " + std::to_string(r.blocked) + " cut " +
                  std::to_string(r.cut) + " events " + std::to_string(r.events) + " staleWaits " +
                  std::to_string(r.staleWaits) + " staleReads " + std::to_string(r.staleReads);
  for (const std::string& l : r.limitsHit) s += "\nlimit: " + l;
  for (const Violation& v : r.violations)
    s += "\nviolation " + std::string(errorKindName(v.kind)) + " T" + std::to_string(v.thread) + ": " + v.message +
         (v.warning ? " (warning)" : "") + "\n" + traceText(prog, v);
  if (r.violation) s += "\nthe violation: " + r.violation->message;
  return s;
}

// Runs `count` shards of prog with the cut at `depth` and merges them.
CheckResult sharded(const Program& prog, const CheckOptions& opts, uint32_t count, uint32_t depth) {
  std::vector<CheckResult> parts;
  for (uint32_t i = 0; i < count; ++i) {
    CheckOptions o = opts;
    o.shard = {i, count, depth};
    parts.push_back(check(prog, o));
    REQUIRE(parts.back().shard);
  }
  return mergeShards(parts, opts);
}

void requireShardsAddUp(const std::string& name, const Program& prog, Model model) {
  for (bool keepGoing : {false, true}) {
    CheckOptions o;
    o.model = model;
    o.stopAtFirstError = !keepGoing;
    const std::string single = described(prog, check(prog, o));
    for (uint32_t depth : {2u, kDefaultShardDepth})
      for (uint32_t count : {1u, 2u, 3u, 7u}) {
        INFO(name << " under " << modelName(model) << (keepGoing ? ", keep going" : "") << ": " << count
                  << " shards cut at depth " << depth);
        CHECK(described(prog, sharded(prog, o, count, depth)) == single);
      }
  }
}

}  // namespace

TEST_CASE("shards of random programs add up to the single run", "[shard]") {
  for (uint64_t seed = 0; seed < 10; ++seed) {
    RandomProgramSpec spec;
    spec.memoryOrders = seed % 2 == 1;
    const Program prog = randomProgram(seed, spec);
    for (Model m : {Model::SC, Model::TSO, Model::PSO, Model::RC11})
      requireShardsAddUp("random program " + std::to_string(seed), prog, m);
  }
}

TEST_CASE("shards of stress programs add up to the single run, violations and hangs included", "[shard]") {
  for (int f = 0; f < kStressFamilies; ++f)
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      const StressProgram sp = stressProgram(seed, StressFamily(f));
      const Program prog = buildStress(sp);
      for (Model m : {Model::SC, Model::TSO, Model::PSO})
        requireShardsAddUp(std::string(stressFamilyName(StressFamily(f))) + " " + std::to_string(seed), prog, m);
    }
}

TEST_CASE("shards of the litmus tests give the single run's counterexample", "[shard]") {
  for (const litmus::LitmusTest& t : litmus::all())
    for (Model m : {Model::SC, Model::TSO, Model::PSO}) requireShardsAddUp(t.name, t.program, m);
}

TEST_CASE("a shard splits the work: no shard explores every execution", "[shard]") {
  const litmus::LitmusTest& t = litmus::byName("IRIW");
  CheckOptions o;
  o.model = Model::PSO;
  o.stopAtFirstError = false;
  const CheckResult single = check(t.program, o);
  REQUIRE(single.executions > 8);
  uint64_t largest = 0, sum = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    CheckOptions s = o;
    s.shard = {i, 3, 4};
    const CheckResult r = check(t.program, s);
    largest = std::max(largest, r.executions);
    sum += r.executions;
  }
  CHECK(sum == single.executions);
  CHECK(largest < single.executions);
  // A search of no piece (Shard::only empty) or of a path no child has
  // explores the top of the tree only.
  CheckOptions top = o;
  top.shard = {0, 3, 4, std::vector<uint32_t>{}};
  const CheckResult r = check(t.program, top);
  CHECK(r.executions < single.executions);
  CheckOptions nowhere = o;
  nowhere.shard = {0, 3, 4, std::vector<uint32_t>{99, 99, 99, 99}};
  CHECK(check(t.program, nowhere).executions == r.executions);
}

TEST_CASE("searches a shard cannot split are refused with the reason", "[shard]") {
  const litmus::LitmusTest& t = litmus::byName("SB");
  CheckOptions o;
  o.shard = {0, 2, 4};
  SECTION("stateful") {
    o.stateful = true;
    const CheckResult r = check(t.program, o);
    CHECK(r.status == Status::Error);
    CHECK(r.message.find("visited states") != std::string::npos);
  }
  SECTION("robustness") {
    o.robustness = true;
    const CheckResult r = check(t.program, o);
    CHECK(r.status == Status::Error);
    CHECK(r.message.find("one witness") != std::string::npos);
  }
  SECTION("preemption bound") {
    o.preemptionBound = 1;
    const CheckResult r = check(t.program, o);
    CHECK(r.status == Status::Error);
    CHECK(r.message.find("preemption bound") != std::string::npos);
  }
}

namespace {

// The merged counterexample is found again by a search of the top of the
// tree and the one piece it came from (CheckOptions::Shard::only): the trace
// the single run reports, whichever piece (or the top) holds it.
size_t requirePieceRefindsCounterexample(const std::string& name, const Program& prog, Model model) {
  CheckOptions o;
  o.model = model;
  const CheckResult single = check(prog, o);
  if (!single.violation) return 0;
  const std::string want = traceText(prog, *single.violation);
  size_t inPieces = 0;
  for (uint32_t depth : {2u, kDefaultShardDepth})
    for (uint32_t count : {3u, 7u}) {
      INFO(name << " under " << modelName(model) << ": " << count << " shards cut at depth " << depth);
      const CheckResult merged = sharded(prog, o, count, depth);
      REQUIRE(merged.violation);
      REQUIRE(merged.violation->shardOrder);
      CheckOptions p = o;
      p.shard = {0, count, depth, shardPieceOf(*merged.violation->shardOrder, depth)};
      inPieces += !p.shard.only->empty();
      const CheckResult again = check(prog, p);
      REQUIRE(again.violation);
      CHECK(traceText(prog, *again.violation) == want);
      CHECK(again.violation->message == single.violation->message);
      CHECK(again.executions <= single.executions);
    }
  return inPieces;
}

}  // namespace

TEST_CASE("one piece searched again finds the merged counterexample", "[shard]") {
  size_t inPieces = 0;
  for (const litmus::LitmusTest& t : litmus::all())
    for (Model m : {Model::TSO, Model::PSO}) inPieces += requirePieceRefindsCounterexample(t.name, t.program, m);
  for (uint64_t seed = 0; seed < 10; ++seed) {
    RandomProgramSpec spec;
    spec.memoryOrders = seed % 2 == 1;
    const Program prog = randomProgram(seed, spec);
    for (Model m : {Model::TSO, Model::PSO, Model::RC11})
      inPieces += requirePieceRefindsCounterexample("random program " + std::to_string(seed), prog, m);
  }
  for (int f = 0; f < kStressFamilies; ++f) {
    const StressProgram sp = stressProgram(1, StressFamily(f));
    for (Model m : {Model::SC, Model::TSO})
      inPieces += requirePieceRefindsCounterexample(stressFamilyName(StressFamily(f)), buildStress(sp), m);
  }
  // Counterexamples below the cut, not only above it, were searched again.
  CHECK(inPieces > 0);
}

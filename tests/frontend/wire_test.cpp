// The worker-process encoding (frontend/wire.h): a lowered module survives
// the round trip exactly, and damaged messages are refused, never trusted.
#include <catch2/catch.hpp>

#include <cstring>

#include "engine/check.h"
#include "frontend/wire.h"

using namespace tsocheck;
using namespace tsocheck::frontend;

namespace {

const char* kSource = R"(#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>
int x, y, a[4] = {1, 2, 3, 4};
__thread int mine = 7;
_Thread_local int shared_tl[2] = {3, 4};
int *published;
double half = 0.5;
static void *t(void *arg) { x = (int)(mine * half + 0.5f) - 3; published = &shared_tl[1]; return (void *)(long)y; }
TSOCHECK_WITH("model=pso") void first(void) {
  pthread_t h;
  pthread_create(&h, 0, t, 0);
  y = a[2];
  pthread_join(h, 0);
  assert(x == 1);
}
TSOCHECK void second(void) { long double f = 1.5L; x = (int)f; }
)";

bool sameInstr(const Instr& p, const Instr& q) { return std::memcmp(&p, &q, sizeof p) == 0; }

}  // namespace

TEST_CASE("a lowered module survives the worker encoding", "[frontend][wire]") {
  FrontendOptions o;
  o.model = Model::PSO;
  o.loopBound = 3;
  const FrontendResult r = lowerSource("wire.c", kSource, o);
  REQUIRE(r.module.checks.size() == 2);
  REQUIRE(r.module.checks[1].blockedBy);  // the long double: a per-check refusal travels too
  bool fp = false;  // and the floating-point ops of the thread
  for (const Function& f : r.module.program.functions)
    for (const Instr& in : f.code) fp = fp || in.op == Op::FBin || in.op == Op::FConv;
  CHECK(fp);
  const FrontendResult d = decodeResult(encodeResult(r));
  CHECK(d.ok == r.ok);
  CHECK(d.fileErrors == r.fileErrors);
  REQUIRE(d.diagnostics.size() == r.diagnostics.size());
  for (size_t i = 0; i < d.diagnostics.size(); ++i) CHECK(formatDiagnostic(d.diagnostics[i]) == formatDiagnostic(r.diagnostics[i]));
  const Program& p = r.module.program;
  const Program& q = d.module.program;
  CHECK(q.files == p.files);
  CHECK(q.strings == p.strings);
  REQUIRE(q.functions.size() == p.functions.size());
  for (size_t f = 0; f < p.functions.size(); ++f) {
    CHECK(q.functions[f].name == p.functions[f].name);
    CHECK(q.functions[f].numRegs == p.functions[f].numRegs);
    CHECK(q.functions[f].args == p.functions[f].args);
    REQUIRE(q.functions[f].code.size() == p.functions[f].code.size());
    for (size_t i = 0; i < p.functions[f].code.size(); ++i) CHECK(sameInstr(q.functions[f].code[i], p.functions[f].code[i]));
  }
  REQUIRE(q.globals.size() == p.globals.size());
  for (size_t g = 0; g < p.globals.size(); ++g) {
    CHECK(q.globals[g].name == p.globals[g].name);
    CHECK(q.globals[g].addr == p.globals[g].addr);
    CHECK(q.globals[g].init == p.globals[g].init);
  }
  REQUIRE(p.threadLocals.size() == 2);
  REQUIRE(q.threadLocals.size() == p.threadLocals.size());
  for (size_t v = 0; v < p.threadLocals.size(); ++v) {
    CHECK(q.threadLocals[v].name == p.threadLocals[v].name);
    CHECK(q.threadLocals[v].offset == p.threadLocals[v].offset);
    CHECK(q.threadLocals[v].size == p.threadLocals[v].size);
    CHECK(q.threadLocals[v].isPrivate == p.threadLocals[v].isPrivate);
    CHECK(q.threadLocals[v].init == p.threadLocals[v].init);
    CHECK(q.threadLocals[v].elemSize == p.threadLocals[v].elemSize);
  }
  CHECK(q.tlsPrivateSize == p.tlsPrivateSize);
  CHECK(d.module.entryOf == r.module.entryOf);
  CHECK(d.module.model == Model::PSO);
  CHECK(d.module.loopBound == 3);
  CHECK(d.module.checks[0].annotation == "model=pso");
  REQUIRE(d.module.checks[1].blockedBy);
  CHECK(d.module.checks[1].blockedBy->message == r.module.checks[1].blockedBy->message);
  REQUIRE(d.module.statements.size() == r.module.statements.size());
  for (size_t i = 0; i < d.module.statements.size(); ++i) {
    CHECK(d.module.statements[i].file == r.module.statements[i].file);
    CHECK(d.module.statements[i].endColumn == r.module.statements[i].endColumn);
    CHECK(d.module.statements[i].system == r.module.statements[i].system);
  }

  // The decoded program checks the same as the original.
  Program before = p, after = q;
  before.entry = r.module.entryOf[0];
  after.entry = d.module.entryOf[0];
  CheckOptions co;
  co.model = Model::PSO;
  const CheckResult x = check(before, co), y = check(after, co);
  CHECK(x.status == Status::Verified);
  CHECK(y.status == x.status);
  CHECK(y.executions == x.executions);
}

TEST_CASE("requests round-trip with their options", "[frontend][wire]") {
  LoweringRequest q;
  q.path = "dir/f.c";
  q.hasContents = true;
  q.contents = std::string("int x;\0\xff", 8);
  q.others = {{"dir/h.h", "int y;"}, {"/abs/g.c", ""}};
  q.options.model = Model::SC;
  q.options.clangArgs = {"-DN=3", "-I", "inc"};
  q.options.loopBound = 0;
  q.options.abortEnds = true;
  q.options.spuriousWakeups = false;
  q.options.mainHarness = true;
  q.memoryBytes = 123 << 20;
  q.secondsLeft = 2.5;
  const LoweringRequest d = decodeRequest(encodeRequest(q));
  CHECK(d.path == q.path);
  CHECK(d.hasContents);
  CHECK(d.contents == q.contents);
  CHECK(d.others == q.others);
  CHECK(d.options.model == Model::SC);
  CHECK(d.options.clangArgs == q.options.clangArgs);
  CHECK(d.options.loopBound == 0);
  CHECK(d.options.abortEnds);
  CHECK_FALSE(d.options.spuriousWakeups);
  CHECK(d.options.mainHarness);
  CHECK(d.memoryBytes == q.memoryBytes);
  CHECK(d.secondsLeft == 2.5);
}

TEST_CASE("damaged worker messages are refused", "[frontend][wire]") {
  FrontendOptions o;
  const std::string bytes = encodeResult(lowerSource("wire.c", kSource, o));
  // Every truncation, and a flipped magic, and trailing bytes.
  for (size_t n = 0; n < bytes.size(); n += 1 + n / 16) CHECK_THROWS_AS(decodeResult(bytes.substr(0, n)), WireError);
  std::string bad = bytes;
  bad[0] ^= 1;
  CHECK_THROWS_AS(decodeResult(bad), WireError);
  CHECK_THROWS_AS(decodeResult(bytes + "x"), WireError);
  CHECK_THROWS_AS(decodeRequest(bytes), WireError);  // a result is not a request
  // A corrupt count (all ones) is refused before anything is reserved.
  std::string huge = bytes;
  std::memset(&huge[6], 0xff, 8);
  CHECK_THROWS_AS(decodeResult(huge), WireError);
}

// The check JSON's reader (service/report_json.h checkFromJson) against its
// writer: on everything the CLI writes with --json for the samples and the
// CLI test inputs, writing what was read gives the very same text; malformed
// or partial JSON reads as defaults, never an exception.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "service/check_runner.h"
#include "service/report_json.h"
#include "service/report_reader.h"
#include "service/json_text.h"

using namespace tsocheck;
using nlohmann::json;

namespace {

std::vector<std::string> cFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".c") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// What the round trip covered, so that the property is not met vacuously.
struct Seen {
  int checks = 0, traces = 0, bufferedEntries = 0, stale = 0, spawns = 0, witnesses = 0, synthesis = 0,
      others = 0, errors = 0, inputErrors = 0;
};

void count(const std::vector<FileReport>& files, Seen& seen) {
  for (const FileReport& f : files) {
    seen.inputErrors += f.inputError;
    for (const CheckReport& c : f.checks) {
      ++seen.checks;
      seen.errors += c.errorAt.has_value();
      seen.synthesis += c.fenceSynthesis.has_value();
      seen.witnesses += c.result.robustness && c.result.robustness->witness;
      for (const Violation& v : c.result.violations) {
        seen.others += v.other.has_value();
        seen.traces += !v.trace.empty();
        for (const TraceStep& s : v.trace) {
          for (const auto& b : s.buffers)
            for (const BufferEntry& e : b) seen.bufferedEntries += e.storeStep > 0;
          seen.stale += s.staleThread != TraceStep::kNoThread;
          seen.spawns += spawnsFunction(c.program.get(), s).has_value();
        }
      }
    }
  }
}

// writing(reading(j)) == j, for the whole document and each check alone
// (dumped as the CLI dumps it: invalid UTF-8 replaced). `tsocheck check
// --json` prints resultsJson plus its own "stats" (memory use of the run).
void roundTrip(const std::string& path, const RunOptions& o, Seen& seen) {
  INFO(path);
  const json j = resultsJson({runFile(path, o)});
  const std::vector<FileReport> read = resultsFromJson(j);
  CHECK(dumpJson(resultsJson(read)) == dumpJson(j));
  for (const json& c : j["results"]) CHECK(dumpJson(checkJson(checkFromJson(c))) == dumpJson(c));
  count(read, seen);
}

}  // namespace

TEST_CASE("reading the check JSON and writing it again gives the same text on every sample") {
  Seen seen;
  RunOptions o;  // as `tsocheck check --json`: fence synthesis on
  for (const std::string& f : cFiles(TSOCHECK_SAMPLES_DIR)) roundTrip(f, o, seen);
  RunOptions r;
  r.robustness = true;
  for (Model m : {Model::TSO, Model::PSO}) {
    r.model = m;
    for (const std::string& f : cFiles(std::string(TSOCHECK_SAMPLES_DIR) + "/litmus")) roundTrip(f, r, seen);
  }
  CHECK(seen.checks >= 40);
  CHECK(seen.traces >= 10);
  CHECK(seen.bufferedEntries > 0);
  CHECK(seen.stale > 0);
  CHECK(seen.spawns > 0);
  CHECK(seen.witnesses > 0);
  CHECK(seen.synthesis > 0);
}

TEST_CASE("reading the check JSON and writing it again gives the same text on the CLI test inputs") {
  Seen seen;
  RunOptions o;
  o.timeLimit = 5;
  for (const std::string& f : cFiles(TSOCHECK_CLI_INPUTS_DIR))
    // The macro bomb needs the frontend's memory limit, which only a worker
    // process has (the CLI's; this test lowers in process).
    if (std::filesystem::path(f).filename() != "macro_bomb.c") roundTrip(f, o, seen);
  CHECK(seen.traces >= 20);
  CHECK(seen.others > 0);       // races name their other access
  CHECK(seen.errors > 0);       // unsupported constructs: status error with a location
  CHECK(seen.inputErrors > 0);  // syntax errors: the "errors" list
}

TEST_CASE("malformed check JSON reads as defaults, never an exception") {
  for (const json& j : {json(), json::array(), json("check"), json(42), json::object()}) {
    CheckReport r;
    REQUIRE_NOTHROW(r = checkFromJson(j));
    CHECK(r.function.empty());
    CHECK(r.result.status == Status::Error);
    CHECK(!r.result.violation);
    CHECK(r.model == kDefaultModel);
    REQUIRE_NOTHROW(resultsFromJson(j));
    CHECK(resultsFromJson(j).empty());
  }
  const json bad = {
      {"function", 7},
      {"line", "twelve"},
      {"column", -3},
      {"model", "ARM"},
      {"status", "violation"},
      {"buffer_bound", 1.5},
      {"nondet_range", "0..x"},
      {"executions", -1},
      {"limits", {"a", 2, "b"}},
      {"bounds", "none"},
      {"fences", {{{"file", "f.c"}, {"line", 3}}, 5}},
      {"fence_synthesis", {{"rounds", "2"}, {"minimal", "yes"}, {"partial", 1}}},
      {"robustness", {{"witness", {{"trace", {{{"event", "flush"}, {"value", 1}}}}}}}},
      {"violation",
       {{"kind", "assertion"},
        {"other", 3},
        {"trace",
         {1,
          {{"event", "spawn"}, {"thread", "T0"}, {"spawns", "worker"}, {"spawned", 1}},
          {{"event", "no-such-event"},
           {"address", "x"},
           {"value", "1"},
           {"buffers", {1, {2, {{"address", "x"}, {"value", 1}, {"store_step", "one"}}}}},
           {"stale", 5}},
          {{"event", "load-memory"}, {"stale", {{"thread", 1}, {"address", "x"}, {"value", 1}, {"store_step", 1}}}}}}}}};
  CheckReport r;
  REQUIRE_NOTHROW(r = checkFromJson(bad));
  CHECK(r.function.empty());
  CHECK(r.line == 0);
  CHECK(r.column == 0);
  CHECK(r.model == kDefaultModel);
  CHECK(r.result.status == Status::Violation);
  CHECK(!r.bufferBound);
  CHECK(r.nondetRange == std::pair<int64_t, int64_t>(-1, 1));
  CHECK(r.result.executions == 0);
  CHECK(r.result.limitsHit == std::vector<std::string>{"a", "b"});
  CHECK(!r.bounds.buffer);
  REQUIRE(r.fences.size() == 1);
  CHECK(r.fences[0].line == 3);
  CHECK(r.fences[0].text.empty());
  REQUIRE(r.fenceSynthesis);
  CHECK(r.fenceSynthesis->rounds == 0);
  CHECK(!r.fenceSynthesis->minimal);
  REQUIRE(r.result.robustness);
  CHECK(r.result.robustness->robust);  // a missing flag: the default
  REQUIRE(r.result.robustness->witness);
  CHECK(r.result.robustness->witness->trace.size() == 1);
  REQUIRE(r.result.violation);
  CHECK(r.result.violation->kind == ErrorKind::Assertion);
  CHECK(!r.result.violation->other);
  const std::vector<TraceStep>& t = r.result.violation->trace;
  REQUIRE(t.size() == 3);  // the step that is not an object is left out
  CHECK(t[0].kind == StepKind::Spawn);
  CHECK(t[0].thread == 0);
  CHECK(t[0].spawned == 1);
  CHECK(!spawnsFunction(r.program.get(), t[0]));  // a spawn without its own function names no callee
  CHECK(t[1].hasAddr);
  CHECK(!t[1].hasValue);
  REQUIRE(t[1].buffers.size() == 2);
  CHECK(t[1].buffers[0].empty());
  REQUIRE(t[1].buffers[1].size() == 1);  // 2 is not an entry
  CHECK(t[1].buffers[1][0].storeStep == 0);
  CHECK(t[1].staleThread == TraceStep::kNoThread);
  CHECK(t[2].staleThread == 1);
  CHECK(t[2].staleEntry.storeStep == 1);
  REQUIRE_NOTHROW(checkJson(r));
  REQUIRE_NOTHROW(tracePayload(r));
}

TEST_CASE("a check JSON from an older revision reads with its new members defaulted") {
  RunOptions o;
  o.fences = false;
  json c = resultsJson({runFile(std::string(TSOCHECK_SAMPLES_DIR) + "/litmus/sb.c", o)})["results"][0];
  REQUIRE(c["violation"].is_object());
  // Revision 1 had no store steps, stale reads, spawned threads or labels.
  for (json& s : c["violation"]["trace"]) {
    s.erase("stale");
    s.erase("spawned");
    s.erase("label");
    for (json& b : s["buffers"])
      for (json& e : b) e.erase("store_step");
  }
  c.erase("fence_synthesis");
  c.erase("robustness");
  const CheckReport r = checkFromJson(c);
  REQUIRE(r.result.violation);
  const json back = checkJson(r);
  CHECK(back["fence_synthesis"].is_null());
  CHECK(back["robustness"].is_null());
  size_t entries = 0;
  for (size_t i = 0; i < r.result.violation->trace.size(); ++i) {
    const TraceStep& s = r.result.violation->trace[i];
    CHECK(s.staleThread == TraceStep::kNoThread);
    for (const auto& b : s.buffers)
      for (const BufferEntry& e : b) entries += e.storeStep == 0;
    // The label is worded again from the step.
    CHECK(back["violation"]["trace"][i]["label"] == stepLabel(s));
  }
  CHECK(entries > 0);
}

TEST_CASE("a file's status names what happened: verified only when every check was verified") {
  auto check = [](const char* fn, Status st, Model m, const char* message) {
    CheckReport c;
    c.function = fn;
    c.model = m;
    c.result.status = st;
    c.result.message = message;
    return c;
  };
  FileReport ok;
  ok.file = "/w/a.c";
  const CheckReport verified = check("f", Status::Verified, Model::TSO, "no violation in any execution");
  const CheckReport bounded =
      check("g", Status::Bounded, Model::TSO, "no violation with store buffers of at most 2 entries");
  FileStatus s = fileStatus(ok, {verified});
  CHECK(s.state == "verified");
  CHECK(s.text == "verified under TSO");
  s = fileStatus(ok, {bounded});
  CHECK(s.state == "bounded");
  CHECK(s.text == "bounded under TSO: no violation with store buffers of at most 2 entries");
  s = fileStatus(ok, {verified, bounded});
  CHECK(s.state == "bounded");
  CHECK(s.text == "bounded under TSO: `g`: no violation with store buffers of at most 2 entries");
  s = fileStatus(ok, {verified, check("h", Status::Timeout, Model::PSO, "time limit reached")});
  CHECK(s.state == "timeout");
  CHECK(s.text == "timed out under PSO: `h`: no violation found so far");
  s = fileStatus(ok, {bounded, check("u", Status::Error, Model::TSO, "unsupported: inline assembly")});
  CHECK(s.state == "unchecked");
  CHECK(s.text == "not checked: `u`: unsupported: inline assembly");
  s = fileStatus(ok, {verified, check("v", Status::Violation, Model::SC, "assertion failed"),
                      check("w", Status::Violation, Model::TSO, "assertion failed")});
  CHECK(s.state == "violation");
  CHECK(s.text == "2 violations under SC and TSO");
  CHECK(fileStatus(ok, {verified, check("x", Status::Verified, Model::SC, "")}).text == "all 2 checks verified under TSO and SC");
  // A file that does not compile: its first error, located.
  FileReport broken;
  broken.file = "/w/b.c";
  broken.inputError = true;
  broken.inputMessage = "/w/b.c: the file does not compile";
  broken.diagnostics = {{"/w/b.c", 4, 3, "warning", "unused variable 'y'"},
                        {"/w/b.c", 5, 7, "error", "use of undeclared identifier 'x'"}};
  s = fileStatus(broken, {});
  CHECK(s.state == "input-error");
  CHECK(s.text == "does not compile: use of undeclared identifier 'x' (line 5)");
  broken.diagnostics = {{"/w/inc/h.h", 2, 1, "error", "unknown type name 'foo'"}};
  CHECK(fileStatus(broken, {}).text == "does not compile: unknown type name 'foo' (h.h:2)");
  broken.diagnostics.clear();
  broken.inputMessage = "/w/b.c: cannot open the file";
  CHECK(fileStatus(broken, {}).text == "cannot be checked: cannot open the file");
  FileReport none;
  none.file = "/w/c.c";
  none.inputError = true;
  none.inputMessage = "/w/c.c: no check function (mark one with TSOCHECK)";
  s = fileStatus(none, {});
  CHECK(s.state == "unchecked");
  CHECK(s.text == "no check function (mark one with TSOCHECK)");
  CHECK(checkingStatus(1234).text == "checking… 1,234 executions");
  CHECK(fileStatusJson(checkingStatus(1)) == json{{"state", "checking"}, {"text", "checking… 1 execution"}});
}

TEST_CASE("the report carries each step's buffers and the violation's summary, worded once") {
  RunOptions o;
  o.fences = false;
  o.model = Model::TSO;
  const FileReport f = runFile(std::string(TSOCHECK_SAMPLES_DIR) + "/peterson_buggy.c", o);
  REQUIRE(f.checks.size() == 1);
  const CheckReport& c = f.checks[0];
  REQUIRE(c.result.violation);
  const json j = checkJson(c);
  const json& trace = j["violation"]["trace"];
  REQUIRE(trace.size() == c.result.violation->trace.size());
  size_t withBuffers = 0;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceStep& s = c.result.violation->trace[i];
    const std::string text = trace[i]["buffers_text"];
    CHECK(text == buffersText(s));
    bool any = false;
    for (const auto& b : s.buffers) any |= !b.empty();
    CHECK(text.empty() == !any);
    withBuffers += any;
    // Each non-empty buffer appears as "T<n> [<address> = <value>...]".
    for (size_t t = 0; t < s.buffers.size(); ++t)
      if (!s.buffers[t].empty())
        CHECK(text.find("T" + std::to_string(t) + " [" + s.buffers[t][0].name + " = " +
                        std::to_string(s.buffers[t][0].value)) != std::string::npos);
  }
  CHECK(withBuffers > 0);
  // The summary: what failed, then the stale read, then the buffers at that read.
  const json& summary = j["violation"]["summary"];
  REQUIRE(summary.size() == 3);
  CHECK(summary[0].get<std::string>().rfind("assertion: ", 0) == 0);
  CHECK(summary[0].get<std::string>().find("peterson_buggy.c:" + std::to_string(c.result.violation->loc.line)) !=
        std::string::npos);
  const std::string stale = summary[1];
  CHECK(stale.rfind("stale read: T", 0) == 0);
  CHECK(stale.find("flag[") != std::string::npos);
  CHECK(stale.find("sat in its store buffer") != std::string::npos);
  const TraceStep* read = nullptr;
  for (const TraceStep& s : c.result.violation->trace)
    if (!read && s.staleThread != TraceStep::kNoThread) read = &s;
  REQUIRE(read);
  // The buffers where the stale value was read, not the (empty) ones at the end.
  CHECK(summary[2] == "store buffers at step " + std::to_string(read->step) + ": " + buffersText(*read));
  CHECK_FALSE(buffersText(*read).empty());
  CHECK(buffersText(c.result.violation->trace.back()).empty());
  // Read back, the report words the same text.
  CHECK(checkJson(checkFromJson(j))["violation"]["summary"] == summary);
}

TEST_CASE("the line of verdicts under each model: a check only verified shows a tick, each model in the order run") {
  auto report = [](const char* fn, Model m, Status st) {
    FileReport f;
    CheckReport c;
    c.file = "/w/a.c";
    c.function = fn;
    c.line = 7;
    c.model = m;
    c.result.status = st;
    f.checks.push_back(c);
    return f;
  };
  const std::vector<ModelVerdicts> rows =
      compareModels({report("f", Model::SC, Status::Verified), report("g", Model::SC, Status::Bounded),
                     report("f", Model::TSO, Status::Bounded), report("g", Model::TSO, Status::Timeout),
                     report("f", Model::PSO, Status::Error), report("g", Model::PSO, Status::Violation)});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].function == "f");
  CHECK(rows[0].line == 7);
  // Bounded (no violation within a bound), timed out and not checked are no verdict: no tick.
  CHECK(modelVerdictsText(rows[0]) == "SC \u2713  TSO bounded  PSO error");
  CHECK(modelVerdictsText(rows[1]) == "SC bounded  TSO timeout  PSO \u2717");
  const nlohmann::json j = modelVerdictsJson(rows);
  CHECK(j[1]["verdicts"] == nlohmann::json({{"SC", "bounded"}, {"TSO", "timeout"}, {"PSO", "violation"}}));
  CHECK(j[1]["summary"] == modelVerdictsText(rows[1]));
}

// RC11 traces as the service words them (service/report_reader.h
// readExplanation, hbText, readableWrites, violationSummary): which write each
// read read, why a coherence-later write was not visible, what synchronises
// with what; on the C11 message-passing samples, through the report JSON.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "service/check_runner.h"
#include "service/report_json.h"
#include "service/report_reader.h"

using namespace tsocheck;
using nlohmann::json;

namespace {

CheckReport rc11Check(const std::string& path) {
  RunOptions o;
  o.model = Model::RC11;
  o.fences = false;
  FileReport fr = runFile(path, o);
  REQUIRE_FALSE(fr.inputError);
  REQUIRE(fr.checks.size() == 1);
  REQUIRE(fr.checks[0].result.violation);
  return fr.checks[0];
}

// The trace index of thread t's first load of `address`.
size_t loadOf(const std::vector<TraceStep>& trace, uint32_t t, const std::string& address) {
  for (size_t i = 0; i < trace.size(); ++i)
    if (trace[i].thread == t && trace[i].kind == StepKind::LoadMem && trace[i].addrName == address) return i;
  FAIL("no load of " << address << " by T" << t);
  return 0;
}

size_t storeOf(const std::vector<TraceStep>& trace, const std::string& address) {
  for (size_t i = 0; i < trace.size(); ++i)
    if (trace[i].kind == StepKind::Store && trace[i].addrName == address) return i;
  FAIL("no store of " << address);
  return 0;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The acquire-fixed message passing, whose reader asserts that it did not
// read the payload (so that the synchronising execution has a trace).
std::string fixedWithTrace() {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tsocheck_rc11_trace_test";
  std::filesystem::create_directories(dir);
  std::ifstream in(std::string(TSOCHECK_SAMPLES_DIR) + "/c11_mp_relaxed_fixed.c");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "memory_order_relaxed) == 42", to = "memory_order_relaxed) != 42";
  REQUIRE(has(text, from));
  text.replace(text.find(from), from.size(), to);
  const std::string path = (dir / "c11_mp_acquire_reads_payload.c").string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("RC11 trace of relaxed message passing: the payload read is explained by the relaxed flag load") {
  const CheckReport c = rc11Check(std::string(TSOCHECK_SAMPLES_DIR) + "/c11_mp_relaxed_buggy.c");
  const std::vector<TraceStep>& trace = c.result.violation->trace;
  const size_t data = loadOf(trace, 2, "data"), flag = loadOf(trace, 2, "flag");
  const TraceStep& dataStore = trace[storeOf(trace, "data")];
  const TraceStep& flagStore = trace[storeOf(trace, "flag")];
  const std::string why = readExplanation(trace, data);
  INFO(why);
  CHECK(why.rfind("reads data = 0 (the initial value) although T1 stored data = 42 (step " +
                      std::to_string(dataStore.step) + ") before its store to flag (step " +
                      std::to_string(flagStore.step) + "): ",
                  0) == 0);
  // The release store is fine; the load that read it is the relaxed half.
  CHECK(has(why, "T2's load of flag (step " + std::to_string(trace[flag].step) + ") is relaxed"));
  CHECK_FALSE(has(why, "the flag store is"));
  CHECK(has(why, "so T2's read of flag = 1 does not synchronise with it"));
  CHECK(readExplanation(trace, flag) ==
        "reads flag = 1 written by T1 at line " + std::to_string(flagStore.loc.line) + " (step " +
            std::to_string(flagStore.step) + ")");
  // Relaxed: it synchronises with T2's start only, not with the flag store.
  CHECK(hbText(trace, flag) == "synchronises with step " + std::to_string(trace[flag].rc11->sw.at(0)) + " (T0 starts T2)");
  // No memory or store-buffer words in an RC11 trace; the orders instead.
  for (size_t i = 0; i < trace.size(); ++i) {
    CHECK_FALSE(has(stepLabel(trace[i]), "(memory)"));
    CHECK_FALSE(has(stepNote(trace, i), "from memory"));
    CHECK_FALSE(has(stepNote(trace, i), "written to memory"));
    CHECK_FALSE(has(stepNote(trace, i), "buffer"));
  }
  CHECK(stepLabel(trace[data]) == "step " + std::to_string(trace[data].step) + " · T2 · load data → 0 (relaxed)");
  CHECK(stepLabel(flagStore) == "step " + std::to_string(flagStore.step) + " · T1 · store flag = 1 (release)");
  // The summary's second line is the stale read with its explanation.
  const std::vector<std::string> summary = violationSummary(c.program.get(), *c.result.violation);
  REQUIRE(summary.size() == 2);
  CHECK(summary[1].rfind("stale read: T2 " + why, 0) == 0);
  CHECK(has(summary[1], "c11_mp_relaxed_buggy.c:28"));
  // The JSON carries the words and the facts, and reads back to the same words.
  const json j = checkJson(c);
  const json& step = j["violation"]["trace"][data];
  CHECK(step["reads"] == why);
  CHECK(step["rc11"]["reads_from"].is_null());
  CHECK(step["rc11"]["read_co"] == -1);
  CHECK(step["rc11"]["order"] == "relaxed");
  CHECK(j["violation"]["trace"][storeOf(trace, "data")]["rc11"]["write_co"] == 0);
  CHECK(j["violation"]["summary"][1] == summary[1]);
  const CheckReport back = checkFromJson(j);
  CHECK(checkJson(back) == j);
  CHECK(readExplanation(back.result.violation->trace, data) == why);
}

TEST_CASE("RC11 trace of acquire message passing: the flag read synchronises with the release store, nothing is stale") {
  const CheckReport c = rc11Check(fixedWithTrace());
  const std::vector<TraceStep>& trace = c.result.violation->trace;
  const size_t flag = loadOf(trace, 2, "flag"), data = loadOf(trace, 2, "data");
  const TraceStep& flagStore = trace[storeOf(trace, "flag")];
  // (Its thread's first step: it synchronises with T2's start too.)
  const std::string sync = "step " + std::to_string(flagStore.step) + " (T1's release store of flag)";
  CHECK(hbText(trace, flag) == "synchronises with step " + std::to_string(trace[flag].rc11->sw.at(0)) +
                                   " (T0 starts T2) and " + sync);
  CHECK(has(stepNote(trace, flag), sync));
  CHECK(hbText(trace, data).empty());
  CHECK(stepLabel(trace[flag]) == "step " + std::to_string(trace[flag].step) + " · T2 · load flag → 1 (acquire)");
  CHECK(has(readExplanation(trace, data), "reads data = 42 written by T1"));
  for (size_t i = 0; i < trace.size(); ++i) {
    CHECK(staleReadReason(trace, i).empty());
    CHECK_FALSE(has(stepNote(trace, i), "although"));
  }
  for (const std::string& line : violationSummary(c.program.get(), *c.result.violation))
    CHECK_FALSE(has(line, "stale read"));
  CHECK(checkJson(c)["violation"]["trace"][flag]["hb"] == hbText(trace, flag));
  // T2 may read only the payload the synchronisation made visible.
  for (const ReadableLocation& l : readableWrites(trace, data, 2))
    if (l.address == "data") CHECK(readableText(l) == "42 (T1, step " + std::to_string(trace[storeOf(trace, "data")].step) + ")");
}

TEST_CASE("RC11 readable writes: at the stale read the reader may read both payloads, the writer only its own") {
  const CheckReport c = rc11Check(std::string(TSOCHECK_SAMPLES_DIR) + "/c11_mp_relaxed_buggy.c");
  const std::vector<TraceStep>& trace = c.result.violation->trace;
  const size_t data = loadOf(trace, 2, "data");
  const uint32_t stored = trace[storeOf(trace, "data")].step;
  auto textOf = [&](uint32_t t, const std::string& address) {
    for (const ReadableLocation& l : readableWrites(trace, data, t))
      if (l.address == address) return readableText(l);
    return std::string("(none)");
  };
  CHECK(textOf(2, "data") == "0 (initial value) or 42 (T1, step " + std::to_string(stored) + ")");
  CHECK(textOf(1, "data") == "42 (T1, step " + std::to_string(stored) + ")");
  // Before the payload store, only the initial value exists.
  CHECK(textOf(2, "data").size() > 0);
  const std::vector<ReadableLocation> early = readableWrites(trace, stored - 2, 2);
  for (const ReadableLocation& l : early) CHECK(l.address != "data");
}

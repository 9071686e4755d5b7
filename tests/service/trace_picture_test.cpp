// The interleaving picture (service/trace_picture.h) on real violations: one
// lane per thread, one element per step carrying its file and line, the
// stale read's arrow in red, the failing step marked; reads pointed at the
// writes they read; the text lanes; and a page without network references.
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <sstream>

#include "service/check_runner.h"
#include "service/report_reader.h"
#include "service/trace_picture.h"

using namespace tsocheck;
using nlohmann::json;

namespace {

CheckReport violationOf(const std::string& file, std::optional<Model> model = std::nullopt) {
  RunOptions o;
  o.fences = false;
  if (model) o.forceModel = model;
  FileReport r = runFile(std::string(TSOCHECK_SAMPLES_DIR) + "/" + file, o);
  REQUIRE(r.checks.size() == 1);
  REQUIRE(r.checks[0].result.violation);
  return r.checks[0];
}

size_t countOf(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return size_t(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

}  // namespace

TEST_CASE("the picture of a store-buffering violation: lanes, steps, buffers, the red stale arrow, the failure") {
  const CheckReport c = violationOf("litmus/sb.c");
  const json payload = tracePayload(c);
  const json& trace = payload["violation"]["trace"];
  std::set<int> threads;
  for (const json& s : trace) threads.insert(s["thread"].get<int>());
  const std::string html = pictureSection(payload);
  CHECK(countOf(html, "<rect class=\"lane\"") == threads.size());
  CHECK(countOf(html, "<div class=\"step ") == trace.size());
  // Every step element carries its step, file and line, and its label as text.
  for (const json& s : trace) {
    const std::string step = std::to_string(s["step"].get<int>());
    INFO("step " << step);
    CHECK(countOf(html, "data-step=\"" + step + "\" data-thread=\"[0-9]+\" data-file=\"[^\"]*sb\\.c\" data-line=\"" +
                            std::to_string(s["line"].get<int>()) + "\"") == 1);
  }
  CHECK(html.find("store x = 1 (buffered)") != std::string::npos);
  // The stale read (T2 reads x = 0 while T1's buffer holds x = 1): a red arrow
  // to the initial value and a dashed one to the store it missed.
  std::vector<ReadSource> reads = readSources(payload);
  const auto stale = std::find_if(reads.begin(), reads.end(), [](const ReadSource& r) { return r.stale; });
  REQUIRE(stale != reads.end());
  CHECK(stale->source == 0);
  CHECK(stale->missed != 0);
  CHECK(countOf(html, "class=\"arrow stale\" data-from=\"" + std::to_string(stale->read) + "\" data-to=\"0\"") == 1);
  CHECK(countOf(html, "class=\"missed\" data-from=\"" + std::to_string(stale->read) + "\" data-to=\"" +
                          std::to_string(stale->missed) + "\"") == 1);
  CHECK(countOf(html, "class=\"arrow stale\"") == 1);
  // The final loads of r1 and r2 read the flushes of the threads' stores.
  for (const ReadSource& r : reads)
    if (!r.stale && r.source != 0) {
      const json& src = trace[r.source - 1];
      CHECK((src["event"] == "flush" || src["event"] == "rmw"));
    }
  // Buffer spans: every buffered store of the trace, flushed ones ending at their flush.
  size_t stores = 0;
  for (const json& s : trace) stores += s["event"] == "store";
  CHECK(countOf(html, "<rect class=\"buffer[ \"]") == stores);
  // The failing step: the assertion, marked once.
  CHECK(countOf(html, "class=\"step [^\"]*failing\"") == 1);
  CHECK(countOf(html, "failing\" data-step=\"" + std::to_string(trace.back()["step"].get<int>()) + "\"") == 1);

  const std::string text = pictureText(payload).text;
  CHECK(text.find("T0 · store_buffering") != std::string::npos);
  CHECK(text.find("STALE: missed step " + std::to_string(stale->missed)) != std::string::npos);
  CHECK(text.find("✗ fails here") != std::string::npos);
  // The headline, the summary, a blank line, the lane names, a line per step.
  const json& summary = payload["violation"]["summary"];
  REQUIRE(summary.size() == 3);
  CHECK(countOf(text, "\n") == 1 + summary.size() + 2 + trace.size());
  CHECK(text.rfind("store_buffering under TSO\n", 0) == 0);
  for (const json& l : summary) CHECK(text.find("\n  " + l.get<std::string>() + "\n") != std::string::npos);
  CHECK(text.find("stale read: T2 read x → 0") != std::string::npos);
  CHECK(text.find("┆ x=1") != std::string::npos);  // T1's pending store shown in its lane
}

TEST_CASE("under RC11 each read points at the write it takes, an older one too, and a stale one at what it missed") {
  const CheckReport c = violationOf("c11_mp_relaxed_buggy.c", Model::RC11);
  const json payload = tracePayload(c);
  const json& trace = payload["violation"]["trace"];
  std::vector<ReadSource> reads = readSources(payload);
  REQUIRE(reads.size() == 2);
  // flag = 1 is read from T1's store; data = 0 is the initial value, though T1 stored 42 before.
  const json& flagRead = trace[reads[0].read - 1];
  CHECK(flagRead["address"] == "flag");
  REQUIRE(reads[0].source != 0);
  CHECK(trace[reads[0].source - 1]["event"] == "store");
  CHECK(trace[reads[0].source - 1]["address"] == "flag");
  CHECK(reads[1].source == 0);
  CHECK_FALSE(reads[0].stale);
  // The payload read missed T1's payload store (the report's rc11.missed).
  CHECK(reads[1].stale);
  REQUIRE(reads[1].missed != 0);
  CHECK(trace[reads[1].missed - 1]["address"] == "data");
  CHECK(trace[reads[1].missed - 1]["value"] == 42);
  const std::string html = pictureSection(payload);
  CHECK(html.find("No store buffers under RC11") != std::string::npos);
  CHECK(countOf(html, "<rect class=\"buffer") == 0);
  CHECK(countOf(html, "class=\"arrow\" data-from=") == 1);
  CHECK(countOf(html, "class=\"arrow stale\" data-from=") == 1);
  CHECK(countOf(html, "class=\"missed\" data-from=") == 1);
  // The step's tooltip carries the explanation.
  CHECK(html.find("although T1 stored data = 42") != std::string::npos);
}

TEST_CASE("a four-thread violation's page: a section per violating check, no network, every thread a lane") {
  const CheckReport c = violationOf("litmus/rmw_chain.c");
  CheckReport verified = violationOf("litmus/sb.c");
  verified.result.violation.reset();
  verified.result.status = Status::Verified;
  verified.function = "other_check";
  const std::string page = picturePage({&c, &verified}, "tsocheck: rmw_chain.c");
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("http://") == std::string::npos);
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.find(" src=") == std::string::npos);
  CHECK(countOf(page, "<section class=\"check\"") == 1);
  CHECK(countOf(page, "<rect class=\"lane\"") == 5);
  CHECK(page.find("id=\"" + pictureAnchor(c.file, c.function) + "\"") != std::string::npos);
  CHECK(page.find("other_check under") != std::string::npos);  // listed without a picture
  // Each rmw reads the previous one's write: a chain of arrows.
  CHECK(countOf(page, "class=\"arrow\" data-from=\"6\" data-to=\"5\"") == 1);
  CHECK(countOf(page, "class=\"arrow\" data-from=\"7\" data-to=\"6\"") == 1);

  const std::string none = picturePage({&verified}, "nothing");
  CHECK(none.find("No violation") != std::string::npos);
  CHECK(countOf(none, "<section") == 0);
  CHECK(pictureText(tracePayload(verified)).text.empty());
  CHECK(pictureText(tracePayload(verified)).steps.empty());
  CHECK(pictureSection(tracePayload(verified)).empty());
}

namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("the text lanes name the line of each step and its source") {
  const CheckReport c = violationOf("litmus/sb.c");
  const json payload = tracePayload(c);
  const json& trace = payload["violation"]["trace"];
  const PictureText pt = pictureText(payload);
  const std::vector<std::string> lines = linesOf(pt.text);
  REQUIRE(pt.steps.size() == trace.size());
  for (size_t i = 0; i < trace.size(); ++i) {
    const json& e = pt.steps[i];
    const json& s = trace[i];
    INFO("step " << s["step"] << " at row " << e["row"]);
    const size_t row = e["row"].get<size_t>();
    REQUIRE(row < lines.size());
    // The row starts with the step's number and shows the step's own words.
    CHECK(std::regex_search(lines[row], std::regex("^ *" + std::to_string(s["step"].get<int>()) + " ")));
    const std::string head = "step " + std::to_string(s["step"].get<int>()) + " · T" +
                             std::to_string(s["thread"].get<int>()) + " · ";
    const std::string label = s["label"];
    REQUIRE(label.rfind(head, 0) == 0);
    const std::string word = label.substr(head.size(), label.find(' ', head.size()) - head.size());
    CHECK(lines[row].find(" " + word) != std::string::npos);
    CHECK(e["step"] == s["step"]);
    CHECK(e["file"] == s["file"]);
    CHECK(e["line"] == s["line"]);
    CHECK(e["column"] == s["column"]);
  }
  // The stale read's row is the one that says STALE.
  for (const ReadSource& r : readSources(payload))
    if (r.stale) CHECK(lines[pt.steps[r.read - 1]["row"].get<size_t>()].find("STALE") != std::string::npos);
  // No other line is a step's: the head and the lane names are not rows.
  CHECK(pt.steps[0]["row"].get<size_t>() == lines.size() - trace.size());
}

TEST_CASE("a line break in a message or label does not shift the rows of the text lanes") {
  const json buffers = json::array({json::array()});
  json payload = {{"function", "f"},
                  {"model", "TSO"},
                  {"violation",
                   {{"message", "assertion `a\n&& b` failed"},
                    {"file", "f.c"},
                    {"line", 4},
                    {"thread", 0},
                    {"trace",
                     {{{"step", 1}, {"thread", 0}, {"event", "store"}, {"label", "step 1 · T0 · store\nx"},
                       {"file", "f.c"}, {"line", 3}, {"column", 5}, {"buffers", buffers}},
                      {{"step", 2}, {"thread", 0}, {"event", "error"}, {"label", "step 2 · T0 · error"},
                       {"file", "f.c"}, {"line", 4}, {"column", 7}, {"buffers", buffers}}}}}}};
  const PictureText pt = pictureText(payload);
  const std::vector<std::string> lines = linesOf(pt.text);
  REQUIRE(pt.steps.size() == 2);
  // The headline, the message (no summary in this payload), a blank line, the lane names, two steps.
  CHECK(lines.size() == 6);
  CHECK(lines[1] == "  assertion `a && b` failed (f.c:4)");
  CHECK(lines[pt.steps[0]["row"].get<size_t>()].find("store x") != std::string::npos);
  CHECK(lines[pt.steps[1]["row"].get<size_t>()].find("✗ fails here") != std::string::npos);
  CHECK(pt.steps[1]["column"] == 7);
}

TEST_CASE("labels are escaped in the page") {
  json payload = {{"function", "f<x>"},
                  {"model", "TSO"},
                  {"file", "a&b.c"},
                  {"violation",
                   {{"message", "assertion `a<b` failed"},
                    {"thread", 0},
                    {"trace",
                     {{{"step", 1}, {"thread", 0}, {"event", "error"}, {"label", "step 1 · T0 · error (a<b && \"c\")"},
                       {"file", "a&b.c"}, {"line", 3}, {"buffers", json::array({json::array()})}}}}}}};
  const std::string html = pictureSection(payload);
  CHECK(html.find("a<b") == std::string::npos);
  CHECK(html.find("error (a&lt;b &amp;&amp; &quot;c&quot;)") != std::string::npos);
  CHECK(html.find("data-file=\"a&amp;b.c\"") != std::string::npos);
  CHECK(countOf(html, "class=\"step [^\"]*failing\"") == 1);
}

TEST_CASE("a lane is named by the function its thread starts in, not the callee of its first step") {
  // peterson_buggy.c: each worker's first step is in lock(), which worker() calls.
  const CheckReport c = violationOf("peterson_buggy.c");
  const json payload = tracePayload(c);
  const std::string html = pictureSection(payload), text = pictureText(payload).text;
  CHECK(html.find(">T0 · peterson</div>") != std::string::npos);
  CHECK(html.find(">T1 · worker</div>") != std::string::npos);
  CHECK(html.find(">T2 · worker</div>") != std::string::npos);
  CHECK(html.find("T1 · lock") == std::string::npos);
  CHECK(text.find("T1 · worker") != std::string::npos);
}

#include <catch2/catch.hpp>

#include <algorithm>

#include "lsp/lsp_documents.h"
#include "lsp/lsp_features.h"
#include "lsp/lsp_protocol.h"
#include "lsp/lsp_settings.h"
#include "service/report_json.h"

using namespace tsocheck;
using namespace tsocheck::lsp;

TEST_CASE("framing: split frames, bad lengths, recovery") {
  FrameReader r;
  std::string two = frame("{\"a\":1}") + frame("[]");
  r.feed(two.data(), 10);
  CHECK(!r.next());
  r.feed(two.data() + 10, two.size() - 10);
  auto f = r.next();
  REQUIRE(f);
  CHECK(f->ok);
  CHECK(f->body == "{\"a\":1}");
  CHECK(r.next()->body == "[]");
  std::string bad = "Content-Length: 12x\r\n\r\n" + frame("{}");
  r.feed(bad.data(), bad.size());
  CHECK(!r.next()->ok);
  CHECK(r.next()->body == "{}");
  std::string none = "X: 1\r\n\r\n";
  r.feed(none.data(), none.size());
  CHECK(r.next()->error == "missing Content-Length");
  // A bad header with a body: the body is skipped, the next frames arrive,
  // also when the next header comes in pieces.
  std::string withBody = "Content-Length: abc\r\n\r\n{\"lost\":1}";
  r.feed(withBody.data(), withBody.size());
  CHECK(r.next()->error == "invalid Content-Length");
  CHECK(!r.next());
  std::string after = frame("{\"b\":2}") + frame("{\"c\":3}");
  r.feed(after.data(), 9);
  CHECK(!r.next());
  r.feed(after.data() + 9, after.size() - 9);
  auto b = r.next();
  REQUIRE(b);
  CHECK(b->ok);
  CHECK(b->body == "{\"b\":2}");
  CHECK(r.next()->body == "{\"c\":3}");
}

TEST_CASE("incremental sync in UTF-16 positions") {
  std::string text = "int é = 1;\nx😀y;\n";
  std::string err;
  // 😀 is two UTF-16 units: character 3 on line 1 is after it.
  REQUIRE(applyChange(text, {{"range", {{"start", {{"line", 1}, {"character", 3}}}, {"end", {{"line", 1}, {"character", 4}}}}}, {"text", "z"}}, &err));
  CHECK(text == "int é = 1;\nx😀z;\n");
  REQUIRE(applyChange(text, {{"range", {{"start", {{"line", 0}, {"character", 4}}}, {"end", {{"line", 0}, {"character", 5}}}}}, {"text", "e"}}, &err));
  CHECK(text == "int e = 1;\nx😀z;\n");
  CHECK(!applyChange(text, {{"range", {{"start", {{"line", 9}, {"character", 0}}}, {"end", {{"line", 9}, {"character", 0}}}}}, {"text", "q"}}, &err));
  CHECK(!applyChange(text, {{"range", 3}, {"text", "q"}}, &err));
  CHECK(positionOf("a😀b", 1, 6) == json{{"line", 0}, {"character", 3}});
  CHECK(uriToPath(pathToUri("/tmp/a b/c.c")) == "/tmp/a b/c.c");
}

TEST_CASE("document store: range edits in place keep the line index right, a bad edit list is undone") {
  // Random range edits (newlines inserted and removed, multi-byte text)
  // applied by the store, which updates its line index per edit, against the
  // same edits applied to a plain copy (positions found by a scan).
  std::string reference = "int a;\nint b;\n\nx😀y;\nlast";
  DocumentStore store;
  store.open({"file:///d.c", "/d.c", reference, 1});
  uint32_t seed = 12345;
  auto rnd = [&](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
  };
  const std::vector<std::string> pieces = {"", "z", "\n", "ab\ncd", "é\n\n", "😀", "\n}\n"};
  std::string err;
  for (int k = 0; k < 2000; ++k) {
    const uint32_t lines = uint32_t(std::count(reference.begin(), reference.end(), '\n')) + 1;
    uint32_t l0 = rnd(lines), l1 = l0 + rnd(2), c0 = rnd(6), c1 = rnd(6);
    if (l1 == l0 && c1 < c0) std::swap(c0, c1);
    json change = {{"range", {{"start", {{"line", l0}, {"character", c0}}}, {"end", {{"line", l1}, {"character", c1}}}}},
                   {"text", pieces[rnd(uint32_t(pieces.size()))]}};
    const std::optional<size_t> s = offsetAt(reference, l0, c0), e = offsetAt(reference, l1, c1);
    const bool ok = s && e && *e >= *s;
    REQUIRE(store.change("file:///d.c", k + 2, json::array({change}), &err) == ok);
    if (ok) reference.replace(*s, *e - *s, change["text"].get<std::string>());
    REQUIRE(store.get("file:///d.c")->text == reference);
  }
  // Two good edits then a bad one: the document is as before the list.
  const std::string before = store.get("file:///d.c")->text;
  json edits = json::array({{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 1}}}}}, {"text", "Q\nR"}},
                            {{"text", "whole"}},
                            {{"range", {{"start", {{"line", 90000}, {"character", 0}}}, {"end", {{"line", 90000}, {"character", 0}}}}}, {"text", "q"}}});
  CHECK_FALSE(store.change("file:///d.c", 99999, edits, &err));
  CHECK(store.get("file:///d.c")->text == before);
  CHECK(store.unchanged("file:///d.c", store.get("file:///d.c")->version, before));
  CHECK(store.path("file:///d.c") == std::optional<std::string>("/d.c"));
  CHECK_FALSE(store.isOpen("file:///other.c"));
}

TEST_CASE("fence code actions from a constructed report") {
  const std::string path = "/w/sb.c", uri = "file:///w/sb.c";
  const std::string text = "#include <pthread.h>\nvoid *t0(void *p) {\n  x = 1;\n  r1 = y;\n}\nvoid *t1(void *p) {\n  y = 1;\n  r2 = x;\n}\n";
  json check = {{"function", "sb"}, {"line", 10}, {"column", 1}, {"model", "TSO"}, {"status", "violation"},
                {"violation", {{"kind", "assertion"}, {"message", "assertion `r1 || r2` failed"}, {"file", path},
                               {"line", 4}, {"column", 3}, {"trace", json::array()}}},
                {"fences", json::array({{{"file", path}, {"line", 3}, {"column", 8}, {"text", "atomic_thread_fence(memory_order_seq_cst);"}},
                                        {{"file", path}, {"line", 7}, {"column", 8}, {"text", "atomic_thread_fence(memory_order_seq_cst);"}}})}};
  json range = {{"start", {{"line", 3}, {"character", 0}}}, {"end", {{"line", 3}, {"character", 0}}}};
  json acts = fenceActions(check, uri, text, range);
  REQUIRE(acts.size() == 3);
  CHECK(acts[0]["title"] == "Insert atomic_thread_fence(memory_order_seq_cst) after line 3 (+ #include <stdatomic.h>)");
  CHECK(acts[2]["title"] == "Insert all 2 fences (atomic_thread_fence(memory_order_seq_cst)) (+ #include <stdatomic.h>)");
  CHECK(acts[2]["isPreferred"] == true);
  CHECK(acts[0]["isPreferred"] == false);
  // Apply "insert all" by hand: the include goes after the last #include.
  std::string out = text;
  json edits = acts[2]["edit"]["changes"][uri];
  REQUIRE(edits.size() == 3);
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) {
    std::string err;
    REQUIRE(applyChange(out, {{"range", (*it)["range"]}, {"text", (*it)["newText"]}}, &err));
  }
  CHECK(out.find("#include <pthread.h>\n#include <stdatomic.h>\n") == 0);
  CHECK(out.find("  x = 1;\n  atomic_thread_fence(memory_order_seq_cst);\n  r1 = y;") != std::string::npos);
  CHECK(out.find("  y = 1;\n  atomic_thread_fence(memory_order_seq_cst);\n  r2 = x;") != std::string::npos);
  // Far from the violation and the fences: nothing offered.
  json far = {{"start", {{"line", 8}, {"character", 0}}}, {"end", {{"line", 8}, {"character", 0}}}};
  CHECK(fenceActions(check, uri, text, far).empty());
  // Hint diagnostics at the fence positions.
  json diags = checkDiagnostics(check, path, text);
  REQUIRE(diags.size() == 3);
  CHECK(diags[1]["severity"] == 4);
  CHECK(diags[1]["range"]["start"]["line"] == 2);
}

TEST_CASE("fence code actions with a fence in a header: one WorkspaceEdit, one entry per file") {
  const std::string path = "/w/check.c", uri = "file:///w/check.c", header = "/w/handshake.h";
  const std::string text = "#include <pthread.h>\n#include \"handshake.h\"\nvoid *b(void *p) {\n  flag_b = 1;\n"
                           "  in_b = !flag_a;\n}\n";
  const std::string headerText = "#ifndef H\n#define H\nstatic int enter_a(void) {\n  flag_a = 1;\n  return !flag_b;\n}\n#endif\n";
  const std::string fence = "atomic_thread_fence(memory_order_seq_cst);";
  json check = {{"function", "handshake"}, {"line", 8}, {"column", 1}, {"model", "TSO"}, {"status", "violation"},
                {"violation", {{"kind", "assertion"}, {"message", "assertion failed"}, {"file", path},
                               {"line", 5}, {"column", 3}, {"trace", json::array()}}},
                {"fences", json::array({{{"file", path}, {"line", 4}, {"column", 13}, {"text", fence}},
                                        {{"file", header}, {"line", 4}, {"column", 13}, {"text", fence}}})}};
  int asked = 0;
  TextOf textOf = [&](const std::string& f) -> std::optional<std::string> {
    ++asked;
    if (f == header) return headerText;
    return std::nullopt;
  };
  json range = {{"start", {{"line", 4}, {"character", 0}}}, {"end", {{"line", 4}, {"character", 0}}}};
  json acts = fenceActions(check, uri, text, range, textOf);
  CHECK(asked == 1);
  REQUIRE(acts.size() == 3);
  CHECK(acts[0]["title"] == "Insert atomic_thread_fence(memory_order_seq_cst) after line 4 (+ #include <stdatomic.h>)");
  CHECK(acts[1]["title"] ==
        "Insert atomic_thread_fence(memory_order_seq_cst) after handshake.h line 4 (+ #include <stdatomic.h>)");
  CHECK(acts[1]["edit"]["changes"].size() == 1);
  CHECK(acts[1]["edit"]["changes"].contains("file:///w/handshake.h"));
  // "Insert all" is the fix of the violation in this document, and edits both files.
  const json& all = acts[2];
  CHECK(all["isPreferred"] == true);
  CHECK(all["diagnostics"][0]["code"] == "tso-assertion");
  const json& changes = all["edit"]["changes"];
  REQUIRE(changes.size() == 2);
  REQUIRE(changes.contains(uri));
  REQUIRE(changes.contains("file:///w/handshake.h"));
  std::string out = text, hout = headerText;
  for (auto [doc, edits] : {std::pair<std::string*, json>{&out, changes[uri]}, {&hout, changes["file:///w/handshake.h"]}}) {
    REQUIRE(edits.size() == 2);  // the include and the fence
    for (auto it = edits.rbegin(); it != edits.rend(); ++it) {
      std::string err;
      REQUIRE(applyChange(*doc, {{"range", (*it)["range"]}, {"text", (*it)["newText"]}}, &err));
    }
  }
  CHECK(out.find("#include \"handshake.h\"\n#include <stdatomic.h>\n") != std::string::npos);
  CHECK(out.find("  flag_b = 1;\n  atomic_thread_fence(memory_order_seq_cst);\n  in_b") != std::string::npos);
  CHECK(hout.find("#include <stdatomic.h>\n#ifndef H") == 0);
  CHECK(hout.find("  flag_a = 1;\n  atomic_thread_fence(memory_order_seq_cst);\n  return") != std::string::npos);
  // Hints only in the document being published: the header's fence is not one here.
  json diags = checkDiagnostics(check, path, text);
  REQUIRE(diags.size() == 2);
  CHECK(diags[1]["range"]["start"]["line"] == 3);
  // A client that takes documentChanges gets one versioned entry per file: the
  // document's version, the header's from textOf (null: the file on disk).
  json versioned = fenceActions(check, uri, text, range, textOf, EditFormat{true, 7});
  REQUIRE(versioned.size() == 3);
  const json& dc = versioned[2]["edit"]["documentChanges"];
  CHECK_FALSE(versioned[2]["edit"].contains("changes"));
  REQUIRE(dc.size() == 2);
  CHECK(dc[0]["textDocument"] == json{{"uri", uri}, {"version", 7}});
  CHECK(dc[0]["edits"] == changes[uri]);
  CHECK(dc[1]["textDocument"] == json{{"uri", "file:///w/handshake.h"}, {"version", nullptr}});
  CHECK(dc[1]["edits"] == changes["file:///w/handshake.h"]);
  TextOf openHeader = [&](const std::string&) -> std::optional<EditText> { return EditText(headerText, 3); };
  json open = fenceActions(check, uri, text, range, openHeader, EditFormat{true, 7});
  CHECK(open[1]["edit"]["documentChanges"][0]["textDocument"]["version"] == 3);
  // The header cannot be read: its fence and "insert all" are not offered.
  json partial = fenceActions(check, uri, text, range, [](const std::string&) { return std::nullopt; });
  REQUIRE(partial.size() == 1);
  CHECK(partial[0]["isPreferred"] == false);
  CHECK(partial[0]["edit"]["changes"].size() == 1);
}

TEST_CASE("settings: values, bad values keep the old ones") {
  Settings s;
  auto bad = applySettings(s, {{"tsocheck", {{"model", "pso"}, {"bufferBound", 2}, {"checkOn", "save"}, {"maxWorkers", 0}}}});
  CHECK(bad.empty());
  CHECK(s.run.model == tsocheck::Model::PSO);
  CHECK(s.run.bufferBound == 2);
  CHECK(s.checkOnSave);
  CHECK(s.maxWorkers == 1);
  CHECK(applySettings(s, {{"robustness", true}}).empty());
  CHECK(s.run.robustness);
  CHECK(applySettings(s, {{"robustness", "yes"}}).size() == 1);
  CHECK(s.run.robustness);
  bad = applySettings(s, {{"model", "arm"}, {"loopBound", -1}, {"timeLimit", "x"}});
  CHECK(bad.size() == 3);
  CHECK(s.run.model == tsocheck::Model::PSO);
}

TEST_CASE("settings: a setting put back to its default (\"default\", \"\", null) resets the option") {
  Settings s;
  REQUIRE(applySettings(s, {{"tsocheck", {{"model", "sc"}, {"compileCommandsDir", "/w/build"}, {"checkOn", "save"}}}}).empty());
  CHECK(s.run.model == tsocheck::Model::SC);
  CHECK(s.options.compileCommandsDir == "/w/build");
  const std::string withSC = outcomeSettings(s);
  // The editors' default values: no warning, and the old value is gone.
  CHECK(applySettings(s, {{"tsocheck", {{"model", "default"}, {"compileCommandsDir", ""}, {"checkOn", nullptr}}}}).empty());
  CHECK_FALSE(s.options.model.has_value());
  CHECK(s.run.model == Settings().run.model);
  CHECK_FALSE(s.options.compileCommandsDir.has_value());
  CHECK_FALSE(s.checkOnSave);
  CHECK(outcomeSettings(s) != withSC);  // cached results under SC are not reused
  CHECK(outcomeSettings(s) == outcomeSettings(Settings()));
  REQUIRE(applySettings(s, {{"model", "pso"}, {"deadlocks", "warning"}}).empty());
  CHECK(applySettings(s, {{"model", nullptr}, {"deadlocks", ""}}).empty());
  CHECK_FALSE(s.options.model.has_value());
  CHECK_FALSE(s.options.deadlocks.has_value());
  // A fresh editor's first settings, every key at its default: no warning.
  Settings fresh;
  CHECK(applySettings(fresh, {{"tsocheck", {{"model", "default"}, {"compileCommandsDir", ""}, {"bufferBound", nullptr},
                                            {"nondetRange", ""}, {"fenceStyle", nullptr}, {"checkOn", "change"}}}})
            .empty());
}

TEST_CASE("editor settings are defaults: the annotation's model wins, CLI flags still override") {
  // Store buffering checked under the model its annotation names.
  const std::string src =
      "#include <assert.h>\n#include <pthread.h>\n#include <tsocheck.h>\n"
      "int x, y, r1, r2;\n"
      "static void *t1(void *a) { x = 1; r1 = y; return 0; }\n"
      "static void *t2(void *a) { y = 1; r2 = x; return 0; }\n"
      "TSOCHECK_WITH(\"model=sc\") void sb(void) {\n"
      "  pthread_t a, b;\n  pthread_create(&a, 0, t1, 0);\n  pthread_create(&b, 0, t2, 0);\n"
      "  pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(!(r1 == 0 && r2 == 0));\n}\n";
  Settings s;
  REQUIRE(applySettings(s, {{"model", "tso"}, {"loopBound", 3}}).empty());
  tsocheck::RunOptions opts = s.run;
  opts.contents = src;
  tsocheck::FileReport fr = tsocheck::runFile("/nonexistent/sb_annotated.c", opts);
  REQUIRE(fr.checks.size() == 1);
  CHECK(fr.checks[0].model == tsocheck::Model::SC);
  CHECK(fr.checks[0].result.status == tsocheck::Status::Verified);
  CHECK(fr.checks[0].loopBound == 3);  // a setting the annotation does not name still applies
  // The same options as CLI flags (`--model tso`) override the annotation.
  opts.annotationWins = false;
  fr = tsocheck::runFile("/nonexistent/sb_annotated.c", opts);
  REQUIRE(fr.checks.size() == 1);
  CHECK(fr.checks[0].model == tsocheck::Model::TSO);
  CHECK(fr.checks[0].result.status == tsocheck::Status::Violation);
  // The "run under TSO" lens names the model: it wins over the annotation.
  opts.annotationWins = true;
  opts.forceModel = tsocheck::Model::TSO;
  fr = tsocheck::runFile("/nonexistent/sb_annotated.c", opts);
  REQUIRE(fr.checks.size() == 1);
  CHECK(fr.checks[0].model == tsocheck::Model::TSO);
}

TEST_CASE("robustness witness: a Warning at the stale read with one related step each") {
  const std::string path = "/w/sb.c";
  const std::string text = "int x, y;\nvoid *t0(void *p) {\n  x = 1;\n  r1 = y;\n}\nvoid *t1(void *p) {\n  y = 1;\n  r2 = x;\n}\n";
  json buf1 = json::array({json::array(), json::array({{{"address", "x"}, {"value", 1}, {"store_step", 1}}}), json::array()});
  // The engine marks the stale read (service/report_json.h): the server only words it.
  json stale = {{"thread", 1}, {"address", "x"}, {"value", 1}, {"store_step", 1}};
  json trace = json::array({
      {{"step", 1}, {"thread", 1}, {"event", "store"}, {"address", "x"}, {"value", 1}, {"file", path}, {"line", 3}, {"column", 5}, {"buffers", buf1}, {"stale", nullptr}},
      {{"step", 2}, {"thread", 2}, {"event", "load-memory"}, {"address", "x"}, {"value", 0}, {"file", path}, {"line", 8}, {"column", 8}, {"buffers", buf1}, {"stale", stale}}});
  json check = {{"function", "sb"}, {"line", 10}, {"column", 1}, {"model", "TSO"}, {"status", "verified"},
                {"robustness", {{"robust", false}, {"complete", true}, {"witness_is_violation", false},
                                {"witness", {{"file", path}, {"line", 8}, {"column", 8}, {"thread", 2}, {"trace", trace}}}}}};
  json diags = checkDiagnostics(check, path, text);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0]["severity"] == 2);
  CHECK(diags[0]["code"] == "tso-robustness");
  CHECK(diags[0]["range"]["start"]["line"] == 7);
  CHECK(diags[0]["message"].get<std::string>().find("stale read: T2 read x → 0 from memory at sb.c:8:8 (step 2) while "
                                                  "T1's store x = 1 (step 1, sb.c:3:5) sat in its store buffer") !=
        std::string::npos);
  CHECK(diags[0]["relatedInformation"].size() == 2);
  // Robust, or the witness is the violation itself: no warning.
  check["robustness"]["witness_is_violation"] = true;
  CHECK(checkDiagnostics(check, path, text).empty());
  check["robustness"] = {{"robust", true}, {"complete", true}, {"witness", nullptr}};
  CHECK(checkDiagnostics(check, path, text).empty());
}

TEST_CASE("robustness fences: hints and a quick fix attached to the robustness warning") {
  const std::string path = "/w/sb.c", uri = "file:///w/sb.c";
  const std::string text = "int x, y;\nvoid *t0(void *p) {\n  x = 1;\n  r1 = y;\n}\nvoid *t1(void *p) {\n  y = 1;\n  r2 = x;\n}\n";
  json check = {{"function", "sb"}, {"line", 10}, {"column", 1}, {"model", "TSO"}, {"status", "verified"},
                {"robustness", {{"robust", false}, {"complete", true}, {"witness_is_violation", false},
                                {"witness", {{"file", path}, {"line", 8}, {"column", 8}, {"thread", 2}, {"trace", json::array()}}}}},
                {"fences", json::array({{{"file", path}, {"line", 3}, {"column", 8}, {"text", "__sync_synchronize();"}},
                                        {{"file", path}, {"line", 7}, {"column", 8}, {"text", "__sync_synchronize();"}}})}};
  json diags = checkDiagnostics(check, path, text);
  REQUIRE(diags.size() == 3);
  CHECK(diags[0]["code"] == "tso-robustness");
  CHECK(diags[1]["severity"] == 4);
  CHECK(diags[1]["message"].get<std::string>().find("robust") != std::string::npos);
  json at = {{"start", {{"line", 7}, {"character", 0}}}, {"end", {{"line", 7}, {"character", 0}}}};
  json acts = fenceActions(check, uri, text, at);
  REQUIRE(acts.size() == 3);
  CHECK(acts[2]["isPreferred"] == true);
  CHECK(acts[2]["diagnostics"][0]["code"] == "tso-robustness");
  CHECK(acts[2]["edit"]["changes"][uri].size() == 2);  // no #include for __sync_synchronize
  // A robust check offers nothing.
  check["robustness"]["robust"] = true;
  CHECK(fenceActions(check, uri, text, at).empty());
}

TEST_CASE("one diagnostic per kind of violation, warnings for deadlocks=warning") {
  const std::string path = "/w/hang.c";
  const std::string text = "int x;\nvoid *t1(void *p) {\n  x = 1;\n  while (!go);\n  assert(!in2);\n}\n";
  auto violation = [&](const char* kind, uint32_t line, const char* severity, const char* message) {
    json step = {{"step", 1}, {"thread", 1}, {"event", "store"}, {"address", "x"}, {"value", 1}, {"file", path},
                 {"line", 3}, {"column", 3}, {"buffers", json::array()}};
    return json{{"kind", kind}, {"message", message}, {"file", path}, {"line", line}, {"column", 3},
                {"severity", severity}, {"trace", json::array({step})}};
  };
  json a = violation("assertion", 5, "error", "assertion `!in2` failed");
  json n = violation("nontermination", 4, "error", "no thread can make progress: T1 spins forever at hang.c:4:3");
  json check = {{"function", "hang"}, {"line", 7}, {"column", 1}, {"model", "TSO"}, {"status", "violation"},
                {"violation", a}, {"violations", json::array({a, n})}};
  json diags = checkDiagnostics(check, path, text);
  REQUIRE(diags.size() == 2);
  CHECK(diags[0]["code"] == "tso-assertion");
  CHECK(diags[0]["severity"] == 1);
  CHECK(diags[0]["range"]["start"]["line"] == 4);
  CHECK(diags[1]["code"] == "nontermination");
  CHECK(diags[1]["severity"] == 1);
  CHECK(diags[1]["range"]["start"]["line"] == 3);
  CHECK(diags[1]["message"].get<std::string>().find("non-termination under TSO") == 0);
  CHECK(diags[1]["message"].get<std::string>().find("spins forever") != std::string::npos);
  CHECK(diags[1]["relatedInformation"].size() == 1);
  // deadlocks=warning: the hang alone, as a Warning, with status verified.
  json d = violation("deadlock", 4, "warning", "every live thread is blocked: T1 waits for mutex m");
  json warned = {{"function", "hang"}, {"line", 7}, {"column", 1}, {"model", "TSO"}, {"status", "verified"},
                 {"violation", nullptr}, {"violations", json::array({d})}};
  json w = checkDiagnostics(warned, path, text);
  REQUIRE(w.size() == 1);
  CHECK(w[0]["severity"] == 2);
  CHECK(w[0]["code"] == "deadlock");
  // A stored check from before `violations` existed: its one violation.
  json old = check;
  old.erase("violations");
  json o = checkDiagnostics(old, path, text);
  REQUIRE(o.size() == 1);
  CHECK(o[0]["code"] == "tso-assertion");
}

TEST_CASE("settings: deadlocks") {
  Settings s;
  CHECK(applySettings(s, {{"deadlocks", "warning"}}).empty());
  REQUIRE(s.run.deadlocks);
  CHECK(*s.run.deadlocks == tsocheck::DeadlockMode::Warning);
  const std::string key = outcomeSettings(s);
  CHECK(applySettings(s, {{"deadlocks", "sometimes"}}).size() == 1);
  CHECK(*s.run.deadlocks == tsocheck::DeadlockMode::Warning);
  CHECK(applySettings(s, {{"deadlocks", nullptr}}).empty());
  CHECK(!s.run.deadlocks);
  CHECK(outcomeSettings(s) != key);  // part of the cache key
}

TEST_CASE("lens and headline wording: counts, durations, the loop bound only when it matters") {
  const std::string uri = "file:///w/a.c", text = "int x;\nvoid f(void) {}\n";
  json check = {{"function", "f"}, {"line", 2}, {"model", "TSO"}, {"status", "verified"}, {"executions", 1},
                {"elapsed_ms", 11600.0}, {"loop_bound", 8}, {"bounds", {{"loop", nullptr}}}};
  json lenses = checkLenses(check, uri, text, -1);
  REQUIRE(!lenses.empty());
  CHECK(lenses[0]["command"]["title"] == "✓ verified under TSO · 1 execution · 11.6 s");
  check["executions"] = 12345;
  check["elapsed_ms"] = 0.42;
  CHECK(checkLenses(check, uri, text, -1)[0]["command"]["title"] == "✓ verified under TSO · 12,345 executions · 0.4 ms");
  CHECK(checkLenses(check, uri, text, 1)[0]["command"]["title"] == "checking… 1 execution");
  // A violation's message names the loop bound only when a loop was cut or the bound is not the default.
  const std::string path = "/w/a.c";
  json v = {{"function", "f"}, {"line", 2}, {"column", 1}, {"model", "TSO"}, {"status", "violation"}, {"loop_bound", 8},
            {"bounds", {{"loop", nullptr}}},
            {"violation", {{"kind", "assertion"}, {"message", "assertion failed"}, {"file", path}, {"line", 2},
                           {"column", 1}, {"trace", json::array()}}}};
  auto messageOf = [&](const json& c) {
    for (const json& d : checkDiagnostics(c, path, text))
      if (d["severity"] == 1) return d["message"].get<std::string>();
    return std::string();
  };
  CHECK(messageOf(v).find("loop bound") == std::string::npos);
  v["bounds"]["loop"] = 8;
  CHECK(messageOf(v).find("loop bound 8") != std::string::npos);
  v["bounds"]["loop"] = nullptr;
  v["loop_bound"] = 3;
  CHECK(messageOf(v).find("loop bound 3") != std::string::npos);
}

TEST_CASE("an error's message ends with the stale read and the buffers when it was read, not when it failed") {
  const std::string path = "/w/sb.c", text = "int x;\nint y;\nvoid f(void) {\n  x = 1;\n  r = x;\n}\n";
  json buf = json::array({json::array(), json::array({{{"address", "x"}, {"value", 1}, {"store_step", 1}}}), json::array()});
  json empty = json::array({json::array(), json::array(), json::array()});
  json stale = {{"thread", 1}, {"address", "x"}, {"value", 1}, {"store_step", 1}};
  json trace = json::array(
      {{{"step", 1}, {"thread", 1}, {"event", "store"}, {"address", "x"}, {"value", 1}, {"file", path}, {"line", 4},
        {"column", 3}, {"buffers", buf}},
       {{"step", 2}, {"thread", 2}, {"event", "load-memory"}, {"address", "x"}, {"value", 0}, {"file", path},
        {"line", 5}, {"column", 7}, {"buffers", buf}, {"stale", stale}},
       {{"step", 3}, {"thread", 1}, {"event", "flush"}, {"address", "x"}, {"value", 1}, {"file", path}, {"line", 4},
        {"column", 3}, {"buffers", empty}},
       {{"step", 4}, {"thread", 2}, {"event", "error"}, {"file", path}, {"line", 3}, {"column", 1}, {"buffers", empty}}});
  json check = {{"function", "f"}, {"line", 3}, {"column", 1}, {"model", "TSO"}, {"status", "violation"},
                {"violation", {{"kind", "assertion"}, {"message", "assertion `r` failed"}, {"file", path}, {"line", 3},
                               {"column", 1}, {"thread", 2}, {"trace", trace}}}};
  json ds = checkDiagnostics(check, path, text);
  REQUIRE(!ds.empty());
  const std::string m = ds[0]["message"];
  CHECK(m.find("\nstale read: T2 read x → 0 from memory at sb.c:5:7 (step 2) while T1's store x = 1 (step 1, sb.c:4:3) "
               "sat in its store buffer\nstore buffers at step 2: T1 [x = 1]") != std::string::npos);
  CHECK(m.find("assertion") < m.find("store buffers"));
  // No stale read: no such lines.
  check["violation"]["trace"][1].erase("stale");
  CHECK(checkDiagnostics(check, path, text)[0]["message"].get<std::string>().find("store buffers") == std::string::npos);
}

TEST_CASE("a library's hints are worded as the report's summary of the harness's violation") {
  // The harness /w/test.c fails through the library /w/lib.c: T1's store to x
  // (lib.c:4) is still buffered when T2 reads x (lib.c:5).
  const std::string harness = "/w/test.c", lib = "/w/lib.c";
  const std::string libText = "int x;\nint r;\nvoid put(void) {\n  x = 1;\n  r = x;\n}\n";
  json buf = json::array({json::array(), json::array({{{"address", "x"}, {"value", 1}, {"store_step", 1}}}), json::array()});
  json empty = json::array({json::array(), json::array(), json::array()});
  json stale = {{"thread", 1}, {"address", "x"}, {"value", 1}, {"store_step", 1}};
  json trace = json::array(
      {{{"step", 1}, {"thread", 1}, {"event", "store"}, {"address", "x"}, {"value", 1}, {"file", lib}, {"line", 4},
        {"column", 3}, {"buffers", buf}},
       {{"step", 2}, {"thread", 2}, {"event", "load-memory"}, {"address", "x"}, {"value", 0}, {"file", lib},
        {"line", 5}, {"column", 7}, {"buffers", buf}, {"stale", stale}},
       {{"step", 3}, {"thread", 2}, {"event", "error"}, {"file", harness}, {"line", 9}, {"column", 3},
        {"buffers", empty}}});
  const CheckReport check = checkFromJson(
      {{"function", "f"}, {"line", 7}, {"column", 1}, {"model", "TSO"}, {"status", "violation"},
       {"violation", {{"kind", "assertion"}, {"message", "assertion `r` failed"}, {"file", harness}, {"line", 9},
                      {"column", 3}, {"thread", 2}, {"trace", trace}}}});
  REQUIRE(linkedHintFiles(check, harness) == std::vector<std::string>{lib});
  // The summary the report JSON carries for this violation, one line each.
  const json summary = checkJson(check)["violation"]["summary"];
  REQUIRE(summary.size() == 3);
  std::string lines;
  for (const json& l : summary) lines += (lines.empty() ? "" : "\n") + l.get<std::string>();
  CHECK(lines.find("stale read: T2 read x → 0 from memory at lib.c:5:7 (step 2) while T1's store x = 1 (step 1, "
                   "lib.c:4:3) sat in its store buffer") != std::string::npos);
  const json hints = linkedFileHints(check, harness, lib, libText);
  REQUIRE(hints.size() == 2);
  CHECK(hints[0]["code"] == "stale-read");
  CHECK(hints[0]["range"]["start"]["line"] == 4);
  CHECK(hints[1]["code"] == "buffered-store");
  CHECK(hints[1]["range"]["start"]["line"] == 3);
  for (const json& h : hints) {
    CHECK(h["severity"] == 4);
    CHECK(h["message"] == "`f` (test.c) fails under TSO: " + lines);
    CHECK(h["relatedInformation"].size() == 3);
  }
  // The harness itself gets no library hints.
  CHECK(linkedFileHints(check, harness, harness, libText).empty());
}

TEST_CASE("typed params: the fields the server reads, and the first bad one by its path") {
  std::string why;
  DidOpenParams open;
  REQUIRE(fromJson({{"textDocument", {{"uri", "file:///a.c"}, {"text", "int x;"}, {"version", 3}}}}, open, &why));
  CHECK(open.uri == "file:///a.c");
  CHECK(open.text == "int x;");
  CHECK(open.version == 3);
  CHECK_FALSE(fromJson({{"textDocument", {{"uri", 7}, {"text", ""}}}}, open, &why));
  CHECK(why == "textDocument.uri must be a string");
  CHECK_FALSE(fromJson({{"textDocument", {{"uri", "file:///a.c"}}}}, open, &why));
  CHECK(why == "textDocument.text is missing");
  CHECK_FALSE(fromJson(json::array(), open, &why));
  CHECK(why == "params must be an object");

  HoverParams hover;
  REQUIRE(fromJson({{"textDocument", {{"uri", "file:///a.c"}}}, {"position", {{"line", 4}, {"character", 2}}}}, hover, &why));
  CHECK(hover.position.line == 4);
  CHECK(hover.position.character == 2);
  CHECK_FALSE(fromJson({{"textDocument", {{"uri", "file:///a.c"}}}, {"position", {{"line", true}, {"character", 2}}}},
                       hover, &why));
  CHECK(why == "position.line must be a non-negative integer, got true");

  CodeActionParams action;
  const json range = {{"start", {{"line", 1}, {"character", 0}}}, {"end", {{"line", 1}, {"character", -1}}}};
  CHECK_FALSE(fromJson({{"textDocument", {{"uri", "file:///a.c"}}}, {"range", range}}, action, &why));
  CHECK(why == "range.end.character must be a non-negative integer, got -1");

  ExecuteCommandParams cmd;
  REQUIRE(fromJson({{"command", "tsocheck.recheck"}}, cmd, &why));
  CHECK(cmd.arguments == json::array());
  CHECK_FALSE(fromJson({{"command", "tsocheck.recheck"}, {"arguments", "x"}}, cmd, &why));
  CHECK(why == "arguments must be an array");

  InitializeParams init;
  REQUIRE(fromJson({{"rootUri", "file:///w"}, {"capabilities", {{"window", {{"workDoneProgress", true}}}}}}, init, &why));
  CHECK(init.rootPath == "/w");
  CHECK(init.workDoneProgress);
  CHECK_FALSE(init.codeLensRefresh);
  REQUIRE(fromJson({{"rootUri", nullptr}, {"capabilities", {{"window", "yes"}}}}, init = {}, &why));
  CHECK(init.rootPath.empty());
  CHECK_FALSE(init.workDoneProgress);

  DidSaveParams save;
  REQUIRE(fromJson({{"textDocument", {{"uri", "file:///a.c"}}}, {"text", 5}}, save, &why));
  CHECK_FALSE(save.text);  // a text that is not a string is ignored
}

TEST_CASE("a data race is a Warning at the second access, the other access first among the related") {
  const std::string path = "/w/race.c";
  const std::string text = "int x;\nvoid *t1(void *p) {\n  x = 1;\n}\nvoid *t2(void *p) {\n  return (void *)(long)x;\n}\n";
  json step = {{"step", 1}, {"thread", 1}, {"event", "store"}, {"address", "x"}, {"value", 1}, {"file", path},
               {"line", 3}, {"column", 5}, {"buffers", json::array()}};
  json race = {{"kind", "race"},
               {"message", "data race on x: T1 writes it (race.c:3:5) and T2 reads it, with nothing ordering the two"},
               {"file", path}, {"line", 6}, {"column", 24}, {"thread", 2}, {"severity", "warning"},
               {"other", {{"file", path}, {"line", 3}, {"column", 5}, {"thread", 1}}},
               {"trace", json::array({step})}};
  json check = {{"function", "h"}, {"line", 8}, {"column", 1}, {"model", "TSO"}, {"status", "verified"},
                {"violation", nullptr}, {"violations", json::array({race})}};
  json diags = checkDiagnostics(check, path, text);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0]["severity"] == 2);
  CHECK(diags[0]["code"] == "race");
  CHECK(diags[0]["range"]["start"]["line"] == 5);
  // Said once, without a model.
  CHECK(diags[0]["message"] == "data race on x: T1 writes it (race.c:3:5) and T2 reads it, with nothing ordering the two");
  CHECK(diags[0]["message"].get<std::string>().find("store buffers") == std::string::npos);
  REQUIRE(diags[0]["relatedInformation"].size() == 2);
  CHECK(diags[0]["relatedInformation"][0]["message"] == "the other access (T1)");
  CHECK(diags[0]["relatedInformation"][0]["location"]["range"]["start"]["line"] == 2);
}

TEST_CASE("settings: raceCheck") {
  Settings s;
  const std::string key = outcomeSettings(s);
  CHECK(applySettings(s, {{"raceCheck", false}}).empty());
  REQUIRE(s.run.raceCheck);
  CHECK(*s.run.raceCheck == false);
  CHECK(outcomeSettings(s) != key);  // part of the cache key
  CHECK(applySettings(s, {{"raceCheck", "sometimes"}}).size() == 1);
}

TEST_CASE("the settings schema names every setting the server reads, and only those") {
  // Each listed setting is read: a value of the wrong type is refused by its name.
  for (const json& s : serverSettingSchema()) {
    Settings st;
    const std::string key = s["key"];
    const std::vector<std::string> bad = applySettings(st, {{key, json::array({1})}});
    REQUIRE(bad.size() == 1);
    CHECK(bad[0].rfind(key + " must be", 0) == 0);
  }
  for (const json& o : optionSchemaJson()) {
    Settings st;
    const std::string key = o["key"];
    // An editor setting is read (and refused the same way); a file of the program is not an editor setting.
    CHECK(applySettings(st, {{key, json::array({1})}}).size() == (o["editor_setting"] ? 1u : 0u));
  }
  Settings st;
  CHECK(applySettings(st, {{"unknownSetting", json::array({1})}}).empty());
}

TEST_CASE("settings: compareModels is a list of models, empty or null turns it off, anything else is refused") {
  Settings s;
  CHECK(s.compareModels.empty());
  const std::string key = outcomeSettings(s);
  CHECK(applySettings(s, {{"tsocheck", {{"compareModels", {"sc", "TSO", "rc11", "sc"}}}}}).empty());
  CHECK(s.compareModels == std::vector<Model>{Model::SC, Model::TSO, Model::RC11});  // in order, once each
  CHECK(outcomeSettings(s) == key);  // the chosen model's checks keep their cache entries
  for (const json& bad : {json("sc,tso"), json::array({"sc", "arm"}), json::array({1}), json(true)}) {
    const std::vector<std::string> errs = applySettings(s, {{"compareModels", bad}});
    REQUIRE(errs.size() == 1);
    CHECK(errs[0] == "compareModels must be a list of \"sc\", \"tso\", \"pso\" or \"rc11\" (empty: off)");
    CHECK(s.compareModels.size() == 3);  // the old value stays
  }
  CHECK(applySettings(s, {{"compareModels", json::array()}}).empty());
  CHECK(s.compareModels.empty());
  REQUIRE(applySettings(s, {{"compareModels", {"pso"}}}).empty());
  CHECK(applySettings(s, {{"compareModels", nullptr}}).empty());
  CHECK(s.compareModels.empty());
}

TEST_CASE("the line of verdicts under each model: a lens after the verdict's, and in the hover on the check") {
  const std::string uri = "file:///w/a.c", path = "/w/a.c", text = "int x;\nvoid f(void) {}\n";
  const std::string line = "SC \u2713  TSO \u2713  RC11 \u2717";
  json check = {{"function", "f"}, {"file", path}, {"line", 2}, {"model", "TSO"}, {"status", "verified"},
                {"executions", 1}, {"elapsed_ms", 1.0}};
  auto titles = [](const json& lenses) {
    std::vector<std::string> out;
    for (const json& l : lenses) out.push_back(l["command"]["title"]);
    return out;
  };
  const std::vector<std::string> with = titles(checkLenses(check, uri, text, -1, line));
  REQUIRE(with.size() >= 2);
  CHECK(with[1] == line);
  CHECK(titles(checkLenses(check, uri, text, -1)).size() == with.size() - 1);
  CHECK(titles(checkLenses(check, uri, text, 5, line)) == std::vector<std::string>{"checking… 5 executions"});
  // A verified check has no trace to hover, but its own line shows where it breaks.
  CHECK(traceHover(check, path, 2, line) == "`f` under each model: `" + line + "`\n\n");
  CHECK(traceHover(check, path, 2).empty());
  CHECK(traceHover(check, path, 1, line).empty());
}

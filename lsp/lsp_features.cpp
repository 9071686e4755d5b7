#include "lsp/lsp_features.h"
#include "service/report_reader.h"
#include "jsonrpc/json_text.h"
#include "service/wording.h"
#include "engine/memory_model.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "frontend/frontend.h"
#include "lsp/lsp_protocol.h"
#include "service/source_paths.h"

namespace tsocheck::lsp {

namespace {

const json& traceOf(const json& check) {
  static const json empty = json::array();
  const json& v = check.contains("violation") ? check["violation"] : empty;
  return v.is_object() && v.contains("trace") && v["trace"].is_array() ? v["trace"] : empty;
}


// Positions in the document come from its text; in other files, columns are
// taken as they are.
json rangeIn(const std::string& file, const std::string& path, const std::string& text, uint32_t line,
             uint32_t column) {
  return lineRange(sameFile(file, path) ? text : std::string(), line, column);
}

// "tso": the model as it appears in diagnostic codes.
std::string modelCode(const json& check) {
  std::string model = str(check, "model");
  for (char& c : model) c = char(std::tolower(static_cast<unsigned char>(c)));
  return model;
}

// The witness of a check found not robust, or nullptr.
const json* robustnessWitness(const json& check) {
  auto rb = check.find("robustness");
  if (rb == check.end() || !rb->is_object() || rb->value("robust", true)) return nullptr;
  auto w = rb->find("witness");
  return w != rb->end() && w->is_object() ? &*w : nullptr;
}

std::string robustnessCode(const json& check) { return modelCode(check) + "-robustness"; }

// The diagnostic code of one violation (an entry of "violations").
std::string codeOf(const json& check, const json& v) {
  std::string kind = str(v, "kind");
  if (kind == "assertion") return modelCode(check) + "-assertion";
  if (kind == "deadlock" || kind == "nontermination" || kind == "race") return kind;
  if (kind == "memory") return "memory-error";
  return kind.empty() ? "violation" : kind + "-error";
}

std::string codeFor(const json& check) { return codeOf(check, check["violation"]); }

// The first violation of each kind (JSON "violations"; a check stored before
// that field existed has only "violation").
json violationsOf(const json& check) {
  auto all = check.find("violations");
  if (all != check.end() && all->is_array()) return *all;
  json one = json::array();
  if (check.contains("violation") && check["violation"].is_object()) one.push_back(check["violation"]);
  return one;
}

std::string boundsText(const json& check) {
  std::string s = "under " + str(check, "model");
  if (check.contains("buffer_bound") && check["buffer_bound"].is_number())
    s += ", store buffers of at most " + dumpJson(check["buffer_bound"]) + " entries";
  // The loop bound only when it cut a loop or is not the default.
  const json* b = check.contains("bounds") && check["bounds"].is_object() ? &check["bounds"] : nullptr;
  const bool cut = b && b->contains("loop") && !(*b)["loop"].is_null();
  const json lb = check.value("loop_bound", json(frontend::kDefaultLoopBound));
  if (cut || (lb.is_number() && lb != json(frontend::kDefaultLoopBound))) s += ", loop bound " + dumpJson(lb);
  return s;
}

}  // namespace

namespace {

// From the first stale read the engine marked ("stale" of a step).
std::string staleReadIn(const json& trace) {
  for (const json& s : trace) {
    const json& st = member(s, "stale");
    if (!st.is_object()) continue;
    const uint32_t storeStep = num(st, "store_step");
    const uint32_t storeLine = storeStep >= 1 && storeStep <= trace.size() ? num(trace[storeStep - 1], "line") : 0;
    return "store to `" + str(s, "address") + "` (line " + std::to_string(storeLine) + ") is still in T" +
           std::to_string(num(st, "thread")) + "'s store buffer when T" + std::to_string(num(s, "thread")) +
           " reads it (line " + std::to_string(num(s, "line")) + ")";
  }
  return "";
}

// One related location per trace step: clicking walks the interleaving.
json relatedSteps(const json& trace, const std::string& path, const std::string& text) {
  json related = json::array();
  for (const json& s : trace) {
    std::string file = str(s, "file");
    related.push_back({{"location", {{"uri", pathToUri(sameFile(file, path) ? path : file)},
                                     {"range", rangeIn(file, path, text, num(s, "line"), num(s, "column"))}}},
                       {"message", stepLabel(s)}});
  }
  return related;
}

}  // namespace

std::string staleReadExplanation(const json& check) { return staleReadIn(traceOf(check)); }

json checkDiagnostics(const json& check, const std::string& path, const std::string& text) {
  json out = json::array();
  const std::string status = str(check, "status"), function = str(check, "function");
  const json data = {{"function", function}};
  auto diag = [&](json range, int severity, std::string code, std::string message) {
    json d = {{"range", std::move(range)}, {"severity", severity}, {"source", "tsocheck"},
              {"code", std::move(code)}, {"message", std::move(message)}, {"data", data}};
    return d;
  };
  // One diagnostic per kind found: an Error, or a Warning for a deadlock or
  // non-termination under deadlocks=warning.
  for (const json& v : violationsOf(check)) {
    if (!v.is_object()) continue;
    const std::string kind = str(v, "kind");
    const json trace = v.contains("trace") && v["trace"].is_array() ? v["trace"] : json::array();
    std::string what = kind == "assertion"        ? "assertion fails"
                       : kind == "deadlock"       ? "deadlock"
                       : kind == "nontermination" ? "non-termination"
                       : kind == "race"           ? "data race"
                                                  : str(v, "message");
    std::string msg = what + " " + boundsText(check);
    const bool race = kind == "race";
    std::string why = kind == "deadlock" || kind == "nontermination" || race ? std::string() : staleReadIn(trace);
    msg += ": " + (why.empty() ? str(v, "message") : why);
    if (kind == "assertion" && !why.empty()) msg += " (" + str(v, "message") + ")";
    // The summary comes before the steps (relatedInformation, which editors
    // list below the message): the store buffers when it failed.
    if (!race && !trace.empty() && trace.back().contains("buffers") && trace.back()["buffers"].is_array()) {
      std::string bufs;
      const json& b = trace.back()["buffers"];
      for (size_t th = 0; th < b.size(); ++th) {
        if (!b[th].is_array() || b[th].empty()) continue;
        bufs += (bufs.empty() ? "" : "; ") + std::string("T") + std::to_string(th) + " [";
        for (size_t k = 0; k < b[th].size(); ++k)
          bufs += (k ? ", " : "") + str(b[th][k], "address") + " = " + valueText(b[th][k]["value"]);
        bufs += "]";
      }
      if (!bufs.empty()) msg += "\nstore buffers when it failed: " + bufs;
    }
    const bool warning = str(v, "severity") == "warning";
    json d = diag(rangeIn(str(v, "file"), path, text, num(v, "line"), num(v, "column")), warning ? 2 : 1,
                  codeOf(check, v), msg);
    d["relatedInformation"] = relatedSteps(trace, path, text);
    const json& other = member(v, "other");
    if (other.is_object()) {  // a race: the other access first
      const std::string file = str(other, "file");
      d["relatedInformation"].insert(
          d["relatedInformation"].begin(),
          json{{"location", {{"uri", pathToUri(sameFile(file, path) ? path : file)},
                             {"range", rangeIn(file, path, text, num(other, "line"), num(other, "column"))}}},
               {"message", "the other access (T" + std::to_string(num(other, "thread")) + ")"}});
    }
    out.push_back(d);
  }
  if (status == "bounded" || status == "timeout") {
    out.push_back(diag(rangeIn(path, path, text, num(check, "line"), num(check, "column")), 2, status,
                       "`" + function + "`: " + str(check, "message") + " (" + boundsText(check) + ")"));
  } else if (status == "error") {
    const json e = check.contains("error") ? check["error"] : json::object();
    uint32_t line = e.is_object() && num(e, "line") ? num(e, "line") : num(check, "line");
    uint32_t col = e.is_object() && num(e, "line") ? num(e, "column") : num(check, "column");
    out.push_back(diag(rangeIn(path, path, text, line, col), 2, "unsupported",
                       "`" + function + "` was not checked: " + str(check, "message")));
  }
  // Robustness: a Warning at the witness's first stale read, with its steps,
  // unless the witness is the violation already shown as an Error.
  const json* w = robustnessWitness(check);
  if (w && !check["robustness"].value("witness_is_violation", false)) {
    const json trace = w->value("trace", json::array());
    std::string why = staleReadIn(trace);
    json d = diag(rangeIn(str(*w, "file"), path, text, num(*w, "line"), num(*w, "column")), 2, robustnessCode(check),
                  "`" + function + "` is not robust under " + str(check, "model") + ": " +
                      (why.empty() ? std::string("an execution SC does not allow") : why) +
                      " — SC does not allow this execution");
    d["relatedInformation"] = relatedSteps(trace, path, text);
    out.push_back(d);
  }
  // Hints where the synthesized fences go (they fix the violation, or make
  // the check robust).
  if (check.contains("fences") && check["fences"].is_array())
    for (const json& f : check["fences"]) {
      if (!sameFile(str(f, "file"), path)) continue;
      // On the statement (from its first character), not the indentation.
      const uint32_t line = num(f, "line");
      out.push_back(diag(rangeIn(path, path, text, line, firstColumn(text, line)), 4, "fence",
                         std::string("a fence after this statement ") +
                             (status == "violation" ? "fixes `" : "makes `") + function +
                             (status == "violation" ? "`: " : "` robust: ") + str(f, "text")));
    }
  return out;
}

namespace {

bool touches(const json& range, uint32_t line1) {
  if (line1 == 0) return false;
  uint32_t l = line1 - 1;
  return range["start"]["line"].get<uint32_t>() <= l && l <= range["end"]["line"].get<uint32_t>();
}

// Where a fence after the statement on `line1` goes: the end of that line,
// as a new line with the same indentation.
json fenceEdit(const std::string& text, uint32_t line1, const std::string& fence) {
  std::istringstream in(text);
  std::string l;
  for (uint32_t i = 0; i < line1 && std::getline(in, l);) ++i;
  std::string indent = l.substr(0, l.find_first_not_of(" \t") == std::string::npos ? l.size()
                                                                                 : l.find_first_not_of(" \t"));
  json end = positionOf(text, line1, uint32_t(l.size()) + 1);
  return {{"range", {{"start", end}, {"end", end}}}, {"newText", "\n" + indent + fence}};
}

// `#include <stdatomic.h>` when a C11 fence is inserted and the file lacks it,
// after the last #include (or at the top).
std::optional<json> includeEdit(const std::string& text, const std::string& fence) {
  if (fence.find("atomic_thread_fence") == std::string::npos || text.find("<stdatomic.h>") != std::string::npos)
    return std::nullopt;
  std::istringstream in(text);
  std::string l;
  uint32_t n = 0, last = 0;
  while (std::getline(in, l)) {
    ++n;
    if (l.rfind("#include", 0) == 0) last = n;
  }
  json at = {{"line", last}, {"character", 0}};
  return json{{"range", {{"start", at}, {"end", at}}}, {"newText", "#include <stdatomic.h>\n"}};
}

}  // namespace

json fenceActions(const json& check, const std::string& uri, const std::string& text, const json& range,
                  const TextOf& textOf) {
  json out = json::array();
  // Fences fix a violation, or make a non-robust check robust.
  const json* witness = robustnessWitness(check);
  const bool violation = str(check, "status") == "violation";
  if ((!violation && !witness) || !check.contains("fences") || !check["fences"].is_array()) return out;
  const json& fences = check["fences"];
  if (fences.empty()) return out;
  const std::string path = uriToPath(uri);
  bool relevant = touches(range, num(check, "line")) ||
                  (violation && touches(range, num(check["violation"], "line"))) ||
                  (witness && touches(range, num(*witness, "line")));
  for (const json& f : fences) relevant = relevant || (sameFile(str(f, "file"), path) && touches(range, num(f, "line")));
  if (!relevant) return out;
  // The diagnostic the fences fix: the violation's Error, else the robustness Warning.
  const std::string fixedCode = violation ? codeFor(check) : robustnessCode(check);
  json errorDiag = json::array();
  for (const json& d : checkDiagnostics(check, path, text))
    if (str(d, "code") == fixedCode) {
      errorDiag.push_back(d);
      break;
    }
  // Each fence's file: this document, or another file of the program (a
  // header) with its own URI and text. This document's fences come first.
  struct Target {
    std::string uri;
    std::string text;
    bool here = false;
  };
  std::map<std::string, Target> targets;  // by the fence's "file"
  std::vector<const json*> all;
  bool complete = true;  // every fence's file could be read
  for (int pass = 0; pass < 2; ++pass)
    for (const json& f : fences) {
      const std::string file = str(f, "file");
      const bool here = sameFile(file, path);
      if (here != (pass == 0)) continue;
      if (!targets.count(file)) {
        std::optional<std::string> t;
        if (here) {
          t = text;
        } else if (textOf) {
          t = textOf(file);
        } else if (std::ifstream in(file, std::ios::binary); in) {
          t = std::string(std::istreambuf_iterator<char>(in), {});
        }
        if (!t) {
          complete = false;
          continue;
        }
        std::error_code ec;
        const std::filesystem::path abs = std::filesystem::absolute(file, ec);
        targets[file] = Target{here ? uri : pathToUri(ec ? file : abs.lexically_normal().string()), *t, here};
      }
      all.push_back(&f);
    }
  if (all.empty()) return out;
  auto needsInclude = [&](const std::vector<const json*>& which) {
    for (const json* f : which)
      if (includeEdit(targets[str(*f, "file")].text, str(*f, "text"))) return true;
    return false;
  };
  auto action = [&](const std::string& title, const std::vector<const json*>& which, bool preferred) {
    json changes = json::object();
    for (const json* f : which) {
      const Target& t = targets[str(*f, "file")];
      json& edits = changes[t.uri];
      if (edits.is_null()) {
        edits = json::array();
        if (auto inc = includeEdit(t.text, str(*f, "text"))) edits.push_back(*inc);
      }
      edits.push_back(fenceEdit(t.text, num(*f, "line"), str(*f, "text")));
    }
    return json{{"title", title}, {"kind", "quickfix"}, {"diagnostics", errorDiag},
                {"isPreferred", preferred}, {"edit", {{"changes", changes}}}};
  };
  // The synthesized set as a whole fixes the check: a single fence is the
  // preferred fix by itself, otherwise "insert all" is (offered only when
  // every file it edits could be read: a part of the set fixes nothing).
  // Titles say what gets inserted and where: "Insert atomic_thread_fence(memory_order_seq_cst)
  // after line 21 (+ #include <stdatomic.h>)", "... after handshake.h line 11".
  auto fenceName = [](const json& f) {
    std::string t = str(f, "text");
    while (!t.empty() && (t.back() == ';' || t.back() == ' ')) t.pop_back();
    return t;
  };
  auto where = [&](const json& f) {
    const std::string file = str(f, "file");
    return (targets[file].here ? std::string() : std::filesystem::path(file).filename().string() + " ") + "line " +
           std::to_string(num(f, "line"));
  };
  const std::string include = " (+ #include <stdatomic.h>)";
  for (const json* f : all)
    out.push_back(action("Insert " + fenceName(*f) + " after " + where(*f) + (needsInclude({f}) ? include : ""), {f},
                         complete && all.size() == 1));
  if (all.size() > 1 && complete)
    out.push_back(action("Insert all " + std::to_string(all.size()) + " fences (" + fenceName(*all.front()) + ")" +
                             (needsInclude(all) ? include : ""),
                         all, true));
  return out;
}

json checkLenses(const json& check, const std::string& uri, const std::string& text, long long checking) {
  json out = json::array();
  const std::string fn = str(check, "function"), status = str(check, "status"), model = str(check, "model");
  json range = lineRange(text, num(check, "line"), 1);
  range["end"] = range["start"];
  auto lens = [&](const std::string& title, const std::string& command, json args) {
    out.push_back({{"range", range}, {"command", {{"title", title}, {"command", command}, {"arguments", args}}}});
  };
  std::string title;
  if (checking >= 0) {
    std::string n = std::to_string(checking);
    for (int i = int(n.size()) - 3; i > 0; i -= 3) n.insert(size_t(i), ",");
    title = "checking… " + n + (checking == 1 ? " execution" : " executions");
  } else if (status == "verified" || status == "bounded") {
    auto e = check.find("executions");
    const uint64_t n = e != check.end() && e->is_number_integer() && e->get<int64_t>() > 0 ? e->get<uint64_t>() : 0;
    title = std::string(status == "verified" ? "✓ verified" : "✓ no violation (bounded)") + " under " + model +
            " · " + countText(n, "execution") + " · " + durationText(check.value("elapsed_ms", 0.0));
  } else if (status == "violation") {
    title = "✗ " + model + " violation — show trace";
  } else if (status == "timeout") {
    title = "⧗ time limit under " + model;
  } else {
    title = "not checked: " + str(check, "message");
  }
  lens(title, status == "violation" && checking < 0 ? "tsocheck.showTrace" : "tsocheck.recheck", json::array({uri, fn}));
  if (checking < 0) {
    lens("re-run", "tsocheck.recheck", json::array({uri, fn}));
    for (Model m : kModels)
      if (model != modelName(m))
        lens(std::string("run under ") + modelName(m), "tsocheck.runWithModel", json::array({uri, fn, modelName(m)}));
  }
  return out;
}

std::string traceHover(const json& check, const std::string& path, uint32_t line) {
  if (!check["violation"].is_object()) return "";
  json t = tracePayload(check);
  std::string md;
  for (const json& s : t["violation"]["trace"]) {
    if (!sameFile(str(s, "file"), path) || num(s, "line") != line) continue;
    md += "**" + stepLabel(s) + "** (`" + str(check, "function") + "`, " + str(check, "model") + ")\n\n";
    std::string bufs;
    const json& b = s["buffers"];
    for (size_t th = 0; th < b.size(); ++th) {
      if (b[th].empty()) continue;
      bufs += " T" + std::to_string(th) + "[";
      for (size_t k = 0; k < b[th].size(); ++k)
        bufs += (k ? ", " : "") + str(b[th][k], "address") + "=" + dumpJson(b[th][k]["value"]);
      bufs += "]";
    }
    md += "- buffers:" + (bufs.empty() ? std::string(" all empty") : bufs) + "\n";
    std::string mem;
    for (const auto& [a, v] : s["memory"].items()) mem += " " + a + "=" + dumpJson(v);
    md += "- memory:" + (mem.empty() ? std::string(" initial values") : mem) + "\n\n";
  }
  return md;
}

}  // namespace tsocheck::lsp

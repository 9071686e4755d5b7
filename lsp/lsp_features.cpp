#include "lsp/lsp_features.h"
#include "service/report_json.h"
#include "service/report_reader.h"
#include "service/json_text.h"
#include "service/wording.h"
#include "engine/memory_model.h"

#include <filesystem>
#include <map>
#include <sstream>

#include "frontend/frontend.h"
#include "lsp/lsp_protocol.h"
#include "service/safe_io.h"
#include "service/source_paths.h"

namespace tsocheck::lsp {

namespace {

// Positions in the document come from its text; in other files, columns are
// taken as they are.
json rangeIn(const std::string& file, const std::string& path, const std::string& text, uint32_t line,
             uint32_t column) {
  return lineRange(sameFile(file, path) ? text : std::string(), line, column);
}

std::string fileOf(const CheckReport& check, const SourceLoc& l) { return fileIn(check.program.get(), l); }

// "tso": the model as it appears in diagnostic codes.
std::string modelCode(const CheckReport& check) {
  std::string model = modelName(check.model);
  for (char& c : model) c = char(std::tolower(static_cast<unsigned char>(c)));
  return model;
}

// The order argument an order upgrade replaces (FenceEdit::column is its 0-based byte offset).
json orderRange(const std::string& text, const FenceEdit& f) {
  return {{"start", positionOf(text, f.line, f.column + 1)},
          {"end", positionOf(text, f.line, f.column + 1 + uint32_t(f.replaces.size()))}};
}

// The witness of a check found not robust, or nullptr.
const Violation* robustnessWitness(const CheckReport& check) {
  const auto& rb = check.result.robustness;
  return rb && !rb->robust && rb->witness ? &*rb->witness : nullptr;
}

std::string robustnessCode(const CheckReport& check) { return modelCode(check) + "-robustness"; }

// The diagnostic code of one violation (an entry of "violations").
std::string codeOf(const CheckReport& check, const Violation& v) {
  if (v.kind == ErrorKind::None) return "violation";
  if (v.kind == ErrorKind::Assertion) return modelCode(check) + "-assertion";
  const std::string kind = errorKindName(v.kind);
  if (v.kind == ErrorKind::Deadlock || v.kind == ErrorKind::NonTermination || isRace(v.kind)) return kind;
  if (v.kind == ErrorKind::Memory) return "memory-error";
  return kind + "-error";
}

// The first violation of each kind (a check stored before "violations"
// existed has only "violation").
std::vector<const Violation*> violationsOf(const CheckReport& check) {
  std::vector<const Violation*> out;
  for (const Violation& v : check.result.violations) out.push_back(&v);
  if (out.empty() && check.result.violation) out.push_back(&*check.result.violation);
  return out;
}

std::string boundsText(const CheckReport& check) {
  std::string s = std::string("under ") + modelName(check.model);
  if (check.bufferBound) s += ", store buffers of at most " + std::to_string(*check.bufferBound) + " entries";
  // The loop bound only when it cut a loop or is not the default.
  if (check.bounds.loop || check.loopBound != frontend::kDefaultLoopBound)
    s += ", loop bound " + std::to_string(check.loopBound);
  return s;
}

// The violation's summary lines (report_reader.h violationSummary) from the
// `from`th on, one per line: from 1, the stale read and the buffers at it
// (none for a race or a hang).
std::string summaryText(const CheckReport& check, const Violation& v, size_t from) {
  const std::vector<std::string> lines = violationSummary(check.program.get(), v);
  std::string out;
  for (size_t i = from; i < lines.size(); ++i) out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

json locationIn(const std::string& file, const std::string& path, const std::string& text, const SourceLoc& l) {
  return {{"uri", pathToUri(sameFile(file, path) ? path : file)}, {"range", rangeIn(file, path, text, l.line, l.column)}};
}

// One related location per trace step: clicking walks the interleaving.
json relatedSteps(const CheckReport& check, const std::vector<TraceStep>& trace, const std::string& path,
                  const std::string& text) {
  json related = json::array();
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceStep& s = trace[i];
    // RC11: what the read read and why, what the step synchronises with.
    std::string why = readExplanation(trace, i);
    if (const std::string hb = hbText(trace, i); !hb.empty()) why += (why.empty() ? "" : "; ") + hb;
    related.push_back({{"location", locationIn(fileOf(check, s.loc), path, text, s.loc)},
                       {"message", stepLabel(s) + (why.empty() ? "" : " [" + why + "]")}});
  }
  return related;
}

json diagnostic(const CheckReport& check, json range, int severity, std::string code, std::string message) {
  return {{"range", std::move(range)}, {"severity", severity},         {"source", "tsocheck"},
          {"code", std::move(code)},   {"message", std::move(message)}, {"data", {{"function", check.function}}}};
}

// One violation's diagnostic: an Error, or a Warning for a deadlock or
// non-termination under deadlocks=warning (and a race).
json violationDiagnostic(const CheckReport& check, const Violation& v, const std::string& path, const std::string& text) {
  const std::vector<TraceStep>& trace = v.trace;
  const ErrorKind kind = v.kind;
  std::string what = kind == ErrorKind::Assertion        ? "assertion fails"
                     : kind == ErrorKind::Deadlock       ? "deadlock"
                     : kind == ErrorKind::NonTermination ? "non-termination"
                     : isRace(kind)                      ? "data race"
                                                         : v.message;
  const bool race = isRace(kind);
  // A data race is a property of the C program, not of the memory model: its
  // own message ("data race on x: T1 writes it ... and T2 reads it") says it all.
  std::string msg = race ? std::string() : what + " " + boundsText(check);
  msg += (race ? "" : ": ") + v.message;
  // The summary comes before the steps (relatedInformation, which editors
  // list below the message): the stale read and the buffers when it was read.
  if (const std::string more = summaryText(check, v, 1); !more.empty()) msg += "\n" + more;
  json d = diagnostic(check, rangeIn(fileOf(check, v.loc), path, text, v.loc.line, v.loc.column), v.warning ? 2 : 1,
                      codeOf(check, v), msg);
  d["relatedInformation"] = relatedSteps(check, trace, path, text);
  if (v.other)  // a race: the other access first
    d["relatedInformation"].insert(d["relatedInformation"].begin(),
                                   json{{"location", locationIn(fileOf(check, v.other->loc), path, text, v.other->loc)},
                                        {"message", "the other access (T" + std::to_string(v.other->thread) + ")"}});
  return d;
}

// A bounded, timed-out or unchecked function: a Warning at its header (or
// at the construct that stopped it); null for the other statuses.
json statusDiagnostic(const CheckReport& check, const std::string& path, const std::string& text) {
  const std::string status = statusName(check.result.status);
  const std::string function = check.function;
  if (status == "bounded" || status == "timeout")
    return diagnostic(check, rangeIn(path, path, text, check.line, check.column), 2, status,
                      "`" + function + "`: " + check.result.message + " (" + boundsText(check) + ")");
  if (status != "error") return nullptr;
  const bool at = check.errorAt && check.errorAt->line;
  const uint32_t line = at ? check.errorAt->line : check.line, col = at ? check.errorAt->column : check.column;
  return diagnostic(check, rangeIn(path, path, text, line, col), 2, "unsupported",
                    "`" + function + "` was not checked: " + check.result.message);
}

// The hint where a fence goes (on the statement, from its first character,
// not the indentation), or the order argument an upgrade replaces. `harness` names the checked file when the hint is
// in another file of its program ("" in the checked file itself).
json fenceHint(const CheckReport& check, const FenceEdit& f, const std::string& path, const std::string& text,
               const std::string& harness) {
  const bool violation = check.result.status == Status::Violation;
  const std::string function = "`" + check.function + "`" + (harness.empty() ? "" : " (" + harness + ")");
  if (f.isUpgrade())  // an order upgrade (RC11): on the order argument it replaces
    return diagnostic(check, orderRange(text, f), 4, "order",
                      "making this " + f.access + " " + f.text + (violation ? " fixes " : " makes ") + function +
                          (violation ? "" : " robust"));
  return diagnostic(check, rangeIn(path, path, text, f.line, firstColumn(text, f.line)), 4, "fence",
                    std::string("a fence after this statement ") + (violation ? "fixes " : "makes ") + function +
                        (violation ? ": " : " robust: ") + f.text);
}

// The hints one violation puts in `file`, another file of the checked
// program: at its stale read and at the store that sat in a buffer meanwhile
// (or at the violation itself when it has no stale read), each with the
// trace as related information. Their text is the violation's summary
// (report_reader.h violationSummary) after the check it fails.
void violationHints(const CheckReport& check, const Violation& v, const std::string& path, const std::string& file,
                    const std::string& text, json& out) {
  const std::string harness = std::filesystem::path(path).filename().string();
  const std::string msg = "`" + check.function + "` (" + harness + ") fails " + boundsText(check) + ": " +
                          summaryText(check, v, 0);
  auto hint = [&](const SourceLoc& l, const std::string& code) {
    json d = diagnostic(check, rangeIn(file, file, text, l.line, l.column), 4, code, msg);
    d["relatedInformation"] = relatedSteps(check, v.trace, file, text);
    out.push_back(std::move(d));
  };
  const TraceStep* read = nullptr;
  for (const TraceStep& s : v.trace)
    if (s.staleThread != TraceStep::kNoThread) {
      read = &s;
      break;
    }
  if (!read) {
    if (sameFile(fileOf(check, v.loc), file)) hint(v.loc, codeOf(check, v));
    return;
  }
  const uint32_t storeStep = read->staleEntry.storeStep;
  const TraceStep* store = storeStep >= 1 && storeStep <= v.trace.size() ? &v.trace[storeStep - 1] : nullptr;
  if (sameFile(fileOf(check, read->loc), file)) hint(read->loc, "stale-read");
  if (store && sameFile(fileOf(check, store->loc), file)) hint(store->loc, "buffered-store");
}

}  // namespace

std::vector<std::string> linkedHintFiles(const CheckReport& check, const std::string& path) {
  std::vector<std::string> out;
  auto add = [&](const std::string& f) {
    if (f.empty() || sameFile(f, path) || !std::filesystem::path(f).is_absolute()) return;
    for (const std::string& o : out)
      if (sameFile(o, f)) return;
    out.push_back(f);
  };
  for (const Violation* v : violationsOf(check)) {
    if (v->kind == ErrorKind::Race) continue;
    add(fileOf(check, v->loc));
    for (const TraceStep& s : v->trace)
      if (s.staleThread != TraceStep::kNoThread) {
        add(fileOf(check, s.loc));
        const uint32_t k = s.staleEntry.storeStep;
        if (k >= 1 && k <= v->trace.size()) add(fileOf(check, v->trace[k - 1].loc));
        break;
      }
  }
  for (const FenceEdit& f : check.fences) add(f.file);
  return out;
}

json linkedFileHints(const CheckReport& check, const std::string& path, const std::string& file,
                     const std::string& text) {
  json out = json::array();
  if (sameFile(file, path)) return out;
  for (const Violation* v : violationsOf(check))
    if (v->kind != ErrorKind::Race) violationHints(check, *v, path, file, text, out);
  const std::string harness = std::filesystem::path(path).filename().string();
  for (const FenceEdit& f : check.fences)
    if (sameFile(f.file, file)) out.push_back(fenceHint(check, f, file, text, harness));
  return out;
}

json checkDiagnostics(const CheckReport& check, const std::string& path, const std::string& text) {
  json out = json::array();
  const std::string function = check.function;
  // One diagnostic per kind found.
  for (const Violation* v : violationsOf(check)) out.push_back(violationDiagnostic(check, *v, path, text));
  if (json d = statusDiagnostic(check, path, text); !d.is_null()) out.push_back(std::move(d));
  // Robustness: a Warning at the witness's first stale read, with its steps,
  // unless the witness is the violation already shown as an Error.
  const Violation* w = robustnessWitness(check);
  if (w && !check.result.robustness->witnessIsViolation) {
    const std::vector<std::string> summary = violationSummary(check.program.get(), *w);
    const std::string why = summary.size() > 1 && summary[1].rfind("stale read: ", 0) == 0 ? summary[1] : "";
    json d = diagnostic(check, rangeIn(fileOf(check, w->loc), path, text, w->loc.line, w->loc.column), 2,
                        robustnessCode(check),
                        "`" + function + "` is not robust under " + modelName(check.model) + ": " +
                            (why.empty() ? std::string("an execution SC does not allow") : why) +
                            " — SC does not allow this execution");
    d["relatedInformation"] = relatedSteps(check, w->trace, path, text);
    out.push_back(d);
  }
  // Hints where the synthesized fences go (they fix the violation, or make
  // the check robust).
  for (const FenceEdit& f : check.fences)
    if (sameFile(f.file, path)) out.push_back(fenceHint(check, f, path, text, ""));
  return out;
}

json checkDiagnostics(const json& check, const std::string& path, const std::string& text) {
  return checkDiagnostics(checkFromJson(check), path, text);
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

namespace {

// Whether fence actions belong at `range`: it touches the function header,
// the violation (or the robustness witness) or a fence position here.
bool fencesRelevant(const CheckReport& check, const std::string& path, const json& range) {
  const Violation* witness = robustnessWitness(check);
  const bool violation = check.result.status == Status::Violation;
  bool relevant = touches(range, check.line) ||
                  (violation && touches(range, check.result.violation ? check.result.violation->loc.line : 0)) ||
                  (witness && touches(range, witness->loc.line));
  for (const FenceEdit& f : check.fences) relevant = relevant || (sameFile(f.file, path) && touches(range, f.line));
  return relevant;
}

// The diagnostic the fences fix: the violation's Error, else the robustness
// Warning (as a list of at most one).
json fixedDiagnostic(const CheckReport& check, const std::string& path, const std::string& text) {
  const bool violation = check.result.status == Status::Violation;
  std::string fixedCode = robustnessCode(check);
  if (violation) fixedCode = check.result.violation ? codeOf(check, *check.result.violation) : "violation";
  json out = json::array();
  for (const json& d : checkDiagnostics(check, path, text))
    if (d["code"].is_string() && d["code"] == fixedCode) {
      out.push_back(d);
      break;
    }
  return out;
}

// Each fence's file: this document, or another file of the program (a
// header) with its own URI and text.
struct Target {
  std::string uri;
  std::string text;
  bool here = false;
  std::optional<int64_t> version;  // the open document's; none: the file on disk
};

// The fences whose file could be read, this document's first, with their
// files' targets; *complete: every fence's file could be read.
std::vector<const FenceEdit*> fenceTargets(const CheckReport& check, const std::string& uri, const std::string& path,
                                           const std::string& text, std::optional<int64_t> version,
                                           const TextOf& textOf, std::map<std::string, Target>& targets,
                                           bool* complete) {
  std::vector<const FenceEdit*> all;
  *complete = true;
  for (int pass = 0; pass < 2; ++pass)
    for (const FenceEdit& f : check.fences) {
      const bool here = sameFile(f.file, path);
      if (here != (pass == 0)) continue;
      if (!targets.count(f.file)) {
        std::optional<EditText> t;
        if (here) {
          t = EditText(text, version);
        } else if (textOf) {
          t = textOf(f.file);
        } else if (std::optional<std::string> disk = readSourceFile(f.file)) {
          t = EditText(std::move(*disk));
        }
        if (!t) {
          *complete = false;
          continue;
        }
        std::error_code ec;
        const std::filesystem::path abs = std::filesystem::absolute(f.file, ec);
        targets[f.file] =
            Target{here ? uri : pathToUri(ec ? f.file : abs.lexically_normal().string()), t->text, here, t->version};
      }
      all.push_back(&f);
    }
  return all;
}

}  // namespace

json fenceActions(const CheckReport& check, const std::string& uri, const std::string& text, const json& range,
                  const TextOf& textOf, const EditFormat& format) {
  json out = json::array();
  // Fences fix a violation, or make a non-robust check robust.
  const bool violation = check.result.status == Status::Violation;
  if ((!violation && !robustnessWitness(check)) || check.fences.empty()) return out;
  const std::string path = uriToPath(uri);
  if (!fencesRelevant(check, path, range)) return out;
  const json errorDiag = fixedDiagnostic(check, path, text);
  std::map<std::string, Target> targets;  // by the fence's file
  bool complete = true;
  const std::vector<const FenceEdit*> all = fenceTargets(check, uri, path, text, format.version, textOf, targets, &complete);
  if (all.empty()) return out;
  auto needsInclude = [&](const std::vector<const FenceEdit*>& which) {
    for (const FenceEdit* f : which)
      if (includeEdit(targets[f->file].text, f->text)) return true;
    return false;
  };
  auto action = [&](const std::string& title, const std::vector<const FenceEdit*>& which, bool preferred) {
    json changes = json::object();
    std::vector<const Target*> order;  // documentChanges: one entry per file, in the fences' order
    for (const FenceEdit* f : which) {
      const Target& t = targets[f->file];
      json& edits = changes[t.uri];
      if (edits.is_null()) {
        edits = json::array();
        order.push_back(&t);
        if (auto inc = includeEdit(t.text, f->text)) edits.push_back(*inc);
      }
      edits.push_back(f->isUpgrade() ? json{{"range", orderRange(t.text, *f)}, {"newText", f->text}}
                                     : fenceEdit(t.text, f->line, f->text));
    }
    json edit = {{"changes", changes}};
    if (format.documentChanges) {
      // The editor applies each file's edits only to the version they were computed for.
      edit = {{"documentChanges", json::array()}};
      for (const Target* t : order)
        edit["documentChanges"].push_back(
            {{"textDocument", {{"uri", t->uri}, {"version", t->version ? json(*t->version) : json(nullptr)}}},
             {"edits", changes[t->uri]}});
    }
    return json{{"title", title}, {"kind", "quickfix"}, {"diagnostics", errorDiag},
                {"isPreferred", preferred}, {"edit", edit}};
  };
  // The synthesized set as a whole fixes the check: a single fence is the
  // preferred fix by itself, otherwise "insert all" is (offered only when
  // every file it edits could be read: a part of the set fixes nothing).
  // Titles say what gets inserted and where: "Insert atomic_thread_fence(memory_order_seq_cst)
  // after line 21 (+ #include <stdatomic.h>)", "... after handshake.h line 11".
  auto fenceName = [](const FenceEdit& f) {
    std::string t = f.text;
    while (!t.empty() && (t.back() == ';' || t.back() == ' ')) t.pop_back();
    return t;
  };
  auto where = [&](const FenceEdit& f) {
    return (targets[f.file].here ? std::string() : std::filesystem::path(f.file).filename().string() + " ") + "line " +
           std::to_string(f.line);
  };
  const std::string include = " (+ #include <stdatomic.h>)";
  if (all.front()->isUpgrade()) {
    // Order upgrades (RC11): "Make this load memory_order_acquire (line 27)".
    for (const FenceEdit* f : all)
      out.push_back(action("Make this " + f->access + " " + f->text + " (" + where(*f) + ")", {f},
                           complete && all.size() == 1));
    if (all.size() > 1 && complete)
      out.push_back(action("Apply all " + std::to_string(all.size()) + " memory-order upgrades", all, true));
    return out;
  }
  for (const FenceEdit* f : all)
    out.push_back(action("Insert " + fenceName(*f) + " after " + where(*f) + (needsInclude({f}) ? include : ""), {f},
                         complete && all.size() == 1));
  if (all.size() > 1 && complete)
    out.push_back(action("Insert all " + std::to_string(all.size()) + " fences (" + fenceName(*all.front()) + ")" +
                             (needsInclude(all) ? include : ""),
                         all, true));
  return out;
}

json fenceActions(const json& check, const std::string& uri, const std::string& text, const json& range,
                  const TextOf& textOf, const EditFormat& format) {
  return fenceActions(checkFromJson(check), uri, text, range, textOf, format);
}

json checkLenses(const CheckReport& check, const std::string& uri, const std::string& text, long long checking,
                 const std::string& models) {
  json out = json::array();
  const std::string fn = check.function, status = statusName(check.result.status), model = modelName(check.model);
  json range = lineRange(text, check.line, 1);
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
    title = std::string(status == "verified" ? "✓ verified" : "✓ no violation (bounded)") + " under " + model +
            " · " + countText(check.result.executions, "execution") + " · " + durationText(check.result.elapsedMs);
  } else if (status == "violation") {
    title = "✗ " + model + " violation — show trace";
  } else if (status == "timeout") {
    title = "⧗ time limit under " + model;
  } else {
    title = "not checked: " + check.result.message;
  }
  lens(title, status == "violation" && checking < 0 ? "tsocheck.showTrace" : "tsocheck.recheck", json::array({uri, fn}));
  if (checking < 0 && !models.empty()) lens(models, "tsocheck.recheck", json::array({uri, fn}));
  if (checking < 0) {
    lens("re-run", "tsocheck.recheck", json::array({uri, fn}));
    for (Model m : kModels)
      if (model != modelName(m))
        lens(std::string("run under ") + modelName(m), "tsocheck.runWithModel", json::array({uri, fn, modelName(m)}));
  }
  return out;
}

json checkLenses(const json& check, const std::string& uri, const std::string& text, long long checking,
                 const std::string& models) {
  return checkLenses(checkFromJson(check), uri, text, checking, models);
}

std::string traceHover(const CheckReport& check, const std::string& path, uint32_t line, const std::string& models) {
  const bool own = sameFile(check.file, path) && check.line == line;
  // A code span keeps the line's spacing as modelVerdictsText writes it.
  const std::string where = own && !models.empty() ? "`" + check.function + "` under each model: `" + models + "`\n\n" : "";
  if (!check.result.violation) return where;
  const Violation& v = *check.result.violation;
  const std::vector<TraceStep>& trace = v.trace;
  const std::vector<KnownMemory> memory = knownMemory(trace, check.model);
  std::string md;
  // On the failing line and on the check's own line: the summary first, then
  // the command that opens the whole trace.
  const bool failing = sameFile(fileOf(check, v.loc), path) && v.loc.line == line;
  if (failing || own) {
    const std::vector<std::string> summary = violationSummary(check.program.get(), v);
    md += "**`" + check.function + "` fails under " + modelName(check.model) + "**\n\n";
    for (const std::string& l : summary) md += "- " + l + "\n";
    const json args = json::array({pathToUri(check.file.empty() ? path : check.file), check.function});
    md += "\n[Show the trace (" + countText(trace.size(), "step") + ")](command:tsocheck.showTrace?" +
          percentEncode(args.dump()) + ")\n\n";
  }
  md += where;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceStep& s = trace[i];
    if (!sameFile(fileOf(check, s.loc), path) || s.loc.line != line) continue;
    md += "**" + stepLabel(s) + "** (`" + check.function + "`, " + modelName(check.model) + ")\n\n";
    if (s.rc11) {  // RC11: no buffers or memory; the read and its happens-before facts
      for (const std::string& l : {readExplanation(trace, i), hbText(trace, i)})
        if (!l.empty()) md += "- " + l + "\n";
      md += "\n";
      continue;
    }
    const std::string bufs = buffersText(s);
    md += "- buffers: " + (bufs.empty() ? std::string("all empty") : bufs) + "\n";
    std::string mem;
    for (const auto& [a, val] : memory[i]) mem += " " + a + "=" + std::to_string(val);
    md += "- memory:" + (mem.empty() ? std::string(" initial values") : mem) + "\n\n";
  }
  return md;
}

std::string traceHover(const json& check, const std::string& path, uint32_t line, const std::string& models) {
  return traceHover(checkFromJson(check), path, line, models);
}

}  // namespace tsocheck::lsp

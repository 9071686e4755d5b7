#include "service/fence_fix.h"
#include "service/wording.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "engine/fences.h"
#include "engine/order_fix.h"
#include "service/safe_io.h"
#include "service/source_paths.h"

namespace tsocheck {


std::optional<std::string> fenceText(const std::string& style) {
  if (style.empty() || style == "seq_cst") return std::string("atomic_thread_fence(memory_order_seq_cst);");
  if (style == "sync") return std::string("__sync_synchronize();");
  if (style == "mfence") return std::string("asm volatile(\"mfence\" ::: \"memory\");");
  return std::nullopt;
}

std::string applyFenceEdits(const std::string& source, const std::string& file, const std::vector<FenceEdit>& edits) {
  // Byte offset of every line start.
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < source.size(); ++i)
    if (source[i] == '\n') starts.push_back(i + 1);
  struct Change {
    size_t at, length;  // replaced bytes (0: an insertion)
    std::string text;
  };
  std::vector<Change> changes;
  for (const FenceEdit& e : edits) {
    if (e.file != file || e.line == 0 || e.line > starts.size()) continue;
    size_t lineEnd = e.line < starts.size() ? starts[e.line] - 1 : source.size();
    size_t at = std::min(starts[e.line - 1] + e.column, lineEnd);
    if (!e.isUpgrade()) {
      changes.push_back({at, 0, " " + e.text});
    } else if (source.compare(at, e.replaces.size(), e.replaces) == 0) {
      changes.push_back({at, e.replaces.size(), e.text});
    }  // (an order token that is not there: the edit does not apply)
  }
  // Back to front, so that earlier offsets stay valid.
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.at > b.at; });
  std::string out = source;
  for (const Change& c : changes) out.replace(c.at, c.length, c.text);
  return out;
}

namespace {

bool includesStdatomic(const std::string& source) {
  return source.find("<stdatomic.h>") != std::string::npos || source.find("\"stdatomic.h\"") != std::string::npos;
}


// Seconds left before the check's deadline (CheckOptions::limits.deadline); +inf without one.
double secondsLeft(const Limits& l) {
  if (l.deadline == std::chrono::steady_clock::time_point::max()) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(l.deadline - std::chrono::steady_clock::now()).count();
}

}  // namespace

namespace {

// The statement that holds a store at `file` (a program file name) :line:col,
// in whichever file of the module the frontend names it.
std::optional<frontend::StatementSpan> statementAt(const frontend::LoweredModule& module, const std::string& file,
                                                   uint32_t line, uint32_t column) {
  if (file.empty()) return std::nullopt;
  if (auto s = frontend::statementContaining(module, file, line, column)) return s;
  // The program may name the file differently (debug info made it absolute).
  std::set<std::string> names;
  for (const frontend::StatementSpan& sp : module.statements) names.insert(sp.file);
  for (const std::string& n : names)
    if (n != file && sameFile(file, n))
      if (auto s = frontend::statementContaining(module, n, line, column)) return s;
  return std::nullopt;
}

// Synthesized positions -> edits after the statements that hold them (two
// stores of one statement share one fence), in the checked file or any other
// file of the program (a header, an included .c file), sorted: the checked
// file first, then by file, line and column. nullopt and *why when a store is
// not in a statement, or is in a file the user does not edit (a system header).
std::optional<std::vector<FenceEdit>> statementEdits(const std::vector<FencePosition>& fences, const FenceFixInput& in,
                                                     const std::string& text, std::string* why) {
  std::vector<FenceEdit> edits;
  std::set<std::tuple<std::string, uint32_t, uint32_t>> seen;
  for (const FencePosition& p : fences) {
    const std::string& file = p.loc.file < in.program->files.size() ? in.program->files[p.loc.file] : "";
    std::optional<frontend::StatementSpan> s = statementAt(*in.module, file, p.loc.line, p.loc.column);
    if (!s) {
      *why = "fence synthesis: a fence belongs after the store at " + in.program->locString(p.loc) +
             ", which is not in a statement of " + (file.empty() ? in.path : file) + "; no edit offered";
      return std::nullopt;
    }
    if (s->system) {
      *why = "fence synthesis: a fence belongs after the store at " + in.program->locString(p.loc) +
             ", which is in a system header (" + s->file + ") that tsocheck does not edit; no edit offered";
      return std::nullopt;
    }
    if (!seen.insert({s->file, s->endLine, s->endColumn}).second) continue;
    edits.push_back(FenceEdit{s->file, s->endLine, s->endColumn, text, "", ""});
  }
  auto rank = [&](const FenceEdit& e) { return std::make_tuple(!sameFile(e.file, in.path), e.file, e.line, e.column); };
  std::sort(edits.begin(), edits.end(), [&](const FenceEdit& a, const FenceEdit& b) { return rank(a) < rank(b); });
  return edits;
}

// One edited file: its original text, whether it gets `#include
// <stdatomic.h>` as a new first line, and its edits (sorted by line, column).
struct EditedFile {
  std::string original;
  bool needInclude = false;
  std::vector<FenceEdit> edits;
};

// Where a location of an edited file is in the original: the include adds
// a line, the fences shift columns on their lines.
SourceLoc originalLoc(SourceLoc at, const EditedFile& f) {
  if (f.needInclude && at.line > 1) --at.line;
  int64_t shift = 0;  // bytes the edits before the column added on its line
  for (const FenceEdit& e : f.edits)  // sorted by column within a line
    if (e.line == at.line && at.column > 0 && int64_t(at.column) - 1 >= int64_t(e.column) + shift)
      shift += e.isUpgrade() ? int64_t(e.text.size()) - int64_t(e.replaces.size()) : int64_t(e.text.size() + 1);
  at.column = uint32_t(std::max<int64_t>(0, int64_t(at.column) - shift));
  return at;
}

// "; the fence needs #include <stdatomic.h>" (naming the files when the
// edits span several).
std::string includeNote(size_t fences, const std::vector<std::string>& includeIn, bool severalFiles) {
  if (includeIn.empty()) return "";
  std::string s = fences == 1 ? "; the fence needs #include <stdatomic.h>" : "; the fences need #include <stdatomic.h>";
  if (!severalFiles) return s;
  std::string list;
  for (const std::string& f : includeIn) list += (list.empty() ? "" : ", ") + f;
  return s + " (added in " + list + ")";
}

// The edited sources: every file with an edit, the checked one included, with
// its fences (and the include, when it needs one) applied in memory.
struct EditedSources {
  std::map<std::string, EditedFile> files;  // by FenceEdit::file
  std::string mainText;                     // the checked file, edited
  std::map<std::string, std::string> others;
  std::vector<std::string> includeIn;  // files that get the include, in the edits' order

  // The edited file a program file name is, if any.
  const EditedFile* editedFile(const std::string& name) const {
    for (const auto& [file, f] : files)
      if (sameFile(name, file)) return &f;
    return nullptr;
  }
};

// Applies the edits in memory. A seq_cst fence needs <stdatomic.h>: each
// edited file that does not include it gets the include as its first line
// (harmless twice, so a header stays self-contained). Returns why not ("" when done).
std::string editSources(const FenceFixInput& in, const std::vector<FenceEdit>& edits, EditedSources& out) {
  const bool c11 = in.style.empty() || in.style == "seq_cst";
  for (const FenceEdit& e : edits) out.files[e.file].edits.push_back(e);
  out.mainText = in.source;
  std::vector<std::string> order;
  for (const FenceEdit& e : edits)
    if (std::find(order.begin(), order.end(), e.file) == order.end()) order.push_back(e.file);
  for (const std::string& file : order) {
    EditedFile& f = out.files[file];
    const bool isMain = sameFile(file, in.path);
    if (isMain) {
      f.original = in.source;
    } else if (std::string why; std::optional<std::string> text = readSourceFile(file, &why)) {
      f.original = std::move(*text);
    } else {
      return "cannot read " + file + " (it " + why + ")";
    }
    std::sort(f.edits.begin(), f.edits.end(), [](const FenceEdit& a, const FenceEdit& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    const bool inserts = std::any_of(f.edits.begin(), f.edits.end(), [](const FenceEdit& e) { return !e.isUpgrade(); });
    f.needInclude = c11 && inserts && !includesStdatomic(f.original);
    std::string edited = applyFenceEdits(f.original, file, f.edits);
    if (f.needInclude) {
      edited = "#include <stdatomic.h>\n" + edited;
      out.includeIn.push_back(std::filesystem::path(file).filename().string());
    }
    (isMain ? out.mainText : out.others[file]) = std::move(edited);
  }
  return "";
}

// Lowers the edited sources together into `p` (entry: the check rep names).
// Returns why not ("" when done).
std::string lowerEdited(const CheckReport& rep, const FenceFixInput& in, const EditedSources& src, Program& p) {
  frontend::FrontendResult low = frontend::lowerSources(in.path, src.mainText, src.others, in.lowering);
  if (!low.ok) {
    std::string failure = "the edited source does not lower";
    for (const auto& d : low.diagnostics)
      if (d.severity == "error") return failure + " (" + d.message + ")";
    return failure;
  }
  size_t idx = low.module.checks.size();
  for (size_t i = 0; i < low.module.checks.size(); ++i)
    if (low.module.checks[i].name == rep.function) idx = i;
  if (idx == low.module.checks.size()) return "the edited source has no check " + rep.function;
  p = low.module.program;
  p.entry = low.module.entryOf[idx];
  return "";
}

// Re-checks the lowered edited source `p` into `r`. Returns why it did not
// finish ("" when it did).
std::string recheckEdited(const FenceFixInput& in, const Program& p, bool robustGoal, double secondsForRecheck,
                          CheckResult& r, bool races = false) {
  if (secondsForRecheck <= 0) return "the fence time limit was reached before the edited source was re-checked";
  CheckOptions co = in.options;
  co.stopAtFirstError = true;
  co.onExecution = nullptr;
  co.robustness = robustGoal;
  // Fences do not change data races; stronger orders may (they add happens-before).
  co.raceCheck = races && in.options.raceCheck;
  if (std::isfinite(secondsForRecheck))
    co.timeLimitSeconds = co.timeLimitSeconds > 0 ? std::min(co.timeLimitSeconds, secondsForRecheck) : secondsForRecheck;
  r = check(p, co);
  if (r.status == Status::Timeout && secondsLeft(co.limits) > 0 && std::isfinite(secondsForRecheck))
    return "the fence time limit was reached before the re-check of the edited source finished";
  return "";
}

// The note that says what the validated fences do.
std::string validatedNote(const CheckReport& rep, const CheckResult& r, const EditedSources& src, size_t fences,
                          bool robustGoal, bool same, const std::string& remains, const std::string& found) {
  const std::string model = modelName(rep.model);
  return countText(fences, "fence") + (robustGoal || remains.empty() ? " make" : " remove") +
         (fences == 1 ? "s" : "") +
         (robustGoal        ? " this check robust under " + model
          : remains.empty() ? " this check pass under " + model
                            : " the errors SC does not have under " + model + "; the " + remains +
                                  " also occurs under SC and stays") +
         " (" + found +
         (same ? "; the edited source lowers to the fenced program that check passed: "
               : "; re-checked on the edited source: ") +
         statusName(r.status) + ")" + includeNote(fences, src.includeIn, src.files.size() > 1) +
         (robustGoal && r.robustness && !r.robustness->complete
              ? "; within the check's bounds only: " + r.robustness->message
              : std::string());
}

// Lowers and re-checks the edited source. Returns why it does not do what
// the fences promise ("" when it does, with rep.fenceNote saying so). When
// the edited source lowers to exactly the fenced program a re-check already
// passed (`passed`, fences `fences`), that check answers for it.
std::string validateEdits(CheckReport& rep, const FenceFixInput& in, const FenceSynthesisResult& syn,
                          const std::vector<FencePosition>& fences, const CheckResult& passed,
                          const std::vector<FenceEdit>& edits, bool robustGoal, double secondsForRecheck,
                          const std::string& found) {
  // Every file with an edit, the checked one included, is edited in memory
  // and the whole set is re-lowered together.
  EditedSources src;
  if (std::string why = editSources(in, edits, src); !why.empty()) return why;
  if (secondsLeft(in.options.limits) <= 0)
    return "the check's time limit was reached before the edited source was re-checked";
  Program p;
  if (std::string why = lowerEdited(rep, in, src, p); !why.empty()) return why;
  const bool same = sameProgram(p, insertFences(*in.program, fences));
  CheckResult r;
  if (same) {
    r = passed;
  } else if (std::string why = recheckEdited(in, p, robustGoal, secondsForRecheck, r); !why.empty()) {
    return why;
  }
  // What remains must be errors SC has too (syn.scCheck), located in the
  // original source (the passed check ran on the original's locations).
  const Program& where = same ? *in.program : p;
  auto underSc = [&](const Violation& v) {
    const std::string file = v.loc.file < where.files.size() ? where.files[v.loc.file] : std::string();
    const EditedFile* ef = same ? nullptr : src.editedFile(file);
    const SourceLoc at = ef ? originalLoc(v.loc, *ef) : v.loc;
    for (const Violation& o : syn.scCheck.violations) {
      if (o.kind != v.kind) continue;
      if (isHang(v.kind)) return true;
      const std::string of = o.loc.file < in.program->files.size() ? in.program->files[o.loc.file] : std::string();
      if (sameFile(of, file) && o.loc.line == at.line && o.loc.column == at.column) return true;
    }
    return false;
  };
  const Violation* left = nullptr;
  for (const Violation& v : r.violations)
    if (!v.warning && !underSc(v) && !left) left = &v;
  std::string remains;  // errors SC has too, still there after the fences
  for (const Violation& v : r.violations)
    if (!v.warning && underSc(v)) remains += (remains.empty() ? "" : ", ") + std::string(errorKindName(v.kind));
  if (r.status == Status::Timeout && secondsLeft(in.options.limits) <= 0)
    return "the check's time limit was reached before the re-check of the edited source finished";
  if (r.status == Status::Error || r.status == Status::Timeout || left)
    return std::string("the edited source still gives ") + statusName(r.status) +
           (left ? " (" + left->message + ")" : std::string());
  if (robustGoal && (!r.robustness || !r.robustness->robust)) return "the edited source is still not robust";
  rep.fenceNote = validatedNote(rep, r, src, edits.size(), robustGoal, same, remains, found);
  return "";
}

}  // namespace

void addFenceFix(CheckReport& rep, const FenceFixInput& in) {
  // The goal: make the check pass; or, for a check that passes but is not
  // robust (robustness asked for), make it robust.
  const RobustnessResult* rb = rep.result.robustness ? &*rep.result.robustness : nullptr;
  const bool robustGoal = rep.result.status != Status::Violation && in.options.robustness && rb && !rb->robust;
  if ((rep.result.status != Status::Violation && !robustGoal) || !MemoryModel{rep.model}.hasStoreBuffers() || !in.program || !in.module)
    return;
  const std::string text = fenceText(in.style).value_or(*fenceText(""));
  const auto start = std::chrono::steady_clock::now();
  auto spent = [&]() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  CheckReport::FenceSynthesis info;
  info.budgetSeconds = in.budgetSeconds;
  auto done = [&]() {
    info.seconds = spent();
    rep.fenceSynthesis = std::move(info);
  };

  // The check's time limit covers synthesis and the re-check too; the fence
  // time limit covers both on its own.
  const double left = secondsLeft(in.options.limits);
  if (left <= 0) {
    rep.fenceNote = "fence synthesis skipped: the check's time limit was reached";
    return;
  }
  const double budget = in.budgetSeconds > 0 ? in.budgetSeconds : std::numeric_limits<double>::infinity();
  FenceSynthesisOptions fo;
  fo.timeBudgetSeconds = std::min(budget, left);
  if (in.options.timeLimitSeconds > 0) fo.timeBudgetSeconds = std::min(fo.timeBudgetSeconds, in.options.timeLimitSeconds);
  fo.onRound = in.onRound;
  FenceSynthesisResult syn = synthesizeFences(*in.program, in.options, in.reuseResult ? &rep.result : nullptr, fo);
  info.rounds = syn.rounds;
  info.outcome = fenceOutcomeName(syn.outcome);
  info.seedFences = syn.seedFences;
  // Stopped by the fence time limit (not by the check's own, which is the
  // verdict's business).
  const bool byFenceLimit = syn.outOfTime && in.budgetSeconds > 0 && budget <= left + 1e-9;
  info.stopped = byFenceLimit;
  const std::string limitText = "the fence time limit (" + durationText(in.budgetSeconds * 1000) + ", fence-time-limit)";
  if (syn.outcome == FenceOutcome::ScViolation) {
    rep.fenceNote = "the violation also occurs under SC: no fence can fix it";
    return done();
  }
  const bool fixed = syn.outcome == FenceOutcome::Fixed;
  const std::vector<FencePosition>& offer = fixed ? syn.fences : syn.correct;
  if (offer.empty()) {
    // No correct set: say how far it got, never offer a fix.
    std::string why;
    if (!syn.partial.empty()) {
      std::string dummy;
      if (auto p = statementEdits(syn.partial, in, text, &dummy)) info.partial = std::move(*p);
    }
    std::string partial;
    for (const FenceEdit& e : info.partial)
      partial += (partial.empty() ? "" : ", ") + std::filesystem::path(e.file).filename().string() + ":" +
                 std::to_string(e.line) + ":" + std::to_string(e.column);
    // Stopped by a limit: which one, and how far it got; else why it gave up.
    const std::string stoppedBy = byFenceLimit      ? limitText
                                  : syn.outOfTime ? std::string("the check's time limit (--time-limit)")
                                                  : std::string();
    const std::string lastTried =
        partial.empty() ? std::string()
                        : "; the last set tried (" + countText(info.partial.size(), "fence") + " after " + partial +
                              (stoppedBy.empty() ? ") is not enough" : ") was not shown to be enough");
    rep.fenceNote = !stoppedBy.empty() ? "fence synthesis stopped: " + stoppedBy + " ran out after " +
                                             countText(size_t(syn.rounds), "round") + ", before any fence set passed" +
                                             lastTried + "; the verdict above stands"
                                       : syn.message + lastTried;  // "synthesis gave up: ..."
    return done();
  }
  std::optional<std::vector<FenceEdit>> edits = statementEdits(offer, in, text, &rep.fenceNote);
  if (!edits) {
    rep.fencesVerified = false;
    return done();
  }
  const bool minimal = fixed && syn.minimal;
  std::string found = "found in " + countText(size_t(syn.rounds), "round");
  if (!fixed)
    found += byFenceLimit ? "; not known to be the fewest: " + limitText + " ended the search for fewer"
                          : "; not known to be the fewest: " + syn.message;
  else if (!syn.minimal)
    found += "; not known to be the fewest: the hitting-set search was cut short";
  // Validate on the source: the edited text must lower and the check pass.
  const double forRecheck = std::isfinite(budget) ? budget - spent() : budget;
  const std::string failure =
      validateEdits(rep, in, syn, offer, syn.passedCheck, *edits, robustGoal, forRecheck, found);
  if (!failure.empty()) {
    std::string where;
    for (const FenceEdit& e : *edits)
      where += (where.empty() ? "" : ", ") +
               (sameFile(e.file, in.path) ? std::string() : std::filesystem::path(e.file).filename().string() + ":") +
               std::to_string(e.line) + ":" + std::to_string(e.column);
    rep.fenceNote = "fence synthesis found " + countText(offer.size(), "fence") + " for the program, but placing " +
                    (edits->size() == 1 ? "it" : "them") + " after the statements ending at " + where + ": " + failure +
                    "; no fix offered";
    rep.fencesVerified = false;
    return done();
  }
  info.minimal = minimal;
  rep.fences = std::move(*edits);
  rep.fencesVerified = true;
  done();
}

// ---- memory-order upgrades (RC11) --------------------------------------------

namespace {

const char* kOrderTokens[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};

// "memory_order_acquire" or, for the GCC builtins' spelling, "__ATOMIC_ACQUIRE".
std::string orderToken(MemOrder o, bool builtin) {
  std::string name = kOrderTokens[std::min<size_t>(size_t(o), 4)];
  if (!builtin) return "memory_order_" + name;
  for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  return "__ATOMIC_" + name;
}

// Whether `t` is a literal memory order (either spelling, consume included).
bool isOrderToken(const std::string& t, bool* builtin) {
  for (bool b : {false, true}) {
    for (int o = 0; o < 5; ++o)
      if (t == orderToken(MemOrder(o), b)) return *builtin = b, true;
    if (t == (b ? "__ATOMIC_CONSUME" : "memory_order_consume")) return *builtin = b, true;
  }
  return false;
}

// The kind of access a call of `name` is (Op::Nop: not an atomic call that takes an order).
Op atomicCallKind(const std::string& name) {
  auto is = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (name == n) return true;
    return false;
  };
  if (is({"atomic_load_explicit", "__atomic_load_n", "__atomic_load", "__c11_atomic_load"})) return Op::Load;
  if (is({"atomic_store_explicit", "atomic_flag_clear_explicit", "__atomic_store_n", "__atomic_store",
          "__c11_atomic_store", "__atomic_clear"}))
    return Op::Store;
  if (is({"atomic_thread_fence", "__atomic_thread_fence", "__c11_atomic_thread_fence"})) return Op::Fence;
  if (is({"atomic_signal_fence", "__atomic_signal_fence", "__c11_atomic_signal_fence", "__atomic_always_lock_free",
          "__atomic_is_lock_free", "__c11_atomic_init", "__c11_atomic_is_lock_free"}))
    return Op::Nop;
  const bool explicitC11 = name.rfind("atomic_", 0) == 0 && name.size() > 9 &&
                           name.compare(name.size() - 9, 9, "_explicit") == 0;
  if (explicitC11 || name.rfind("__atomic_", 0) == 0 || name.rfind("__c11_atomic_", 0) == 0) return Op::Rmw;
  return Op::Nop;
}

// The literal order argument of the first `op` call that starts in
// src[begin, end): its offset and text. nullopt and *why when there is none.
struct OrderToken {
  size_t at = 0;
  std::string text;
  bool builtin = false;
};
std::optional<OrderToken> orderTokenIn(const std::string& src, size_t begin, size_t end, Op op, std::string* why) {
  auto identChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  // Skips a comment or a string / character literal at i; returns the index after it (i: none).
  auto skip = [&](size_t i) {
    if (src.compare(i, 2, "//") == 0) return std::min(src.find('\n', i), src.size());
    if (src.compare(i, 2, "/*") == 0) {
      size_t e = src.find("*/", i + 2);
      return e == std::string::npos ? src.size() : e + 2;
    }
    if (src[i] == '"' || src[i] == '\'') {
      size_t k = i + 1;
      while (k < src.size() && src[k] != src[i] && src[k] != '\n') k += src[k] == '\\' ? 2 : 1;
      return std::min(k + 1, src.size());
    }
    return i;
  };
  end = std::min(end, src.size());
  for (size_t i = begin; i < end;) {
    if (size_t j = skip(i); j != i) {
      i = j;
      continue;
    }
    if (!identChar(src[i]) || std::isdigit(static_cast<unsigned char>(src[i])) || (i > 0 && identChar(src[i - 1]))) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < src.size() && identChar(src[e])) ++e;
    const std::string name = src.substr(i, e - i);
    size_t k = e;
    while (k < src.size() && std::isspace(static_cast<unsigned char>(src[k]))) ++k;
    if (atomicCallKind(name) != op || k >= src.size() || src[k] != '(') {
      i = e;
      continue;
    }
    // The arguments at the top level of the call's parentheses.
    std::vector<std::pair<size_t, size_t>> args;
    size_t argBegin = k + 1, depth = 0, q = k + 1;
    bool closed = false;
    while (q < src.size() && !closed) {
      if (size_t j = skip(q); j != q) {
        q = j;
        continue;
      }
      const char c = src[q];
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
      else if (c == ')') args.emplace_back(argBegin, q), closed = true;
      else if (c == ',' && depth == 0) args.emplace_back(argBegin, q), argBegin = q + 1;
      ++q;
    }
    if (!closed || args.size() < 2) break;
    // compare_exchange: the success order (the failure order comes last).
    auto [a, b] = args[name.find("compare_exchange") != std::string::npos ? args.size() - 2 : args.size() - 1];
    while (a < b && std::isspace(static_cast<unsigned char>(src[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(src[b - 1]))) --b;
    OrderToken t{a, src.substr(a, b - a), false};
    if (!isOrderToken(t.text, &t.builtin)) {
      *why = "its order argument `" + t.text + "` is not a memory_order constant";
      return std::nullopt;
    }
    return t;
  }
  *why = std::string("no ") + accessName(op) + " call with a memory order starts there";
  return std::nullopt;
}

// A site's order token in the source, as an edit that keeps it (text == replaces).
struct SiteEdit {
  FenceEdit edit;
  bool builtin = false;
};

}  // namespace

void addOrderFix(CheckReport& rep, const FenceFixInput& in) {
  if (rep.result.status != Status::Violation || !MemoryModel{rep.model}.usesC11Orders() || !in.program || !in.module)
    return;
  const auto start = std::chrono::steady_clock::now();
  auto spent = [&]() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (secondsLeft(in.options.limits) <= 0) {
    rep.fenceNote = "order synthesis skipped: the check's time limit was reached";
    return;
  }
  const Program& prog = *in.program;
  // The sites whose order is a literal in a file the user edits.
  const Violation* v = rep.result.violation ? &*rep.result.violation : nullptr;
  std::vector<OrderSite> sites;
  std::vector<SiteEdit> siteEdits;
  std::map<std::string, std::string> texts;  // by file, read once
  std::map<std::tuple<std::string, uint32_t, uint32_t>, size_t> byToken;
  std::vector<bool> keep;
  for (OrderSite& site : orderSites(prog, v)) {
    const std::string file = site.loc.file < prog.files.size() ? prog.files[site.loc.file] : "";
    std::optional<frontend::StatementSpan> st = statementAt(*in.module, file, site.loc.line, site.loc.column);
    if (!st || st->system) continue;
    if (!texts.count(st->file)) {
      if (sameFile(st->file, in.path)) texts[st->file] = in.source;
      else texts[st->file] = readSourceFile(st->file).value_or("");
    }
    const std::string& src = texts[st->file];
    std::vector<size_t> starts{0};
    for (size_t i = 0; i < src.size(); ++i)
      if (src[i] == '\n') starts.push_back(i + 1);
    if (site.loc.line == 0 || site.loc.line > starts.size() || st->endLine == 0 || st->endLine > starts.size()) continue;
    const size_t from = starts[site.loc.line - 1] + (site.loc.column > 0 ? site.loc.column - 1 : 0);
    const size_t to = starts[st->endLine - 1] + st->endColumn;
    std::string why;
    std::optional<OrderToken> tok = orderTokenIn(src, from, to, site.op, &why);
    if (!tok) continue;
    const uint32_t line = uint32_t(std::upper_bound(starts.begin(), starts.end(), tok->at) - starts.begin());
    const uint32_t column = uint32_t(tok->at - starts[line - 1]);
    // Two sites at one token (two calls under one macro's location): which is which is not known.
    if (auto [it, fresh] = byToken.emplace(std::make_tuple(st->file, line, column), sites.size()); !fresh) {
      keep[it->second] = false;
      continue;
    }
    siteEdits.push_back({FenceEdit{st->file, line, column, tok->text, tok->text, accessName(site.op)}, tok->builtin});
    sites.push_back(std::move(site));
    keep.push_back(true);
  }
  std::vector<OrderSite> editable;
  std::vector<SiteEdit> editableEdits;
  for (size_t i = 0; i < sites.size(); ++i)
    if (keep[i]) editable.push_back(std::move(sites[i])), editableEdits.push_back(std::move(siteEdits[i]));

  OrderFixOptions oo;
  const double budget = in.budgetSeconds > 0 ? in.budgetSeconds : 0;
  oo.timeBudgetSeconds = std::min(budget > 0 ? budget : std::numeric_limits<double>::infinity(),
                                  secondsLeft(in.options.limits));
  if (!std::isfinite(oo.timeBudgetSeconds)) oo.timeBudgetSeconds = 0;
  OrderFixResult syn = synthesizeOrders(prog, in.options, editable, oo);
  CheckReport::FenceSynthesis info;
  info.budgetSeconds = in.budgetSeconds;
  info.rounds = syn.rounds;
  info.outcome = syn.outcome == OrderOutcome::Fixed ? "fixed" : syn.outcome == OrderOutcome::NoFix ? "no-fix" : "gave-up";
  auto done = [&]() {
    info.seconds = spent();
    rep.fenceSynthesis = std::move(info);
  };
  if (!syn.passed) {
    rep.fenceNote = "order upgrades: " + syn.message;
    return done();
  }
  std::vector<FenceEdit> edits;
  for (size_t i = 0; i < syn.sites.size(); ++i) {
    if (syn.rung[i] == 0) continue;
    FenceEdit e = editableEdits[i].edit;
    e.text = orderToken(syn.sites[i].ladder[syn.rung[i]], editableEdits[i].builtin);
    edits.push_back(std::move(e));
  }
  auto rank = [&](const FenceEdit& e) { return std::make_tuple(!sameFile(e.file, in.path), e.file, e.line, e.column); };
  std::sort(edits.begin(), edits.end(), [&](const FenceEdit& a, const FenceEdit& b) { return rank(a) < rank(b); });
  // Re-verify on the edited source: it must lower and pass.
  std::string failure;
  EditedSources src;
  Program p;
  CheckResult r;
  bool same = false;
  if (failure = editSources(in, edits, src); failure.empty() && secondsLeft(in.options.limits) <= 0)
    failure = "the check's time limit was reached before the edited source was re-checked";
  if (failure.empty()) failure = lowerEdited(rep, in, src, p);
  if (failure.empty()) {
    same = sameProgram(p, upgradeOrders(prog, syn.sites, syn.rung));
    const double left = budget > 0 ? budget - spent() : std::numeric_limits<double>::infinity();
    if (same) r = syn.passedCheck;
    else failure = recheckEdited(in, p, false, left, r, true);
  }
  if (failure.empty() && !orderCheckPasses(r))
    failure = std::string("the edited source still gives ") + statusName(r.status) +
              (r.violation ? " (" + r.violation->message + ")" : std::string());
  if (!failure.empty()) {
    rep.fenceNote = "order synthesis found " + countText(edits.size(), "order upgrade") +
                    " for the program, but on the source: " + failure + "; no fix offered";
    rep.fencesVerified = false;
    return done();
  }
  std::string found = "found in " + countText(size_t(syn.rounds), "round");
  if (!syn.minimal) found += "; " + syn.message;
  rep.fenceNote = countText(edits.size(), "order upgrade") + (edits.size() == 1 ? " makes" : " make") +
                  " this check pass under " + modelName(rep.model) + " (" + found +
                  (same ? "; the edited source lowers to the upgraded program that check passed: "
                        : "; re-checked on the edited source: ") +
                  statusName(r.status) + ")";
  info.minimal = syn.minimal;
  rep.fences = std::move(edits);
  rep.fencesVerified = true;
  done();
}

}  // namespace tsocheck

#include "service/check_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include "engine/preemption_rounds.h"
#include "engine/search.h"
#include "engine/state_space.h"
#include "frontend/worker.h"
#include "service/check_options.h"
#include "service/compile_db.h"
#include "service/fence_fix.h"
#include "service/memory_guard.h"
#include "service/safe_io.h"
#include "service/source_paths.h"

namespace tsocheck {

namespace {

// Compile errors (the frontend also reports a missing check function as an
// error diagnostic: that one is not a compile error).
bool hasErrors(const std::vector<frontend::Diagnostic>& ds) {
  for (const auto& d : ds)
    if (d.severity == "error" && d.message.rfind("no check function", 0) != 0) return true;
  return false;
}

CheckReport errorReport(const frontend::CheckFunction& fn, Model model, const std::string& message,
                        std::optional<frontend::Diagnostic> at) {
  CheckReport r;
  r.file = fn.file;
  r.function = fn.name;
  r.line = fn.line;
  r.column = fn.column;
  r.model = model;
  r.result.status = Status::Error;
  r.result.message = message;
  r.errorAt = std::move(at);
  return r;
}

// --buffer-bound A..K: the first k with a violation, or a fixpoint proof, or
// the largest k checked.
void runDeepening(const Program& prog, const CheckOptions& co, int from, CheckReport& rep) {
  DeepeningResult d = deepenBufferBound(prog, co, from, co.bufferBound);
  rep.result = std::move(d.result);
  if (d.violationK) {
    const int k = *d.violationK;
    rep.bufferBound = k;
    rep.bounds.buffer = k;
    // Smaller k passed, unless one of them only hung (the deepening went on).
    const bool smallerHung = d.hangK && *d.hangK < k;
    rep.boundsNote = !co.memoryModel().withBound(k).buffersStores()
                         ? "the violation occurs under sequential consistency (buffer bound 0)"
                         : "needs a store buffer of " + std::to_string(k) + (k == 1 ? " entry" : " entries") +
                               (smallerHung     ? " (k=" + std::to_string(*d.hangK) + " shows only a hang: " +
                                                  errorKindName(rep.result.violations.back().kind) + ")"
                                : k - 1 == from ? " (k=" + std::to_string(from) + " passes)"
                                : k - 1 > from  ? " (k=" + std::to_string(from) + ".." + std::to_string(k - 1) + " pass)"
                                                : "");
    return;
  }
  if (d.largestK >= 0) rep.bounds.buffer = d.largestK;
  if (d.fixpointK) {
    rep.bounds.fixpointK = d.fixpointK;
    rep.bufferBound.reset();  // proven for unbounded buffers
  }
  for (const std::string& l : rep.result.limitsHit)
    if (l.find("(loop bound)") != std::string::npos) rep.bounds.loop = rep.loopBound;
}

}  // namespace

namespace {

std::atomic<bool> keepSpareSetting{false};

using Clock = std::chrono::steady_clock;

// `seconds` after `start` (0 seconds: no deadline).
Clock::time_point deadlineAfter(Clock::time_point start, double seconds) {
  if (!(seconds > 0)) return Clock::time_point::max();
  return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// The frontend's bounds for one lowering: the cancel flag, the memory
// ceiling and, unless the caller sets the check's own deadline, the time
// limit given for the run from now (the annotation is not known before
// parsing).
frontend::FrontendProcess frontendProcess(const RunOptions& opts) {
  frontend::FrontendProcess p;
  p.worker = opts.frontendWorker;
  p.keepSpare = keepSpareSetting;
  p.cancel = opts.cancel;
  p.memoryBytes = opts.memoryLimitMiB.value_or(kDefaultMemoryLimitMiB) << 20;
  if (opts.timeLimit && *opts.timeLimit > 0) {
    p.timeLimitSeconds = *opts.timeLimit;
    p.deadline = deadlineAfter(Clock::now(), *opts.timeLimit);
  }
  return p;
}

std::string& workerSetting() {
  static std::string worker;
  return worker;
}
}  // namespace

void setFrontendWorker(std::string executable) { workerSetting() = std::move(executable); }
const std::string& frontendWorker() { return workerSetting(); }
void keepSpareFrontendWorker(bool on) {
  keepSpareSetting = on;
  if (on && !frontendWorker().empty()) frontend::startSpareWorker(frontendWorker());  // ready for the first file
}

void applyOptions(const OptionValues& v, RunOptions& r) {
  if (v.model) r.model = v.model;
  if (v.bufferBound) {
    r.bufferBound = v.bufferBound;
    r.bufferBoundFrom = v.bufferBoundFrom;
  }
  if (v.stateful) r.stateful = *v.stateful;
  if (v.robustness) r.robustness = *v.robustness;
  if (v.preemptionBound) {
    r.preemptionBound = v.preemptionBound;
    r.preemptionFrom = v.preemptionFrom;
  }
  if (v.loopBound) r.loopBound = v.loopBound;
  if (v.stepLimit) r.limits.maxSteps = *v.stepLimit;
  if (v.timeLimit) r.timeLimit = *v.timeLimit > 0 ? v.timeLimit : std::nullopt;  // 0: no limit
  if (v.fenceTimeLimit) r.fenceTimeLimit = v.fenceTimeLimit;                       // 0: no limit (kept: not the default)
  if (v.memoryLimitMiB) r.memoryLimitMiB = v.memoryLimitMiB;
  if (v.jobs) r.jobs = v.jobs;
  if (v.fences) r.fences = *v.fences;
  if (v.fenceStyle) r.fenceStyle = *v.fenceStyle;
  if (v.deadlocks) r.deadlocks = v.deadlocks;
  if (v.raceCheck) r.raceCheck = v.raceCheck;
  if (v.exitEndsProgram) r.exitEndsProgram = v.exitEndsProgram;
  if (v.abortEnds) r.abortEnds = v.abortEnds;
  if (v.spuriousWakeups) r.spuriousWakeups = v.spuriousWakeups;
  if (v.nondetRange) r.nondetRange = v.nondetRange;
  if (v.keepGoing) r.keepGoing = *v.keepGoing;
  if (v.keepBound) r.keepBound = *v.keepBound;
  if (v.exploreOrder) r.exploreOrder = *v.exploreOrder;
  if (v.mainHarness) r.mainHarness = *v.mainHarness;
  if (v.compileCommandsDir) r.compileCommandsDir = *v.compileCommandsDir;
  if (v.with)
    for (const std::string& f : *v.with) {
      std::error_code ec;
      const std::filesystem::path p = std::filesystem::absolute(f, ec);
      r.with.push_back((ec ? std::filesystem::path(f) : p).lexically_normal().string());
    }
}

namespace {

// Lowering depends on the model (how C11 orders map to fences), on the loop
// bound (it is compiled into the loops), on what abort() is, on the files a
// check's annotation links in (with=) and on whether condition-variable
// waits may wake spuriously: the file is lowered once per combination its
// checks need.
class Lowerings {
 public:
  // model, loop bound, abort() ends the program, the annotation's files (absolute, sorted),
  // spurious wake-ups
  using Key = std::tuple<Model, uint32_t, bool, std::vector<std::string>, bool>;
  Lowerings(const std::string& path, const RunOptions& opts, std::vector<std::string> args, std::string database)
      : path_(path), opts_(opts), args_(std::move(args)), database_(std::move(database)) {}

  // The lowering for `key`, done now if not done yet: within the run's time
  // limit from now, or within `limitSeconds` (0: none) up to `deadline`
  // when a check's own deadline is given.
  frontend::FrontendResult& get(const Key& key, std::optional<Clock::time_point> deadline = std::nullopt,
                                double limitSeconds = 0) {
    auto it = lowered_.find(key);
    if (it != lowered_.end()) return it->second;
    auto t0 = std::chrono::steady_clock::now();
    frontend::FrontendOptions fo = options(key);
    if (deadline) {
      fo.process.deadline = *deadline;
      fo.process.timeLimitSeconds = limitSeconds;
    }
    frontend::FrontendResult res = opts_.contents
                                       ? frontend::lowerSources(path_, *opts_.contents, opts_.otherContents, fo)
                                       : frontend::lowerFile(path_, fo);
    for (const std::string& u : res.module.units)
      if (std::find(units_.begin(), units_.end(), u) == units_.end()) units_.push_back(u);
    ms_[key] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return lowered_.emplace(key, std::move(res)).first->second;
  }
  double ms(const Key& key) const { return ms_.at(key); }
  // The program of `key`'s lowering for check `index`: one copy per lowering,
  // shared by every check and every report (which only read names and
  // locations from it), its entry set to the check's function. Checks of a
  // file run one after another, so setting the entry before each is safe; a
  // copy per check made memory grow with the square of the number of checks.
  std::shared_ptr<const Program> program(const Key& key, size_t index) {
    std::shared_ptr<Program>& p = programs_[key];
    const frontend::LoweredModule& m = get(key).module;
    if (!p) p = std::make_shared<Program>(m.program);
    p->entry = m.entryOf[index];
    return p;
  }
  // How to lower `key` (also how fence fixing lowers the edited source).
  frontend::FrontendOptions options(const Key& key) const {
    frontend::FrontendOptions fo;
    fo.model = std::get<0>(key);
    fo.loopBound = std::get<1>(key);
    fo.abortEnds = std::get<2>(key);
    fo.spuriousWakeups = std::get<4>(key);
    fo.mainHarness = opts_.mainHarness;
    fo.clangArgs = args_;
    for (const std::vector<std::string>* files : {&opts_.with, &std::get<3>(key)})
      for (const std::string& f : *files) fo.with.push_back({f, unitArgs(f)});
    if (!database_.empty()) {
      if (!candidates_) {
        candidates_.emplace();
        for (DatabaseUnit& u : databaseUnits(database_, path_, frontend::kMaxCandidateUnits, &candidatesLeftOut_)) {
          u.args.insert(u.args.end(), opts_.extraClangArgs.begin(), opts_.extraClangArgs.end());
          candidates_->push_back({std::move(u.file), std::move(u.args)});
        }
      }
      fo.candidates = *candidates_;
      fo.candidatesLeftOut = candidatesLeftOut_;
    }
    fo.process = frontendProcess(opts_);
    return fo;
  }
  // Every translation unit linked into a lowering so far.
  const std::vector<std::string>& units() const { return units_; }

 private:
  // A linked file's flags: its own compile database entry's, else the checked file's.
  std::vector<std::string> unitArgs(const std::string& file) const {
    CompileFlags own = compileFlagsQuiet(file, opts_.compileCommandsDir);
    if (own.database.empty()) return args_;
    own.args.insert(own.args.end(), opts_.extraClangArgs.begin(), opts_.extraClangArgs.end());
    return own.args;
  }

  const std::string& path_;
  const RunOptions& opts_;
  std::vector<std::string> args_;
  std::string database_;
  mutable std::optional<std::vector<frontend::TranslationUnit>> candidates_;
  mutable size_t candidatesLeftOut_ = 0;
  std::vector<std::string> units_;
  std::map<Key, frontend::FrontendResult> lowered_;
  std::map<Key, double> ms_;
  std::map<Key, std::shared_ptr<Program>> programs_;
};

// The compiler's warnings every check's result carries: -Wuninitialized
// reads, each placed at the read it is about, and compare-exchanges whose
// invalid failure order is checked as the relaxed order Clang emits
// (clang_driver.cpp words it).
std::vector<frontend::Diagnostic> resultWarnings(const std::vector<frontend::Diagnostic>& ds) {
  std::vector<frontend::Diagnostic> out;
  for (size_t k = 0; k < ds.size(); ++k) {
    if (ds[k].severity != "warning") continue;
    if (ds[k].message.find("failure memory order") != std::string::npos) {
      out.push_back(ds[k]);
      continue;
    }
    if (ds[k].message.find("uninitialized") == std::string::npos) continue;
    frontend::Diagnostic w = ds[k];
    // "used uninitialized whenever ...": the note after it says where the read is.
    if (k + 1 < ds.size() && ds[k + 1].severity == "note" &&
        ds[k + 1].message.find("uninitialized use occurs here") != std::string::npos) {
      w.file = ds[k + 1].file;
      w.line = ds[k + 1].line;
      w.column = ds[k + 1].column;
    }
    out.push_back(std::move(w));
  }
  return out;
}

// One check's options once the run's (command line, settings) and its
// annotation's are weighed: the report's fields plus how to search.
struct CheckPlan {
  std::optional<int> deepenFrom;      // --buffer-bound A..K
  std::optional<int> preemptionFrom;  // --preemption-bound A..B
  bool stateful = false;
  bool robustness = false;
  bool robustnessSkipped = false;  // asked for globally, not possible with this check's search
  std::string conflict;            // options that cannot go together ("" = none)
  double timeLimitSeconds = 0;     // 0 = none
  double fenceTimeLimitSeconds = kDefaultFenceTimeLimitSeconds;  // 0 = none
  uint64_t memoryLimitMiB = kDefaultMemoryLimitMiB;
  int jobs = 1;
};

CheckPlan planCheck(const RunOptions& opts, const AnnotationOptions& ann, uint32_t defaultLoopBound,
                    CheckReport& rep) {
  // CLI flags override the annotation; editor settings (annotationWins) are
  // defaults the annotation overrides.
  auto pick = [&](const auto& given, const auto& annotated) {
    if (opts.annotationWins) return annotated ? annotated : given;
    return given ? given : annotated;
  };
  const bool givenBuffer = opts.bufferBound && !(opts.annotationWins && ann.bufferBound);
  const bool givenPreemption = opts.preemptionBound && !(opts.annotationWins && ann.preemptionBound);
  rep.model = opts.forceModel ? *opts.forceModel : pick(opts.model, ann.model).value_or(kDefaultModel);
  rep.bufferBound = givenBuffer ? opts.bufferBound : ann.bufferBound;
  rep.preemptionBound = givenPreemption ? opts.preemptionBound : ann.preemptionBound;
  rep.loopBound = pick(opts.loopBound, ann.loopBound).value_or(defaultLoopBound);
  rep.deadlocks = pick(opts.deadlocks, ann.deadlocks).value_or(DeadlockMode::Error);
  rep.abortEnds = pick(opts.abortEnds, ann.abortEnds).value_or(false);
  rep.spuriousWakeups = pick(opts.spuriousWakeups, ann.spuriousWakeups).value_or(true);
  rep.raceCheck = pick(opts.raceCheck, ann.raceCheck).value_or(true);
  rep.exitEndsProgram = pick(opts.exitEndsProgram, ann.exitEndsProgram).value_or(true);
  rep.nondetRange = pick(opts.nondetRange, ann.nondetRange).value_or(std::pair<int64_t, int64_t>{-1, 1});
  CheckPlan p;
  // Buffer-bound deepening (A..K) and the stateful search: the visited-state
  // table ends loops over finite data, so loops are not bounded unless asked.
  p.deepenFrom = givenBuffer ? opts.bufferBoundFrom : ann.bufferBoundFrom;
  p.stateful = opts.stateful || ann.stateful.value_or(false);
  if ((p.deepenFrom || p.stateful) && !opts.loopBound && !ann.loopBound) rep.loopBound = 0;
  p.preemptionFrom = givenPreemption ? opts.preemptionFrom : ann.preemptionFrom;
  // Robustness needs the graph explorer. Asked for by this check's own
  // annotation together with the stateful search, it is an error; asked for
  // globally (--robustness, the editor setting), a stateful check runs
  // without it and says so.
  p.robustness = opts.robustness || ann.robustness.value_or(false);
  p.robustnessSkipped = p.robustness && !ann.robustness.value_or(false) && (p.deepenFrom || p.stateful);
  if (p.robustnessSkipped) p.robustness = false;
  if ((rep.preemptionBound || p.robustness) && (p.deepenFrom || p.stateful))
    p.conflict = std::string(p.robustness ? "robustness checking" : "a preemption bound") +
                 " works with the graph explorer only; drop it, or drop --stateful / the buffer-bound range";
  // The engine's options.
  p.timeLimitSeconds = pick(opts.timeLimit, ann.timeLimit).value_or(0);
  p.fenceTimeLimitSeconds = pick(opts.fenceTimeLimit, ann.fenceTimeLimit).value_or(kDefaultFenceTimeLimitSeconds);
  p.memoryLimitMiB = pick(opts.memoryLimitMiB, ann.memoryLimitMiB).value_or(kDefaultMemoryLimitMiB);
  // Every core by default (0 says so too); the result does not depend on it.
  p.jobs = int(pick(opts.jobs, ann.jobs).value_or(0));
  if (p.jobs == 0) p.jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  return p;
}
// What the engine runs one check with.
// `start`: when the check's work began (its deadline counts from there).
CheckOptions engineOptions(const RunOptions& opts, const CheckPlan& plan, const CheckReport& rep,
                           Clock::time_point start) {
  CheckOptions co;
  co.model = rep.model;
  co.bufferBound = rep.bufferBound ? *rep.bufferBound : -1;
  co.limits = opts.limits;
  co.limits.nondetLo = rep.nondetRange.first;
  co.limits.nondetHi = rep.nondetRange.second;
  co.stopAtFirstError = !opts.keepGoing;
  if (opts.keepBound) co.boundProbe = 0;
  co.exploreOrder = opts.exploreOrder;
  co.deadlocks = rep.deadlocks;
  co.raceCheck = rep.raceCheck;
  co.exitEndsProgram = rep.exitEndsProgram;
  co.timeLimitSeconds = plan.timeLimitSeconds;
  co.jobs = plan.jobs;
  // The time limit is a hard limit for the whole check: its lowering, the
  // exploration (every round of it), fence synthesis and the re-check of the
  // edited source share one deadline, which the engine also polls inside
  // long executions.
  if (co.timeLimitSeconds > 0) co.limits.deadline = deadlineAfter(start, co.timeLimitSeconds);
  co.limits.stateMemoryBytes = plan.memoryLimitMiB << 20;
  co.cancel = opts.cancel;
  co.onProgress = opts.onProgress;
  co.stateful = plan.stateful;
  co.robustness = plan.robustness;
  co.shard = opts.shard;
  return co;
}

// The files a check's annotation links in (with=), relative to the checked
// file's directory, absolute and sorted.
std::vector<std::string> annotatedUnits(const std::string& path, const AnnotationOptions& ann) {
  std::vector<std::string> out;
  if (!ann.with) return out;
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
  for (const std::string& f : *ann.with) {
    const std::filesystem::path p(f);
    out.push_back((p.is_absolute() ? p : dir / p).lexically_normal().string());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Fence synthesis for a violation (or a check found not robust) under
// TSO/PSO, order upgrades for a violation under RC11: fills rep.fences
// (service/fence_fix.h).
void fixFences(CheckReport& rep, const CheckPlan& plan, const CheckOptions& co, size_t index, const Program& prog,
               const frontend::LoweredModule& module, Lowerings& lowerings, uint32_t defaultLoopBound,
               const std::string& path, const RunOptions& opts) {
  FenceFixInput fi;
  fi.program = &prog;
  fi.options = co;
  // A fenced program is re-checked whole: a search of one piece (merge
  // --fix) only found the counterexample the synthesis starts from.
  fi.options.shard = {};
  fi.module = &module;
  fi.path = path;
  fi.style = opts.fenceStyle;
  fi.budgetSeconds = plan.fenceTimeLimitSeconds;
  if (opts.onFenceRound) fi.onRound = [&](const FenceRound& r) { opts.onFenceRound(rep, r); };
  // Fences fix the violation if there is one (robustness is then reported
  // as found); otherwise they make the check robust.
  fi.options.robustness = rep.result.status != Status::Violation;
  Lowerings::Key key{rep.model, rep.loopBound, rep.abortEnds, annotatedUnits(path, parseAnnotation(rep.annotation)),
                     rep.spuriousWakeups};
  std::shared_ptr<const Program> graphProg;
  if (plan.deepenFrom || plan.stateful) {
    // Fences must fix the bug for unbounded buffers, and the state search
    // with unbounded buffers need not end on a loop that stores (its states
    // grow with the buffers): synthesis re-checks on the graph explorer, with
    // the default loop bound (the state search's lowering has none). Its
    // traces would do (they name each step's event, function and pc); the
    // search they come from would not.
    const Lowerings::Key graphKey{rep.model, defaultLoopBound, rep.abortEnds, std::get<3>(key), rep.spuriousWakeups};
    frontend::FrontendResult& lb = lowerings.get(graphKey, co.limits.deadline, co.timeLimitSeconds);
    if (lb.ok) {
      graphProg = lowerings.program(graphKey, index);
      fi.program = graphProg.get();
      fi.module = &lb.module;
      key = graphKey;
    }
    fi.options.stateful = false;
    fi.options.bufferBound = -1;
    fi.reuseResult = false;
  }
  if (fi.options.preemptionBound >= 0) {
    // Fences must fix every execution, not only those within the bound.
    fi.options.preemptionBound = -1;
    fi.reuseResult = false;
  }
  fi.lowering = lowerings.options(key);
  // The re-check of the edited source shares the check's deadline.
  fi.lowering.process.deadline = co.limits.deadline;
  fi.lowering.process.timeLimitSeconds = co.timeLimitSeconds;
  if (opts.contents) fi.source = *opts.contents;
  else if (std::optional<std::string> text = readSourceFile(path)) fi.source = std::move(*text);
  if (MemoryModel{rep.model}.usesC11Orders()) addOrderFix(rep, fi);
  else addFenceFix(rep, fi);
}

// Runs check `index` of the file (`base` is its default lowering); `start`
// is when the check's work began, the time of the default lowering included
// for the file's first check.
// With onlyIfInstant, a check that would have to run (not reused, no error
// before it runs) is left for later: nullopt.
std::optional<CheckReport> runOneCheck(const frontend::CheckFunction& fn, size_t index,
                                       const frontend::FrontendResult& base, Lowerings& lowerings,
                                       uint32_t defaultLoopBound, const std::string& path, const RunOptions& opts,
                                       Clock::time_point start, bool onlyIfInstant) {
  const AnnotationOptions ann = parseAnnotation(fn.annotation);
  CheckReport rep;
  const CheckPlan plan = planCheck(opts, ann, defaultLoopBound, rep);
  if (!ann.errors.empty()) {
    frontend::Diagnostic at{fn.file, fn.line, fn.column, "error", "tsocheck annotation: " + ann.errors[0]};
    return errorReport(fn, rep.model, at.message, at);
  }
  rep.warnings = resultWarnings(base.diagnostics);
  rep.file = fn.file;
  rep.function = fn.name;
  rep.annotation = fn.annotation;
  rep.line = fn.line;
  rep.column = fn.column;
  if (!plan.conflict.empty()) {
    frontend::Diagnostic at{fn.file, fn.line, fn.column, "error", plan.conflict};
    CheckReport e = errorReport(fn, rep.model, at.message, at);
    e.preemptionBound = rep.preemptionBound;
    return e;
  }
  const Lowerings::Key key{rep.model, rep.loopBound, rep.abortEnds, annotatedUnits(path, ann), rep.spuriousWakeups};
  frontend::FrontendResult& low =
      lowerings.get(key, deadlineAfter(start, plan.timeLimitSeconds), plan.timeLimitSeconds);
  const std::optional<frontend::Diagnostic> blocked =
      index < low.module.checks.size() ? low.module.checks[index].blockedBy : std::nullopt;
  if ((!low.ok && (low.fileErrors || low.module.checks.empty())) || blocked) {
    // The file parses (checks were found) but some construct this check
    // reaches cannot be lowered (one only other checks reach does not matter).
    std::optional<frontend::Diagnostic> at = blocked;
    for (const auto& d : low.diagnostics)
      if (!at && d.severity == "error") {
        at = d;
        break;
      }
    CheckReport e = errorReport(fn, rep.model, at ? at->message : std::string("the program cannot be lowered"), at);
    e.bufferBound = rep.bufferBound;
    return e;
  }
  rep.lowerMs = lowerings.ms(key);
  const std::shared_ptr<const Program> prog = lowerings.program(key, index);
  rep.program = prog;
  if (opts.reuse && opts.reuse(rep, *prog)) {
    rep.reused = true;
    return rep;
  }
  if (onlyIfInstant) return std::nullopt;
  // The memory limit holds for all the checks together: the guard stops the
  // search (and forwards the caller's cancel flag) when the process passes it.
  // The state searches end themselves at the limit instead (their result is
  // `bounded`): at their own estimate of what they hold, or when the guard
  // says the process passed it (Limits::memoryFull), whichever comes first;
  // for them the guard's stop is a backstop at 1.5x + 64 MiB.
  const uint64_t limitBytes = plan.memoryLimitMiB << 20;
  CheckOptions co = engineOptions(opts, plan, rep, start);
  const bool ownEstimate = plan.deepenFrom || exploresStates(*prog, co);
  MemoryGuard guard(limitBytes, opts.cancel, ownEstimate ? limitBytes + limitBytes / 2 + (uint64_t(64) << 20) : 0);
  co.cancel = guard.stop();
  co.limits.memoryFull = guard.full();
  if (co.shard.count > 0 && (plan.deepenFrom || plan.preemptionFrom)) {
    // (A single preemption bound is refused by chooseSearch.)
    frontend::Diagnostic at{fn.file, fn.line, fn.column, "error",
                            "--shard cannot split this check: deepening over a range of bounds stops at a bound "
                            "only the whole search knows; give one bound"};
    return errorReport(fn, rep.model, at.message, at);
  }
  if (plan.deepenFrom) runDeepening(*prog, co, *plan.deepenFrom, rep);
  else if (rep.preemptionBound) {
    PreemptionRoundsResult p =
        checkPreemptionRounds(*prog, co, plan.preemptionFrom.value_or(*rep.preemptionBound), *rep.preemptionBound);
    rep.result = std::move(p.result);
    rep.preemptionBound = p.bound;
    rep.bounds.preemptions = p.provenBound;
  }
  else rep.result = check(*prog, co);
  if (guard.overLimit() && rep.result.status == Status::Timeout) {
    rep.result.status = Status::Error;
    rep.result.message = memoryLimitText(plan.memoryLimitMiB);
    rep.result.violations.clear();
    releaseFreedMemory();  // what the stopped search freed goes back before the next check
  }
  if (plan.robustnessSkipped && rep.result.status != Status::Error) {
    RobustnessResult rb;  // no witness looked for: not a proof
    rb.complete = false;
    rb.message = "robustness not checked: this check uses the stateful search, which does not check it";
    rep.result.robustness = std::move(rb);
  }
  if (rep.result.status == Status::Error) {
    // Engine-side limitation (e.g. mixed-size accesses): message is "file:line:col: text".
    rep.errorAt = frontend::Diagnostic{fn.file, fn.line, fn.column, "error", rep.result.message};
  }
  const bool nonRobust = rep.result.robustness && !rep.result.robustness->robust;
  // The fix: fences under TSO/PSO, memory-order upgrades under RC11.
  const MemoryModel mm{rep.model};
  if (((rep.result.status == Status::Violation || nonRobust) && mm.hasStoreBuffers()) ||
      (rep.result.status == Status::Violation && mm.usesC11Orders())) {
    if (opts.fences && ann.fences.value_or(true)) {
      if (opts.onVerdict) opts.onVerdict(rep);  // the answer now, the fix when synthesis ends
      fixFences(rep, plan, co, index, *prog, low.module, lowerings, defaultLoopBound, path, opts);
    }
  }
  return rep;
}

// What a run of a file does before its checks: its compile flags and its
// default lowering. It needs nothing from earlier files, so runFiles does it
// ahead, on another thread, while an earlier file is checked.
struct FileStart {
  FileReport report;  // file, compile database; a missing file's input error
  std::vector<std::string> flagWarnings;
  std::optional<Lowerings> lowerings;  // none: the file is missing
  Lowerings::Key defaultKey;           // the run's model, loop bound, abort() and wake-ups
};

FileStart startFile(const std::string& path, const RunOptions& opts) {
  FileStart s;
  s.report.file = path;
  std::error_code ec;
  if (!opts.contents && !std::filesystem::is_regular_file(path, ec)) {
    // What the path is instead (a FIFO or a device is never opened).
    const std::filesystem::file_status st = std::filesystem::status(path, ec);
    s.report.inputError = true;
    s.report.inputMessage = path + (!std::filesystem::exists(st) ? ": no such file"
                                    : std::filesystem::is_directory(st) ? ": is a directory"
                                                                        : ": is not a regular file");
    return s;
  }
  CompileFlags flags = compileFlagsFor(path, opts.compileCommandsDir);
  s.report.compileDatabase = flags.database;
  s.flagWarnings = std::move(flags.warnings);
  std::vector<std::string> args = std::move(flags.args);
  args.insert(args.end(), opts.extraClangArgs.begin(), opts.extraClangArgs.end());
  s.lowerings.emplace(path, opts, std::move(args), s.report.compileDatabase);
  s.defaultKey = {opts.model.value_or(kDefaultModel), opts.loopBound.value_or(frontend::kDefaultLoopBound),
                  opts.abortEnds.value_or(false), {}, opts.spuriousWakeups.value_or(true)};
  s.lowerings->get(s.defaultKey);
  return s;
}

// The order the checks run in: file order, except that the check of the
// last check function of `path` starting at or before line `at` goes first.
std::vector<size_t> checkOrder(const std::vector<frontend::CheckFunction>& checks, const std::string& path,
                               std::optional<uint32_t> at) {
  std::vector<size_t> order(checks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!at) return order;
  std::optional<size_t> near;
  for (size_t i = 0; i < checks.size(); ++i)
    if (checks[i].line <= *at && sameFile(checks[i].file, path) && (!near || checks[i].line >= checks[*near].line))
      near = i;
  if (near) std::rotate(order.begin(), order.begin() + *near, order.begin() + *near + 1);
  return order;
}

FileReport finishFile(const std::string& path, const RunOptions& opts, FileStart s) {
  FileReport fr = std::move(s.report);
  if (!s.lowerings) return fr;
  Lowerings& lowerings = *s.lowerings;
  frontend::FrontendResult& base = lowerings.get(s.defaultKey);
  // A stopped frontend's only diagnostic says why; it becomes the input message.
  if (base.stopped == frontend::FrontendStop::None) fr.diagnostics = base.diagnostics;
  for (const std::string& w : s.flagWarnings)  // a compile_commands.json ignored (also said on stderr)
    fr.diagnostics.push_back({path, 0, 0, "warning", w});
  fr.units = lowerings.units();
  if (opts.onLowered) {
    std::vector<CheckSite> sites;
    for (const frontend::CheckFunction& fn : base.module.checks) {
      CheckReport rep;
      planCheck(opts, parseAnnotation(fn.annotation), std::get<1>(s.defaultKey), rep);
      sites.push_back({fn.name, fn.file, fn.line, fn.column, rep.model});
    }
    opts.onLowered(sites);
  }
  if (base.module.checks.empty()) {
    fr.inputError = true;
    fr.inputMessage = base.stopped != frontend::FrontendStop::None && !base.diagnostics.empty()
                          ? path + ": " + base.diagnostics.front().message
                      : hasErrors(base.diagnostics)
                          ? path + ": the file does not compile"
                          : path + (opts.mainHarness ? ": no check function and no main" : ": no check function") +
                                " (mark one with __attribute__((annotate(\"tsocheck\"))) or TSOCHECK)";
    return fr;
  }
  const std::vector<frontend::CheckFunction> checks = base.module.checks;
  std::vector<std::optional<CheckReport>> reports(checks.size());
  size_t left = checks.size();
  auto runAt = [&](size_t i, Clock::time_point start, bool onlyIfInstant) {
    const frontend::CheckFunction& fn = checks[i];
    try {
      reports[i] = runOneCheck(fn, i, base, lowerings, std::get<1>(s.defaultKey), path, opts, start, onlyIfInstant);
    } catch (const std::bad_alloc&) {  // this check could not run; the others' results stand
      releaseFreedMemory();
      const std::string msg = memoryLimitText(opts.memoryLimitMiB.value_or(kDefaultMemoryLimitMiB));
      reports[i] = errorReport(fn, std::get<0>(s.defaultKey), msg, frontend::Diagnostic{fn.file, fn.line, fn.column, "error", msg});
    }
    // What a large check freed goes back to the system before the next one is watched.
    if (reports[i] && checkWorkBytes() > (opts.memoryLimitMiB.value_or(kDefaultMemoryLimitMiB) << 19)) releaseFreedMemory();
    if (reports[i] && opts.onCheckDone) opts.onCheckDone(*reports[i], --left);
  };
  // With a check to run first, the checks that need no run (cached, or an
  // error before running) are done before it, in file order.
  if (opts.firstCheckAt)
    for (size_t i = 0; i < checks.size(); ++i) runAt(i, Clock::now(), true);
  bool first = true;
  for (size_t i : checkOrder(checks, path, opts.firstCheckAt)) {
    if (reports[i]) continue;
    // One deadline per check from its request to its answer: the first check
    // has waited for the default lowering (done ahead or not).
    Clock::time_point start = Clock::now();
    if (first)
      start -= std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double, std::milli>(lowerings.ms(s.defaultKey)));
    first = false;
    runAt(i, start, false);
  }
  for (std::optional<CheckReport>& r : reports) fr.checks.push_back(std::move(*r));
  fr.units = lowerings.units();
  return fr;
}

}  // namespace

FileReport runFile(const std::string& path, const RunOptions& opts) {
  return finishFile(path, opts, startFile(path, opts));
}

size_t filesLoweredAhead(const RunOptions& opts) {
  if (opts.frontendWorker.empty() || opts.contents) return 0;  // in-process Clang: one lowering at a time
  // (Not beyond the machine's cores whatever --jobs says: each lowering is
  // a worker process with its own memory ceiling.)
  const uint32_t machine = std::max(1u, std::thread::hardware_concurrency());
  return std::min(opts.jobs && *opts.jobs ? *opts.jobs : machine, machine) - 1;
}

void runFiles(const std::vector<std::string>& paths, const RunOptions& opts,
              const std::function<void(FileReport)>& done) {
  const size_t ahead = filesLoweredAhead(opts);
  std::deque<std::future<FileStart>> started;  // paths[i], paths[i + 1], ... (next - i of them)
  size_t next = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    for (; next < paths.size() && next <= i + ahead; ++next)
      started.push_back(std::async(ahead ? std::launch::async : std::launch::deferred, startFile,
                                   std::cref(paths[next]), std::cref(opts)));
    FileStart s = started.front().get();
    started.pop_front();
    done(finishFile(paths[i], opts, std::move(s)));
  }
}

}  // namespace tsocheck

#include "lsp/check_runner.h"

#include <chrono>
#include <filesystem>
#include <map>

#include "lsp/check_options.h"
#include "lsp/compile_db.h"
#include "lsp/preemption_rounds.h"

namespace tsocheck {

namespace {

bool hasErrors(const std::vector<frontend::Diagnostic>& ds) {
  for (const auto& d : ds)
    if (d.severity == "error") return true;
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

}  // namespace

FileReport runFile(const std::string& path, const RunOptions& opts) {
  FileReport fr;
  fr.file = path;
  std::error_code ec;
  if (!opts.contents && !std::filesystem::is_regular_file(path, ec)) {
    fr.inputError = true;
    fr.inputMessage = path + ": no such file";
    return fr;
  }
  CompileFlags flags = compileFlagsFor(path, opts.compileCommandsDir);
  fr.compileDatabase = flags.database;
  std::vector<std::string> args = flags.args;
  args.insert(args.end(), opts.extraClangArgs.begin(), opts.extraClangArgs.end());

  // Lowering depends on the model (how C11 orders map to fences) and on the
  // loop bound (it is compiled into the loops): lower once per pair a check needs.
  using Key = std::pair<Model, uint32_t>;
  std::map<Key, frontend::FrontendResult> lowered;
  std::map<Key, double> lowerMs;
  auto lowerFor = [&](Key key) -> frontend::FrontendResult& {
    auto it = lowered.find(key);
    if (it != lowered.end()) return it->second;
    auto t0 = std::chrono::steady_clock::now();
    frontend::FrontendOptions fo;
    fo.model = key.first;
    fo.loopBound = key.second;
    fo.clangArgs = args;
    frontend::FrontendResult res = opts.contents ? frontend::lowerSource(path, *opts.contents, fo)
                                                 : frontend::lowerFile(path, fo);
    lowerMs[key] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return lowered.emplace(key, std::move(res)).first->second;
  };

  const uint32_t defaultLoopBound = opts.loopBound.value_or(8);
  frontend::FrontendResult& base = lowerFor({opts.model.value_or(Model::TSO), defaultLoopBound});
  fr.diagnostics = base.diagnostics;
  if (base.module.checks.empty()) {
    fr.inputError = true;
    fr.inputMessage = hasErrors(base.diagnostics)
                          ? path + ": the file does not compile"
                          : path + ": no check function (mark one with __attribute__((annotate(\"tsocheck\"))) or TSOCHECK)";
    return fr;
  }

  const std::vector<frontend::CheckFunction> checks = base.module.checks;
  for (size_t i = 0; i < checks.size(); ++i) {
    const frontend::CheckFunction& fn = checks[i];
    AnnotationOptions ann = parseAnnotation(fn.annotation);
    Model model = opts.model ? *opts.model : ann.model.value_or(Model::TSO);
    if (!ann.errors.empty()) {
      frontend::Diagnostic at{fn.file, fn.line, fn.column, "error", "tsocheck annotation: " + ann.errors[0]};
      fr.checks.push_back(errorReport(fn, model, at.message, at));
      continue;
    }
    CheckReport rep;
    rep.file = fn.file;
    rep.function = fn.name;
    rep.line = fn.line;
    rep.column = fn.column;
    rep.model = model;
    rep.bufferBound = opts.bufferBound ? opts.bufferBound : ann.bufferBound;
    rep.preemptionBound = opts.preemptionBound ? opts.preemptionBound : ann.preemptionBound;
    rep.loopBound = opts.loopBound.value_or(ann.loopBound.value_or(defaultLoopBound));
    const std::optional<int> preemptionFrom = opts.preemptionBound ? opts.preemptionFrom : ann.preemptionFrom;
    frontend::FrontendResult& low = lowerFor({model, rep.loopBound});
    if (!low.ok) {
      // The file parses (checks were found) but some construct cannot be lowered.
      std::optional<frontend::Diagnostic> at;
      for (const auto& d : low.diagnostics)
        if (d.severity == "error") {
          at = d;
          break;
        }
      CheckReport e = errorReport(fn, model, at ? at->message : std::string("the program cannot be lowered"), at);
      e.bufferBound = rep.bufferBound;
      fr.checks.push_back(std::move(e));
      continue;
    }
    rep.lowerMs = lowerMs[{model, rep.loopBound}];
    auto prog = std::make_shared<Program>(low.module.program);
    prog->entry = low.module.entryOf[i];
    CheckOptions co;
    co.model = model;
    co.bufferBound = rep.bufferBound ? *rep.bufferBound : -1;
    co.limits = opts.limits;
    co.stopAtFirstError = !opts.keepGoing;
    co.timeLimitSeconds = opts.timeLimit ? *opts.timeLimit : ann.timeLimit.value_or(0);
    rep.result = rep.preemptionBound
                     ? checkPreemptionRounds(*prog, co, preemptionFrom.value_or(*rep.preemptionBound),
                                             *rep.preemptionBound, rep)
                     : check(*prog, co);
    rep.program = prog;
    if (rep.result.status == Status::Error) {
      // Engine-side limitation (e.g. mixed-size accesses): message is "file:line:col: text".
      rep.errorAt = frontend::Diagnostic{fn.file, fn.line, fn.column, "error", rep.result.message};
    }
    fr.checks.push_back(std::move(rep));
  }
  return fr;
}

}  // namespace tsocheck

// The `tsocheck` command: `tsocheck check FILE.c...` (this file), the
// language server (`tsocheck lsp`) and the trace-replay debug adapter
// (`tsocheck dap`).
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "service/check_options.h"
#include "service/check_runner.h"
#include "dap/dap_server.h"
#include "lsp/lsp_server.h"
#include "lsp/lsp_settings.h"
#include "service/fence_fix.h"
#include "service/json_text.h"
#include "service/report_json.h"
#include "service/safe_io.h"
#include "service/shard_merge.h"
#include "service/trace_picture.h"
#include "cli/sarif.h"
#include "cli/text_report.h"
#include "service/report_reader.h"
#include "service/wording.h"

#ifndef TSOCHECK_VERSION
#define TSOCHECK_VERSION "0.0.0"
#endif

using namespace tsocheck;

namespace {

const char* kUsage =
    "usage: tsocheck check FILE.c... [options] [-- CLANG_ARGS...]\n"
    "       tsocheck lsp    (language server over stdio)\n"
    "       tsocheck dap    (debug adapter over stdio: step through a violation's trace)\n"
    "       tsocheck merge SHARD.json... [--format json|text|sarif] [--fix]\n"
    "                       (one report from the shards of a split check; --fix adds the\n"
    "                       fix of each failing check: its counterexample is found again\n"
    "                       here in the one piece it came from, the file must still be the\n"
    "                       shards' program, and the fenced programs are re-checked here,\n"
    "                       whole, within --fence-time-limit S; --jobs N)\n"
    "       tsocheck options --json  (every option's name at each front door, as JSON)\n"
    "\n"
    "Checks every function marked __attribute__((annotate(\"tsocheck\"))) (or TSOCHECK\n"
    "from <tsocheck.h>) under a memory model, exploring every interleaving and\n"
    "store-buffer reordering the model allows.\n"
    "\n"
    "options:\n"
    "  --model sc|tso|pso|rc11   memory model (default: tso, or the annotation's model=)\n"
    "  --model sc,tso,pso,rc11   each check under each model listed, then a line per\n"
    "                            check: where it breaks (SC \u2713  TSO \u2717 ...; JSON \"models\")\n"
    "  --buffer-bound K          at most K pending stores per thread (0 = SC)\n"
    "  --buffer-bound A..K       deepening: k = A..K, stop at the first violation; verified\n"
    "                            when the reachable states reach a fixpoint (any buffer size)\n"
    "  --stateful                explicit-state search with a visited-state table\n"
    "  --robustness              also report an execution the model allows and SC does not\n"
    "                            (a warning with its trace, even without a failing assert)\n"
    "  --preemption-bound P      every execution with at most P preemptions (plus slack);\n"
    "                            A..B: bounds A, A+1, ... B in turn, stop at the first violation\n"
    "  --loop-bound N            iterations of loops that wait on other threads (default 8)\n"
    "  --step-limit N            instructions per thread per execution (default 200000)\n"
    "  --time-limit SECONDS      per check (0: none); also bounds the compiler (Clang) phase\n"
    "  --memory-limit MIB        memory ceiling (default 512): the compiler phase runs in a\n"
    "                            separate process stopped above it; --stateful and deepening\n"
    "                            searches stop at it (`bounded`, \"state memory limit\")\n"
    "  --jobs N                  worker threads for the exploration (default: every core;\n"
    "                            the result is the same with any number); given several\n"
    "                            files, also how many are compiled at once (at most one\n"
    "                            per core)\n"
    "  --no-fences               no fence synthesis after a TSO/PSO violation (nor order\n"
    "                            upgrades after an RC11 one)\n"
    "  --no-race-check           do not report data races on plain (non-atomic,\n"
    "                            non-volatile) accesses (a warning by default)\n"
    "  --no-exit-ends-program    threads still running when the harness returns (or a\n"
    "                            thread calls exit()) run on; default: the program ends\n"
    "                            there, as in C (waiting threads are no deadlock)\n"
    "  --no-spurious-wakeups     pthread_cond_wait / cnd_wait return only after a signal\n"
    "                            or broadcast made while they waited; default: they may\n"
    "                            also return without one, as POSIX allows\n"
    "  --fence-style S           seq_cst (default: atomic_thread_fence(memory_order_seq_cst);),\n"
    "                            sync (__sync_synchronize();) or mfence (asm volatile)\n"
    "  --deadlocks MODE          deadlocks and non-termination (threads spinning forever):\n"
    "                            error (default), warning (reported, exit 0) or ignore;\n"
    "                            either way the search goes on looking for assertion and\n"
    "                            memory errors after one\n"
    "  --abort error|end         abort() is an error (default) or ends the program without\n"
    "                            one (the benchmarks' convention: only reach_error() is)\n"
    "  --nondet-range A..B       values of __VERIFIER_nondet_int() and the other typed\n"
    "                            nondet inputs, within each type (default -1..1; a type with\n"
    "                            values outside it makes the result `bounded`)\n"
    "  --main                    also check the file's main(void) / main(int, char**) as a\n"
    "                            harness (argc = 1, argv = {\"prog\", NULL})\n"
    "  --explore-order O         forward (default), revisits-first or stale-first: which\n"
    "                            executions the search tries first (the set explored and\n"
    "                            the verdict do not change; how soon a violation is\n"
    "                            found, and which, may)\n"
    "  --keep-going              explore every execution after the first violation\n"
    "                            (counts all executions; reports the first violation)\n"
    "  --keep-bound              keep a preemption bound that pruned nothing in its probe\n"
    "                            (its first 200 ended executions; by default the search\n"
    "                            then goes on without it, a full search)\n"
    "  --fence-time-limit SECONDS  fence synthesis after a TSO/PSO violation, per check\n"
    "                            (default 10; 0: none). The verdict and its trace are\n"
    "                            printed first; the fix follows when synthesis ends. When\n"
    "                            the limit ends it, the report says so (rounds done, the\n"
    "                            best set so far); the verdict is never changed\n"
    "  --verbose, -v             progress of fence synthesis on stderr (also when stderr\n"
    "                            is a terminal)\n"
    "  --shard I/N               explore only shard I (0..N-1) of N of each check's\n"
    "                            search (every shard runs the top of the tree, the\n"
    "                            subtrees below the cut are dealt out by a hash of their\n"
    "                            path); with --json, `tsocheck merge` makes the shards'\n"
    "                            reports into the single run's. No fence synthesis in a\n"
    "                            shard: `tsocheck merge --fix` adds it\n"
    "  --shard-depth D           the cut: D branching levels from the root (default 8)\n"
    "  --json                    print one JSON object instead of text\n"
    "  --sarif OUT.sarif         also write SARIF 2.1.0\n"
    "  --html OUT.html           also write a picture of each violation's interleaving (one\n"
    "                            self-contained page: a lane per thread, store buffers,\n"
    "                            reads and the writes they read); with --sarif, each result\n"
    "                            links to it\n"
    "  --compile-commands-dir D  use D/compile_commands.json (default: search upward)\n"
    "  --with FILE.c             link FILE.c into the program (repeatable; annotation\n"
    "                            with=FILE.c, relative to the checked file). With a\n"
    "                            compile database, the files defining what the checked\n"
    "                            file uses are found and linked without it"
    "\n"
    "exit status: 0 no violation, 1 a violation (an error-level problem), 2 usage or input error\n";

// `name` in the directory of this executable (symbolic links resolved).
std::string besideThisExecutable(const char* name) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, size_t(n)) : std::string();
  const size_t slash = dir.rfind('/');
  dir = slash == std::string::npos ? "." : dir.substr(0, slash);
  return dir + "/" + name;
}

int usage(const std::string& msg) {
  std::fprintf(stderr, "tsocheck: %s\n\n%s", msg.c_str(), kUsage);
  return 2;
}

// The check's outputs once every file is done: the JSON document on stdout
// (with --json), the --html page and the --sarif log. False when a file
// could not be written (said on stderr).
bool writeOutputs(const std::vector<FileReport>& reports, const std::vector<std::string>& files, bool json,
                  const std::string& htmlPath, const std::string& sarifPath, bool compare) {
  if (json) {
    nlohmann::json out = resultsJson(reports);
    if (compare) out["models"] = modelVerdictsJson(compareModels(reports));
    // The frontend runs in worker processes: the peak is the larger of this
    // process's and the largest worker's.
    struct rusage self {}, workers {};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &workers);
    out["stats"] = {{"peak_rss_kb", std::max(self.ru_maxrss, workers.ru_maxrss)},
                    {"explorer_peak_rss_kb", self.ru_maxrss},
                    {"frontend_peak_rss_kb", workers.ru_maxrss}};
    std::cout << tsocheck::dumpJson(out, 2) << std::endl;  // invalid UTF-8 becomes U+FFFD
  }
  if (!htmlPath.empty()) {
    std::vector<const CheckReport*> checks;
    for (const FileReport& r : reports)
      for (const CheckReport& c : r.checks) checks.push_back(&c);
    std::string title = "tsocheck: ";
    for (size_t i = 0; i < files.size(); ++i) title += (i ? ", " : "") + files[i];
    std::ofstream out(htmlPath);
    if (!(out << picturePage(checks, title))) {
      std::fprintf(stderr, "tsocheck: cannot write %s\n", htmlPath.c_str());
      return false;
    }
  }
  if (!sarifPath.empty()) {
    // The page as the SARIF file's readers find it: relative to its directory.
    std::string pictureUri;
    if (!htmlPath.empty()) {
      namespace fs = std::filesystem;
      std::error_code ec;
      const fs::path base = fs::absolute(sarifPath, ec).parent_path();
      pictureUri = fs::absolute(htmlPath, ec).lexically_relative(base).generic_string();
      if (pictureUri.empty()) pictureUri = htmlPath;
    }
    std::ofstream out(sarifPath);
    if (!(out << tsocheck::dumpJson(sarifLog(reports, TSOCHECK_VERSION, pictureUri), 2) << "\n")) {
      std::fprintf(stderr, "tsocheck: cannot write %s\n", sarifPath.c_str());
      return false;
    }
  }
  return true;
}

int runCheck(int argc, char** argv) {
  std::vector<std::string> files;
  OptionValues given;
  std::vector<std::string> clangArgs;
  bool json = false, verbose = false;
  std::string sarifPath, htmlPath;
  std::vector<Model> models;  // --model A,B,...: each check under each of them
  CheckOptions::Shard shard;
  std::optional<uint32_t> shardDepth;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.rfind("--", 0) == 0 ? a.find('=') : std::string::npos;
    const std::string key = a.substr(0, eq);
    // The value after `=` or in the next argument.
    auto value = [&](std::string* out) {
      if (eq != std::string::npos) *out = a.substr(eq + 1);
      else if (i + 1 < argc) *out = argv[++i];
      else return false;
      return true;
    };
    std::string v;
    bool negated = false;
    if (a == "--") {
      clangArgs.assign(argv + i + 1, argv + argc);
      break;
    } else if (key == "--model" && (eq != std::string::npos ? a.substr(eq + 1) : std::string(i + 1 < argc ? argv[i + 1] : ""))
                                           .find(',') != std::string::npos) {
      value(&v);
      models.clear();
      for (size_t from = 0; from <= v.size();) {
        const size_t comma = std::min(v.find(',', from), v.size());
        const std::optional<Model> m = parseModel(v.substr(from, comma - from));
        if (!m) return usage("--model takes sc, tso, pso or rc11, or a list of them (sc,tso,pso,rc11), not `" + v + "`");
        if (std::find(models.begin(), models.end(), *m) == models.end()) models.push_back(*m);
        from = comma + 1;
      }
    } else if (const OptionSpec* o = findOption(Door::CommandLine, key, &negated)) {
      if (negated && eq != std::string::npos) return usage(key + " takes no value");
      if (isSwitch(*o) && eq == std::string::npos) v = negated ? "false" : "true";
      else if (!value(&v)) return usage(key + " needs a value");
      if (std::string err = setOption(*o, Door::CommandLine, v, given); !err.empty()) return usage(err);
    } else if (key == "--json") {
      json = true;
    } else if (key == "--shard") {
      unsigned long long idx = 0, cnt = 0;
      char tail = 0;
      if (!value(&v) || std::sscanf(v.c_str(), "%llu/%llu%c", &idx, &cnt, &tail) != 2 || cnt == 0 || idx >= cnt ||
          cnt > 1u << 20)
        return usage("--shard needs INDEX/COUNT with 0 <= INDEX < COUNT (e.g. --shard 0/4)");
      shard.index = uint32_t(idx);
      shard.count = uint32_t(cnt);
    } else if (key == "--shard-depth") {
      unsigned long long d = 0;
      char tail = 0;
      if (!value(&v) || std::sscanf(v.c_str(), "%llu%c", &d, &tail) != 1 || d < 1 || d > 1000)
        return usage("--shard-depth needs a number of branching levels from 1 to 1000");
      shardDepth = uint32_t(d);
    } else if (a == "--verbose" || a == "-v") {
      verbose = true;
    } else if (key == "--sarif") {
      if (!value(&sarifPath)) return usage("--sarif needs a file name");
    } else if (key == "--html") {
      if (!value(&htmlPath) || htmlPath.empty()) return usage("--html needs a file name");
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a.rfind("-", 0) == 0) {
      return usage("unknown option " + a);
    } else {
      files.push_back(a);
    }
  }
  RunOptions opts;
  applyOptions(given, opts);
  opts.extraClangArgs = std::move(clangArgs);
  if (files.empty()) return usage("no input file");
  if (shardDepth && shard.count == 0) return usage("--shard-depth needs --shard");
  if (models.size() > 1 && shard.count > 0) return usage("--shard splits the check under one model: give one --model");
  if (models.size() == 1) opts.model = models[0];
  if (shard.count > 0) {
    shard.depth = shardDepth.value_or(kDefaultShardDepth);
    opts.shard = shard;
    opts.fences = false;  // a fix needs the whole search: tsocheck merge --fix
  }

  // Text: each check's verdict and trace as soon as the exploration has them,
  // its fix when fence synthesis ends (JSON and SARIF stay one document).
  std::string earlyKey;
  if (!json) {
    opts.onVerdict = [&](const CheckReport& c) {
      std::cout << checkVerdictText(c) << std::flush;
      earlyKey = c.file + "\n" + c.function;
    };
    opts.onCheckDone = [&](const CheckReport& c, size_t) {
      const bool out = earlyKey == c.file + "\n" + c.function;
      earlyKey.clear();
      std::cout << (out ? std::string() : checkVerdictText(c)) << checkFixText(c) << std::flush;
    };
  }
  if (verbose || isatty(2)) {
    opts.onFenceRound = [](const CheckReport& c, const FenceRound& r) {
      std::fprintf(stderr, "tsocheck: %s: %s\n", c.function.c_str(), fenceRoundText(r).c_str());
    };
  }
  std::vector<FileReport> reports;
  bool violation = false, inputError = false;
  const bool compare = models.size() > 1;
  if (!compare) models = {opts.model.value_or(kDefaultModel)};
  for (Model m : models) {
    if (compare) opts.model = m;  // as --model m: it wins over the annotation
    // (The next files are lowered meanwhile on the spare cores: runFiles.)
    runFiles(files, opts, [&](FileReport r) {
      if (shard.count > 0) stampShard(r, given, opts.extraClangArgs, shard, TSOCHECK_VERSION);
      if (r.inputError) inputError = true;
      for (const CheckReport& c : r.checks) {
        if (c.result.status == Status::Violation) violation = true;
        if (c.result.status == Status::Error) inputError = true;
      }
      if (!json && r.inputError) std::cerr << textReport(r) << std::flush;  // the checks are out already
      reports.push_back(std::move(r));
    });
  }
  if (compare && !json) {
    std::cout << "\nunder each model:\n";
    for (const ModelVerdicts& row : compareModels(reports))
      std::cout << "  " << row.file << ":" << row.line << " " << row.function << ": " << modelVerdictsText(row) << "\n";
    std::cout << std::flush;
  }
  if (!writeOutputs(reports, files, json, htmlPath, sarifPath, compare)) return 2;
  if (violation) return 1;
  return inputError ? 2 : 0;
}

// `tsocheck merge SHARD.json... [--format json|text|sarif] [--fix
// [--fence-time-limit S] [--jobs N]]`.
int runMerge(int argc, char** argv) {
  std::string format = "json";
  bool fix = false;
  OptionValues overrides;  // --fix: what the fix may run with other than the shards' options
  std::vector<std::pair<std::string, nlohmann::json>> docs;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.rfind("--", 0) == 0 ? a.find('=') : std::string::npos;
    const std::string key = a.substr(0, eq);
    if (a == "--fix") {
      fix = true;
    } else if (key == "--fence-time-limit" || key == "--jobs") {
      std::string v;
      if (eq != std::string::npos) v = a.substr(eq + 1);
      else if (i + 1 < argc) v = argv[++i];
      else return usage(key + " needs a value");
      if (std::string err = setOption(*findOption(Door::CommandLine, key), Door::CommandLine, v, overrides);
          !err.empty())
        return usage(err);
    } else if (a == "--format" || a.rfind("--format=", 0) == 0) {
      if (a == "--format" && i + 1 >= argc) return usage("--format needs json, text or sarif");
      format = a == "--format" ? argv[++i] : a.substr(9);
      if (format != "json" && format != "text" && format != "sarif")
        return usage("--format needs json, text or sarif, not `" + format + "`");
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a.rfind("-", 0) == 0) {
      return usage("unknown option " + a + " for merge");
    } else {
      std::string why;
      std::optional<std::string> text = readRegularFile(a, size_t(1) << 30, &why);
      if (!text) {
        std::fprintf(stderr, "tsocheck: %s %s\n", a.c_str(), why.c_str());
        return 2;
      }
      std::optional<nlohmann::json> j = parseJsonText(*text, &why);
      if (!j) {
        std::fprintf(stderr, "tsocheck: %s: not JSON (%s)\n", a.c_str(), why.c_str());
        return 2;
      }
      docs.emplace_back(a, std::move(*j));
    }
  }
  if (docs.empty()) return usage("merge needs the shards' JSON reports");
  if (!fix && (overrides.fenceTimeLimit || overrides.jobs)) return usage("--fence-time-limit and --jobs need --fix");
  nlohmann::json merged;
  if (std::string refused = mergeShardReports(docs, &merged); !refused.empty()) {
    std::fprintf(stderr, "tsocheck: merge refused: %s\n", refused.c_str());
    return 2;
  }
  if (fix) {
    auto say = [](const std::string& line) { std::fprintf(stderr, "tsocheck: merge --fix: %s\n", line.c_str()); };
    if (std::string why = fixMergedReport(docs, &merged, overrides, TSOCHECK_VERSION, say); !why.empty()) {
      std::fprintf(stderr, "tsocheck: merge --fix: %s\n", why.c_str());
      return 2;
    }
  }
  std::vector<FileReport> reports = resultsFromJson(merged);
  bool violation = false, error = false;
  for (const FileReport& f : reports) {
    error = error || f.inputError;
    for (const CheckReport& c : f.checks) {
      violation = violation || c.result.status == Status::Violation;
      error = error || c.result.status == Status::Error;
    }
  }
  if (format == "json") std::cout << tsocheck::dumpJson(merged, 2) << std::endl;
  else if (format == "sarif") std::cout << tsocheck::dumpJson(sarifLog(reports, TSOCHECK_VERSION), 2) << std::endl;
  else
    for (const FileReport& f : reports) std::cout << textReport(f);
  if (violation) return 1;
  return error ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Closed standard descriptors would be reused by the next open(); keep 0-2 taken.
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) == -1) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
  if (argc < 2) return usage("missing command");
  std::string cmd = argv[1];
  // Files are lowered by the frontend worker built beside this executable.
  setFrontendWorker(besideThisExecutable("tsocheck-frontend"));
  if (cmd == "check") return runCheck(argc - 2, argv + 2);
  if (cmd == "merge") return runMerge(argc - 2, argv + 2);
  if (cmd == "lsp") return lsp::runServer(TSOCHECK_VERSION);  // LSP over stdio
  if (cmd == "dap") return dap::runAdapter();                  // DAP over stdio
  if (cmd == "options") {  // the option schema as data: editors' lists are tested against it
    if (argc != 3 || std::string(argv[2]) != "--json") {
      std::fprintf(stderr, "usage: tsocheck options --json\n");
      return 2;
    }
    std::printf("%s\n", nlohmann::json{{"options", optionSchemaJson()}, {"server", lsp::serverSettingSchema()}}.dump(2).c_str());
    return 0;
  }
  if (cmd == "--version" || cmd == "version") {
    std::printf("tsocheck %s\n", TSOCHECK_VERSION);
    return 0;
  }
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  return usage("unknown command `" + cmd + "`");
}

// The `tsocheck` command: `tsocheck check FILE.c...` (this file), the
// language server (`tsocheck lsp`) and the trace-replay debug adapter
// (`tsocheck dap`).
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "service/check_options.h"
#include "service/check_runner.h"
#include "dap/dap_server.h"
#include "lsp/lsp_server.h"
#include "service/fence_fix.h"
#include "jsonrpc/json_text.h"
#include "service/report_json.h"
#include "cli/sarif.h"
#include "cli/text_report.h"
#include "frontend/worker.h"

#ifndef TSOCHECK_VERSION
#define TSOCHECK_VERSION "0.0.0"
#endif

using namespace tsocheck;

namespace {

const char* kUsage =
    "usage: tsocheck check FILE.c... [options] [-- CLANG_ARGS...]\n"
    "       tsocheck lsp    (language server over stdio)\n"
    "       tsocheck dap    (debug adapter over stdio: step through a violation's trace)\n"
    "\n"
    "Checks every function marked __attribute__((annotate(\"tsocheck\"))) (or TSOCHECK\n"
    "from <tsocheck.h>) under a memory model, exploring every interleaving and\n"
    "store-buffer reordering the model allows.\n"
    "\n"
    "options:\n"
    "  --model sc|tso|pso        memory model (default: tso, or the annotation's model=)\n"
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
    "  --time-limit SECONDS      per check; also bounds the compiler (Clang) phase\n"
    "  --memory-limit MIB        memory ceiling (default 512): the compiler phase runs in a\n"
    "                            separate process stopped above it; --stateful and deepening\n"
    "                            searches stop at it (`bounded`, \"state memory limit\")\n"
    "  --no-fences               no fence synthesis after a TSO/PSO violation\n"
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
    "                            harness (argc = 1, argv = {\"prog\", NULL}); its threads\n"
    "                            keep running after main returns\n"
    "  --keep-going              explore every execution after the first violation\n"
    "                            (counts all executions; reports the first violation)\n"
    "  --json                    print one JSON object instead of text\n"
    "  --sarif OUT.sarif         also write SARIF 2.1.0\n"
    "  --compile-commands-dir D  use D/compile_commands.json (default: search upward)\n"
    "\n"
    "exit status: 0 no violation, 1 a violation (an error-level problem), 2 usage or input error\n";

int usage(const std::string& msg) {
  std::fprintf(stderr, "tsocheck: %s\n\n%s", msg.c_str(), kUsage);
  return 2;
}

bool parseUInt(const std::string& s, long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (*end != 0 || v < 0) return false;
  *out = v;
  return true;
}

int runCheck(int argc, char** argv) {
  std::vector<std::string> files;
  RunOptions opts;
  bool json = false;
  std::string sarifPath;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* out) {
      auto eq = a.find('=');
      if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
        *out = a.substr(eq + 1);
        a = a.substr(0, eq);
        return true;
      }
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string key = a.substr(0, a.find('='));
    std::string v;
    long n = 0;
    if (a == "--") {
      for (++i; i < argc; ++i) opts.extraClangArgs.push_back(argv[i]);
      break;
    } else if (key == "--json") {
      json = true;
    } else if (key == "--no-fences") {
      opts.fences = false;
    } else if (key == "--fence-style") {
      if (!value(&v) || !fenceText(v)) return usage("--fence-style must be seq_cst, sync or mfence");
      opts.fenceStyle = v;
    } else if (key == "--deadlocks") {
      auto m = value(&v) ? parseDeadlockMode(v) : std::nullopt;
      if (!m) return usage("--deadlocks must be error, warning or ignore");
      opts.deadlocks = *m;
    } else if (key == "--abort") {
      if (!value(&v) || (v != "error" && v != "end")) return usage("--abort must be error or end");
      opts.abortEnds = v == "end";
    } else if (key == "--nondet-range") {
      auto r = value(&v) ? parseNondetRange(v) : std::nullopt;
      if (!r) return usage(std::string("--nondet-range needs ") + kNondetRangeHelp + (v.empty() ? "" : ", got `" + v + "`"));
      opts.nondetRange = *r;
    } else if (key == "--main") {
      opts.mainHarness = true;
    } else if (key == "--keep-going") {
      opts.keepGoing = true;
    } else if (key == "--model") {
      if (!value(&v)) return usage("--model needs a value");
      auto m = parseModel(v);
      if (!m) return usage("--model must be sc, tso or pso");
      opts.model = *m;
    } else if (key == "--buffer-bound") {
      if (!value(&v)) return usage("--buffer-bound needs a value");
      auto r = parseBoundRange(v);
      if (!r) return usage("--buffer-bound needs a non-negative integer K or a range A..K with A <= K");
      opts.bufferBound = r->second;
      if (v.find("..") != std::string::npos) opts.bufferBoundFrom = r->first;
      else opts.bufferBoundFrom.reset();
    } else if (key == "--stateful") {
      opts.stateful = true;
    } else if (key == "--robustness") {
      opts.robustness = true;
    } else if (key == "--preemption-bound") {
      auto r = value(&v) ? parseBoundRange(v) : std::nullopt;
      if (!r) return usage("--preemption-bound needs P or A..B (non-negative integers, A <= B)");
      opts.preemptionBound = r->second;
      if (v.find("..") != std::string::npos) opts.preemptionFrom = r->first;
    } else if (key == "--loop-bound" || key == "--step-limit") {
      if (!value(&v) || !parseUInt(v, &n)) return usage(key + " needs a non-negative integer");
      if (key == "--loop-bound") opts.loopBound = uint32_t(n);
      else opts.limits.maxSteps = uint64_t(n);
    } else if (key == "--time-limit") {
      if (!value(&v)) return usage("--time-limit needs a value");
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (*end != 0 || d <= 0) return usage("--time-limit needs a positive number of seconds");
      opts.timeLimit = d;
    } else if (key == "--memory-limit") {
      if (!value(&v) || !parseUInt(v, &n) || n < 16 || n > (1L << 22))
        return usage("--memory-limit needs a number of MiB between 16 and 4194304");
      opts.memoryLimitMiB = uint64_t(n);
    } else if (key == "--sarif") {
      if (!value(&sarifPath)) return usage("--sarif needs a file name");
    } else if (key == "--compile-commands-dir") {
      if (!value(&opts.compileCommandsDir)) return usage("--compile-commands-dir needs a directory");
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a.rfind("-", 0) == 0) {
      return usage("unknown option " + a);
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) return usage("no input file");

  std::vector<FileReport> reports;
  bool violation = false, inputError = false;
  for (const std::string& f : files) {
    FileReport r = runFile(f, opts);
    if (r.inputError) inputError = true;
    for (const CheckReport& c : r.checks) {
      if (c.result.status == Status::Violation) violation = true;
      if (c.result.status == Status::Error) inputError = true;
    }
    if (!json) {
      std::string text = textReport(r);
      (r.inputError ? std::cerr : std::cout) << text << std::flush;
    }
    reports.push_back(std::move(r));
  }
  if (json) {
    nlohmann::json out = resultsJson(reports);
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
  if (!sarifPath.empty()) {
    std::ofstream out(sarifPath);
    if (!out) {
      std::fprintf(stderr, "tsocheck: cannot write %s\n", sarifPath.c_str());
      return 2;
    }
    out << tsocheck::dumpJson(sarifLog(reports, TSOCHECK_VERSION), 2) << "\n";
  }
  if (violation) return 1;
  return inputError ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Closed standard descriptors would be reused by the next open(); keep 0-2 taken.
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) == -1) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
  if (argc < 2) return usage("missing command");
  std::string cmd = argv[1];
  // This executable serves the frontend worker processes (`__lower` below).
  setFrontendWorker("/proc/self/exe");
  if (cmd == "check") return runCheck(argc - 2, argv + 2);
  if (cmd == "__lower") {  // the frontend worker process (frontend/worker.h)
    const int rc = frontend::serveLowering();
    std::fflush(nullptr);
    _exit(rc);  // no static destructors: the parent only waits for the exit
  }
  if (cmd == "lsp") return lsp::runServer(TSOCHECK_VERSION);  // LSP over stdio
  if (cmd == "dap") return dap::runAdapter();                  // DAP over stdio
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

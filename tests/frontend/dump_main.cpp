// tsocheck-frontend-dump FILE.c [--model sc|tso|pso] [--ir] [--all] [--trace]
// Lowers FILE.c, optionally prints the engine IR, and checks every check
// function under the model(s). A developer aid for the frontend.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "engine/check.h"
#include "frontend/frontend.h"
#include "frontend/in_process.h"
#include "tests/engine/trace_text.h"

using namespace tsocheck;

static void printIR(const Program& p) {
  for (size_t g = 0; g < p.globals.size(); ++g) {
    const Global& gl = p.globals[g];
    std::printf("global %zu %s @0x%llx size %u elem %u init", g, gl.name.c_str(),
                static_cast<unsigned long long>(gl.addr), gl.size, gl.elemSize);
    for (size_t i = 0; i < gl.init.size() && i < 32; ++i) std::printf(" %02x", gl.init[i]);
    std::printf("\n");
  }
  for (size_t t = 0; t < p.threadLocals.size(); ++t) {
    const ThreadLocal& v = p.threadLocals[t];
    std::printf("thread-local %zu %s %s+0x%llx size %u elem %u init", t, v.name.c_str(),
                v.isPrivate ? "private" : "tls", static_cast<unsigned long long>(v.offset), v.size, v.elemSize);
    for (size_t i = 0; i < v.init.size() && i < 32; ++i) std::printf(" %02x", v.init[i]);
    std::printf("\n");
  }
  for (size_t f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    std::printf("function %zu %s params %u regs %u\n", f, fn.name.c_str(), fn.numParams, fn.numRegs);
    for (size_t pc = 0; pc < fn.code.size(); ++pc) {
      const Instr& in = fn.code[pc];
      std::printf("  %3zu %-10s size=%u sub=%u a=%d b=%d c=%d d=%d imm=%lld imm2=%lld", pc, opName(in.op), in.size,
                  in.sub, in.a, in.b, in.c, in.d, static_cast<long long>(in.imm), static_cast<long long>(in.imm2));
      if (in.op == Op::Call || in.op == Op::CallInd) {
        std::printf(" args(");
        for (uint32_t i = 0; i < in.argCount; ++i) std::printf("%s%d", i ? "," : "", fn.args[in.argBegin + i]);
        std::printf(")");
      }
      if (in.name) std::printf(" name=\"%s\"", p.strings[in.name].c_str());
      std::printf("  @%u:%u\n", in.loc.line, in.loc.column);
    }
  }
}

int main(int argc, char** argv) {
  frontend::lowerInThisProcess();
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.c [--model sc|tso|pso] [--ir] [--all] [--trace]\n", argv[0]);
    return 2;
  }
  std::string file = argv[1];
  std::vector<Model> models = {Model::SC, Model::TSO, Model::PSO};
  bool ir = false, all = false, trace = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ir") ir = true;
    else if (a == "--all") all = true;
    else if (a == "--trace") trace = true;
    else if (a == "--model" && i + 1 < argc) {
      std::string m = argv[++i];
      models = {m == "sc" ? Model::SC : m == "pso" ? Model::PSO : Model::TSO};
    }
  }
  int rc = 0;
  for (Model m : models) {
    frontend::FrontendOptions o;
    o.model = m;
    auto t0 = std::chrono::steady_clock::now();
    frontend::FrontendResult r = frontend::lowerFile(file, o);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& d : r.diagnostics) std::printf("%s\n", frontend::formatDiagnostic(d).c_str());
    if (!r.ok) return 1;
    if (ir && m == models.front()) printIR(r.module.program);
    for (size_t i = 0; i < r.module.checks.size(); ++i) {
      Program p = r.module.program;
      p.entry = r.module.entryOf[i];
      CheckOptions co;
      co.model = m;
      co.stopAtFirstError = !all;
      CheckResult cr = check(p, co);
      std::printf("%s %s: %s  executions=%llu blocked=%llu cut=%llu events=%llu  %.1f ms (lowering %.1f ms)  %s\n",
                  modelName(m), r.module.checks[i].name.c_str(), statusName(cr.status),
                  static_cast<unsigned long long>(cr.executions), static_cast<unsigned long long>(cr.blocked),
                  static_cast<unsigned long long>(cr.cut), static_cast<unsigned long long>(cr.events), cr.elapsedMs, ms,
                  cr.message.c_str());
      for (const auto& l : cr.limitsHit) std::printf("    limit: %s\n", l.c_str());
      if (trace && cr.violation) std::printf("%s", testing::traceText(p, *cr.violation).c_str());
    }
  }
  return rc;
}

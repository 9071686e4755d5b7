// Every samples/*.c states its expected verdict per model in a comment line
//   expect: SC=verified TSO=violation PSO=violation
// (and RC11=... where the sample is about C11 memory orders).
// This test lowers each sample for each model and checks every check
// function against it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "engine/check.h"
#include "frontend/frontend.h"

using namespace tsocheck;
using namespace tsocheck::frontend;

namespace {

std::map<std::string, std::string> expectations(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::map<std::string, std::string> out;
  while (std::getline(in, line)) {
    size_t p = line.find("expect:");
    if (p == std::string::npos) continue;
    std::istringstream ss(line.substr(p + 7));
    std::string item;
    while (ss >> item) {
      size_t eq = item.find('=');
      if (eq != std::string::npos) out[item.substr(0, eq)] = item.substr(eq + 1);
    }
    break;
  }
  return out;
}

}  // namespace

TEST_CASE("samples have their documented verdicts", "[frontend][samples]") {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(TSOCHECK_SAMPLES_DIR))
    if (e.path().extension() == ".c") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  size_t buggy = 0, fixed = 0;
  for (const std::string& file : files) {
    auto expect = expectations(file);
    INFO(file);
    // SC, TSO and PSO always; RC11 where the sample states it.
    REQUIRE(expect.size() >= 3);
    std::vector<Model> models;
    for (auto& [name, verdict] : expect) {
      const std::optional<Model> m = parseModel(name);
      REQUIRE(m);
      models.push_back(*m);
    }
    REQUIRE(std::count(models.begin(), models.end(), Model::RC11) + 3 == ptrdiff_t(models.size()));
    if (file.find("_buggy.c") != std::string::npos) ++buggy;
    if (file.find("_fixed.c") != std::string::npos) {
      ++fixed;
      for (auto& [model, verdict] : expect) CHECK(verdict == "verified");
    }
    for (Model m : models) {
      FrontendOptions o;
      o.model = m;
      FrontendResult r = lowerFile(file, o);
      std::string ds;
      for (const Diagnostic& d : r.diagnostics) ds += formatDiagnostic(d) + "\n";
      INFO(ds);
      REQUIRE(r.ok);
      REQUIRE(!r.module.checks.empty());
      for (size_t i = 0; i < r.module.checks.size(); ++i) {
        Program p = r.module.program;
        p.entry = r.module.entryOf[i];
        CheckOptions co;
        co.model = m;
        co.timeLimitSeconds = 30;
        auto t0 = std::chrono::steady_clock::now();
        CheckResult cr = check(p, co);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        INFO(modelName(m) << " " << r.module.checks[i].name << ": " << statusName(cr.status) << " " << cr.message);
        CHECK(statusName(cr.status) == expect[modelName(m)]);
        CHECK(cr.cut == 0);
        CHECK(s < 10.0);  // well under a second unloaded
      }
    }
  }
  CHECK(buggy >= 10);
  CHECK(fixed >= 10);
}

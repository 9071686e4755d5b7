// Programs of several translation units at the service: the files a
// harness's program was linked from (FileReport::units), unsaved text of a
// linked file (RunOptions::otherContents) taking the place of the file on
// disk, as the language server passes its open buffers, and a result-cache
// key that changes with that text.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "service/check_runner.h"
#include "service/result_cache.h"

using namespace tsocheck;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("a linked file's unsaved text is what the harness is checked with") {
  const fs::path dir = fs::temp_directory_path() / ("tsocheck-units-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(std::string(TSOCHECK_SAMPLES_DIR) + "/project", dir, fs::copy_options::recursive);
  fs::remove_all(dir / "build");
  const std::string harness = (dir / "tests" / "test_spsc.c").string(), lib = (dir / "src" / "spsc.c").string();
  const std::string inc = "-I" + (dir / "include").string();
  {
    std::ofstream db(dir / "compile_commands.json");
    db << nlohmann::json::array({{{"directory", dir.string()}, {"file", lib}, {"command", "cc " + inc + " -c " + lib}},
                                 {{"directory", dir.string()}, {"file", harness}, {"command", "cc " + inc + " -c " + harness}}})
              .dump();
  }
  RunOptions o;
  o.fences = false;
  o.contents = slurp(harness);
  FileReport before = runFile(harness, o);
  REQUIRE(before.checks.size() == 1);
  CHECK(before.checks[0].result.status == Status::Violation);
  REQUIRE(before.units.size() == 1);
  CHECK(before.units[0] == lib);

  std::string fixed = slurp(lib);
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"SPSC_PUBLISH memory_order_relaxed", "SPSC_PUBLISH memory_order_release"},
                                 {"SPSC_OBSERVE memory_order_relaxed", "SPSC_OBSERVE memory_order_acquire"}}) {
    REQUIRE(fixed.find(from) != std::string::npos);
    fixed.replace(fixed.find(from), from.size(), to);
  }
  o.otherContents[lib] = fixed;
  FileReport after = runFile(harness, o);
  REQUIRE(after.checks.size() == 1);
  CHECK(after.checks[0].result.status == Status::Verified);
  // The edit is in functions the harness's threads run (spawned, not
  // called): the result cache's key, the reachable program, tells them apart.
  REQUIRE(before.checks[0].program);
  REQUIRE(after.checks[0].program);
  CHECK(reachableHash(*before.checks[0].program) != reachableHash(*after.checks[0].program));
  fs::remove_all(dir);
}

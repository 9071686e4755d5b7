// The debug adapter's typed arguments (dap/dap_protocol.h).
#include <catch2/catch.hpp>

#include "dap/dap_protocol.h"

using namespace tsocheck;
using namespace tsocheck::dap;
using nlohmann::json;

TEST_CASE("launch arguments: the program, the function, and the check options of the schema") {
  std::string why;
  LaunchArguments a;
  REQUIRE(fromJson({{"program", "sb.c"}, {"function", nullptr}, {"model", "pso"}, {"bufferBound", "0..2"},
                    {"stopOnEntry", false}, {"fences", true}},
                   a, &why));
  CHECK(a.program == "sb.c");
  CHECK(a.function.empty());
  CHECK_FALSE(a.stopOnEntry);
  CHECK(a.options.model == Model::PSO);
  CHECK(a.options.bufferBound == 2);
  CHECK(a.options.bufferBoundFrom == 0);
  CHECK(a.options.fences == true);
  CHECK_FALSE(fromJson(json::object(), a = {}, &why));
  CHECK(why == "launch needs `program`: the path of the C file to check");
  CHECK_FALSE(fromJson({{"program", "sb.c"}, {"model", "arm"}}, a = {}, &why));
  CHECK(why == "model must be \"sc\", \"tso\", \"pso\" or \"rc11\", got \"arm\"");
  CHECK_FALSE(fromJson({{"program", "sb.c"}, {"stopOnEntry", "no"}}, a = {}, &why));
  CHECK(why == "`stopOnEntry` must be true or false");
}

TEST_CASE("request arguments: types checked, missing optional members keep their defaults") {
  std::string why;
  ThreadArguments t;
  REQUIRE(fromJson({{"threadId", 2}}, t, &why));
  CHECK(t.threadId == 2);
  CHECK_FALSE(fromJson({{"threadId", "2"}}, t, &why));
  CHECK(why == "arguments.threadId must be an integer");
  InitializeArguments i;
  REQUIRE(fromJson({{"linesStartAt1", false}}, i, &why));
  CHECK_FALSE(i.linesStartAt1);
  CHECK(i.columnsStartAt1);
  SetBreakpointsArguments b;
  REQUIRE(fromJson({{"breakpoints", json::array({json::object(), json::object()})}}, b, &why));
  CHECK(b.count == 2);
  EvaluateArguments e;
  REQUIRE(fromJson(json::object(), e, &why));
  CHECK(e.expression.empty());
}

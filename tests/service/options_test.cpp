// The option schema (service/check_options.h): one option, four front doors,
// one meaning and one validation.
#include <catch2/catch.hpp>

#include <map>

#include "service/check_options.h"
#include "service/check_runner.h"

using namespace tsocheck;
using nlohmann::json;

namespace {

OptionValues viaText(Door door, const std::string& name, const std::string& text, std::string* err = nullptr) {
  OptionValues v;
  const OptionSpec* o = findOption(door, name);
  REQUIRE(o);
  std::string e = setOption(*o, door, text, v);
  if (err) *err = e;
  else CHECK(e.empty());
  return v;
}

OptionValues viaJson(Door door, const std::string& name, const json& value, std::string* err = nullptr) {
  OptionValues v;
  const OptionSpec* o = findOption(door, name);
  REQUIRE(o);
  std::string e = setOption(*o, door, value, v);
  if (err) *err = e;
  else CHECK(e.empty());
  return v;
}

}  // namespace

TEST_CASE("every option means the same at the command line, in an annotation, in settings and at launch") {
  struct Case {
    const char* key;
    std::string text;
    json value;
  };
  const std::vector<Case> cases = {
      {"model", "pso", "pso"},          {"bufferBound", "0..2", "0..2"},     {"bufferBound", "3", 3},
      {"preemptionBound", "1..3", "1..3"}, {"loopBound", "12", 12},         {"timeLimit", "2.5", 2.5},
      {"memoryLimit", "64", 64},        {"deadlocks", "warning", "warning"}, {"abort", "end", "end"},
      {"nondetRange", "-2..3", "-2..3"}, {"stateful", "true", true},        {"robustness", "false", false},
      {"fences", "false", false},       {"fenceTimeLimit", "2.5", 2.5},      {"fenceTimeLimit", "0", 0},
      {"jobs", "3", 3},                 {"jobs", "0", 0},                    {"spuriousWakeups", "false", false},
  };
  for (const Case& c : cases) {
    INFO(c.key << " = " << c.text);
    const OptionSpec* o = findOption(Door::Settings, c.key);
    REQUIRE(o);
    const json cli = optionsJson(viaText(Door::CommandLine, o->flag, c.text));
    CHECK(cli.size() >= 1);
    CHECK(optionsJson(viaJson(Door::Settings, c.key, c.value)) == cli);
    CHECK(optionsJson(viaJson(Door::Launch, c.key, c.value)) == cli);
    REQUIRE(o->annotation);
    AnnotationOptions ann = parseAnnotation(std::string(o->annotation) + "=" + c.text);
    CHECK(ann.errors.empty());
    CHECK(optionsJson(ann) == cli);
  }
  // A range sets its start; a single bound clears it.
  OptionValues v = viaText(Door::CommandLine, "--buffer-bound", "1..4");
  CHECK(v.bufferBound == 4);
  CHECK(v.bufferBoundFrom == 1);
  CHECK_FALSE(viaJson(Door::Settings, "bufferBound", 4).bufferBoundFrom);
}

TEST_CASE("a bad value is refused with the option's name at that door and what it must be") {
  std::string err;
  viaText(Door::CommandLine, "--deadlocks", "often", &err);
  CHECK(err == "--deadlocks must be error, warning or ignore, got `often`");
  viaText(Door::Annotation, "deadlocks", "often", &err);
  CHECK(err == "deadlocks must be error, warning or ignore, got `often`");
  viaJson(Door::Settings, "deadlocks", "often", &err);
  CHECK(err == "deadlocks must be \"error\", \"warning\" or \"ignore\", got \"often\"");
  viaJson(Door::Launch, "model", "arm", &err);
  CHECK(err == "model must be \"sc\", \"tso\", \"pso\" or \"rc11\", got \"arm\"");
  // JSON types: a switch is a boolean, a count a number.
  viaJson(Door::Settings, "stateful", "yes", &err);
  CHECK(err.find("stateful must be true or false") == 0);
  viaJson(Door::Settings, "loopBound", "8", &err);
  CHECK(err.find("loopBound must be a non-negative integer") == 0);
  viaJson(Door::Settings, "loopBound", -1, &err);
  CHECK(!err.empty());
  viaText(Door::CommandLine, "--memory-limit", "8", &err);
  CHECK(err.find("--memory-limit must be a number of MiB between 16 and") == 0);
  viaText(Door::CommandLine, "--buffer-bound", "3..1", &err);
  CHECK(err.find("--buffer-bound must be K or A..K") == 0);
  // A bad value leaves what was there.
  OptionValues v;
  const OptionSpec* model = findOption(Door::Settings, "model");
  REQUIRE(setOption(*model, Door::Settings, json("sc"), v).empty());
  CHECK(!setOption(*model, Door::Settings, json("arm"), v).empty());
  CHECK(v.model == Model::SC);
  // null unsets.
  CHECK(setOption(*model, Door::Settings, json(nullptr), v).empty());
  CHECK_FALSE(v.model);
}

TEST_CASE("annotations: switches bare or with a value, run-wide options refused, every error reported") {
  AnnotationOptions a = parseAnnotation("stateful robustness=0 fences=off model=sc");
  CHECK(a.errors.empty());
  CHECK(a.stateful == true);
  CHECK(a.robustness == false);
  CHECK(a.fences == false);
  CHECK(a.model == Model::SC);
  a = parseAnnotation("model loop-bound=3 fence_style=sync colour=red");
  REQUIRE(a.errors.size() == 3);
  CHECK(a.errors[0] == "expected key=value, got `model`");
  CHECK(a.loopBound == 3u);  // `-` spelled as `_`
  CHECK(a.errors[1] == "unknown option `fence_style`");  // the fence style is the editor's or the command line's
  CHECK(a.errors[2] == "unknown option `colour`");
}

TEST_CASE("the command line's negations and the schema's names") {
  bool negated = false;
  const OptionSpec* o = findOption(Door::CommandLine, "--no-fences", &negated);
  REQUIRE(o);
  CHECK(negated);
  CHECK(std::string(o->key) == "fences");
  CHECK_FALSE(findOption(Door::Annotation, "compileCommandsDir"));
  CHECK_FALSE(findOption(Door::Annotation, "compile_commands_dir"));  // file-wide
  CHECK(findOption(Door::Settings, "compileCommandsDir"));
  // Every option has a settings/launch key and a flag; names are unique per door.
  for (Door d : {Door::CommandLine, Door::Annotation, Door::Settings}) {
    std::map<std::string, int> seen;
    for (const OptionSpec& s : checkOptionSchema())
      if (const char* n = optionName(s, d)) CHECK(++seen[n] == 1);
  }
}

TEST_CASE("jobs: a worker count up to 256 at every door, reaching the run options") {
  OptionValues v = viaText(Door::CommandLine, "--jobs", "2");
  CHECK(v.jobs == 2u);
  RunOptions r;
  applyOptions(v, r);
  CHECK(r.jobs == 2u);
  std::string err;
  viaText(Door::CommandLine, "--jobs", "257", &err);
  CHECK(err.find("--jobs") != std::string::npos);
  viaJson(Door::Settings, "jobs", -1, &err);
  CHECK(err.find("jobs") != std::string::npos);
}

TEST_CASE("exploreOrder: the command line, settings and launch (not annotations), reaching the run options") {
  OptionValues v = viaText(Door::CommandLine, "--explore-order", "stale-first");
  CHECK(v.exploreOrder == ExploreOrder::StaleFirst);
  CHECK(optionsJson(viaJson(Door::Settings, "exploreOrder", "stale-first")) == optionsJson(v));
  CHECK(optionsJson(viaJson(Door::Launch, "exploreOrder", "stale-first")) == optionsJson(v));
  CHECK_FALSE(findOption(Door::Annotation, "explore_order"));
  RunOptions r;
  CHECK(r.exploreOrder == ExploreOrder::Forward);  // the default
  applyOptions(v, r);
  CHECK(r.exploreOrder == ExploreOrder::StaleFirst);
  applyOptions(OptionValues{}, r);
  CHECK(r.exploreOrder == ExploreOrder::StaleFirst);  // unset leaves it
  std::string err;
  viaText(Door::CommandLine, "--explore-order", "backwards", &err);
  CHECK(err == "--explore-order must be forward, revisits-first or stale-first, got `backwards`");
}

TEST_CASE("keepBound: the command line and settings (not annotations), reaching the run options") {
  OptionValues v = viaText(Door::CommandLine, "--keep-bound", "true");
  CHECK(v.keepBound == true);
  CHECK(optionsJson(viaJson(Door::Settings, "keepBound", true)) == optionsJson(v));
  CHECK_FALSE(findOption(Door::Annotation, "keep_bound"));
  RunOptions r;
  CHECK_FALSE(r.keepBound);  // the default: a bound that prunes nothing in its probe is dropped
  applyOptions(v, r);
  CHECK(r.keepBound);
}

TEST_CASE("spuriousWakeups: --no-spurious-wakeups and spurious_wakeups=off reach the run options") {
  bool negated = false;
  const OptionSpec* o = findOption(Door::CommandLine, "--no-spurious-wakeups", &negated);
  REQUIRE(o);
  CHECK(negated);
  CHECK(std::string(o->key) == "spuriousWakeups");
  AnnotationOptions ann = parseAnnotation("spurious_wakeups=off");
  CHECK(ann.errors.empty());
  CHECK(ann.spuriousWakeups == false);
  RunOptions r;
  CHECK_FALSE(r.spuriousWakeups);  // unset: the annotation decides, else on
  applyOptions(ann, r);
  CHECK(r.spuriousWakeups == false);
}

TEST_CASE("applyOptions: a time limit of 0 is none, unset values leave the run as it was") {
  RunOptions r;
  r.timeLimit = 10;
  r.fences = true;
  OptionValues v;
  v.model = Model::PSO;
  applyOptions(v, r);
  CHECK(r.model == Model::PSO);
  CHECK(r.timeLimit == 10);
  CHECK(r.fences);
  v.timeLimit = 0;
  v.fences = false;
  v.stepLimit = 77;
  applyOptions(v, r);
  CHECK_FALSE(r.timeLimit);
  CHECK_FALSE(r.fences);
  CHECK(r.limits.maxSteps == 77u);
}

// The check options, once: every option's name at each of the four front
// doors (command line, a check's annotation, editor settings, debug launch
// arguments), its value syntax and its validation. The front doors only find
// the option by name and hand over the value; what it means, which values are
// good and what the error says are decided here.
//
//   front door           form                          example
//   command line         --flag VALUE / --flag=VALUE   --buffer-bound 0..2, --stateful
//   annotation           key=value / bare switch       TSOCHECK_WITH("buffer_bound=0..2 stateful")
//   editor settings      JSON, camelCase key           {"bufferBound": "0..2", "stateful": true}
//   debug launch         JSON, camelCase key           {"bufferBound": 2}
//
// Precedence (service/check_runner.cpp): command-line flags and launch
// arguments override a check's annotation; editor settings are defaults the
// annotation overrides; the "run under SC/TSO/PSO" lens (forceModel) wins
// over everything. Options of a whole run (compile database, --main, the
// step limit, the fence style, --keep-going) have no annotation name: they
// do not differ between the checks of one file. `with` (a File option) is
// repeatable: each occurrence adds a file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/check.h"

namespace tsocheck {

// Fence synthesis's own time budget when fence-time-limit is not given
// (seconds): the verdict is out before it starts, the fix follows within it.
constexpr double kDefaultFenceTimeLimitSeconds = 10;

// A set of option values, each unset unless given.
struct OptionValues {
  std::optional<Model> model;
  std::optional<int> bufferBound;
  std::optional<int> bufferBoundFrom;  // buffer bound A..K: deepening from A to bufferBound
  std::optional<bool> stateful;        // explicit-state search
  std::optional<bool> robustness;      // report executions SC does not allow
  std::optional<int> preemptionBound;
  std::optional<int> preemptionFrom;   // preemption bound A..B: iterative from A
  std::optional<uint32_t> loopBound;
  std::optional<uint64_t> stepLimit;   // instructions per thread per execution
  std::optional<double> timeLimit;     // seconds; 0 = no limit
  std::optional<double> fenceTimeLimit;  // fence synthesis after a violation, seconds; 0 = no limit
  std::optional<uint64_t> memoryLimitMiB;
  std::optional<uint32_t> jobs;        // worker threads of the graph explorer (0: the machine's cores)
  std::optional<bool> fences;          // fence synthesis after a TSO/PSO violation
  std::optional<std::string> fenceStyle;
  std::optional<DeadlockMode> deadlocks;
  std::optional<bool> raceCheck;       // data races on plain accesses as warnings
  std::optional<bool> exitEndsProgram; // the harness's return (or exit()) ends the program, as in C
  std::optional<bool> abortEnds;       // abort() ends the program instead of being an error
  std::optional<bool> spuriousWakeups; // condition-variable waits may return without a signal (POSIX)
  std::optional<std::pair<int64_t, int64_t>> nondetRange;
  std::optional<bool> keepGoing;       // explore everything after the first violation
  std::optional<bool> keepBound;       // keep a preemption bound that prunes nothing in its probe
  std::optional<ExploreOrder> exploreOrder;  // which executions the graph explorer visits first
  std::optional<bool> mainHarness;     // also check main()
  std::optional<std::string> compileCommandsDir;
  // More translation units of the program (--with, repeatable; with= in an
  // annotation is relative to the checked file's directory).
  std::optional<std::vector<std::string>> with;
};

// A front door: how names are spelled and values written there.
enum class Door { CommandLine, Annotation, Settings, Launch };

// What an option's value is (decides its syntax and the error's wording).
enum class ValueKind { Choice, Range, Count, Seconds, MiB, Switch, NondetRange, Path, File };

struct OptionSpec {
  const char* key;          // editor settings and launch arguments: "bufferBound"
  const char* annotation;   // "buffer_bound" (nullptr: file-wide, not per check)
  const char* flag;         // "--buffer-bound"
  const char* negation;     // "--no-fences": a switch's negation on the command line (or nullptr)
  ValueKind kind;
  const char* choices;      // Choice: "sc|tso|pso"
  int64_t max;              // Count, Range: the largest value
  // Parses the text form into v; false when malformed (v unchanged).
  bool (*store)(const OptionSpec& o, OptionValues& v, const std::string& text);
  void (*clear)(OptionValues& v);
};

// The options every front door knows, in the order `--help` lists them.
const std::vector<OptionSpec>& checkOptionSchema();
// The option named `name` at `door` ("--buffer-bound", "buffer_bound" or
// "buffer-bound", "bufferBound"), or nullptr. On the command line a switch's
// negation ("--no-fences") names it too (*negated set).
const OptionSpec* findOption(Door door, const std::string& name, bool* negated = nullptr);
// The option's name at that door (nullptr when the door does not have it).
const char* optionName(const OptionSpec& o, Door door);
bool isSwitch(const OptionSpec& o);  // takes no value on the command line or in the annotation
// Whether editors offer the option as a setting: every one but a file of the
// program (`with`, relative to the checked file or the launch, not to an
// editor-wide setting). The language server takes the others only.
bool isEditorSetting(const OptionSpec& o);
// The schema as data, for the editors' own lists to be checked against
// (`tsocheck options --json`): per option its settings key, annotation name,
// flag and negation (null when the door lacks it), value kind ("choice",
// "range", ...), choices (null unless a choice) and editor_setting.
nlohmann::json optionSchemaJson();
// A choice option's choices: "sc|tso|pso" -> {"sc", "tso", "pso"}.
std::vector<std::string> choicesOf(const char* choices);
// "sc, tso or pso" (quoted: "\"sc\", \"tso\" or \"pso\"", as JSON doors say it).
std::string choiceList(const char* choices, bool quoted);

// Sets one option from its text (command line, annotation; a switch given
// bare passes "true") or its JSON value (settings, launch: numbers and
// booleans as they are, strings as in the text form; null, "" and "default"
// unset it).
// Returns "" or the error, e.g. "--deadlocks must be error, warning or
// ignore, got `x`"; on error the value keeps what it had.
std::string setOption(const OptionSpec& o, Door door, const std::string& text, OptionValues& v);
std::string setOption(const OptionSpec& o, Door door, const nlohmann::json& value, OptionValues& v);

// The values that are set, by their settings key, in their JSON form
// ({"model": "TSO", "bufferBound": 2, ...}): what a result cache keys on.
nlohmann::json optionsJson(const OptionValues& v);

// A check's annotation: the options it sets and one message per bad word.
struct AnnotationOptions : OptionValues {
  std::vector<std::string> errors;
};
AnnotationOptions parseAnnotation(const std::string& text);

// The value syntaxes, for the few places that read one value on their own.
// parseModel, modelName: engine/memory_model.h.
std::optional<DeadlockMode> parseDeadlockMode(const std::string& s);  // "error" | "warning" | "ignore"
// "K" -> {K, K}; "A..K" -> {A, K} with A <= K; nullopt when malformed.
std::optional<std::pair<int, int>> parseBoundRange(const std::string& s);
// The values of typed nondeterministic inputs: "A..B" (signed integers, A <= B,
// at most kMaxNondetValues values) or "N" (one value); nullopt when malformed.
constexpr int64_t kMaxNondetValues = 65536;
std::optional<std::pair<int64_t, int64_t>> parseNondetRange(const std::string& s);

}  // namespace tsocheck

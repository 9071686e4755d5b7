// Public entry point of the engine: check a program under a memory model.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/interp.h"
#include "engine/ir.h"
#include "engine/memory_model.h"  // Model, MemoryModel

namespace tsocheck {

enum class Status : uint8_t { Violation, Verified, Bounded, Timeout, Error };
const char* statusName(Status s);  // "violation", "verified", ...

// A complete execution as seen by tests: its Shasha–Snir trace in canonical
// form and the final memory.
//
// Trace key format (shared with the reference explorer in tests/):
//  * an event is named "T<thread>.<k>": the k-th (0-based) visible action of
//    that thread (every action a ThreadState stops at and that is completed,
//    plus the final Exit, counts); thread ids are given in spawn order, main = 0;
//    the initial value of every location is "init";
//  * "rf <reader> <- <writer>" for every event that reads memory (loads, RMWs
//    including failed CAS, lock, trylock, unlock);
//  * "co <addr in hex> <w1> <w2> ..." for every location written, in
//    coherence order, init omitted;
//  * "choice <event> = <value>" for every nondeterministic choice;
//  * all lines sorted (std::sort on std::string), joined with '\n'.
class Graph;
struct ExecutionInfo {
  std::string traceKey;
  const Graph* graph = nullptr;  // the graph explorer's execution graph, valid during the call
  // (address, value) of every location some event accessed, sorted by address.
  std::vector<std::pair<Addr, Value>> finalMemory;
  bool blocked = false;
  int preemptionLowerBound = -1;  // with a preemption bound: the explorer's lower bound
};
using ExecutionCallback = std::function<void(const ExecutionInfo&)>;

// What deadlocks and non-termination are (CheckOptions::deadlocks).
enum class DeadlockMode : uint8_t {
  Error,    // violations (status violation), like assertion failures
  Warning,  // reported in CheckResult::violations as warnings; the status ignores them
  Ignore,   // not reported (the execution counts as a complete one)
};
const char* deadlockModeName(DeadlockMode m);  // "error", "warning", "ignore"

// The order in which the graph explorer visits a branch point's children
// (CheckOptions::exploreOrder). Every order explores the same executions,
// each once; only which comes first changes, and with it how soon a
// violation is found and which counterexample is reported.
enum class ExploreOrder : uint8_t {
  // A read takes the co-newest write first; a new write takes its coherence
  // positions (newest first) before its backward revisits, so the execution
  // under way runs on before the exploration goes back to earlier reads (the
  // order of GenMC's work list).
  Forward,
  // As Forward, but a write's backward revisits come before its positions
  // (the default of earlier releases).
  RevisitsFirst,
  // As Forward, but a read takes stale values first (the oldest write it may
  // read, other threads' writes before its own thread's) and a write its
  // oldest coherence position first.
  StaleFirst,
};
const char* exploreOrderName(ExploreOrder o);  // "forward", "revisits-first", "stale-first"
std::optional<ExploreOrder> parseExploreOrder(const std::string& s);

struct CheckOptions {
  Model model = kDefaultModel;
  int bufferBound = -1;        // pending stores per thread; -1 = unbounded; 0 = SC
  MemoryModel memoryModel() const { return {model, bufferBound}; }
  Limits limits;               // per-thread step and call-depth limits
  double timeLimitSeconds = 0; // 0 = none
  // Stop at the first assertion, memory or arithmetic error. Deadlocks and
  // non-termination never stop the search: it goes on looking for those.
  bool stopAtFirstError = true;
  DeadlockMode deadlocks = DeadlockMode::Error;
  // What C does when main returns or a thread calls exit(): the program ends
  // and every other thread stops where it is (engine/hangs.h endsProgram).
  // Threads still waiting then are no deadlock or non-termination, a join of
  // a thread that called exit() never returns, and no thread uses the
  // harness's stack after it returned. Off: the other threads run on.
  bool exitEndsProgram = false;
  // Data races on plain accesses (engine/races.h) are reported: as warnings
  // (ErrorKind::Race) under SC, TSO and PSO, found on the executions SC
  // allows whatever the model; as errors (ErrorKind::DataRace, undefined
  // behaviour) under RC11 (CheckResult::violations; graph explorer only).
  bool raceCheck = true;
  // Explicit-state search with a visited-state table (engine/state_space.h,
  // its stateful DPOR) instead of the graph explorer: ends loops over finite
  // data by itself.
  bool stateful = false;
  // Programs whose threads use atomic sections (hasAtomicSections, with a
  // Spawn) go to the explicit-state search unless this is set: the graph
  // explorer keeps sections whole only on ended executions, so programs with
  // many accesses inside sections take it far longer (search.cpp).
  bool sectionsInGraph = false;
  // Preemption bound P (-1 = none): explore every Shasha–Snir class with at
  // most P preemptions (definition in engine/preemption.h), exactly once,
  // plus "slack" executions above P that completeness needs; graphs whose
  // preemption lower bound exceeds P + slack are pruned (boundBlocked).
  int preemptionBound = -1;
  // A bound that prunes nothing costs its bookkeeping and saves nothing.
  // When the first `boundProbe` ended executions (complete, blocked, cut or
  // left at a stale wait, in the order one worker explores them: with
  // several workers none is given away before that) had nothing pruned, the
  // rest of the search runs without the bound (CheckResult::boundDropped):
  // it then explores exactly what the unbounded search explores and its
  // answer is complete. 0: keep the bound throughout.
  uint64_t boundProbe = 200;
  // Robustness (graph explorer only): also look for an execution whose
  // Shasha–Snir trace SC does not allow (CheckResult::robustness). A failing
  // assertion does not end the search until such a witness is found or the
  // exploration is complete.
  bool robustness = false;
  ExecutionCallback onExecution;  // called for every complete (or blocked) execution
  // Polled with the time limit: a set flag stops the exploration (status timeout).
  const std::atomic<bool>* cancel = nullptr;
  // Polled with the time limit: complete executions explored so far.
  std::function<void(uint64_t)> onProgress;
  // Worker threads of the graph explorer (explorer.h "Parallel
  // exploration"); 1 = sequential. The result (status, counts, the
  // violations and their traces) is the one a single worker gives.
  // Robustness checks run on one worker.
  int jobs = 1;
  ExploreOrder exploreOrder = ExploreOrder::Forward;  // graph explorer only
  // Sharding (tsocheck check --shard INDEX/COUNT, engine/work_sharing.h
  // "Shards"): the graph explorer explores the first `depth` branching
  // levels like every other shard, and below them only the subtrees whose
  // path hashes to `index` (mod `count`). count 0: the whole search.
  struct Shard {
    uint32_t index = 0, count = 0, depth = 0;
    // One piece only (`tsocheck merge --fix` re-finding a merged
    // counterexample): below the cut, only the child at this path (`depth`
    // long) is explored, every other one is skipped; empty: none, the top
    // only. What lies above the cut is reported as shard 0 reports it (index
    // must be 0). count and depth are the split's.
    std::optional<std::vector<uint32_t>> only;
  };
  Shard shard;
  // Switches only the tests and benchmarks set, never a front door (the CLI,
  // the language server, the debug adapter, the service's option schema):
  // they compare the engine's optimizations with their plain forms, or make
  // it check itself. The defaults are what every product run uses.
  struct Testing {
    // With jobs > 1, give work away at every branch point, whether a
    // worker is idle or not (so that small programs are split too).
    bool splitEagerly = false;
    // Consistency checks keep an order in the graph and fit each new event
    // into it (consistency.h "Incremental checks"); off: every check sorts
    // from scratch (benchmarks compare the two).
    bool incrementalConsistency = true;
    // Graph explorer, programs with pthread_mutex_lock: locks wait for their
    // mutex (explorer.h `lockWaits`): the same executions, without the ones
    // that end blocked on a mutex that is freed later; off: TruSt's plain
    // treatment (tests and benchmarks compare the two). Also under a
    // preemption bound: the bookkeeping drops a removed lock with what depends
    // on it (PreemptionState::revisited), and a thread left with fewer events
    // than it processed is counted again from scratch (PreemptionCounter::update).
    bool unblockLocks = true;
    // Graph explorer without the robustness check: a spin
    // loop's idle iteration that read a stale value (another thread's write
    // is coherence-after the one it read) stops the exploration of that graph
    // (explorer.h `staleWait`): every execution through it could only end
    // blocked. The same complete executions and verdicts, fewer blocked ones
    // (CheckResult::staleWaits counts the graphs left); off: each is explored
    // to its end (tests and benchmarks compare the two). Going on past errors,
    // an execution through such a graph that would end in an error is not
    // explored (the same kind of error is met in a graph that is kept), so
    // `executions`, which counts those too, can be lower.
    bool pruneStaleWaits = true;
    // Every incremental consistency answer is compared with a sort
    // from scratch (consistency.h setSelfCheck), and every porf view from the
    // kept clocks with a walk over the prefix (Graph::porfView), and every
    // graph the preemption bound prunes is pruned by the lower bound from
    // scratch too (PreemptionCounter::lowerBound), and every thread a backward
    // revisit replays from a mark is replayed from its start too, compared
    // (the explorer then marks after every event), and every RC11 extension
    // test (Rc11Checker::consistentExtension) is compared with a check from scratch.
    bool checkOrders = false;
  };
  Testing testing;
};
inline constexpr uint32_t kDefaultShardDepth = 8;

enum class StepKind : uint8_t {
  ThreadStart,
  Store,      // store enters the store buffer (or memory under SC)
  Flush,      // a buffered store reaches memory
  LoadMem,    // load served by memory
  LoadBuf,    // load served by the thread's own store buffer
  Rmw,        // locked read-modify-write (or failed CAS: read only)
  Fence,
  Spawn,
  Join,
  Lock,
  Unlock,
  TryLock,
  Free,
  Exit,
  Error,      // the failing event (assertion, memory error, ...)
  Blocked,    // a deadlocked thread's last attempted operation
  Nondet,     // a nondeterministic choice (value: the one taken)
  Atomic,     // the thread enters an atomic section (__VERIFIER_atomic_*)
};
const char* stepKindName(StepKind k);  // "store", "flush", "load-memory", "load-buffer", ...

struct BufferEntry {
  Addr addr = 0;
  Value value = 0;
  std::string name;
  uint32_t storeStep = 0;  // the trace step (TraceStep::step) that stored it; 0 = none shown
};

struct TraceStep {
  uint32_t step = 0;
  uint32_t thread = 0;
  StepKind kind = StepKind::Store;
  Addr addr = 0;
  bool hasAddr = false;
  std::string addrName;
  Value value = 0;
  bool hasValue = false;
  SourceLoc loc;
  // The instruction behind the step (Program::functions[function].code[pc])
  // and its event index in the thread ("T<thread>.<event>"); a Flush names
  // its store. kNoEvent for steps without an event.
  uint32_t function = 0, pc = 0;
  uint32_t event = kNoEvent;
  static constexpr uint32_t kNoEvent = UINT32_MAX;
  std::string note;  // e.g. "reads init", "from T1's buffer"
  // Each thread's store-buffer contents after this step (oldest first).
  std::vector<std::vector<BufferEntry>> buffers;
  static constexpr uint32_t kNoThread = UINT32_MAX;
  uint32_t spawned = kNoThread;  // a Spawn step: the thread it starts
  // A stale read (annotateStaleReads): a LoadMem step while another thread's
  // buffer holds a store to the same address. staleThread is that thread (the
  // lowest such), staleEntry its newest entry for the address.
  uint32_t staleThread = kNoThread;
  BufferEntry staleEntry;
  // RC11 traces (no store buffers: happens-before explains what a read may
  // see), as data; the service words them (service/report_reader.h).
  struct Rc11Facts {
    MemOrder order = MemOrder::NonAtomic;  // the access's or fence's C11 order (c11Order)
    bool reads = false;      // the step reads (readsFrom, readCo, read hold)
    Value read = 0;          // a read: the value read
    uint32_t readsFrom = 0;  // a read: the step of the write it read (0: the initial value)
    int readCo = -1;         // a read: that write's place in its location's coherence order (-1: initial value)
    int writeCo = -1;        // a write: its place in coherence order (0: first after the initial value)
    Value init = 0;          // an access: its location's initial value
    std::vector<uint32_t> sw;  // the steps it synchronises with (RC11 sw, spawn and join)
    std::vector<uint32_t> hb;  // per thread u: how many of u's events happen before or equal it
  };
  std::optional<Rc11Facts> rc11;
};

// Fills staleThread/staleEntry of every LoadMem step of a trace whose
// buffers are filled (one definition for every trace builder and reader).
void annotateStaleReads(std::vector<TraceStep>& trace);

struct Violation {
  ErrorKind kind = ErrorKind::None;
  std::string message;
  uint32_t thread = 0;
  SourceLoc loc;
  std::vector<TraceStep> trace;
  // Preemption bounding: a lower bound on the preemptions of the violating
  // execution (-1 when no bound was set); aboveBound when that lower bound
  // exceeds the bound, i.e. the violation was met only thanks to the slack.
  int preemptions = -1;
  bool aboveBound = false;
  bool warning = false;  // a deadlock or non-termination under DeadlockMode::Warning, or a race
  // A data race (ErrorKind::Race): the other access (`loc`/`thread` are the
  // one that came second in the trace); both are steps of the trace.
  struct Access {
    uint32_t thread = 0;
    SourceLoc loc;
  };
  std::optional<Access> other;
  // A sharded search (CheckOptions::shard): where it was found in the
  // canonical order (the start of its piece, ShardPiece, and its place
  // there), so that a merge keeps the first of each kind a single run keeps.
  struct ShardOrder {
    std::vector<uint32_t> start;
    uint32_t index = 0;
  };
  std::optional<ShardOrder> shardOrder;
};

// Deadlock or non-termination: does not stop the search.
bool isHang(ErrorKind k);
// 0 assertion, memory and arithmetic errors, 1 deadlock, 2 non-termination, 3 race.
int severity(ErrorKind k);
// The same error: same kind and, for an assertion, memory or arithmetic
// error, the same source location. A deadlock or non-termination matches
// any of its kind: which stuck thread is named (and where) depends on the
// interleaving the search met first. Races are the same when they pair the
// same two source locations.
bool sameError(const Violation& a, const Violation& b);

// Robustness against the weak model: is every Shasha–Snir trace the model
// allows (reads-from + coherence) also allowed by SC?
struct RobustnessResult {
  bool robust = true;     // no witness found
  bool complete = true;   // the search covered every execution (no bound, limit or timeout cut it)
  std::string message;    // one sentence
  // A non-SC execution: trace in the model's chronological order; `loc` and
  // `thread` name the step `point` describes.
  std::optional<Violation> witness;
  // What the witness's loc points at: "stale read", "reordered load" (a load
  // taken while its thread's own older store was buffered), "reordered
  // flush" (PSO: a store reached memory before an older one of its thread)
  // or "" (loc is then the trace's first step).
  std::string point;
  bool witnessIsViolation = false;  // the witness is the reported violation's execution
};

// What a sharded search found, piece by piece in the canonical order
// (engine/work_sharing.h "Shards"): what `tsocheck merge` adds up.
struct ShardPiece {
  std::vector<uint32_t> start;  // the path where the piece begins
  // executions, blocked, cut, events, boundBlocked, boundBlockedSettled,
  // staleWaits, staleReads, slackExecutions (shardCounters)
  std::vector<uint64_t> counts;
  std::vector<std::string> limits;
  bool nondetLimited = false;
  std::string engineError;
};
struct ShardOutcome {
  std::vector<ShardPiece> pieces;
  std::optional<std::vector<uint32_t>> stop;  // the path of the error that ended this shard's search
  bool timedOut = false;
};

struct CheckResult {
  Status status = Status::Verified;
  uint64_t executions = 0;     // complete executions explored
  uint64_t blocked = 0;        // executions blocked by assume/locks (not errors)
  uint64_t cut = 0;            // executions cut by a step/depth limit
  uint64_t events = 0;         // events added over the whole exploration
  uint64_t boundBlocked = 0;   // partial executions pruned by the preemption bound
  uint64_t boundBlockedSettled = 0;  // of those, pruned only through the §5 slack (within P + N−2; preemption.h)
  uint64_t staleWaits = 0;     // partial executions left at a spin that read a stale value (pruneStaleWaits)
  uint64_t staleReads = 0;     // stale values a spin's read was not given: its thread would stop at once (pruneStaleWaits)
  uint64_t slackExecutions = 0;  // complete executions known to exceed the preemption bound
  // The preemption bound pruned nothing in its probe (CheckOptions::boundProbe)
  // and was dropped: the counts and the verdict are those of the full search.
  bool boundDropped = false;
  double elapsedMs = 0;
  std::string message;         // one-sentence summary
  std::vector<std::string> limitsHit;  // e.g. "step limit ... at file:12:3"
  // A nondeterministic input ran whose type has values outside the nondet
  // range (Limits::nondetLo..nondetHi): never `verified`.
  bool nondetLimited = false;
  // The first violation of each kind found (warnings included; races: the
  // first of each pair of source locations, at most kMaxRaces): those within
  // the preemption bound first, then most severe first (severity()), then
  // the order found.
  std::vector<Violation> violations;
  static constexpr size_t kMaxRaces = 8;
  // The most severe error-level entry of `violations` (status violation).
  std::optional<Violation> violation;
  std::optional<RobustnessResult> robustness;  // set when CheckOptions::robustness
  std::optional<ShardOutcome> shard;  // set when CheckOptions::shard is
  // Keeps `violations` (v as the first of its kind, or in place of one met
  // only above the preemption bound when v is within it) and `violation`;
  // false when v was not kept.
  bool addViolation(Violation v);
  // An assertion, memory or arithmetic error within the preemption bound.
  bool hasHardError() const;
  // "; warnings: deadlock" for the warnings in `violations` ("" if none).
  std::string warningsNote() const;
  // With nondetLimited: `verified` becomes `bounded` ("no violation found, but
  // nondet values limited to -1..1"); a `bounded` message gets the range appended.
  void limitNondet(const Limits& l);
};

// Runs the search chooseSearch picks for opts (engine/search.h).
CheckResult check(const Program& prog, const CheckOptions& opts);

}  // namespace tsocheck

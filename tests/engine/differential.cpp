#include "tests/engine/differential.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "engine/races.h"
#include "engine/rc11.h"
#include "engine/state_space.h"
#include "engine/work_sharing.h"
#include "tests/engine/naive_explorer.h"
#include "tests/engine/rc11_race_oracle.h"
#include "tests/engine/trace_text.h"

namespace tsocheck::testing {

namespace {
using Finals = FinalStates;

std::string showFinals(const Finals& f) {
  std::ostringstream o;
  for (const auto& s : f) {
    o << "  {";
    for (const auto& [a, v] : s) o << " 0x" << std::hex << a << "=" << std::dec << v;
    o << " }\n";
  }
  return o.str();
}
// The naive search's budget (DiffConfig::naiveSeconds; 0: none): `base`'s
// limits with a deadline `seconds` from now, and at most this many cached
// subtrees (its memory), for exploreNaive and naiveMinPreemptions alike.
struct NaiveBudget {
  Limits limits;
  uint64_t maxCached = 0;
};
NaiveBudget naiveBudget(const Limits& base, double seconds) {
  NaiveBudget b{base, 0};
  if (seconds > 0) {
    b.limits.startClock(std::chrono::steady_clock::now(), seconds, nullptr);
    b.maxCached = 2000000;
  }
  return b;
}
// The graph explorer's options for a configuration; every incremental
// consistency answer is checked against a sort from scratch.
CheckOptions graphOptions(const DiffConfig& c, bool stopAtFirstError, ExploreOrder order) {
  CheckOptions opts;
  opts.model = c.model;
  opts.bufferBound = c.bound;
  opts.limits = c.limits;
  opts.stopAtFirstError = stopAtFirstError;
  opts.exploreOrder = order;
  opts.sectionsInGraph = true;
  opts.testing.checkOrders = true;
  return opts;
}
}  // namespace

StateSpaceResult exploreStatesWithFinals(const Program& prog, const DiffConfig& c, uint64_t maxStates,
                                         FinalStates* finals, StateSearch search) {
  StateSpaceOptions so;
  so.check.model = c.model;
  so.search = search;
  so.check.bufferBound = c.bound;
  so.check.limits = c.limits;
  so.check.stopAtFirstError = false;
  if (maxStates) so.maxStates = maxStates;
  so.check.onExecution = [&](const ExecutionInfo& info) {
    if (!info.blocked) finals->insert(info.finalMemory);
  };
  return exploreStates(prog, so);
}

std::string parallelDifferential(const Program& prog, const DiffConfig& c) {
  // Every complete execution once, with or without stopping at the first
  // error, and with a preemption bound (slack executions, violations above it).
  // (RC11 has no preemption bound: mode 2 is left out.)
  const int modes = MemoryModel{c.model}.usesC11Orders() ? 2 : 3;
  for (int mode = 0; mode < modes; ++mode) {
    const bool stop = mode != 0;
    CheckResult r[2];
    std::multiset<std::string> keys[2];
    for (int i = 0; i < 2; ++i) {
      CheckOptions opts = graphOptions(c, stop, c.order);
      if (mode == 2) opts.preemptionBound = 1;
      if (i == 1) {
        opts.jobs = stop ? 2 : 3;
        opts.testing.splitEagerly = true;
      }
      opts.onExecution = [&keys, i](const ExecutionInfo& info) {
        keys[i].insert((info.blocked ? "blocked\n" : "") + info.traceKey);
      };
      r[i] = check(prog, opts);
    }
    std::ostringstream why;
    const char* m = modelName(c.model);
    auto differ = [&](const char* what, auto a, auto b) {
      if (a != b) why << "jobs (" << m << " bound " << c.bound << (stop ? ", stop at first error" : "")
                      << (mode == 2 ? ", preemption bound 1" : "") << ", order " << exploreOrderName(c.order)
                      << "): " << what
                      << " " << a << " sequential, " << b << " parallel; ";
    };
    differ("status", statusName(r[0].status), statusName(r[1].status));
    // Nested spawners (compareTraces off): which thread gets which id depends
    // on which worker met it first (explorer.h), and with it the order of the
    // search: the same complete executions, maybe another path to them.
    if (!c.compareTraces && stop) {
      if (!why.str().empty()) return why.str();
      continue;
    }
    differ("executions", r[0].executions, r[1].executions);
    if (!c.compareTraces) {
      if (!why.str().empty()) return why.str();
      continue;
    }
    differ("blocked", r[0].blocked, r[1].blocked);
    differ("cut", r[0].cut, r[1].cut);
    differ("pruned by the preemption bound", r[0].boundBlocked, r[1].boundBlocked);
    differ("slack executions", r[0].slackExecutions, r[1].slackExecutions);
    differ("events", r[0].events, r[1].events);
    differ("message", r[0].message, r[1].message);
    differ("violations", r[0].violations.size(), r[1].violations.size());
    for (size_t v = 0; v < std::min(r[0].violations.size(), r[1].violations.size()); ++v) {
      differ("violation", r[0].violations[v].message, r[1].violations[v].message);
      differ("trace", traceText(prog, r[0].violations[v]), traceText(prog, r[1].violations[v]));
    }
    if (!stop && keys[0] != keys[1]) why << "jobs (" << m << "): the executions reported differ; ";
    if (!why.str().empty()) return why.str();
  }
  return "";
}

std::string staleWaitDifferential(const Program& prog, const DiffConfig& c, const CheckResult& pruned,
                                  const std::set<std::string>& prunedKeys) {
  // Every graph explored to its end (CheckOptions::Testing::pruneStaleWaits off): the
  // same complete executions, status, kinds of violation (within a
  // preemption bound: those met within it) and cuts; at least as many
  // blocked executions. Unbounded (`pruned` is that run), then under
  // preemption bound 1. `executions` also counts the executions that end in
  // an error; one that goes through a stale wait is left with its graph
  // (the same kind of error is met in a graph that is kept: explorer.h), so
  // when a run has a violation the complete executions are compared by
  // their keys and their number instead.
  auto kinds = [](const CheckResult& r) {
    std::string k;
    std::set<std::string> names;
    for (const Violation& v : r.violations)
      if (!v.aboveBound) names.insert(errorKindName(v.kind));
    for (const std::string& n : names) k += n + " ";
    return k;
  };
  std::ostringstream why;
  for (int bound : {-1, 1}) {
    if (bound >= 0 && MemoryModel{c.model}.usesC11Orders()) break;  // (no preemption bound under RC11)
    CheckResult r[2];  // pruned, explored to the end
    std::set<std::string> keys[2];
    uint64_t complete[2] = {0, 0};  // (onExecution: the executions that end without an error)
    for (int i = 0; i < 2; ++i) {
      if (bound < 0 && i == 0 && pruned.violations.empty()) {  // (with a violation: run again, counting)
        r[0] = pruned;
        keys[0] = prunedKeys;
        continue;
      }
      CheckOptions opts = graphOptions(c, false, c.order);
      opts.preemptionBound = bound;
      opts.boundProbe = 0;  // the bound kept in both (its probe could drop it in one only: other ended counts)
      opts.testing.pruneStaleWaits = i == 0;
      opts.onExecution = [&keys, &complete, i](const ExecutionInfo& info) {
        if (info.blocked) return;
        keys[i].insert(info.traceKey);
        ++complete[i];
      };
      r[i] = check(prog, opts);
    }
    auto differ = [&](const char* what, auto a, auto b) {
      if (a != b) why << "stale waits pruned (" << modelName(c.model) << " bound " << c.bound
                      << (bound >= 0 ? ", preemption bound " + std::to_string(bound) : std::string()) << "): " << what
                      << " " << a << " pruned, " << b << " explored to the end; ";
    };
    differ("status", statusName(r[0].status), statusName(r[1].status));
    const bool violated = !r[0].violations.empty() || !r[1].violations.empty();
    if (violated)
      differ("executions without an error", complete[0], complete[1]);
    else
      differ("executions", r[0].executions, r[1].executions);
    differ("cut", r[0].cut > 0, r[1].cut > 0);
    differ("kinds of violation", kinds(r[0]), kinds(r[1]));
    if (r[0].blocked > r[1].blocked) differ("blocked (more when pruned)", r[0].blocked, r[1].blocked);
    if (c.compareTraces && keys[0] != keys[1]) why << "stale waits pruned: the complete executions differ; ";
  }
  return why.str();
}

std::string orderDifferential(const Program& prog, const DiffConfig& c) {
  auto run = [&](ExploreOrder order, bool stop, std::multiset<std::string>* keys) {
    CheckOptions opts = graphOptions(c, stop, order);
    opts.onExecution = [keys](const ExecutionInfo& info) {
      keys->insert((info.blocked ? "blocked\n" : "") + info.traceKey);
    };
    return check(prog, opts);
  };
  std::multiset<std::string> baseKeys, scratch;
  const CheckResult all = run(c.order, false, &baseKeys);
  const CheckResult first = run(c.order, true, &scratch);
  std::ostringstream why;
  for (ExploreOrder o : {ExploreOrder::Forward, ExploreOrder::RevisitsFirst, ExploreOrder::StaleFirst}) {
    if (o == c.order) continue;
    std::multiset<std::string> keys;
    const CheckResult r = run(o, false, &keys);
    const CheckResult s = run(o, true, &scratch);
    auto differ = [&](const char* what, auto a, auto b) {
      if (a != b) why << "order " << exploreOrderName(o) << " vs " << exploreOrderName(c.order) << " ("
                      << modelName(c.model) << " bound " << c.bound << "): " << what << " " << b << " vs " << a << "; ";
    };
    differ("status", statusName(all.status), statusName(r.status));
    differ("status (stop at first error)", statusName(first.status), statusName(s.status));
    differ("executions", all.executions, r.executions);
    // Nested spawners (compareTraces off): thread ids are given in the order
    // threads are met, so another order may name them otherwise.
    if (c.compareTraces) {
      differ("blocked", all.blocked, r.blocked);
      differ("cut", all.cut, r.cut);
      differ("events", all.events, r.events);
      differ("violations", all.violations.size(), r.violations.size());
      if (keys != baseKeys) why << "order " << exploreOrderName(o) << ": the executions reported differ; ";
    }
    DiffConfig other = c;
    other.order = o;
    why << parallelDifferential(prog, other);
  }
  return why.str();
}

DiffOutcome differential(const Program& prog, const DiffConfig& c) {
  DiffOutcome out;
  std::ostringstream why;
  const char* cfg = modelName(c.model);

  const NaiveBudget budget = naiveBudget(c.limits, c.naiveSeconds);
  NaiveResult naive = exploreNaive(prog, c.model, c.bound, budget.limits, budget.maxCached);
  if (naive.timedOut) {
    out.naiveTimedOut = true;
    return out;
  }
  const bool naiveError = naive.errorRuns > 0 || naive.deadlockRuns > 0;

  std::set<std::string> keys;
  uint64_t callbacks = 0;
  Finals graphFinals, stateFinals;
  CheckOptions opts = graphOptions(c, false, c.order);
  opts.onExecution = [&](const ExecutionInfo& info) {
    if (info.blocked) return;
    ++callbacks;
    keys.insert(info.traceKey);
    graphFinals.insert(info.finalMemory);
  };
  CheckResult g = check(prog, opts);
  out.executions = g.executions;
  out.violation = bool(g.violation);
  out.nondetLimited = g.nondetLimited;
  out.status = g.status;

  // The state-space searches run the store-buffer machine: under RC11 only
  // the graph explorer and the naive explorer are compared.
  const bool machine = !MemoryModel{c.model}.usesC11Orders();
  StateSpaceResult ss, sd;
  if (machine) ss = exploreStatesWithFinals(prog, c, c.maxStates, &stateFinals);
  else ss.exhaustive = ss.stateLimitHit = true;
  const CheckResult& s = ss.result;
  out.statefulSkipped = ss.stateLimitHit;
  out.bfsStates = ss.states;
  Finals dporFinals;
  if (machine) sd = exploreStatesWithFinals(prog, c, c.maxStates, &dporFinals, StateSearch::Dpor);
  else sd.exhaustive = sd.stateLimitHit = true;
  const CheckResult& d = sd.result;
  out.dporSkipped = sd.stateLimitHit;
  out.dporStates = sd.states;

  auto fail = [&](const std::string& what) {
    if (out.agree) why << cfg << " bound " << c.bound << ": ";
    else why << "; ";
    why << what;
    out.agree = false;
  };
  if (g.status == Status::Error || s.status == Status::Error) fail("engine error: " + g.message + " / " + s.message);
  if (!out.statefulSkipped && g.nondetLimited != s.nondetLimited)
    fail(std::string("nondet range: explorer ") + (g.nondetLimited ? "limited" : "not limited") + ", stateful " +
         (s.nondetLimited ? "limited" : "not limited"));
  if (!out.dporSkipped && g.nondetLimited != d.nondetLimited)
    fail(std::string("nondet range: explorer ") + (g.nondetLimited ? "limited" : "not limited") + ", DPOR " +
         (d.nondetLimited ? "limited" : "not limited"));
  if (g.cut || (!ss.exhaustive && !ss.stateLimitHit && !s.violation) ||
      (!sd.exhaustive && !sd.stateLimitHit && !d.violation))
    fail("a limit cut the search");
  if (d.status == Status::Error) fail("engine error (DPOR): " + d.message);
  if (bool(g.violation) != naiveError)
    fail(std::string("verdict: explorer ") + (g.violation ? "violation" : "no violation") + ", naive " +
         (naiveError ? "error runs" : "no error"));
  if (!out.statefulSkipped && bool(s.violation) != naiveError)
    fail(std::string("verdict: stateful ") + (s.violation ? "violation" : "no violation") + ", naive " +
         (naiveError ? "error runs" : "no error"));
  if (!out.dporSkipped && bool(d.violation) != naiveError)
    fail(std::string("verdict: stateful DPOR ") + (d.violation ? "violation" : "no violation") + ", naive " +
         (naiveError ? "error runs" : "no error"));
  if (!naiveError && out.agree) {
    if (!out.dporSkipped && dporFinals != naive.finalStates)
      fail("final states: stateful DPOR\n" + showFinals(dporFinals) + "naive\n" + showFinals(naive.finalStates));
    if (graphFinals != naive.finalStates)
      fail("final states: explorer\n" + showFinals(graphFinals) + "naive\n" + showFinals(naive.finalStates));
    if (!out.statefulSkipped && stateFinals != naive.finalStates)
      fail("final states: stateful\n" + showFinals(stateFinals) + "naive\n" + showFinals(naive.finalStates));
    if (callbacks != keys.size()) fail("the explorer produced a trace twice");
    if (c.compareTraces) {
      if (g.executions != naive.traces.size())
        fail("executions: explorer " + std::to_string(g.executions) + ", naive distinct traces " +
             std::to_string(naive.traces.size()));
      if (keys != naive.traces) {
        std::string missing;
        for (const std::string& k : naive.traces)
          if (!keys.count(k)) {
            missing = k;
            break;
          }
        fail("trace keys differ" + (missing.empty() ? std::string() : "; first trace only in naive:\n" + missing));
      }
    }
  }
  if (std::string p = staleWaitDifferential(prog, c, g, keys); !p.empty()) fail(p);
  if (std::string p = parallelDifferential(prog, c); !p.empty()) fail(p);
  if (std::string p = orderDifferential(prog, c); !p.empty()) fail(p);
  out.why = why.str();
  return out;
}

DiffOutcome sectionDifferential(const Program& prog, const DiffConfig& c) {
  // The graph explorer against the naive explorer and the state space (with
  // its cap), then both state-space searches without one.
  DiffOutcome out = differential(prog, c);
  const NaiveResult naive = exploreNaive(prog, c.model, c.bound, c.limits);
  const bool naiveError = naive.errorRuns > 0 || naive.deadlockRuns > 0;
  std::ostringstream why;
  why << out.why;
  auto fail = [&](const std::string& what) {
    why << (out.agree ? std::string(modelName(c.model)) + " bound " + std::to_string(c.bound) + ": " : "; ") << what;
    out.agree = false;
  };
  const uint64_t graphExecutions = out.executions;
  const bool graphViolation = out.violation;
  const Status graphStatus = out.status;
  for (StateSearch search : {StateSearch::Bfs, StateSearch::Dpor}) {
    const char* name = search == StateSearch::Bfs ? "stateful BFS" : "stateful DPOR";
    Finals finals;  // (the state space is the only explorer here: no state cap)
    const StateSpaceResult ss = exploreStatesWithFinals(prog, c, 0, &finals, search);
    const CheckResult& s = ss.result;
    (search == StateSearch::Bfs ? out.bfsStates : out.dporStates) = ss.states;
    if (s.status == Status::Error) fail(std::string("engine error (") + name + "): " + s.message);
    if (!ss.exhaustive && !s.violation) fail(std::string("the search was cut (") + name + ")");
    if (bool(s.violation) != naiveError)
      fail(std::string("verdict: ") + name + (s.violation ? " violation" : " no violation") + ", naive " +
           (naiveError ? "error runs" : "no error"));
    if (!naiveError && out.agree && finals != naive.finalStates)
      fail(std::string("final states: ") + name + "\n" + showFinals(finals) + "naive\n" + showFinals(naive.finalStates));
  }
  out.executions = graphExecutions;
  out.violation = graphViolation;
  out.status = graphStatus;
  out.why = why.str();
  return out;
}

DiffOutcome programEndDifferential(const Program& prog, Model model, uint64_t maxStates) {
  DiffOutcome out;
  std::ostringstream why;
  Addr res0 = 0;
  for (const Global& gl : prog.globals)
    if (gl.name == "res0") res0 = gl.addr;
  auto mainRead = [&](const ExecutionInfo& e) {
    for (const auto& [a, v] : e.finalMemory)
      if (a == res0) return v;
    return Value(0);
  };
  auto fail = [&](const std::string& what) {
    why << (out.agree ? std::string(modelName(model)) + " (program end): " : "; ") << what;
    out.agree = false;
  };
  if (res0 == 0) fail("no res0 global (not a RandomProgramSpec::mainReads program)");
  CheckOptions co;
  co.model = model;
  co.stopAtFirstError = false;
  co.exitEndsProgram = true;
  std::set<Value> graph;
  co.onExecution = [&](const ExecutionInfo& e) {
    if (!e.blocked) graph.insert(mainRead(e));
  };
  const CheckResult g = check(prog, co);
  out.executions = g.executions;
  out.violation = bool(g.violation);
  out.status = g.status;
  if (g.status == Status::Error) fail("engine error (graph explorer): " + g.message);
  if (g.cut) fail("the graph explorer was cut");
  auto show = [](const std::set<Value>& v) {
    std::string t = "{";
    for (Value x : v) t += " " + std::to_string(x);
    return t + " }";
  };
  for (StateSearch search : {StateSearch::Bfs, StateSearch::Dpor}) {
    const char* name = search == StateSearch::Bfs ? "stateful BFS" : "stateful DPOR";
    StateSpaceOptions so;
    so.check = co;
    so.search = search;
    if (maxStates) so.maxStates = maxStates;
    std::set<Value> reads;
    so.check.onExecution = [&](const ExecutionInfo& e) {
      if (!e.blocked) reads.insert(mainRead(e));
    };
    const StateSpaceResult r = exploreStates(prog, so);
    (search == StateSearch::Bfs ? out.bfsStates : out.dporStates) = r.states;
    if (!r.exhaustive && !r.result.violation) {
      (search == StateSearch::Bfs ? out.statefulSkipped : out.dporSkipped) = true;
      continue;
    }
    if (r.result.status == Status::Error) fail(std::string("engine error (") + name + "): " + r.result.message);
    if (bool(r.result.violation) != bool(g.violation))
      fail(std::string("verdict: ") + name + (r.result.violation ? " violation" : " no violation") +
           ", graph explorer " + (g.violation ? "violation" : "no violation"));
    else if (!g.violation && reads != graph)
      fail(std::string("what main read: ") + name + " " + show(reads) + ", graph explorer " + show(graph));
  }
  out.why = why.str();
  return out;
}

bool violates(const Program& prog, Model model) {
  CheckOptions o;
  o.model = model;
  return check(prog, o).status == Status::Violation;
}

DiffOutcome preemptionDifferential(const Program& prog, Model model, int maxBound, double naiveSeconds) {
  DiffOutcome out;
  std::ostringstream why;
  const NaiveBudget budget = naiveBudget(Limits{}, naiveSeconds);
  bool naiveTimedOut = false;
  const std::map<std::string, int> minP =
      naiveMinPreemptions(prog, model, -1, maxBound, budget.limits, budget.maxCached, &naiveTimedOut);
  if (naiveTimedOut) {
    out.naiveTimedOut = true;
    return out;
  }
  // The classes of a run (each once: `twice` otherwise).
  auto classesOf = [](const Program& p, CheckOptions o, std::map<std::string, int>& seen, bool& twice) {
    o.onExecution = [&](const ExecutionInfo& info) {
      if (info.blocked) return;
      twice |= !seen.emplace(info.traceKey, info.preemptionLowerBound).second;
    };
    return check(p, o);
  };
  std::optional<std::set<std::string>> unbounded;  // the unbounded search's classes, when needed
  for (int bound = 0; bound <= maxBound; ++bound) {
    std::map<std::string, int> seen;  // trace key -> the explorer's lower bound
    bool twice = false;
    CheckOptions o;
    o.model = model;
    o.preemptionBound = bound;
    o.stopAtFirstError = false;
    o.testing.checkOrders = true;  // also: every graph pruned by the kept bound is pruned by the one from scratch
    o.boundProbe = 0;
    const CheckResult r = classesOf(prog, o, seen, twice);
    out.executions += r.executions;
    out.violation |= bool(r.violation);
    auto fail = [&](const std::string& what) {
      why << (out.agree ? "" : "; ") << modelName(model) << " preemption bound " << bound << ": " << what;
      out.agree = false;
    };
    if (r.status == Status::Error) fail("engine error: " + r.message);
    if (twice) fail("a trace explored twice");
    for (const auto& [key, n] : minP) {
      auto it = seen.find(key);
      if (n <= bound && it == seen.end()) {
        fail("a class needing " + std::to_string(n) + " preemptions is missing:\n" + key);
        break;
      }
      if (it != seen.end() && it->second > n) {
        fail("lower bound " + std::to_string(it->second) + " above the minimum " + std::to_string(n) + ":\n" + key);
        break;
      }
    }
    // A probe of two ended executions (CheckOptions::boundProbe): dropped,
    // the classes are the unbounded search's; kept, those of the run above.
    std::map<std::string, int> probed;
    bool probedTwice = false;
    o.boundProbe = 2;
    const CheckResult p = classesOf(prog, o, probed, probedTwice);
    if (probedTwice) fail("a trace explored twice after the probe");
    std::set<std::string> keys, want;
    for (const auto& kv : probed) keys.insert(kv.first);
    if (p.boundDropped) {
      if (!unbounded) {
        CheckOptions u = o;
        u.preemptionBound = -1;
        std::map<std::string, int> all;
        bool allTwice = false;
        classesOf(prog, u, all, allTwice);
        unbounded.emplace();
        for (const auto& kv : all) unbounded->insert(kv.first);
      }
      want = *unbounded;
    } else {
      for (const auto& kv : seen) want.insert(kv.first);
    }
    if (keys != want)
      fail(std::string("the probe's run (bound ") + (p.boundDropped ? "dropped" : "kept") + ") explored " +
           std::to_string(keys.size()) + " classes against " + std::to_string(want.size()));
  }
  out.why = why.str();
  return out;
}

namespace {

// What a shard merge must reproduce: counts, status, message, limits, and
// each violation with its trace (steps by thread, kind, place and value).
std::string shardView(const CheckResult& r) {
  std::ostringstream o;
  o << statusName(r.status) << " | " << r.message << " | " << r.executions << " " << r.blocked << " " << r.cut << " "
    << r.events << " " << r.staleWaits << " " << r.staleReads;
  for (const std::string& l : r.limitsHit) o << "\nlimit " << l;
  auto trace = [&](const Violation& v) {
    o << "\n" << errorKindName(v.kind) << " T" << v.thread << " " << v.message << (v.warning ? " (warning)" : "");
    for (const TraceStep& s : v.trace)
      o << "\n  T" << s.thread << " " << int(s.kind) << " " << s.loc.line << ":" << s.loc.column << " " << s.addrName
        << "=" << s.value << " " << s.note;
  };
  for (const Violation& v : r.violations) trace(v);
  if (r.violation) trace(*r.violation);
  return o.str();
}

}  // namespace

DiffOutcome shardDifferential(const Program& prog, Model model) {
  DiffOutcome out;
  for (bool keepGoing : {false, true}) {
    CheckOptions o;
    o.model = model;
    o.stopAtFirstError = !keepGoing;
    const CheckResult single = check(prog, o);
    out.executions += single.executions;
    out.violation = out.violation || single.violation.has_value();
    const std::string want = shardView(single);
    for (uint32_t depth : {2u, 5u})
      for (uint32_t count : {2u, 3u, 7u}) {
        std::vector<CheckResult> parts;
        for (uint32_t i = 0; i < count; ++i) {
          CheckOptions s = o;
          s.shard = {i, count, depth};
          parts.push_back(check(prog, s));
        }
        const CheckResult merged = mergeShards(parts, o);
        const std::string at = std::string(modelName(model)) + (keepGoing ? " keep going, " : ", ") +
                               std::to_string(count) + " shards cut at " + std::to_string(depth);
        if (shardView(merged) != want) {
          out.agree = false;
          out.why = at + ": the merge differs from the single run\nsingle:\n" + want + "\nmerged:\n" +
                    shardView(merged);
          return out;
        }
        if (keepGoing || !merged.violation || !merged.violation->shardOrder) continue;
        CheckOptions p = o;
        p.shard = {0, count, depth, shardPieceOf(*merged.violation->shardOrder, depth)};
        const CheckResult again = check(prog, p);
        CheckResult onlyFirst;
        if (again.violation) onlyFirst.violation = again.violation;
        CheckResult wantFirst;
        wantFirst.violation = single.violation;
        if (!again.violation || shardView(onlyFirst) != shardView(wantFirst)) {
          out.agree = false;
          out.why = at + ": the counterexample's piece searched again does not give it\n" + shardView(again);
          return out;
        }
      }
  }
  return out;
}

DiffOutcome raceDifferential(const Program& prog, double naiveSeconds) {
  DiffOutcome out;
  std::ostringstream why;
  const NaiveBudget budget = naiveBudget(Limits{}, naiveSeconds);
  const NaiveResult naive = exploreNaiveRc11Races(prog, budget.limits, budget.maxCached);
  if (naive.timedOut) {
    out.naiveTimedOut = true;
    return out;
  }
  using Pairs = std::set<std::pair<std::string, std::string>>;
  auto pairOf = [&](const SourceLoc& x, const SourceLoc& y) {
    std::string a = prog.locString(x), b = prog.locString(y);
    if (b < a) std::swap(a, b);
    return std::make_pair(a, b);
  };
  auto show = [](const Pairs& ps) {
    std::string s;
    for (const auto& [a, b] : ps) s += " (" + a + ", " + b + ")";
    return s.empty() ? std::string(" none") : s;
  };
  // Per graph: the detector against the oracle.
  Rc11Checker rc11;
  RaceDetector detector(prog, &rc11);
  Pairs oraclePairs;                   // over the explorer's graphs
  Pairs detectorPairs;                 // the detector's, over the same graphs
  std::map<std::string, Addr> addrOf;  // source location -> address, of the graphs' accesses
  uint64_t graphs = 0;
  bool graphMismatch = false;
  const DiffConfig c{Model::RC11, -1};
  CheckOptions opts = graphOptions(c, false, c.order);
  opts.onExecution = [&](const ExecutionInfo& info) {
    if (!info.graph || graphMismatch) return;
    const Graph& g = *info.graph;
    ++graphs;
    const HbExecution x = hbExecutionOf(g);
    const std::vector<OracleRace> want = rc11RacesByMatrices(x);
    std::vector<Race> found;
    detector.find(g, found);
    auto racing = [&](EventId a, EventId b) {
      return std::any_of(want.begin(), want.end(), [&](const OracleRace& r) {
        return (EventId{r.thread1, r.index1} == a && EventId{r.thread2, r.index2} == b) ||
               (EventId{r.thread1, r.index1} == b && EventId{r.thread2, r.index2} == a);
      });
    };
    std::set<Addr> wantAddrs, gotAddrs;
    for (const OracleRace& r : want) {
      const HbEvent& a = x[r.thread1][r.index1];
      wantAddrs.insert(a.addr);
      oraclePairs.insert(pairOf(a.loc, x[r.thread2][r.index2].loc));
    }
    for (const auto& th : x)
      for (const HbEvent& e : th)
        if (e.kind == HbEvent::Access) addrOf[prog.locString(e.loc)] = e.addr;
    for (const Race& r : found) {
      gotAddrs.insert(g.ev(r.first).addr);
      detectorPairs.insert(pairOf(g.ev(r.first).loc, g.ev(r.second).loc));
      if (!racing(r.first, r.second)) {
        why << "detector names a race the oracle does not: T" << r.first.thread << "." << r.first.index << " and T"
            << r.second.thread << "." << r.second.index << " in\n" << info.traceKey << "\n";
        graphMismatch = true;
      }
    }
    if (gotAddrs != wantAddrs) {
      why << "detector's racing addresses differ from the oracle's (" << gotAddrs.size() << " vs " << wantAddrs.size()
          << ") in\n" << info.traceKey << "\n";
      graphMismatch = true;
    }
    for (const OracleRace& r : want) {
      const EventId a{r.thread1, r.index1}, b{r.thread2, r.index2};
      if (std::none_of(found.begin(), found.end(), [&](const Race& f) { return f.second == a || f.second == b; })) {
        why << "detector misses the race of T" << a.thread << "." << a.index << " and T" << b.thread << "." << b.index
            << " in\n" << info.traceKey << "\n";
        graphMismatch = true;
      }
    }
  };
  const CheckResult g = check(prog, opts);
  out.executions = g.executions;
  out.status = g.status;
  out.violation = !naive.racePairs.empty();
  if (graphMismatch) {
    out.agree = false;
    out.why = why.str();
    return out;
  }
  if (oraclePairs != naive.racePairs)
    why << "racing pairs over the explorer's executions:" << show(oraclePairs)
        << "\nover the naive explorer's:" << show(naive.racePairs) << "\n";
  // What the explorer reported.
  Pairs reported;
  std::set<std::string> endpoints;
  std::set<Addr> reportedAddrs;
  for (const Violation& v : g.violations) {
    if (v.kind != ErrorKind::DataRace || !v.other) {
      why << "an unexpected violation: " << v.message << "\n";
      continue;
    }
    reported.insert(pairOf(v.loc, v.other->loc));
    for (const SourceLoc& l : {v.loc, v.other->loc}) {
      endpoints.insert(prog.locString(l));
      if (auto it = addrOf.find(prog.locString(l)); it != addrOf.end()) reportedAddrs.insert(it->second);
    }
  }
  for (const auto& p : reported)
    if (!naive.racePairs.count(p)) why << "reported a race the oracle does not find: (" << p.first << ", " << p.second << ")\n";
  // The explorer's own detector saw the same graphs: it reports what the
  // detector names on them (all of it below the cap).
  const bool capped = reported.size() >= CheckResult::kMaxRaces;
  if (capped ? !std::includes(detectorPairs.begin(), detectorPairs.end(), reported.begin(), reported.end())
             : reported != detectorPairs)
    why << "the detector on the explorer's graphs names" << show(detectorPairs) << "\n";
  if ((g.status == Status::Violation) != out.violation)
    why << "verdict " << statusName(g.status) << " but the oracle's racing pairs are" << show(naive.racePairs) << "\n";
  if (!capped) {
    if (reportedAddrs != naive.racyAddrs)
      why << "reported racing addresses differ from the oracle's (" << reportedAddrs.size() << " vs "
          << naive.racyAddrs.size() << ")\n";
    for (const auto& [a, b] : naive.racePairs)
      if (!endpoints.count(a) && !endpoints.count(b))
        why << "neither access of the racing pair (" << a << ", " << b << ") is reported\n";
  }
  out.why = why.str();
  out.agree = out.why.empty();
  if (!out.agree) out.why += "reported:" + show(reported) + "\n";
  return out;
}

}  // namespace tsocheck::testing

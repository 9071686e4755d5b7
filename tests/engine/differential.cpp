#include "tests/engine/differential.h"

#include <set>
#include <sstream>
#include <vector>

#include "engine/state_space.h"
#include "tests/engine/naive_explorer.h"

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
}  // namespace

StateSpaceResult exploreStatesWithFinals(const Program& prog, const DiffConfig& c, uint64_t maxStates,
                                         FinalStates* finals, StateSearch search) {
  StateSpaceOptions so;
  so.model = c.model;
  so.search = search;
  so.bufferBound = c.bound;
  so.limits = c.limits;
  so.stopAtFirstError = false;
  if (maxStates) so.maxStates = maxStates;
  so.onExecution = [&](const ExecutionInfo& info) {
    if (!info.blocked) finals->insert(info.finalMemory);
  };
  return exploreStates(prog, so);
}

DiffOutcome differential(const Program& prog, const DiffConfig& c) {
  DiffOutcome out;
  std::ostringstream why;
  const char* cfg = modelName(c.model);

  NaiveResult naive = exploreNaive(prog, c.model, c.bound, c.limits);
  const bool naiveError = naive.errorRuns > 0 || naive.deadlockRuns > 0;

  std::set<std::string> keys;
  uint64_t callbacks = 0;
  Finals graphFinals, stateFinals;
  CheckOptions opts;
  opts.model = c.model;
  opts.bufferBound = c.bound;
  opts.limits = c.limits;
  opts.stopAtFirstError = false;
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

  StateSpaceResult ss = exploreStatesWithFinals(prog, c, c.maxStates, &stateFinals);
  const CheckResult& s = ss.result;
  out.statefulSkipped = ss.stateLimitHit;
  out.bfsStates = ss.states;
  Finals dporFinals;
  StateSpaceResult sd = exploreStatesWithFinals(prog, c, c.maxStates, &dporFinals, StateSearch::Dpor);
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
  out.why = why.str();
  return out;
}

DiffOutcome sectionDifferential(const Program& prog, const DiffConfig& c) {
  DiffOutcome out;
  const NaiveResult naive = exploreNaive(prog, c.model, c.bound, c.limits);
  const bool naiveError = naive.errorRuns > 0 || naive.deadlockRuns > 0;
  std::ostringstream why;
  auto fail = [&](const std::string& what) {
    why << (out.agree ? std::string(modelName(c.model)) + " bound " + std::to_string(c.bound) + ": " : "; ") << what;
    out.agree = false;
  };
  for (StateSearch search : {StateSearch::Bfs, StateSearch::Dpor}) {
    const char* name = search == StateSearch::Bfs ? "stateful BFS" : "stateful DPOR";
    Finals finals;  // (the state space is the only explorer here: no state cap)
    const StateSpaceResult ss = exploreStatesWithFinals(prog, c, 0, &finals, search);
    const CheckResult& s = ss.result;
    out.executions = s.executions;
    out.violation = bool(s.violation);
    out.status = s.status;
    (search == StateSearch::Bfs ? out.bfsStates : out.dporStates) = ss.states;
    if (s.status == Status::Error) fail(std::string("engine error (") + name + "): " + s.message);
    if (!ss.exhaustive && !s.violation) fail(std::string("the search was cut (") + name + ")");
    if (bool(s.violation) != naiveError)
      fail(std::string("verdict: ") + name + (s.violation ? " violation" : " no violation") + ", naive " +
           (naiveError ? "error runs" : "no error"));
    if (!naiveError && out.agree && finals != naive.finalStates)
      fail(std::string("final states: ") + name + "\n" + showFinals(finals) + "naive\n" + showFinals(naive.finalStates));
  }
  out.why = why.str();
  return out;
}

}  // namespace tsocheck::testing

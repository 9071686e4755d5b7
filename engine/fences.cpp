#include "engine/fences.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace tsocheck {

const char* fenceOutcomeName(FenceOutcome o) {
  switch (o) {
    case FenceOutcome::NotNeeded: return "not-needed";
    case FenceOutcome::ScViolation: return "sc-violation";
    case FenceOutcome::Fixed: return "fixed";
    case FenceOutcome::GaveUp: return "gave-up";
  }
  return "?";
}

Program insertFences(const Program& prog, const std::vector<FencePosition>& fences,
                     std::vector<std::vector<uint32_t>>* newPcToOld) {
  Program out = prog;
  if (newPcToOld) newPcToOld->assign(prog.functions.size(), {});
  for (size_t f = 0; f < prog.functions.size(); ++f) {
    const std::vector<Instr>& code = prog.functions[f].code;
    std::vector<bool> after(code.size(), false);
    for (const FencePosition& p : fences)
      if (p.function == f && p.pc < code.size()) after[p.pc] = true;
    // New index of every old instruction (and of the end, for jumps past it).
    std::vector<uint32_t> moved(code.size() + 1);
    uint32_t n = 0;
    for (size_t pc = 0; pc < code.size(); ++pc) {
      moved[pc] = n;
      n += after[pc] ? 2 : 1;
    }
    moved[code.size()] = n;
    auto target = [&](int64_t old) -> int64_t {
      return old >= 0 && uint64_t(old) <= code.size() ? int64_t(moved[size_t(old)]) : old;
    };
    std::vector<Instr> fresh;
    fresh.reserve(n);
    std::vector<uint32_t> back;
    back.reserve(n);
    for (size_t pc = 0; pc < code.size(); ++pc) {
      Instr in = code[pc];
      if (in.op == Op::Jmp) in.imm = target(in.imm);
      if (in.op == Op::Br) {
        in.imm = target(in.imm);
        in.imm2 = target(in.imm2);
      }
      fresh.push_back(in);
      back.push_back(uint32_t(pc));
      if (after[pc]) {
        Instr fence;
        fence.op = Op::Fence;
        fence.sub = uint8_t(FenceKind::Full);
        fence.loc = code[pc].loc;
        fresh.push_back(fence);
        back.push_back(uint32_t(pc));
      }
    }
    out.functions[f].code = std::move(fresh);
    if (newPcToOld) (*newPcToOld)[f] = std::move(back);
  }
  return out;
}

std::vector<FencePosition> candidatePositions(const Program& prog, Model model, const Violation& v) {
  return analyseCounterexample(prog, model, v).all;
}

namespace {

// The cycle analysis gives up (critical = all) on traces with more events.
constexpr size_t kMaxCycleNodes = 6000;
constexpr double kNever = std::numeric_limits<double>::infinity();

// A counterexample trace as a graph, for analyseCounterexample. One node per
// event of the trace (a flush is its store's node). `sigma` is where the
// event takes effect in the trace: a store when it reaches memory (never:
// still buffered at the end), a load served by its own buffer right after
// the store it reads (it reads nothing from memory).
struct CounterexampleGraph {
  struct Node {
    uint32_t thread = 0;
    bool mem = false, write = false;
    Addr addr = 0;
    double sigma = kNever;
    int source = -1;  // a buffered load: the store it reads
    int poNext = -1;
    std::vector<int> extra;  // spawn -> the child's first event; a thread's event -> a later join
  };
  struct Issued {
    uint32_t event;
    FencePosition pos;
    Addr addr;
    bool flushed = false;
    int node = -1;
  };
  // A delayed event e of `thread`: the stores issued[thread][from..to) are its
  // candidate positions; `delayed` those of them still buffered (to another
  // address) when e took effect.
  struct Delay {
    uint32_t thread;
    int node;
    size_t from, to;
    std::vector<size_t> delayed;
  };
  std::vector<Node> nodes;
  std::vector<int> lastNode, firstNode;
  std::vector<std::vector<Issued>> issued;  // per thread, in program order
  std::vector<Delay> delays;
  std::vector<FencePosition> atSection;  // stores delayed past another thread's section start
  std::vector<std::pair<int, uint32_t>> spawns;  // (node, child)

  CounterexampleGraph(const Program& prog, const Violation& v) {
    for (size_t step = 0; step < v.trace.size(); ++step) {
      const TraceStep& s = v.trace[step];
      if (s.event == TraceStep::kNoEvent) continue;
      threadSlot(s.thread);
      addStep(prog, s, double(step));
    }
    for (const auto& [n, child] : spawns)
      if (child < firstNode.size() && firstNode[child] >= 0) nodes[size_t(n)].extra.push_back(firstNode[child]);
    for (Node& n : nodes)
      if (n.source >= 0) n.sigma = nodes[size_t(n.source)].sigma + 0.5;
  }

 private:
  void threadSlot(uint32_t t) {
    if (issued.size() <= t) issued.resize(t + 1);
    if (lastNode.size() <= t) lastNode.resize(t + 1, -1), firstNode.resize(t + 1, -1);
  }
  int newNode(uint32_t t) {
    nodes.push_back(Node{});
    nodes.back().thread = t;
    const int id = int(nodes.size() - 1);
    if (lastNode[t] >= 0) nodes[size_t(lastNode[t])].poNext = id;
    else firstNode[t] = id;
    lastNode[t] = id;
    return id;
  }
  // Event `node` of thread t, at address addr, took effect while some of the
  // thread's stores issued[t][0..to) to other addresses were still buffered.
  void noteDelay(uint32_t t, int node, size_t to, Addr addr) {
    const std::vector<Issued>& mine = issued[t];
    Delay d{t, node, mine.size(), to, {}};
    for (size_t i = 0; i < to; ++i)
      if (!mine[i].flushed && mine[i].addr != addr) {
        d.from = std::min(d.from, i);
        d.delayed.push_back(i);
      }
    if (!d.delayed.empty()) delays.push_back(std::move(d));
  }
  void addStep(const Program& prog, const TraceStep& s, double at) {
    std::vector<Issued>& mine = issued[s.thread];
    switch (s.kind) {
      case StepKind::Store: {
        FencePosition p{s.function, s.pc, s.loc};
        if (s.function < prog.functions.size() && s.pc < prog.functions[s.function].code.size())
          p.loc = prog.functions[s.function].code[s.pc].loc;
        const int n = newNode(s.thread);
        nodes[size_t(n)].mem = nodes[size_t(n)].write = true;
        nodes[size_t(n)].addr = s.addr;
        mine.push_back(Issued{s.event, p, s.addr, false, n});
        break;
      }
      case StepKind::Flush: {
        size_t self = mine.size();
        for (size_t i = 0; i < mine.size(); ++i)
          if (mine[i].event == s.event) self = i;
        if (self == mine.size()) break;
        nodes[size_t(mine[self].node)].sigma = at;
        // PSO: an older store to another address is still buffered when this
        // one reaches memory (store -> store relaxed).
        noteDelay(s.thread, mine[self].node, self, s.addr);
        mine[self].flushed = true;
        break;
      }
      case StepKind::LoadMem:
      case StepKind::LoadBuf: {
        const int n = newNode(s.thread);
        Node& me = nodes[size_t(n)];
        me.mem = true;
        me.addr = s.addr;
        me.sigma = at;
        if (s.kind == StepKind::LoadBuf)
          for (size_t i = mine.size(); i-- > 0;)
            if (!mine[i].flushed && mine[i].addr == s.addr) {
              me.source = mine[i].node;
              break;
            }
        // An older store to another address is still buffered when this load
        // takes effect (store -> load relaxed).
        noteDelay(s.thread, n, mine.size(), s.addr);
        break;
      }
      case StepKind::Rmw:
      case StepKind::Lock:
      case StepKind::Unlock:
      case StepKind::TryLock: {
        const int n = newNode(s.thread);
        nodes[size_t(n)].mem = s.hasAddr;
        nodes[size_t(n)].write = true;  // conservative: a failed CAS or a held lock counts as a write too
        nodes[size_t(n)].addr = s.addr;
        nodes[size_t(n)].sigma = at;
        break;
      }
      case StepKind::Spawn: {
        const int n = newNode(s.thread);
        nodes[size_t(n)].sigma = at;
        if (s.spawned != TraceStep::kNoThread) spawns.emplace_back(n, s.spawned);
        break;
      }
      case StepKind::Join: {
        // Conservatively ordered after every event of every other thread so far.
        const int n = newNode(s.thread);
        nodes[size_t(n)].sigma = at;
        for (size_t u = 0; u < lastNode.size(); ++u)
          if (u != s.thread && lastNode[u] >= 0) nodes[size_t(lastNode[u])].extra.push_back(n);
        break;
      }
      case StepKind::Atomic:
        // Another thread's atomic section starts while a store is still
        // buffered: under SC that store took effect before this section
        // (the end of its own section, or of whatever ran before): delayed
        // past that point. Used only when the counterexample has no other
        // delayed pair (analyseCounterexample).
        for (size_t u = 0; u < issued.size(); ++u) {
          if (u == s.thread) continue;
          for (size_t i = 0; i < issued[u].size(); ++i)
            if (!issued[u][i].flushed) {
              for (size_t j = i; j < issued[u].size(); ++j) atSection.push_back(issued[u][j].pos);
              break;
            }
        }
        newNode(s.thread);
        break;
      default:
        nodes[size_t(newNode(s.thread))].sigma = at;
        break;
    }
  }
};

void sortUnique(std::vector<FencePosition>& xs) {
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
}

// The cycle analysis: a delay is critical when the delayed event reaches one
// of the stores it overtook through program order, spawn/join and conflicts
// (per address, in trace order): out.critical and out.placement from g.
void criticalDelays(CounterexampleGraph& g, CandidateAnalysis& out) {
  using Node = CounterexampleGraph::Node;
  const std::vector<Node>& nodes = g.nodes;
  out.refined = true;
  // Conflicts: per address, the memory events in trace order.
  std::map<Addr, std::vector<int>> byAddr;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].mem) byAddr[nodes[i].addr].push_back(int(i));
  for (auto& [a, list] : byAddr)
    std::stable_sort(list.begin(), list.end(), [&](int x, int y) { return nodes[size_t(x)].sigma < nodes[size_t(y)].sigma; });
  std::vector<char> seen(nodes.size());
  std::vector<int> work;
  auto reachableFrom = [&](int from) {
    std::fill(seen.begin(), seen.end(), 0);
    work.assign(1, from);
    seen[size_t(from)] = 1;
    auto push = [&](int n) {
      if (n >= 0 && !seen[size_t(n)]) {
        seen[size_t(n)] = 1;
        work.push_back(n);
      }
    };
    while (!work.empty()) {
      const Node& a = nodes[size_t(work.back())];
      work.pop_back();
      push(a.poNext);
      for (int x : a.extra) push(x);
      if (!a.mem || a.sigma == kNever) continue;
      const std::vector<int>& list = byAddr[a.addr];
      auto it = std::upper_bound(list.begin(), list.end(), a.sigma,
                                 [&](double sig, int n) { return sig < nodes[size_t(n)].sigma; });
      for (; it != list.end(); ++it) {
        const Node& b = nodes[size_t(*it)];
        if (b.thread != a.thread && (a.write || b.write)) push(*it);
      }
    }
  };
  for (const CounterexampleGraph::Delay& d : g.delays) {
    reachableFrom(d.node);
    size_t first = d.to;
    for (size_t i : d.delayed)
      if (seen[size_t(g.issued[d.thread][i].node)]) {
        first = i;
        break;
      }
    if (first == d.to) continue;  // no delay into this event is on a cycle
    for (size_t i = first; i < d.to; ++i) out.critical.push_back(g.issued[d.thread][i].pos);
    out.placement.push_back(g.issued[d.thread][d.to - 1].pos);
  }
  sortUnique(out.critical);
  sortUnique(out.placement);
}

}  // namespace

CandidateAnalysis analyseCounterexample(const Program& prog, Model model, const Violation& v) {
  CandidateAnalysis out;
  if (!MemoryModel{model}.hasStoreBuffers()) return out;
  CounterexampleGraph g(prog, v);
  for (const CounterexampleGraph::Delay& d : g.delays)
    for (size_t i = d.from; i < d.to; ++i) out.all.push_back(g.issued[d.thread][i].pos);
  sortUnique(out.all);
  if (out.all.empty()) {
    sortUnique(g.atSection);
    out.all = out.critical = out.placement = g.atSection;
    return out;
  }
  if (g.nodes.size() > kMaxCycleNodes) {
    out.critical = out.all;
    for (const CounterexampleGraph::Delay& d : g.delays) out.placement.push_back(g.issued[d.thread][d.to - 1].pos);
    sortUnique(out.placement);
    return out;
  }
  criticalDelays(g, out);
  return out;
}

namespace {

// Register-only instructions that cannot fail: a fence before one of them
// acts the same after it.
bool pureInstr(Op op) {
  switch (op) {
    case Op::Const: case Op::Mov: case Op::Cmp: case Op::Ext: case Op::Select:
    case Op::FuncAddr: case Op::GlobalAddr: case Op::TlsAddr: case Op::Nop:
      return true;
    default:
      return false;
  }
}

// `code` with every fence moved after the pure instructions that follow it
// (unless one is a jump target): a fence placed after a statement and one
// placed right after its store compare equal when only such instructions lie
// between them.
std::vector<Instr> fencesLate(std::vector<Instr> code) {
  std::vector<bool> target(code.size() + 1, false);
  auto mark = [&](int64_t t) {
    if (t >= 0 && uint64_t(t) < target.size()) target[size_t(t)] = true;
  };
  for (const Instr& in : code) {
    if (in.op == Op::Jmp) mark(in.imm);
    if (in.op == Op::Br) mark(in.imm), mark(in.imm2);
  }
  for (size_t pc = 0; pc + 1 < code.size(); ++pc)
    if (code[pc].op == Op::Fence && pureInstr(code[pc + 1].op) && !target[pc + 1]) std::swap(code[pc], code[pc + 1]);
  return code;
}

}  // namespace

bool sameProgram(const Program& a, const Program& b) {
  if (a.functions.size() != b.functions.size() || a.globals.size() != b.globals.size() ||
      a.threadLocals.size() != b.threadLocals.size() || a.tlsPrivateSize != b.tlsPrivateSize || a.entry != b.entry)
    return false;
  // Strings are messages and name hints; those that quote a source
  // location ("loop at f.c:23 cut ...") differ by the lines an edit shifts:
  // compared with their numbers blanked out.
  auto str = [](const Program& p, uint32_t i) {
    std::string s = i < p.strings.size() ? p.strings[i] : std::string();
    std::string out;
    for (size_t k = 0; k < s.size(); ++k)
      if (std::isdigit(static_cast<unsigned char>(s[k]))) {
        if (out.empty() || out.back() != '#') out += '#';
      } else {
        out += s[k];
      }
    return out;
  };
  for (size_t f = 0; f < a.functions.size(); ++f) {
    const Function &x = a.functions[f], &y = b.functions[f];
    if (x.name != y.name || x.numParams != y.numParams || x.numRegs != y.numRegs || x.args != y.args ||
        x.code.size() != y.code.size())
      return false;
    const std::vector<Instr> xc = fencesLate(x.code), yc = fencesLate(y.code);
    for (size_t pc = 0; pc < xc.size(); ++pc) {
      const Instr &i = xc[pc], &j = yc[pc];
      if (semanticFields(i) != semanticFields(j) || str(a, i.name) != str(b, j.name)) return false;
    }
  }
  for (size_t g = 0; g < a.globals.size(); ++g) {
    const Global &x = a.globals[g], &y = b.globals[g];
    if (x.name != y.name || x.addr != y.addr || x.size != y.size || x.init != y.init || x.elemSize != y.elemSize)
      return false;
  }
  for (size_t t = 0; t < a.threadLocals.size(); ++t) {
    const ThreadLocal &x = a.threadLocals[t], &y = b.threadLocals[t];
    if (x.name != y.name || x.offset != y.offset || x.size != y.size || x.isPrivate != y.isPrivate || x.init != y.init ||
        x.elemSize != y.elemSize)
      return false;
  }
  return true;
}

namespace {

bool hitsAll(const std::vector<std::vector<FencePosition>>& sets, const std::vector<FencePosition>& chosen) {
  for (const auto& s : sets) {
    bool hit = false;
    for (const FencePosition& c : chosen)
      if (std::binary_search(s.begin(), s.end(), c)) {
        hit = true;
        break;
      }
    if (!hit) return false;
  }
  return true;
}

}  // namespace

std::vector<FencePosition> minimumHittingSet(const std::vector<std::vector<FencePosition>>& sets,
                                             size_t maxSize, uint64_t maxCombinations, bool* exact) {
  if (exact) *exact = true;
  std::vector<FencePosition> universe;
  for (const auto& s : sets) {
    if (s.empty()) return {};
    universe.insert(universe.end(), s.begin(), s.end());
  }
  std::sort(universe.begin(), universe.end());
  universe.erase(std::unique(universe.begin(), universe.end()), universe.end());
  if (sets.empty()) return {};
  const size_t n = universe.size();
  uint64_t tried = 0;
  // Exact: every k-subset of the universe in lexicographic order, k = 1, 2, ...
  for (size_t k = 1; k <= std::min(maxSize, n); ++k) {
    std::vector<size_t> idx(k);
    for (size_t i = 0; i < k; ++i) idx[i] = i;
    std::vector<FencePosition> chosen(k);
    while (true) {
      if (++tried > maxCombinations) goto greedy;
      for (size_t i = 0; i < k; ++i) chosen[i] = universe[idx[i]];
      if (hitsAll(sets, chosen)) return chosen;
      // Next combination.
      size_t i = k;
      while (i > 0 && idx[i - 1] == n - k + (i - 1)) --i;
      if (i == 0) break;
      ++idx[i - 1];
      for (size_t j = i; j < k; ++j) idx[j] = idx[j - 1] + 1;
    }
  }
  return {};
greedy:
  if (exact) *exact = false;
  {
    // Repeatedly take the position that hits the most sets not hit yet.
    std::vector<FencePosition> chosen;
    std::vector<bool> done(sets.size(), false);
    while (chosen.size() < maxSize) {
      size_t best = n, bestCount = 0;
      for (size_t u = 0; u < n; ++u) {
        size_t count = 0;
        for (size_t s = 0; s < sets.size(); ++s)
          if (!done[s] && std::binary_search(sets[s].begin(), sets[s].end(), universe[u])) ++count;
        if (count > bestCount) best = u, bestCount = count;
      }
      if (best == n) break;
      chosen.push_back(universe[best]);
      for (size_t s = 0; s < sets.size(); ++s)
        if (std::binary_search(sets[s].begin(), sets[s].end(), universe[best])) done[s] = true;
    }
    std::sort(chosen.begin(), chosen.end());
    if (!hitsAll(sets, chosen)) return {};
    return chosen;
  }
}

const Violation* violationNotUnderSc(const CheckResult& r, const CheckResult& sc) {
  for (const Violation& v : r.violations) {
    if (v.warning) continue;
    bool underSc = false;
    for (const Violation& o : sc.violations) underSc = underSc || sameError(v, o);
    if (!underSc) return &v;
  }
  return nullptr;
}

namespace {

// One run of synthesizeFences: the state its steps share.
class FenceSynthesis {
 public:
  FenceSynthesis(const Program& prog, const CheckOptions& opts, const FenceSynthesisOptions& fopts)
      : prog_(prog), opts_(opts), fopts_(fopts), start_(Clock::now()), robustGoal_(opts.robustness) {}

  FenceSynthesisResult run(const CheckResult* initial);

 private:
  using Clock = std::chrono::steady_clock;
  // What a counterexample taught (learn).
  enum class Learned { New, Known, UnderSc, Nothing };

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double remaining() const { return fopts_.timeBudgetSeconds - elapsed(); }
  FenceSynthesisResult finish() {
    res_.seconds = elapsed();
    return res_;
  }
  CheckResult checkProgram(const Program& p, Model model, bool* outOfTime,
                           double cap = std::numeric_limits<double>::infinity());
  const Violation* counterexample(const CheckResult& r) const;
  bool checkSc(double cap);
  bool settledBeforeSearch(const CheckResult& first);
  Learned learn(const Program& checked, const std::vector<std::vector<uint32_t>>& back, const Violation& v);
  bool learnFromFirst(const CheckResult& first);
  bool nextSet(std::vector<FencePosition>* chosen);
  bool tryFences(const std::vector<FencePosition>& chosen);
  void reportRound(size_t fences, bool passed, uint64_t executions, double t0) const;
  void fixedBy(const std::vector<FencePosition>& chosen);

  const Program& prog_;
  const CheckOptions& opts_;
  const FenceSynthesisOptions& fopts_;
  const Clock::time_point start_;
  // Robustness search in the checks: as asked for the first one, then only
  // when robustness is the goal (it would only slow the violation search).
  bool robustGoal_;
  uint64_t lastExecutions_ = 0;
  FenceSynthesisResult res_;
  bool outOfTime_ = false;
  std::vector<std::vector<FencePosition>> sets_;  // candidate sets of the counterexamples seen
  std::vector<FencePosition> placement_;          // the growing seed (critical-cycle placement)
  bool seeding_ = false;
  std::vector<FencePosition> good_;  // a set whose fenced program passed (seeding's result)
  std::vector<FencePosition> lastTried_;
  CheckResult passed_;  // the re-check of `good_` (then of the answer)
};

// Every check of the synthesis stops at the first error and reports nothing
// per execution; `cap` bounds it below what is left of the budget.
CheckResult FenceSynthesis::checkProgram(const Program& p, Model model, bool* outOfTime, double cap) {
  CheckOptions o = opts_;
  o.model = model;
  o.stateful = o.stateful || hasAtomicSections(p);  // (traces with section starts: StepKind::Atomic)
  o.raceCheck = false;  // fences do not change data races
  o.robustness = robustGoal_;
  o.stopAtFirstError = true;
  o.onExecution = nullptr;
  double left = std::min(remaining(), cap);
  *outOfTime = left <= 0;
  o.timeLimitSeconds = opts_.timeLimitSeconds > 0 ? std::min(opts_.timeLimitSeconds, left) : left;
  if (!std::isfinite(o.timeLimitSeconds)) o.timeLimitSeconds = 0;  // no budget: no limit
  if (*outOfTime) {
    CheckResult none;
    none.status = Status::Timeout;
    none.message = "the synthesis time budget ran out";
    return none;
  }
  CheckResult r = check(p, o);
  lastExecutions_ = r.executions;
  // The limit that stopped it was the budget's (not the check's own).
  if (r.status == Status::Timeout && remaining() <= 0) *outOfTime = true;
  return r;
}

const Violation* FenceSynthesis::counterexample(const CheckResult& r) const {
  if (robustGoal_) return r.robustness && r.robustness->witness ? &*r.robustness->witness : nullptr;
  return r.status == Status::Violation ? violationNotUnderSc(r, res_.scCheck) : nullptr;
}

// Checks the program under SC to the end with what is left of the budget
// (once); false when it did not finish.
bool FenceSynthesis::checkSc(double cap) {
  if (res_.scChecked) return true;
  bool late = false;
  CheckResult r = checkProgram(prog_, Model::SC, &late, cap);  // not a rule: SC is the reference a fix aims at
  if (r.status == Status::Timeout || r.status == Status::Error) return false;
  res_.scCheck = std::move(r);
  res_.scChecked = true;
  return true;
}

// The cases decided before any fence is tried (no violation, a model without
// store buffers, a violation SC has too). True: res_ is final.
bool FenceSynthesis::settledBeforeSearch(const CheckResult& first) {
  if (robustGoal_) {
    // SC is robust by definition: nothing to pre-check; every fenced check looks for a witness.
    res_.lastCheck = first;
    return false;
  }
  if (first.status != Status::Violation || !first.violation) {
    res_.outcome = outOfTime_ || first.status == Status::Timeout ? FenceOutcome::GaveUp : FenceOutcome::NotNeeded;
    res_.message = res_.outcome == FenceOutcome::NotNeeded ? "the check does not fail: no fence is needed"
                                                           : "synthesis gave up: the check did not finish in time";
    res_.outOfTime = outOfTime_;
    res_.lastCheck = first;
    return true;
  }
  if (!opts_.memoryModel().hasStoreBuffers()) {
    res_.outcome = FenceOutcome::ScViolation;
    res_.message = "the violation occurs under SC: no fence can fix it";
    res_.lastCheck = first;
    return true;
  }
  // SC first, with a share of the budget: a program that fails under SC
  // usually does so quickly; one that passes may take long, and then SC is
  // asked only when a counterexample needs it (learn).
  const double share = fopts_.scShare * std::max(0.0, fopts_.timeBudgetSeconds);
  checkSc(std::isfinite(share) ? std::max(share, 0.0) : share);
  // Fences cannot fix what SC shows too; only the same error (kind and
  // location) counts: an SC deadlock does not excuse a TSO-only assertion failure.
  if (res_.scChecked && res_.scCheck.status == Status::Violation && !counterexample(first)) {
    res_.outcome = FenceOutcome::ScViolation;
    res_.message = "the violation also occurs under SC: no fence can fix it";
    res_.lastCheck = res_.scCheck;
    return true;
  }
  return false;
}

// What a counterexample of `checked` teaches, in positions of prog_ (`back`
// maps checked's pcs to prog_'s): a new candidate set, a known one, nothing,
// or that the error is one SC has (not a target after all).
FenceSynthesis::Learned FenceSynthesis::learn(const Program& checked, const std::vector<std::vector<uint32_t>>& back,
                                              const Violation& v) {
  CandidateAnalysis a = analyseCounterexample(checked, opts_.model, v);
  auto mapBack = [&](std::vector<FencePosition>& c) {
    for (FencePosition& p : c) {
      if (p.function < back.size() && p.pc < back[p.function].size()) p.pc = back[p.function][p.pc];
      if (p.function < prog_.functions.size() && p.pc < prog_.functions[p.function].code.size())
        p.loc = prog_.functions[p.function].code[p.pc].loc;
    }
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
  };
  mapBack(a.all);
  mapBack(a.critical);
  mapBack(a.placement);
  if (a.critical.empty() && !robustGoal_ && !a.all.empty()) {
    // No delay of this trace is on a critical cycle: the execution is one
    // SC has too, unless the analysis missed an edge. Ask SC.
    if (!res_.scChecked) checkSc(std::numeric_limits<double>::infinity());
    if (res_.scChecked && res_.scCheck.status == Status::Violation) {
      bool same = false;
      for (const Violation& o : res_.scCheck.violations) same = same || sameError(v, o);
      if (same) return Learned::UnderSc;
    }
    a.critical = a.all;  // conservative
    a.placement = a.all;
  } else if (a.critical.empty()) {
    a.critical = a.all;  // a robustness witness is never SC: the analysis missed an edge; be conservative
    a.placement = a.all;
  }
  if (a.critical.empty()) return Learned::Nothing;
  placement_.insert(placement_.end(), a.placement.begin(), a.placement.end());
  std::sort(placement_.begin(), placement_.end());
  placement_.erase(std::unique(placement_.begin(), placement_.end()), placement_.end());
  if (std::find(sets_.begin(), sets_.end(), a.critical) != sets_.end()) return Learned::Known;
  sets_.push_back(std::move(a.critical));
  return Learned::New;
}

// Learns from the first check's counterexample. False: res_ is final.
bool FenceSynthesis::learnFromFirst(const CheckResult& first) {
  std::vector<std::vector<uint32_t>> identity(prog_.functions.size());
  for (size_t f = 0; f < prog_.functions.size(); ++f)
    for (uint32_t pc = 0; pc < prog_.functions[f].code.size(); ++pc) identity[f].push_back(pc);
  const Learned l = learn(prog_, identity, *counterexample(first));
  if (l == Learned::UnderSc) {
    res_.outcome = FenceOutcome::ScViolation;
    res_.message = "the violation also occurs under SC: no fence can fix it";
    res_.lastCheck = res_.scCheck;
    return false;
  }
  if (l == Learned::Nothing) {
    res_.message = "synthesis gave up: the counterexample has no store delayed past a later access";
    return false;
  }
  return true;
}

void FenceSynthesis::fixedBy(const std::vector<FencePosition>& chosen) {
  res_.outcome = FenceOutcome::Fixed;
  res_.fences = chosen;
  res_.message = std::to_string(chosen.size()) + (chosen.size() == 1 ? " fence makes" : " fences make") +
                 (robustGoal_ ? " the check robust (" : " the check pass (") + std::to_string(res_.rounds) +
                 (res_.rounds == 1 ? " round" : " rounds") + ")";
}

// The next set to try: the seed while it is seeding, else a smallest hitting
// set of the candidate sets. False: the loop ends (res_ says how).
bool FenceSynthesis::nextSet(std::vector<FencePosition>* chosen) {
  // The seed grows past a useful size: minimise from what was learned instead.
  if (seeding_ && placement_.size() > 3 * fopts_.maxFences) seeding_ = false;
  if (seeding_) {
    *chosen = placement_;
    return true;
  }
  const size_t cap = good_.empty() ? fopts_.maxFences : std::min(fopts_.maxFences, good_.size() - 1);
  bool exact = true;
  if (cap > 0) *chosen = minimumHittingSet(sets_, cap, fopts_.maxCombinations, &exact);
  if (chosen->empty() && !good_.empty()) {
    // No hitting set smaller than the seed: the seed is a smallest one
    // (when the search was exact).
    res_.minimal = res_.minimal && exact;
    fixedBy(good_);
    return false;
  }
  res_.minimal = res_.minimal && exact;
  if (chosen->empty()) {
    res_.message = "synthesis gave up: more than " + std::to_string(fopts_.maxFences) + " fences would be needed";
    return false;
  }
  return true;
}

void FenceSynthesis::reportRound(size_t fences, bool passed, uint64_t executions, double t0) const {
  if (!fopts_.onRound) return;
  FenceRound fr;
  fr.round = res_.rounds;
  fr.phase = seeding_ ? "seed" : "minimise";
  fr.fences = fences;
  fr.passed = passed;
  fr.executions = executions;
  fr.seconds = elapsed() - t0;
  fr.elapsed = elapsed();
  fopts_.onRound(fr);
}

// One round: checks the program with `chosen` inserted and learns from its
// counterexample. False: the loop ends (res_ says how).
bool FenceSynthesis::tryFences(const std::vector<FencePosition>& chosen) {
  std::vector<std::vector<uint32_t>> back;
  Program fenced = insertFences(prog_, chosen, &back);
  ++res_.rounds;
  const double t0 = elapsed();
  CheckResult r = checkProgram(fenced, opts_.model, &outOfTime_);
  const uint64_t roundExecutions = lastExecutions_;  // (learning may check SC below)
  res_.lastCheck = r;
  lastTried_ = chosen;
  const bool unfinished = r.status == Status::Timeout || r.status == Status::Error;
  const Violation* cex = unfinished ? nullptr : counterexample(r);
  const size_t placed = placement_.size();
  Learned l = Learned::Nothing;
  if (cex) {
    l = learn(fenced, back, *cex);
    if (l == Learned::UnderSc) cex = counterexample(r);  // SC has it: the next one SC does not have, if any
    while (cex && l == Learned::UnderSc) {
      l = learn(fenced, back, *cex);
      if (l == Learned::UnderSc) cex = nullptr;
    }
  }
  reportRound(chosen.size(), !unfinished && !cex, roundExecutions, t0);
  if (unfinished) {
    res_.message = "synthesis gave up: the check of the fenced program did not finish (" +
                   std::string(statusName(r.status)) + ")";
    return false;
  }
  if (!cex) {
    passed_ = r;
    if (seeding_) {
      // A correct set: now look for the smallest.
      good_ = chosen;
      res_.seedFences = good_.size();
      seeding_ = false;
      return true;
    }
    fixedBy(chosen);
    return false;
  }
  if (seeding_ && (l == Learned::Nothing || placement_.size() == placed)) {
    seeding_ = false;  // the seed does not grow: minimise from what was learned
    if (l == Learned::Nothing) {
      res_.message = "synthesis gave up: a counterexample of the fenced program has no new delayed store";
      return false;
    }
    return true;
  }
  if (l == Learned::Nothing || (l == Learned::Known && !seeding_)) {
    res_.message = "synthesis gave up: a counterexample of the fenced program has no new delayed store";
    return false;
  }
  return true;
}

FenceSynthesisResult FenceSynthesis::run(const CheckResult* initial) {
  // (With atomic sections the counterexamples come from the explicit-state
  // search, whose traces mark where a section starts: checkProgram.)
  const bool sections = hasAtomicSections(prog_) && !opts_.stateful;
  CheckResult first = initial && !sections ? *initial : checkProgram(prog_, opts_.model, &outOfTime_);
  // The goal: no violation; or, with CheckOptions::robustness and a check that
  // does not fail but has a non-SC witness, robustness (no witness).
  robustGoal_ = opts_.robustness && first.status != Status::Violation && first.robustness &&
                first.robustness->witness;
  res_.forRobustness = robustGoal_;
  if (settledBeforeSearch(first)) return finish();
  res_.lastCheck = first;
  if (!learnFromFirst(first)) return finish();

  seeding_ = fopts_.seed;
  while (true) {
    if (res_.rounds >= fopts_.maxRounds) {
      res_.message =
          "synthesis gave up after " + std::to_string(res_.rounds) + (res_.rounds == 1 ? " round" : " rounds");
      break;
    }
    std::vector<FencePosition> chosen;
    if (!nextSet(&chosen) || !tryFences(chosen)) break;
  }
  res_.outOfTime = outOfTime_ || (res_.outcome != FenceOutcome::Fixed && remaining() <= 0);
  res_.passedCheck = std::move(passed_);
  if (res_.outcome != FenceOutcome::Fixed) {
    res_.correct = good_;
    if (good_.empty()) res_.partial = lastTried_;
  }
  res_.counterexamples = sets_.size();
  return finish();
}

}  // namespace

FenceSynthesisResult synthesizeFences(const Program& prog, const CheckOptions& opts, const CheckResult* initial,
                                      const FenceSynthesisOptions& fopts) {
  return FenceSynthesis(prog, opts, fopts).run(initial);
}

}  // namespace tsocheck

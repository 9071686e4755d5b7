#include "engine/trace.h"

#include <algorithm>
#include <map>

#include "engine/rc11.h"

namespace tsocheck {

namespace {
struct Pending {
  EventId id;
  BufferEntry entry;
};

std::string nameOf(const Program& prog, const Event& e) {
  return e.name ? prog.strings[e.name] : addressName(prog, e.addr);
}

std::string writerNote(const Program& prog, const Graph& g, EventId w) {
  if (w.isInit()) return "initial value";
  const Event& we = g.ev(w);
  return "written by T" + std::to_string(w.thread) + " at line " + std::to_string(we.loc.line);
}

// Builds the steps of one trace: the timed events in `order`, each store's
// issue into its thread's buffer and its flush, and the buffers after each step.
class TraceBuilder {
 public:
  TraceBuilder(const Program& prog, const Graph& g, const MemoryModel& mm)
      : prog_(prog), g_(g), sc_(!mm.buffersStores()), rc11_(mm.usesC11Orders()), buf_(g.threads.size()), next_(g.threads.size(), 0) {}

  std::vector<TraceStep> build(const std::vector<OrderNode>& order);

 private:
  std::vector<std::vector<BufferEntry>> snapshot() const;
  void push(TraceStep st);
  void announceSection(const TraceStep& st);
  TraceStep base(EventId id, StepKind k) const;
  void issue(EventId id);
  void issueUpTo(uint32_t t, uint32_t limit);
  void flush(EventId id);
  void timed(EventId id);
  TraceStep loadStep(EventId id) const;
  TraceStep syncStep(EventId id) const;
  TraceStep choiceStep(EventId id) const;
  void addRc11Facts();

  const Program& prog_;
  const Graph& g_;
  const bool sc_;
  const bool rc11_;  // words nothing about memory or buffers: fills TraceStep::rc11
  std::vector<std::vector<Pending>> buf_;  // per thread: issued, not yet flushed
  std::vector<uint32_t> next_;             // per thread: the first event not yet shown
  std::vector<TraceStep> steps_;
  // Every step carries a copy of every buffer: steps x buffered stores. A
  // trace through a very long execution (thousands of stores in flight) stops
  // copying them past this many entries in all; the first step without them
  // says so.
  static constexpr size_t kSnapshotBudget = 20000;
  size_t copied_ = 0;
  bool omitted_ = false;
  std::vector<EventId> sectionsShown_;  // section starts whose `atomic` step is out
};

std::vector<std::vector<BufferEntry>> TraceBuilder::snapshot() const {
  std::vector<std::vector<BufferEntry>> out(buf_.size());
  for (size_t t = 0; t < buf_.size(); ++t)
    for (const Pending& p : buf_[t]) out[t].push_back(p.entry);
  return out;
}

// The first event of an atomic section comes after an `atomic` step at the
// section's begin (the nearest AtomicBegin before the event in its
// function), as the state space's traces show it. Called before the step
// (and a store's buffer entry, which names its step) is numbered.
void TraceBuilder::announceSection(const TraceStep& st) {
  const EventId id{st.thread, st.event};
  if (st.kind != StepKind::Flush && st.kind != StepKind::Atomic && id.thread < g_.threads.size() &&
      id.index < g_.threads[id.thread].events.size() && (g_.ev(id).section & kSectionStart) &&
      std::find(sectionsShown_.begin(), sectionsShown_.end(), id) == sectionsShown_.end()) {
    sectionsShown_.push_back(id);
    TraceStep at;
    at.thread = st.thread;
    at.kind = StepKind::Atomic;
    at.loc = st.loc;
    at.function = st.function;
    at.pc = st.pc;
    at.event = st.event;
    if (st.function < prog_.functions.size()) {
      const auto& code = prog_.functions[st.function].code;
      for (uint32_t pc = std::min<uint32_t>(st.pc, uint32_t(code.size())); pc-- > 0;)
        if (code[pc].op == Op::AtomicBegin) {
          at.loc = code[pc].loc;
          at.pc = pc;
          break;
        }
    }
    push(std::move(at));
  }
}

void TraceBuilder::push(TraceStep st) {
  announceSection(st);
  st.step = uint32_t(steps_.size() + 1);
  size_t entries = 0;
  for (const auto& b : buf_) entries += b.size();
  if (!omitted_ && copied_ + entries <= kSnapshotBudget) {
    st.buffers = snapshot();
    copied_ += entries;
  } else if (!omitted_) {
    omitted_ = true;
    st.note += std::string(st.note.empty() ? "" : "; ") +
               "store-buffer contents are not shown from this step on (a very long trace)";
  }
  steps_.push_back(std::move(st));
}

TraceStep TraceBuilder::base(EventId id, StepKind k) const {
  const Event& e = g_.ev(id);
  TraceStep st;
  st.thread = id.thread;
  st.kind = k;
  st.loc = e.loc;
  st.function = e.function;
  st.pc = e.pc;
  st.event = id.index;
  if (e.reads || e.writes || e.kind == EvKind::Store || e.kind == EvKind::Free) {
    st.hasAddr = true;
    st.addr = e.addr;
    st.addrName = nameOf(prog_, e);
  }
  return st;
}

void TraceBuilder::issue(EventId id) {
  const Event& e = g_.ev(id);
  TraceStep st = base(id, StepKind::Store);
  st.hasValue = true;
  st.value = e.wval;
  announceSection(st);  // before the buffer entry takes the store's step number
  if (sc_) {
    if (!rc11_) st.note = "written to memory";
  } else {
    st.note = "enters T" + std::to_string(id.thread) + "'s store buffer";
    buf_[id.thread].push_back(Pending{id, BufferEntry{e.addr, e.wval, st.addrName, uint32_t(steps_.size() + 1)}});
  }
  push(std::move(st));
}

// Stores before `limit` that are still unissued enter the buffer now.
void TraceBuilder::issueUpTo(uint32_t t, uint32_t limit) {
  for (; next_[t] < limit; ++next_[t]) {
    const Event& e = g_.threads[t].events[next_[t]];
    if (e.kind == EvKind::Store) issue(EventId{t, next_[t]});
    else if (e.kind == EvKind::Fence && e.fence == FenceKind::StoreStore) timed(EventId{t, next_[t]});
  }
}

// A buffered store reaches memory (issued first if it was not yet).
void TraceBuilder::flush(EventId id) {
  const Event& e = g_.ev(id);
  if (next_[id.thread] <= id.index) issueUpTo(id.thread, id.index + 1);
  auto& b = buf_[id.thread];
  auto it = std::find_if(b.begin(), b.end(), [&](const Pending& p) { return p.id == id; });
  if (it != b.end()) b.erase(it);
  TraceStep st = base(id, StepKind::Flush);
  st.hasValue = true;
  st.value = e.wval;
  st.note = "reaches memory";
  push(std::move(st));
}

TraceStep TraceBuilder::loadStep(EventId id) const {
  const Event& e = g_.ev(id);
  bool fromBuf = false;
  for (const Pending& p : buf_[id.thread]) fromBuf |= p.id == e.rf;
  TraceStep st = base(id, fromBuf ? StepKind::LoadBuf : StepKind::LoadMem);
  st.hasValue = true;
  st.value = e.rval;
  if (!rc11_)
    st.note = fromBuf ? "from T" + std::to_string(id.thread) + "'s own store buffer"
                      : "from memory (" + writerNote(prog_, g_, e.rf) + ")";
  return st;
}

// A read-modify-write or a mutex operation.
TraceStep TraceBuilder::syncStep(EventId id) const {
  const Event& e = g_.ev(id);
  StepKind k = e.kind == EvKind::Rmw ? StepKind::Rmw
             : e.kind == EvKind::Lock ? StepKind::Lock
             : e.kind == EvKind::TryLock ? StepKind::TryLock : StepKind::Unlock;
  TraceStep st = base(id, k);
  st.hasValue = true;
  st.value = e.writes ? e.wval : e.rval;
  if (e.kind == EvKind::Lock) st.note = e.writes ? "acquired" : "mutex is held: waits";
  else if (e.kind == EvKind::TryLock) st.note = e.writes ? "acquired" : "busy";
  else if (e.kind == EvKind::Unlock) st.note = "released";
  else st.note = "read " + std::to_string(e.rval) + (e.writes ? ", wrote " + std::to_string(e.wval) : ", no write (compare failed)");
  return st;
}

TraceStep TraceBuilder::choiceStep(EventId id) const {
  const Event& e = g_.ev(id);
  TraceStep st = base(id, StepKind::Nondet);
  st.hasValue = true;
  st.value = e.result;
  st.note = "chosen";
  if (e.function < prog_.functions.size() && e.pc < prog_.functions[e.function].code.size()) {
    // A signed type's negative value: say which (the value is its bit pattern).
    const Instr& in = prog_.functions[e.function].code[e.pc];
    const unsigned size = in.op == Op::Nondet && in.sub == 1 && in.imm ? in.size : 0;
    if (size && int64_t(signExtend(e.result, size)) < 0)
      st.note = "chosen: " + std::to_string(int64_t(signExtend(e.result, size)));
  }
  return st;
}

// The step of an event that happens at its place in the order (not a flush).
void TraceBuilder::timed(EventId id) {
  const Event& e = g_.ev(id);
  TraceStep st;
  switch (e.kind) {
    case EvKind::Store:  // SC: a store is a single step
      issue(id);
      return;
    case EvKind::Load:
      st = loadStep(id);
      break;
    case EvKind::Rmw:
    case EvKind::Lock:
    case EvKind::TryLock:
    case EvKind::Unlock:
      st = syncStep(id);
      break;
    case EvKind::Fence:
      st = base(id, StepKind::Fence);
      if (!rc11_) st.note = e.fence == FenceKind::Full ? "full fence: store buffer drained" : "store-store barrier";
      break;
    case EvKind::Spawn:
      st = base(id, StepKind::Spawn);
      st.note = "starts T" + std::to_string(e.aux);
      st.spawned = e.aux;
      break;
    case EvKind::Join:
      st = base(id, StepKind::Join);
      st.note = "T" + std::to_string(e.aux) + " has finished";
      break;
    case EvKind::Free:
      st = base(id, StepKind::Free);
      break;
    case EvKind::Exit:
      st = base(id, StepKind::Exit);
      st.note = "thread ends";
      break;
    case EvKind::Query:
      return;  // no effect worth a step
    case EvKind::Choice:
      st = choiceStep(id);
      break;
  }
  push(std::move(st));
}

std::vector<TraceStep> TraceBuilder::build(const std::vector<OrderNode>& order) {
  for (const OrderNode& n : order) {
    if (n.gate) continue;
    const EventId id = n.event;
    const Event& e = g_.ev(id);
    if (!sc_ && e.kind == EvKind::Store) {
      flush(id);
      continue;
    }
    if (!sc_ && e.kind == EvKind::Fence && e.fence == FenceKind::StoreStore) {
      continue;  // shown in program order by issueUpTo
    }
    issueUpTo(id.thread, id.index);
    timed(id);
    next_[id.thread] = std::max(next_[id.thread], id.index + 1);
  }
  // Stores issued by no later timed event (the thread stopped) still show.
  for (uint32_t t = 0; t < buf_.size(); ++t) issueUpTo(t, uint32_t(g_.threads[t].events.size()));
  annotateStaleReads(steps_);
  if (rc11_) addRc11Facts();
  return std::move(steps_);
}

// Every step of an RC11 trace gets its facts: what it read, where its write
// stands in coherence order, what it synchronises with, its hb clock.
void TraceBuilder::addRc11Facts() {
  Rc11Checker checker;
  Rc11Checker::HbFacts hb;
  if (!checker.hbFacts(g_, &hb)) return;  // (cannot happen: the graph is consistent)
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> stepOf;  // (thread, event) -> step
  for (const TraceStep& st : steps_)
    if (st.event != TraceStep::kNoEvent && st.kind != StepKind::Atomic) stepOf.emplace(std::make_pair(st.thread, st.event), st.step);
  auto stepAt = [&](EventId id) {
    auto it = stepOf.find({id.thread, id.index});
    return it == stepOf.end() ? 0u : it->second;
  };
  for (TraceStep& st : steps_) {
    if (st.event == TraceStep::kNoEvent || st.thread >= g_.threads.size() ||
        st.event >= g_.threads[st.thread].events.size())
      continue;
    const EventId id{st.thread, st.event};
    const Event& e = g_.ev(id);
    TraceStep::Rc11Facts f;
    f.order = c11Order(e);
    if (const Location* loc = (e.reads || e.writes) ? g_.locOf(e) : nullptr) {
      f.init = loc->init;
      if (e.reads) {
        f.reads = true;
        f.read = e.rval;
        f.readsFrom = e.rf.isInit() ? 0 : stepAt(e.rf);
        f.readCo = Graph::coIndex(*loc, e.rf);
      }
      if (e.writes) f.writeCo = Graph::coIndex(*loc, id);
    }
    for (EventId s : hb.sw[id.thread][id.index]) {
      uint32_t at = stepAt(s);  // (an event without a step: the nearest one po-before it)
      while (!at && s.index-- > 0) at = stepAt(s);
      if (at && std::find(f.sw.begin(), f.sw.end(), at) == f.sw.end()) f.sw.push_back(at);
    }
    std::sort(f.sw.begin(), f.sw.end());
    f.hb = hb.clock[id.thread][id.index];
    st.rc11 = std::move(f);
  }
}
}  // namespace

std::vector<TraceStep> buildTrace(const Program& prog, const Graph& g, const MemoryModel& mm,
                                  const std::vector<OrderNode>& order) {
  return TraceBuilder(prog, g, mm).build(order);
}

}  // namespace tsocheck

#include "engine/trace.h"

#include <algorithm>

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
}  // namespace

std::vector<TraceStep> buildTrace(const Program& prog, const Graph& g, const MemoryModel& mm,
                                  const std::vector<OrderNode>& order) {
  const bool sc = !mm.buffersStores();
  const size_t nThreads = g.threads.size();
  std::vector<std::vector<Pending>> buf(nThreads);
  std::vector<uint32_t> next(nThreads, 0);
  std::vector<TraceStep> steps;

  auto snapshot = [&]() {
    std::vector<std::vector<BufferEntry>> out(nThreads);
    for (size_t t = 0; t < nThreads; ++t)
      for (const Pending& p : buf[t]) out[t].push_back(p.entry);
    return out;
  };
  auto push = [&](TraceStep st) {
    st.step = uint32_t(steps.size() + 1);
    st.buffers = snapshot();
    steps.push_back(std::move(st));
  };
  auto base = [&](EventId id, StepKind k) {
    const Event& e = g.ev(id);
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
      st.addrName = nameOf(prog, e);
    }
    return st;
  };
  auto issue = [&](EventId id) {
    const Event& e = g.ev(id);
    TraceStep st = base(id, StepKind::Store);
    st.hasValue = true;
    st.value = e.wval;
    if (sc) {
      st.note = "written to memory";
    } else {
      st.note = "enters T" + std::to_string(id.thread) + "'s store buffer";
      buf[id.thread].push_back(Pending{id, BufferEntry{e.addr, e.wval, st.addrName, uint32_t(steps.size() + 1)}});
    }
    push(std::move(st));
  };
  auto timed = [&](EventId id) {
    const Event& e = g.ev(id);
    TraceStep st;
    switch (e.kind) {
      case EvKind::Store:  // SC: a store is a single step
        issue(id);
        return;
      case EvKind::Load: {
        bool fromBuf = false;
        for (const Pending& p : buf[id.thread]) fromBuf |= p.id == e.rf;
        st = base(id, fromBuf ? StepKind::LoadBuf : StepKind::LoadMem);
        st.hasValue = true;
        st.value = e.rval;
        st.note = fromBuf ? "from T" + std::to_string(id.thread) + "'s own store buffer"
                          : "from memory (" + writerNote(prog, g, e.rf) + ")";
        break;
      }
      case EvKind::Rmw:
      case EvKind::Lock:
      case EvKind::TryLock:
      case EvKind::Unlock: {
        StepKind k = e.kind == EvKind::Rmw ? StepKind::Rmw
                   : e.kind == EvKind::Lock ? StepKind::Lock
                   : e.kind == EvKind::TryLock ? StepKind::TryLock : StepKind::Unlock;
        st = base(id, k);
        st.hasValue = true;
        st.value = e.writes ? e.wval : e.rval;
        if (e.kind == EvKind::Lock) st.note = e.writes ? "acquired" : "mutex is held: waits";
        else if (e.kind == EvKind::TryLock) st.note = e.writes ? "acquired" : "busy";
        else if (e.kind == EvKind::Unlock) st.note = "released";
        else st.note = "read " + std::to_string(e.rval) + (e.writes ? ", wrote " + std::to_string(e.wval) : ", no write (compare failed)");
        break;
      }
      case EvKind::Fence:
        st = base(id, StepKind::Fence);
        st.note = e.fence == FenceKind::Full ? "full fence: store buffer drained" : "store-store barrier";
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
        st = base(id, StepKind::Nondet);
        st.hasValue = true;
        st.value = e.result;
        st.note = "chosen";
        if (e.function < prog.functions.size() && e.pc < prog.functions[e.function].code.size()) {
          // A signed type's negative value: say which (the value is its bit pattern).
          const Instr& in = prog.functions[e.function].code[e.pc];
          const unsigned size = in.op == Op::Nondet && in.sub == 1 && in.imm ? in.size : 0;
          if (size && int64_t(signExtend(e.result, size)) < 0)
            st.note = "chosen: " + std::to_string(int64_t(signExtend(e.result, size)));
        }
        break;
    }
    push(std::move(st));
  };
  auto issueUpTo = [&](uint32_t t, uint32_t limit) {
    // Stores before `limit` that are still unissued enter the buffer now.
    for (; next[t] < limit; ++next[t]) {
      const Event& e = g.threads[t].events[next[t]];
      if (e.kind == EvKind::Store) issue(EventId{t, next[t]});
      else if (e.kind == EvKind::Fence && e.fence == FenceKind::StoreStore) timed(EventId{t, next[t]});
    }
  };

  for (const OrderNode& n : order) {
    if (n.gate) continue;
    const EventId id = n.event;
    const Event& e = g.ev(id);
    if (!sc && e.kind == EvKind::Store) {
      if (next[id.thread] <= id.index) issueUpTo(id.thread, id.index + 1);
      auto& b = buf[id.thread];
      auto it = std::find_if(b.begin(), b.end(), [&](const Pending& p) { return p.id == id; });
      if (it != b.end()) b.erase(it);
      TraceStep st = base(id, StepKind::Flush);
      st.hasValue = true;
      st.value = e.wval;
      st.note = "reaches memory";
      push(std::move(st));
      continue;
    }
    if (!sc && e.kind == EvKind::Fence && e.fence == FenceKind::StoreStore) {
      continue;  // shown in program order by issueUpTo
    }
    issueUpTo(id.thread, id.index);
    timed(id);
    next[id.thread] = std::max(next[id.thread], id.index + 1);
  }
  // Stores issued by no later timed event (the thread stopped) still show.
  for (uint32_t t = 0; t < nThreads; ++t) issueUpTo(t, uint32_t(g.threads[t].events.size()));
  annotateStaleReads(steps);
  return steps;
}

}  // namespace tsocheck

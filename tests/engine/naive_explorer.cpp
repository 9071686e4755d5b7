// Reference explorer: the operational store-buffer machine, explored
// depth-first over every interleaving of thread actions and buffer flushes.
// Whole states are copied at every branch; there is no reduction at all.
//
// The machine:
//  * memory maps addresses to values; a location's first access fixes its
//    size; globals start with their initial bytes, everything else with 0;
//  * SC (or bound 0): every action takes effect in memory at once;
//  * TSO: a FIFO store buffer per thread; a flush (its own step) moves the
//    oldest entry to memory; a load takes the thread's newest buffered store
//    to its address, else memory;
//  * PSO: the same, but any address's oldest entry may flush; a store-store
//    barrier puts a marker in the buffer that stores behind it cannot pass;
//  * bound k: a store waits while the thread has k stores pending (in all);
//  * RMW, full fence, lock, trylock, unlock, free, spawn wait for an empty
//    buffer and act on memory; a thread has finished when it stands at Exit
//    with an empty buffer; join waits for that;
//  * an Error action (or unlocking a mutex not held) ends the run as an error
//    run; Blocked (assume) and Limit stop that thread for good;
//  * a run ends when nothing can move: complete if every thread finished,
//    a deadlock if not and no thread was stopped by Blocked or Limit.
//
// RC11 has no machine: the threads interleave as under SC (every RC11
// execution has an order consistent with po ∪ rf, so each read can take a
// write already made), but a read may take ANY write of its location made
// so far, and a write goes to ANY position in its location's coherence
// order. After every step the graph built so far is checked against RC11 by
// a check of its own (rc11Holds below: relations as boolean matrices over
// events whose RMWs are split into a read and a write, closures by brute
// force), and the step is dropped when the graph breaks it: RC11 is closed
// under taking a prefix, so a broken prefix never becomes consistent.
//
// The only optimisation is a cache of finished subtrees keyed by the complete
// machine state (threads, buffers, memory and the trace built so far): a
// subtree depends on nothing but its root state, so revisiting a state just
// adds the cached run counts, and the sets (traces, final states, messages)
// already hold everything the subtree contributes. Every output, run counts
// included, is identical to the plain search (exploreNaivePlain, used by the
// tests to check exactly that). A thread's state is identified by the results
// delivered to it so far: ThreadState is deterministic given them.
#include "tests/engine/naive_explorer.h"

#include "tests/engine/rc11_race_oracle.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tsocheck::testing {

// "T<tid>.<k>"
std::string naiveEventName(uint32_t tid, uint64_t k) {
  return "T" + std::to_string(tid) + "." + std::to_string(k);
}

// Canonical trace key (format documented in engine/check.h) built from the
// reads-from pairs (reader, writer-or-"init") and, per written address, the
// writers in coherence order. Exposed (not in the header) for unit tests.
std::string naiveTraceKey(const std::vector<std::pair<std::string, std::string>>& rf,
                          const std::vector<std::pair<Addr, std::vector<std::string>>>& co,
                          const std::vector<std::pair<std::string, Value>>& choices) {
  std::vector<std::string> lines;
  lines.reserve(rf.size() + co.size() + choices.size());
  for (const auto& [event, v] : choices) lines.push_back("choice " + event + " = " + std::to_string(v));
  for (const auto& [reader, writer] : rf) lines.push_back("rf " + reader + " <- " + writer);
  for (const auto& [addr, writers] : co) {
    if (writers.empty()) continue;
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(addr));
    std::string line = std::string("co ") + buf;
    for (const std::string& w : writers) line += " " + w;
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  std::string key;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) key += '\n';
    key += lines[i];
  }
  return key;
}

namespace {

// An event: thread id and per-thread action index; tid < 0 means "init".
struct Event {
  int32_t tid = -1;
  uint32_t k = 0;
};

std::string eventString(Event e) {
  return e.tid < 0 ? std::string("init") : naiveEventName(uint32_t(e.tid), e.k);
}

// A buffered store, or (PSO only) a store-store barrier marker: stores after
// a marker cannot reach memory before every store ahead of it has. A marker
// never stands first in a buffer (it is dropped when it gets there), so an
// empty buffer is an empty vector.
struct BufferedStore {
  Addr addr = 0;
  uint8_t size = 0;
  Value value = 0;
  Event writer;
  bool barrier = false;
};

size_t pendingStores(const std::vector<BufferedStore>& b) {
  return size_t(std::count_if(b.begin(), b.end(), [](const BufferedStore& e) { return !e.barrier; }));
}

struct Cell {
  uint8_t size = 0;
  Value value = 0;
  Event writer;  // last writer to reach memory (init at first)
};

struct State {
  // Shared between states, never modified once shared: a step replaces the
  // moving thread's pointer with a fresh copy (copying a State stays cheap).
  std::vector<std::shared_ptr<const ThreadState>> threads;
  std::vector<std::vector<Value>> history;        // results delivered, per thread
  // Per thread, the atomic sections entered: entering one is no event (the
  // events are numbered as the graph explorer numbers them).
  std::vector<uint32_t> begins;
  std::vector<std::vector<BufferedStore>> buf;    // per thread, oldest first
  std::map<Addr, Cell> mem;                       // every location accessed so far
  std::vector<std::pair<Event, Event>> rf;        // (reader, writer), sorted by reader
  std::vector<std::pair<Event, Value>> choices;   // nondeterministic choices and their values
  std::map<Addr, std::vector<Event>> co;          // writers in memory order
  // RC11: every thread's events (index = the event's k), for the consistency check.
  struct RcEvent {
    ActionKind kind = ActionKind::Exit;
    MemOrder order = MemOrder::SeqCst;
    Addr addr = 0;
    bool reads = false, writes = false;
    Value wval = 0;
    Event rf;           // when reads
    uint32_t aux = 0;   // Spawn: child; Join: joined thread
    SourceLoc loc;
  };
  std::vector<std::vector<RcEvent>> rcEvents;
  // Preemption counting (naiveMinPreemptions only): the thread that took the
  // last thread step, the threads switched away from while able to go on
  // (a preemption is charged when one of them steps again), the count so far.
  int32_t last = -1;
  uint64_t owed = 0;
  int preemptions = 0;
};

struct Counts {
  uint64_t runs = 0, errorRuns = 0, deadlockRuns = 0;
  Counts& operator+=(const Counts& o) {
    runs += o.runs;
    errorRuns += o.errorRuns;
    deadlockRuns += o.deadlockRuns;
    return *this;
  }
};

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Serialisation of everything in a State; threads by their result histories.
std::string stateKey(const State& s) {
  std::string k;
  k.reserve(256);
  put(k, uint32_t(s.history.size()));
  for (const std::vector<Value>& h : s.history) {
    put(k, uint32_t(h.size()));
    for (Value v : h) put(k, v);
  }
  for (const std::vector<BufferedStore>& b : s.buf) {
    put(k, uint32_t(b.size()));
    for (const BufferedStore& e : b) {
      put(k, e.addr);
      put(k, e.size);
      put(k, e.value);
      put(k, e.writer.tid);
      put(k, e.writer.k);
      put(k, e.barrier);
    }
  }
  put(k, uint32_t(s.mem.size()));
  for (const auto& [addr, c] : s.mem) {
    put(k, addr);
    put(k, c.size);
    put(k, c.value);
    put(k, c.writer.tid);
    put(k, c.writer.k);
  }
  put(k, uint32_t(s.rf.size()));
  for (const auto& [r, w] : s.rf) {
    put(k, r.tid);
    put(k, r.k);
    put(k, w.tid);
    put(k, w.k);
  }
  put(k, uint32_t(s.co.size()));
  for (const auto& [addr, ws] : s.co) {
    put(k, addr);
    put(k, uint32_t(ws.size()));
    for (Event w : ws) {
      put(k, w.tid);
      put(k, w.k);
    }
  }
  return k;
}

class Naive {
 public:
  Naive(const Program& prog, Model model, int bound, const Limits& limits, bool cache)
      : prog_(prog), model_(model), bound_(bound), limits_(limits), cache_(cache) {}
  void setMaxCached(uint64_t n) { maxCached_ = n; }
  void judgeRaces() { races_ = true; }

  // Preemption mode: fills minPreemptions_ instead of the usual counts.
  std::map<std::string, int> runPreemptions(int maxPreemptions, bool* timedOut) {
    maxPreemptions_ = maxPreemptions;
    const NaiveResult r = run();
    if (timedOut) *timedOut = r.timedOut;
    return std::move(minPreemptions_);
  }

  NaiveResult run() {
    State s;
    s.threads.push_back(std::make_shared<const ThreadState>(prog_, 0, prog_.entry, 0, limits_));
    s.history.emplace_back();
    s.begins.emplace_back();
    s.buf.emplace_back();
    Counts c = explore(s);
    res_.runs = c.runs;
    res_.errorRuns = c.errorRuns;
    res_.deadlockRuns = c.deadlockRuns;
    return std::move(res_);
  }

 private:
  bool buffered() const { return (model_ == Model::TSO || model_ == Model::PSO) && bound_ != 0; }
  bool rc11() const { return model_ == Model::RC11; }

  Value initialValue(Addr a, unsigned size) const {
    if (a >= layout::kTlsBase && a < layout::kStackBase) {  // every thread's copy starts as the initialiser
      const uint64_t off = (a - layout::kTlsBase) % layout::kTlsStride;
      for (const ThreadLocal& v : prog_.threadLocals) {
        if (v.isPrivate || off < v.offset || off >= v.offset + v.size) continue;
        Value x = 0;
        for (unsigned i = 0; i < size && i < 8 && off - v.offset + i < v.init.size(); ++i)
          x |= Value(v.init[off - v.offset + i]) << (8 * i);
        return x;
      }
      return 0;
    }
    const Global* g = prog_.globalAt(a);
    if (!g) return 0;
    Value v = 0;
    for (unsigned i = 0; i < size && i < 8; ++i) {
      uint64_t off = a - g->addr + i;
      uint8_t byte = off < g->init.size() && off < g->size ? g->init[off] : 0;
      v |= Value(byte) << (8 * i);
    }
    return v;
  }

  Cell& cell(State& s, Addr a, uint8_t size) {
    auto it = s.mem.find(a);
    if (it != s.mem.end()) return it->second;
    Cell c;
    c.size = size;
    c.value = initialValue(a, size);
    return s.mem.emplace(a, c).first->second;
  }

  Value peek(const State& s, Addr a, uint8_t size) const {
    auto it = s.mem.find(a);
    return it != s.mem.end() ? it->second.value : initialValue(a, size);
  }

  void writeMemory(State& s, Addr a, uint8_t size, Value v, Event w) {
    Cell& c = cell(s, a, size);
    c.value = maskToSize(v, c.size);
    c.writer = w;
    s.co[a].push_back(w);
  }

  // Reads memory (not the buffer) and records the rf edge.
  Value readMemory(State& s, Addr a, uint8_t size, Event reader) {
    Cell& c = cell(s, a, size);
    addRf(s, reader, c.writer);
    return c.value;
  }

  static void addRf(State& s, Event reader, Event writer) {
    auto before = [](const std::pair<Event, Event>& x, Event r) {
      return std::pair(x.first.tid, x.first.k) < std::pair(r.tid, r.k);
    };
    auto it = std::lower_bound(s.rf.begin(), s.rf.end(), reader, before);
    s.rf.insert(it, {reader, writer});
  }

  // Waiting for something another thread must do first: a held mutex or an
  // unfinished thread to join (waiting for its own buffer to drain is not).
  bool blockedWait(const State& s, uint32_t t) const {
    const Action& a = s.threads[t]->pending();
    if (a.kind == ActionKind::Join)
      return a.target >= s.threads.size() || a.target == t || !s.threads[a.target]->finished();
    if (a.kind == ActionKind::Lock) return peek(s, a.addr, a.size ? a.size : 4) != 0;
    return false;
  }

  // Preemption bookkeeping for a step of thread t; false when it takes the
  // run over the preemption budget.
  bool countSwitch(const State& s, State& next, uint32_t t) const {
    if (s.last >= 0 && uint32_t(s.last) != t && !blockedWait(s, uint32_t(s.last)))
      next.owed |= uint64_t(1) << s.last;
    if (next.owed & (uint64_t(1) << t)) {
      next.owed &= ~(uint64_t(1) << t);
      next.preemptions++;
    }
    next.last = int32_t(t);
    return next.preemptions <= maxPreemptions_;
  }

  bool enabled(const State& s, uint32_t t) const {
    const Action& a = s.threads[t]->pending();
    bool empty = s.buf[t].empty();
    switch (a.kind) {
      case ActionKind::Load: return true;
      case ActionKind::Store:
        return !buffered() || bound_ < 0 || pendingStores(s.buf[t]) < size_t(bound_);
      case ActionKind::BlockSize:
      case ActionKind::Choice:
      case ActionKind::AtomicBegin:
        return true;
      case ActionKind::Rmw:
      case ActionKind::TryLock:
      case ActionKind::Unlock:
      case ActionKind::Free:
      case ActionKind::Spawn:
        return empty;
      case ActionKind::Fence:
        // A store-store barrier never waits: under PSO it orders the flushes
        // around it (a marker in the buffer), under TSO and SC it is a no-op.
        return a.fence == FenceKind::Full ? empty : true;
      case ActionKind::Lock:
        return empty && peek(s, a.addr, a.size ? a.size : 4) == 0;
      case ActionKind::Join:
        return a.target < s.threads.size() && a.target != t &&
               s.threads[a.target]->finished() && s.buf[a.target].empty();
      case ActionKind::Exit:
      case ActionKind::Error:
      case ActionKind::Blocked:
      case ActionKind::Limit:
        return false;
    }
    return false;
  }

  // Performs thread t's pending action. Returns false (and sets *error) when
  // the action itself is an error (unlock of a mutex not held).
  bool perform(State& s, uint32_t t, std::string* error, Value choice = 0) {
    const Action& a = s.threads[t]->pending();  // stays valid: threads are replaced, not modified
    Event ev{int32_t(t), uint32_t(s.history[t].size() - s.begins[t])};
    uint8_t size = a.size ? a.size : 4;
    Value result = 0;
    switch (a.kind) {
      case ActionKind::Load: {
        const std::vector<BufferedStore>& b = s.buf[t];
        auto it = std::find_if(b.rbegin(), b.rend(),
                               [&](const BufferedStore& e) { return !e.barrier && e.addr == a.addr; });
        if (it != b.rend()) {
          cell(s, a.addr, size);  // the location counts as accessed
          addRf(s, ev, it->writer);
          result = it->value;
        } else {
          result = readMemory(s, a.addr, size, ev);
        }
        break;
      }
      case ActionKind::Store:
        if (buffered()) {
          cell(s, a.addr, size);
          s.buf[t].push_back(BufferedStore{a.addr, size, maskToSize(a.value, size), ev});
        } else {
          writeMemory(s, a.addr, size, a.value, ev);
        }
        break;
      case ActionKind::Rmw: {
        Value old = readMemory(s, a.addr, size, ev);
        bool writes = false;
        Value nv = rmwResult(a.rmw, old, a.value, a.expected, size, &writes);
        if (writes) writeMemory(s, a.addr, size, nv, ev);
        result = old;
        break;
      }
      case ActionKind::Fence:
        if (a.fence == FenceKind::StoreStore && model_ == Model::PSO && !s.buf[t].empty() &&
            !s.buf[t].back().barrier) {
          BufferedStore marker;
          marker.barrier = true;
          s.buf[t].push_back(marker);
        }
        break;
      case ActionKind::Free:
      case ActionKind::AtomicBegin:
        break;
      case ActionKind::Choice:
        result = choiceValue(a, choice);
        s.choices.push_back({ev, result});
        break;
      case ActionKind::BlockSize: {
        uint64_t owner = (a.addr - layout::kHeapBase) / layout::kThreadStride;
        const HeapBlock* b = owner < s.threads.size() ? s.threads[owner]->heapBlockAt(a.addr) : nullptr;
        result = b ? b->size : 0;
        break;
      }
      case ActionKind::Spawn: {
        uint32_t id = uint32_t(s.threads.size());
        s.threads.push_back(std::make_shared<const ThreadState>(prog_, id, a.func, a.value, limits_));
        s.history.emplace_back();
        s.begins.emplace_back();
        s.buf.emplace_back();
        result = id;
        break;
      }
      case ActionKind::Join:
        result = s.threads[a.target]->exitValue();
        break;
      case ActionKind::Lock:
        readMemory(s, a.addr, size, ev);
        writeMemory(s, a.addr, size, Value(t) + 1, ev);
        break;
      case ActionKind::TryLock: {  // result as pthread_mutex_trylock: 0 or EBUSY
        Value v = readMemory(s, a.addr, size, ev);
        if (v == 0) {
          writeMemory(s, a.addr, size, Value(t) + 1, ev);
          result = 0;
        } else {
          result = 16;
        }
        break;
      }
      case ActionKind::Unlock: {
        Value v = readMemory(s, a.addr, size, ev);
        if (v != Value(t) + 1) {
          *error = "unlock of a mutex not held";
          return false;
        }
        writeMemory(s, a.addr, size, 0, ev);
        break;
      }
      case ActionKind::Exit:
      case ActionKind::Error:
      case ActionKind::Blocked:
      case ActionKind::Limit:
        return true;  // never called for these
    }
    auto moved = std::make_shared<ThreadState>(*s.threads[t]);
    moved->complete(result);
    s.threads[t] = std::move(moved);
    s.history[t].push_back(result);
    if (a.kind == ActionKind::AtomicBegin) ++s.begins[t];
    return true;
  }

  void flush(State& s, uint32_t t, size_t index) {
    std::vector<BufferedStore>& b = s.buf[t];
    BufferedStore e = b[index];
    b.erase(b.begin() + std::ptrdiff_t(index));
    while (!b.empty() && b.front().barrier) b.erase(b.begin());  // nothing left ahead of it
    writeMemory(s, e.addr, e.size, e.value, e.writer);
  }

  void finishComplete(const State& s) {
    std::vector<std::pair<std::string, std::string>> rf;
    rf.reserve(s.rf.size());
    for (const auto& [r, w] : s.rf) rf.push_back({eventString(r), eventString(w)});
    std::vector<std::pair<Addr, std::vector<std::string>>> co;
    for (const auto& [addr, ws] : s.co) {
      std::vector<std::string> names;
      for (Event w : ws) names.push_back(eventString(w));
      co.push_back({addr, std::move(names)});
    }
    std::vector<std::pair<std::string, Value>> choices;
    for (const auto& [e, v] : s.choices) choices.push_back({eventString(e), v});
    std::string key = naiveTraceKey(rf, co, choices);
    if (maxPreemptions_ >= 0) {
      auto [it, fresh] = minPreemptions_.emplace(key, s.preemptions);
      if (!fresh) it->second = std::min(it->second, s.preemptions);
    }
    res_.traces.insert(std::move(key));
    std::vector<std::pair<Addr, Value>> fin;
    for (const auto& [addr, c] : s.mem) {
      auto co = s.co.find(addr);
      const bool written = rc11() && co != s.co.end() && !co->second.empty();
      fin.push_back({addr, written ? rcEvent(s, co->second.back()).wval : c.value});
    }
    res_.finalStates.insert(std::move(fin));
  }

  Counts explore(const State& s) {
    if (res_.timedOut || limits_.timeUp() || (maxCached_ && memo_.size() + seen_.size() > maxCached_)) {
      res_.timedOut = true;  // (the caller discards the result)
      return Counts{};
    }
    if (maxPreemptions_ >= 0) {
      // A subtree's contribution depends only on its root (machine state,
      // trace so far and preemption bookkeeping): explore each root once.
      std::string key = stateKey(s);
      put(key, s.last);
      put(key, s.owed);
      put(key, s.preemptions);
      if (!seen_.insert(std::move(key)).second) return Counts{};
      return exploreFrom(s);
    }
    if (!cache_) return exploreFrom(s);
    std::string key = stateKey(s);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    Counts c = exploreFrom(s);
    memo_.emplace(std::move(key), c);
    return c;
  }

  Counts exploreFrom(const State& s) {
    Counts c;
    for (const auto& th : s.threads) {
      if (th->pending().kind == ActionKind::Error) {
        judge(s);
        c.runs++;
        c.errorRuns++;
        res_.errorMessages.insert(th->pending().message);
        return c;
      }
      if (th->pending().kind == ActionKind::Limit) res_.limitHit = true;
    }

    bool any = false;
    const uint32_t n = uint32_t(s.threads.size());
    // A thread inside an atomic section is the only one that steps (every
    // buffer still flushes: the memory system drains store buffers whatever
    // the scheduler does).
    int owner = -1;
    for (uint32_t t = 0; t < n; ++t)
      if (s.threads[t]->inAtomic()) owner = int(t);
    for (uint32_t t = 0; t < n; ++t) {
      if (rc11()) {
        any |= rc11Steps(s, t, c);
        continue;
      }
      // (a) the thread's next action
      if ((owner < 0 || t == uint32_t(owner)) && enabled(s, t)) {
        any = true;
        const Action& pa = s.threads[t]->pending();
        const Value choices = pa.kind == ActionKind::Choice ? pa.value : 0;
        for (Value v = 0; v <= choices; ++v) {  // a nondeterministic choice: every value
          State next = s;
          std::string error;
          if (maxPreemptions_ >= 0 && !countSwitch(s, next, t)) {
            // over the preemption budget: not explored further
          } else if (!perform(next, t, &error, v)) {
            c.runs++;
            c.errorRuns++;
            res_.errorMessages.insert(error);
          } else {
            c += explore(next);
          }
        }
      }
      // (b) a flush of one of its buffered stores
      const std::vector<BufferedStore>& b = s.buf[t];
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i].barrier) break;  // stores behind a barrier wait for those ahead of it
        if (model_ == Model::PSO) {
          // the oldest entry of each address queue
          bool older = false;
          for (size_t j = 0; j < i; ++j) older |= b[j].addr == b[i].addr;
          if (older) continue;
        } else if (i > 0) {
          break;  // TSO: only the oldest entry
        }
        any = true;
        State next = s;
        flush(next, t, i);
        c += explore(next);
      }
    }
    if (any) return c;

    // Maximal run.
    judge(s);
    c.runs++;
    bool complete = true, cut = false;
    for (uint32_t t = 0; t < n; ++t) {
      ActionKind k = s.threads[t]->pending().kind;
      if (k != ActionKind::Exit || !s.buf[t].empty()) complete = false;
      if (k == ActionKind::Blocked || k == ActionKind::Limit) cut = true;
    }
    if (owner >= 0) {
      // Stuck inside an atomic section: a failed assume blocks the run;
      // waiting for a mutex, a join, a condition or a spin is a deadlock.
      const Action& p = s.threads[owner]->pending();
      cut = p.kind == ActionKind::Limit || (p.kind == ActionKind::Blocked && p.value == 0);
    }
    if (complete) {
      finishComplete(s);
    } else if (!cut) {
      c.deadlockRuns++;
    }
    return c;
  }

  // --- RC11 ----------------------------------------------------------------
  // judgeRaces: the data races of the execution s ends with, by the oracle.
  void judge(const State& s) {
    if (!races_ || !rc11()) return;
    HbExecution x(s.rcEvents.size());
    for (size_t t = 0; t < s.rcEvents.size(); ++t)
      for (const State::RcEvent& e : s.rcEvents[t]) {
        HbEvent h;
        switch (e.kind) {
          case ActionKind::Load:
          case ActionKind::Store:
          case ActionKind::Rmw:
          case ActionKind::Lock:
          case ActionKind::TryLock:
          case ActionKind::Unlock: h.kind = HbEvent::Access; break;
          case ActionKind::Fence: h.kind = HbEvent::Fence; break;
          case ActionKind::Spawn: h.kind = HbEvent::Spawn; break;
          case ActionKind::Join: h.kind = HbEvent::Join; break;
          default: break;
        }
        h.reads = e.reads;
        h.writes = e.writes;
        h.lock = e.kind == ActionKind::Lock || e.kind == ActionKind::TryLock;
        h.unlock = e.kind == ActionKind::Unlock;
        h.order = e.order;
        h.addr = e.addr;
        if (e.reads && e.rf.tid >= 0) {
          h.rfThread = e.rf.tid;
          h.rfIndex = e.rf.k;
        }
        h.other = e.aux;
        h.loc = e.loc;
        x[t].push_back(h);
      }
    for (const OracleRace& r : rc11RacesByMatrices(x)) {
      std::string a = prog_.locString(x[r.thread1][r.index1].loc), b = prog_.locString(x[r.thread2][r.index2].loc);
      if (b < a) std::swap(a, b);
      res_.racePairs.emplace(std::move(a), std::move(b));
      res_.racyAddrs.insert(x[r.thread1][r.index1].addr);
    }
  }

  static const State::RcEvent& rcEvent(const State& s, Event e) { return s.rcEvents[size_t(e.tid)][e.k]; }

  // Thread t's next action under RC11: every read choice and coherence
  // position whose graph is RC11-consistent, explored. Whether any was.
  bool rc11Steps(const State& s, uint32_t t, Counts& c) {
    const Action& a = s.threads[t]->pending();
    switch (a.kind) {
      case ActionKind::Exit:
      case ActionKind::Error:
      case ActionKind::Blocked:
      case ActionKind::Limit:
        return false;
      case ActionKind::Join:
        if (!(a.target < s.threads.size() && a.target != t && s.threads[a.target]->finished())) return false;
        break;
      default:
        break;
    }
    const bool memory = a.kind == ActionKind::Load || a.kind == ActionKind::Store || a.kind == ActionKind::Rmw ||
                        a.kind == ActionKind::Lock || a.kind == ActionKind::TryLock || a.kind == ActionKind::Unlock;
    bool any = false;
    const Event ev{int32_t(t), uint32_t(s.history[t].size())};
    State::RcEvent re;
    re.kind = a.kind;
    re.order = a.kind == ActionKind::Lock || a.kind == ActionKind::TryLock ? MemOrder::Acquire
             : a.kind == ActionKind::Unlock                                 ? MemOrder::Release
                                                                            : a.order;
    re.addr = a.addr;
    re.loc = a.loc;
    if (!memory) {
      const Value choices = a.kind == ActionKind::Choice ? a.value : 0;
      for (Value v = 0; v <= choices; ++v) {
        State next = s;
        std::string error;
        State::RcEvent e = re;
        if (a.kind == ActionKind::Spawn) e.aux = uint32_t(s.threads.size());
        if (a.kind == ActionKind::Join) e.aux = a.target;
        next.rcEvents.resize(s.threads.size());
        next.rcEvents[t].push_back(e);
        if (!perform(next, t, &error, v)) {  // (no memory action fails)
          c.runs++;
          c.errorRuns++;
          res_.errorMessages.insert(error);
        } else {
          next.rcEvents.resize(next.threads.size());
          if (!rc11Holds(next)) continue;
          any = true;
          c += explore(next);
        }
      }
      return any;
    }
    const uint8_t size = a.size ? a.size : 4;
    // Candidates for the read part: init, then every write so far.
    std::vector<Event> cands{Event{}};
    if (auto it = s.co.find(a.addr); it != s.co.end()) cands.insert(cands.end(), it->second.begin(), it->second.end());
    const bool reads = a.kind != ActionKind::Store;
    for (size_t ci = 0; ci < (reads ? cands.size() : 1); ++ci) {
      Value old = 0;
      if (reads) old = cands[ci].tid < 0 ? initialValue(a.addr, size) : rcEvent(s, cands[ci]).wval;
      bool writes = true;
      Value nv = 0, result = 0;
      switch (a.kind) {
        case ActionKind::Load: writes = false; result = old; break;
        case ActionKind::Store: nv = a.value; break;
        case ActionKind::Rmw: nv = rmwResult(a.rmw, old, a.value, a.expected, size, &writes); result = old; break;
        case ActionKind::Lock:
          if (old != 0) continue;  // held: the lock waits
          nv = Value(t) + 1;
          break;
        case ActionKind::TryLock:
          writes = old == 0;
          nv = Value(t) + 1;
          result = writes ? 0 : 16;
          break;
        default: nv = 0; break;  // Unlock
      }
      const size_t positions = writes ? (s.co.count(a.addr) ? s.co.at(a.addr).size() : 0) + 1 : 1;
      for (size_t p = 0; p < positions; ++p) {
        State next = s;
        cell(next, a.addr, size);
        State::RcEvent e = re;
        e.reads = reads;
        e.writes = writes;
        if (a.kind == ActionKind::Rmw && !writes) e.order = a.failOrder;  // a failed CAS: its failure order
        e.wval = maskToSize(nv, size);
        if (reads) {
          e.rf = cands[ci];
          addRf(next, ev, cands[ci]);
        }
        if (writes) {
          std::vector<Event>& co = next.co[a.addr];
          co.insert(co.begin() + std::ptrdiff_t(p), ev);
        }
        next.rcEvents.resize(next.threads.size());
        next.rcEvents[t].push_back(e);
        if (!rc11Holds(next)) continue;
        any = true;
        if (a.kind == ActionKind::Unlock && old != Value(t) + 1) {
          c.runs++;
          c.errorRuns++;
          res_.errorMessages.insert("unlock of a mutex not held");
          continue;
        }
        auto moved = std::make_shared<ThreadState>(*next.threads[t]);
        moved->complete(result);
        next.threads[t] = std::move(moved);
        next.history[t].push_back(result);
        c += explore(next);
      }
    }
    return any;
  }

  // RC11 (Lahav et al., PLDI 2017; release sequences as in C++20) on the
  // graph of s, relation by relation. Nodes: one initial write per location,
  // then each event (an RMW: a read node and, when it writes, a write node).
  bool rc11Holds(const State& s) const {
    enum class NK { Init, Read, Write, Fence, Other };
    struct Node {
      NK kind;
      MemOrder order;
      Addr addr;
      int thread;
      uint32_t k;
    };
    std::vector<Node> nodes;
    std::map<Addr, size_t> initNode;
    for (const auto& [addr, cell] : s.mem) {
      initNode[addr] = nodes.size();
      nodes.push_back(Node{NK::Init, MemOrder::NonAtomic, addr, -1, 0});
    }
    std::map<std::pair<int, uint32_t>, size_t> readNode, writeNode, firstNode, lastNode;
    for (size_t t = 0; t < s.rcEvents.size(); ++t)
      for (uint32_t k = 0; k < s.rcEvents[t].size(); ++k) {
        const State::RcEvent& e = s.rcEvents[t][k];
        const std::pair<int, uint32_t> key{int(t), k};
        firstNode[key] = nodes.size();
        if (e.reads) {
          readNode[key] = nodes.size();
          nodes.push_back(Node{NK::Read, e.order, e.addr, int(t), k});
        }
        if (e.writes) {
          writeNode[key] = nodes.size();
          nodes.push_back(Node{NK::Write, e.order, e.addr, int(t), k});
        }
        if (!e.reads && !e.writes)
          nodes.push_back(Node{e.kind == ActionKind::Fence ? NK::Fence : NK::Other, e.order, 0, int(t), k});
        lastNode[key] = nodes.size() - 1;
      }
    const size_t n = nodes.size();
    using M = Relation;
    auto empty = [&] { return M(n, std::vector<bool>(n, false)); };
    auto closure = [&](M m) {
      for (size_t k = 0; k < n; ++k)
        for (size_t i = 0; i < n; ++i)
          if (m[i][k])
            for (size_t j = 0; j < n; ++j)
              if (m[k][j]) m[i][j] = true;
      return m;
    };
    const auto compose = composeRelations;
    auto unite = [&](M a, const M& b) {
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j)
          if (b[i][j]) a[i][j] = true;
      return a;
    };
    auto acyclic = [&](const M& m) {
      const M c = closure(m);
      for (size_t i = 0; i < n; ++i)
        if (c[i][i]) return false;
      return true;
    };
    auto isW = [&](size_t v) { return nodes[v].kind == NK::Write || nodes[v].kind == NK::Init; };
    auto isR = [&](size_t v) { return nodes[v].kind == NK::Read; };
    auto isF = [&](size_t v) { return nodes[v].kind == NK::Fence; };
    auto atomic = [&](size_t v) { return nodes[v].kind != NK::Init && nodes[v].order != MemOrder::NonAtomic; };
    auto rel = [&](size_t v) { return (isW(v) || isF(v)) && atomic(v) && releases(nodes[v].order); };
    auto acq = [&](size_t v) { return (isR(v) || isF(v)) && atomic(v) && acquires(nodes[v].order); };
    auto sc = [&](size_t v) {
      const NK k = nodes[v].kind;
      const ActionKind ak = k == NK::Init ? ActionKind::Exit : s.rcEvents[size_t(nodes[v].thread)][nodes[v].k].kind;
      return (k == NK::Read || k == NK::Write || k == NK::Fence) && nodes[v].order == MemOrder::SeqCst &&
             (ak == ActionKind::Load || ak == ActionKind::Store || ak == ActionKind::Rmw || ak == ActionKind::Fence);
    };
    auto hasLoc = [&](size_t v) { return isR(v) || isW(v); };
    auto sameLoc = [&](size_t a, size_t b) { return hasLoc(a) && hasLoc(b) && nodes[a].addr == nodes[b].addr; };
    // po (a thread's nodes in order), rmw, rf, mo, the spawn and join edges.
    M po = empty(), rmw = empty(), rf = empty(), mo = empty(), sj = empty();
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b)
        if (nodes[a].thread >= 0 && nodes[a].thread == nodes[b].thread && a < b) po[a][b] = true;
    for (const auto& [key, r] : readNode)
      if (auto w = writeNode.find(key); w != writeNode.end()) rmw[r][w->second] = true;
    for (const auto& [key, r] : readNode) {
      const State::RcEvent& e = s.rcEvents[size_t(key.first)][key.second];
      const size_t w = e.rf.tid < 0 ? initNode.at(e.addr) : writeNode.at({e.rf.tid, e.rf.k});
      rf[w][r] = true;
    }
    for (const auto& [addr, ws] : s.co) {
      std::vector<size_t> order{initNode.at(addr)};
      for (Event w : ws) order.push_back(writeNode.at({w.tid, w.k}));
      for (size_t i = 0; i < order.size(); ++i)
        for (size_t j = i + 1; j < order.size(); ++j) mo[order[i]][order[j]] = true;
    }
    for (size_t t = 0; t < s.rcEvents.size(); ++t)
      for (uint32_t k = 0; k < s.rcEvents[t].size(); ++k) {
        const State::RcEvent& e = s.rcEvents[t][k];
        const size_t me = firstNode.at({int(t), k});
        if (e.kind == ActionKind::Spawn && e.aux < s.rcEvents.size() && !s.rcEvents[e.aux].empty())
          sj[lastNode.at({int(t), k})][firstNode.at({int(e.aux), 0})] = true;
        if (e.kind == ActionKind::Join && !s.rcEvents[e.aux].empty())
          sj[lastNode.at({int(e.aux), uint32_t(s.rcEvents[e.aux].size() - 1)})][me] = true;
      }
    // No thin air: po ∪ rf (with spawn and join) acyclic.
    if (!acyclic(unite(unite(po, rf), sj))) return false;
    // rb = rf⁻¹; mo.
    M rb = empty();
    for (size_t w = 0; w < n; ++w)
      for (size_t r = 0; r < n; ++r)
        if (rf[w][r])
          for (size_t w2 = 0; w2 < n; ++w2)
            if (mo[w][w2]) rb[r][w2] = true;
    // Atomicity: rmw ∩ (rb; mo) = ∅.
    const M rbmo = compose(rb, mo);
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b)
        if (rmw[a][b] && rbmo[a][b]) return false;
    // rs = [W⊒rlx]; (rf; rmw)*; sw = [E⊒rel]; ([F]; po)?; rs; rf; [R⊒rlx]; (po; [F])?; [E⊒acq].
    M rs = empty();
    for (size_t w = 0; w < n; ++w)
      if (isW(w) && atomic(w)) rs[w][w] = true;
    for (bool grew = true; grew;) {  // (rs; rf; rmw)* to a fixpoint
      const M more = unite(rs, compose(rs, compose(rf, rmw)));
      grew = more != rs;
      rs = more;
    }
    const M sw = rc11SynchronisesWith(po, rs, rf, rel, acq, isF, atomic);
    // hb = (po ∪ sw ∪ spawn/join ∪ init before everything)+.
    M hbBase = unite(unite(po, sw), sj);
    for (size_t a = 0; a < n; ++a)
      if (nodes[a].kind == NK::Init)
        for (size_t b = 0; b < n; ++b)
          if (nodes[b].kind != NK::Init) hbBase[a][b] = true;
    const M hb = closure(hbBase);
    // Coherence: hb; eco? irreflexive.
    const M eco = closure(unite(unite(rf, mo), rb));
    for (size_t a = 0; a < n; ++a) {
      if (hb[a][a]) return false;
      for (size_t b = 0; b < n; ++b)
        if (hb[a][b] && eco[b][a]) return false;
    }
    // SC: psc = psc_base ∪ psc_F acyclic.
    M sbNeq = empty(), hbLoc = empty();
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b) {
        if (po[a][b] && !sameLoc(a, b)) sbNeq[a][b] = true;
        if (hb[a][b] && sameLoc(a, b)) hbLoc[a][b] = true;
      }
    const M scb = unite(unite(unite(unite(po, compose(sbNeq, compose(hb, sbNeq))), hbLoc), mo), rb);
    M left = empty(), right = empty();  // [E^sc] ∪ [F^sc]; hb?  and  [E^sc] ∪ hb?; [F^sc]
    for (size_t a = 0; a < n; ++a) {
      if (!sc(a)) continue;
      left[a][a] = right[a][a] = true;
      if (isF(a))
        for (size_t b = 0; b < n; ++b) {
          if (hb[a][b]) left[a][b] = true;
          if (hb[b][a]) right[b][a] = true;
        }
    }
    M psc = compose(compose(left, scb), right);
    const M hbEcoHb = unite(hb, compose(hb, compose(eco, hb)));
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b)
        if (sc(a) && sc(b) && isF(a) && isF(b) && hbEcoHb[a][b]) psc[a][b] = true;
    return acyclic(psc);
  }

  const Program& prog_;
  Model model_;
  int bound_;
  const Limits& limits_;
  bool cache_;
  NaiveResult res_;
  std::unordered_map<std::string, Counts> memo_;
  uint64_t maxCached_ = 0;  // > 0: more cached subtrees end the search as timed out
  bool races_ = false;      // judgeRaces
  int maxPreemptions_ = -1;  // >= 0: preemption mode
  std::map<std::string, int> minPreemptions_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

NaiveResult exploreNaive(const Program& prog, Model model, int bufferBound, const Limits& limits,
                         uint64_t maxCached) {
  Naive n(prog, model, bufferBound, limits, /*cache=*/true);
  n.setMaxCached(maxCached);
  return n.run();
}

NaiveResult exploreNaiveRc11Races(const Program& prog, const Limits& limits, uint64_t maxCached) {
  Naive n(prog, Model::RC11, -1, limits, /*cache=*/true);
  n.setMaxCached(maxCached);
  n.judgeRaces();
  return n.run();
}

// The same search without the subtree cache (for tests; not in the header).
NaiveResult exploreNaivePlain(const Program& prog, Model model, int bufferBound, const Limits& limits) {
  Naive n(prog, model, bufferBound, limits, /*cache=*/false);
  return n.run();
}

std::map<std::string, int> naiveMinPreemptions(const Program& prog, Model model, int bufferBound,
                                               int maxPreemptions, const Limits& limits, uint64_t maxCached,
                                               bool* timedOut) {
  Naive n(prog, model, bufferBound, limits, /*cache=*/false);
  n.setMaxCached(maxCached);
  return n.runPreemptions(maxPreemptions, timedOut);
}

}  // namespace tsocheck::testing

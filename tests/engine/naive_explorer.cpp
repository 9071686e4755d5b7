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
// The only optimisation is a cache of finished subtrees keyed by the complete
// machine state (threads, buffers, memory and the trace built so far): a
// subtree depends on nothing but its root state, so revisiting a state just
// adds the cached run counts, and the sets (traces, final states, messages)
// already hold everything the subtree contributes. Every output, run counts
// included, is identical to the plain search (exploreNaivePlain, used by the
// tests to check exactly that). A thread's state is identified by the results
// delivered to it so far: ThreadState is deterministic given them.
#include "tests/engine/naive_explorer.h"

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
  bool buffered() const { return model_ != Model::SC && bound_ != 0; }

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
    for (const auto& [addr, c] : s.mem) fin.push_back({addr, c.value});
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

  const Program& prog_;
  Model model_;
  int bound_;
  const Limits& limits_;
  bool cache_;
  NaiveResult res_;
  std::unordered_map<std::string, Counts> memo_;
  uint64_t maxCached_ = 0;  // > 0: more cached subtrees end the search as timed out
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

#include "engine/work_sharing.h"

#include <pthread.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <tuple>

namespace tsocheck {

Explorer::Explorer(const Program& prog, const CheckOptions& opts, ParallelShared* par)
    : Explorer(prog, opts) {
  par_ = par;
  spawnIds_ = &par->spawnIds;
}

namespace {
// The counters of a check (and of a segment of it), one call per counter:
// f(a's, b's, c's).
template <class F>
void forEachCounter(CheckResult& a, const CheckResult& b, CheckResult& c, F f) {
  f(a.executions, b.executions, c.executions);
  f(a.blocked, b.blocked, c.blocked);
  f(a.cut, b.cut, c.cut);
  f(a.events, b.events, c.events);
  f(a.boundBlocked, b.boundBlocked, c.boundBlocked);
  f(a.boundBlockedSettled, b.boundBlockedSettled, c.boundBlockedSettled);
  f(a.staleWaits, b.staleWaits, c.staleWaits);
  f(a.staleReads, b.staleReads, c.staleReads);
  f(a.slackExecutions, b.slackExecutions, c.slackExecutions);
}
// FNV-1a over a path's indices: the same on every machine and build.
uint64_t pathHash(const std::vector<uint32_t>& p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i)
    for (int b = 0; b < 4; ++b) {
      h ^= (p[i] >> (8 * b)) & 0xff;
      h *= 1099511628211ull;
    }
  return h;
}

// A piece's counters into r (ShardPiece::counts, in forEachCounter's order).
void addPieceCounts(CheckResult& r, const std::vector<uint64_t>& counts) {
  CheckResult c;
  size_t i = 0;
  forEachCounter(c, c, c, [&](uint64_t& x, uint64_t, uint64_t&) { x = i < counts.size() ? counts[i++] : 0; });
  forEachCounter(r, c, r, [](uint64_t& sum, uint64_t piece, uint64_t&) { sum += piece; });
}

std::vector<uint64_t> pieceCounts(CheckResult& seg) {
  std::vector<uint64_t> out;
  forEachCounter(seg, seg, seg, [&](uint64_t& x, uint64_t, uint64_t&) { out.push_back(x); });
  return out;
}

void addLimit(CheckResult& r, std::string l) {
  if (r.limitsHit.size() < 8 && std::find(r.limitsHit.begin(), r.limitsHit.end(), l) == r.limitsHit.end())
    r.limitsHit.push_back(std::move(l));
}
}  // namespace

bool Explorer::ownsSubtree(const Path& p) const {
  if (const std::optional<Path>& only = opts_.shard.only)
    return only->size() == opts_.shard.depth && p.size() >= only->size() &&
           std::equal(only->begin(), only->end(), p.begin());
  return pathHash(p, opts_.shard.depth) % opts_.shard.count == opts_.shard.index;
}

std::vector<uint32_t> shardPieceOf(const Violation::ShardOrder& o, uint32_t depth) {
  // A segment below the cut starts inside its piece (the piece's path, then
  // deeper); the segment after a piece starts at the piece's path followed by
  // UINT32_MAX (leaveChild) and lies above the cut, as does a shorter start.
  if (o.start.size() < depth || (o.start.size() > depth && o.start[depth] == UINT32_MAX)) return {};
  return std::vector<uint32_t>(o.start.begin(), o.start.begin() + depth);
}

void Explorer::enterChild(uint32_t i) {
  path_.push_back(i);
  if (opts_.shard.count == 0 || path_.size() != opts_.shard.depth) return;
  closeSegment(path_);  // the child is a piece of its own
  skipping_ = !ownsSubtree(path_);
}

void Explorer::leaveChild() {
  const bool cut = opts_.shard.count > 0 && path_.size() == opts_.shard.depth;
  Path next;
  if (cut) {  // what follows comes after the child's subtree and before the next child
    next = path_;
    next.push_back(UINT32_MAX);
  }
  path_.pop_back();
  if (!cut) return;
  closeSegment(std::move(next), skipping_);
  skipping_ = false;
}

void Explorer::closeSegment(Path next, bool drop) {
  if (!par_) return;
  bool counted = false;
  forEachCounter(cur_.counts, res_, mark_, [&](uint64_t& seg, uint64_t now, uint64_t& mark) {
    seg = now - mark;
    mark = now;
    counted = counted || seg != 0;
  });
  const bool empty = !counted && cur_.violations.empty() && cur_.limits.empty() &&
                     !cur_.nondetLimited && cur_.engineError.empty();
  if (!empty && !drop) segments_.push_back(std::move(cur_));
  cur_ = Segment{};
  cur_.start = std::move(next);
  cur_.above = opts_.shard.count > 0 && path_.size() < opts_.shard.depth;
}

Explorer::FrameScope::FrameScope(Explorer& e, FrameKind kind, const State& base, uint32_t n, uint32_t t, EventId id,
                                 const void* items, bool completeT)
    : ex(e), f{kind, &base, e.path_.size(), n, 0, n, t, id, items, completeT} {
  if (ex.par_) ex.frames_.push_back(&f);
}

Explorer::FrameScope::~FrameScope() {
  if (!ex.par_) return;
  ex.frames_.pop_back();
  // Children [end, n) went to other workers: what comes next in this task
  // follows them in the sequential order.
  if (f.end < f.n) {
    Path next = ex.path_;
    next.push_back(f.pathBase + f.n);
    ex.closeSegment(std::move(next));
  }
}

bool Explorer::FrameScope::begin(uint32_t i, bool* last) {
  if (i >= f.end) return false;
  f.next = i + 1;
  *last = i + 1 == f.end;
  return true;
}

void Explorer::giveAway() {
  for (Frame* f : frames_) {  // the shallowest first: the biggest part of the tree
    if (f->next >= f->end) continue;
    const uint32_t i = --f->end;
    TaskBox k(new Task);
    k->path.assign(path_.begin(), path_.begin() + std::ptrdiff_t(f->depth));
    k->path.push_back(f->pathBase + i);
    k->s = *f->base;
    k->s.detach();  // (it goes to another worker: no storage shared across threads)
    k->kind = f->kind;
    k->t = f->t;
    k->id = f->id;
    k->completeT = f->completeT;
    State& c = k->s;
    switch (f->kind) {
      case FrameKind::Read: {
        const EventId w = (*static_cast<const std::vector<EventId>*>(f->items))[i];
        c.g.setRf(f->id, w);
        Event& ev = c.g.mut(f->id);
        ev.rval = ev.result = c.g.valueOf(*c.g.findLoc(ev.addr), w);
        break;
      }
      case FrameKind::Write: {
        const auto& positions = *static_cast<const std::vector<int>*>(f->items);
        if (i == positions.size()) {  // the child after the positions: the write's backward revisits
          k->kind = FrameKind::Revisits;
          break;
        }
        const int p = positions[i];
        c.g.findLoc(c.g.ev(f->id).addr)->co.insert(size_t(p), f->id);
        break;
      }
      case FrameKind::Choice:
        c.g.mut(f->id).result = choiceValue(*static_cast<const Action*>(f->items), Value(i));
        break;
      case FrameKind::RevisitRead:
        k->r = (*static_cast<const std::vector<EventId>*>(f->items))[i];
        break;
      case FrameKind::RmwCandidate: {
        // The base is in the middle of another candidate: without its write.
        k->r = (*static_cast<const std::vector<EventId>*>(f->items))[i];
        c.g.findLoc(c.g.ev(f->id).addr)->co.eraseIf([&](EventId x) { return x == f->id; });
        break;
      }
      case FrameKind::Visit:
      case FrameKind::Revisits:
        break;  // the branch point's state as it is
    }
    par_->put(std::move(k));
    return;
  }
}

void Explorer::runTask(Task& k) {
  path_ = k.path;
  frames_.clear();
  cur_ = Segment{};
  cur_.start = k.path;
  cur_.above = opts_.shard.count > 0 && path_.size() < opts_.shard.depth;
  skipping_ = false;
  // Sharded: a task below the cut that another shard owns is not this one's.
  const bool others = opts_.shard.count > 0 && path_.size() >= opts_.shard.depth && !ownsSubtree(path_);
  // What a task finds is compared with what the same task found before only:
  // tasks come in any order.
  res_.violations.clear();
  res_.violation.reset();
  raceCheck_ = raceCheckInitially_;
  if (par_->probeOver.load()) {
    probing_ = false;
    boundOn_ = !par_->boundDropped.load();
  }
  if (!timedOut_) stopped_ = false;
  if (!pastBest() && !others) {
    switch (k.kind) {
      case FrameKind::Read:
        complete(k.s, k.t);
        if (!useAfterFree(k.s, k.id)) visit(k.s);
        break;
      case FrameKind::Write:
        if (placed(k.s, k.t, k.id)) visit(k.s);
        break;
      case FrameKind::Choice:
        complete(k.s, k.t);
        visit(k.s);
        break;
      case FrameKind::RevisitRead:
        revisitRead(k.s, k.t, k.id, k.r, viewOf(k.s.g, k.id), k.completeT);
        break;
      case FrameKind::Visit:
        visit(k.s);
        break;
      case FrameKind::Revisits:
        revisits(k.s, k.t, k.id, k.completeT);
        break;
      case FrameKind::RmwCandidate:
        rmwCandidate(k.s, k.t, k.id, k.r, true);
        break;
    }
  }
  closeSegment({});
}

void Explorer::work() {
  TaskBox k;
  while (par_->take(k)) {
    runTask(*k);
    k.reset();
  }
}

bool Explorer::pastBest() {
  if (!par_->haveBest.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> l(par_->bestMutex);
  return path_ > par_->best;
}

void Explorer::stopHere() {
  stopped_ = true;
  if (!par_) return;
  std::lock_guard<std::mutex> l(par_->bestMutex);
  if (!par_->haveBest.load() || path_ < par_->best) {
    par_->best = path_;
    par_->haveBest.store(true, std::memory_order_release);
  }
}

bool Explorer::addViolation(Violation v) {
  if (!par_) return res_.addViolation(std::move(v));
  Violation copy = v;
  if (!res_.addViolation(std::move(v))) return false;
  cur_.violations.push_back(std::move(copy));
  return true;
}

namespace {
struct WorkerStart {
  std::function<void()> fn;
};
void* runWorker(void* p) {
  static_cast<WorkerStart*>(p)->fn();
  return nullptr;
}
}  // namespace

CheckResult Explorer::runParallel(const State& root) {
  ParallelShared shared;
  const uint32_t n = uint32_t(opts_.jobs);
  // Helpers join after kHelperDelay (explorer.h), except in the tests that
  // split eagerly: those have every worker from the start.
  const bool late = !opts_.testing.splitEagerly;
  shared.workers = late ? 1 : n;
  // A helper's explorer and thread are made only when it joins: a check
  // that ends within the delay pays for one worker.
  std::vector<std::unique_ptr<Explorer>> workers(n);
  auto make = [&](uint32_t w) {
    workers[w].reset(new Explorer(prog_, opts_, &shared));
    workers[w]->raceCheckInitially_ = raceCheck_;
  };
  TaskBox first(new Task);
  first->s = root;
  first->s.detach();
  first->kind = FrameKind::Visit;
  shared.queue.push_back(std::move(first));  // (a task of kind Read, ... is not made for the root)
  // Each worker recurses once per event like the sequential search: a large
  // stack each (address space only).
  std::vector<WorkerStart> starts;
  for (uint32_t w = 0; w < n; ++w) starts.push_back({[&, w] { workers[w]->work(); }});
  std::vector<pthread_t> threads(n);
  std::vector<bool> started(n, false);
  auto launch = [&](uint32_t w) {
    make(w);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, size_t(1) << 30);
    started[w] = pthread_create(&threads[w], &attr, runWorker, &starts[w]) == 0;
    pthread_attr_destroy(&attr);
  };
  for (uint32_t w = 0; w < (late ? 1 : n); ++w) launch(w);
  if (!started[0]) {
    runWorker(&starts[0]);  // no thread at all: this one works alone
  } else if (late) {
    for (uint32_t w = 1; w < n; ++w) {
      if (!shared.joinLate(w == 1 ? kHelperDelay : std::chrono::milliseconds(0))) break;
      launch(w);
      if (!started[w]) {  // counted as joined but never works: uncount it
        shared.leave();
        break;
      }
    }
  }
  for (uint32_t w = 0; w < n; ++w)
    if (started[w]) pthread_join(threads[w], nullptr);

  // The merge, in the sequential order.
  std::vector<Segment*> segs;
  for (auto& w : workers) {
    if (!w) continue;
    for (Segment& g : w->segments_) segs.push_back(&g);
    timedOut_ = timedOut_ || w->timedOut_;
  }
  std::sort(segs.begin(), segs.end(), [](const Segment* a, const Segment* b) { return a->start < b->start; });
  CheckResult r;
  r.boundDropped = shared.boundDropped.load();
  const bool sharded = opts_.shard.count > 0;
  if (sharded) {
    r.shard.emplace();
    if (shared.haveBest) r.shard->stop = shared.best;
  }
  for (Segment* g : segs) {
    if (shared.haveBest && g->start > shared.best) break;
    if (sharded && g->above && opts_.shard.index != 0) continue;  // shard 0 reports it
    forEachCounter(r, g->counts, r, [](uint64_t& sum, uint64_t seg, uint64_t&) { sum += seg; });
    uint32_t place = 0;
    for (Violation& v : g->violations) {
      if (sharded) v.shardOrder = Violation::ShardOrder{g->start, place++};
      r.addViolation(std::move(v));
    }
    for (const std::string& l : g->limits) addLimit(r, l);
    r.nondetLimited = r.nondetLimited || g->nondetLimited;
    if (!g->engineError.empty() && r.status != Status::Error) {
      r.status = Status::Error;
      r.message = g->engineError;
    }
    if (sharded)
      r.shard->pieces.push_back({g->start, pieceCounts(g->counts), g->limits, g->nondetLimited, g->engineError});
  }
  return r;
}

CheckResult mergeShards(const std::vector<CheckResult>& shards, const CheckOptions& opts) {
  // The merge runParallel makes of its workers' segments, over every shard's
  // pieces: the first error's path (the least any shard stopped at) ends it.
  std::optional<std::vector<uint32_t>> stop;
  bool timedOut = false;
  std::vector<const ShardPiece*> pieces;
  std::vector<const Violation*> found;
  for (const CheckResult& s : shards) {
    if (!s.shard) continue;
    if (s.shard->stop && (!stop || *s.shard->stop < *stop)) stop = s.shard->stop;
    timedOut = timedOut || s.shard->timedOut;
    for (const ShardPiece& p : s.shard->pieces) pieces.push_back(&p);
    for (const Violation& v : s.violations)
      if (v.shardOrder) found.push_back(&v);
  }
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const ShardPiece* a, const ShardPiece* b) { return a->start < b->start; });
  std::stable_sort(found.begin(), found.end(), [](const Violation* a, const Violation* b) {
    return std::tie(a->shardOrder->start, a->shardOrder->index) < std::tie(b->shardOrder->start, b->shardOrder->index);
  });
  CheckResult r;
  for (const ShardPiece* p : pieces) {
    if (stop && p->start > *stop) break;
    addPieceCounts(r, p->counts);
    for (const std::string& l : p->limits) addLimit(r, l);
    r.nondetLimited = r.nondetLimited || p->nondetLimited;
    if (!p->engineError.empty() && r.status != Status::Error) {
      r.status = Status::Error;
      r.message = p->engineError;
    }
  }
  for (const Violation* v : found) {
    if (stop && v->shardOrder->start > *stop) break;
    r.addViolation(*v);  // (its shardOrder stays: a merge of reports finds each one's own JSON by it)
  }
  Explorer::finishStatus(r, opts, timedOut);
  return r;
}

}  // namespace tsocheck

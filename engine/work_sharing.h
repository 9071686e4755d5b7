// Work-sharing for the graph explorer (explorer.h): the parallel driver
// (Explorer::runParallel), the task queue the workers share, and the
// canonical order in which what the workers found is merged.
//
// Contract:
//  * Input: the root state of an exploration and CheckOptions::jobs workers.
//    Output: one CheckResult, equal to the sequential explorer's (counts,
//    the first violation of each kind and its trace, limits), whatever the
//    number of workers and however the work was split.
//  * A node of the exploration tree is named by its path: the indices of the
//    children taken from the root (Explorer::PathScope pushes them; a branch
//    point's continuation after its children is the index past them). Paths
//    in lexicographic order are the sequential order.
//  * Each worker records what it finds per segment (Explorer::Segment), keyed
//    by the path where the segment begins; the merge sorts the segments by
//    that key and adds them up. With stopAtFirstError the smallest path of an
//    error that stops the search ends it: segments after it are dropped.
//  * A task (a given-away child) carries a detached copy of its branch
//    point's state: no storage is shared between workers but the spawn-id
//    table (spawn_ids.h) and ParallelShared below.
//  * The explorer calls in through FrameScope (a branch point is open),
//    PathScope (a child of it runs), timeUp (poll: give work away, stop past
//    the first error), stopHere and addViolation; nothing else of the
//    explorer knows about workers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "engine/explorer.h"

namespace tsocheck {

// Parallel exploration (CheckOptions::jobs > 1): the workers share one
// exploration tree. A worker that sees another one idle gives away the last
// child not yet begun of its shallowest open branch point (a Frame): a copy of
// the branch point's state with that child's choice made, and the child's path
// — the indices of the children taken from the root — as a Task. Each node is
// explored by one worker, in the sequential order within a task. What a
// worker finds is recorded per *segment* (a stretch of one task's
// exploration between given-away children), keyed by the path where the
// segment begins; the merge adds the segments up in path order, which is the
// sequential explorer's order, so counts, the first violation of each kind
// and its trace are those of one worker. With stopAtFirstError the first
// error's path ends the search: work after it is dropped, work before it
// finishes. Thread ids come from one shared table (spawn_ids.h). Worker 0
// starts alone; the others join after kHelperDelay if the search has not
// ended by then, so a short check costs one worker's CPU time (splitting a
// search of a few milliseconds only adds copies; CheckOptions::Testing::splitEagerly
// starts them all at once). A helper's Explorer and thread are made when it
// joins.
constexpr std::chrono::milliseconds kHelperDelay{20};

// Shards (CheckOptions::shard, `tsocheck check --shard i/n`): one search split
// over n processes that do not talk to one another. Every shard runs the
// exploration tree down to the cut, the nodes whose path is `depth` long,
// the same way; each child at the cut is its own piece, explored by the one
// shard its path hashes to (FNV-1a of the path, mod n) and skipped by the
// others. What lies above the cut is reported by shard 0 only. A shard runs
// through runParallel (with one worker or --jobs of them) and reports its
// segments as ShardPieces, its violations with their place in the canonical
// order (Violation::shardOrder) and the path of the error that stopped it;
// mergeShards makes of them what runParallel makes of its workers' segments,
// so the merge of every shard is the single run's result (counts, the first
// violation of each kind and its trace, limits, status).
// Not sharded: robustness (one witness for the whole search), a preemption
// bound (its probe and rounds), the state-space searches (search.cpp
// chooseSearch refuses them).
CheckResult mergeShards(const std::vector<CheckResult>& shards, const CheckOptions& opts);
// The path of the piece a shard's violation was found in (`depth` long), or
// empty when it was found above the cut: what CheckOptions::Shard::only
// takes to search that piece again.
std::vector<uint32_t> shardPieceOf(const Violation::ShardOrder& o, uint32_t depth);
struct ParallelShared {
  uint32_t workers = 1;  // workers that have joined the search (helpers join late: joinLate)
  bool over = false;     // the search has ended: a helper that has not joined does not
  std::mutex m;
  std::condition_variable cv;
  std::condition_variable lateCv;  // wakes helpers waiting to join when the search ends
  std::deque<Explorer::TaskBox> queue;
  uint32_t idle = 0;
  std::atomic<uint32_t> idleHint{0};  // idle workers and nothing queued for them
  // The path of the first error that ends the search (none yet: empty and
  // haveBest false): work after it is not explored, segments after it are
  // dropped. bestVersion counts its changes.
  std::mutex bestMutex;
  std::vector<uint32_t> best;
  std::atomic<bool> haveBest{false};
  std::atomic<uint64_t> bestVersion{0};
  std::atomic<bool> stop{false};  // time limit or cancel
  // The preemption bound's probe (CheckOptions::boundProbe): decided by the
  // one worker that runs until then (nothing is given away before), so that
  // every task sees the decision.
  std::atomic<bool> probeOver{false};
  std::atomic<bool> boundDropped{false};
  std::atomic<uint64_t> progress{0};
  std::mutex callbacks;  // onExecution is called by one worker at a time
  SpawnIds spawnIds;

  void put(Explorer::TaskBox t) {
    std::lock_guard<std::mutex> l(m);
    queue.push_back(std::move(t));
    idleHint.store(0, std::memory_order_relaxed);
    cv.notify_one();
  }
  // The next task; false when every worker is idle and nothing is queued.
  bool take(Explorer::TaskBox& out) {
    std::unique_lock<std::mutex> l(m);
    ++idle;
    for (;;) {
      if (!queue.empty()) {
        out = std::move(queue.front());
        queue.pop_front();
        --idle;
        idleHint.store(queue.empty() ? idle : 0, std::memory_order_relaxed);
        return true;
      }
      if (idle == workers || stop.load()) {
        idleHint.store(0, std::memory_order_relaxed);
        over = true;
        cv.notify_all();
        lateCv.notify_all();
        return false;
      }
      idleHint.store(idle, std::memory_order_relaxed);
      cv.wait(l);
    }
  }
  // A helper joins the search after `delay`, or not at all when it ends
  // first: a check shorter than that costs one worker's CPU time and no
  // splitting. False: it ended.
  bool joinLate(std::chrono::milliseconds delay) {
    std::unique_lock<std::mutex> l(m);
    lateCv.wait_for(l, delay, [&] { return over; });
    if (over) return false;
    ++workers;
    return true;
  }
  // A helper that joined but could not start.
  void leave() {
    std::lock_guard<std::mutex> l(m);
    --workers;
    cv.notify_all();
  }
};

}  // namespace tsocheck

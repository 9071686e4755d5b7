// The language server's scheduler (lsp/scheduler.h) driven in-process:
// debounce, most-recent-first, one check per document at a time, cancel
// flags, command jobs, the synchronous mode (0 workers), and the front slot:
// demoted checks, the one check beyond the pool, n + 2 at most at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lsp/scheduler.h"

using namespace tsocheck::lsp;
using namespace std::chrono_literals;

namespace {

// An io_context running on its own thread (what the server's I/O thread is).
struct IoThread {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> guard = asio::make_work_guard(io);
  std::thread t{[this] { io.run(); }};
  ~IoThread() {
    guard.reset();
    io.stop();
    t.join();
  }
};

// Fake checks: each runs until its document is released or it is cancelled
// (polling its flag as the engine does), counting starts, ends and how many
// run at once.
struct Fakes {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, int> started, finished, cancelled, now;
  std::set<std::string> released;
  int running = 0, most = 0;
  bool twice = false;  // a document checked by two workers at once

  void check(const std::string& uri, const Running& r) {
    std::unique_lock<std::mutex> l(mu);
    ++started[uri];
    twice = twice || ++now[uri] > 1;
    most = std::max(most, ++running);
    cv.notify_all();
    while (!released.count(uri) && !r.cancel->load()) cv.wait_for(l, 5ms);
    ++(r.cancel->load() ? cancelled : finished)[uri];
    --now[uri];
    --running;
    cv.notify_all();
  }
  bool waitFor(const std::string& uri, std::map<std::string, int>& what, int n = 1) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, 20s, [&] { return what[uri] >= n; });  // wide: a loaded machine
  }
  int count(const std::string& uri, std::map<std::string, int>& what) {
    std::lock_guard<std::mutex> l(mu);
    return what[uri];
  }
  void release(const std::string& uri) {
    std::lock_guard<std::mutex> l(mu);
    released.insert(uri);
    cv.notify_all();
  }
};

// One worker: C checked in the pool's slot, A in front, then B brought to
// the front; true when B's check started (A is demoted beyond the pool).
bool demoteBeyondThePool(Scheduler& s, Fakes& f) {
  s.setWorkers(1);
  s.schedule("C", 0);  // background: the pool's only slot
  if (!f.waitFor("C", f.started)) return false;
  s.schedule("A", 0, true);  // in front: the front slot
  if (!f.waitFor("A", f.started)) return false;
  s.schedule("B", 0, true);  // A is no longer in front
  return f.waitFor("B", f.started);
}

}  // namespace

TEST_CASE("0 workers: due documents are checked on the I/O thread, most recent first, once per debounce") {
  asio::io_context io;
  std::vector<std::string> order;
  Scheduler s(io, [&](const std::string& uri, const Running&) { order.push_back(uri); });
  s.setWorkers(0);
  s.schedule("a", 30);
  s.schedule("b", 30);
  s.schedule("a", 60);  // replaces a's timer: a is due after b
  io.run_for(200ms);
  s.blockUntilIdle();
  CHECK(order == std::vector<std::string>{"b", "a"});
  // A job submitted from a request handler runs after the handler returns.
  bool ran = false;
  s.submit([&] { ran = true; });
  CHECK_FALSE(ran);
  io.restart();  // run_for ran out
  io.poll();
  CHECK(ran);
  // A forgotten document's timer never fires.
  s.schedule("c", 20);
  s.forget("c");
  io.restart();
  io.run_for(100ms);
  CHECK(order.size() == 2);
}

TEST_CASE("workers: a document is never checked twice at once, and cancel reaches the running check") {
  IoThread io;
  std::atomic<int> inA{0}, maxInA{0}, checksOfA{0};
  std::atomic<bool> sawCancel{false};
  Scheduler s(io.io, [&](const std::string& uri, const Running& r) {
    if (uri != "a") return;
    const int now = ++inA;
    maxInA = std::max(maxInA.load(), now);
    ++checksOfA;
    // The first check runs until it is cancelled (as the engine polls its flag).
    if (checksOfA == 1) {
      for (int i = 0; i < 400 && !r.cancel->load(); ++i) std::this_thread::sleep_for(5ms);
      sawCancel = r.cancel->load();
    }
    --inA;
  });
  s.setWorkers(3);
  s.schedule("a", 0);
  for (int i = 0; i < 200 && !s.running("a"); ++i) std::this_thread::sleep_for(5ms);
  REQUIRE(s.running("a"));
  s.schedule("a", 0);  // an edit: queued again, but waits for the running one
  std::this_thread::sleep_for(50ms);
  CHECK(checksOfA == 1);
  s.cancel("a", "an edit");
  std::optional<Running> r = s.running("a");
  REQUIRE(r);
  CHECK(std::string(r->cancelledBy) == "an edit");
  s.blockUntilIdle();
  CHECK(sawCancel);
  CHECK(checksOfA == 2);
  CHECK(maxInA == 1);
  CHECK_FALSE(s.running("a"));
}

TEST_CASE("workers: a published check's follow-up work is still cancelled by an edit, and waits for nothing twice") {
  IoThread io;
  std::atomic<int> inA{0}, maxInA{0}, checksOfA{0};
  std::atomic<bool> published{false}, followUpCancelled{false};
  Scheduler* sp = nullptr;
  Scheduler s(io.io, [&](const std::string& uri, const Running& r) {
    const int now = ++inA;
    maxInA = std::max(maxInA.load(), now);
    if (++checksOfA == 1) {
      sp->done(uri, r);  // the results are out; more work for the same text follows
      published = true;
      for (int i = 0; i < 400 && !r.cancel->load(); ++i) std::this_thread::sleep_for(5ms);
      followUpCancelled = r.cancel->load();
    }
    --inA;
  });
  sp = &s;
  s.setWorkers(3);
  s.schedule("a", 0);
  for (int i = 0; i < 400 && !published; ++i) std::this_thread::sleep_for(5ms);
  REQUIRE(published);
  std::optional<Running> r = s.running("a");
  REQUIRE(r);
  CHECK(r->published->load());  // lenses show the results, not "checking…"
  s.schedule("a", 0);  // an edit
  std::this_thread::sleep_for(50ms);
  CHECK(checksOfA == 1);  // the follow-up work holds the document
  s.cancel("a", "an edit");
  s.blockUntilIdle();
  CHECK(followUpCancelled);
  CHECK(checksOfA == 2);
  CHECK(maxInA == 1);
}

TEST_CASE("workers: command jobs share the pool and stop() cancels what runs") {
  IoThread io;
  std::atomic<int> jobs{0};
  std::atomic<bool> cancelled{false};
  Scheduler s(io.io, [&](const std::string&, const Running& r) {
    for (int i = 0; i < 1000 && !r.cancel->load(); ++i) std::this_thread::sleep_for(5ms);
    cancelled = r.cancel->load();
  });
  s.setWorkers(2);
  for (int i = 0; i < 5; ++i) s.submit([&] { ++jobs; });
  s.blockUntilIdle();
  CHECK(jobs == 5);
  s.schedule("long", 0);
  for (int i = 0; i < 200 && !s.running("long"); ++i) std::this_thread::sleep_for(5ms);
  REQUIRE(s.running("long"));
  const auto t0 = std::chrono::steady_clock::now();
  s.stop();
  CHECK(cancelled);
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);  // at once; a margin for a loaded machine
}

TEST_CASE("workers: a waiting job can be withdrawn (it never runs), a started one cannot") {
  IoThread io;
  std::atomic<bool> release{false}, firstStarted{false}, secondRan{false};
  Scheduler s(io.io, [](const std::string&, const Running&) {});
  s.setWorkers(1);
  s.submit([&] {
    firstStarted = true;
    while (!release) std::this_thread::sleep_for(2ms);
  }, "1");
  for (int i = 0; i < 400 && !firstStarted; ++i) std::this_thread::sleep_for(5ms);
  REQUIRE(firstStarted);
  s.submit([&] { secondRan = true; }, "2");  // waits: the only worker is busy
  CHECK_FALSE(s.withdraw("1"));  // running
  CHECK(s.withdraw("2"));
  CHECK_FALSE(s.withdraw("2"));  // gone
  CHECK_FALSE(s.withdraw(""));   // keyless jobs are never withdrawn
  release = true;
  s.blockUntilIdle();
  CHECK_FALSE(secondRan);
}

TEST_CASE("workers: the foreground document does not wait behind a long check, other documents do") {
  IoThread io;
  std::atomic<bool> slowRunning{false}, releaseSlow{false};
  std::atomic<int> inFront{0}, other{0};
  Scheduler s(io.io, [&](const std::string& uri, const Running& r) {
    if (uri == "slow") {
      slowRunning = true;
      for (int i = 0; i < 2000 && !releaseSlow && !r.cancel->load(); ++i) std::this_thread::sleep_for(5ms);
    } else if (uri == "front") {
      ++inFront;
    } else {
      ++other;
    }
  });
  s.setWorkers(1);
  s.schedule("slow", 0);
  for (int i = 0; i < 400 && !slowRunning; ++i) std::this_thread::sleep_for(5ms);
  REQUIRE(slowRunning);
  s.schedule("background", 0);     // e.g. a dependent re-check: waits for the pool
  s.schedule("front", 0, true);    // the document the user just edited: the front slot
  for (int i = 0; i < 400 && !inFront; ++i) std::this_thread::sleep_for(5ms);
  CHECK(inFront == 1);
  CHECK(other == 0);
  releaseSlow = true;
  s.blockUntilIdle();
  CHECK(other == 1);
  CHECK(inFront == 1);
}

TEST_CASE("workers: a check no longer in front is demoted: the new foreground check starts at once, the old one goes on") {
  IoThread io;
  Fakes f;
  Scheduler s(io.io, [&](const std::string& uri, const Running& r) { f.check(uri, r); });
  REQUIRE(demoteBeyondThePool(s, f));  // B's check started while A's still runs
  std::optional<Running> a = s.running("A");
  REQUIRE(a);
  CHECK_FALSE(a->cancel->load());  // its work goes on
  // A comes back to the front while its demoted check runs: nothing new
  // starts, and it holds the front slot again (B is the one beyond the pool).
  s.schedule("A", 0, true);
  std::this_thread::sleep_for(200ms);
  CHECK(f.count("A", f.started) == 1);
  s.schedule("D", 0, true);  // a second demotion (of A): B, beyond the pool, is cancelled
  CHECK(f.waitFor("D", f.started));
  CHECK(f.count("B", f.cancelled) == 1);
  CHECK(f.count("A", f.cancelled) == 0);
  for (const char* u : {"A", "B", "C", "D"}) f.release(u);
  s.blockUntilIdle();
  CHECK(f.count("A", f.finished) == 2);  // the demoted check, then the one queued when it came back
  CHECK(f.count("B", f.finished) == 1);  // queued again when cancelled
  CHECK_FALSE(f.twice);
  CHECK(f.most <= 3);  // the pool's one, the front slot, one beyond the pool
}

TEST_CASE("workers: a second demotion cancels the older check beyond the pool, whose document is checked again later") {
  IoThread io;
  Fakes f;
  std::string why;  // the cancel reason, as the server logs it when the check stops
  Scheduler s(io.io, [&](const std::string& uri, const Running& r) {
    f.check(uri, r);
    std::optional<Running> now = s.running(uri);
    std::lock_guard<std::mutex> l(f.mu);
    if (r.cancel->load() && now) why = now->cancelledBy;
  });
  REQUIRE(demoteBeyondThePool(s, f));
  s.schedule("D", 0, true);  // B demoted: A, the older one beyond the pool, is cancelled
  CHECK(f.waitFor("D", f.started));
  CHECK(f.waitFor("A", f.cancelled));
  std::optional<Running> b = s.running("B");
  REQUIRE(b);
  CHECK_FALSE(b->cancel->load());
  {
    std::lock_guard<std::mutex> l(f.mu);
    CHECK(f.running == 3);  // C, B beyond the pool, D in front
    CHECK(f.most <= 3);
  }
  // A is queued again: the pool checks it once its slot frees (after the
  // check beyond the pool, which the freed slot adopts).
  f.release("A");
  f.release("C");
  std::this_thread::sleep_for(200ms);
  CHECK(f.count("A", f.started) == 1);  // B holds the pool slot now
  f.release("B");
  CHECK(f.waitFor("A", f.finished));
  f.release("D");
  s.blockUntilIdle();
  CHECK(f.count("A", f.started) == 2);
  CHECK(why == "the document in front; queued again");
  CHECK(f.count("B", f.finished) == 1);
  CHECK(f.count("C", f.finished) == 1);
  CHECK(f.count("D", f.finished) == 1);
  CHECK_FALSE(f.twice);
  CHECK(f.most <= 3);
}

TEST_CASE("workers: a demoted check takes a free pool slot, and a slot that frees goes to the check beyond the pool") {
  IoThread io;
  Fakes f;
  Scheduler s(io.io, [&](const std::string& uri, const Running& r) { f.check(uri, r); });
  s.setWorkers(1);
  s.schedule("A", 0, true);
  REQUIRE(f.waitFor("A", f.started));
  s.schedule("B", 0, true);  // the pool's slot is free: A takes it
  REQUIRE(f.waitFor("B", f.started));
  s.schedule("E", 0);  // background: waits for the pool
  std::this_thread::sleep_for(200ms);
  CHECK(f.count("E", f.started) == 0);
  s.schedule("D", 0, true);  // B beyond the pool; A, in the pool, is not the one cancelled
  REQUIRE(f.waitFor("D", f.started));
  f.release("A");  // the pool's slot goes to B
  CHECK(f.waitFor("A", f.finished));
  std::this_thread::sleep_for(200ms);
  CHECK(f.count("E", f.started) == 0);
  f.release("B");
  CHECK(f.waitFor("E", f.started));
  for (const char* u : {"D", "E"}) f.release(u);
  s.blockUntilIdle();
  for (const char* u : {"A", "B", "D", "E"}) {
    CHECK(f.count(u, f.finished) == 1);
    CHECK(f.count(u, f.cancelled) == 0);
  }
  CHECK(f.most <= 3);
}

TEST_CASE("workers: stop() cancels and joins demoted checks too") {
  IoThread io;
  Fakes f;
  Scheduler s(io.io, [&](const std::string& uri, const Running& r) { f.check(uri, r); });
  REQUIRE(demoteBeyondThePool(s, f));
  const auto t0 = std::chrono::steady_clock::now();
  s.stop();
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);  // at once; a margin for a loaded machine
  for (const char* u : {"A", "B", "C"}) CHECK(f.count(u, f.cancelled) == 1);
  std::lock_guard<std::mutex> l(f.mu);
  CHECK(f.running == 0);
}

TEST_CASE("workers: a check demoted after it published its results cancels no other check") {
  IoThread io;
  Fakes f;
  Scheduler s(io.io, [&](const std::string& uri, const Running& r) {
    if (uri == "B") s.done(uri, r);  // published: only its worker is still busy
    f.check(uri, r);
  });
  REQUIRE(demoteBeyondThePool(s, f));
  s.schedule("D", 0, true);  // B ends soon: it is not kept beyond the pool, A is
  std::this_thread::sleep_for(200ms);
  f.release("B");  // its thread serves D
  CHECK(f.waitFor("D", f.started));
  CHECK(f.count("A", f.cancelled) == 0);
  for (const char* u : {"A", "C", "D"}) f.release(u);
  s.blockUntilIdle();
  CHECK(f.count("A", f.finished) == 1);
  CHECK(f.most <= 3);
}

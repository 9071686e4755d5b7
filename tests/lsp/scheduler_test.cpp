// The language server's scheduler (lsp/scheduler.h) driven in-process:
// debounce, most-recent-first, one check per document at a time, cancel
// flags, command jobs, and the synchronous mode (0 workers).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
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
  s.schedule("front", 0, true);    // the document the user just edited: the reserved worker
  for (int i = 0; i < 400 && !inFront; ++i) std::this_thread::sleep_for(5ms);
  CHECK(inFront == 1);
  CHECK(other == 0);
  releaseSlow = true;
  s.blockUntilIdle();
  CHECK(other == 1);
  CHECK(inFront == 1);
}

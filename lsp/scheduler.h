// When which document is checked (the language server's TUScheduler): a
// debounce timer per document on the asio I/O thread, a queue of due
// documents served most recent first, a bounded pool of worker threads that
// also runs queued command jobs, and per running check a cancel flag and an
// execution counter.
//
// A newer schedule() of a document replaces its timer; cancel() sets the
// running check's flag (the engine polls it); a document is never checked by
// two workers at once. With 0 workers nothing runs on threads: a due
// document's check and a submitted job run on the I/O thread itself (unit
// tests drive it with io.run_for / poll, then blockUntilIdle()).
//
// The foreground document (the one the user last opened, edited, saved or
// asked to re-check) never waits behind other documents' checks: besides
// the pool's n slots there is a front slot, which only the foreground
// document's check takes. A long check is not paused (the engine can stop a
// search, not resume one); it shares the CPU with the foreground check
// instead, and its work is kept:
// - When another document comes to the front while the front slot's check
//   runs, that check is demoted: it goes on as a background check, in a free
//   pool slot, or else beyond the pool. At most one check runs beyond the
//   pool: a second demotion cancels the older one (its cancel reason says its
//   document is queued again; it is, at the back). A pool slot that frees
//   goes first to the check beyond the pool.
// - A document that comes back to the front while its check runs (in a pool
//   slot or beyond the pool) takes the front slot back: nothing new starts
//   while it runs (a newer schedule of the document waits for it, as always).
// - n + 2 threads serve the slots, so at most n + 2 checks and jobs run at
//   once. A check demoted when it was ending anyway (cancelled, or its
//   results published), or cancelled beyond the pool by a second demotion,
//   holds only its thread until it ends (the engine polls its cancel flag);
//   until then the new foreground check may wait for a thread.

#pragma once

#include "jsonrpc/asio.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tsocheck::lsp {

// One running check of a document.
struct Running {
  std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<long long>> executions = std::make_shared<std::atomic<long long>>(0);
  // Its results are published (done()): lenses show them, while the worker
  // may still do follow-up work for the same text (cancelled like the check).
  std::shared_ptr<std::atomic<bool>> published = std::make_shared<std::atomic<bool>>(false);
  std::chrono::steady_clock::time_point cancelledAt;
  const char* cancelledBy = "";  // what replaced the check: "an edit", "closing the file", ...
};

class Scheduler {
 public:
  // Runs the check of a document (on a worker, or inline with 0 workers);
  // must not throw.
  using CheckFn = std::function<void(const std::string& uri, const Running& r)>;
  Scheduler(asio::io_context& io, CheckFn check) : io_(io), check_(std::move(check)) {}
  ~Scheduler() { stop(); }
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // At most n checks at once in the pool, and the front slot for the
  // foreground document (with n > 0); grows the threads to n + 2 (never
  // shrinks them: a smaller n only leaves threads idle).
  void setWorkers(int n);
  // Checks uri after delayMs (a newer call replaces the timer). A
  // foreground schedule makes uri the foreground document at once: the
  // front slot's check of another document is demoted, a running check of
  // uri takes the front slot.
  void schedule(const std::string& uri, int delayMs, bool foreground = false);
  // Sets the running check's cancel flag, remembering why and when.
  void cancel(const std::string& uri, const char* why);
  // Drops the document's timer (closed).
  void forget(const std::string& uri);
  // Runs job on the pool, ahead of queued documents. A job with a key can be
  // withdrawn while it waits.
  void submit(std::function<void()> job, std::string key = "");
  // Drops the waiting job submitted with key: true when it was waiting (it
  // will not run), false when it has started (or never was).
  bool withdraw(const std::string& key);
  // The running check of uri, if any.
  std::optional<Running> running(const std::string& uri);
  // The check r of uri has published its results (Running::published:
  // lenses show the result). Until its worker returns, cancel() still
  // reaches it and no other worker takes uri.
  void done(const std::string& uri, const Running& r);
  // Waits until no document is queued or running and no job waits (timers
  // not yet due do not count).
  void blockUntilIdle();
  // Cancels every running check and joins the workers.
  void stop();

 private:
  // A running check and the slot it holds (a job holds a pool slot).
  // Stopping: demoted when it was ending (or cancelled beyond the pool); holds only its thread.
  enum class Slot { Front, Pool, Beyond, Stopping };
  struct Exec {
    std::string uri;
    std::shared_ptr<std::atomic<bool>> cancel;
    Slot slot;
  };
  void workerLoop();
  // One queued job or document (mu_ held; released while it runs): the
  // foreground document into the front slot, else pool work.
  void runDue(std::unique_lock<std::mutex>& l);
  bool frontReady() const;  // the foreground document is due and the front slot free
  bool poolReady() const;   // a pool slot is free and a job or a document is due
  bool takeable(const std::string& uri) const { return !running_.count(uri); }
  void runCheck(std::unique_lock<std::mutex>& l, std::deque<std::string>::iterator next, Slot slot);
  // The slot changes of a foreground schedule of uri (mu_ held).
  void bringToFront(const std::string& uri);
  void demote(Exec& e);
  bool ending(const Exec& e) const;  // cancelled, or its results published: it ends soon
  void leaveSlot(Exec& e);  // e's slot is free again (e moves to another, stops, or ends)
  void adoptBeyond();       // a free pool slot goes to the check beyond the pool

  asio::io_context& io_;
  CheckFn check_;
  std::mutex mu_;  // everything below
  std::condition_variable cv_;
  std::map<std::string, std::unique_ptr<asio::steady_timer>> timers_;
  std::map<std::string, Running> running_;
  std::deque<std::string> queue_;
  struct Job {
    std::function<void()> run;
    std::string key;
  };
  std::deque<Job> jobs_;
  std::vector<std::thread> workers_;
  std::list<Exec> execs_;     // the running checks
  Exec* front_ = nullptr;     // in the front slot
  Exec* beyond_ = nullptr;    // demoted, beyond the pool
  std::string foreground_;
  int maxWorkers_ = 0;
  int busy_ = 0;      // threads running something
  int busyPool_ = 0;  // pool slots taken
  bool stopping_ = false;
};

}  // namespace tsocheck::lsp

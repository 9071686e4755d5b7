#include "lsp/scheduler.h"

#include <algorithm>

namespace tsocheck::lsp {

void Scheduler::setWorkers(int n) {
  {
    std::lock_guard<std::mutex> l(mu_);
    maxWorkers_ = std::max(n, 0);
    while (int(workers_.size()) - int(reservedStarted_) < maxWorkers_)
      workers_.emplace_back([this] { workerLoop(false); });
    if (maxWorkers_ > 0 && !reservedStarted_) {
      reservedStarted_ = true;
      workers_.emplace_back([this] { workerLoop(true); });
    }
  }
  cv_.notify_all();
}

void Scheduler::schedule(const std::string& uri, int delayMs, bool foreground) {
  asio::steady_timer* t;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return;
    if (foreground) foreground_ = uri;
    auto& slot = timers_[uri];
    if (!slot) slot = std::make_unique<asio::steady_timer>(io_);
    t = slot.get();
  }
  t->expires_after(std::chrono::milliseconds(delayMs));
  t->async_wait([this, uri](const asio::error_code& ec) {
    if (ec) return;  // replaced by a newer schedule, or forgotten
    std::unique_lock<std::mutex> l(mu_);
    // The latest edited or opened document is the one in front of the user:
    // it goes first (the queue is served front to back).
    queue_.erase(std::remove(queue_.begin(), queue_.end(), uri), queue_.end());
    queue_.push_front(uri);
    if (maxWorkers_ == 0) {
      while (!stopping_ && ready()) runDue(l);
      return;
    }
    l.unlock();
    cv_.notify_all();
  });
}

void Scheduler::cancel(const std::string& uri, const char* why) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = running_.find(uri);
  if (it != running_.end() && !it->second.cancel->load()) {
    it->second.cancelledAt = std::chrono::steady_clock::now();
    it->second.cancelledBy = why;
    it->second.cancel->store(true);
  }
}

void Scheduler::forget(const std::string& uri) {
  std::lock_guard<std::mutex> l(mu_);
  timers_.erase(uri);  // cancels its wait
  if (foreground_ == uri) foreground_.clear();
  queue_.erase(std::remove(queue_.begin(), queue_.end(), uri), queue_.end());
}

void Scheduler::submit(std::function<void()> job, std::string key) {
  std::unique_lock<std::mutex> l(mu_);
  if (stopping_) return;
  jobs_.push_back({std::move(job), std::move(key)});
  if (maxWorkers_ == 0) {
    // Inline, but from the I/O thread's queue: the caller (a request handler)
    // returns first, as it does with workers.
    asio::post(io_, [this] {
      std::unique_lock<std::mutex> l(mu_);
      while (!stopping_ && ready()) runDue(l);
    });
    return;
  }
  l.unlock();
  cv_.notify_all();
}

bool Scheduler::withdraw(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = std::find_if(jobs_.begin(), jobs_.end(), [&](const Job& j) { return !key.empty() && j.key == key; });
  if (it == jobs_.end()) return false;
  jobs_.erase(it);
  cv_.notify_all();  // blockUntilIdle may be waiting for the queue to empty
  return true;
}

std::optional<Running> Scheduler::running(const std::string& uri) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = running_.find(uri);
  if (it == running_.end()) return std::nullopt;
  return it->second;
}

void Scheduler::done(const std::string& uri, const Running& r) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = running_.find(uri);
  if (it != running_.end() && it->second.cancel == r.cancel) it->second.published->store(true);
}

bool Scheduler::ready(bool reserved) const {
  if (reserved)
    return !foreground_.empty() && takeable(foreground_) &&
           std::find(queue_.begin(), queue_.end(), foreground_) != queue_.end();
  if (maxWorkers_ > 0 && busyPool_ >= maxWorkers_) return false;
  if (!jobs_.empty()) return true;
  return std::any_of(queue_.begin(), queue_.end(), [&](const std::string& u) { return takeable(u); });
}

void Scheduler::runDue(std::unique_lock<std::mutex>& l, bool reserved) {
  ++busy_;
  if (!reserved) ++busyPool_;
  if (reserved) {
    runCheck(l, std::find(queue_.begin(), queue_.end(), foreground_));
  } else if (!jobs_.empty()) {  // commands first: someone waits for their answer
    std::function<void()> job = std::move(jobs_.front().run);
    jobs_.pop_front();
    l.unlock();
    job();  // catches its own exceptions
    l.lock();
  } else {
    runCheck(l, std::find_if(queue_.begin(), queue_.end(), [&](const std::string& u) { return takeable(u); }));
  }
  if (!reserved) --busyPool_;
  --busy_;
  cv_.notify_all();
}

void Scheduler::runCheck(std::unique_lock<std::mutex>& l, std::deque<std::string>::iterator next) {
  const std::string uri = *next;
  queue_.erase(next);
  Running r;
  running_[uri] = r;
  l.unlock();
  check_(uri, r);
  l.lock();
  auto it = running_.find(uri);
  if (it != running_.end() && it->second.cancel == r.cancel) running_.erase(it);
}

void Scheduler::workerLoop(bool reserved) {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    cv_.wait(l, [&] { return stopping_ || ready(reserved); });
    if (stopping_) return;
    runDue(l, reserved);
  }
}

void Scheduler::blockUntilIdle() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [&] { return stopping_ || (busy_ == 0 && queue_.empty() && jobs_.empty()); });
}

void Scheduler::stop() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
    for (auto& [uri, r] : running_) r.cancel->store(true);
    workers.swap(workers_);
  }
  cv_.notify_all();
  for (auto& t : workers) t.join();
}

}  // namespace tsocheck::lsp

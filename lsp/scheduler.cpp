#include "lsp/scheduler.h"

#include <algorithm>

namespace tsocheck::lsp {

void Scheduler::setWorkers(int n) {
  {
    std::lock_guard<std::mutex> l(mu_);
    maxWorkers_ = std::max(n, 0);
    // The pool's slots, the front slot and beyond the pool.
    while (maxWorkers_ > 0 && int(workers_.size()) < maxWorkers_ + 2) workers_.emplace_back([this] { workerLoop(); });
    adoptBeyond();  // the pool may have grown
  }
  cv_.notify_all();
}

void Scheduler::schedule(const std::string& uri, int delayMs, bool foreground) {
  asio::steady_timer* t;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return;
    if (foreground) {
      foreground_ = uri;
      bringToFront(uri);
    }
    auto& slot = timers_[uri];
    if (!slot) slot = std::make_unique<asio::steady_timer>(io_);
    t = slot.get();
  }
  cv_.notify_all();  // the front slot may be free for a queued foreground document
  t->expires_after(std::chrono::milliseconds(delayMs));
  t->async_wait([this, uri](const asio::error_code& ec) {
    if (ec) return;  // replaced by a newer schedule, or forgotten
    std::unique_lock<std::mutex> l(mu_);
    // The latest edited or opened document is the one in front of the user:
    // it goes first (the queue is served front to back).
    queue_.erase(std::remove(queue_.begin(), queue_.end(), uri), queue_.end());
    queue_.push_front(uri);
    if (maxWorkers_ == 0) {
      while (!stopping_ && poolReady()) runDue(l);
      return;
    }
    cv_.notify_all();  // (under the lock: the scheduler may be destroyed once it is released)
  });
}

namespace {

void stopRunning(Running& r, const char* why) {
  if (r.cancel->load()) return;  // the first reason stays
  r.cancelledAt = std::chrono::steady_clock::now();
  r.cancelledBy = why;
  r.cancel->store(true);
}

}  // namespace

void Scheduler::cancel(const std::string& uri, const char* why) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = running_.find(uri);
  if (it != running_.end()) stopRunning(it->second, why);
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
      while (!stopping_ && poolReady()) runDue(l);
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

void Scheduler::bringToFront(const std::string& uri) {
  if (maxWorkers_ == 0 || (front_ && front_->uri == uri)) return;
  // uri's check, still running as a background one, takes the front slot back.
  Exec* back = nullptr;
  for (Exec& e : execs_)
    if (e.uri == uri && (e.slot == Slot::Pool || e.slot == Slot::Beyond) && !ending(e)) back = &e;
  if (back) leaveSlot(*back);
  if (front_) demote(*front_);
  if (back) {
    back->slot = Slot::Front;
    front_ = back;
  }
}

bool Scheduler::ending(const Exec& e) const {
  auto r = running_.find(e.uri);
  return e.cancel->load() || r == running_.end() || r->second.cancel != e.cancel || r->second.published->load();
}

void Scheduler::demote(Exec& e) {
  front_ = nullptr;
  if (ending(e)) {  // nothing to keep
    e.slot = Slot::Stopping;
    return;
  }
  if (busyPool_ < maxWorkers_) {
    e.slot = Slot::Pool;
    ++busyPool_;
    return;
  }
  if (beyond_) {  // one check at most beyond the pool: the older one is checked again later
    Exec& old = *beyond_;
    // (When something else cancelled it, that decides what comes next.)
    const bool cancel = !ending(old);
    old.slot = Slot::Stopping;
    beyond_ = nullptr;
    if (cancel) {
      stopRunning(running_.at(old.uri), "the document in front; queued again");
      if (timers_.count(old.uri) && std::find(queue_.begin(), queue_.end(), old.uri) == queue_.end())
        queue_.push_back(old.uri);
    }
  }
  e.slot = Slot::Beyond;
  beyond_ = &e;
}

void Scheduler::leaveSlot(Exec& e) {
  switch (e.slot) {
    case Slot::Front: front_ = nullptr; break;
    case Slot::Pool:
      --busyPool_;
      adoptBeyond();
      break;
    case Slot::Beyond: beyond_ = nullptr; break;
    case Slot::Stopping: break;
  }
}

void Scheduler::adoptBeyond() {
  if (!beyond_ || busyPool_ >= maxWorkers_) return;
  beyond_->slot = Slot::Pool;
  ++busyPool_;
  beyond_ = nullptr;
}

bool Scheduler::frontReady() const {
  return maxWorkers_ > 0 && !front_ && !foreground_.empty() && takeable(foreground_) &&
         std::find(queue_.begin(), queue_.end(), foreground_) != queue_.end();
}

bool Scheduler::poolReady() const {
  if (maxWorkers_ > 0 && busyPool_ >= maxWorkers_) return false;
  if (!jobs_.empty()) return true;
  return std::any_of(queue_.begin(), queue_.end(), [&](const std::string& u) { return takeable(u); });
}

void Scheduler::runDue(std::unique_lock<std::mutex>& l) {
  ++busy_;
  if (frontReady()) {
    runCheck(l, std::find(queue_.begin(), queue_.end(), foreground_), Slot::Front);
  } else if (!jobs_.empty()) {  // commands first: someone waits for their answer
    ++busyPool_;
    std::function<void()> job = std::move(jobs_.front().run);
    jobs_.pop_front();
    l.unlock();
    job();  // catches its own exceptions
    l.lock();
    --busyPool_;
    adoptBeyond();
  } else {
    runCheck(l, std::find_if(queue_.begin(), queue_.end(), [&](const std::string& u) { return takeable(u); }),
             Slot::Pool);
  }
  --busy_;
  cv_.notify_all();
}

void Scheduler::runCheck(std::unique_lock<std::mutex>& l, std::deque<std::string>::iterator next, Slot slot) {
  const std::string uri = *next;
  queue_.erase(next);
  Running r;
  running_[uri] = r;
  auto e = execs_.insert(execs_.end(), Exec{uri, r.cancel, slot});
  if (slot == Slot::Front) front_ = &*e;
  if (slot == Slot::Pool) ++busyPool_;
  l.unlock();
  check_(uri, r);
  l.lock();
  leaveSlot(*e);  // its slot now (it may have been demoted or brought back)
  execs_.erase(e);
  auto it = running_.find(uri);
  if (it != running_.end() && it->second.cancel == r.cancel) running_.erase(it);
}

void Scheduler::workerLoop() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    cv_.wait(l, [&] { return stopping_ || frontReady() || poolReady(); });
    if (stopping_) return;
    runDue(l);
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

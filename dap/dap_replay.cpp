#include "dap/dap_replay.h"

#include <algorithm>

#include "service/report_reader.h"

namespace tsocheck::dap {

namespace {

json valueOf(const json& s) { return s.contains("value") ? s["value"] : json(nullptr); }

bool isLoad(const std::string& ev) { return ev == "load-memory" || ev == "load-buffer" || ev == "rmw"; }

json pendingJson(const PendingStore& p) {
  return {{"thread", p.thread}, {"address", p.address}, {"value", p.value},
          {"file", p.file},     {"line", p.line},       {"column", p.column}};
}

}  // namespace

std::optional<Replay> Replay::fromCheck(const json& check, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<Replay> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (!check.is_object()) return fail("not a check result");
  if (!check.contains("violation") || !check["violation"].is_object())
    return fail("`" + str(check, "function") + "` has no violation to replay (" + str(check, "status") + ")");
  const json& raw = check["violation"].contains("trace") ? check["violation"]["trace"] : json();
  if (!raw.is_array() || raw.empty()) return fail("the violation has no trace");
  for (const json& s : raw)
    if (!s.is_object()) return fail("malformed trace step");
  json payload = tracePayload(check);
  const json& trace = payload["violation"]["trace"];
  Replay r;
  r.check_ = check;
  r.violation_ = payload["violation"];
  r.violation_.erase("trace");
  for (const json& s : trace) {
    r.threads_ = std::max(r.threads_, num(s, "thread") + 1);
    if (s.contains("buffers") && s["buffers"].is_array())
      r.threads_ = std::max(r.threads_, uint32_t(s["buffers"].size()));
    r.steps_.push_back(s);
  }
  r.startFunction_.assign(r.threads_, "");
  r.spawnIndex_.assign(r.threads_, SIZE_MAX);
  if (r.threads_ > 0) r.startFunction_[0] = "main";
  for (size_t i = 0; i < r.steps_.size(); ++i) {
    const json& s = r.steps_[i];
    if (str(s, "event") != "spawn" || !s.contains("spawned") || !s["spawned"].is_number_unsigned()) continue;
    const uint32_t t = num(s, "spawned");
    if (t < r.threads_) {
      r.startFunction_[t] = str(s, "spawns");
      r.spawnIndex_[t] = std::min(r.spawnIndex_[t], i);
    }
  }
  r.stepsOf_.assign(r.threads_, {});
  r.allReads_.assign(r.threads_, {});
  for (size_t i = 0; i < r.steps_.size(); ++i) {
    const json& s = r.steps_[i];
    const uint32_t t = num(s, "thread");
    if (t < r.threads_) {
      r.stepsOf_[t].push_back(i);
      const std::string ev = str(s, "event");
      if (isLoad(ev))
        r.allReads_[t].push_back({str(s, "address"), valueOf(s), ev == "load-buffer", ev == "rmw", num(s, "line"), i});
    }
  }
  return r;
}

bool Replay::next() {
  if (atEnd()) return false;
  ++pos_;
  return true;
}

bool Replay::back() {
  if (pos_ == 0) return false;
  --pos_;
  return true;
}

std::string Replay::label(size_t i) const { return str(steps_.at(i), "label"); }

std::string Replay::nextEventLabel() const {
  return atEnd() ? std::string("— end of trace (violation)") : label(pos_ + 1);
}

std::string Replay::threadName(uint32_t t) const {
  std::string n = "T" + std::to_string(t);
  if (t < startFunction_.size() && !startFunction_[t].empty()) n += " (" + startFunction_[t] + ")";
  return n;
}

std::optional<size_t> Replay::lastStepOf(uint32_t t) const {
  if (t >= stepsOf_.size()) return std::nullopt;
  const auto& mine = stepsOf_[t];
  auto it = std::upper_bound(mine.begin(), mine.end(), pos_);
  if (it == mine.begin()) return std::nullopt;
  return *std::prev(it);
}

bool Replay::started(uint32_t t) const { return t == 0 || lastStepOf(t).has_value(); }

bool Replay::spawned(uint32_t t) const {
  if (t == 0) return true;
  if (t < spawnIndex_.size() && spawnIndex_[t] <= pos_) return true;
  return started(t);  // a thread whose spawn step is missing exists once it runs
}

bool Replay::exited(uint32_t t) const {
  auto i = lastStepOf(t);
  return i && str(steps_[*i], "event") == "exit";
}

Replay::Buffers Replay::buffersAt(size_t i) const {
  // The step's buffers as the engine wrote them, each entry sourced by its
  // store step (store_step: 1-based; null when the store is not shown).
  Buffers buffers(threads_);
  const json& s = steps_[i];
  if (!s.contains("buffers") || !s["buffers"].is_array()) return buffers;
  const json& bufs = s["buffers"];
  for (uint32_t u = 0; u < threads_ && u < bufs.size(); ++u) {
    if (!bufs[u].is_array()) continue;
    for (const json& e : bufs[u]) {
      PendingStore p{u, str(e, "address"), valueOf(e), "", 0, 0, 0};
      const uint32_t at = num(e, "store_step");
      if (at >= 1 && at <= steps_.size()) {
        const json& store = steps_[at - 1];
        p.file = str(store, "file");
        p.line = num(store, "line");
        p.column = num(store, "column");
        p.storeIndex = at - 1;
      }
      buffers[u].push_back(std::move(p));
    }
  }
  return buffers;
}

ReplayState Replay::finish(Buffers buffers, size_t upTo) const {
  ReplayState st;
  st.index = upTo;
  st.buffers = std::move(buffers);
  st.reads.assign(threads_, {});
  for (uint32_t t = 0; t < threads_ && t < allReads_.size(); ++t)
    for (const ReadRecord& rd : allReads_[t]) {
      if (rd.index > upTo) break;
      st.reads[t].push_back(rd);
    }
  if (!steps_.empty()) {
    st.memory = steps_[upTo].value("memory", json::object());
    const json& s = steps_[upTo];
    const json& stale = member(s, "stale");
    if (stale.is_object()) {
      const uint32_t at = num(stale, "store_step");
      const json* store = at >= 1 && at <= steps_.size() ? &steps_[at - 1] : nullptr;
      st.staleRead = StaleRead{num(s, "thread"),
                               str(s, "address"),
                               valueOf(s),
                               str(s, "file"),
                               num(s, "line"),
                               num(s, "column"),
                               num(stale, "thread"),
                               valueOf(stale),
                               store ? num(*store, "line") : 0,
                               store ? num(*store, "column") : 0};
    }
  }
  return st;
}

ReplayState Replay::stateAt(size_t upTo) const {
  upTo = std::min(upTo, steps_.empty() ? size_t(0) : steps_.size() - 1);
  if (cache_ && cache_->index == upTo) return *cache_;
  if (steps_.empty()) return finish(Buffers(threads_), 0);
  return finish(buffersAt(upTo), upTo);
}

const ReplayState& Replay::state() const {
  if (!cache_ || cache_->index != pos_) cache_ = stateAt(pos_);
  return *cache_;
}

json Replay::stateJson() const {
  const ReplayState& st = state();
  json cur = current();
  json pending = json::array();
  for (const auto& b : st.buffers)
    for (const PendingStore& p : b) pending.push_back(pendingJson(p));
  json stale = nullptr;
  if (st.staleRead) {
    const StaleRead& r = *st.staleRead;
    stale = {{"thread", r.thread},       {"address", r.address},         {"value", r.value},
             {"file", r.file},           {"line", r.line},               {"column", r.column},
             {"pendingIn", r.pendingIn}, {"pendingValue", r.pendingValue}, {"pendingLine", r.pendingLine}};
  }
  return {{"step", pos_},
          {"total", steps_.size()},
          {"current", cur},
          {"next", nextEventLabel()},
          {"memory", st.memory},
          {"pending", pending},
          {"staleRead", stale},
          {"violation", violation_},
          {"function", str(check_, "function")},
          {"model", str(check_, "model")}};
}

}  // namespace tsocheck::dap

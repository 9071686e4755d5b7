#include "engine/state_dpor.h"

#include <algorithm>

namespace tsocheck::sdpor {

bool Op::operator==(const Op& o) const {
  return actor == o.actor && thread == o.thread && cls == o.cls && flush == o.flush && needsEmpty == o.needsEmpty &&
         section == o.section && mayBlock == o.mayBlock && barrier == o.barrier && addr == o.addr && size == o.size &&
         other == o.other;
}

size_t OpGraph::Hash::operator()(const Op& o) const {
  uint64_t h = o.actor * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t(o.cls) << 5 | uint64_t(o.barrier) << 4 | uint64_t(o.mayBlock) << 3 | uint64_t(o.needsEmpty) << 2 |
        uint64_t(o.flush) << 1 | uint64_t(o.section)) +
       0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
  h ^= o.addr + 0x85EBCA77C2B2AE63ull + (h << 6) + (h >> 2);
  h ^= o.size * 31 + o.other + (h << 6) + (h >> 2);
  return size_t(h);
}

int64_t regionOwner(Addr a) {
  if (a >= layout::kHeapBase) return int64_t((a - layout::kHeapBase) / layout::kThreadStride);
  if (a >= layout::kPrivateBase) return -1;
  if (a >= layout::kStackBase) return int64_t((a - layout::kStackBase) / layout::kThreadStride);
  if (a >= layout::kTlsBase) return int64_t((a - layout::kTlsBase) / layout::kTlsStride);
  return -1;
}

namespace {

bool overlap(const Op& a, const Op& b) {
  if (a.size == 0 || b.size == 0) return false;
  return a.addr < b.addr + b.size && b.addr < a.addr + a.size;
}

bool memAccess(const Op& o) { return o.cls == OpClass::Read || o.cls == OpClass::Write || o.cls == OpClass::Update; }
bool writes(const Op& o) { return o.cls == OpClass::Write || o.cls == OpClass::Update; }

// One direction of the relations that are not symmetric by themselves.
bool dependsOn(const Op& a, const Op& b) {
  // A step inside (or entering) an atomic section enables or disables every
  // other thread's program steps.
  if (a.section && !b.flush && b.thread != a.thread) return true;
  if (a.cls == OpClass::Spawn && b.thread == a.other) return true;
  if (a.cls == OpClass::Join && b.thread == a.other) return true;
  // Memory a thread owns: valid or not depending on that thread's own steps.
  if (a.size > 0 && !b.flush && b.thread != a.thread && regionOwner(a.addr) == int64_t(b.thread)) return true;
  if (a.cls == OpClass::Free && overlap(a, b)) return true;
  return false;
}

}  // namespace

bool dependent(const Op& a, const Op& b) {
  if (a.actor == b.actor) return true;
  if (a.cls == OpClass::Global || b.cls == OpClass::Global) return true;
  if (a.thread == b.thread) {
    // Two flush actors of one thread (PSO: one per address), or a program
    // step and its own buffer's flush. Heads of different addresses flush
    // in either order to the same memory, and neither flush makes the other
    // a head, unless a store-store barrier stands in the buffer: the last
    // entry before it lets the entries after it flush. (A head that an older
    // entry of its own address held back follows that entry's flush: the
    // same actor. One that a later store put in follows that store: the
    // search's `cause`.) A store appended to the buffer commutes with the
    // flush of its oldest entry. So does a load, of any address: before the
    // flush it reads the newest buffered entry of its address, after it the
    // same entry or, when the flush emptied the address, memory, which now
    // holds the flushed value. That is why a load is one operation (`Read`)
    // whether its own buffer serves it or not: it stays dependent with the
    // other threads' writes of its address even while the buffer serves it,
    // so the orders in which another thread's flush comes between this
    // flush and the load are reached through that race. A store that a full
    // bounded buffer holds back is enabled by the flush.
    if (a.flush && b.flush) return a.barrier || b.barrier || overlap(a, b);
    const Op& p = a.flush ? b : a;
    switch (p.cls) {
      case OpClass::Local:
      case OpClass::Read:
      case OpClass::BlockSize: return false;
      case OpClass::Buffered: return p.mayBlock;
      default: return true;
    }
  }
  if (dependsOn(a, b) || dependsOn(b, a)) return true;
  return overlap(a, b) && memAccess(a) && memAccess(b) && (writes(a) || writes(b));
}

bool mayBeCoEnabled(const Op& a, const Op& b) {
  if (a.thread == b.thread && a.flush != b.flush && (a.flush ? b : a).needsEmpty) return false;
  for (const auto& [x, y] : {std::pair<const Op*, const Op*>{&a, &b}, {&b, &a}})
    if ((x->cls == OpClass::Spawn || x->cls == OpClass::Join) && y->thread == x->other) return false;
  return true;
}

uint32_t OpGraph::intern(const Op& op) {
  auto it = ids_.find(op);
  if (it != ids_.end()) return it->second;
  const uint32_t id = uint32_t(ops_.size());
  ops_.push_back(op);
  ids_.emplace(op, id);
  next_.emplace_back();
  mark_.push_back(0);
  return id;
}

void OpGraph::addEdge(uint32_t from, uint32_t to) {
  if (edges_.insert(uint64_t(from) << 32 | to).second) next_[from].push_back(to);
}

std::vector<uint32_t> OpGraph::reach(const std::vector<uint32_t>& from) {
  ++stamp_;
  std::vector<uint32_t> out;
  for (uint32_t f : from)
    if (mark_[f] != stamp_) {
      mark_[f] = stamp_;
      out.push_back(f);
    }
  for (size_t i = 0; i < out.size(); ++i)
    for (uint32_t n : next_[out[i]])
      if (mark_[n] != stamp_) {
        mark_[n] = stamp_;
        out.push_back(n);
      }
  return out;
}

uint8_t OpGraph::pair(uint32_t a, uint32_t b) {
  auto compute = [&]() -> uint8_t {
    const bool dep = sdpor::dependent(ops_[a], ops_[b]);
    return kKnown | (dep ? kDependent : 0) | (dep && mayBeCoEnabled(ops_[a], ops_[b]) ? kRaces : 0);
  };
  if (a >= kPairsCached || b >= kPairsCached) return compute();
  if (a >= pairDim_ || b >= pairDim_) {
    uint32_t dim = std::max<uint32_t>(pairDim_, 64);
    while (dim <= std::max(a, b)) dim *= 2;
    std::vector<uint8_t> grown(size_t(dim) * dim, 0);
    for (uint32_t i = 0; i < pairDim_; ++i)
      std::copy_n(pairs_.begin() + ptrdiff_t(size_t(i) * pairDim_), pairDim_, grown.begin() + ptrdiff_t(size_t(i) * dim));
    pairs_ = std::move(grown);
    pairDim_ = dim;
  }
  uint8_t& known = pairs_[size_t(a) * pairDim_ + b];
  if (!known) known = compute();
  return known;
}

const std::vector<uint64_t>* OpGraph::raceRow(uint32_t a) {
  const uint32_t n = uint32_t(ops_.size());
  if (n > kPairsCached) return nullptr;
  if (raceRows_.size() <= a) {
    raceRows_.resize(a + 1);
    raceRowDone_.resize(a + 1, 0);
  }
  std::vector<uint64_t>& row = raceRows_[a];
  row.resize((n + 63) / 64, 0);
  for (uint32_t q = raceRowDone_[a]; q < n; ++q)
    if (races(a, q)) row[q / 64] |= uint64_t(1) << (q % 64);
  raceRowDone_[a] = n;
  return &row;
}

uint64_t OpGraph::bytes() const {
  return ops_.size() * (sizeof(Op) * 2 + 64 + sizeof(std::vector<uint32_t>) + 4) + edges_.size() * (64 + 4) +
         pairs_.size() + raceRows_.size() * (sizeof(std::vector<uint64_t>) + kPairsCached / 8);
}

}  // namespace tsocheck::sdpor

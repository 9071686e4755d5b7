// A vector of trivially copyable elements whose first N live inside the
// object: copying one with at most N elements allocates nothing.
//
// A thread's interpreter state is copied whenever the thread moves in a
// state some other branch still shares (SharedThread), and its stack-slot
// lists (interp.h) hold a handful of entries: as std::vector each copy
// cost an allocation and a free (+0.7% instructions on the two-lock queue
// and the mutex indexer). Past N the elements move to a std::vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tsocheck {

template <class T, size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T* begin() { return data(); }
  T* end() { return data() + n_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + n_; }
  T& back() { return data()[n_ - 1]; }
  const T& back() const { return data()[n_ - 1]; }
  void push_back(const T& x) {
    if (n_ < N && spill_.empty()) {
      inline_[n_++] = x;
      return;
    }
    if (spill_.empty()) spill_.assign(inline_, inline_ + n_);
    spill_.push_back(x);
    ++n_;
  }
  void pop_back() { shrink(n_ - 1); }
  // Only shrinks (the slots of frames that returned).
  void shrink(size_t n) {
    if (n >= n_) return;
    n_ = uint32_t(n);
    if (!spill_.empty()) spill_.resize(n);
  }
  // Heap bytes held (the state searches' memory estimate).
  size_t heapBytes() const { return spill_.capacity() * sizeof(T); }

 private:
  T* data() { return spill_.empty() ? inline_ : spill_.data(); }
  const T* data() const { return spill_.empty() ? inline_ : spill_.data(); }
  uint32_t n_ = 0;
  T inline_[N]{};
  std::vector<T> spill_;  // all the elements once there were more than N
};

}  // namespace tsocheck

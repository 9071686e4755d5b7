// A vector whose copies share their storage until one of them writes.
//
// The graph explorer copies its state at every branch point it will come
// back to, so a state is alive per level of the recursion: copying every
// thread's events and every location's coherence order there made memory
// grow with the square of an execution's length. Here the elements live in
// fixed-size chunks held by reference count: a copy copies the chunk
// pointers only, and a write first gives the writer a chunk of its own
// (copy on write). Reading is through `operator[]`/iterators (const only);
// writing is explicit (`mut`, `push_back`, `insert`, `erase`, `eraseIf`,
// `resize`), so a reader never makes a copy.
//
// Chunks are counted without atomics and recycled through a per-thread free
// list: copies that share chunks must stay on one thread. Before a copy goes
// to another thread, `detach()` gives it chunks of its own. Elements must be
// trivially copyable (they are copied as bytes, and only the used part of a
// chunk is copied).
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstring>
#include <iterator>
#include <new>
#include <type_traits>
#include <vector>

namespace tsocheck {

template <class T, size_t kChunk>
class CowVector {
  static_assert(kChunk > 0 && (kChunk & (kChunk - 1)) == 0, "a power of two");
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  struct Chunk {
    size_t refs;
    alignas(T) unsigned char raw[kChunk * sizeof(T)];  // the first `used` elements are valid
    T* items() { return std::launder(reinterpret_cast<T*>(raw)); }
    const T* items() const { return std::launder(reinterpret_cast<const T*>(raw)); }
  };

 public:
  using value_type = T;

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator() = default;
    const_iterator(const CowVector* v, size_t i) : v_(v), i_(i) {}
    reference operator*() const { return (*v_)[i_]; }
    pointer operator->() const { return &(*v_)[i_]; }
    reference operator[](difference_type d) const { return (*v_)[size_t(difference_type(i_) + d)]; }
    const_iterator& operator++() { ++i_; return *this; }
    const_iterator operator++(int) { const_iterator o = *this; ++i_; return o; }
    const_iterator& operator--() { --i_; return *this; }
    const_iterator operator--(int) { const_iterator o = *this; --i_; return o; }
    const_iterator& operator+=(difference_type d) { i_ = size_t(difference_type(i_) + d); return *this; }
    const_iterator& operator-=(difference_type d) { i_ = size_t(difference_type(i_) - d); return *this; }
    friend const_iterator operator+(const_iterator a, difference_type d) { return a += d; }
    friend const_iterator operator+(difference_type d, const_iterator a) { return a += d; }
    friend const_iterator operator-(const_iterator a, difference_type d) { return a -= d; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return difference_type(a.i_) - difference_type(b.i_);
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) { return a.i_ != b.i_; }
    friend bool operator<(const const_iterator& a, const const_iterator& b) { return a.i_ < b.i_; }
    friend bool operator>(const const_iterator& a, const const_iterator& b) { return a.i_ > b.i_; }
    friend bool operator<=(const const_iterator& a, const const_iterator& b) { return a.i_ <= b.i_; }
    friend bool operator>=(const const_iterator& a, const const_iterator& b) { return a.i_ >= b.i_; }

   private:
    const CowVector* v_ = nullptr;
    size_t i_ = 0;
  };
  using iterator = const_iterator;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  CowVector() = default;
  CowVector(const CowVector& o) : chunks_(o.chunks_), size_(o.size_) {
    for (Chunk* c : chunks_) ++c->refs;
  }
  CowVector(CowVector&& o) noexcept : chunks_(std::move(o.chunks_)), size_(o.size_) {
    o.chunks_.clear();
    o.size_ = 0;
  }
  CowVector& operator=(const CowVector& o) {
    if (this != &o) {
      for (Chunk* c : o.chunks_) ++c->refs;
      release(0);
      chunks_ = o.chunks_;
      size_ = o.size_;
    }
    return *this;
  }
  CowVector& operator=(CowVector&& o) noexcept {
    if (this != &o) {
      release(0);
      chunks_ = std::move(o.chunks_);
      size_ = o.size_;
      o.chunks_.clear();
      o.size_ = 0;
    }
    return *this;
  }
  ~CowVector() { release(0); }

  const T& operator[](size_t i) const { return chunks_[i / kChunk]->items()[i % kChunk]; }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[size_ - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }
  std::reverse_iterator<const_iterator> rbegin() const { return std::reverse_iterator<const_iterator>(end()); }
  std::reverse_iterator<const_iterator> rend() const { return std::reverse_iterator<const_iterator>(begin()); }

  // Element i for writing (its chunk becomes this vector's own).
  T& mut(size_t i) { return own(i / kChunk).items()[i % kChunk]; }
  T& mutBack() { return mut(size_ - 1); }

  void push_back(const T& x) {
    if (size_ == chunks_.size() * kChunk) {
      chunks_.push_back(allocate());
      chunks_.back()->refs = 1;
    }
    new (own(size_ / kChunk).items() + size_ % kChunk) T(x);
    ++size_;
  }
  void pop_back() { resize(size_ - 1); }
  void resize(size_t n) {
    if (n <= size_) {
      size_ = n;
      release((n + kChunk - 1) / kChunk);
      return;
    }
    while (size_ < n) push_back(T{});
  }
  void clear() {
    release(0);
    size_ = 0;
  }
  void reserve(size_t n) { chunks_.reserve((n + kChunk - 1) / kChunk); }
  // x at position pos (0..size), the elements from pos on one later.
  void insert(size_t pos, const T& x) {
    push_back(x);
    for (size_t i = size_ - 1; i > pos; --i) mut(i) = (*this)[i - 1];
    if (pos + 1 < size_) mut(pos) = x;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) mut(i) = (*this)[i + 1];
    pop_back();
  }
  // Removes the elements for which pred holds; writes nothing when none does.
  template <class Pred>
  void eraseIf(Pred pred) {
    size_t j = 0;
    for (size_t i = 0; i < size_; ++i) {
      if (pred((*this)[i])) continue;
      if (i != j) mut(j) = (*this)[i];
      ++j;
    }
    resize(j);
  }
  // Gives this copy chunks of its own (before it goes to another thread).
  void detach() {
    for (size_t c = 0; c < chunks_.size(); ++c) chunks_[c] = copyOf(c);
  }

 private:
  // Chunk c for writing: a copy of its own when it is shared.
  Chunk& own(size_t c) {
    if (chunks_[c]->refs != 1) chunks_[c] = copyOf(c);
    return *chunks_[c];
  }
  // A new chunk (one reference) with chunk c's used elements; c loses this
  // vector's reference.
  Chunk* copyOf(size_t c) {
    Chunk* old = chunks_[c];
    Chunk* n = allocate();
    n->refs = 1;
    const size_t used = std::min(kChunk, size_ - c * kChunk);
    std::memcpy(static_cast<void*>(n->raw), static_cast<const void*>(old->raw), used * sizeof(T));
    unref(old);
    return n;
  }
  // Drops the chunks from index `keep` on.
  void release(size_t keep) {
    for (size_t c = keep; c < chunks_.size(); ++c) unref(chunks_[c]);
    chunks_.resize(std::min(keep, chunks_.size()));
  }
  static void unref(Chunk* c) {
    if (--c->refs == 0) freeList().put(c);
  }
  // Freed chunks of this thread, reused before asking malloc.
  struct FreeList {
    std::vector<Chunk*> chunks;
    void put(Chunk* c) {
      if (chunks.size() < 4096) chunks.push_back(c);
      else ::operator delete(c);
    }
    ~FreeList() {
      for (Chunk* c : chunks) ::operator delete(c);
    }
  };
  static FreeList& freeList() {
    thread_local FreeList list;
    return list;
  }
  static Chunk* allocate() {
    FreeList& f = freeList();
    if (f.chunks.empty()) return static_cast<Chunk*>(::operator new(sizeof(Chunk)));
    Chunk* c = f.chunks.back();
    f.chunks.pop_back();
    return c;
  }

  std::vector<Chunk*> chunks_;
  size_t size_ = 0;
};

}  // namespace tsocheck

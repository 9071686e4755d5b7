// A vector whose copies share their storage until one of them writes.
//
// The graph explorer copies its state at every branch point it will come
// back to, so a state is alive per level of the recursion: copying every
// thread's events and every location's coherence order there made memory
// grow with the square of an execution's length. Here the elements live in
// leaves of kChunk elements, and the leaves in blocks of kFan leaf pointers;
// leaves and blocks are reference-counted. A copy copies the block pointers
// only (one per kChunk * kFan elements), and a write first gives the writer
// a block and a leaf of its own (copy on write): a copy that then changes a
// few elements costs one block and a leaf or two, whatever its length.
// Reading is through `operator[]`/iterators (const only); writing is explicit
// (`mut`, `push_back`, `insert`, `erase`, `eraseIf`, `resize`), so a reader
// never makes a copy.
//
// Counts are not atomic and freed leaves and blocks go to a per-thread free
// list: copies that share storage must stay on one thread. Before a copy
// goes to another thread, `detach()` gives it storage of its own. Elements
// must be trivially copyable (they are copied as bytes, and only the used
// part of a leaf is copied).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <type_traits>
#include <vector>

namespace tsocheck {

template <class T, size_t kChunk, size_t kFan = 64>
class CowVector {
  static_assert(kChunk > 0 && (kChunk & (kChunk - 1)) == 0, "a power of two");
  static_assert(kFan > 0 && (kFan & (kFan - 1)) == 0, "a power of two");
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  static constexpr size_t kBlockItems = kChunk * kFan;
  struct Leaf {
    size_t refs;
    alignas(T) unsigned char raw[kChunk * sizeof(T)];  // the first `used` elements are valid
    T* items() { return std::launder(reinterpret_cast<T*>(raw)); }
    const T* items() const { return std::launder(reinterpret_cast<const T*>(raw)); }
  };
  struct Block {
    size_t refs;
    size_t n;  // leaves[0, n) are held (one reference each)
    Leaf* leaves[kFan];
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
    reference operator*() const {
      // The leaf of the last element read is kept: walking costs one look-up per leaf.
      if (leaf_ == nullptr || i_ < base_ || i_ >= base_ + kChunk) {
        base_ = i_ & ~(kChunk - 1);
        leaf_ = &(*v_)[base_];
      }
      return leaf_[i_ - base_];
    }
    pointer operator->() const { return &**this; }
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
    mutable size_t base_ = 0;
    mutable const T* leaf_ = nullptr;
  };
  using iterator = const_iterator;

  CowVector() = default;
  CowVector(const CowVector& o) : blocks_(o.blocks_), size_(o.size_) {
    for (Block* b : blocks_) ++b->refs;
  }
  CowVector(CowVector&& o) noexcept : blocks_(std::move(o.blocks_)), size_(o.size_) {
    o.blocks_.clear();
    o.size_ = 0;
  }
  CowVector& operator=(const CowVector& o) {
    if (this != &o) {
      for (Block* b : o.blocks_) ++b->refs;
      dropBlocks(0);
      blocks_ = o.blocks_;
      size_ = o.size_;
    }
    return *this;
  }
  CowVector& operator=(CowVector&& o) noexcept {
    if (this != &o) {
      dropBlocks(0);
      blocks_ = std::move(o.blocks_);
      size_ = o.size_;
      o.blocks_.clear();
      o.size_ = 0;
    }
    return *this;
  }
  ~CowVector() { dropBlocks(0); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const {
    return blocks_[i / kBlockItems]->leaves[(i / kChunk) % kFan]->items()[i % kChunk];
  }
  // f(element, index) for the indices [from, to), one leaf looked up per
  // kChunk elements (a walk over many elements without an indirection each).
  template <class F>
  void forRange(size_t from, size_t to, F&& f) const {
    for (size_t i = from; i < to;) {
      const T* items = blocks_[i / kBlockItems]->leaves[(i / kChunk) % kFan]->items();
      const size_t end = std::min(to, (i / kChunk + 1) * kChunk);
      for (; i < end; ++i) f(items[i % kChunk], i);
    }
  }
  // The first index in [from, to) whose element e satisfies pred(e, index)
  // (to: none), walked as forRange walks.
  template <class P>
  size_t findIf(size_t from, size_t to, P&& pred) const {
    for (size_t i = from; i < to;) {
      const T* items = blocks_[i / kBlockItems]->leaves[(i / kChunk) % kFan]->items();
      const size_t end = std::min(to, (i / kChunk + 1) * kChunk);
      for (; i < end; ++i)
        if (pred(items[i % kChunk], i)) return i;
    }
    return to;
  }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[size_ - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }
  std::reverse_iterator<const_iterator> rbegin() const { return std::reverse_iterator<const_iterator>(end()); }
  std::reverse_iterator<const_iterator> rend() const { return std::reverse_iterator<const_iterator>(begin()); }

  // Element i for writing (its leaf and block become this vector's own).
  T& mut(size_t i) {
    Block* b = blocks_[i / kBlockItems];
    if (b->refs == 1) {  // (fast path: already this vector's own)
      Leaf* l = b->leaves[(i / kChunk) % kFan];
      if (l->refs == 1) return l->items()[i % kChunk];
    }
    return ownLeaf(i / kChunk).items()[i % kChunk];
  }
  T& mutBack() { return mut(size_ - 1); }

  void push_back(const T& x) {
    if (size_ % kChunk != 0) {  // (fast path: room in a leaf of this vector's own)
      Block* b = blocks_.back();
      Leaf* l = b->leaves[(size_ / kChunk) % kFan];
      if (b->refs == 1 && l->refs == 1) {
        new (l->items() + size_ % kChunk) T(x);
        ++size_;
        return;
      }
    }
    if (size_ == blocks_.size() * kBlockItems) {
      Block* b = allocate<Block>();
      b->refs = 1;
      b->n = 0;
      blocks_.push_back(b);
    }
    const size_t leaf = size_ / kChunk;
    Block& b = ownBlock(leaf / kFan);
    if (b.n == leaf % kFan) {  // (ownBlock holds exactly the leaves in use)
      Leaf* l = allocate<Leaf>();
      l->refs = 1;
      b.leaves[b.n++] = l;
    }
    new (ownLeafIn(b, leaf).items() + size_ % kChunk) T(x);
    ++size_;
  }
  void pop_back() { resize(size_ - 1); }
  void resize(size_t n) {
    if (n <= size_) {
      size_ = n;
      dropBlocks((n + kBlockItems - 1) / kBlockItems);
      return;
    }
    while (size_ < n) push_back(T{});
  }
  void clear() {
    dropBlocks(0);
    size_ = 0;
  }
  void reserve(size_t) {}
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
      const T x = (*this)[i];
      if (pred(x)) continue;
      if (i != j) mut(j) = x;
      ++j;
    }
    resize(j);
  }
  // Gives this copy storage of its own (before it goes to another thread).
  void detach() {
    for (size_t bi = 0; bi < blocks_.size(); ++bi) {
      Block* old = blocks_[bi];
      Block* b = allocate<Block>();
      b->refs = 1;
      b->n = usedLeaves(bi);
      for (size_t k = 0; k < b->n; ++k) b->leaves[k] = copyLeaf(old->leaves[k], bi * kFan + k);
      unrefBlock(old);
      blocks_[bi] = b;
    }
  }

 private:
  // Leaves of block bi in use by this vector, and elements of leaf `leaf`.
  size_t usedLeaves(size_t bi) const {
    const size_t first = bi * kBlockItems;
    return size_ <= first ? 0 : std::min(kFan, (size_ - first + kChunk - 1) / kChunk);
  }
  size_t usedItems(size_t leaf) const {
    const size_t first = leaf * kChunk;
    return size_ <= first ? 0 : std::min(kChunk, size_ - first);
  }
  // Block bi for writing: this vector's own, holding exactly the leaves in use.
  Block& ownBlock(size_t bi) {
    Block*& p = blocks_[bi];
    const size_t used = usedLeaves(bi);
    if (p->refs != 1) {
      Block* b = allocate<Block>();
      b->refs = 1;
      b->n = used;
      for (size_t k = 0; k < used; ++k) {
        b->leaves[k] = p->leaves[k];
        ++b->leaves[k]->refs;
      }
      unrefBlock(p);
      p = b;
    } else {
      for (size_t k = used; k < p->n; ++k) unrefLeaf(p->leaves[k]);
      p->n = std::min(p->n, used);
    }
    return *p;
  }
  // Leaf `leaf` (an index over the whole vector) for writing.
  Leaf& ownLeaf(size_t leaf) { return ownLeafIn(ownBlock(leaf / kFan), leaf); }
  // The same in its block b, already this vector's own.
  Leaf& ownLeafIn(Block& b, size_t leaf) {
    Leaf*& l = b.leaves[leaf % kFan];
    if (l->refs != 1) {
      Leaf* n = copyLeaf(l, leaf);
      unrefLeaf(l);
      l = n;
    }
    return *l;
  }
  // A new leaf (one reference) with the used elements of `from` (leaf index `leaf`).
  Leaf* copyLeaf(const Leaf* from, size_t leaf) {
    Leaf* n = allocate<Leaf>();
    n->refs = 1;
    std::memcpy(static_cast<void*>(n->raw), static_cast<const void*>(from->raw), usedItems(leaf) * sizeof(T));
    return n;
  }
  // Drops the blocks from index `keep` on.
  void dropBlocks(size_t keep) {
    for (size_t b = keep; b < blocks_.size(); ++b) unrefBlock(blocks_[b]);
    blocks_.resize(std::min(keep, blocks_.size()));
  }
  static void unrefLeaf(Leaf* l) {
    if (--l->refs == 0) release(l);
  }
  static void unrefBlock(Block* b) {
    if (--b->refs != 0) return;
    for (size_t k = 0; k < b->n; ++k) unrefLeaf(b->leaves[k]);
    release(b);
  }
  // Freed leaves and blocks of this thread, reused before asking malloc.
  template <class X>
  struct FreeList {
    std::vector<X*> items;
    ~FreeList() {
      for (X* x : items) ::operator delete(x);
    }
  };
  template <class X>
  static FreeList<X>& freeList() {
    thread_local FreeList<X> list;
    return list;
  }
  template <class X>
  static X* allocate() {
    FreeList<X>& f = freeList<X>();
    if (f.items.empty()) return static_cast<X*>(::operator new(sizeof(X)));
    X* x = f.items.back();
    f.items.pop_back();
    return x;
  }
  template <class X>
  static void release(X* x) {
    FreeList<X>& f = freeList<X>();
    if (f.items.size() < 4096) f.items.push_back(x);
    else ::operator delete(x);
  }

  // The block pointers, the first held in place: copying a vector of up to
  // kBlockItems elements (every graph but the longest) allocates nothing.
  class BlockPtrs {
   public:
    BlockPtrs() = default;
    BlockPtrs(const BlockPtrs& o) { assign(o); }
    BlockPtrs(BlockPtrs&& o) noexcept { take(o); }
    BlockPtrs& operator=(const BlockPtrs& o) {
      if (this != &o) assign(o);
      return *this;
    }
    BlockPtrs& operator=(BlockPtrs&& o) noexcept {
      if (this != &o) {
        freeHeap();
        take(o);
      }
      return *this;
    }
    ~BlockPtrs() { freeHeap(); }
    size_t size() const { return size_; }
    Block*& operator[](size_t i) { return data_[i]; }
    Block* operator[](size_t i) const { return data_[i]; }
    Block* back() const { return data_[size_ - 1]; }
    Block* const* begin() const { return data_; }
    Block* const* end() const { return data_ + size_; }
    void push_back(Block* b) {
      if (size_ == cap_) reserve(2 * cap_);
      data_[size_++] = b;
    }
    void resize(size_t n) { size_ = uint32_t(std::min<size_t>(n, size_)); }  // (shrinks only)
    void clear() { size_ = 0; }

   private:
    bool onHeap() const { return data_ != &one_; }
    void freeHeap() {
      if (onHeap()) delete[] data_;
      data_ = &one_;
      cap_ = 1;
      size_ = 0;
    }
    void reserve(size_t cap) {
      if (cap <= cap_) return;
      Block** d = new Block*[cap];
      std::copy(data_, data_ + size_, d);
      if (onHeap()) delete[] data_;
      data_ = d;
      cap_ = uint32_t(cap);
    }
    void assign(const BlockPtrs& o) {
      size_ = 0;
      reserve(o.size_);
      std::copy(o.data_, o.data_ + o.size_, data_);
      size_ = o.size_;
    }
    void take(BlockPtrs& o) {
      if (o.onHeap()) {
        data_ = o.data_;
        cap_ = o.cap_;
      } else {
        one_ = o.one_;
      }
      size_ = o.size_;
      o.data_ = &o.one_;
      o.cap_ = 1;
      o.size_ = 0;
    }
    Block* one_ = nullptr;
    Block** data_ = &one_;
    uint32_t size_ = 0, cap_ = 1;
  };

  BlockPtrs blocks_;
  size_t size_ = 0;
};

}  // namespace tsocheck

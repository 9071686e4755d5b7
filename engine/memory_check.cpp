#include "engine/memory_check.h"

#include <cstdio>

#include "engine/hangs.h"

namespace tsocheck {

Value initialMemoryValue(const Program& prog, Addr a, uint8_t size) {
  if (a >= layout::kTlsBase && a < layout::kStackBase) {  // a thread's copy starts as the initialiser
    const uint64_t off = (a - layout::kTlsBase) % layout::kTlsStride;
    const ThreadLocal* v = prog.threadLocalAt(off, false);
    if (!v) return 0;
    Value x = 0;
    const uint64_t in = off - v->offset;
    for (unsigned i = 0; i < size && in + i < v->init.size(); ++i) x |= Value(v->init[in + i]) << (8 * i);
    return x;
  }
  const Global* g = prog.globalAt(a);
  if (!g) return 0;
  Value v = 0;
  uint64_t off = a - g->addr;
  for (unsigned i = 0; i < size && off + i < g->init.size(); ++i) v |= Value(g->init[off + i]) << (8 * i);
  return v;
}

std::string stackAfterReturn(const Program& prog, Addr a, uint64_t owner) {
  return "use after return: " + addressName(prog, a) + " is a stack slot of T" + std::to_string(owner) +
         ", which has returned";
}

std::string destroyedMutexUse(const Program& prog, const char* op, Value old, Addr a) {
  if (old != kMutexDestroyed) return "";
  return std::string(op) + " of a destroyed mutex (" + addressName(prog, a) + ")";
}

std::string invalidAccess(const Program& prog, Addr a, uint64_t size, const ThreadLookup& thread,
                          bool exitEndsProgram) {
  // A finished thread whose exit ends the program: its memory lives to the end.
  auto gone = [&](const ThreadState* ts, uint64_t owner) {
    if (!ts->finished()) return false;
    const Action& x = ts->pending();
    return !(exitEndsProgram && endsProgram(prog, uint32_t(owner), x.function, x.pc));
  };
  auto hex = [](Addr x) {
    char b[32];
    snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
    return std::string(b);
  };
  if (a < layout::kNullLimit) return a == 0 ? "null pointer dereference" : "access near NULL (" + hex(a) + ")";
  if (a >= layout::kHeapBase) {
    uint64_t owner = (a - layout::kHeapBase) / layout::kThreadStride;
    const ThreadState* ts = thread(owner);
    if (!ts) return "access to an invalid address " + hex(a);  // no thread owns that window
    const HeapBlock* b = ts->heapBlockAt(a);
    if (!b) {
      if (const HeapBlock* before = ts->heapBlockBefore(a))
        return "out-of-bounds heap access: offset " + std::to_string(a - before->addr) + " of a " +
               std::to_string(before->size) + "-byte block";
      return "heap access outside any allocated block (" + addressName(prog, a) + ")";
    }
    if (a + size > b->addr + b->size)
      return "out-of-bounds heap access: " + std::to_string(size) + " bytes at offset " +
             std::to_string(a - b->addr) + " of a " + std::to_string(b->size) + "-byte block";
    return "";
  }
  if (a >= layout::kPrivateBase) return "access to another thread's private stack slot";
  if (a >= layout::kTlsBase && a < layout::kStackBase) {
    const uint64_t owner = (a - layout::kTlsBase) / layout::kTlsStride, off = (a - layout::kTlsBase) % layout::kTlsStride;
    const ThreadLocal* v = prog.threadLocalAt(off, false);
    if (!v) return "access to an invalid thread-local address " + hex(a);
    if (off + size > v->offset + v->size)
      return "out-of-bounds access to thread-local `" + v->name + "` of T" + std::to_string(owner);
    const ThreadState* ts = thread(owner);
    if (!ts) return "access to thread-local `" + v->name + "` of T" + std::to_string(owner) + ", which does not exist";
    if (gone(ts, owner))
      return "use of " + addressName(prog, a) + " after T" + std::to_string(owner) +
             " ended (a thread's thread-local variables end with it)";
    return "";
  }
  if (a >= layout::kStackBase) {
    uint64_t owner = (a - layout::kStackBase) / layout::kThreadStride;
    const ThreadState* ts = thread(owner);
    if (ts && ts->ownsStackAddress(a, size)) return gone(ts, owner) ? stackAfterReturn(prog, a, owner) : "";
    if (ts && !gone(ts, owner)) {
      const std::string overrun = ts->slotOverrun(a);
      if (!overrun.empty()) return overrun;
    }
    return "access to an invalid stack address " + hex(a);
  }
  if (const Global* g = prog.globalAt(a)) {
    if (a + size > g->addr + g->size) return "out-of-bounds access to `" + g->name + "`";
    return "";
  }
  if (a >= layout::kGlobalBase && a < layout::kFunctionBase) {
    // In the red zone between two globals (layout::placeObject): name the one
    // it is nearer to, overrun or underrun.
    const Global* before = nullptr;
    const Global* after = nullptr;
    for (const Global& g : prog.globals) {
      if (g.addr <= a && (!before || g.addr > before->addr)) before = &g;
      if (g.addr > a && (!after || g.addr < after->addr)) after = &g;
    }
    auto text = [](const Global& g, int64_t off) {
      return "out-of-bounds access to `" + g.name + "` (offset " + std::to_string(off) + " of a " +
             std::to_string(g.size) + "-byte object)";
    };
    if (before && (!after || a - (before->addr + before->size) <= after->addr - a))
      return text(*before, int64_t(a - before->addr));
    if (after) return text(*after, -int64_t(after->addr - a));
  }
  return "access to an invalid address " + hex(a);
}

}  // namespace tsocheck

// Memory-access rules shared by the graph explorer and the state-space search:
// which addresses a thread may touch, and the initial value of a location.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/interp.h"
#include "engine/ir.h"

namespace tsocheck {

// The state of thread `tid` (for its heap blocks and stack slots), or nullptr.
using ThreadLookup = std::function<const ThreadState*(uint64_t tid)>;

// Empty when an access of `size` bytes at `a` is valid; otherwise a description
// of the memory error (null, out of bounds, invalid stack or heap address, a
// stack slot of a thread that has returned). `exitEndsProgram`
// (CheckOptions): a thread whose return ends the program keeps its stack and
// thread-locals to the end (nothing runs after it).
std::string invalidAccess(const Program& prog, Addr a, uint64_t size, const ThreadLookup& thread,
                          bool exitEndsProgram = false);

// The message for an access to stack slot `a` of thread `owner` after that thread returned.
std::string stackAfterReturn(const Program& prog, Addr a, uint64_t owner);

// The error of a mutex operation `op` ("pthread_mutex_lock", ...) that finds
// `old` in the lock word at `a`: empty unless the mutex was destroyed.
std::string destroyedMutexUse(const Program& prog, const char* op, Value old, Addr a);

// Initial value of a location: the global's initialiser, 0 elsewhere.
Value initialMemoryValue(const Program& prog, Addr a, uint8_t size);

}  // namespace tsocheck

// When no thread can move: what the end of an execution is. Shared by the
// graph explorer and the state-space search (each knows its own way to tell
// a wait on the newest value from a wait on a stale one).
//
//   * blocked: some thread waits on a stale value (an artefact of this
//     execution: another order of the same program gets further), or a
//     plain assume failed, or nothing waits at all;
//   * complete: the program has ended (CheckOptions::exitEndsProgram and the
//     harness returned or a thread called exit()): the threads still waiting
//     simply stop, as C stops them;
//   * a deadlock when some thread waits on a mutex or a condition variable
//     (or another blocking primitive), else non-termination (threads spin on
//     values no other thread will change; the rest wait to join).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/interp.h"
#include "engine/ir.h"

namespace tsocheck {

struct Waiter {
  enum class Kind : uint8_t { Mutex, Wait, Spin, Join };
  Kind kind = Kind::Mutex;
  uint32_t thread = 0;
  SourceLoc loc;
  Addr mutex = 0;       // Mutex: the mutex
  uint32_t joins = 0;   // Join: the thread waited for
  std::string waits;    // Wait: what it waits for (waitText)
};

struct ExecutionEnd {
  enum class Kind : uint8_t { Blocked, Complete, Hang };
  Kind kind = Kind::Blocked;
  ErrorKind error = ErrorKind::None;  // Hang: Deadlock or NonTermination
  std::string message;                // Hang: "every live thread is blocked: T1 waits for mutex m (f.c:3:5); ..."
  uint32_t thread = 0;                // Hang: the thread the report points at (first mutex/cond waiter, or first spinner)
  SourceLoc loc;
};

// Thread u stopped at its pending action p, when that is a spin or wait
// (ActionKind::Blocked) or a join: the waiter, in w (true). A plain assume
// that failed (p.value == 0), or a spin whose idle iteration may still read
// another value — `idleReadsStale(n)`: one of the thread's last n reads may
// (each search knows its own way to tell) — sets *stale instead (false).
// Anything else is no wait (false). A wait for a held mutex is the caller's.
template <class IdleReadsStale>
bool waiterAt(uint32_t u, const Action& p, IdleReadsStale idleReadsStale, Waiter& w, bool* stale) {
  w.thread = u;
  w.loc = p.loc;
  if (p.kind == ActionKind::Join) {
    w.kind = Waiter::Kind::Join;
    w.joins = p.target;
    return true;
  }
  if (p.kind != ActionKind::Blocked) return false;
  if (p.value == 0 || idleReadsStale(std::max<uint32_t>(p.target, 1))) {
    *stale = true;
    return false;
  }
  w.kind = isWait(p) ? Waiter::Kind::Wait : Waiter::Kind::Spin;
  if (isWait(p)) w.waits = waitText(p);
  return true;
}

// `stale`: some thread waits on a value another order would change (or a
// plain assume failed). `programEnded`: see above.
ExecutionEnd classifyEnd(const Program& prog, const std::vector<Waiter>& waiters, bool stale, bool programEnded);

// A thread stuck inside an atomic section (no other thread may run) at its
// pending action p: a failed assume or a cut is no hang (kind Blocked; the
// caller counts a cut); waiting for a mutex, a join or another wait is a
// deadlock, a spin non-termination (no other thread can change what it
// reads), reported at p. One rule for both searches.
ExecutionEnd sectionEnd(const Program& prog, uint32_t owner, const Action& p);

// Under CheckOptions::exitEndsProgram, whether the Exit of `thread` at
// (function, pc) ends the whole program: a return from the harness (thread
// 0's entry function) or an exit() call in any thread. pthread_exit ends its
// own thread only (C: the process goes on until the last thread ends).
bool endsProgram(const Program& prog, uint32_t thread, uint32_t function, uint32_t pc);

}  // namespace tsocheck

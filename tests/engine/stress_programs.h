// Stress families for differential testing: programs the plain random
// generator (random_programs.h) rarely makes because its state budget keeps
// them small — many threads on one location, chains of RMWs, permuted spawn
// orders, nested spawns, await loops, mutexes and trylock, fences.
//
// A program is generated as a small description (StressProgram) first, so
// that a mismatch can be shown as C-like text, then built into engine IR.
// Every thread ends by storing what it read (one byte per value) into its own
// result global, so final memory tells outcomes apart.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir.h"

namespace tsocheck::testing {

enum class StressFamily : uint8_t {
  OneLocation,  // 3-5 threads, every access to one location
  RmwHeavy,     // 4-6 threads, mostly fetch_add / xchg / CAS on 1-2 locations
  Mixed,        // 3-4 threads, 2-3 locations, stores/loads/RMWs/fences
  Mutex,        // a mutex (lock/unlock, trylock) around some accesses; up to 4 threads, sometimes two sections each
  Await,        // spin-waits (load + assume) on a flag that some thread sets, or on it or another location
  Nested,       // a thread spawns and joins a child of its own
};
constexpr int kStressFamilies = 6;
const char* stressFamilyName(StressFamily f);

struct StressOp {
  enum Kind : uint8_t {
    Store, Load, FetchAdd, Xchg, Cas, CasSeen,  // CasSeen: expected = the value this thread read last
    FenceFull, FenceStoreStore, Lock, Unlock, TryLockBegin, TryLockEnd, Await,
    AwaitEither,  // while (flag != 1 && loc != value) ;  (two reads per idle iteration, loc's last)
    TasAcquire,   // for (;;) { while (loc != 0) ; if (xchg(&loc, 1) == 0) break; }  (a TTAS lock)
    TasRelease,   // loc = 0
    AssertNot  // assert(the value this thread read last != value)
  } kind = Store;
  uint32_t loc = 0;
  Value value = 0;     // stored value / operand / CAS desired / awaited value
  Value expected = 0;  // CAS expected
};

struct StressThread {
  std::vector<StressOp> ops;
  bool spawnsChild = false;      // spawns `child` first and joins it at the end
  std::vector<StressOp> child;   // the child's body
};

struct StressProgram {
  StressFamily family = StressFamily::Mixed;
  uint32_t locations = 1;
  std::vector<Value> init;
  std::vector<StressThread> threads;
  std::vector<uint32_t> spawnOrder;  // permutation of thread indexes: main spawns in this order
  bool hasMutex = false;
  uint32_t tasLock = 0;  // Await: the location only TasAcquire/TasRelease use (0: none)
};

// Deterministic: the same seed and family always give the same program.
StressProgram stressProgram(uint64_t seed, StressFamily family);
Program buildStress(const StressProgram& p);
// C-like rendering, for reports of mismatches.
std::string stressToC(const StressProgram& p);

}  // namespace tsocheck::testing

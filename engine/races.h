// Data races (C11 undefined behaviour), found in complete or ended graphs.
// The explorer asks only about graphs SC allows under SC, TSO and PSO (a
// race is the C program's, the same under every store-buffer model) and
// about every consistent graph under RC11 (where it is an error).
//
// Two accesses race when they touch one location from different threads, at
// least one writes, at least one is *plain* (a non-atomic, non-volatile C load
// or store: Instr::sub & kPlainAccess, outside any atomic section: one inside
// counts as atomic), and happens-before orders neither.
// Happens-before is (po ∪ sw)+ where sw is: a releasing write (a release or
// seq_cst store or RMW, an unlock), or a write of its release sequence (C11:
// RMWs reading from it, and its own thread's writes right after it in
// coherence order), read
// by an acquiring read (an acquire or seq_cst load or RMW, a lock); a spawn to
// the child's first event; a thread's last event to the join that waits for
// it. Plain and relaxed reads-from never synchronise (ir.h kRelaxedAccess;
// a relaxed access in a function with a matching fence counts as acquiring /
// releasing, so fence synchronisation is approximated per function).
// That is the happens-before of SC, TSO and PSO. Under RC11 (a detector made
// with an Rc11Checker) races are judged by RC11's own hb instead, the one its
// consistency check uses (engine/rc11.h): release sequences as in C++20 (only
// RMWs continue one), fences event by event ([F]; sb before the release
// sequence, sb; [F] after the relaxed read), spawn, join, locks as acquire /
// release RMWs; and plain means a non-atomic C11 order (Event::order).
//
// The detector visits the graph's events in one linearisation of
// happens-before (threads advance while their next event's predecessors are
// done; under RC11 the checker's order of po ∪ rf) with one vector clock per
// event (under RC11 the checker's), and keeps per location and thread
// the latest read and write (and the latest plain ones): a new access races
// with an older one of thread u exactly when it does not see u's latest
// access of the relevant kind. O(events × threads) per graph, after a pass of
// O(events) that ends the search when no location is written and accessed by
// two threads with an access plain (mayRace): a harness's own plain locals
// (the pthread_t array) make a program "have plain accesses" without any race
// being possible. That pass also ends it when every conflicting pair of such
// a location's accesses is ordered by a spawn or a join alone (arguments
// written before the spawn and read by the child, results read after the
// join), or is a pair of source locations the caller already knows races
// (`Known`): the search could only name such pairs again. (Both hold under
// RC11's hb too: it contains spawn and join edges, and a known pair is
// judged by its source locations alone.) A program whose
// every access is a plain racy int (a message-passing chain) finds its few
// races in the first executions; after that the pass ends each later one.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/graph.h"
#include "engine/ir.h"
#include "engine/rc11.h"

namespace tsocheck {

struct Race {
  EventId first;   // the access met first in the linearisation
  EventId second;  // the one that does not see it
};

class RaceDetector {
 public:
  // rc11: judge races as RC11 does — hb is rc11's (Rc11Checker::computeHb:
  // release sequences as in C++20, fences event by event), and an access is
  // plain when its C11 order is non-atomic (Event::order).
  explicit RaceDetector(const Program& prog, Rc11Checker* rc11 = nullptr) : prog_(prog), rc11_(rc11) {}
  // True when the program has a plain access at all (else find() is never needed).
  bool programHasPlainAccesses() const;
  // Pairs of source locations the caller has reported a race between (in
  // either order) already.
  using Known = std::vector<std::pair<SourceLoc, SourceLoc>>;
  // Races of g: for each access that races with an older one (in the
  // linearisation), one of those (the lowest thread's latest); every location
  // with a race gets at least one. With `known`, nothing when every
  // conflicting pair of g that no spawn or join orders is a known pair (the
  // races found could only be known ones).
  void find(const Graph& g, std::vector<Race>& out, const Known& known = {});
  bool isPlain(const Event& e) const;
  // How find() ended its calls: no location two threads access with a plain
  // access and a write; every such pair ordered by a spawn or join or known;
  // searched.
  struct Counts {
    uint64_t noCandidate = 0, spawnJoinOrdered = 0, searched = 0;
  };
  const Counts& counts() const { return counts_; }
  // An atomic read that acquires / an atomic write that releases (ir.h kRelaxedAccess).
  bool acquires(const Event& e) const;
  bool releases(const Event& e) const;

 private:
  const Instr* instrOf(const Event& e) const;
  // False when no location of g is written and accessed by two threads,
  // with an access plain, or every such pair is ordered by a spawn or join
  // or known: then g has no race find() would report that is not known.
  bool mayRace(const Graph& g, const Known& known);
  // The access `id` (clock c: its hb-or-equal prefix length per thread),
  // met in a linearisation of hb: its races with older accesses into out.
  void access(const Graph& g, EventId id, const uint32_t* c, std::vector<Race>& out);
  const Program& prog_;
  Rc11Checker* rc11_;
  Counts counts_;
  // Scratch, reused across calls.
  std::vector<uint32_t> clockStart_;  // per thread: offset of its first event's clock
  std::vector<uint32_t> clocks_;      // per event: one entry per thread
  std::vector<uint32_t> release_;     // per write event: the clock an acquiring read of it joins
  std::vector<uint32_t> next_;        // per thread: events done
  std::vector<int32_t> last_;         // per location and thread: 4 latest accesses (index or -1)
  std::vector<uint32_t> accessors_;   // per location: the thread accessing it, or none / many (mayRace)
  std::vector<uint8_t> kinds_;        // per location: a plain access, a write seen (mayRace)
  struct Access {
    uint32_t loc;     // location index
    uint32_t thread;
    uint32_t index;
    uint8_t kind;     // plain / writes (mayRace)
    uint8_t site;     // index of its source location in knownSites_, kNoSite, or kSiteUnknown (not looked up yet)
    const Event* ev;
  };
  static constexpr uint8_t kNoSite = 0xff, kSiteUnknown = 0xfe;
  // Known pairs as bits between their source locations (when `known` differs
  // from the last call's).
  void learn(const Known& known);
  // a's source location among the known pairs' (looked up once per access).
  uint8_t siteOf(Access& a) const;
  // Whether every conflicting pair of the accesses listed from `head` (one
  // location's) is a known pair, judged by their distinct (source location,
  // thread, kind) — a loop's accesses share one: then no pair of accesses
  // needs a look.
  bool allKnown(uint32_t head);
  Known knownList_;                  // the `known` of the last call
  std::vector<SourceLoc> knownSites_;  // the source locations of knownList_'s pairs
  std::vector<uint64_t> knownBits_;    // per known site: the sites it races with (the first 64)
  std::vector<Access> accesses_;  // the graph's accesses met so far (mayRace)
  std::vector<uint32_t> joinAt_;  // per thread and thread: the index of the first's first join of the second (mayRace)
  std::vector<uint32_t> headOf_, nextOf_;  // per location its accesses so far, as a list (mayRace)
};

}  // namespace tsocheck

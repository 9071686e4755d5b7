// The memory model of a check, and every rule in which the models differ.
//
// `Model` is the user's choice (SC, x86-TSO, PSO, RC11); `MemoryModel` is that
// choice with the store-buffer bound of the run, and answers the questions
// the rest of the code has about the model: whether stores are buffered, how
// buffers flush, what a store-store barrier does, whether a bound cuts
// executions, which events drain a buffer, which fence lowering puts around
// a C11 access. Everything else (the consistency checker, the state-space
// search, traces, fence synthesis, lowering, reports) asks these queries and
// never compares Model values, so a new model is added here first (see
// ARCHITECTURE.md, "How to add a memory model").
//
// Value type, header only except names and the event rule: the queries are
// constexpr and inline to the comparisons they replace (the explorer and the
// consistency checker call them on hot paths).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tsocheck {

// RC11: the C11 memory model as Lahav, Vafeiadis, Kang, Hur and Dreyer
// repair it ("Repairing Sequential Consistency in C/C++11", PLDI 2017), with
// C++20's release sequences (only RMWs continue one); engine/rc11.h.
enum class Model : uint8_t { SC, TSO, PSO, RC11 };
inline constexpr Model kModels[] = {Model::SC, Model::TSO, Model::PSO, Model::RC11};  // every model, in this order
inline constexpr Model kDefaultModel = Model::TSO;                      // when nothing chooses one
const char* modelName(Model m);                                          // "SC", "TSO", "PSO", "RC11"
std::optional<Model> parseModel(std::string_view s);                     // "sc" | "tso" | "pso" | "rc11" (any case)
const char* modelChoices();                                              // "sc|tso|pso|rc11": the option's choices

// The fences of the engine IR (Op::Fence's sub, Event::fence).
enum class FenceKind : uint8_t { Full, StoreStore };

// A C11 memory order, as lowering reads it from an access or a fence
// (consume is read as acquire). NonAtomic: a plain C access (Instr::order,
// Event::order); lowering's fence queries never see it.
enum class MemOrder : uint8_t { Relaxed, Acquire, Release, AcqRel, SeqCst, NonAtomic };
// Whether an access or fence of order o acquires / releases / is seq_cst.
constexpr bool acquires(MemOrder o) { return o == MemOrder::Acquire || o == MemOrder::AcqRel || o == MemOrder::SeqCst; }
constexpr bool releases(MemOrder o) { return o == MemOrder::Release || o == MemOrder::AcqRel || o == MemOrder::SeqCst; }
const char* memOrderName(MemOrder o);  // "relaxed", ..., "seq_cst", "non-atomic"

struct Event;
struct Action;

struct MemoryModel {
  Model model = kDefaultModel;
  int bufferBound = -1;  // pending stores per thread; -1 unbounded; 0 = no store waits (SC)

  // --- Axiomatic models.
  // Consistency is RC11's, on the C11 memory orders the events carry
  // (engine/rc11.h): no store buffers, no chronological order of the graph
  // (order keys, flushes), and lowering keeps the orders instead of fences.
  constexpr bool usesC11Orders() const { return model == Model::RC11; }

  // --- Store buffers.
  // The model has store buffers (TSO, PSO), whatever the bound: SC's and
  // RC11's executions have none.
  constexpr bool hasStoreBuffers() const { return model == Model::TSO || model == Model::PSO; }
  // Stores of this run wait in a buffer: store buffers and a bound other
  // than 0. When false, every event takes effect at its own step (SC).
  constexpr bool buffersStores() const { return hasStoreBuffers() && bufferBound != 0; }
  // A load may read its thread's newest buffered store to its address
  // before that store reaches memory (store forwarding).
  constexpr bool forwardsFromBuffer() const { return buffersStores(); }
  // The bound leaves executions out: a search that finds nothing is
  // "bounded", not "verified" (bound 0 included: it leaves out every
  // execution that needs a buffer).
  constexpr bool boundCuts() const { return hasStoreBuffers() && bufferBound >= 0; }
  // The bound of a deepening step k: what the model with that bound does.
  constexpr MemoryModel withBound(int k) const { return MemoryModel{model, k}; }
  // Buffers hold stores per location: stores of a thread to different
  // locations reach memory in either order (PSO). Otherwise a thread has one
  // FIFO buffer and its stores reach memory in program order (TSO).
  constexpr bool perLocationBuffers() const { return model == Model::PSO; }
  // A store-store barrier makes the thread's earlier stores reach memory
  // before its later ones (PSO; under TSO they do anyway, the barrier is a
  // no-op).
  constexpr bool storeStoreBarrierOrdersFlushes() const { return model == Model::PSO; }
  // Events that wait for their thread's buffer(s) to be empty before they
  // act: locked RMWs, mutex operations, spawn, free, exit and full fences.
  // One rule for both searches: the graph explorer's events (consistency
  // checker) and the state-space search's pending actions, which wait under
  // the same rule for the event each becomes (memory_model.cpp).
  static bool drainsBuffer(const Event& e);
  static bool drainsBuffer(const Action& a);

  // --- Lowering (C11 orders to the fences a compiler emits for the model;
  // depends on the model only, not on the bound).
  // The fence that stands for an explicit barrier of kind `asked` (asm
  // mfence / sfence), or none when the model orders that anyway.
  constexpr std::optional<FenceKind> fenceKept(FenceKind asked) const {
    if (!hasStoreBuffers()) return std::nullopt;
    if (asked == FenceKind::StoreStore && !storeStoreBarrierOrdersFlushes()) return std::nullopt;
    return asked;
  }
  // atomic_thread_fence(o): seq_cst orders stores before loads (full fence),
  // release / acq_rel orders stores before stores.
  constexpr std::optional<FenceKind> fenceFor(MemOrder o) const {
    if (o == MemOrder::SeqCst) return fenceKept(FenceKind::Full);
    if (o == MemOrder::Release || o == MemOrder::AcqRel) return fenceKept(FenceKind::StoreStore);
    return std::nullopt;
  }
  // Before a store of order o: a release (or stronger) store is not
  // reordered with the thread's earlier stores.
  constexpr std::optional<FenceKind> fenceBeforeStore(MemOrder o) const {
    if (o == MemOrder::Release || o == MemOrder::AcqRel || o == MemOrder::SeqCst) return fenceFor(MemOrder::Release);
    return std::nullopt;
  }
  // After a store of order o: a seq_cst store is not reordered with the
  // thread's later loads. (A locked RMW drains the buffer: it needs no fence
  // in these models, and lowering asks for none.)
  constexpr std::optional<FenceKind> fenceAfterStore(MemOrder o) const {
    if (o == MemOrder::SeqCst) return fenceFor(MemOrder::SeqCst);
    return std::nullopt;
  }

  const char* name() const { return modelName(model); }
};

}  // namespace tsocheck

// The memory model's rules, stated once in engine/memory_model.h: what each
// model answers, so that a change to one rule shows here.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "engine/graph.h"
#include "engine/interp.h"
#include "engine/memory_model.h"

using namespace tsocheck;

TEST_CASE("model names parse in any case and list the choices", "[memory-model]") {
  for (Model m : kModels) {
    std::string lower = modelName(m);
    for (char& c : lower)
      if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    CHECK(parseModel(modelName(m)) == m);
    CHECK(parseModel(lower) == m);
  }
  CHECK(parseModel("Tso") == Model::TSO);
  CHECK_FALSE(parseModel("arm"));
  CHECK_FALSE(parseModel(""));
  CHECK_FALSE(parseModel("tsox"));
  CHECK(std::string(modelChoices()) == "sc|tso|pso|rc11");
  CHECK(parseModel("RC11") == Model::RC11);
  CHECK(std::string(MemoryModel{Model::PSO, 2}.name()) == "PSO");
}

TEST_CASE("RC11: no store buffers, C11 orders kept, no fences from lowering", "[memory-model]") {
  const MemoryModel rc11{Model::RC11};
  CHECK(rc11.usesC11Orders());
  CHECK_FALSE(MemoryModel{Model::TSO}.usesC11Orders());
  CHECK_FALSE(rc11.hasStoreBuffers());
  CHECK_FALSE(rc11.buffersStores());
  CHECK_FALSE(rc11.boundCuts());
  for (MemOrder o : {MemOrder::Relaxed, MemOrder::Acquire, MemOrder::Release, MemOrder::AcqRel, MemOrder::SeqCst}) {
    CHECK_FALSE(rc11.fenceFor(o));
    CHECK_FALSE(rc11.fenceBeforeStore(o));
    CHECK_FALSE(rc11.fenceAfterStore(o));
  }
  CHECK(acquires(MemOrder::AcqRel));
  CHECK_FALSE(acquires(MemOrder::Release));
  CHECK(releases(MemOrder::SeqCst));
  CHECK_FALSE(releases(MemOrder::NonAtomic));
  CHECK(std::string(memOrderName(MemOrder::AcqRel)) == "acq_rel");
}

TEST_CASE("store buffers, bounds and flush order per model", "[memory-model]") {
  const MemoryModel sc{Model::SC}, tso{Model::TSO}, pso{Model::PSO};
  CHECK_FALSE(sc.hasStoreBuffers());
  CHECK(tso.hasStoreBuffers());
  CHECK(pso.hasStoreBuffers());
  // Bound 0 keeps the model's buffers but no store waits in one (SC), and it cuts.
  CHECK(tso.buffersStores());
  CHECK_FALSE(tso.withBound(0).buffersStores());
  CHECK(tso.withBound(0).hasStoreBuffers());
  CHECK(tso.withBound(0).boundCuts());
  CHECK_FALSE(tso.boundCuts());
  CHECK(pso.withBound(3).boundCuts());
  CHECK_FALSE(sc.withBound(3).boundCuts());  // SC has no buffer to bound
  CHECK_FALSE(sc.buffersStores());
  CHECK(tso.forwardsFromBuffer());
  CHECK_FALSE(tso.withBound(0).forwardsFromBuffer());
  CHECK_FALSE(tso.perLocationBuffers());
  CHECK(pso.perLocationBuffers());
  CHECK_FALSE(tso.storeStoreBarrierOrdersFlushes());
  CHECK(pso.storeStoreBarrierOrdersFlushes());
}

TEST_CASE("which events drain a store buffer", "[memory-model]") {
  Event e;
  for (EvKind k : {EvKind::Rmw, EvKind::Lock, EvKind::TryLock, EvKind::Unlock, EvKind::Spawn, EvKind::Free,
                   EvKind::Exit}) {
    e.kind = k;
    CHECK(MemoryModel::drainsBuffer(e));
  }
  for (EvKind k : {EvKind::Load, EvKind::Store, EvKind::Join}) {
    e.kind = k;
    CHECK_FALSE(MemoryModel::drainsBuffer(e));
  }
  e.kind = EvKind::Fence;
  e.fence = FenceKind::Full;
  CHECK(MemoryModel::drainsBuffer(e));
  e.fence = FenceKind::StoreStore;
  CHECK_FALSE(MemoryModel::drainsBuffer(e));
}

// The state-space search asks the same rule of a thread's pending action
// (before it becomes a step), the graph explorer of the event it records.
TEST_CASE("which pending actions wait for an empty store buffer", "[memory-model]") {
  Action a;
  for (ActionKind k : {ActionKind::Rmw, ActionKind::Lock, ActionKind::TryLock, ActionKind::Unlock, ActionKind::Spawn,
                       ActionKind::Free, ActionKind::Exit}) {
    a.kind = k;
    CHECK(MemoryModel::drainsBuffer(a));
  }
  for (ActionKind k : {ActionKind::Load, ActionKind::Store, ActionKind::Join, ActionKind::BlockSize,
                       ActionKind::Choice, ActionKind::Error, ActionKind::Blocked, ActionKind::Limit,
                       ActionKind::AtomicBegin}) {
    a.kind = k;
    CHECK_FALSE(MemoryModel::drainsBuffer(a));
  }
  a.kind = ActionKind::Fence;
  a.fence = FenceKind::Full;
  CHECK(MemoryModel::drainsBuffer(a));
  a.fence = FenceKind::StoreStore;
  CHECK_FALSE(MemoryModel::drainsBuffer(a));

  // The same answer as the event each action becomes.
  const std::pair<ActionKind, EvKind> same[] = {
      {ActionKind::Load, EvKind::Load},       {ActionKind::Store, EvKind::Store},     {ActionKind::Rmw, EvKind::Rmw},
      {ActionKind::Lock, EvKind::Lock},       {ActionKind::TryLock, EvKind::TryLock}, {ActionKind::Unlock, EvKind::Unlock},
      {ActionKind::Spawn, EvKind::Spawn},     {ActionKind::Join, EvKind::Join},       {ActionKind::Free, EvKind::Free},
      {ActionKind::Exit, EvKind::Exit},       {ActionKind::BlockSize, EvKind::Query}, {ActionKind::Choice, EvKind::Choice},
      {ActionKind::Fence, EvKind::Fence}};
  for (FenceKind f : {FenceKind::Full, FenceKind::StoreStore})
    for (auto [ak, ek] : same) {
      Event e;
      e.kind = ek;
      e.fence = f;
      a.kind = ak;
      a.fence = f;
      CHECK(MemoryModel::drainsBuffer(a) == MemoryModel::drainsBuffer(e));
    }
}

TEST_CASE("the fences lowering puts around C11 stores and fences", "[memory-model]") {
  const MemoryModel sc{Model::SC}, tso{Model::TSO}, pso{Model::PSO};
  for (MemOrder o : {MemOrder::Relaxed, MemOrder::Acquire, MemOrder::Release, MemOrder::AcqRel, MemOrder::SeqCst}) {
    CHECK_FALSE(sc.fenceFor(o));
    CHECK_FALSE(sc.fenceBeforeStore(o));
    CHECK_FALSE(sc.fenceAfterStore(o));
    CHECK_FALSE(tso.fenceBeforeStore(o));  // TSO keeps stores in order
  }
  CHECK(tso.fenceFor(MemOrder::SeqCst) == FenceKind::Full);
  CHECK_FALSE(tso.fenceFor(MemOrder::Release));
  CHECK(tso.fenceAfterStore(MemOrder::SeqCst) == FenceKind::Full);
  CHECK_FALSE(tso.fenceAfterStore(MemOrder::Release));
  CHECK(pso.fenceFor(MemOrder::SeqCst) == FenceKind::Full);
  CHECK(pso.fenceFor(MemOrder::Release) == FenceKind::StoreStore);
  CHECK(pso.fenceFor(MemOrder::AcqRel) == FenceKind::StoreStore);
  CHECK_FALSE(pso.fenceFor(MemOrder::Acquire));
  CHECK_FALSE(pso.fenceFor(MemOrder::Relaxed));
  CHECK(pso.fenceBeforeStore(MemOrder::Release) == FenceKind::StoreStore);
  CHECK(pso.fenceBeforeStore(MemOrder::SeqCst) == FenceKind::StoreStore);
  CHECK_FALSE(pso.fenceBeforeStore(MemOrder::Relaxed));
  CHECK(pso.fenceAfterStore(MemOrder::SeqCst) == FenceKind::Full);
  // Explicit barriers (asm mfence / sfence).
  CHECK_FALSE(sc.fenceKept(FenceKind::Full));
  CHECK(tso.fenceKept(FenceKind::Full) == FenceKind::Full);
  CHECK_FALSE(tso.fenceKept(FenceKind::StoreStore));
  CHECK(pso.fenceKept(FenceKind::StoreStore) == FenceKind::StoreStore);
}

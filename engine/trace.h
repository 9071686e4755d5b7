// Turns a consistent execution graph and its chronological order into the
// step-by-step counterexample users read: stores entering buffers, flushes,
// loads served by memory or by the thread's own buffer, with every thread's
// buffer contents after each step.
#pragma once

#include <vector>

#include "engine/check.h"
#include "engine/consistency.h"
#include "engine/graph.h"

namespace tsocheck {

std::vector<TraceStep> buildTrace(const Program& prog, const Graph& g, const MemoryModel& mm,
                                  const std::vector<OrderNode>& order);

}  // namespace tsocheck

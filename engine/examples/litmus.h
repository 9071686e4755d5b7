// Classic litmus tests written with the builder API. Each test thread stores
// the registers it observed into result globals; main spawns the threads,
// joins them, loads the results and asserts that the "weak" outcome did not
// happen.
#pragma once

#include <string>
#include <vector>

#include "engine/check.h"
#include "engine/ir.h"

namespace tsocheck::litmus {

struct LitmusTest {
  std::string name;         // "SB", "SB+fences", "MP", "LB", "2+2W", "IRIW"
  std::string description;
  Program program;
  // Expected number of complete executions (Shasha–Snir traces) per model.
  uint64_t expectedSC = 0, expectedTSO = 0, expectedPSO = 0;
  // Whether the weak outcome (the failing assertion) is reachable per model.
  bool weakSC = false, weakTSO = false, weakPSO = false;
};

std::vector<LitmusTest> all();
// The test named `name` (built once); std::invalid_argument if there is none.
const LitmusTest& byName(const std::string& name);

}  // namespace tsocheck::litmus

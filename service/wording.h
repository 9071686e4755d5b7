// How counts and durations read in every message a person sees (CLI text,
// diagnostics, lenses, fence notes): "1 execution", "12,345 executions",
// "0.4 ms", "87 ms", "11.6 s", "2 min 5 s".
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/fences.h"

namespace tsocheck {

inline std::string countText(uint64_t n, const std::string& noun) {
  std::string d = std::to_string(n);
  for (int i = int(d.size()) - 3; i > 0; i -= 3) d.insert(size_t(i), ",");
  return d + " " + noun + (n == 1 ? "" : "s");
}

inline std::string durationText(double ms) {
  char buf[48];
  if (ms < 10) std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  else if (ms < 1000) std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  else if (ms < 60000) std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000);
  else std::snprintf(buf, sizeof buf, "%d min %d s", int(ms / 60000), int(ms / 1000) % 60);
  return buf;
}

// One fence-synthesis round, as the CLI's progress line and the language
// server's progress report and log say it: "fence synthesis round 2 (seed):
// 3 fences — still fails (1,234 executions, 87 ms; 0.4 s so far)".
inline std::string fenceRoundText(const FenceRound& r) {
  return "fence synthesis round " + std::to_string(r.round) + " (" + r.phase + "): " + countText(r.fences, "fence") +
         " — " + (r.passed ? "passes" : "still fails") + " (" + countText(r.executions, "execution") + ", " +
         durationText(r.seconds * 1000) + "; " + durationText(r.elapsed * 1000) + " so far)";
}

}  // namespace tsocheck

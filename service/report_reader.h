// Reading the check JSON (service/report_json.h writes it; the result cache
// stores it) in the front ends that render a stored result: the language
// server, the debug adapter. Tolerant: a missing or mistyped member reads as
// "" / 0, never an exception.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tsocheck {

using nlohmann::json;

// Members of the check / trace-step JSON: a string ("" when missing or not a
// string) and a non-negative integer (0 otherwise).
std::string str(const json& j, const char* key);
uint32_t num(const json& j, const char* key);
// Any member, or null when missing (or j is not an object).
const json& member(const json& j, const char* key);

// "step 3 · T1 · load flag[1] → 0 (memory)"
std::string stepLabel(const json& step);
// A value as the labels show it ("?" for null).
std::string valueText(const json& v);

// The structured trace for stepping UIs: the check JSON plus, per step, the
// memory values known so far ("memory") next to the buffers.
json tracePayload(const json& check);

}  // namespace tsocheck

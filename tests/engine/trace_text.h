// A violation's trace as text for test failure messages and the developer
// tools (tsocheck-litmus, tsocheck-frontend-dump): one line per step, worded
// by the service's step renderer (service/report_reader.h stepLabel,
// buffersText) with the step's note, source location and store buffers.
// Two traces give the same text exactly when their steps read the same.
#pragma once

#include <string>

#include "engine/check.h"

namespace tsocheck::testing {

std::string traceText(const Program& prog, const Violation& v);

}  // namespace tsocheck::testing

// Human output of `tsocheck check`: a verdict line per check and, for a
// violation, its interleaving with the source line of every step.
#pragma once

#include <string>

#include "service/check_report.h"

namespace tsocheck {

// A file's text: its input error, or every check's verdict text followed by
// its fix text.
std::string textReport(const FileReport& f);

// One check in two parts, so that the verdict can be printed as soon as it is
// known (RunOptions::onVerdict) and the fix when fence synthesis ends: the
// verdict line, warnings, the violation and its interleaving, robustness...
std::string checkVerdictText(const CheckReport& c);
// ...then the synthesized fences and the synthesis note ("" when none).
std::string checkFixText(const CheckReport& c);

}  // namespace tsocheck

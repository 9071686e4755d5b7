// Human output of `tsocheck check`: a verdict line per check and, for a
// violation, its interleaving with the source line of every step.
#pragma once

#include <string>

#include "service/check_report.h"

namespace tsocheck {

std::string textReport(const FileReport& f);

}  // namespace tsocheck

// SARIF 2.1.0 (`tsocheck check --sarif FILE`): one result per violation with
// its interleaving as a code flow and the synthesized fences as fixes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_report.h"

namespace tsocheck {

nlohmann::json sarifLog(const std::vector<FileReport>& files, const std::string& toolVersion);

}  // namespace tsocheck

// SARIF 2.1.0 (`tsocheck check --sarif FILE`): one result per violation with
// its interleaving as a code flow and the synthesized fences as fixes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_report.h"

namespace tsocheck {

// pictureUri: the --html page, relative to the SARIF file ("" when none);
// each result of a check with a violation links to its section there.
nlohmann::json sarifLog(const std::vector<FileReport>& files, const std::string& toolVersion,
                        const std::string& pictureUri = "");

}  // namespace tsocheck

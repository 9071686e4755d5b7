// Renderings of check results: the CLI's JSON (`--json`), SARIF 2.1.0
// (`--sarif`) and human text. The JSON shapes are shared with the language
// server's tsocheck/trace request.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lsp/check_runner.h"

namespace tsocheck {

nlohmann::json traceStepJson(const Program& prog, const TraceStep& s);
nlohmann::json checkJson(const CheckReport& r);
// {"version":1,"results":[...],"errors":[...]} over every file checked.
nlohmann::json resultsJson(const std::vector<FileReport>& files);

nlohmann::json sarifLog(const std::vector<FileReport>& files, const std::string& toolVersion);

// Human output: a verdict line per check and, for a violation, its trace with
// the source line of every step.
std::string textReport(const FileReport& f);

std::string boundsSentence(const CheckReport& r);  // "model TSO, unbounded buffers"

}  // namespace tsocheck

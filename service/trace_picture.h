// A picture of a violation's interleaving: one lane per thread, the steps in
// order down the page, each store's time in its store buffer (from the store
// to its flush), an arrow from each read to the write it read (red for a stale
// read) and the failing step marked. Drawn from the stepping payload
// (service/report_reader.h tracePayload), with each step's `label` as its
// text, as a self-contained HTML page (the CLI's --html, the editors' webview)
// and as monospace text lanes (Neovim).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_report.h"

namespace tsocheck {

// Where a read's value came from: a step of the trace (the flush, the store
// or the read-modify-write that wrote it), or the initial value (step 0).
struct ReadSource {
  uint32_t read = 0;    // the reading step
  uint32_t source = 0;  // the writing step; 0: the initial value
  bool stale = false;   // a stale read (the payload's "stale")
  uint32_t missed = 0;  // a stale read: the buffered store it did not see (0: unknown)
};
// Every read of a payload's violation trace (load-memory, load-buffer, rmw)
// with its source: a buffer read takes its thread's newest buffered store to
// the address; a memory read the last write that reached memory before it, or,
// when that wrote another value (RC11 may read an older write), the last
// earlier one with the value read.
std::vector<ReadSource> readSources(const nlohmann::json& payload);

// The page anchor of a check's section: "check-<file>-<function>" with every
// character outside [A-Za-z0-9_-] replaced by '-'.
std::string pictureAnchor(const std::string& file, const std::string& function);

// The HTML section of one check (its payload, tracePayload); "" when it has
// no violation trace.
std::string pictureSection(const nlohmann::json& payload);
// A whole page: a section per check with a violation, or a paragraph saying
// that none of `checks` has one. Inline CSS, SVG and script only (no network);
// a click on a step posts {step, file, line} to a VS Code webview's host.
std::string picturePage(const std::vector<const CheckReport*>& checks, const std::string& title);

// The same picture as monospace text lanes (text "" when there is no
// violation): a headline ("f under TSO"), the violation's summary (its
// "summary" lines, indented), the lane names, then a line per step. `steps` says
// which lines show a step: one {row, step, file, line, column} per step, `row`
// the 0-based line of `text`, file/line/column the step's source as the
// payload has them (an editor jumps there from that line).
struct PictureText {
  std::string text;
  nlohmann::json steps = nlohmann::json::array();
};
PictureText pictureText(const nlohmann::json& payload);

}  // namespace tsocheck

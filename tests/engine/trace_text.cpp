#include "tests/engine/trace_text.h"

#include "service/report_reader.h"

namespace tsocheck::testing {

std::string traceText(const Program& prog, const Violation& v) {
  std::string out;
  for (const TraceStep& s : v.trace) {
    const std::string label = stepLabel(s);
    out += "  " + label;
    if (!s.note.empty() && label.find(s.note) == std::string::npos) out += "  (" + s.note + ")";
    out += "  " + prog.locString(s.loc);
    if (const std::string b = buffersText(s); !b.empty()) out += "  buffers: " + b;
    out += "\n";
  }
  return out;
}

}  // namespace tsocheck::testing

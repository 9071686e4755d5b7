#include "cli/text_report.h"

#include <map>
#include <sstream>

#include "service/report_json.h"
#include "service/report_reader.h"
#include "service/safe_io.h"
#include "service/wording.h"

namespace tsocheck {

namespace {

// Source lines, read once per file.
class SourceCache {
 public:
  std::string line(const std::string& file, uint32_t n) {
    auto it = files_.find(file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      std::istringstream in(readSourceFile(file).value_or(""));
      for (std::string s; std::getline(in, s);) lines.push_back(s);
      it = files_.emplace(file, std::move(lines)).first;
    }
    if (n == 0 || n > it->second.size()) return "";
    std::string s = it->second[n - 1];
    size_t b = s.find_first_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b);
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

// One line per step: the report's label and buffers (service/report_reader.h),
// with the step's place and source line.
void writeInterleaving(std::ostream& os, const Program& prog, const std::vector<TraceStep>& trace, SourceCache& src) {
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceStep& s = trace[i];
    std::string head = "  " + stepLabel(s);
    size_t width = 0;  // characters, not bytes ("→", "·")
    for (unsigned char ch : head) width += (ch & 0xC0) != 0x80;
    if (width < 48) head.append(48 - width, ' ');
    const std::string file = fileOf(prog, s.loc);
    os << head << " " << file.substr(file.find_last_of('/') + 1) << ":" << s.loc.line << ":" << s.loc.column;
    std::string line = src.line(file, s.loc.line);
    if (!line.empty()) os << "  | " << line;
    if (const std::string note = stepNote(trace, i); !note.empty()) os << "   [" << note << "]";
    std::string b = buffersText(s);
    if (!b.empty()) os << "   buffers: " << b;
    os << "\n";
  }
}

// "fix: insert N fences" with one line per fence, or "fix: upgrade N memory
// orders" with one line per order argument, and the synthesis note.
void writeFences(std::ostream& os, const CheckReport& c) {
  const bool upgrades = !c.fences.empty() && c.fences.front().isUpgrade();
  if (upgrades) {
    os << "  fix: upgrade " << c.fences.size() << (c.fences.size() == 1 ? " memory order" : " memory orders") << ":\n";
    for (const FenceEdit& fe : c.fences)  // columns 1-based, as in the trace
      os << "    " << fe.access << " at " << fe.file.substr(fe.file.find_last_of('/') + 1) << ":" << fe.line << ":"
         << fe.column + 1 << "  " << fe.replaces << " -> " << fe.text << "\n";
  } else if (!c.fences.empty()) {
    os << "  fix: insert " << c.fences.size() << (c.fences.size() == 1 ? " fence" : " fences") << ":\n";
    for (const FenceEdit& fe : c.fences)
      os << "    after " << fe.file.substr(fe.file.find_last_of('/') + 1) << ":" << fe.line << ":" << fe.column << "  "
         << fe.text << "\n";
  }
  if (!c.fenceNote.empty()) os << "  " << c.fenceNote << "\n";
}

// The robustness verdict; a witness with its interleaving unless it is the
// violation's own execution (already shown).
void writeRobustness(std::ostream& os, const CheckReport& c, SourceCache& src) {
  if (!c.result.robustness) return;
  const RobustnessResult& rb = *c.result.robustness;
  os << "  " << rb.message << "\n";
  if (!rb.witness || !c.program) return;
  const Violation& w = *rb.witness;
  os << "  non-SC execution: " << w.message;
  if (rb.point == "stale read") os << "; first stale read at ";
  else if (rb.point == "reordered load") os << "; first load past its thread's own buffered store at ";
  else if (rb.point == "reordered flush") os << "; first store that reached memory before an older one at ";
  else os << "; first step at ";
  os << c.program->locString(w.loc) << "\n";
  if (rb.witnessIsViolation) {
    os << "  (the violation's interleaving above is such an execution)\n";
    return;
  }
  os << "  interleaving:\n";
  writeInterleaving(os, *c.program, w.trace, src);
}

}  // namespace

std::string checkVerdictText(const CheckReport& c) {
  std::ostringstream os;
  SourceCache src;
  const CheckResult& r = c.result;
  os << c.file << ":" << c.line << ": " << c.function << ": ";
  char ms[32];
  snprintf(ms, sizeof ms, "%.1f ms", r.elapsedMs);
  switch (r.status) {
    case Status::Verified: os << "verified"; break;
    case Status::Violation: os << "VIOLATION"; break;
    case Status::Bounded: os << "bounded"; break;
    case Status::Timeout: os << "timeout"; break;
    case Status::Error: os << "error"; break;
  }
  os << " under " << modelName(c.model);
  if (c.bufferBound) os << " (buffer bound " << *c.bufferBound << ")";
  if (c.preemptionBound) os << " (preemption bound " << *c.preemptionBound << ")";
  if (r.status != Status::Error)
    os << " — " << countText(r.executions, "execution")
       << (r.blocked ? ", " + std::to_string(r.blocked) + " blocked" : "")
       << (r.cut ? ", " + std::to_string(r.cut) + " cut" : "")
       << (r.boundBlocked ? ", " + std::to_string(r.boundBlocked) + " pruned by the preemption bound" : "") << ", "
       << ms;
  os << "\n";
  for (const frontend::Diagnostic& w : c.warnings)
    os << "  warning: " << w.message << " at " << w.file << ":" << w.line << ":" << w.column << "\n";
  if (r.status == Status::Error) {
    if (c.errorAt) os << "  " << frontend::formatDiagnostic(*c.errorAt) << "\n";
    else os << "  " << r.message << "\n";
    return os.str();
  }
  // The other kinds found (and warnings): one line each, their
  // interleavings are in --json / the editor.
  auto writeOthers = [&]() {
    for (const Violation& o : r.violations) {
      if (r.violation && o.kind == r.violation->kind && !o.warning) continue;
      os << "  " << (o.warning ? "warning: " : "also: ") << errorKindName(o.kind) << ": " << o.message << " at "
         << c.program->locString(o.loc) << "\n";
    }
  };
  if (r.status != Status::Violation) {
    os << "  " << r.message << "\n";
    if (c.program) writeOthers();
    for (const std::string& l : r.limitsHit) os << "  limit: " << l << "\n";
    writeRobustness(os, c, src);
    return os.str();
  }
  const Violation& v = *r.violation;
  const Program& prog = *c.program;
  for (const std::string& line : violationSummary(&prog, v)) os << "  " << line << "\n";
  writeOthers();
  if (!c.boundsNote.empty()) os << "  " << c.boundsNote << "\n";
  if (c.preemptionBound && v.aboveBound && r.boundDropped)
    os << "  above the preemption bound " << *c.preemptionBound << " (at least " << v.preemptions
       << (v.preemptions == 1 ? " preemption" : " preemptions")
       << "): the bound pruned nothing in its probe, so the search went on without it\n";
  else if (c.preemptionBound && v.aboveBound)
    os << "  above the preemption bound " << *c.preemptionBound << ": met only in a slack execution (at least "
       << v.preemptions << (v.preemptions == 1 ? " preemption)\n" : " preemptions)\n");
  else if (c.preemptionBound)
    os << "  found with preemption bound " << *c.preemptionBound
       << (c.bounds.preemptions ? "; no violation with ≤ " + std::to_string(*c.bounds.preemptions) + " preemptions"
                                : std::string())
       << "\n";
  os << "  interleaving:\n";
  writeInterleaving(os, prog, v.trace, src);
  writeRobustness(os, c, src);
  return os.str();
}

std::string checkFixText(const CheckReport& c) {
  if (c.result.status == Status::Error) return "";
  std::ostringstream os;
  writeFences(os, c);  // fences that fix the violation, or make a non-robust check robust
  return os.str();
}

std::string textReport(const FileReport& f) {
  std::ostringstream os;
  if (f.inputError) {
    for (const auto& d : f.diagnostics) os << frontend::formatDiagnostic(d) << "\n";
    os << "error: " << f.inputMessage << "\n";
    return os.str();
  }
  for (const CheckReport& c : f.checks) os << checkVerdictText(c) << checkFixText(c);
  return os.str();
}

}  // namespace tsocheck

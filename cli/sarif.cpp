#include "cli/sarif.h"

#include <filesystem>
#include <map>

#include "service/report_json.h"
#include "service/trace_picture.h"
#include "service/report_reader.h"

namespace tsocheck {

using nlohmann::json;

namespace {

// "model TSO, unbounded store buffers"
std::string boundsSentence(const CheckReport& r) {
  std::string s = std::string("model ") + modelName(r.model);
  s += r.bufferBound ? ", store buffers of at most " + std::to_string(*r.bufferBound) + " entries"
                     : (MemoryModel{r.model}.hasStoreBuffers() ? ", unbounded store buffers" : "");
  return s;
}

// SARIF fixes for synthesized fences: one fix inserting every fence, each as an
// empty region right after the statement's last character; or, under RC11,
// one fix replacing every upgraded order argument.
template <class Uri>
json sarifFixes(const CheckReport& c, const Uri& uri) {
  json fixes = json::array();
  if (c.fences.empty()) return fixes;
  std::map<std::string, json> byFile;
  for (const FenceEdit& f : c.fences) {
    // An order upgrade replaces the order argument; a fence is inserted (an empty region).
    const uint32_t endColumn = f.column + 1 + uint32_t(f.replaces.size());
    json at{{"startLine", f.line}, {"startColumn", f.column + 1}, {"endLine", f.line}, {"endColumn", endColumn}};
    byFile[f.file].push_back(
        {{"deletedRegion", at}, {"insertedContent", {{"text", f.isUpgrade() ? f.text : " " + f.text}}}});
  }
  json changes = json::array();
  for (auto& [file, reps] : byFile)
    changes.push_back({{"artifactLocation", {{"uri", uri(file)}}}, {"replacements", reps}});
  const size_t n = c.fences.size();
  const std::string what = c.fences.front().isUpgrade()
                               ? "upgrade " + std::to_string(n) + (n == 1 ? " memory order" : " memory orders")
                               : "insert " + std::to_string(n) + (n == 1 ? " fence" : " fences");
  fixes.push_back({{"description", {{"text", what + (c.fenceNote.empty() ? std::string() : " (" + c.fenceNote + ")")}}},
                   {"artifactChanges", changes}});
  return fixes;
}

}  // namespace

json sarifLog(const std::vector<FileReport>& files, const std::string& toolVersion, const std::string& pictureUri) {
  static const std::map<ErrorKind, std::pair<const char*, const char*>> rules = {
      {ErrorKind::Assertion, {"assertion", "An assertion can fail under the memory model"}},
      {ErrorKind::Deadlock, {"deadlock", "Every live thread can end up blocked on a mutex, a join or a condition variable"}},
      {ErrorKind::NonTermination, {"nontermination", "A thread can spin forever on values no other thread changes"}},
      {ErrorKind::Memory, {"memory-error", "An invalid memory access can happen"}},
      {ErrorKind::Arithmetic, {"arithmetic", "An arithmetic error (division by zero) can happen"}},
      {ErrorKind::Race, {"race", "Two threads can access a location, one of them writing, with nothing ordering them (a data race on a plain access)"}},
      {ErrorKind::DataRace, {"data-race", "A data race on a plain access, undefined behaviour by the C11 standard (RC11)"}},
  };
  json ruleList = json::array();
  for (const auto& [k, r] : rules)
    ruleList.push_back({{"id", r.first}, {"shortDescription", {{"text", r.second}}}});
  ruleList.push_back({{"id", "robustness"},
                      {"shortDescription", {{"text", "The memory model allows an execution that SC does not"}}}});
  auto uri = [](const std::string& f) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::relative(f, std::filesystem::current_path(), ec);
    std::string s = (ec || p.empty() || p.string().rfind("..", 0) == 0) ? f : p.string();
    return s;
  };
  json results = json::array();
  for (const FileReport& f : files)
    for (const CheckReport& c : f.checks) {
      if (!c.program) continue;
      const Program& prog = *c.program;
      // One result per violation and per robustness witness (a warning).
      auto addResult = [&](const Violation& v, const std::string& ruleId, const char* level, bool fixes) {
        auto location = [&](const SourceLoc& l, const std::string& text) {
          json loc{{"physicalLocation",
                    {{"artifactLocation", {{"uri", uri(fileOf(prog, l))}}},
                     {"region", {{"startLine", std::max<uint32_t>(l.line, 1)},
                                 {"startColumn", std::max<uint32_t>(l.column, 1)}}}}}};
          if (!text.empty()) loc["message"] = {{"text", text}};
          return loc;
        };
        // One threadFlow per thread; executionOrder orders steps across threads.
        std::map<uint32_t, json> perThread;
        for (size_t i = 0; i < v.trace.size(); ++i) {
          const TraceStep& s = v.trace[i];
          const std::string note = stepNote(v.trace, i);
          const std::string text = stepLabel(s) + (note.empty() ? "" : " [" + note + "]");
          json state = json::object();
          for (size_t t = 0; t < s.buffers.size(); ++t)
            if (!s.buffers[t].empty()) state["buffer T" + std::to_string(t)] = {{"text", bufferText(s.buffers[t])}};
          json loc{{"location", location(s.loc, text)}, {"executionOrder", s.step}};
          if (!state.empty()) loc["state"] = state;
          perThread[s.thread].push_back(loc);
        }
        json threadFlows = json::array();
        for (auto& [t, locs] : perThread)
          threadFlows.push_back({{"id", "T" + std::to_string(t)}, {"message", {{"text", "thread T" + std::to_string(t)}}},
                                 {"locations", locs}});
        std::string msg = v.message + " (" + c.function + ", " + boundsSentence(c) + ")";
        std::string fingerprint =
            c.function + ":" + ruleId + ":" + modelName(c.model) + ":" + std::to_string(v.loc.line);
        json result{{"ruleId", ruleId},
                    {"level", level},
                    {"message", {{"text", msg}}},
                    {"locations", json::array({location(v.loc, "")})},
                    {"codeFlows", json::array({{{"threadFlows", threadFlows}}})},
                    {"fixes", fixes ? sarifFixes(c, uri) : json::array()}};
        if (v.other) {  // a race: the other access
          result["relatedLocations"] = json::array(
              {location(v.other->loc, "the other access (T" + std::to_string(v.other->thread) + ")")});
          result["relatedLocations"][0]["id"] = 1;
          fingerprint += "." + std::to_string(v.loc.column) + ":" + std::to_string(v.other->loc.line) + "." +
                         std::to_string(v.other->loc.column);
        }
        result["partialFingerprints"] = {{"tsocheck/v1", fingerprint}};
        // The picture's link goes in the result's property bag: SARIF allows a
        // property bag on every object and GitHub code scanning accepts and
        // ignores it, while a relatedLocation or an attachment naming a file
        // outside the repository's sources is shown as a broken location.
        if (!pictureUri.empty() && c.result.violation)
          result["properties"] = {{"tsocheck/picture", pictureUri + "#" + pictureAnchor(c.file, c.function)}};
        results.push_back(std::move(result));
      };
      // One result per kind found; the fences fix the most severe error.
      for (const Violation& v : c.result.violations)
        addResult(v, rules.count(v.kind) ? rules.at(v.kind).first : "error", v.warning ? "warning" : "error",
                  c.result.violation && v.kind == c.result.violation->kind && !v.warning);
      if (c.result.robustness && c.result.robustness->witness && !c.result.robustness->witnessIsViolation)
        addResult(*c.result.robustness->witness, "robustness", "warning", false);
    }
  return json{{"version", "2.1.0"},
              {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"runs", json::array({{{"tool", {{"driver", {{"name", "tsocheck"},
                                                           {"version", toolVersion},
                                                           {"informationUri", "https://example.invalid/tsocheck"},
                                                           {"rules", ruleList}}}}},
                                     {"results", results}}})}};
}

}  // namespace tsocheck

#include "service/shard_merge.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>

#include "engine/memory_model.h"
#include "engine/work_sharing.h"
#include "service/check_runner.h"
#include "service/report_json.h"
#include "service/result_cache.h"
#include "service/wording.h"

namespace tsocheck {

using nlohmann::json;

namespace {

const json& results(const json& doc) {
  static const json none = json::array();
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) return none;
  return doc["results"];
}

std::string shardName(const CheckOptions::Shard& s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count);
}

// The shard's own JSON of each violation, by its place in the canonical order.
using OrderKey = std::pair<std::vector<uint32_t>, uint32_t>;
void collectViolations(const json& check, std::map<OrderKey, json>& byOrder) {
  auto take = [&](const json& v) {
    if (!v.is_object() || !v.contains("order")) return;
    const json& o = v["order"];
    OrderKey k;
    for (const json& x : o.value("start", json::array()))
      if (x.is_number_unsigned()) k.first.push_back(x.get<uint32_t>());
    k.second = o.value("index", 0u);
    json plain = v;
    plain.erase("order");
    byOrder.emplace(std::move(k), std::move(plain));
  };
  take(check.value("violation", json()));
  for (const json& v : check.value("violations", json::array())) take(v);
}

// Where each merged check's violation was found (none: no violation, or a
// check a shard could not run), in the order of the merged results.
using ViolationOrders = std::vector<std::optional<Violation::ShardOrder>>;

std::string mergeDocuments(const std::vector<std::pair<std::string, json>>& docs, json* out,
                           ViolationOrders* orders = nullptr);

// One check over every shard (docs in shard order); *order: where its
// violation was found.
json mergeCheck(const std::vector<const json*>& checks, std::optional<Violation::ShardOrder>* order) {
  std::vector<CheckReport> reps;
  for (const json* c : checks) reps.push_back(checkFromJson(*c));
  // A shard that could not run the check (a refusal, an input error) says why.
  for (size_t i = 0; i < reps.size(); ++i)
    if (reps[i].result.status == Status::Error || !reps[i].result.shard) {
      json j = *checks[i];
      j.erase("shard");
      j.erase("fingerprint");
      return j;
    }
  CheckReport base = reps[0];
  CheckOptions o;
  o.model = base.model;
  o.bufferBound = base.bufferBound.value_or(-1);
  o.preemptionBound = base.preemptionBound.value_or(-1);
  o.limits.nondetLo = base.nondetRange.first;
  o.limits.nondetHi = base.nondetRange.second;
  std::vector<CheckResult> parts;
  double elapsed = 0;
  for (const CheckReport& r : reps) {
    parts.push_back(r.result);
    elapsed = std::max(elapsed, r.result.elapsedMs);
  }
  base.result = mergeShards(parts, o);
  base.result.elapsedMs = elapsed;  // the longest shard's
  base.shard.reset();
  base.fingerprint.clear();
  std::map<OrderKey, json> byOrder;
  for (const json* c : checks) collectViolations(*c, byOrder);
  auto original = [&](const Violation& v) {
    auto it = v.shardOrder ? byOrder.find({v.shardOrder->start, v.shardOrder->index}) : byOrder.end();
    return it != byOrder.end() ? it->second : json(nullptr);
  };
  json j = checkJson(base);
  json all = json::array();
  for (const Violation& v : base.result.violations) all.push_back(original(v));
  j["violations"] = std::move(all);
  j["violation"] = base.result.violation ? original(*base.result.violation) : json(nullptr);
  if (base.result.violation) *order = base.result.violation->shardOrder;
  return j;
}

}  // namespace

json shardOptionsJson(const OptionValues& given) {
  json j = optionsJson(given);
  j.erase("jobs");
  return j;
}

std::string shardFingerprintSettings(const json& options, const CheckOptions::Shard& s) {
  json j = options;
  j["shardCount"] = s.count;
  j["shardDepth"] = s.depth;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void stampShard(FileReport& report, const OptionValues& given, const std::vector<std::string>& clangArgs,
                const CheckOptions::Shard& s, const std::string& version) {
  const json options = shardOptionsJson(given);
  const std::string settings = shardFingerprintSettings(options, s);
  for (CheckReport& c : report.checks) {
    c.shard = s;
    c.shardOptions = options.dump(-1, ' ', false, json::error_handler_t::replace);
    c.shardClangArgs = clangArgs;
    if (c.program) c.fingerprint = checkKey(c, *c.program, settings, version);
  }
}

std::string mergeShardReports(const std::vector<std::pair<std::string, json>>& docs, json* out) {
  // (A member of another type than the writer's makes nlohmann's accessors throw.)
  try {
    return mergeDocuments(docs, out);
  } catch (const std::exception& e) {
    return std::string("a shard report is not what tsocheck check --json writes: ") + e.what();
  }
}

namespace {

std::string mergeDocuments(const std::vector<std::pair<std::string, json>>& docs, json* out, ViolationOrders* orders) {
  if (docs.empty()) return "no shard reports to merge";
  // Each document's shard (its checks all carry the same one).
  std::vector<CheckOptions::Shard> shard(docs.size());
  for (size_t d = 0; d < docs.size(); ++d) {
    const json& rs = results(docs[d].second);
    if (rs.empty() || !rs[0].is_object() || !rs[0].contains("shard"))
      return docs[d].first + ": not the JSON report of a shard (tsocheck check --shard INDEX/COUNT --json)";
    const CheckReport r = checkFromJson(rs[0]);
    shard[d] = *r.shard;
    if (shard[d].count == 0 || shard[d].index >= shard[d].count)
      return docs[d].first + ": shard " + shardName(shard[d]) + " is no shard of a split check";
  }
  const uint32_t count = shard[0].count;
  std::vector<int> byIndex(count, -1);
  for (size_t d = 0; d < docs.size(); ++d) {
    if (shard[d].count != count)
      return "the shards split the check differently: " + docs[0].first + " is shard " + shardName(shard[0]) +
             ", " + docs[d].first + " is shard " + shardName(shard[d]);
    if (shard[d].depth != shard[0].depth)
      return "the shards cut the search at different depths: " + docs[0].first + " at " +
             std::to_string(shard[0].depth) + ", " + docs[d].first + " at " + std::to_string(shard[d].depth);
    int& seen = byIndex[shard[d].index];
    if (seen >= 0)
      return "shard " + shardName(shard[d]) + " is given twice: " + docs[size_t(seen)].first + " and " +
             docs[d].first;
    seen = int(d);
  }
  std::string missing;
  for (uint32_t i = 0; i < count; ++i)
    if (byIndex[i] < 0) missing += (missing.empty() ? "" : ", ") + shardName({i, count, 0});
  if (!missing.empty()) return "shard " + missing + (missing.find(',') == std::string::npos ? " is" : " are") + " missing";
  // The same checks, of the same program and options, in every shard.
  const json& first = results(docs[size_t(byIndex[0])].second);
  json merged = json::array();
  for (size_t c = 0; c < first.size(); ++c) {
    std::vector<const json*> checks;
    for (uint32_t i = 0; i < count; ++i) {
      const auto& [name, doc] = docs[size_t(byIndex[i])];
      const json& rs = results(doc);
      if (rs.size() != first.size() || !rs[c].is_object())
        return docs[size_t(byIndex[0])].first + " and " + name + " hold different checks";
      const json& a = first[c];
      const json& b = rs[c];
      if (a.value("file", "") != b.value("file", "") || a.value("function", "") != b.value("function", ""))
        return docs[size_t(byIndex[0])].first + " and " + name + " hold different checks (" + a.value("function", "") +
               ", " + b.value("function", "") + ")";
      if (a.value("fingerprint", "") != b.value("fingerprint", ""))
        return docs[size_t(byIndex[0])].first + " and " + name + " checked " + a.value("function", "") +
               " of different programs, options or tool versions (their fingerprints differ)";
      checks.push_back(&b);
    }
    std::optional<Violation::ShardOrder> order;
    merged.push_back(mergeCheck(checks, &order));
    if (orders) orders->push_back(std::move(order));
  }
  const json& doc0 = docs[size_t(byIndex[0])].second;
  *out = json{{"version", 1}, {"results", merged}, {"errors", doc0.value("errors", json::array())}};
  return "";
}

}  // namespace

namespace {

std::string pathText(const std::vector<uint32_t>& p) {
  std::string t;
  for (uint32_t x : p) t += (t.empty() ? "" : ".") + std::to_string(x);
  return t;
}

// The options a shard recorded, as values to run with ("" or why not).
std::string recordedOptions(const json& options, OptionValues* given) {
  if (!options.is_object()) return "the shard report does not record its options";
  for (const auto& [key, value] : options.items()) {
    const OptionSpec* o = findOption(Door::Launch, key);
    if (!o) return "the shard report records an option this tsocheck does not know: " + key;
    if (std::string e = setOption(*o, Door::Launch, value, *given); !e.empty()) return e;
  }
  return "";
}

}  // namespace

std::string fixMergedReport(const std::vector<std::pair<std::string, json>>& docs, json* merged,
                            const OptionValues& overrides, const std::string& version,
                            const std::function<void(const std::string&)>& say) {
  json again;
  ViolationOrders orders;
  try {
    if (std::string refused = mergeDocuments(docs, &again, &orders); !refused.empty()) return refused;
  } catch (const std::exception& e) {
    return std::string("a shard report is not what tsocheck check --json writes: ") + e.what();
  }
  json& results = (*merged)["results"];
  if (!results.is_array() || results.size() != orders.size()) return "the merged report is not the shards' merge";
  // The shard block of the first shard's checks: the split and how it ran.
  const json& first = docs.front().second["results"];
  for (size_t c = 0; c < results.size(); ++c) {
    json& check = results[c];
    const CheckReport merged1 = checkFromJson(check);
    const MemoryModel mm{merged1.model};
    if (merged1.result.status != Status::Violation || !orders[c] || !(mm.hasStoreBuffers() || mm.usesC11Orders()))
      continue;
    const json& shardCheck = first[c];
    const CheckReport shardRep = checkFromJson(shardCheck);
    if (!shardRep.shard) return merged1.function + ": the shard report does not say how it was split";
    const json options = shardCheck["shard"].value("options", json());
    OptionValues given;
    if (std::string why = recordedOptions(options, &given); !why.empty()) return merged1.function + ": " + why;
    const std::string where = merged1.file + ": " + merged1.function;
    if (given.fences == false) {
      say(where + ": the shards ran with --no-fences: no fix");
      continue;
    }
    RunOptions opts;
    applyOptions(given, opts);
    applyOptions(overrides, opts);
    opts.extraClangArgs = shardRep.shardClangArgs;
    opts.keepGoing = false;  // the first counterexample is all the synthesis needs
    const std::vector<uint32_t> piece = shardPieceOf(*orders[c], shardRep.shard->depth);
    opts.shard = {0, shardRep.shard->count, shardRep.shard->depth, piece};
    const std::string settings = shardFingerprintSettings(options, *shardRep.shard);
    const std::string fingerprint = shardCheck.value("fingerprint", "");
    bool seen = false, changed = false;
    opts.reuse = [&](const CheckReport& rep, const Program& prog) {
      if (rep.function != merged1.function) return true;  // another check of the file
      seen = true;
      changed = checkKey(rep, prog, settings, version) != fingerprint;
      return changed;
    };
    const auto t0 = std::chrono::steady_clock::now();
    FileReport fr = runFile(merged1.file, opts);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (fr.inputError) return where + ": cannot be lowered again: " + fr.inputMessage;
    if (!seen) return where + ": the file no longer has this check";
    if (changed)
      return where + ": the program, its options or this tsocheck are not those the shards ran (the fingerprint "
                     "differs); run the shards again";
    auto it = std::find_if(fr.checks.begin(), fr.checks.end(),
                           [&](const CheckReport& r) { return r.function == merged1.function; });
    if (it == fr.checks.end()) return where + ": the file no longer has this check";
    const CheckReport& local = *it;
    if (local.result.status != Status::Violation || !local.result.violation)
      return where + ": the counterexample was not found again in its piece (" + local.result.message + ")";
    const json fixed = checkJson(local);
    for (const char* key : {"fences", "fence_note", "fences_verified", "fence_synthesis"}) check[key] = fixed[key];
    const std::string cost = countText(local.result.executions, "execution") + ", " + durationText(seconds * 1000);
    const bool same = merged1.result.violation && sameError(*merged1.result.violation, *local.result.violation);
    say(where + ": counterexample found again " +
        (piece.empty() ? std::string("above the cut") : "in piece " + pathText(piece)) + " (" + cost + ")" +
        (same ? "" : ", another error than the merged one") +
        "; the fenced programs were re-checked here, each over the whole search");
  }
  return "";
}

}  // namespace tsocheck

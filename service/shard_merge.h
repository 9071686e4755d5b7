// `tsocheck merge`: the reports of the shards of a split check (each the
// JSON `tsocheck check --shard INDEX/COUNT --json` printed) made into the
// report one run of the whole check prints.
//
// The shards must fit together, or the merge is refused with the reason:
// one shard of every index 0..COUNT-1, each once, the same count and cut
// depth, and for every check the same fingerprint (result_cache.h checkKey:
// the program, the options that change the answer, the tool version). Each
// check is merged by engine/work_sharing.h mergeShards (counts, the verdict,
// the first violation of each kind in the canonical order, limits); its
// violations are the shard's own JSON, so the counterexample is the one a
// single run reports. A check that a shard could not run (an error) is
// reported as that shard gave it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_options.h"

namespace tsocheck {

// docs: (name for messages, parsed document) per shard. "" and *out set, or
// the reason the shards do not fit together (*out untouched).
// What besides the program goes into a shard's fingerprint: the options
// given (all but --jobs, which changes no answer) and the split.
std::string shardFingerprintSettings(const OptionValues& given, const CheckOptions::Shard& s);

std::string mergeShardReports(const std::vector<std::pair<std::string, nlohmann::json>>& docs, nlohmann::json* out);

}  // namespace tsocheck

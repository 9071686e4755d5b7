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

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/check_options.h"
#include "service/check_report.h"

namespace tsocheck {

// What besides the program goes into a shard's fingerprint: the options
// given (optionsJson, without --jobs, which changes no answer) and the split.
nlohmann::json shardOptionsJson(const OptionValues& given);
std::string shardFingerprintSettings(const nlohmann::json& options, const CheckOptions::Shard& s);

// Marks every check of a shard's report (tsocheck check --shard): its shard,
// how it was run (the options given and the Clang arguments) and its
// fingerprint (result_cache.h checkKey with shardFingerprintSettings and the
// tool version), which every shard of the same check shares.
void stampShard(FileReport& report, const OptionValues& given, const std::vector<std::string>& clangArgs,
                const CheckOptions::Shard& s, const std::string& version);

// docs: (name for messages, parsed document) per shard. "" and *out set, or
// the reason the shards do not fit together (*out untouched).
std::string mergeShardReports(const std::vector<std::pair<std::string, nlohmann::json>>& docs, nlohmann::json* out);

// `tsocheck merge --fix`: the fix of every merged check that failed under a
// model with one (fences under TSO/PSO, memory-order upgrades under RC11),
// added to *merged (fences, fence_note, fences_verified, fence_synthesis, as
// `tsocheck check` gives them).
//  * The counterexample is found again here, by a search of the top of the
//    tree and the one piece the merged violation came from
//    (CheckOptions::Shard::only): the single run's counterexample, at the
//    cost of one piece.
//  * The program must still be the shards': the check is lowered again from
//    the file with the options the shards recorded, and its fingerprint must
//    be theirs, or the fix is refused (the file or the tool changed).
//  * The synthesis then runs here as after `tsocheck check`: its re-checks
//    of fenced programs are whole searches on this machine, within the
//    fence time limit (overrides.fenceTimeLimit, else the shards').
// `say` gets one line per check fixed (where the counterexample was found
// again, its cost). "" or why the fix could not be made (*merged then holds
// what was done before).
std::string fixMergedReport(const std::vector<std::pair<std::string, nlohmann::json>>& docs, nlohmann::json* merged,
                            const OptionValues& overrides, const std::string& version,
                            const std::function<void(const std::string&)>& say);

}  // namespace tsocheck

#pragma once
// The tuner's prior: what other GPUs (and earlier versions of the kernel) measured for a
// key, or this GPU for the nearest other key, from the DB files at hand (the build's own
// DB directory and DB_DIRS), as configs of this space, fastest first. The search measures
// the first few right after the DEFAULT (StrategyContext::prior) and never breeds or climbs
// from them; `genetic` weighs the whole ranking in its model as far as the results here
// bear it out.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/db_tables.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/key.hpp"
#include "ktune/manifest.hpp"

namespace ktune {

struct TunePrior {
  std::vector<std::size_t> configs;  // indices of the space, fastest first
  std::string from;                  // "NVIDIA A100-SXM4-80GB at key M=1024,N=1024": what it came from
};

// The DBs of kernel `m` in `dirs` but the file `skip` (the tuner's own DB, which it reads
// from memory); unreadable files are skipped (the tuner warns about its own DB elsewhere).
std::vector<DbTables> prior_documents(const Manifest& m, const std::vector<std::filesystem::path>& dirs,
                                      const std::filesystem::path& skip = {});

// The fastest timed configs of the most alike (fingerprint, key) in `docs`: the least sum
// of GPU unlikeness (another architecture 10, another minor version 1, plus |log| of the
// SM counts' ratio; 0 for `self`) and key distance (sum over dimensions of |log ratio|).
// `self`'s measurements of `key` itself are not a prior; its other keys are. Entries whose
// values are not a config of `m` are skipped. Empty when there is nothing to start from.
TunePrior tune_prior(const Manifest& m, const std::vector<DbTables>& docs, const Fingerprint& self, const Key& key);

}  // namespace ktune

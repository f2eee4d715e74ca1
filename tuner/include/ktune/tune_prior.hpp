#pragma once
// The tuner's prior: what other GPUs (and earlier versions of the kernel) measured for a
// key, from the DB files at hand (the build's own DB directory and DB_DIRS), as configs of
// this space, fastest first. The search measures the first few right after the DEFAULT
// (StrategyContext::prior) and never searches from them, so a prior that misleads costs only
// its share of the budget.
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

// The DBs of kernel `m` in `dirs`, read once for all keys; unreadable files are skipped
// (the tuner warns about its own DB elsewhere).
std::vector<DbTables> prior_documents(const Manifest& m, const std::vector<std::filesystem::path>& dirs);

// The fastest timed configs of the most alike other fingerprint in `docs` (same
// architecture first, then the nearest SM count) at `key`, or at its nearest key (log
// distance) when that fingerprint lacks it. Measurements of `self` are not a prior.
// Entries whose values are not a config of `m` are skipped. Empty when there is nothing
// to start from.
TunePrior tune_prior(const Manifest& m, const std::vector<DbTables>& docs, const Fingerprint& self, const Key& key);

}  // namespace ktune

#pragma once
// The bake step's first half: from a kernel's manifest and tuning DBs, the tables of best
// configs per GPU model and key. emit_bake.hpp turns them into C++. Nothing read from a DB
// is trusted: files of other kernels, damaged values and configs outside the space are
// warned about and left out.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"

namespace ktune {

struct BakeEntry {
  std::vector<int64_t> key;  // in key_dims order
  std::string config_id;
  double best_ms = 0;
};

struct BakeTable {
  GpuIdentity gpu;
  std::string arch;    // the listed architecture (compile.archs) whose cubins its GPU runs
  std::string source;  // the DB file the table came from
  std::vector<BakeEntry> entries;
  std::string common_best;  // config id best across the keys (geometric mean of slowdowns)
};

struct BakePlan {
  std::string kernel;
  std::vector<std::string> key_dims;  // from KEYS, in declared order
  std::vector<BakeTable> tables;      // one per GPU model
  std::vector<std::string> warnings;  // entries skipped, stale fingerprints, ...
  std::string note;                   // one line: what the bake used

  nlohmann::json to_json() const;
};

// Reads every *.json DB in `db_dirs` (earlier directories win for a GPU model: the build's
// own tuning before shipped DBs) and keeps, per GPU model, the measurements of the current
// kernel (fingerprint's kernel_hash) whose configs compiled (`compiled`). Files that are not
// DBs of this kernel are reported in warnings and skipped, never trusted.
BakePlan plan_bake(const Manifest& m, const std::string& kernel_hash, const std::vector<std::filesystem::path>& db_dirs,
                   const std::set<std::string>& compiled);
// The same, with `compiled` as a test of a config id.
BakePlan plan_bake_if(const Manifest& m, const std::string& kernel_hash,
                      const std::vector<std::filesystem::path>& db_dirs,
                      const std::function<bool(const std::string& id)>& compiled);

// A build for several architectures (compile.archs): a GPU model's table is kept when one of
// them runs on it (cuda_arch.hpp's cubin_arch_for) and its fingerprint has the kernel's hash
// for that architecture; its winners are those whose cubin for it compiled. Tables that no
// listed architecture serves (or of an unknown compute capability) are warned about: no GPU
// could choose them.
struct BakeArch {
  std::string kernel_hash;                              // kernel_hash(manifest, arch)
  std::function<bool(const std::string& id)> compiled;  // its cubin for this arch is ok
};
BakePlan plan_bake_archs(const Manifest& m, const std::map<std::string, BakeArch>& archs,
                         const std::vector<std::filesystem::path>& db_dirs);

}  // namespace ktune

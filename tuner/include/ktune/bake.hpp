#pragma once
// The bake step: from a kernel's manifest and tuning DBs, the tables of best configs per GPU
// model and key (plan_bake), then the generated C++ that carries them and the winners'
// cubins into the user's binary (emit_bake). Every value that reaches the C++ text is
// validated or escaped: a hostile DB or manifest cannot inject code.
#include <cstdint>
#include <filesystem>
#include <functional>
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
  std::string source;        // the DB file the table came from
  std::vector<BakeEntry> entries;
  std::string common_best;   // config id best across the keys (geometric mean of slowdowns)
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
BakePlan plan_bake(const Manifest& m, const std::string& kernel_hash,
                   const std::vector<std::filesystem::path>& db_dirs,
                   const std::set<std::string>& compiled);
// The same, with `compiled` as a test of a config id.
BakePlan plan_bake_if(const Manifest& m, const std::string& kernel_hash,
                   const std::vector<std::filesystem::path>& db_dirs,
                   const std::function<bool(const std::string& id)>& compiled);

struct BakeSources {
  std::string header;  // ktune_<kernel>.hpp: Config and Key structs, dispatcher()
  std::string source;  // ktune_<kernel>_baked.cpp: the data
};

// `cubin_dir`: where <id>.cubin files are; `default_ptx`: the DEFAULT config's PTX text
// (may be empty). Throws Error naming the value when a name is not a C++ identifier.
BakeSources emit_bake(const BakePlan& plan, const Manifest& m,
                      const std::filesystem::path& cubin_dir, const std::string& default_ptx);

// A C++ string literal of `s`: printable ASCII kept, everything else as octal escapes.
std::string cpp_string_literal(const std::string& s);

}  // namespace ktune

#pragma once
// The bake's plan with its winners compiled: a kernel compiled on demand, or for more
// architectures than the one the build tuned, has not built every config a DB may name.
#include <filesystem>
#include <string>
#include <vector>

#include "ktune/manifest.hpp"
#include "ktune/plan_bake.hpp"

namespace ktune {

// Plans the bake of the kernel whose manifest is at `manifest_path` from `db_dirs` (earlier
// ones win for a GPU model), compiling in `jobs` parallel nvcc processes what the plan needs:
// each other listed architecture's DEFAULT, and each table's winners not built yet. A winner
// that fails to compile drops out and the next best takes its place. Throws Error when the
// DEFAULT did not compile (for the build's architecture, or for another listed one).
BakePlan plan_bake_compiling_winners(const Manifest& m, const std::string& manifest_path,
                                     const std::vector<std::filesystem::path>& db_dirs, unsigned jobs);

}  // namespace ktune

#pragma once
// The build's other tune steps, for a progress line that spans the whole build: which of
// them are still to run and how much they will measure. Configure writes the list (one
// kernel directory a line, _ktune/tune_steps.txt) and, per kernel, what its search plans
// (tune_plan.json, from `ktune plan`); the tune step that runs reads both.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

// What one kernel's tune step will measure.
struct TunePlan {
  std::size_t keys = 0;
  std::size_t evaluations_per_key = 0;    // the budget, or the whole space without one
  std::optional<double> seconds_per_key;  // a time budget, when there is one
};

struct BuildTunes {
  std::size_t position = 0;     // this kernel's place among the build's tune steps, from 1; 0: unknown
  std::size_t total = 0;        // tune steps in the build
  std::vector<TunePlan> later;  // the others still to run (their tune.json older than their inputs)
};

// `tune_plan.json` as `ktune plan` writes it, and reads it back (throws Error).
std::string tune_plan_json(const TunePlan& p);
TunePlan read_tune_plan(const std::filesystem::path& file);

// The build's tune steps seen from `own_dir` (this kernel's directory). A step is still to
// run when its tune.json is missing or older than its manifest, cubins summary or plan (as
// Ninja decides). Best effort: an unreadable list or plan leaves that part out; never throws.
BuildTunes read_build_tunes(const std::filesystem::path& list, const std::filesystem::path& own_dir);

}  // namespace ktune

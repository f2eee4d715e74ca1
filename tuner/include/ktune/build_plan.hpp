#pragma once
// Configure-time planning of one kernel: parse and check what ktune_add_kernel() was
// given, enumerate the space, and describe one cubin build per valid config.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ktune/compile_record.hpp"
#include "ktune/manifest.hpp"
#include "ktune/space.hpp"
#include "ktune/search_choice.hpp"

namespace ktune {

struct PlanRequest {
  std::string kernel;
  std::string source;
  std::vector<std::string> params;       // PARAMS texts
  std::vector<std::string> constraints;  // WHERE texts
  std::string default_text;              // DEFAULT text, "" when not given
  std::vector<std::string> keys;         // KEYS texts
  std::string entry;                     // ENTRY; "" means the kernel name
  // The most configs compiled and measured whole: a larger space is compiled on demand and,
  // with no STRATEGY or BUDGET, searched by the default strategy within a default budget.
  uint64_t max_configs = 10000;
  // The search (when the kernel is tuned): STRATEGY ("" when not given), BUDGET's count or
  // share ("" when none) and seconds.
  bool tuned = false;
  std::string strategy, budget;
  std::optional<double> seconds;
  // The enumeration gives up after visiting this many points (KTUNE_MAX_POINTS): a huge
  // product whose constraints bind late would otherwise hold the configure for hours.
  uint64_t max_points = 1'000'000'000;
  // Spaces with more valid configs are compiled on demand (Manifest::on_demand).
  uint64_t eager_limit = std::numeric_limits<uint64_t>::max();
  CompileSettings compile;
  std::optional<std::string> ptx_arch;  // "": no PTX; unset: compile.arch
};

struct Plan {
  Manifest manifest;
  std::vector<uint64_t> rejected_by;  // points each constraint removed
  bool default_chosen = false;        // DEFAULT was not given: the first valid config
  SearchChoice search;                // when tuned: what the tuner will run, and why
};

// Throws Error whose message starts with the argument at fault (PARAMS, WHERE, DEFAULT,
// MAX_CONFIGS, KEYS) and says how to fix it.
Plan make_plan(const PlanRequest& request);

// A product of parameter value counts in a message: "1,000,000" or, saturated, "more than
// 18,446,744,073,709,551,614".
std::string points_text(uint64_t product);

// Why a space with more than kMaxValidConfigs valid configs is refused, for an error message.
std::string too_many_valid_text(uint64_t product);

// Why an enumeration gave up after `max_points` visits (Enumeration::gave_up): the product,
// and the constraint that binds latest, for an error message.
std::string gave_up_text(const Space& space, uint64_t max_points);

// The nvcc flags that a config's values imply besides its -D macros: a parameter named
// `maxnreg` also caps registers (-maxrregcount).
std::vector<std::string> hint_flags(const std::vector<Parameter>& params, const std::vector<int64_t>& values);

// What compiling one config to dir/cubins/<id>.cubin takes: nvcc (after the launcher, if
// any) with the config's -D macros and hint flags, its record, log and depfile under `dir`.
// Throws Error for an argument with a newline.
CompileJob compile_job(const Manifest& m, const ManifestConfig& c, const std::filesystem::path& dir);

// The command that compiles one config to dir/cubins/<id>.cubin: `tool compile` (the
// wrapper that records failures) around nvcc with the config's -D macros and hint flags,
// its record, log and depfile under `dir` too. Throws Error for an argument with a newline.
std::vector<std::string> cubin_command(const Manifest& m, const ManifestConfig& c, const std::filesystem::path& dir,
                                       const std::string& tool);

// The command that compiles the DEFAULT config to dir/default.ptx (depfile
// dir/deps/default_ptx.d): what runs, through the driver's JIT, where no cubin can.
std::vector<std::string> default_ptx_command(const Manifest& m, const std::filesystem::path& dir);

// The hint for a constraint that failed to evaluate: "; guard the division, ..." when it
// divided by zero (the one failure a constraint can mend itself), else nothing.
std::string division_hint(const std::string& what);

// The CMake include file read by ktune_add_kernel(): the DEFAULT's id and PTX command,
// whether the space is built on demand, and one _ktune_cubin() line per config of an eager
// space, for the DEFAULT alone of an on-demand one (the edge itself is in
// cmake/ktune.cmake). Data only.
std::string cmake_edges(const Manifest& m, const std::filesystem::path& dir, const std::string& tool);

}  // namespace ktune

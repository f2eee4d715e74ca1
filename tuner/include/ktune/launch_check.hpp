#pragma once
// The launch template checked on the host, at build time, where no GPU runs it: the
// harness is run for each key without touching a GPU (no values made, no reference
// computed), and the template evaluated for the DEFAULT and every config the bake chose.
// A misspelt parameter or key dimension, an impossible grid or block, or arguments that do
// not match the kernel's parameters then fail the build everywhere, CI included.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ktune/harness.hpp"
#include "ktune/launch.hpp"

namespace ktune {

// The sizes in bytes of the parameters of kernel `entry` as PTX declares them, in order;
// nullopt when the PTX declares no such entry.
std::optional<std::vector<std::size_t>> ptx_param_sizes(std::string_view ptx, std::string_view entry);

// What is wrong with one launch: grid and block against CUDA's limits, dynamic shared
// memory against the most any GPU allows, and, given the kernel's parameter sizes, the
// arguments' count and sizes. Empty when nothing is.
std::vector<std::string> launch_problems(const Launch& launch, const std::optional<std::vector<std::size_t>>& params);

struct LaunchCheckRequest {
  std::string manifest;
  std::string bake_json;  // the bake's bake.json: the configs it chose per key; optional
  std::string ptx;        // PTX of the kernel (the DEFAULT's), for its parameters; optional
};

// Runs `harness` on the host for each key (the manifest's KEYS and the baked tables') and
// evaluates its launch template for the DEFAULT, each table's common best and each key's
// baked config. Returns a one-line summary; throws Error listing the problems found.
std::string check_launches(const LaunchCheckRequest& r, void (*harness)(Harness&));

}  // namespace ktune

#pragma once
// Configure-time planning of one kernel: parse and check what ktune_add_kernel() was
// given, enumerate the space, and describe one cubin build per valid config.
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/manifest.hpp"

namespace ktune {

struct PlanRequest {
  std::string kernel;
  std::string source;
  std::vector<std::string> params;       // PARAMS texts
  std::vector<std::string> constraints;  // WHERE texts
  std::string default_text;              // DEFAULT text, "" when not given
  std::vector<std::string> keys;         // KEYS texts
  std::string entry;                     // ENTRY; "" means the kernel name
  uint64_t max_configs = 10000;
  CompileSettings compile;
};

struct Plan {
  Manifest manifest;
  std::vector<uint64_t> rejected_by;  // points each constraint removed
  bool default_chosen = false;        // DEFAULT was not given: the first valid config
};

// Throws Error whose message starts with the argument at fault (PARAMS, WHERE, DEFAULT,
// MAX_CONFIGS, KEYS) and says how to fix it.
Plan make_plan(const PlanRequest& request);

// The nvcc flags that a config's values imply besides its -D macros: a parameter named
// `maxnreg` also caps registers (-maxrregcount).
std::vector<std::string> hint_flags(const std::vector<Parameter>& params,
                                    const std::vector<int64_t>& values);

// The CMake include file that declares one cubin edge per config: data lines calling
// _ktune_cubin() from cmake/ktune.cmake.
std::string cmake_edges(const Manifest& manifest);

}  // namespace ktune

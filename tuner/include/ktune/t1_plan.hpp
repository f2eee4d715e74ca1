#pragma once
// Preparing a T1 spec for tuning (`ktune tune --t1`): read and check the whole spec, find
// the kernel file, and write what the tune needs under the output directory:
//   kernel/<KernelName>.t1.cu  the kernel as Kernel Tuner compiles it (inside extern "C",
//                              loop_unroll_factor* parameters as constexpr int)
//   kernel/manifest.json       the space, and Kernel Tuner's macros besides the parameters
//   t1_run.json                what the generic harness reads (KTUNE_T1_RUN)
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/key.hpp"
#include "ktune/manifest.hpp"
#include "ktune/t1_kernel.hpp"

namespace ktune {

struct T1PlanRequest {
  std::filesystem::path spec;                       // the T1 file
  std::string source;                               // --source; empty: the spec's KernelFile
  std::filesystem::path out;                        // the output directory
  std::vector<std::vector<int64_t>> problem_sizes;  // --problem-size; empty: the spec's ProblemSize
  CompileSettings compile;                          // nvcc and arch; flags follow CompilerOptions
  std::string tool;                                 // the `ktune` the compile edges run
  std::optional<double> atol, rtol;                 // output tolerance; default: by element type
  std::string save_arguments;                       // where the harness writes the arrays; "": nowhere
  uint64_t max_points = 1'000'000'000;              // the enumeration gives up after visiting this many
};

struct T1Plan {
  SpaceSpec space;
  T1Kernel kernel;
  Manifest manifest;
  std::filesystem::path kernel_dir, manifest_path, run_file, db_dir;
  std::string source;  // the kernel file, absolute
  std::vector<std::vector<int64_t>> problem_sizes;
  std::vector<Key> keys;           // one per problem size: X, Y, Z
  bool default_from_spec = false;  // else: the first valid config
  // The config whose outputs every other is checked against: the Default's values (which
  // may lie outside the space), else the first valid config, and why.
  std::vector<int64_t> reference;
  std::string reference_why;    // why not the Default; empty when it is
  std::string default_outside;  // why the Default is not a config of the space; empty when it is
  bool grid_macros = false;     // the kernel names grid_size_*: defined
};

// Throws Error naming the spec (or the kernel file), the field and the fix.
T1Plan plan_t1(const T1PlanRequest& request);

// A problem size as a key, {"X": 4096, "Y": 4096}, and back (throws Error for a key
// whose dimensions are not X, X Y or X Y Z).
Key t1_key(std::span<const int64_t> problem_size);
std::vector<int64_t> t1_problem_size(const Key& key);

// {X: 1024, Y: 512} -> "1024x512": the problem size in file names.
std::string t1_size_text(const Key& key);

// "4096,4096" -> {4096, 4096}: 1 to 3 positive integers. Throws Error naming `what`.
std::vector<int64_t> parse_problem_size(const std::string& text, const std::string& what);

// What the generic harness of ktune-t1-tuner reads, from the file the environment
// variable KTUNE_T1_RUN names.
struct T1Run {
  std::string spec;      // the T1 file
  std::string manifest;  // the kernel's manifest: parameters, the Default config and its cubin
  std::optional<double> atol, rtol;
  // Where the harness writes, for each problem size, every array as it starts
  // (<dir>/<size>/<Name>.bin) and each output as the Default config leaves it
  // (<Name>.expected.bin), raw in the element type: to check the reference every config
  // is compared with against one's own. Empty: nowhere.
  std::string save_arguments;
  // The values of the config whose outputs are the expected ones (the Default's, or the
  // first valid config's); its cubin is cubins/<id>.cubin beside the manifest. When empty,
  // or when that config does not run, the manifest's DEFAULT.
  std::vector<int64_t> reference;

  nlohmann::json to_json() const;
  static T1Run from_json(const nlohmann::json& doc, const std::string& origin);
};
inline constexpr const char* kT1RunVariable = "KTUNE_T1_RUN";

}  // namespace ktune

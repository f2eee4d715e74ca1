#pragma once
// The KernelSpecification of a T1 tuning spec (Kernel Tuner's benchmark_hub input format):
// which kernel to compile and how, the problem size, how Kernel Tuner derives each
// config's block and grid, and the arguments a generic harness makes. Read and checked
// whole before anything is compiled: every field ktune does not support is an error that
// names the file, the field and the fix (docs/t1.md). The search space itself is read by
// read_t1_spec() (t1_spec.hpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/expression.hpp"
#include "ktune/space_spec.hpp"

namespace ktune {

// The element types ktune's generic harness can hold (the T1 schema's scalar types).
enum class T1Type { Bool, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Half, Float, Double };

const char* to_string(T1Type t);
std::size_t size_of(T1Type t);
bool is_floating(T1Type t);

struct T1Argument {
  std::string name;  // "Name"; "argument <i>" when the spec gives none
  T1Type type = T1Type::Float;
  bool vector = true;  // MemoryType "Vector": a device buffer; "Scalar": by value
  std::string size;    // Vector: "Size", an expression of ProblemSize and max()/min() of parameters
  enum class Fill { Constant, Random };
  Fill fill = Fill::Constant;
  double value = 0;       // FillValue: every element of a Constant vector; a scalar's value
  uint64_t seed = 0;      // RandomSeed; default: the argument's position + 1
  bool output = false;    // compared with the Default config's output
  bool constant = false;  // MemType "Constant": also copied to the __constant__ variable `name`
};

struct T1Kernel {
  std::string kernel_name;  // KernelName: the kernel function (Kernel Tuner wraps sources in extern "C")
  std::string kernel_file;  // KernelFile as written; "" when absent
  std::vector<std::string> compiler_options;  // CompilerOptions: nvcc flags for every config
  std::vector<int64_t> problem_size;          // ProblemSize, 1 to 3 positive integers; empty when absent
  // GridDivX/Y/Z: expressions whose product divides the problem size. nullopt (absent or
  // empty, as Kernel Tuner's T1 reader treats both): the block size parameter of that axis.
  std::array<std::optional<std::vector<std::string>>, 3> grid_div;
  std::array<std::string, 3> local_size;  // LocalSize X/Y/Z; "" when not given
  uint32_t shared_memory = 0;             // SharedMemory: dynamic shared memory bytes a block
  std::vector<T1Argument> arguments;      // in kernel parameter order
  // The top-level Search and Budget, as ktune's --strategy, --budget and --seconds.
  std::optional<std::string> strategy;
  std::optional<std::string> budget;  // "200" or "5%"
  std::optional<double> budget_seconds;
};

// Refuses a spec whose KernelSpecification.Language is not CUDA, naming that field; the
// first check of a spec to tune, before any other field is read. Throws Error.
void check_t1_language(const nlohmann::json& doc, std::string_view origin);

// Size expressions are evaluated later, for each problem size (t1_elements). `origin`
// (the file name) prefixes every error.
T1Kernel read_t1_kernel(const nlohmann::json& doc, std::string_view origin);

// Kernel Tuner's names of the block and grid dimensions.
inline constexpr std::array<const char*, 3> kT1BlockNames = {"block_size_x", "block_size_y", "block_size_z"};
inline constexpr std::array<const char*, 3> kT1GridNames = {"grid_size_x", "grid_size_y", "grid_size_z"};

// The elements of a Vector argument for one problem size: its Size, where ProblemSize[i]
// is the problem size and a parameter stands for its list of values (so max(p) and min(p)
// are numbers), as Kernel Tuner evaluates it. A fractional result is truncated. Throws
// Error naming `where` for anything else or a result below 1.
int64_t t1_elements(const std::string& size, const SpaceSpec& space, std::span<const int64_t> problem_size,
                    const std::string& where);

// Each config's block, grid and macros, computed as Kernel Tuner computes them:
//   block[i] = the parameter block_size_{x,y,z} (256, 1, 1 when there is none);
//   grid[i]  = ceil(problem_size[i] / divisor[i]), divisor[i] = the product of GridDiv's
//              expressions, each truncated to an integer (default: block_size_{x,y,z}, else 1);
//   macros   = grid_size_{x,y,z} (with_grid), block_size_{x,y,z}, every parameter, kernel_tuner=1.
// LocalSize, where given, must agree with the block: ktune refuses a spec it would launch
// otherwise than Kernel Tuner.
class T1Geometry {
 public:
  // `names`: the parameters, in the order of the values passed below. Throws Error
  // (naming `origin` and the field) for an expression that does not parse.
  T1Geometry(const T1Kernel& kernel, std::vector<std::string> names, std::string origin);

  using Dims = std::array<int64_t, 3>;
  Dims block(std::span<const int64_t> values) const;
  Dims divisors(std::span<const int64_t> values) const;  // throws Error when one is below 1
  Dims grid(std::span<const int64_t> values, std::span<const int64_t> problem_size) const;
  // Throws Error when LocalSize (where given) differs from block() for these values.
  void check_local_size(std::span<const int64_t> values) const;
  // The -D macros of one config, in Kernel Tuner's order; grid sizes only when `with_grid`
  // (they depend on the problem size, so each problem size would need its own cubins).
  std::vector<std::pair<std::string, int64_t>> macros(std::span<const int64_t> values,
                                                      std::span<const int64_t> problem_size, bool with_grid) const;
  // "block_size_x=16 tile_size_x=2", for messages.
  std::string describe(std::span<const int64_t> values) const;

 private:
  std::vector<std::string> names_;
  std::string origin_;
  std::array<int, 3> block_slot_{-1, -1, -1};  // the parameter of each block dimension, or -1
  std::array<std::optional<std::vector<Expression>>, 3> grid_div_;
  std::array<std::optional<Expression>, 3> local_size_;
};

}  // namespace ktune

#pragma once
// The manifest: what configure decided to build for one kernel. Written by `ktune plan`
// at configure time, read by `ktune space` and by the tuner. A space is a definition, not a
// list: the file holds the parameters, constraints, DEFAULT and counts, and a reader
// enumerates the valid configs again (compactly, 8 bytes a config), so a space of millions
// of configs is a file of a few kilobytes. Paths of per-config files are relative to the
// manifest's directory so a build tree can move.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <unordered_map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/files.hpp"
#include "ktune/space.hpp"
#include "ktune/space_spec.hpp"

namespace ktune {

struct CompileSettings {
  std::string nvcc;
  std::string arch;  // e.g. "90" or "90a": the cubins compiled and tuned
                     // here are for sm_<arch> (one of `archs`)
  std::vector<std::string> flags;
  std::vector<std::string> include_dirs;
  std::vector<std::string> launcher;    // CMAKE_CUDA_COMPILER_LAUNCHER, e.g. ccache; not hashed
  std::vector<std::string> archs;       // every real architecture the bake embeds cubins for
  std::optional<std::string> ptx_arch;  // the DEFAULT's PTX: for compute_<ptx_arch>; "": no PTX
                                        // (every listed architecture -real); unset: `arch`
  std::string ptx_target() const { return ptx_arch ? *ptx_arch : arch; }  // "": no PTX
  // `archs`, with `arch` first where a manifest made in code left it out.
  std::vector<std::string> listed_archs() const {
    std::vector<std::string> out = archs;
    if (std::find(out.begin(), out.end(), arch) == out.end()) out.insert(out.begin(), arch);
    return out;
  }
};

struct ManifestConfig {
  std::string id;
  std::vector<int64_t> values;  // declaration order
  // Macros besides the parameters, -D<name>=<value> on its compile command: a T1 kernel's
  // Kernel Tuner macros (block_size_x, grid_size_x, kernel_tuner). Usually empty.
  std::vector<std::pair<std::string, int64_t>> defines;

  std::string cubin() const { return "cubins/" + id + ".cubin"; }
  std::string log() const { return "logs/" + id + ".log"; }
  std::string record() const { return "records/" + id + ".json"; }
  std::string depfile() const { return "deps/" + id + ".d"; }
};

// Macros besides the parameters that a config's compile command defines: for a T1 kernel,
// Kernel Tuner's (block sizes, grid sizes, kernel_tuner), which may depend on its values.
using ConfigDefines = std::function<std::vector<std::pair<std::string, int64_t>>(std::span<const int64_t> values)>;

// The valid configs of a manifest's space, in enumeration order, each made when asked for.
class ManifestConfigs {
 public:
  ManifestConfigs() = default;
  ManifestConfigs(std::vector<std::string> names, Enumeration valid, ConfigDefines defines = {});

  std::size_t size() const { return valid_.size(); }
  bool empty() const { return size() == 0; }
  ManifestConfig operator[](std::size_t i) const { return make(valid_.row(i)); }
  // The config of these values (declaration order), in the space or not: its id, values and
  // defines, as its compile needs them.
  ManifestConfig make(std::vector<int64_t> values) const;
  ManifestConfig front() const { return (*this)[0]; }
  ManifestConfig back() const { return (*this)[size() - 1]; }
  std::vector<int64_t> values(std::size_t i) const { return valid_.row(i); }
  // The index of the config with these values, if it is in the space.
  std::optional<std::size_t> find(std::span<const int64_t> values) const { return valid_.find_values(values); }
  const Enumeration& enumeration() const { return valid_; }
  // The index of the config with this id, if it is in the space. The first call indexes
  // every config's id (about 1 s and 40 MB for a million); not safe to call first from
  // several threads at once.
  std::optional<std::size_t> find_id(const std::string& id) const;

  class iterator {
   public:
    using value_type = ManifestConfig;
    using difference_type = std::ptrdiff_t;
    iterator(const ManifestConfigs* owner, std::size_t i) : owner_(owner), i_(i) {}
    ManifestConfig operator*() const { return (*owner_)[i_]; }
    iterator& operator++() { return ++i_, *this; }
    bool operator==(const iterator& o) const { return i_ == o.i_; }

   private:
    const ManifestConfigs* owner_;
    std::size_t i_;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }

 private:
  std::vector<std::string> names_;
  Enumeration valid_;
  ConfigDefines defines_;
  mutable std::shared_ptr<const std::unordered_map<uint64_t, uint32_t>> by_id_;  // id's value -> index
};

struct Manifest {
  static constexpr int kSchemaVersion = 2;

  std::string kernel;
  std::string source;
  std::string entry;  // the kernel function's (extern "C") name in the cubins
  CompileSettings compile;
  // Spaces above the eager-build limit are compiled on demand: the build makes only the
  // DEFAULT's cubin, the tuner and the bake ask Ninja (on_demand.ninja) for the rest.
  bool on_demand = false;
  SpaceSpec spec;  // parameters, constraints, default as declared
  std::string default_id;
  uint64_t product = 0;
  ManifestConfigs configs;  // enumerated from `spec`; the file holds their count
  // Macros every config's compile defines besides its parameters (T1: Kernel Tuner's).
  std::vector<std::pair<std::string, int64_t>> defines;
  // A T1 kernel that reads grid_size_x/y/z: its spec and problem size, from which each
  // config's grid macros are computed. Empty otherwise.
  std::string t1_spec;
  std::vector<int64_t> t1_problem_size;

  // The enumeration's bound (KTUNE_MAX_POINTS when planned): readers enumerate again.
  uint64_t max_points = 1'000'000'000;

  // Enumerates `spec` into `configs` (with `defines` and the T1 grid macros). Throws Error.
  void enumerate_configs();
  std::size_t default_index() const;  // the DEFAULT's index in `configs`
  // "block_size_x=16 tile_size_x=2": a config by its values, wherever a person reads it
  // (ids name files). One value per parameter, in declaration order.
  std::string describe(std::span<const int64_t> values) const;
  std::vector<std::vector<Assignment>> keys;  // KEYS, in the order declared

  nlohmann::json to_json() const;
  // Throws Error naming `origin` and the field on any malformed or future-schema input,
  // and when the space enumerates to another count than the file says.
  static Manifest from_json(const nlohmann::json& doc, const std::string& origin);
};

bool is_manifest(const nlohmann::json& doc);

// Each config's macros for a T1 kernel that reads grid_size_x/y/z: Kernel Tuner's macros
// computed from the spec at `t1_spec` for `problem_size` (t1_plan.cpp). Throws Error.
ConfigDefines t1_grid_defines(const std::string& t1_spec, const SpaceSpec& spec,
                              const std::vector<int64_t>& problem_size);

// Where a kernel's files for one of its listed architectures are: `kernel_dir` itself for
// compile.arch (what the build compiles and tunes), <kernel_dir>/sm_<arch> for the others
// (compiled by the bake: the DEFAULT and the winners of that architecture's tables).
std::filesystem::path arch_kernel_dir(const Manifest& m, const std::filesystem::path& kernel_dir,
                                      const std::string& arch);
// `m` compiling for `arch` instead of compile.arch (one of compile.archs).
Manifest for_arch(const Manifest& m, const std::string& arch);

}  // namespace ktune

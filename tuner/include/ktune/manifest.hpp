#pragma once
// The manifest: what configure decided to build for one kernel. Written by `ktune plan`
// at configure time, read by `ktune space` and by the tuner. Paths of per-config files
// are relative to the manifest's directory so a build tree can move.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/space_spec.hpp"

namespace ktune {

struct CompileSettings {
  std::string nvcc;
  std::string arch;                       // e.g. "90" or "90a": cubins are for sm_<arch>
  std::vector<std::string> flags;
  std::vector<std::string> include_dirs;
  std::vector<std::string> launcher;      // CMAKE_CUDA_COMPILER_LAUNCHER, e.g. ccache; not hashed
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

struct Manifest {
  static constexpr int kSchemaVersion = 1;

  std::string kernel;
  std::string source;
  std::string entry;       // the kernel function's (extern "C") name in the cubins
  CompileSettings compile;
  // Spaces above the eager-build limit are compiled on demand: the build makes only the
  // DEFAULT's cubin, the tuner and the bake ask Ninja (on_demand.ninja) for the rest.
  bool on_demand = false;
  SpaceSpec spec;          // parameters, constraints, default as declared
  std::string default_id;
  uint64_t product = 0;
  std::vector<ManifestConfig> configs;
  std::vector<std::vector<Assignment>> keys;  // KEYS, in the order declared

  nlohmann::json to_json() const;
  // Throws Error naming `origin` and the field on any malformed or future-schema input.
  static Manifest from_json(const nlohmann::json& doc, const std::string& origin);
};

bool is_manifest(const nlohmann::json& doc);

// Reads a whole file; throws Error naming the file when it cannot be opened.
std::string read_file(const std::filesystem::path& path);

// Reads a JSON file; throws Error naming the file on I/O or syntax errors.
nlohmann::json read_json_file(const std::filesystem::path& path);

// Writes `text` to `path` only when it differs from what is there, through a temporary
// file and a rename: readers never see half a file, and an unchanged manifest keeps its
// timestamp so nothing downstream rebuilds.
bool write_file_if_changed(const std::filesystem::path& path, const std::string& text);

// Replaces `path` with `text` the same way, whether or not it changed: for build outputs,
// which must end up newer than their inputs.
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

}  // namespace ktune

#pragma once
// What makes a measurement stale. Measurements are kept per fingerprint: a new driver, GPU
// or kernel source gives a new fingerprint, and its configs are measured again.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ktune/gpu_identity.hpp"

namespace ktune {

struct Fingerprint {
  std::string kernel_hash;   // source + every header it includes + flags + parameters
  std::string nvcc_version;  // "13.0.88"
  GpuIdentity gpu;

  // Hex digest of every field above except gpu.l2_bytes.
  std::string digest() const;
  nlohmann::json to_json() const;
  static Fingerprint from_json(const nlohmann::json& j);
};

// Hash of the kernel source and the headers the DEFAULT config's depfile lists
// (deps/<default id>.d beside the manifest), plus the compile flags and the parameter list
// from the manifest. Throws Error naming the file that cannot be read.
std::string kernel_hash(const std::string& manifest_path);
// The same for the kernel compiled for `arch` (one of its listed architectures): what a GPU
// of that architecture measured. kernel_hash(path) is the hash for compile.arch.
std::string kernel_hash(const std::string& manifest_path, const std::string& arch);

// Every file the kernel's built configs were compiled from (source, headers), as their
// depfiles in <kernel_dir>/deps list them.
std::set<std::string> compiled_inputs(const std::filesystem::path& kernel_dir);

}  // namespace ktune

#pragma once
// What the bake step puts into a user's binary for one kernel: its configs (values,
// cubins, PTX) and, per tuned GPU model, the best config per key. Plain constant data,
// written by `ktune bake` as a generated .cpp; the logic that reads it lives in the
// runtime (choose.hpp, dispatcher.hpp).
#include <cstddef>
#include <cstdint>
#include <span>

namespace ktune {

// A cubin or a NUL-terminated PTX text; size 0 when absent.
struct BakedImage {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
  bool empty() const { return size == 0; }
};

// An architecture as nvcc names it: 90 with arch_specific for "90a" (or "100f").
struct BakedArch {
  int major = 0, minor = 0;
  bool arch_specific = false;
};

// One cubin of a config, for one real architecture.
struct BakedCubin {
  BakedArch arch;
  BakedImage image;
};

struct BakedConfig {
  const char* id;                      // the config id of the space (16 hex digits)
  std::span<const int64_t> values;     // one per parameter, in BakedKernel::parameters' order
  std::span<const BakedCubin> cubins;  // the architectures it was baked for: those whose
                                       // tables choose it, and every listed one for the DEFAULT
  BakedImage ptx;                      // for BakedKernel::ptx_arch (the DEFAULT's only)
};

// The best config of one key on one GPU model.
struct BakedEntry {
  std::span<const int64_t> key;  // one per key dimension, in BakedKernel::key_dims' order
  int32_t config;                // index into BakedKernel::configs
  double best_ms;                // its measured median, for reports
};

struct BakedGpu {
  const char* name;  // "NVIDIA H200", as cuDeviceGetName says
  int cc_major, cc_minor;
  int sm_count;
  uint64_t memory_bytes;  // 0 when not known (an import that did not say)
  const char* source;     // where the table came from: the DB file it was read from
  std::span<const BakedEntry> entries;
  int32_t common_best;  // the config best across this GPU's keys (CLBlast-style)
};

struct BakedKernel {
  const char* name;   // as in ktune_add_kernel
  const char* entry;  // the extern "C" kernel function
  std::span<const char* const> parameters;
  std::span<const char* const> key_dims;  // in the order KEYS declares them
  std::span<const BakedConfig> configs;
  std::span<const BakedGpu> gpus;
  int32_t default_config;                  // index of the DEFAULT config
  std::span<const BakedArch> cubin_archs;  // the real architectures the build listed
  BakedArch ptx_arch;                      // {0, 0}: no PTX (every listed architecture "-real")
  const char* note;                        // what the bake used, in one line
  // The KEYS the kernel was declared (and tuned) for, key_dims.size() values each, one
  // key after another: what a demo or a benchmark runs.
  std::span<const int64_t> declared_keys = {};
};

}  // namespace ktune

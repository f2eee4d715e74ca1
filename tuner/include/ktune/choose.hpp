#pragma once
// Which baked config a GPU and key get, and by which rule. Pure: no GPU needed, so every
// rule is tested on made-up tables and made-up GPUs.
//
// One ordered list; the first candidate whose config has an image that runs on this GPU
// wins, a candidate without one is skipped:
//
//   1. this model (same name and compute capability):
//        exact        its table has this key
//        nearest-key  its tuned key nearest in log space, within a factor 4
//        common-best  no key near: the config best across its keys
//   2. same-arch      the closest other model of this compute capability (closest SM count,
//                     then memory size where both are known): its exact or nearest key, else
//                     common-best
//   3. same-major     a model of this major version and another minor: minors up to the
//                     GPU's first, the highest first (their winners' cubins can run here),
//                     then higher minors; within one, the closest SM count. Its exact or
//                     nearest key, else common-best
//   4. default        the DEFAULT config's cubin for this GPU (the best of its cubins that runs)
//   5. default        the DEFAULT config's PTX, JIT-compiled by the driver
//   online            (KTUNE_ONLINE=1 only) measured on first use for a key not exact here
//
// A table's image is its config's cubin where one runs on this GPU, else its PTX (only the
// DEFAULT has PTX as baked). Nothing runnable at all: choose() throws.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ktune/baked.hpp"
#include "ktune/gpu_info.hpp"
#include "ktune/cuda_arch.hpp"

namespace ktune {

enum class Rule { Exact, NearestKey, SameArch, SameMajor, CommonBest, Default, Online };
const char* to_string(Rule r);

enum class ImageKind { Cubin, Ptx };
const char* to_string(ImageKind k);

struct ChooseOptions {
  bool use_cubins = true;     // false: PTX only (KTUNE_NO_CUBINS=1), to test the JIT path
  double near_factor = 4.0;   // a tuned key this close (log-space distance) is "near"
  bool default_only = false;  // ignore the tables: the baseline that tuning is measured against
};

struct Choice {
  int32_t config = -1;  // index into BakedKernel::configs
  Rule rule = Rule::Default;
  ImageKind image = ImageKind::Cubin;
  BakedArch arch;                   // the image's: the cubin's sm_XY, or the PTX's compute_XY
  const BakedGpu* table = nullptr;  // the GPU table used, if any
  double key_distance = 0;          // log-space distance to the key used (0: exact)

  // "exact on NVIDIA H200 (sm_90 cubin)", "default (compute_90 PTX, JIT)": for logs and errors.
  std::string describe() const;
};

// Distance between keys: sqrt(sum (ln a - ln b)^2) over dimensions, sizes below 1 as 1.
double key_distance(std::span<const int64_t> a, std::span<const int64_t> b);

// cubin_runs_on, ptx_runs_on, cubin_arch_for: cuda_arch.hpp.

// Of a config's cubins, the one this GPU runs best (same major, the highest minor at most
// the GPU's, an arch-specific one before the plain one of its minor); nullptr when none runs.
const BakedCubin* runnable_cubin(const BakedConfig& c, const GpuInfo& gpu);

// How config `index` runs on this GPU: its cubin where that runs (and cubins are allowed),
// else its PTX where that JITs here, else nothing.
std::optional<ImageKind> runnable_image(const BakedKernel& k, int32_t index, const GpuInfo& gpu,
                                        const ChooseOptions& options);

// The architecture of config `index`'s `image` on this GPU: its runnable cubin's, or the
// kernel's PTX architecture; {0, 0} for a cubin that does not run here.
BakedArch image_arch(const BakedKernel& k, int32_t index, ImageKind image, const GpuInfo& gpu);

// Throws Error when `key` has the wrong number of dimensions or nothing baked runs here
// (no cubin for this architecture, and the DEFAULT's PTX is for a newer one or absent).
Choice choose(const BakedKernel& k, const GpuInfo& gpu, std::span<const int64_t> key,
              const ChooseOptions& options = {});

}  // namespace ktune

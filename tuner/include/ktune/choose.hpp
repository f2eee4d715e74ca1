#pragma once
// Which baked config a GPU and key get, and by which rule. Pure: no GPU needed, so every
// rule of the fallback chain is tested on made-up tables.
//
//   exact        this GPU model was tuned on this key
//   nearest-key  this GPU model, the tuned key nearest in log space (within a factor 4)
//   same-arch    another tuned GPU model of this compute capability (its exact or nearest key)
//   common-best  a tuned GPU of this model or architecture, but no key near: the config
//                best across its keys
//   default      no GPU of this architecture was tuned: the DEFAULT config
//   online       (KTUNE_ONLINE=1 only) measured on first use for a key not tuned here
//
// The image is the config's cubin where it runs on this GPU, else its PTX (JIT by the
// driver); a config with neither that runs falls back to the DEFAULT's PTX.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ktune/baked.hpp"

namespace ktune {

enum class Rule { Exact, NearestKey, SameArch, CommonBest, Default, Online };
const char* to_string(Rule r);

enum class ImageKind { Cubin, Ptx };
const char* to_string(ImageKind k);

struct GpuInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
};

struct ChooseOptions {
  bool use_cubins = true;          // false: PTX only (KTUNE_NO_CUBINS=1), to test the JIT path
  double near_factor = 4.0;        // a tuned key this close (log-space distance) is "near"
  bool default_only = false;       // ignore the tables: the baseline that tuning is measured against
};

struct Choice {
  int32_t config = -1;             // index into BakedKernel::configs
  Rule rule = Rule::Default;
  ImageKind image = ImageKind::Cubin;
  const BakedGpu* table = nullptr; // the GPU table used, if any
  double key_distance = 0;         // log-space distance to the key used (0: exact)

  // "exact on NVIDIA H200 (cubin)", "default (ptx)": for logs and errors.
  std::string describe() const;
};

// Distance between keys: sqrt(sum (ln a - ln b)^2) over dimensions, sizes below 1 as 1.
double key_distance(std::span<const int64_t> a, std::span<const int64_t> b);

// Cubins for `arch` run on GPUs of the same major version and a minor at least as high
// (exactly that minor for arch-specific "a" targets); PTX for `arch` on any GPU at least
// that new (never for arch-specific PTX on another GPU).
bool cubin_runs_on(const BakedArch& arch, int cc_major, int cc_minor);
bool ptx_runs_on(const BakedArch& arch, int cc_major, int cc_minor);

// How config `index` runs on this GPU: its cubin where that runs (and cubins are allowed),
// else its PTX where that JITs here, else nothing.
std::optional<ImageKind> runnable_image(const BakedKernel& k, int32_t index, const GpuInfo& gpu,
                                        const ChooseOptions& options);

// Throws Error when `key` has the wrong number of dimensions or nothing can run here
// (the DEFAULT's PTX is for a newer architecture than the GPU's).
Choice choose(const BakedKernel& k, const GpuInfo& gpu, std::span<const int64_t> key,
              const ChooseOptions& options = {});

}  // namespace ktune

#pragma once
// CUDA architectures as the build names them ("80", "90a", "100f") and which of a build's
// listed architectures serves a GPU: one rule for the bake and the run-time choice (the
// inline functions; the runtime links nothing else of this) and CMake's _ktune_arch_for_gpu.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ktune/baked.hpp"

namespace ktune {

// "90" -> {9, 0}, "90a" -> {9, 0, arch-specific}, "100f" -> {10, 0, arch-specific};
// nothing for anything else (a prefix like "sm_", a suffix like "-real", too many digits).
std::optional<BakedArch> parse_cuda_arch(std::string_view text);  // ktune_space
// The inverse: "90a" (an "f" target reads as "a": both run on their own minor only).
inline std::string arch_text(const BakedArch& arch) {
  return std::to_string(arch.major) + std::to_string(arch.minor) + (arch.arch_specific ? "a" : "");
}

// Cubins for `arch` run on GPUs of the same major version and a minor at least as high
// (exactly that minor for arch-specific "a"/"f" targets); PTX for `arch` on any GPU at least
// that new (never for arch-specific PTX on another GPU). Inline: the runtime uses them too.
inline bool cubin_runs_on(const BakedArch& arch, int cc_major, int cc_minor) {
  if (arch.major == 0 || cc_major != arch.major) return false;
  return arch.arch_specific ? cc_minor == arch.minor : cc_minor >= arch.minor;
}
inline bool ptx_runs_on(const BakedArch& arch, int cc_major, int cc_minor) {
  if (arch.major == 0) return false;
  if (arch.arch_specific) return cc_major == arch.major && cc_minor == arch.minor;
  return cc_major > arch.major || (cc_major == arch.major && cc_minor >= arch.minor);
}

// Of `listed`, the architecture whose cubins a GPU of compute capability major.minor runs
// best: same major, the highest minor at most the GPU's (an arch-specific one preferred to
// the plain one of its minor). Nothing when none runs there.
inline std::optional<BakedArch> cubin_arch_for(std::span<const BakedArch> listed, int cc_major, int cc_minor) {
  std::optional<BakedArch> best;
  for (const BakedArch& a : listed) {
    if (!cubin_runs_on(a, cc_major, cc_minor)) continue;
    if (!best || a.minor > best->minor || (a.minor == best->minor && a.arch_specific)) best = a;
  }
  return best;
}

}  // namespace ktune

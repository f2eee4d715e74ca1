#pragma once
// The one rule for the nvcc flags a user adds to every config's compile: ktune_add_kernel's
// FLAGS (`ktune plan --flag`), a T1 spec's CompilerOptions and `ktune tune --t1 --flag`.
// ktune itself sets the compiler, what nvcc writes and where, the architecture and each
// parameter's macro of every cubin command: a flag that sets one of them again would run
// another program or make cubins that the manifest misdescribes, so it is refused.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ktune {

struct NvccFlagRules {
  std::vector<std::string> parameters;  // each config's -D<name>=<value>
  // Other macros ktune defines for every config (a T1 kernel's block_size_x, kernel_tuner, ...).
  std::vector<std::string> macros;
  // How this input chooses the architecture instead, e.g. "use ARCH (this kernel) ...".
  std::string architecture_fix;
};

// Throws Error "<name(i)> <why>; <fix>" for the first refused flag: an empty one, a CMake
// generator expression, an options file, or one that selects the compiler, an output, the
// architecture or a macro of `rules`. Separate values count: "-D A" sets A, "-o x" an output.
void check_nvcc_flags(const std::vector<std::string>& flags, const NvccFlagRules& rules,
                      const std::function<std::string(std::size_t)>& name);

}  // namespace ktune

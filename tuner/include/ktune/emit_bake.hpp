#pragma once
// The bake step's second half: the generated C++ that carries a plan's tables (plan_bake.hpp)
// and the winners' cubins into the user's binary. Every value that reaches the C++ text is
// validated or escaped: a hostile DB or manifest cannot inject code.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>

#include "ktune/manifest.hpp"
#include "ktune/plan_bake.hpp"

namespace ktune {

// What a bake embeds, per architecture: how many cubins and their bytes.
struct BakeSize {
  std::size_t cubins = 0, bytes = 0;
};

struct BakeSources {
  std::string header;                     // ktune_<kernel>.hpp: Config and Key structs, dispatcher()
  std::string source;                     // ktune_<kernel>_baked.cpp: the data
  std::map<std::string, BakeSize> sizes;  // per architecture (compile.archs entry)
  std::size_t ptx_bytes = 0;
  // "sm_80: 2 cubins, 41 KiB; sm_90: 3 cubins, 77 KiB; PTX 12 KiB": for the bake line.
  std::string size_line() const;
};

// Each embedded config carries a cubin for every architecture whose table chooses it, the
// DEFAULT one for every listed architecture. `cubin_dir`: where the <id>.cubin files of
// compile.arch are; those of another listed architecture A are in <cubin_dir>/../sm_A/cubins
// (arch_kernel_dir). `default_ptx`: the DEFAULT config's PTX text for compile.ptx_target() (may
// be empty). Throws Error naming the value when a name is not a C++ identifier.
BakeSources emit_bake(const BakePlan& plan, const Manifest& m, const std::filesystem::path& cubin_dir,
                      const std::string& default_ptx);

// A C++ string literal of `s`: printable ASCII kept, everything else as octal escapes.
std::string cpp_string_literal(const std::string& s);

}  // namespace ktune

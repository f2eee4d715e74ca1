// The rule for users' nvcc flags (nvcc_flags.hpp). Options are matched by name with their
// leading dashes dropped, so "-arch", "--arch", "-arch=sm_80" and "--gpu-architecture sm_80"
// are one option: nvcc itself accepts fewer spellings, and refusing a spelling it would
// reject anyway costs nothing.
#include "ktune/nvcc_flags.hpp"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "ktune/error.hpp"

namespace ktune {
namespace {

// Helpers of the rule, in their own namespace: unity builds merge this file with others.
namespace nvcc_flag_rule {

std::string_view strip(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// "--gpu-architecture=sm_80" -> "gpu-architecture"; "-arch sm_80" -> "arch".
std::string_view option_name(std::string_view flag) {
  std::size_t start = flag.starts_with("--") ? 2 : 1;
  std::string_view rest = flag.substr(std::min(start, flag.size()));
  return rest.substr(0, rest.find_first_of("= \t"));
}

// The text after the name ("=A=1" -> "A=1"), or "" when the value is the next argument.
std::string_view joined_value(std::string_view flag) {
  const std::size_t at = flag.find_first_of("= \t");
  return at == std::string_view::npos ? std::string_view() : flag.substr(at + 1);
}

bool selects_compiler(std::string_view name) {
  return name.starts_with("ccbin") || name.starts_with("compiler-bindir");
}

bool runs_program(std::string_view name) { return one_of(name, {"run", "run-args"}); }

bool reads_options_file(std::string_view name) { return one_of(name, {"optf", "options-file"}); }

// What nvcc writes, where, and which kind of output (ktune: one cubin and its depfile).
bool sets_output(std::string_view name) {
  return one_of(name, {"o",
                       "output-file",
                       "odir",
                       "output-directory",
                       "keep-dir",
                       "MF",
                       "dependency-output",
                       "MT",
                       "dependency-target-name",
                       "M",
                       "generate-dependencies",
                       "MM",
                       "generate-nonsystem-dependencies",
                       "MD",
                       "generate-dependencies-with-compile",
                       "MMD",
                       "generate-nonsystem-dependencies-with-compile",
                       "E",
                       "preprocess",
                       "c",
                       "compile",
                       "cubin",
                       "ptx",
                       "fatbin",
                       "cuda",
                       "dc",
                       "device-c",
                       "dw",
                       "device-w",
                       "dlink",
                       "device-link",
                       "lib",
                       "link",
                       "optix-ir",
                       "ltoir"});
}

bool sets_architecture(std::string_view name) {
  return one_of(name, {"arch", "gpu-architecture", "code", "gpu-code", "gencode", "generate-code"});
}

// Options whose separate value goes to another tool (the host compiler, ptxas, ...): that
// value is not an nvcc option, so it is not read as one.
bool passes_value_on(std::string_view name) {
  return one_of(name, {"Xcompiler", "compiler-options", "Xptxas", "ptxas-options", "Xnvlink", "nvlink-options",
                       "Xlinker", "linker-options", "Xarchive", "archive-options"});
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The macro definitions of a -D/-U option ("A=1,B" -> "A", "B": nvcc splits its list at
// commas), with the value taken from the next argument when it is not joined.
std::vector<std::string> macro_names(const std::vector<std::string>& flags, std::size_t i) {
  const std::string_view flag = flags[i];
  std::string_view value;
  if (!flag.starts_with("--") && (flag.starts_with("-D") || flag.starts_with("-U")))
    value = flag.substr(2);
  else
    value = joined_value(flag);
  if (value.empty() && i + 1 < flags.size()) value = flags[i + 1];
  std::vector<std::string> names;
  while (true) {
    const std::size_t comma = value.find(',');
    const std::string_view def = value.substr(0, comma);
    names.emplace_back(strip(def.substr(0, def.find_first_of("=(#"))));
    if (comma == std::string_view::npos) break;
    value = value.substr(comma + 1);
  }
  return names;
}

// Why flags[i] is refused, with the fix; "" when it is not.
std::string refusal(const std::vector<std::string>& flags, std::size_t i, const NvccFlagRules& rules) {
  const std::string& flag = flags[i];
  if (strip(flag).empty()) return "is empty (a variable or generator expression that yields nothing?); drop it";
  if (flag.find("$<") != std::string::npos)
    return "is a generator expression, which ktune's own compiles (the tuner's, the bake's) cannot evaluate and "
           "which may yield an empty argument; give the flag itself (choose it with if() in CMake)";
  if (flag.front() != '-') return "";  // a value of the option before it, or a file nvcc reads
  const std::string_view name = option_name(flag);
  if (selects_compiler(name))
    return "selects the host compiler, and no flag may choose which program a compile runs; drop it (nvcc's "
           "host compiler is chosen by the environment variable NVCC_CCBIN)";
  if (runs_program(name)) return "runs the compiled program, which ktune's compiles never do; drop it";
  if (reads_options_file(name))
    return "reads more flags from a file, which ktune cannot check; give the flags themselves";
  if (sets_output(name))
    return "sets what nvcc writes or where, which ktune sets for every config (a cubin and its dependency file); drop "
           "it";
  if (sets_architecture(name))
    return "sets the architecture, which ktune sets for every cubin; " + rules.architecture_fix;
  if (name == "maxrregcount" && contains(rules.parameters, "maxnreg"))
    return "caps registers, which the parameter maxnreg sets for each config; drop it";
  const bool short_macro = !flag.starts_with("--") && (flag.starts_with("-D") || flag.starts_with("-U"));
  if (short_macro || one_of(name, {"define-macro", "undefine-macro"})) {
    for (const std::string& macro : macro_names(flags, i)) {
      if (contains(rules.parameters, macro))
        return "sets the macro of parameter " + macro +
               ", which ktune sets to each config's value; drop it or "
               "rename the parameter";
      if (contains(rules.macros, macro))
        return "sets the macro " + macro + ", which ktune defines for every config; drop it";
    }
  }
  return "";
}

}  // namespace nvcc_flag_rule
}  // namespace

void check_nvcc_flags(const std::vector<std::string>& flags, const NvccFlagRules& rules,
                      const std::function<std::string(std::size_t)>& name) {
  using namespace nvcc_flag_rule;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (std::string why = refusal(flags, i, rules); !why.empty()) throw Error(name(i) + " " + why);
    const std::string_view flag = flags[i];
    if (flag.starts_with("-") && passes_value_on(option_name(flag)) && joined_value(flag).empty()) ++i;
  }
}

}  // namespace ktune

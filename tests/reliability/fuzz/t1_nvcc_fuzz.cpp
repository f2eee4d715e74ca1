// Fuzz target: a T1 spec through `ktune tune --t1`'s preparation (plan_t1) to the nvcc
// command of each of its first configs (cubin_command: what the build and the tuner run).
// A spec may be refused only with ktune::Error; an accepted one must give commands that
// compile what the manifest says: exactly one architecture option, the planned one; exactly
// one output, the config's cubin inside the kernel directory; no option that chooses the
// compiler or reads more options; and every macro ktune sets (each parameter, Kernel
// Tuner's block_size_x, kernel_tuner, ...) defined exactly once, to the config's value.
// The checks read the command as nvcc does, independently of the rule in nvcc_flags.cpp.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "ktune/build_plan.hpp"
#include "ktune/t1_plan.hpp"
#include "ktune/t1_spec.hpp"

namespace {

namespace fs = std::filesystem;

// Bounds the work per input, so that fuzzing explores instead of enumerating.
constexpr uint64_t kMaxPoints = 1 << 12;
constexpr std::size_t kConfigsChecked = 8;

// A directory for the spec, a fixed kernel (the spec's KernelFile is not looked up) and
// what plan_t1 writes; removed when the process ends.
struct Workspace {
  fs::path dir;
  Workspace() {
    std::string name = (fs::temp_directory_path() / "ktune_fuzz_t1_nvcc_XXXXXX").string();
    KTUNE_FUZZ_CHECK(::mkdtemp(name.data()) != nullptr);
    dir = name;
    std::ofstream(dir / "kernel.cu") << "__global__ void k(float* y) { y[threadIdx.x] = block_size_x; }\n";
  }
  ~Workspace() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

// An option's name as nvcc matches it: "--gpu-architecture=sm_80" -> "gpu-architecture".
std::string_view name_of(std::string_view arg) {
  if (!arg.starts_with("-")) return {};
  arg.remove_prefix(arg.starts_with("--") ? 2 : 1);
  return arg.substr(0, arg.find_first_of("= \t"));
}

bool is_one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (name == n) return true;
  return false;
}

// The macros args[i] defines or undefines, as "NAME" or "NAME=VALUE" (nvcc splits -D's list
// at commas); empty when args[i] is no -D/-U.
std::vector<std::string> macros_of(const std::vector<std::string>& args, std::size_t i) {
  const std::string_view arg = args[i];
  std::string_view value;
  if (!arg.starts_with("--") && (arg.starts_with("-D") || arg.starts_with("-U")))
    value = arg.substr(2);
  else if (is_one_of(name_of(arg), {"define-macro", "undefine-macro"}))
    value = arg.find('=') == std::string_view::npos ? std::string_view() : arg.substr(arg.find('=') + 1);
  else
    return {};
  if (value.empty() && i + 1 < args.size()) value = args[i + 1];
  std::vector<std::string> out;
  while (true) {
    const std::size_t comma = value.find(',');
    out.emplace_back(value.substr(0, comma));
    if (comma == std::string_view::npos) break;
    value = value.substr(comma + 1);
  }
  return out;
}

bool inside(const fs::path& file, const fs::path& dir) {
  const std::string f = file.lexically_normal().string(), d = dir.lexically_normal().string() + "/";
  return f.starts_with(d) && f.find("/../") == std::string::npos;
}

void check_command(const ktune::T1Plan& p, const ktune::ManifestConfig& c) {
  const ktune::Manifest& m = p.manifest;
  const std::vector<std::string> command = ktune::cubin_command(m, c, p.kernel_dir, "ktune");
  auto dashes = std::find(command.begin(), command.end(), "--");
  KTUNE_FUZZ_CHECK(dashes != command.end());
  const std::vector<std::string> nvcc(dashes + 1, command.end());
  KTUNE_FUZZ_CHECK(!nvcc.empty() && nvcc[0] == "nvcc");

  // The macros ktune sets, with this config's values.
  std::vector<std::pair<std::string, int64_t>> expected;
  for (std::size_t k = 0; k < m.spec.parameters.size(); ++k)
    expected.emplace_back(m.spec.parameters[k].name, c.values[k]);
  expected.insert(expected.end(), c.defines.begin(), c.defines.end());
  std::vector<int> definitions(expected.size(), 0);

  int architectures = 0, outputs = 0;
  for (std::size_t i = 1; i < nvcc.size(); ++i) {
    const std::string_view name = name_of(nvcc[i]);
    // The value of an option passed on to another tool is not nvcc's.
    if (is_one_of(name, {"Xcompiler", "compiler-options", "Xptxas", "ptxas-options", "Xnvlink", "nvlink-options",
                         "Xlinker", "linker-options", "Xarchive", "archive-options"}) &&
        nvcc[i].find('=') == std::string::npos) {
      ++i;
      continue;
    }
    KTUNE_FUZZ_CHECK(!name.starts_with("ccbin") && !name.starts_with("compiler-bindir"));
    KTUNE_FUZZ_CHECK(!is_one_of(name, {"optf", "options-file", "run", "odir", "output-directory"}));
    if (is_one_of(name, {"arch", "gpu-architecture", "code", "gpu-code", "gencode", "generate-code"})) {
      ++architectures;
      KTUNE_FUZZ_CHECK(nvcc[i] == "-arch=sm_" + m.compile.arch);
    }
    if (is_one_of(name, {"o", "output-file"})) {
      ++outputs;
      KTUNE_FUZZ_CHECK(nvcc[i] == "-o" && i + 1 < nvcc.size());
      KTUNE_FUZZ_CHECK(fs::path(nvcc[i + 1]) == p.kernel_dir / c.cubin());
      KTUNE_FUZZ_CHECK(inside(nvcc[i + 1], p.kernel_dir));
    }
    for (const std::string& def : macros_of(nvcc, i)) {
      const std::string macro = def.substr(0, def.find_first_of("=("));
      for (std::size_t k = 0; k < expected.size(); ++k) {
        if (macro != expected[k].first) continue;
        ++definitions[k];
        KTUNE_FUZZ_CHECK(nvcc[i] == "-D" + expected[k].first + "=" + std::to_string(expected[k].second));
      }
    }
  }
  KTUNE_FUZZ_CHECK(architectures == 1);
  KTUNE_FUZZ_CHECK(outputs == 1);
  for (int n : definitions) KTUNE_FUZZ_CHECK(n == 1);
}

void check_t1_nvcc(const uint8_t* data, std::size_t size) {
  static Workspace workspace;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !ktune::is_t1_spec(doc)) return;
  std::ofstream(workspace.dir / "spec.T1.json", std::ios::binary | std::ios::trunc) << text;

  ktune::T1PlanRequest r;
  r.spec = workspace.dir / "spec.T1.json";
  r.source = (workspace.dir / "kernel.cu").string();
  r.out = workspace.dir / "out";
  r.compile.nvcc = "nvcc";
  r.compile.arch = "90";
  r.tool = "ktune";
  r.max_points = kMaxPoints;
  ktune::T1Plan plan;
  try {
    plan = ktune::plan_t1(r);
  } catch (const ktune::Error& e) {
    KTUNE_FUZZ_CHECK(e.what()[0] != '\0');
    return;
  }
  const ktune::Manifest& m = plan.manifest;
  KTUNE_FUZZ_CHECK(m.configs.size() > 0);
  for (std::size_t i = 0; i < m.configs.size() && i < kConfigsChecked; ++i) check_command(plan, m.configs[i]);
  if (m.default_index() < m.configs.size()) check_command(plan, m.configs[m.default_index()]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  ktune::fuzz::on_small_stack([=] { check_t1_nvcc(data, size); });
  return 0;
}

// `ktune tune --t1`'s preparation without compiling: the wrapper source, the manifest with
// Kernel Tuner's macros, each config's compile command, the run file, its errors, and real
// specs' messy Defaults;
// and the generic harness (tuner/src/measure/t1_harness.cpp) building a key's arguments
// and launches, with made-up device addresses instead of a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>

#include <nlohmann/json.hpp>

#include "ktune/build_plan.hpp"
#include "ktune/harness.hpp"
#include "ktune/t1_plan.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"
#include "error_of.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using ktune::test_support::read;
using ktune::test_support::TempDir;
using ktune::test_support::write;

const char* kKernel = R"(// a kernel in Kernel Tuner's style
__constant__ float weights[4];
__global__ void scaled_sum(float* y, const float* x, const int* counts, float alpha, int n, const float* w) {
  int i = blockIdx.x * block_size_x * tile_size_x + threadIdx.x;
  if (i < n) y[i] += alpha * x[i] + weights[i % 4] + counts[i];
}
)";

json spec() {
  return json::parse(R"json({
    "ConfigurationSpace": {
      "TuningParameters": [
        {"Name": "block_size_x", "Type": "int", "Values": "[64, 128, 256]", "Default": 128},
        {"Name": "tile_size_x", "Type": "int", "Values": "[1, 2]", "Default": 2},
        {"Name": "loop_unroll_factor_0", "Type": "int", "Values": "[0, 4]", "Default": 0}
      ],
      "Conditions": [{"Expression": "block_size_x * tile_size_x <= 256", "Parameters": []}]
    },
    "KernelSpecification": {
      "Language": "CUDA", "KernelName": "scaled_sum", "KernelFile": "kernel.cu",
      "CompilerOptions": ["-std=c++17"],
      "LocalSize": {"X": "block_size_x"},
      "GridDivX": ["block_size_x", "tile_size_x"],
      "ProblemSize": [100003],
      "Arguments": [
        {"Name": "y", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadWrite", "FillType": "Random",
         "RandomSeed": 3, "Size": "ProblemSize[0]", "Output": 1},
        {"Name": "x", "Type": "double", "MemoryType": "Vector", "FillType": "Constant", "FillValue": 0.5,
         "Size": "ProblemSize[0]"},
        {"Name": "counts", "Type": "int32", "MemoryType": "Vector", "FillType": "Random", "Size": "ProblemSize[0]"},
        {"Name": "alpha", "Type": "float", "MemoryType": "Scalar", "FillValue": 2.5},
        {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": 100003},
        {"Name": "weights", "Type": "float", "MemoryType": "Vector", "MemType": "Constant", "FillType": "Random",
         "Size": "4"}
      ]
    }
  })json");
}

// A spec and its kernel in a fresh directory; returns the spec's path.
fs::path write_spec(const TempDir& dir, const json& doc, const std::string& kernel = kKernel) {
  write(dir.path() / "specs" / "kernel.cu", kernel);
  write(dir.path() / "specs" / "s.T1.json", doc.dump(2));
  return dir.path() / "specs" / "s.T1.json";
}

ktune::T1PlanRequest request(const TempDir& dir, const fs::path& spec) {
  ktune::T1PlanRequest r;
  r.spec = spec;
  r.out = dir.path() / "out";
  r.compile.nvcc = "/usr/local/cuda/bin/nvcc";
  r.compile.arch = "90";
  r.tool = "/opt/ktune/bin/ktune";
  return r;
}

using ktune::test_support::error_of;

}  // namespace

TEST(T1Plan, WritesTheWrapperManifestAndRunFile) {
  TempDir dir("ktune_t1_plan");
  auto r = request(dir, write_spec(dir, spec()));
  r.compile.flags = {"-lineinfo"};
  r.atol = 1e-3;
  const ktune::T1Plan p = ktune::plan_t1(r);
  const ktune::Manifest& m = p.manifest;
  EXPECT_EQ(m.kernel, "scaled_sum");
  EXPECT_EQ(m.entry, "scaled_sum");
  EXPECT_TRUE(m.on_demand);
  EXPECT_EQ(m.compile.flags, (std::vector<std::string>{"-std=c++17", "-lineinfo"}));
  EXPECT_EQ(m.compile.include_dirs, (std::vector<std::string>{(dir.path() / "specs").string()}));
  EXPECT_EQ(m.product, 12u);
  EXPECT_EQ(m.configs.size(), 10u);  // block_size_x=256 tile_size_x=2 fails the condition
  EXPECT_TRUE(p.default_from_spec);
  EXPECT_EQ(p.keys, (std::vector<std::map<std::string, int64_t>>{{{"X", 100003}}}));
  EXPECT_FALSE(p.grid_macros);
  for (const auto& c : m.configs) {
    // Kernel Tuner's macros besides the parameters: block_size_y and _z (no parameters: 1), kernel_tuner.
    EXPECT_EQ(c.defines, (std::vector<std::pair<std::string, int64_t>>{
                             {"block_size_y", 1}, {"block_size_z", 1}, {"kernel_tuner", 1}}));
  }
  // The files, read back.
  const auto back = ktune::Manifest::from_json(ktune::read_json_file(p.manifest_path), "m");
  EXPECT_EQ(back.configs.front().defines.size(), 3u);
  EXPECT_EQ(back.default_id, m.default_id);
  const std::string wrapper = read(p.kernel_dir / "scaled_sum.t1.cu");
  EXPECT_NE(wrapper.find("extern \"C\" {\n#include \"kernel.cu\"\n}"), std::string::npos) << wrapper;
  EXPECT_NE(wrapper.find("constexpr int loop_unroll_factor_0 = ktune_t1_loop_unroll_factor_0;"), std::string::npos);
  // Each config's compile: its parameters, then Kernel Tuner's other macros.
  std::string command;
  for (const auto& a : ktune::compile_job(back, back.configs[8], p.kernel_dir).command) command += a + " ";
  EXPECT_NE(command.find("-Dblock_size_x=256 -Dtile_size_x=1 -Dloop_unroll_factor_0=0 -Dblock_size_y=1 "
                         "-Dblock_size_z=1 -Dkernel_tuner=1 "),
            std::string::npos)
      << command;
  EXPECT_FALSE(fs::exists(p.kernel_dir / "on_demand.ninja")) << "the manifest is a definition, not a list";
  const auto run = ktune::T1Run::from_json(ktune::read_json_file(p.run_file), "run");
  EXPECT_EQ(run.manifest, p.manifest_path.string());
  EXPECT_EQ(fs::path(run.spec).filename(), "s.T1.json");
  EXPECT_EQ(run.atol, 1e-3);
  EXPECT_FALSE(run.rtol);

  // Planned again with nothing changed: no file rewritten (Ninja compiles nothing).
  const auto before = fs::last_write_time(p.manifest_path);
  ktune::plan_t1(r);
  EXPECT_EQ(fs::last_write_time(p.manifest_path), before);
}

TEST(T1Plan, ExternCAsKernelTunerDecidesButNotInComments) {
  TempDir dir("ktune_t1_plan");
  const auto wrapper = [&](const std::string& kernel) {
    auto r = request(dir, write_spec(dir, spec(), kernel));
    const auto p = ktune::plan_t1(r);
    return read(p.kernel_dir / "scaled_sum.t1.cu");
  };
  EXPECT_EQ(wrapper(std::string("extern \"C\" ") + kKernel).find("extern \"C\" {"), std::string::npos);
  EXPECT_NE(wrapper(std::string("// compiled as extern \"C\" by Kernel Tuner\n/* extern \"C\" */") + kKernel)
                .find("extern \"C\" {"),
            std::string::npos);
}

TEST(T1Plan, GridMacrosForOneProblemSizeOnly) {
  TempDir dir("ktune_t1_plan");
  const std::string kernel = std::string(kKernel) + "// grid: grid_size_x blocks\nint blocks = grid_size_x;\n";
  auto r = request(dir, write_spec(dir, spec(), kernel));
  const auto p = ktune::plan_t1(r);
  EXPECT_TRUE(p.grid_macros);
  for (const auto& c : p.manifest.configs) {
    // grid_size_x = ceil(100003 / (block_size_x * tile_size_x))
    const int64_t divisor = c.values[0] * c.values[1];
    ASSERT_EQ(c.defines.front().first, "grid_size_x");
    EXPECT_EQ(c.defines.front().second, (100003 + divisor - 1) / divisor);
  }
  r.problem_sizes = {{1000}, {2000}};
  const std::string m = error_of([&] { ktune::plan_t1(r); });
  EXPECT_NE(m.find("names grid_size_x/y/z"), std::string::npos) << m;
  EXPECT_NE(m.find("one --problem-size per --out directory"), std::string::npos) << m;
}

TEST(T1Plan, ProblemSizesAreKeys) {
  TempDir dir("ktune_t1_plan");
  auto r = request(dir, write_spec(dir, spec()));
  r.problem_sizes = {{1000}, {2000}};
  const auto p = ktune::plan_t1(r);
  EXPECT_EQ(p.keys, (std::vector<std::map<std::string, int64_t>>{{{"X", 1000}}, {{"X", 2000}}}));
  EXPECT_EQ(p.manifest.keys.size(), 2u);
  EXPECT_EQ(ktune::t1_key(std::vector<int64_t>{4, 5, 6}),
            (std::map<std::string, int64_t>{{"X", 4}, {"Y", 5}, {"Z", 6}}));
  EXPECT_EQ(ktune::t1_problem_size({{"X", 4}, {"Y", 5}}), (std::vector<int64_t>{4, 5}));
  EXPECT_NE(error_of([] { ktune::t1_problem_size({{"M", 4}}); }).find("X, Y and Z"), std::string::npos);
  EXPECT_NE(error_of([] { ktune::t1_problem_size({{"X", 4}, {"Z", 5}}); }).find("X, Y and Z"), std::string::npos);
  EXPECT_EQ(ktune::parse_problem_size("4096, 2048", "--problem-size"), (std::vector<int64_t>{4096, 2048}));
  for (const char* bad : {"", "0", "-4", "4096x4096", "1,2,3,4", "a"})
    EXPECT_NE(error_of([&] { ktune::parse_problem_size(bad, "--problem-size"); }).find("--problem-size"),
              std::string::npos)
        << bad;

  r.problem_sizes = {{1000}, {1000, 8}};
  EXPECT_NE(error_of([&] { ktune::plan_t1(r); }).find("the same number of dimensions"), std::string::npos);
  r.problem_sizes = {{1000}, {1000}};
  EXPECT_NE(error_of([&] { ktune::plan_t1(r); }).find("X=1000 is given twice"), std::string::npos);
  json two = spec();
  two["KernelSpecification"]["Arguments"][1]["Size"] = "ProblemSize[1] - 5";
  auto r2 = request(dir, write_spec(dir, two));
  r2.problem_sizes = {{1000, 3}};
  const std::string m = error_of([&] { ktune::plan_t1(r2); });
  EXPECT_NE(m.find("Arguments[1] (x).Size, for the problem size X=1000,Y=3 \"ProblemSize[1] - 5\" gives -2 elements"),
            std::string::npos)
      << m;
}

TEST(T1Plan, ErrorsNameTheFileTheFieldAndTheFix) {
  TempDir dir("ktune_t1_plan");
  struct Case {
    std::function<void(json&)> change;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](json& d) { d["KernelSpecification"]["KernelFile"] = "missing.cu"; },
       "KernelSpecification.KernelFile \"missing.cu\" not found (looked at missing.cu, "},
      {[](json& d) { d["KernelSpecification"].erase("KernelFile"); }, "has no \"KernelFile\"; add it or pass --source"},
      {[](json& d) { d["KernelSpecification"].erase("ProblemSize"); },
       "has no \"ProblemSize\"; add it or pass --problem-size"},
      {[](json& d) { d["KernelSpecification"]["LocalSize"]["X"] = "64"; },
       "LocalSize.X \"64\" is 64 for block_size_x=128"},
      {[](json& d) { d["ConfigurationSpace"]["Conditions"][0]["Expression"] = "block_size_x > 1000"; },
       "the space is empty"},
      {[](json& d) {
         d["KernelSpecification"]["Language"] = "OpenCL";
         d["ConfigurationSpace"]["Conditions"][0]["Expression"] = "block_size_x >";
       },
       "KernelSpecification.Language \"OpenCL\" is not supported"},
      {[](json& d) { d["ConfigurationSpace"]["TuningParameters"][0]["Name"] = "grid_size_x"; },
       "TuningParameters[0].Name \"grid_size_x\" is not allowed"},
      {[](json& d) { d.erase("ConfigurationSpace"); }, "not a T1 spec"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    json doc = spec();
    cases[i].change(doc);
    auto r = request(dir, write_spec(dir, doc));
    const std::string m = error_of([&] { ktune::plan_t1(r); });
    EXPECT_NE(m.find(cases[i].message), std::string::npos) << "case " << i << ": " << m;
    EXPECT_NE(m.find("s.T1.json: "), std::string::npos) << "case " << i << ": " << m;
  }
  // --source instead of KernelFile; and one that is missing.
  json doc = spec();
  doc["KernelSpecification"]["KernelFile"] = "elsewhere/k.cu";
  auto r = request(dir, write_spec(dir, doc));
  r.source = (dir.path() / "specs" / "kernel.cu").string();
  EXPECT_EQ(ktune::plan_t1(r).source, r.source);
  r.source = (dir.path() / "nope.cu").string();
  EXPECT_NE(error_of([&] { ktune::plan_t1(r); }).find("--source " + r.source + ": no such file"), std::string::npos);
  // A KernelFile beside the spec's directory, as Kernel Tuner also looks.
  doc["KernelSpecification"]["KernelFile"] = "specs/kernel.cu";
  r = request(dir, write_spec(dir, doc));
  EXPECT_EQ(ktune::plan_t1(r).source, (dir.path() / "specs" / "kernel.cu").string());
}

// A condition that fails to evaluate: the hint to guard a division only when it divided.
TEST(T1Plan, DivisionHintOnlyForADivision) {
  TempDir dir("ktune_t1_plan");
  json doc = spec();
  doc["ConfigurationSpace"]["Conditions"][0]["Expression"] = "block_size_x % (block_size_x - block_size_x) == 0";
  std::string m = error_of([&] { ktune::plan_t1(request(dir, write_spec(dir, doc))); });
  EXPECT_NE(m.find("division by zero"), std::string::npos) << m;
  EXPECT_NE(m.find("guard the division"), std::string::npos) << m;
  doc["ConfigurationSpace"]["Conditions"][0]["Expression"] = "(1 << (block_size_x - 1000)) > 0";
  m = error_of([&] { ktune::plan_t1(request(dir, write_spec(dir, doc))); });
  EXPECT_NE(m.find("negative shift count"), std::string::npos) << m;
  EXPECT_EQ(m.find("guard the division"), std::string::npos) << m;
}

// Real specs' Defaults as Kernel Tuner runs them: outside the values, breaking a condition,
// written as a one-element list, or not usable at all. The reference outputs come from the
// Default's values when it has them; the space's DEFAULT (the baseline) is then the first
// valid config when the Default is not one.
TEST(T1Plan, MessyDefaultsAreRunAsKernelTunerRunsThem) {
  TempDir dir("ktune_t1_plan");
  auto plan = [&](const std::function<void(json&)>& change) {
    json doc = spec();
    change(doc);
    return ktune::plan_t1(request(dir, write_spec(dir, doc)));
  };
  const auto first = ktune::plan_t1(request(dir, write_spec(dir, spec()))).manifest.configs[0];

  auto outside = plan([](json& d) { d["ConfigurationSpace"]["TuningParameters"][0]["Default"] = 32; });
  EXPECT_EQ(outside.reference, (std::vector<int64_t>{32, 2, 0}));
  EXPECT_NE(outside.default_outside.find("block_size_x=32 is not among the values"), std::string::npos)
      << outside.default_outside;
  EXPECT_EQ(outside.manifest.default_id, first.id);
  EXPECT_EQ(ktune::T1Run::from_json(ktune::read_json_file(outside.run_file), "run").reference, outside.reference);

  auto breaking = plan([](json& d) { d["ConfigurationSpace"]["TuningParameters"][0]["Default"] = 256; });
  EXPECT_EQ(breaking.reference, (std::vector<int64_t>{256, 2, 0}));
  EXPECT_NE(breaking.default_outside.find("violates constraint 1"), std::string::npos) << breaking.default_outside;
  EXPECT_EQ(breaking.manifest.default_id, first.id);

  auto listed = plan([](json& d) { d["ConfigurationSpace"]["TuningParameters"][1]["Default"] = json::array({1}); });
  EXPECT_EQ(listed.reference, (std::vector<int64_t>{128, 1, 0}));
  EXPECT_TRUE(listed.default_outside.empty());
  EXPECT_EQ(listed.manifest.configs[listed.manifest.default_index()].values, listed.reference);

  auto unusable = plan([](json& d) { d["ConfigurationSpace"]["TuningParameters"][2]["Default"] = "zero"; });
  EXPECT_EQ(unusable.reference, first.values);
  EXPECT_NE(
      unusable.reference_why.find("TuningParameters[2] (loop_unroll_factor_0).Default \"zero\" is not an integer"),
      std::string::npos)
      << unusable.reference_why;
  EXPECT_FALSE(unusable.default_from_spec);
}

// CompilerOptions and --flag follow the one rule of nvcc_flags.hpp (FLAGS' rule), each
// named by its field; Kernel Tuner's own macros count as ktune's.
TEST(T1Plan, CompilerOptionsFollowTheNvccFlagRule) {
  TempDir dir("ktune_t1_plan");
  auto refusal = [&](std::vector<std::string> options, std::vector<std::string> flags = {}) {
    json doc = spec();
    doc["KernelSpecification"]["CompilerOptions"] = options;
    auto r = request(dir, write_spec(dir, doc));
    r.compile.flags = std::move(flags);
    std::string m = error_of([&] { ktune::plan_t1(r); });
    const std::string origin = r.spec.string() + ": ";
    if (m.starts_with(origin)) m.replace(0, origin.size(), "s.T1.json: ");
    return m;
  };
  EXPECT_EQ(refusal({"-std=c++17", "--use_fast_math", "-DEXTRA=1"}, {"-lineinfo"}), "no error");
  EXPECT_EQ(refusal({"-std=c++17", "-O3", "-ccbin=/tmp/evil.sh"}),
            "s.T1.json: KernelSpecification.CompilerOptions[2] '-ccbin=/tmp/evil.sh' selects the host compiler, and "
            "no flag may choose which program a compile runs; drop it (nvcc's host compiler is chosen by the "
            "environment variable NVCC_CCBIN)");
  EXPECT_EQ(refusal({"--compiler-bindir", "/tmp"}).substr(0, 70),
            "s.T1.json: KernelSpecification.CompilerOptions[0] '--compiler-bindir' ");
  EXPECT_EQ(refusal({"-arch=sm_80"}),
            "s.T1.json: KernelSpecification.CompilerOptions[0] '-arch=sm_80' sets the architecture, which ktune sets "
            "for every cubin; drop it and pass --arch to `ktune tune --t1`");
  EXPECT_NE(
      refusal({"-gencode", "arch=compute_80,code=sm_80"}).find("CompilerOptions[0] '-gencode' sets the architecture"),
      std::string::npos);
  EXPECT_NE(refusal({"-o", "x.cubin"}).find("CompilerOptions[0] '-o' sets what nvcc writes or where"),
            std::string::npos);
  EXPECT_NE(refusal({"-MF", "x.d"}).find("CompilerOptions[0] '-MF' sets what nvcc writes"), std::string::npos);
  EXPECT_EQ(refusal({"-Dtile_size_x=4"}),
            "s.T1.json: KernelSpecification.CompilerOptions[0] '-Dtile_size_x=4' sets the macro of parameter "
            "tile_size_x, which ktune sets to each config's value; drop it or rename the parameter");
  EXPECT_NE(refusal({"-D", "block_size_x=1"}).find("CompilerOptions[0] '-D' sets the macro of parameter block_size_x"),
            std::string::npos);
  EXPECT_NE(refusal({"--define-macro=kernel_tuner=0"})
                .find("CompilerOptions[0] '--define-macro=kernel_tuner=0' sets the macro kernel_tuner, which ktune "
                      "defines for every config; drop it"),
            std::string::npos);
  EXPECT_NE(refusal({"-Ugrid_size_y"}).find("sets the macro grid_size_y"), std::string::npos);
  EXPECT_NE(refusal({"-O3", ""}).find("CompilerOptions[1] '' is empty"), std::string::npos);
  EXPECT_EQ(refusal({"-O3"}, {"-lineinfo", "-arch=sm_80"}),
            "--flag '-arch=sm_80' sets the architecture, which ktune sets for every cubin; drop it and pass --arch "
            "to `ktune tune --t1`");
}

// A value listed twice would count its configs twice: refused as PARAMS refuses it,
// naming the parameter and the value, whichever form the list is written in.
TEST(T1Plan, DuplicateValuesAreRefused) {
  TempDir dir("ktune_t1_plan");
  for (const json& values : {json("[128, 128]"), json("[1, 2] + [1, 2]"), json("[64, 2**7, 128]"),
                             json("[i % 2 for i in range(3)]"), json::array({64, 64})}) {
    json doc = spec();
    doc["ConfigurationSpace"]["TuningParameters"][0]["Values"] = values;
    const std::string m = error_of([&] { ktune::plan_t1(request(dir, write_spec(dir, doc))); });
    EXPECT_NE(m.find("s.T1.json: TuningParameters[0] (block_size_x).Values lists the value "), std::string::npos)
        << values << ": " << m;
    EXPECT_NE(m.find(" twice; list each value once"), std::string::npos) << values << ": " << m;
  }
}

TEST(T1Plan, RunFileErrors) {
  EXPECT_NE(
      error_of([] { ktune::T1Run::from_json(json::object(), "run.json"); }).find("run.json: not a ktune T1 run file"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              ktune::T1Run::from_json({{"schema", "ktune.t1_run"}, {"spec", "s"}, {"manifest", 3}}, "run.json");
            }).find("\"manifest\" is not a path"),
            std::string::npos);
  EXPECT_NE(
      error_of([] {
        ktune::T1Run::from_json({{"schema", "ktune.t1_run"}, {"spec", "s"}, {"manifest", "m"}, {"atol", -1}}, "r");
      }).find("\"atol\" is not a non-negative number"),
      std::string::npos);
}

namespace {

// The harness without a GPU: buffers get made-up device addresses, and the expectation
// (the Default config's run, which needs a GPU) is left as the fill.
class NoGpuHarness : public ktune::Harness {
 public:
  using Harness::Harness;

 protected:
  void upload(Slot& s) override { s.device = 0x100000 * slots().size(); }
  void compute_on_device(Slot&, const std::function<void(CUdeviceptr, CUstream)>&) override { ++references; }

 public:
  int references = 0;
};

template <typename T>
T value_at(ktune::KernelArgs& a, std::size_t i) {
  T v;
  std::memcpy(&v, a.pointers()[i], sizeof v);
  return v;
}

}  // namespace

// The generic harness for one key: the arguments in order (arrays as device pointers,
// scalars by value with their type), the constant copy, the outputs checked, and the
// launch of a config as Kernel Tuner computes it.
TEST(T1Harness, MakesTheArgumentsAndLaunchesOfAKey) {
  TempDir dir("ktune_t1_harness");
  auto r = request(dir, write_spec(dir, spec()));
  r.rtol = 0.5;
  r.save_arguments = (dir.path() / "saved").string();
  const auto p = ktune::plan_t1(r);
  ASSERT_EQ(::setenv(ktune::kT1RunVariable, p.run_file.c_str(), 1), 0);

  NoGpuHarness h({{"X", 1000}});
  ktune_harness(h);
  ASSERT_EQ(h.slots().size(), 4u);  // y, x, counts, weights: arrays; alpha and n are by value
  const auto& y = h.slots()[0];
  EXPECT_TRUE(y.output);
  EXPECT_EQ(y.type, "float");
  EXPECT_EQ(y.elements, 1000u);
  EXPECT_EQ(y.tolerance.rel, 0.5);
  EXPECT_EQ(y.tolerance.abs, ktune::default_tolerance<float>().abs);
  EXPECT_EQ(h.references, 1);  // one expectation: the Default config's y
  EXPECT_EQ(h.slots()[1].type, "double");
  EXPECT_EQ(reinterpret_cast<const double*>(h.slots()[1].host.data())[999], 0.5);  // Constant 0.5
  EXPECT_EQ(h.slots()[2].type, "int32");
  const auto* counts = reinterpret_cast<const int32_t*>(h.slots()[2].host.data());
  bool varied = false;
  for (int i = 0; i < 1000; ++i) {
    EXPECT_TRUE(counts[i] >= 0 && counts[i] < 100) << counts[i];
    varied |= counts[i] != counts[0];
  }
  EXPECT_TRUE(varied);
  ASSERT_EQ(h.constants().size(), 1u);
  EXPECT_EQ(h.constants()[0].symbol, "weights");
  EXPECT_EQ(h.constants()[0].slot, 3);
  EXPECT_EQ(h.slots()[3].elements, 4u);

  // block_size_x=64, tile_size_x=2: block 64; grid ceil(1000 / 128) = 8.
  ktune::Launch l =
      h.launch_template()(ktune::Config({"block_size_x", "tile_size_x", "loop_unroll_factor_0"}, {64, 2, 4}));
  EXPECT_EQ(l.block.x, 64u);
  EXPECT_EQ(l.block.y * l.block.z, 1u);
  EXPECT_EQ(l.grid.x, 8u);
  EXPECT_EQ(l.grid.y * l.grid.z, 1u);
  EXPECT_EQ(l.shared_bytes, 0u);
  ASSERT_EQ(l.args.count(), 6u);
  EXPECT_EQ(value_at<CUdeviceptr>(l.args, 0), h.slots()[0].device);
  EXPECT_EQ(value_at<CUdeviceptr>(l.args, 1), h.slots()[1].device);
  EXPECT_EQ(value_at<CUdeviceptr>(l.args, 2), h.slots()[2].device);
  EXPECT_EQ(value_at<float>(l.args, 3), 2.5f);
  EXPECT_EQ(value_at<int32_t>(l.args, 4), 100003);
  EXPECT_EQ(value_at<CUdeviceptr>(l.args, 5), h.slots()[3].device);  // as Kernel Tuner: passed too
  // --save-arguments: each array as it starts, each output as the Default left it (here: its fill).
  const fs::path saved = dir.path() / "saved" / "1000";
  EXPECT_EQ(ktune::test_support::names_in(saved),
            (std::vector<std::string>{"counts.bin", "weights.bin", "x.bin", "y.bin", "y.expected.bin"}));
  EXPECT_EQ(fs::file_size(saved / "x.bin"), 8000u);
  EXPECT_EQ(read(saved / "y.bin"), std::string(reinterpret_cast<const char*>(y.host.data()), y.host.size()));
  EXPECT_EQ(read(saved / "y.expected.bin"), read(saved / "y.bin"));
  // A key that is not a problem size.
  NoGpuHarness bad({{"N", 4}});
  EXPECT_NE(error_of([&] { ktune_harness(bad); }).find("X, Y and Z"), std::string::npos);
}

TEST(KernelArgs, PushAppendsAtRunTimeUpToTheLimit) {
  ktune::KernelArgs a;
  a.push(int8_t{-3});
  a.push(1.5);
  a.push(CUdeviceptr{0x1234});
  ASSERT_EQ(a.count(), 3u);
  EXPECT_EQ(value_at<int8_t>(a, 0), -3);
  EXPECT_EQ(value_at<double>(a, 1), 1.5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.pointers()[1]) % alignof(double), 0u);
  EXPECT_EQ(value_at<CUdeviceptr>(a, 2), 0x1234u);
  ktune::KernelArgs full;
  for (std::size_t i = 0; i < ktune::KernelArgs::kMaxArgs; ++i) full.push(int32_t(i));
  EXPECT_NE(error_of([&] { full.push(1); }).find("more than 48 kernel arguments"), std::string::npos);
}

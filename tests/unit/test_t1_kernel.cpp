// The KernelSpecification of T1 specs: every field read, every unsupported one refused
// with its field and fix, and block, grid, sizes and macros as Kernel Tuner computes them
// (kernel_tuner/util.py), on examples worked out by hand in the comments.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "ktune/manifest.hpp"
#include "ktune/t1_kernel.hpp"
#include "ktune/t1_spec.hpp"
#include "error_of.hpp"

namespace {

using nlohmann::json;

std::filesystem::path hub(const char* file) { return std::filesystem::path(KTUNE_BENCHMARK_HUB) / file; }

// A small spec in the shape of benchmark_hub's convolution_milo.T1.json.
json base_spec() {
  return json::parse(R"json({
    "ConfigurationSpace": {
      "TuningParameters": [
        {"Name": "block_size_x", "Type": "int", "Values": "[16, 32, 48]", "Default": 16},
        {"Name": "block_size_y", "Type": "int", "Values": "[1, 2, 16]", "Default": 16},
        {"Name": "tile_size_x", "Type": "int", "Values": "[1, 2]", "Default": 1},
        {"Name": "tile_size_y", "Type": "int", "Values": "[1, 3]", "Default": 1},
        {"Name": "filter_width", "Type": "int", "Values": "[15]", "Default": 15},
        {"Name": "filter_height", "Type": "int", "Values": "[7, 15]", "Default": 15}
      ],
      "Conditions": []
    },
    "KernelSpecification": {
      "Language": "CUDA",
      "CompilerOptions": ["-std=c++11", "--use_fast_math"],
      "KernelName": "convolution_kernel",
      "KernelFile": "convolution.cu",
      "GlobalSizeType": "CUDA",
      "LocalSize": {"X": "block_size_x", "Y": "block_size_y", "Z": "1"},
      "GlobalSize": {"X": "262144 // block_size_x", "Y": "1", "Z": "1"},
      "GridDivX": ["block_size_x", "tile_size_x"],
      "GridDivY": ["block_size_y", "tile_size_y"],
      "ProblemSize": [4096, 4096],
      "SharedMemory": 0,
      "Stream": null,
      "Arguments": [
        {"Name": "output_image", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly",
         "FillType": "Constant", "Size": "ProblemSize[0]*ProblemSize[1]", "FillValue": 0.0, "Output": 1},
        {"Name": "input_image", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadOnly",
         "FillType": "Random", "Size": "(ProblemSize[0]+max(filter_width)-1) * (ProblemSize[1]+max(filter_height)-1)",
         "FillValue": 1.0},
        {"Name": "d_filter", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadOnly", "MemType": "Constant",
         "FillType": "Random", "RandomSeed": 9, "Size": "max(filter_height) * max(filter_width)", "FillValue": 1.0},
        {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": 40}
      ]
    }
  })json");
}

ktune::T1Kernel read(const json& doc) { return ktune::read_t1_kernel(doc, "spec.json"); }

using ktune::test_support::error_of;

std::vector<std::string> names_of(const ktune::SpaceSpec& s) {
  std::vector<std::string> n;
  for (const auto& p : s.parameters) n.push_back(p.name);
  return n;
}

}  // namespace

TEST(T1Kernel, ReadsEveryField) {
  const json doc = base_spec();
  const ktune::T1Kernel k = read(doc);
  EXPECT_EQ(k.kernel_name, "convolution_kernel");
  EXPECT_EQ(k.kernel_file, "convolution.cu");
  EXPECT_EQ(k.compiler_options, (std::vector<std::string>{"-std=c++11", "--use_fast_math"}));
  EXPECT_EQ(k.problem_size, (std::vector<int64_t>{4096, 4096}));
  ASSERT_TRUE(k.grid_div[0] && k.grid_div[1]);
  EXPECT_EQ(*k.grid_div[0], (std::vector<std::string>{"block_size_x", "tile_size_x"}));
  EXPECT_FALSE(k.grid_div[2]);  // absent: Kernel Tuner's default, block_size_z
  EXPECT_EQ(k.local_size[0], "block_size_x");
  EXPECT_EQ(k.local_size[2], "1");
  EXPECT_EQ(k.shared_memory, 0u);
  ASSERT_EQ(k.arguments.size(), 4u);
  const auto& out = k.arguments[0];
  EXPECT_TRUE(out.vector && out.output && !out.constant);
  EXPECT_EQ(out.fill, ktune::T1Argument::Fill::Constant);
  EXPECT_EQ(out.type, ktune::T1Type::Float);
  const auto& in = k.arguments[1];
  EXPECT_FALSE(in.output);
  EXPECT_EQ(in.fill, ktune::T1Argument::Fill::Random);
  EXPECT_EQ(in.seed, 2u);  // no RandomSeed: the position + 1
  const auto& filter = k.arguments[2];
  EXPECT_TRUE(filter.constant);
  EXPECT_EQ(filter.seed, 9u);
  const auto& n = k.arguments[3];
  EXPECT_FALSE(n.vector);
  EXPECT_EQ(n.type, ktune::T1Type::Int32);
  EXPECT_EQ(n.value, 40);
  EXPECT_FALSE(k.strategy || k.budget || k.budget_seconds);
}

TEST(T1Kernel, ReadsTheBenchmarkHubSpecs) {
  for (const char* file : {"convolution_milo.T1.json", "dedispersion_milo.T1.json"}) {
    if (!std::filesystem::exists(hub(file))) GTEST_SKIP() << "SKIPPED: benchmark_hub data not found at " << hub(file);
    const json doc = ktune::read_json_file(hub(file));
    const ktune::T1Kernel k = read(doc);
    EXPECT_EQ(k.arguments.size(), 3u) << file;
    int outputs = 0, constants = 0;
    for (const auto& a : k.arguments) outputs += a.output, constants += a.constant;
    EXPECT_EQ(outputs, 1) << file;
    EXPECT_EQ(constants, 1) << file;
  }
}

TEST(T1Kernel, SearchAndBudgetMapToKtuneOptions) {
  json doc = base_spec();
  doc["Search"] = {{"Name", "genetic_algorithm"}, {"Attributes", json::array()}};
  doc["Budget"] = json::array(
      {{{"Type", "ConfigurationFraction"}, {"BudgetValue", 0.025}}, {{"Type", "TuningDuration"}, {"BudgetValue", 60}}});
  ktune::T1Kernel k = read(doc);
  EXPECT_EQ(k.strategy, "genetic");
  EXPECT_EQ(k.budget, "2.5%");
  EXPECT_EQ(k.budget_seconds, 60.0);
  doc["Search"]["Name"] = "brute_force";
  doc["Budget"] = json::array({{{"Type", "ConfigurationCount"}, {"BudgetValue", 100}}});
  k = read(doc);
  EXPECT_EQ(k.strategy, "exhaustive");
  EXPECT_EQ(k.budget, "100");
}

TEST(T1Kernel, OutputsWithoutTheOutputFieldAreTheWrittenVectors) {
  json doc = base_spec();
  doc["KernelSpecification"]["Arguments"][0].erase("Output");
  const ktune::T1Kernel k = read(doc);
  EXPECT_TRUE(k.arguments[0].output);   // WriteOnly
  EXPECT_FALSE(k.arguments[1].output);  // ReadOnly
}

// Each unsupported or malformed field: an error naming the file, the field and the fix.
TEST(T1Kernel, RefusesWhatItDoesNotSupportNamingTheFieldAndTheFix) {
  struct Case {
    std::function<void(json&)> change;
    std::vector<std::string> message;
  };
  auto ks = [](json& d) -> json& { return d["KernelSpecification"]; };
  auto arg = [&](json& d, int i) -> json& { return ks(d)["Arguments"][i]; };
  const std::vector<Case> cases = {
      {[&](json& d) { d.erase("KernelSpecification"); }, {"spec.json", "no \"KernelSpecification\""}},
      {[&](json& d) { ks(d)["Language"] = "OpenCL"; },
       {"KernelSpecification.Language \"OpenCL\" is not supported", "nvcc"}},
      {[&](json& d) { ks(d).erase("Language"); }, {"add \"Language\": \"CUDA\""}},
      {[&](json& d) { ks(d).erase("KernelName"); }, {"has no \"KernelName\""}},
      {[&](json& d) { ks(d)["KernelName"] = "conv<float>"; }, {"KernelName", "not a C identifier"}},
      {[&](json& d) { ks(d)["CompilerOptions"] = "-O3"; }, {"CompilerOptions", "list of nvcc flags"}},
      {[&](json& d) {
         ks(d)["ProblemSize"] = json::array({"N", 4});
       },
       {"KernelSpecification.ProblemSize[0]", "\"N\" is not supported", "--problem-size"}},
      {[&](json& d) {
         ks(d)["ProblemSize"] = json::array({1, 2, 3, 4});
       },
       {"ProblemSize", "1 to 3 sizes"}},
      {[&](json& d) { ks(d)["GridDivX"] = "block_size_x"; }, {"GridDivX", "list of expressions"}},
      {[&](json& d) { ks(d)["LocalSize"] = json::array(); }, {"LocalSize", "must be an object"}},
      {[&](json& d) { ks(d)["SharedMemory"] = -1; }, {"SharedMemory", "bytes"}},
      {[&](json& d) { ks(d)["Stream"] = 1; }, {"KernelSpecification.Stream", "set it to null"}},
      {[&](json& d) { ks(d)["SimulationInput"] = "cache.json"; }, {"SimulationInput", "ktune simulate"}},
      {[&](json& d) { ks(d)["ReferenceArguments"] = json::array(); },
       {"ReferenceArguments", "Default config's outputs"}},
      {[&](json& d) { ks(d)["GlobalSizeType"] = "Vulkan"; }, {"GlobalSizeType", "\"Vulkan\" is not supported"}},
      {[&](json& d) { ks(d).erase("Arguments"); }, {"has no \"Arguments\""}},
      {[&](json& d) { arg(d, 1)["Type"] = "float4"; },
       {"Arguments[1] (input_image).Type", "\"float4\" is not supported", "vector types"}},
      {[&](json& d) { arg(d, 1)["Type"] = "custom"; }, {"Arguments[1] (input_image).Type", "use one of"}},
      {[&](json& d) { arg(d, 1).erase("Type"); }, {"Arguments[1] (input_image)", "has no \"Type\""}},
      {[&](json& d) { arg(d, 1)["MemoryType"] = "Local"; }, {"Arguments[1] (input_image).MemoryType", "\"Local\""}},
      {[&](json& d) { arg(d, 2)["MemoryType"] = "Symbol"; },
       {"\"Symbol\" is not supported", "\"MemType\": \"Constant\""}},
      {[&](json& d) { arg(d, 2)["MemType"] = "Texture"; }, {"Arguments[2] (d_filter).MemType", "\"Texture\""}},
      {[&](json& d) { arg(d, 2)["Name"] = "d filter"; }, {"Name", "__constant__ variable"}},
      {[&](json& d) { arg(d, 1)["FillType"] = "Generator"; }, {"Arguments[1] (input_image).FillType", "\"Generator\""}},
      {[&](json& d) { arg(d, 1)["FillType"] = "BinaryRaw"; }, {"FillType \"BinaryRaw\" is not supported", "Constant"}},
      {[&](json& d) { arg(d, 1).erase("FillType"); }, {"has no \"FillType\""}},
      {[&](json& d) { arg(d, 0).erase("FillValue"); }, {"Arguments[0] (output_image).FillValue", "is missing"}},
      {[&](json& d) { arg(d, 3)["FillValue"] = 2.5; }, {"Arguments[3] (n).FillValue", "not an integer"}},
      {[&](json& d) { arg(d, 1).erase("Size"); }, {"has no \"Size\""}},
      {[&](json& d) { arg(d, 1)["TypeSize"] = 8; }, {"TypeSize", "custom types"}},
      {[&](json& d) { arg(d, 1)["RandomSeed"] = -1; }, {"RandomSeed", "non-negative"}},
      {[&](json& d) { arg(d, 1)["AccessType"] = "Sometimes"; }, {"AccessType", "ReadOnly, WriteOnly, ReadWrite"}},
      {[&](json& d) { arg(d, 3)["Output"] = 1; }, {"Arguments[3] (n).Output", "marks a Scalar"}},
      {[&](json& d) { arg(d, 2)["Output"] = 1; }, {"Arguments[2] (d_filter).Output", "constant memory"}},
      {[&](json& d) { arg(d, 0)["Output"] = 0; }, {"has no output to check", "\"Output\": 1"}},
      {[&](json& d) { arg(d, 0)["Output"] = 2; }, {"Output", "must be 0 or 1"}},
      {[&](json& d) { arg(d, 1)["Type"] = "bool"; }, {"\"bool\" vectors are not supported", "uint8"}},
      {[&](json& d) {
         d["Budget"] = json::array({{{"Type", "Energy"}, {"BudgetValue", 1}}});
       },
       {"Budget[0].Type", "Energy"}},
      {[&](json& d) {
         d["Budget"] = json::array({{{"Type", "ConfigurationFraction"}, {"BudgetValue", 5}}});
       },
       {"Budget[0].BudgetValue", "fraction"}},
      {[&](json& d) { d["Search"] = json::object(); }, {"Search", "\"Name\""}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    json doc = base_spec();
    cases[i].change(doc);
    const std::string m = error_of([&] { read(doc); });
    EXPECT_NE(m.find("spec.json: "), std::string::npos) << "case " << i << ": " << m;
    for (const auto& part : cases[i].message) EXPECT_NE(m.find(part), std::string::npos) << "case " << i << ": " << m;
  }
}

// Sizes as Kernel Tuner's eval(Size, {**tune_params, "ProblemSize": problem_size}) gives them.
TEST(T1Kernel, SizeExpressionsOfTheProblemSizeAndParameterLists) {
  const ktune::SpaceSpec s = ktune::read_t1_spec(base_spec(), "spec.json");
  auto size = [&](const std::string& text, std::vector<int64_t> ps) { return ktune::t1_elements(text, s, ps, "Size"); };
  EXPECT_EQ(size("ProblemSize[0]*ProblemSize[1]", {4096, 4096}), 16777216);
  // (4096 + 15 - 1) * (4096 + 15 - 1) = 4110 * 4110
  EXPECT_EQ(size("(ProblemSize[0]+max(filter_width)-1) * (ProblemSize[1]+max(filter_height)-1)", {4096, 4096}),
            16892100);
  EXPECT_EQ(size("max(filter_height) * max(filter_width)", {1}), 225);
  EXPECT_EQ(size("min(filter_height) + max( block_size_x )", {1}), 7 + 48);
  EXPECT_EQ(size("ProblemSize[0] / 3", {10}), 3);     // int(3.33...)
  EXPECT_EQ(size("max(ProblemSize[0], 7)", {5}), 7);  // max of numbers stays max
  EXPECT_EQ(size("1000", {1}), 1000);
  auto error = [&](const std::string& text, std::vector<int64_t> ps) { return error_of([&] { size(text, ps); }); };
  EXPECT_NE(error("ProblemSize * 2", {4}).find("ProblemSize is a list"), std::string::npos);
  EXPECT_NE(error("ProblemSize[2]", {4, 4}).find("beyond the problem size, which has 2 dimensions"), std::string::npos);
  EXPECT_NE(error("ProblemSize[0] - 10", {5}).find("gives -5 elements"), std::string::npos);
  EXPECT_NE(error("tile_size_y + 1", {5}).find("write max(tile_size_y) or min(tile_size_y)"), std::string::npos);
  EXPECT_NE(error("nope + 1", {5}).find("Size \"nope + 1\""), std::string::npos);
  EXPECT_NE(error("ProblemSize[0] // 0", {5}).find("Size \"ProblemSize[0] // 0\""), std::string::npos);
}

// Block and grid as kernel_tuner/util.py computes them; each example worked out by hand.
TEST(T1Kernel, BlockAndGridFollowKernelTuner) {
  const json doc = base_spec();
  const ktune::SpaceSpec s = ktune::read_t1_spec(doc, "spec.json");
  const ktune::T1Geometry g(read(doc), names_of(s), "spec.json");
  // block_size_x=16 block_size_y=16 tile_size_x=2 tile_size_y=3 on 4096 x 4096:
  // divisors 16 * 2 = 32 and 16 * 3 = 48; grid 4096 / 32 = 128 and ceil(4096 / 48) = ceil(85.33) = 86.
  const std::vector<int64_t> v = {16, 16, 2, 3, 15, 15};
  const std::vector<int64_t> ps = {4096, 4096};
  EXPECT_EQ(g.block(v), (ktune::T1Geometry::Dims{16, 16, 1}));
  EXPECT_EQ(g.divisors(v), (ktune::T1Geometry::Dims{32, 48, 1}));
  EXPECT_EQ(g.grid(v, ps), (ktune::T1Geometry::Dims{128, 86, 1}));
  EXPECT_NO_THROW(g.check_local_size(v));
  // One dimension of problem size: y and z are 1.
  EXPECT_EQ(g.grid(v, std::vector<int64_t>{100}), (ktune::T1Geometry::Dims{4, 1, 1}));  // ceil(100 / 32)
}

TEST(T1Kernel, GridDivisorDefaultsAreTheBlockSizeParameterElseOne) {
  json doc = base_spec();
  doc["KernelSpecification"].erase("GridDivX");
  doc["KernelSpecification"]["GridDivY"] = json::array();  // empty: the default too, as in Kernel Tuner's T1 reader
  doc["KernelSpecification"]["ProblemSize"] = json::array({1000, 30, 7});
  const ktune::SpaceSpec s = ktune::read_t1_spec(doc, "spec.json");
  const ktune::T1Geometry g(read(doc), names_of(s), "spec.json");
  const std::vector<int64_t> v = {48, 2, 2, 3, 15, 15};
  const std::vector<int64_t> ps = {1000, 30, 7};
  // x: block_size_x = 48 -> ceil(1000 / 48) = 21; y: block_size_y = 2 -> 15; z: no
  // block_size_z parameter -> divisor 1 -> 7.
  EXPECT_EQ(g.grid(v, ps), (ktune::T1Geometry::Dims{21, 15, 7}));

  // Without block_size_x at all: 256 threads (get_thread_block_dimensions), divisor 1.
  json no_bx = json::parse(R"json({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "tile", "Type": "int", "Values": "[1, 2]"}], "Conditions": []},
    "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "ProblemSize": [1000],
      "GridDivX": ["tile/32", "2"],
      "Arguments": [{"Name": "o", "Type": "float", "MemoryType": "Vector", "FillType": "Constant",
                     "FillValue": 0, "Size": "ProblemSize[0]", "Output": 1}]}})json");
  const ktune::SpaceSpec s2 = ktune::read_t1_spec(no_bx, "t.json");
  const ktune::T1Geometry g2(read(no_bx), names_of(s2), "t.json");
  EXPECT_EQ(g2.block(std::vector<int64_t>{1}), (ktune::T1Geometry::Dims{256, 1, 1}));
  // "tile/32" is 0.03 -> int() -> 0: Kernel Tuner divides by zero; ktune says which divisor.
  const std::string m = error_of([&] { g2.grid(std::vector<int64_t>{1}, std::vector<int64_t>{1000}); });
  EXPECT_NE(m.find("t.json: KernelSpecification.GridDivX gives the divisor 0 for tile=1"), std::string::npos) << m;
  json div_ok = no_bx;
  div_ok["KernelSpecification"]["GridDivX"] = json::array({"tile * 48 / 32", 2});  // 1.5 -> 1, times 2
  const ktune::T1Geometry g3(read(div_ok), names_of(s2), "t.json");
  EXPECT_EQ(g3.grid(std::vector<int64_t>{1}, std::vector<int64_t>{1000}), (ktune::T1Geometry::Dims{500, 1, 1}));
  EXPECT_EQ(g3.grid(std::vector<int64_t>{2}, std::vector<int64_t>{1000}), (ktune::T1Geometry::Dims{167, 1, 1}));  // 3*2
}

TEST(T1Kernel, LocalSizeMustAgreeWithKernelTunersBlock) {
  json doc = base_spec();
  doc["KernelSpecification"]["LocalSize"]["X"] = "2 * block_size_x";
  const ktune::SpaceSpec s = ktune::read_t1_spec(doc, "spec.json");
  const ktune::T1Geometry g(read(doc), names_of(s), "spec.json");
  const std::string m = error_of([&] { g.check_local_size(std::vector<int64_t>{16, 1, 1, 1, 15, 15}); });
  EXPECT_NE(m.find("KernelSpecification.LocalSize.X \"2 * block_size_x\" is 32"), std::string::npos) << m;
  EXPECT_NE(m.find("make it \"block_size_x\""), std::string::npos) << m;
  doc["KernelSpecification"]["LocalSize"] = {{"X", "block_size_x"}, {"Z", "4"}};
  const ktune::T1Geometry g2(read(doc), names_of(s), "spec.json");
  const std::string m2 = error_of([&] { g2.check_local_size(std::vector<int64_t>{16, 1, 1, 1, 15, 15}); });
  EXPECT_NE(m2.find("LocalSize.Z \"4\" is 4"), std::string::npos) << m2;
  EXPECT_NE(m2.find("add a parameter block_size_z"), std::string::npos) << m2;
}

TEST(T1Kernel, MacrosAreKernelTunersDefines) {
  const json doc = base_spec();
  const ktune::SpaceSpec s = ktune::read_t1_spec(doc, "spec.json");
  const ktune::T1Geometry g(read(doc), names_of(s), "spec.json");
  const std::vector<int64_t> v = {16, 16, 2, 3, 15, 7};
  using M = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(g.macros(v, std::vector<int64_t>{4096, 4096}, true), (M{{"grid_size_x", 128},
                                                                    {"grid_size_y", 86},
                                                                    {"grid_size_z", 1},
                                                                    {"block_size_z", 1},
                                                                    {"block_size_x", 16},
                                                                    {"block_size_y", 16},
                                                                    {"tile_size_x", 2},
                                                                    {"tile_size_y", 3},
                                                                    {"filter_width", 15},
                                                                    {"filter_height", 7},
                                                                    {"kernel_tuner", 1}}));
  EXPECT_EQ(g.macros(v, std::vector<int64_t>{4096, 4096}, false).front(),
            (std::pair<std::string, int64_t>{"block_size_z", 1}));
  // Kernel Tuner forbids parameters named after its own macros.
  EXPECT_NE(error_of([&] {
              ktune::T1Geometry(read(doc), {"grid_size_x"}, "spec.json");
            }).find("a parameter named grid_size_x is not allowed"),
            std::string::npos);
}

// The launch template checked on the host: the kernel's parameters read from its PTX, the
// limits of one launch, and the harness run without a GPU for each key, the template
// evaluated for the DEFAULT and the baked configs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/build_plan.hpp"
#include "ktune/error.hpp"
#include "ktune/launch_check.hpp"
#include "temp_dir.hpp"

namespace {

using ktune::Launch;
using ktune::launch_problems;
using ktune::ptx_param_sizes;

const char* kPtx = R"(
.visible .entry k2(
	.param .u64 k2_param_0
)
.visible .entry k(
	.param .u64 .ptr .global .align 1 k_param_0,
	.param .align 4 .b8 k_param_1[12],
	.param .u32 k_param_2,
	.param .f64 k_param_3,
	.param .u8 k_param_4,
	.param .align 128 .b8 k_param_5[128]
)
.visible .entry none()
)";

TEST(LaunchCheck, ReadsTheKernelsParametersFromItsPtx) {
  EXPECT_EQ(ptx_param_sizes(kPtx, "k"), (std::vector<std::size_t>{8, 12, 4, 8, 1, 128}));
  EXPECT_EQ(ptx_param_sizes(kPtx, "k2"), (std::vector<std::size_t>{8}));
  EXPECT_EQ(ptx_param_sizes(kPtx, "none"), (std::vector<std::size_t>{}));
  EXPECT_FALSE(ptx_param_sizes(kPtx, "missing"));
  EXPECT_FALSE(ptx_param_sizes(kPtx, "k3"));
}

Launch launch(ktune::Dim3 grid, ktune::Dim3 block, uint32_t shared = 0) {
  return Launch{grid, block, shared, ktune::args(uint64_t{1}, 2, 3.0f)};
}

TEST(LaunchCheck, LimitsOfOneLaunch) {
  const std::optional<std::vector<std::size_t>> params = std::vector<std::size_t>{8, 4, 4};
  EXPECT_TRUE(launch_problems(launch({100, 2}, {256}), params).empty());
  EXPECT_TRUE(launch_problems(launch({2147483647u, 65535, 65535}, {32, 32, 1}, 227 * 1024), params).empty());
  for (const ktune::Dim3& block : {ktune::Dim3{0}, ktune::Dim3{1025}, ktune::Dim3{32, 32, 2}, ktune::Dim3{1, 1, 65}}) {
    const auto p = launch_problems(launch({1}, block), params);
    ASSERT_EQ(p.size(), 1u) << block.x << " " << block.y << " " << block.z;
    EXPECT_NE(p[0].find("is not a CUDA block"), std::string::npos) << p[0];
  }
  for (const ktune::Dim3& grid : {ktune::Dim3{0}, ktune::Dim3{1, 65536}, ktune::Dim3{1, 1, 0}}) {
    const auto p = launch_problems(launch(grid, {64}), params);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_NE(p[0].find("is not a CUDA grid"), std::string::npos) << p[0];
  }
  const auto shared = launch_problems(launch({1}, {64}, 227 * 1024 + 1), params);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_NE(shared[0].find("dynamic shared memory"), std::string::npos);
}

TEST(LaunchCheck, ArgumentsAgainstTheKernelsParameters) {
  const Launch l = launch({1}, {64});
  EXPECT_TRUE(launch_problems(l, std::nullopt).empty()) << "no parameters known: not checked";
  EXPECT_EQ(launch_problems(l, std::vector<std::size_t>{8, 4}),
            std::vector<std::string>{"3 kernel arguments, but the kernel takes 2"});
  const auto p = launch_problems(l, std::vector<std::size_t>{8, 8, 4});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].rfind("argument 2 is 4 bytes, but the kernel's parameter 2 is 8", 0), 0u) << p[0];
}

// A kernel of two parameters (A, B), two keys; the harnesses below stand in for users'.
class CheckLaunches : public testing::Test {
 protected:
  void SetUp() override {
    ktune::PlanRequest r;
    r.kernel = "k";
    r.source = (dir_.path() / "k.cu").string();
    r.params = {"A=1,2,4", "B=1..3"};
    r.default_text = "A=1 B=1";
    r.keys = {"N=100", "N=2000"};
    r.compile = {"nvcc", "90", {}, {}};
    m_ = ktune::make_plan(r).manifest;
    manifest_ = (dir_.path() / "manifest.json").string();
    std::ofstream(manifest_) << m_.to_json().dump(2);
    ptx_ = (dir_.path() / "k.ptx").string();
    std::ofstream(ptx_) << ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n";
  }
  std::string run(void (*harness)(ktune::Harness&), const std::string& bake = "") {
    return ktune::check_launches({manifest_, bake, ptx_}, harness);
  }
  std::string error(void (*harness)(ktune::Harness&), const std::string& bake = "") {
    try {
      run(harness, bake);
    } catch (const ktune::Error& e) {
      return e.what();
    }
    return "";
  }
  ktune::test_support::TempDir dir_;
  ktune::Manifest m_;
  std::string manifest_, ptx_;
};

void good_harness(ktune::Harness& h) {
  EXPECT_TRUE(h.checking_only());
  const int n = static_cast<int>(h.key("N"));
  auto x = h.output<float>(std::size_t(n) * 1000000);  // 4 GB at N=2000: never made on the host
  h.expect(x, [](std::span<float>) { FAIL() << "a launch check computes no reference"; });
  h.launch([=](const ktune::Config& c) {
    return Launch{{ktune::cdiv(n, c["A"] * 32)}, {static_cast<uint32_t>(c["B"] * 32)}, 0, ktune::args(x, n)};
  });
}

TEST_F(CheckLaunches, PassesAHarnessAndTemplateWithoutMistakes) {
  EXPECT_EQ(run(&good_harness),
            "k: launch template checked on the host: 2 keys, 2 launches (the DEFAULT and the baked configs); "
            "arguments match the kernel's 2 parameters");
}

void misspelt_parameter(ktune::Harness& h) {
  const int n = static_cast<int>(h.key("N"));
  h.launch([=](const ktune::Config& c) {
    return Launch{{ktune::cdiv(n, c["AA"])}, {32}, 0, ktune::args(uint64_t{0}, n)};
  });
}
void misspelt_key(ktune::Harness& h) { h.key("M"); }
void no_launch(ktune::Harness&) {}

TEST_F(CheckLaunches, NamesTheKeyConfigAndMistake) {
  const std::string e = error(&misspelt_parameter);
  EXPECT_NE(e.find("k: the launch template fails on the host (2 problems):"), std::string::npos) << e;
  EXPECT_NE(e.find("key N=100, config A=1 B=1 (the DEFAULT): the launch template: config has no parameter 'AA'"),
            std::string::npos)
      << e;
  EXPECT_NE(error(&misspelt_key).find("key N=2000: the harness: harness asks for key dimension 'M'"),
            std::string::npos);
  EXPECT_NE(error(&no_launch).find("the harness gave no launch template"), std::string::npos);
}

// The bake's choices: each entry's config with its key, the common best with every key.
TEST_F(CheckLaunches, EvaluatesTheBakedConfigs) {
  auto id = [&](std::vector<int64_t> values) { return m_.configs[*m_.configs.find(values)].id; };
  const std::string bake = (dir_.path() / "bake.json").string();
  std::ofstream(bake) << nlohmann::json{
      {"key_dims", {"N"}},
      {"tables",
       {{{"common_best", id({2, 3})},
         {"entries", {{{"key", {100}}, {"config", id({4, 3})}}, {{"key", {300}}, {"config", id({2, 3})}}}}}}}};
  EXPECT_EQ(run(&good_harness, bake),
            "k: launch template checked on the host: 3 keys, 7 launches (the DEFAULT and the baked configs); "
            "arguments match the kernel's 2 parameters");
}

}  // namespace

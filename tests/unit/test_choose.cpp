// The fallback chain of choose() on hand-made baked tables: no GPU, no files. The cubin and
// PTX bytes are stand-ins; choose() only looks at whether they are there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ktune/baked.hpp"
#include "ktune/choose.hpp"
#include "ktune/error.hpp"

namespace {

using ktune::BakedArch;
using ktune::BakedConfig;
using ktune::BakedEntry;
using ktune::BakedGpu;
using ktune::BakedKernel;
using ktune::ImageKind;
using ktune::Rule;

const unsigned char kCubinBytes[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
const unsigned char kPtxBytes[] = ".version 8.8\n.target sm_90\n";  // NUL included
constexpr ktune::BakedImage kCubin{kCubinBytes, sizeof kCubinBytes};
constexpr ktune::BakedImage kPtx{kPtxBytes, sizeof kPtxBytes};

const char* const kParameters[] = {"TM", "TN"};
const char* const kKeyDims[] = {"M", "N", "K"};

const int64_t kValues0[] = {64, 64};
const int64_t kValues1[] = {128, 64};
const int64_t kValues2[] = {128, 128};
const int64_t kValues3[] = {256, 32};

// 0 is the DEFAULT; 3 has no PTX.
const BakedConfig kConfigs[] = {
    {"0000000000000000", kValues0, kCubin, kPtx},
    {"1111111111111111", kValues1, kCubin, kPtx},
    {"2222222222222222", kValues2, kCubin, kPtx},
    {"3333333333333333", kValues3, kCubin, {}},
};
// As `ktune bake` writes them: PTX for the DEFAULT only.
const BakedConfig kConfigsDefaultPtxOnly[] = {
    {"0000000000000000", kValues0, kCubin, kPtx},
    {"1111111111111111", kValues1, kCubin, {}},
    {"2222222222222222", kValues2, kCubin, {}},
    {"3333333333333333", kValues3, kCubin, {}},
};

const int64_t kKey256[] = {256, 256, 256};
const int64_t kKey1024[] = {1024, 1024, 1024};
const int64_t kKey4096[] = {4096, 4096, 4096};

const BakedEntry kH200Entries[] = {
    {kKey256, 3, 0.01},
    {kKey1024, 1, 0.1},
    {kKey4096, 2, 2.5},
};
const BakedEntry kH100PcieEntries[] = {{kKey1024, 2, 0.15}};
const BakedEntry kA100Entries[] = {{kKey1024, 1, 0.3}};

// The H100 PCIe comes first so that "the first same-arch table" and "the most alike one"
// differ for a GPU of 132 SMs.
const BakedGpu kGpus[] = {
    {"NVIDIA H100 PCIe", 9, 0, 114, "dbs/sgemm.NVIDIA_H100_PCIe.json", kH100PcieEntries, 2},
    {"NVIDIA H200", 9, 0, 132, "dbs/sgemm.NVIDIA_H200.json", kH200Entries, 1},
    {"NVIDIA A100-SXM4-80GB", 8, 0, 108, "dbs/sgemm.NVIDIA_A100.json", kA100Entries, 1},
};
const BakedGpu& kH100Pcie = kGpus[0];
const BakedGpu& kH200 = kGpus[1];
const BakedGpu& kA100 = kGpus[2];

constexpr BakedArch kSm90{9, 0, false};
constexpr BakedArch kSm90a{9, 0, true};
constexpr BakedArch kSm80{8, 0, false};

BakedKernel kernel(std::span<const BakedGpu> gpus = kGpus, BakedArch cubin = kSm90, BakedArch ptx = kSm90,
                   std::span<const BakedConfig> configs = kConfigs) {
  return BakedKernel{"sgemm", "sgemm", kParameters, kKeyDims, configs, gpus, 0, cubin, ptx, "test tables"};
}

ktune::GpuInfo h200() { return {"NVIDIA H200", 9, 0, 132}; }
ktune::GpuInfo a100() { return {"NVIDIA A100-SXM4-80GB", 8, 0, 108}; }

std::vector<int64_t> key(int64_t m, int64_t n, int64_t k) { return {m, n, k}; }

std::string error_of(const BakedKernel& k, const ktune::GpuInfo& gpu, std::span<const int64_t> key,
                     const ktune::ChooseOptions& options = {}) {
  try {
    ktune::choose(k, gpu, key, options);
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Choose, ExactKeyOnTheTunedModel) {
  const BakedKernel k = kernel();
  const ktune::Choice c = ktune::choose(k, h200(), key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::Exact);
  EXPECT_EQ(c.config, 1);
  EXPECT_EQ(c.image, ImageKind::Cubin);
  EXPECT_EQ(c.table, &kH200);
  EXPECT_EQ(c.key_distance, 0);

  const ktune::Choice small = ktune::choose(k, h200(), key(256, 256, 256));
  EXPECT_EQ(small.rule, Rule::Exact);
  EXPECT_EQ(small.config, 3);
  EXPECT_EQ(small.image, ImageKind::Cubin);
}

TEST(Choose, DefaultOnlyIgnoresTheTables) {
  const BakedKernel k = kernel();
  const ktune::Choice c = ktune::choose(k, h200(), key(1024, 1024, 1024), {.default_only = true});
  EXPECT_EQ(c.rule, Rule::Default);
  EXPECT_EQ(c.config, k.default_config);
  EXPECT_EQ(c.image, ImageKind::Cubin);
}

TEST(Choose, NearestKeyWithinAFactorFour) {
  const BakedKernel k = kernel();
  const ktune::Choice c = ktune::choose(k, h200(), key(1000, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::NearestKey);
  EXPECT_EQ(c.config, 1);
  EXPECT_EQ(c.table, &kH200);
  EXPECT_NEAR(c.key_distance, std::log(1024.0 / 1000.0), 1e-12);

  // Nearer to 4096 than to 1024 in log space, though nearer to 1024 in plain numbers.
  const ktune::Choice d = ktune::choose(k, h200(), key(2500, 2500, 2500));
  EXPECT_EQ(d.rule, Rule::NearestKey);
  EXPECT_EQ(d.config, 2);
  EXPECT_NEAR(d.key_distance, std::sqrt(3.0) * std::log(4096.0 / 2500.0), 1e-12);

  // Off by a factor of 3.5 in one dimension only: still near.
  const ktune::Choice e = ktune::choose(k, h200(), key(1024, 1024, 3584));
  EXPECT_EQ(e.rule, Rule::NearestKey);
  EXPECT_EQ(e.config, 1);
}

TEST(Choose, CommonBestWhenNoKeyIsNear) {
  const BakedKernel k = kernel();
  const ktune::Choice big = ktune::choose(k, h200(), key(65536, 65536, 65536));  // 16x past 4096
  EXPECT_EQ(big.rule, Rule::CommonBest);
  EXPECT_EQ(big.config, kH200.common_best);
  EXPECT_EQ(big.table, &kH200);
  EXPECT_NEAR(big.key_distance, std::sqrt(3.0) * std::log(16.0), 1e-12);

  const ktune::Choice tiny = ktune::choose(k, h200(), key(4, 4, 4));  // 64x below 256
  EXPECT_EQ(tiny.rule, Rule::CommonBest);
  EXPECT_EQ(tiny.config, 1);
  EXPECT_EQ(tiny.image, ImageKind::Cubin);

  // A custom factor: 1.5 makes 1024 vs 2048 "far".
  const ktune::Choice strict = ktune::choose(k, h200(), key(2048, 1024, 1024), {.near_factor = 1.5});
  EXPECT_EQ(strict.rule, Rule::CommonBest);
}

TEST(Choose, SameArchTakesTheMostAlikeModel) {
  const BakedKernel k = kernel();
  // 132 SMs: the H200 (132) over the H100 PCIe (114), though the latter comes first.
  const ktune::Choice gh = ktune::choose(k, {"NVIDIA GH200 480GB", 9, 0, 132}, key(1024, 1024, 1024));
  EXPECT_EQ(gh.rule, Rule::SameArch);
  EXPECT_EQ(gh.table, &kH200);
  EXPECT_EQ(gh.config, 1);
  EXPECT_EQ(gh.image, ImageKind::Cubin);

  // 120 SMs: the H100 PCIe (6 away) over the H200 (12 away).
  const ktune::Choice nvl = ktune::choose(k, {"NVIDIA H100 NVL", 9, 0, 120}, key(1024, 1024, 1024));
  EXPECT_EQ(nvl.rule, Rule::SameArch);
  EXPECT_EQ(nvl.table, &kH100Pcie);
  EXPECT_EQ(nvl.config, 2);

  // A near key of the other model is same-arch too, with its distance.
  const ktune::Choice near = ktune::choose(k, {"NVIDIA GH200 480GB", 9, 0, 132}, key(1024, 1024, 1000));
  EXPECT_EQ(near.rule, Rule::SameArch);
  EXPECT_EQ(near.config, 1);
  EXPECT_NEAR(near.key_distance, std::log(1024.0 / 1000.0), 1e-12);

  // No key near on the other model: its common best.
  const ktune::Choice far = ktune::choose(k, {"NVIDIA H100 NVL", 9, 0, 120}, key(1 << 20, 1 << 20, 1 << 20));
  EXPECT_EQ(far.rule, Rule::CommonBest);
  EXPECT_EQ(far.table, &kH100Pcie);
  EXPECT_EQ(far.config, kH100Pcie.common_best);
}

TEST(Choose, OtherArchitectureWithoutRunnableImageThrows) {
  // Cubins for sm_90 and PTX for compute_90: nothing runs on a cc 8.0 GPU, tuned or not.
  const BakedKernel k = kernel();
  const std::string message = error_of(k, a100(), key(1024, 1024, 1024));
  EXPECT_NE(message.find("sgemm"), std::string::npos) << message;
  EXPECT_NE(message.find("NVIDIA A100-SXM4-80GB"), std::string::npos) << message;
  EXPECT_NE(message.find("sm_80"), std::string::npos) << message;
  EXPECT_NE(message.find("KTUNE_CUDA_ARCH"), std::string::npos) << message;
  EXPECT_THROW(ktune::choose(k, {"Some Ampere", 8, 6, 84}, key(1, 1, 1)), ktune::Error);
}

TEST(Choose, DefaultPtxOnOtherArchitecture) {
  // As baked: PTX for compute_80 on the DEFAULT only. An untuned cc 8.x GPU JITs it.
  const BakedKernel k = kernel(kGpus, kSm90, kSm80, kConfigsDefaultPtxOnly);
  const ktune::Choice c = ktune::choose(k, {"NVIDIA A10", 8, 6, 72}, key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::Default);
  EXPECT_EQ(c.config, 0);
  EXPECT_EQ(c.image, ImageKind::Ptx);
  EXPECT_EQ(c.table, nullptr);

  // The A100 was tuned, but its winner has no image that runs there: the DEFAULT's PTX.
  const ktune::Choice tuned = ktune::choose(k, a100(), key(1024, 1024, 1024));
  EXPECT_EQ(tuned.rule, Rule::Default);
  EXPECT_EQ(tuned.config, 0);
  EXPECT_EQ(tuned.image, ImageKind::Ptx);
  EXPECT_EQ(tuned.table, nullptr);

  // Where the winner has PTX of its own, the winner runs through the JIT.
  const BakedKernel all_ptx = kernel(kGpus, kSm90, kSm80, kConfigs);
  const ktune::Choice winner = ktune::choose(all_ptx, a100(), key(1024, 1024, 1024));
  EXPECT_EQ(winner.rule, Rule::Exact);
  EXPECT_EQ(winner.config, 1);
  EXPECT_EQ(winner.image, ImageKind::Ptx);
  EXPECT_EQ(winner.table, &kA100);
}

TEST(Choose, NoTableGivesTheDefaultCubin) {
  const BakedKernel k = kernel({});
  const ktune::Choice c = ktune::choose(k, h200(), key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::Default);
  EXPECT_EQ(c.config, 0);
  EXPECT_EQ(c.image, ImageKind::Cubin);
  EXPECT_EQ(c.table, nullptr);
  EXPECT_EQ(c.key_distance, 0);
}

TEST(Choose, NoCubinsLoadsPtx) {
  const BakedKernel k = kernel();
  const ktune::ChooseOptions ptx_only{.use_cubins = false};
  const ktune::Choice c = ktune::choose(k, h200(), key(1024, 1024, 1024), ptx_only);
  EXPECT_EQ(c.rule, Rule::Exact);
  EXPECT_EQ(c.config, 1);
  EXPECT_EQ(c.image, ImageKind::Ptx);

  // The winner of 256 (config 3) has no PTX: the DEFAULT's.
  const ktune::Choice d = ktune::choose(k, h200(), key(256, 256, 256), ptx_only);
  EXPECT_EQ(d.rule, Rule::Default);
  EXPECT_EQ(d.config, 0);
  EXPECT_EQ(d.image, ImageKind::Ptx);
  EXPECT_EQ(d.table, nullptr);

  // As baked (PTX for the DEFAULT only), every key gets the DEFAULT's PTX.
  const BakedKernel baked = kernel(kGpus, kSm90, kSm90, kConfigsDefaultPtxOnly);
  const ktune::Choice e = ktune::choose(baked, h200(), key(4096, 4096, 4096), ptx_only);
  EXPECT_EQ(e.rule, Rule::Default);
  EXPECT_EQ(e.image, ImageKind::Ptx);
}

TEST(Choose, ArchSpecificCubinsRunOnTheirArchitectureOnly) {
  const BakedKernel specific = kernel({}, kSm90a, kSm90a);
  EXPECT_EQ(ktune::choose(specific, h200(), key(1, 1, 1)).image, ImageKind::Cubin);
  EXPECT_THROW(ktune::choose(specific, {"Hopper Next", 9, 1, 140}, key(1, 1, 1)), ktune::Error);

  // Plain sm_90 cubins run on 9.1.
  const BakedKernel plain = kernel({}, kSm90, kSm90);
  const ktune::Choice c = ktune::choose(plain, {"Hopper Next", 9, 1, 140}, key(1, 1, 1));
  EXPECT_EQ(c.rule, Rule::Default);
  EXPECT_EQ(c.image, ImageKind::Cubin);

  // sm_90a cubins with plain compute_90 PTX: the PTX on 9.1.
  const BakedKernel mixed = kernel({}, kSm90a, kSm90);
  EXPECT_EQ(ktune::choose(mixed, {"Hopper Next", 9, 1, 140}, key(1, 1, 1)).image, ImageKind::Ptx);
}

TEST(Choose, CubinAndPtxCompatibility) {
  // Cubins: same major, minor at least as high; exactly that minor for "a" targets.
  EXPECT_TRUE(ktune::cubin_runs_on(kSm90, 9, 0));
  EXPECT_TRUE(ktune::cubin_runs_on(kSm90, 9, 1));
  EXPECT_FALSE(ktune::cubin_runs_on(kSm90, 10, 0));
  EXPECT_FALSE(ktune::cubin_runs_on(kSm90, 8, 9));
  EXPECT_TRUE(ktune::cubin_runs_on({8, 6}, 8, 9));
  EXPECT_FALSE(ktune::cubin_runs_on({8, 6}, 8, 0));
  EXPECT_TRUE(ktune::cubin_runs_on(kSm90a, 9, 0));
  EXPECT_FALSE(ktune::cubin_runs_on(kSm90a, 9, 1));
  EXPECT_FALSE(ktune::cubin_runs_on(kSm90a, 10, 0));
  EXPECT_FALSE(ktune::cubin_runs_on({}, 0, 0));  // none baked
  EXPECT_FALSE(ktune::cubin_runs_on({}, 9, 0));

  // PTX: any GPU at least as new; "a" PTX only on its own architecture.
  EXPECT_TRUE(ktune::ptx_runs_on(kSm90, 9, 0));
  EXPECT_TRUE(ktune::ptx_runs_on(kSm90, 9, 1));
  EXPECT_TRUE(ktune::ptx_runs_on(kSm90, 10, 0));
  EXPECT_TRUE(ktune::ptx_runs_on(kSm90, 12, 0));
  EXPECT_FALSE(ktune::ptx_runs_on(kSm90, 8, 9));
  EXPECT_TRUE(ktune::ptx_runs_on(kSm80, 8, 6));
  EXPECT_TRUE(ktune::ptx_runs_on(kSm80, 9, 0));
  EXPECT_FALSE(ktune::ptx_runs_on({8, 6}, 8, 0));
  EXPECT_TRUE(ktune::ptx_runs_on(kSm90a, 9, 0));
  EXPECT_FALSE(ktune::ptx_runs_on(kSm90a, 9, 1));
  EXPECT_FALSE(ktune::ptx_runs_on(kSm90a, 10, 0));
  EXPECT_FALSE(ktune::ptx_runs_on({}, 9, 0));
}

TEST(Choose, WrongKeyDimensionsThrowNamingThem) {
  const BakedKernel k = kernel();
  const std::string message = error_of(k, h200(), std::vector<int64_t>{1024, 1024});
  EXPECT_NE(message.find("sgemm"), std::string::npos) << message;
  EXPECT_NE(message.find("M, N, K"), std::string::npos) << message;
  EXPECT_NE(message.find('2'), std::string::npos) << message;
  EXPECT_NE(message.find('3'), std::string::npos) << message;
  EXPECT_THROW(ktune::choose(k, h200(), std::vector<int64_t>{1, 2, 3, 4}), ktune::Error);
  EXPECT_THROW(ktune::choose(k, h200(), std::vector<int64_t>{}), ktune::Error);
}

TEST(Choose, CorruptIndicesFallBack) {
  // An entry or common best pointing past the configs is never used.
  const BakedEntry bad_entries[] = {{kKey1024, 99, 0.1}};
  const BakedGpu bad_entry[] = {{"NVIDIA H200", 9, 0, 132, "x", bad_entries, 2}};
  const ktune::Choice c = ktune::choose(kernel(bad_entry), h200(), key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::CommonBest);
  EXPECT_EQ(c.config, 2);

  const BakedGpu bad_both[] = {{"NVIDIA H200", 9, 0, 132, "x", bad_entries, -1}};
  const ktune::Choice d = ktune::choose(kernel(bad_both), h200(), key(1024, 1024, 1024));
  EXPECT_EQ(d.rule, Rule::Default);
  EXPECT_EQ(d.config, 0);

  BakedKernel no_default = kernel();
  no_default.default_config = 4;
  EXPECT_THROW(ktune::choose(no_default, h200(), key(1024, 1024, 1024)), ktune::Error);
}

TEST(KeyDistance, LogSpaceEuclidean) {
  const std::vector<int64_t> a{1024, 1024, 1024};
  EXPECT_EQ(ktune::key_distance(a, a), 0);
  EXPECT_NEAR(ktune::key_distance(a, std::vector<int64_t>{2048, 1024, 1024}), std::log(2.0), 1e-12);
  EXPECT_NEAR(ktune::key_distance(a, std::vector<int64_t>{512, 1024, 1024}), std::log(2.0), 1e-12);
  EXPECT_NEAR(ktune::key_distance(a, std::vector<int64_t>{2048, 2048, 1024}), std::sqrt(2.0) * std::log(2.0),
              1e-12);

  const std::vector<int64_t> b{3, 70000, 12};
  const std::vector<int64_t> c{1000, 5, 12};
  EXPECT_DOUBLE_EQ(ktune::key_distance(b, c), ktune::key_distance(c, b));
  EXPECT_GT(ktune::key_distance(b, c), 0);

  // Sizes below 1 count as 1.
  EXPECT_EQ(ktune::key_distance(std::vector<int64_t>{0}, std::vector<int64_t>{1}), 0);
  EXPECT_EQ(ktune::key_distance(std::vector<int64_t>{-5, 7}, std::vector<int64_t>{0, 7}), 0);
  EXPECT_NEAR(ktune::key_distance(std::vector<int64_t>{0}, std::vector<int64_t>{2}), std::log(2.0), 1e-12);
  EXPECT_NEAR(ktune::key_distance(std::vector<int64_t>{-100}, std::vector<int64_t>{4}), std::log(4.0), 1e-12);
}

TEST(Choose, DescribeNamesRuleGpuAndImage) {
  const BakedKernel k = kernel();
  EXPECT_EQ(ktune::choose(k, h200(), key(1024, 1024, 1024)).describe(), "exact on NVIDIA H200 (cubin)");
  EXPECT_EQ(ktune::choose(k, h200(), key(1000, 1024, 1024)).describe(), "nearest-key on NVIDIA H200 (cubin)");
  EXPECT_EQ(ktune::choose(k, {"NVIDIA GH200 480GB", 9, 0, 132}, key(1024, 1024, 1024)).describe(),
            "same-arch on NVIDIA H200 (cubin)");
  EXPECT_EQ(ktune::choose(k, h200(), key(1 << 20, 1, 1)).describe(), "common-best on NVIDIA H200 (cubin)");
  EXPECT_EQ(ktune::choose(kernel({}), h200(), key(1, 1, 1)).describe(), "default (cubin)");
  EXPECT_EQ(ktune::choose(k, h200(), key(256, 256, 256), {.use_cubins = false}).describe(), "default (ptx)");

  EXPECT_STREQ(ktune::to_string(Rule::Online), "online");
  EXPECT_STREQ(ktune::to_string(ImageKind::Ptx), "ptx");
  ktune::Choice online;
  online.rule = Rule::Online;
  online.table = &kH200;
  EXPECT_EQ(online.describe(), "online on NVIDIA H200 (cubin)");
}

// The run-time choice (choose()) on hand-made baked data and fake GPU identities: no GPU, no
// files. The cubin and PTX bytes are stand-ins; choose() only looks at whether they are
// there and which architecture they are for.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "error_of.hpp"
#include "ktune/baked.hpp"
#include "ktune/choose.hpp"
#include "ktune/error.hpp"

namespace {

using ktune::BakedArch;
using ktune::BakedConfig;
using ktune::BakedCubin;
using ktune::BakedEntry;
using ktune::BakedGpu;
using ktune::BakedKernel;
using ktune::GpuInfo;
using ktune::ImageKind;
using ktune::Rule;

const unsigned char kCubinBytes[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
const unsigned char kPtxBytes[] = ".version 8.8\n.target sm_90\n";  // NUL included
constexpr ktune::BakedImage kCubin{kCubinBytes, sizeof kCubinBytes};
constexpr ktune::BakedImage kPtx{kPtxBytes, sizeof kPtxBytes};

constexpr BakedArch kSm80{8, 0, false};
constexpr BakedArch kSm86{8, 6, false};
constexpr BakedArch kSm89{8, 9, false};
constexpr BakedArch kSm90{9, 0, false};
constexpr BakedArch kSm90a{9, 0, true};
constexpr BakedArch kNoPtx{};

constexpr uint64_t kGiB = uint64_t{1} << 30;

bool same_arch(const BakedArch& a, const BakedArch& b) {
  return a.major == b.major && a.minor == b.minor && a.arch_specific == b.arch_specific;
}

// One cubin per architecture a config was baked for, as `ktune bake` writes them.
const BakedCubin kCubins80[] = {{kSm80, kCubin}};
const BakedCubin kCubins86[] = {{kSm86, kCubin}};
const BakedCubin kCubins89[] = {{kSm89, kCubin}};
const BakedCubin kCubins90[] = {{kSm90, kCubin}};
const BakedCubin kCubins90a[] = {{kSm90a, kCubin}};
const BakedCubin kCubins80And90[] = {{kSm80, kCubin}, {kSm90, kCubin}};
const BakedCubin kCubins90And90a[] = {{kSm90, kCubin}, {kSm90a, kCubin}};
const BakedCubin kCubins80To89[] = {{kSm80, kCubin}, {kSm86, kCubin}, {kSm89, kCubin}};

const char* const kParameters[] = {"TM", "TN"};
const char* const kKeyDims[] = {"M", "N", "K"};

const int64_t kValues0[] = {64, 64};
const int64_t kValues1[] = {128, 64};
const int64_t kValues2[] = {128, 128};
const int64_t kValues3[] = {256, 32};
const int64_t kValues4[] = {64, 128};

const int64_t kKey256[] = {256, 256, 256};
const int64_t kKey1024[] = {1024, 1024, 1024};
const int64_t kKey4096[] = {4096, 4096, 4096};

// The fleet: baked for sm_80 and sm_90 with compute_90 PTX. 0 is the DEFAULT (both cubins
// and the PTX); 1-3 won on the cc 9.0 tables (sm_90 cubins only), 4 on the A100 (sm_80 only).
const BakedArch kFleetArchs[] = {kSm80, kSm90};
const BakedConfig kFleetConfigs[] = {
    {"0000000000000000", kValues0, kCubins80And90, kPtx}, {"1111111111111111", kValues1, kCubins90, {}},
    {"2222222222222222", kValues2, kCubins90, {}},        {"3333333333333333", kValues3, kCubins90, {}},
    {"4444444444444444", kValues4, kCubins80, {}},
};

const BakedEntry kH200Entries[] = {
    {kKey256, 3, 0.01},
    {kKey1024, 1, 0.1},
    {kKey4096, 2, 2.5},
};
const BakedEntry kH100PcieEntries[] = {{kKey1024, 2, 0.15}};
const BakedEntry kA100Entries[] = {{kKey1024, 4, 0.3}, {kKey4096, 0, 9.0}};

// The H100 PCIe comes first so that "the first same-arch table" and "the most alike one"
// differ for a GPU of 132 SMs.
const BakedGpu kFleetGpus[] = {
    {"NVIDIA H100 PCIe", 9, 0, 114, 80 * kGiB, "dbs/sgemm.NVIDIA_H100_PCIe.json", kH100PcieEntries, 2},
    {"NVIDIA H200", 9, 0, 132, 141 * kGiB, "dbs/sgemm.NVIDIA_H200.json", kH200Entries, 1},
    {"NVIDIA A100-SXM4-80GB", 8, 0, 108, 80 * kGiB, "dbs/sgemm.NVIDIA_A100.json", kA100Entries, 4},
};
const BakedGpu& kH100Pcie = kFleetGpus[0];
const BakedGpu& kH200 = kFleetGpus[1];
const BakedGpu& kA100 = kFleetGpus[2];

BakedKernel kernel(std::span<const BakedGpu> gpus = kFleetGpus, std::span<const BakedConfig> configs = kFleetConfigs,
                   std::span<const BakedArch> cubin_archs = kFleetArchs, BakedArch ptx = kSm90) {
  return BakedKernel{"sgemm", "sgemm", kParameters, kKeyDims, configs, gpus, 0, cubin_archs, ptx, "test tables"};
}

// Fake GPU identities, as cuDeviceGetName and the device attributes would give them.
const GpuInfo kH200Gpu{"NVIDIA H200", 9, 0, 132, 141 * kGiB};
const GpuInfo kH100PcieGpu{"NVIDIA H100 PCIe", 9, 0, 114, 80 * kGiB};
const GpuInfo kA100Gpu{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 80 * kGiB};
const GpuInfo kH100SxmGpu{"NVIDIA H100 80GB HBM3", 9, 0, 132, 80 * kGiB};
const GpuInfo kH800PcieGpu{"NVIDIA H800 PCIe", 9, 0, 114, 80 * kGiB};
const GpuInfo kA100PcieGpu{"NVIDIA A100-PCIE-40GB", 8, 0, 108, 40 * kGiB};
const GpuInfo kRtxA6000Gpu{"NVIDIA RTX A6000", 8, 6, 84, 48 * kGiB};
const GpuInfo kA10Gpu{"NVIDIA A10", 8, 6, 72, 24 * kGiB};
const GpuInfo kL40sGpu{"NVIDIA L40S", 8, 9, 142, 48 * kGiB};
const GpuInfo kB200Gpu{"NVIDIA B200", 10, 0, 148, 180 * kGiB};
const GpuInfo kRtx5090Gpu{"NVIDIA GeForce RTX 5090", 12, 0, 170, 32 * kGiB};
const GpuInfo kT4Gpu{"Tesla T4", 7, 5, 40, 15 * kGiB};

std::vector<int64_t> key(int64_t m, int64_t n, int64_t k) { return {m, n, k}; }

std::string error_of(const BakedKernel& k, const GpuInfo& gpu, std::span<const int64_t> key,
                     const ktune::ChooseOptions& options = {}) {
  return ktune::test_support::error_of([&] { ktune::choose(k, gpu, key, options); });
}

}  // namespace

TEST(Choose, ExactKeyOnTheTunedModel) {
  const BakedKernel k = kernel();
  const ktune::Choice c = ktune::choose(k, kH200Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::Exact);
  EXPECT_EQ(c.config, 1);
  EXPECT_EQ(c.image, ImageKind::Cubin);
  EXPECT_TRUE(same_arch(c.arch, kSm90));
  EXPECT_EQ(c.table, &kH200);
  EXPECT_EQ(c.key_distance, 0);

  const ktune::Choice small = ktune::choose(k, kH200Gpu, key(256, 256, 256));
  EXPECT_EQ(small.rule, Rule::Exact);
  EXPECT_EQ(small.config, 3);

  const ktune::Choice a100 = ktune::choose(k, kA100Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(a100.rule, Rule::Exact);
  EXPECT_EQ(a100.config, 4);
  EXPECT_TRUE(same_arch(a100.arch, kSm80));
  EXPECT_EQ(a100.table, &kA100);

  // The DEFAULT won this key on the A100: its sm_80 cubin of the two.
  const ktune::Choice won_by_default = ktune::choose(k, kA100Gpu, key(4096, 4096, 4096));
  EXPECT_EQ(won_by_default.rule, Rule::Exact);
  EXPECT_EQ(won_by_default.config, 0);
  EXPECT_TRUE(same_arch(won_by_default.arch, kSm80));
}

TEST(Choose, DefaultOnlyIgnoresTheTables) {
  const BakedKernel k = kernel();
  const ktune::Choice c = ktune::choose(k, kH200Gpu, key(1024, 1024, 1024), {.default_only = true});
  EXPECT_EQ(c.rule, Rule::Default);
  EXPECT_EQ(c.config, k.default_config);
  EXPECT_EQ(c.image, ImageKind::Cubin);
  EXPECT_TRUE(same_arch(c.arch, kSm90));
  EXPECT_EQ(c.table, nullptr);

  const ktune::Choice a100 = ktune::choose(k, kA100Gpu, key(1024, 1024, 1024), {.default_only = true});
  EXPECT_EQ(a100.rule, Rule::Default);
  EXPECT_TRUE(same_arch(a100.arch, kSm80));
}

TEST(Choose, NearestKeyWithinAFactorFour) {
  const BakedKernel k = kernel();
  const ktune::Choice c = ktune::choose(k, kH200Gpu, key(1000, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::NearestKey);
  EXPECT_EQ(c.config, 1);
  EXPECT_EQ(c.table, &kH200);
  EXPECT_NEAR(c.key_distance, std::log(1024.0 / 1000.0), 1e-12);

  // Nearer to 4096 than to 1024 in log space, though nearer to 1024 in plain numbers.
  const ktune::Choice d = ktune::choose(k, kH200Gpu, key(2500, 2500, 2500));
  EXPECT_EQ(d.rule, Rule::NearestKey);
  EXPECT_EQ(d.config, 2);
  EXPECT_NEAR(d.key_distance, std::sqrt(3.0) * std::log(4096.0 / 2500.0), 1e-12);

  // Off by a factor of 3.5 in one dimension only: still near.
  const ktune::Choice e = ktune::choose(k, kH200Gpu, key(1024, 1024, 3584));
  EXPECT_EQ(e.rule, Rule::NearestKey);
  EXPECT_EQ(e.config, 1);
}

TEST(Choose, CommonBestWhenNoKeyIsNear) {
  const BakedKernel k = kernel();
  const ktune::Choice big = ktune::choose(k, kH200Gpu, key(65536, 65536, 65536));  // 16x past 4096
  EXPECT_EQ(big.rule, Rule::CommonBest);
  EXPECT_EQ(big.config, kH200.common_best);
  EXPECT_EQ(big.table, &kH200);
  EXPECT_NEAR(big.key_distance, std::sqrt(3.0) * std::log(16.0), 1e-12);

  const ktune::Choice tiny = ktune::choose(k, kH200Gpu, key(4, 4, 4));  // 64x below 256
  EXPECT_EQ(tiny.rule, Rule::CommonBest);
  EXPECT_EQ(tiny.config, 1);
  EXPECT_EQ(tiny.image, ImageKind::Cubin);

  // A custom factor: 1.5 makes 1024 vs 2048 "far".
  const ktune::Choice strict = ktune::choose(k, kH200Gpu, key(2048, 1024, 1024), {.near_factor = 1.5});
  EXPECT_EQ(strict.rule, Rule::CommonBest);
}

TEST(Choose, SameArchTakesTheClosestSmCount) {
  const BakedKernel k = kernel();
  // 132 SMs: the H200 (132) over the H100 PCIe (114), though the latter comes first.
  const ktune::Choice sxm = ktune::choose(k, kH100SxmGpu, key(1024, 1024, 1024));
  EXPECT_EQ(sxm.rule, Rule::SameArch);
  EXPECT_EQ(sxm.table, &kH200);
  EXPECT_EQ(sxm.config, 1);
  EXPECT_EQ(sxm.image, ImageKind::Cubin);
  EXPECT_TRUE(same_arch(sxm.arch, kSm90));

  // 120 SMs: the H100 PCIe (6 away) over the H200 (12 away).
  const ktune::Choice nvl = ktune::choose(k, {"NVIDIA H100 NVL", 9, 0, 120, 94 * kGiB}, key(1024, 1024, 1024));
  EXPECT_EQ(nvl.rule, Rule::SameArch);
  EXPECT_EQ(nvl.table, &kH100Pcie);
  EXPECT_EQ(nvl.config, 2);

  // A near key of the other model is same-arch too, with its distance.
  const ktune::Choice near = ktune::choose(k, kH100SxmGpu, key(1024, 1024, 1000));
  EXPECT_EQ(near.rule, Rule::SameArch);
  EXPECT_EQ(near.config, 1);
  EXPECT_NEAR(near.key_distance, std::log(1024.0 / 1000.0), 1e-12);

  // No key near on the other model: its common best.
  const ktune::Choice far = ktune::choose(k, kH800PcieGpu, key(1 << 20, 1 << 20, 1 << 20));
  EXPECT_EQ(far.rule, Rule::CommonBest);
  EXPECT_EQ(far.table, &kH100Pcie);
  EXPECT_EQ(far.config, kH100Pcie.common_best);

  // Another tuning of the same chip: the A100 PCIe gets the A100 SXM's table and cubin.
  const ktune::Choice a100 = ktune::choose(k, kA100PcieGpu, key(1024, 1024, 1024));
  EXPECT_EQ(a100.rule, Rule::SameArch);
  EXPECT_EQ(a100.table, &kA100);
  EXPECT_EQ(a100.config, 4);
  EXPECT_TRUE(same_arch(a100.arch, kSm80));
}

TEST(Choose, SameArchMemoryBreaksAnSmTie) {
  const BakedEntry gh200_entries[] = {{kKey1024, 3, 0.1}};
  const BakedEntry unknown_entries[] = {{kKey1024, 2, 0.1}};
  // All of 132 SMs; the one of unknown memory (an import) first in the bake.
  const BakedGpu gpus[] = {
      {"NVIDIA H100 imported", 9, 0, 132, 0, "import.json", unknown_entries, 2},
      {"NVIDIA H200", 9, 0, 132, 141 * kGiB, "h200.json", kH200Entries, 1},
      {"NVIDIA GH200 480GB", 9, 0, 132, 96 * kGiB, "gh200.json", gh200_entries, 3},
  };
  const BakedKernel k = kernel(gpus);

  // 80 GiB: the GH200 (16 GiB away) over the H200 (61 away) and the table of unknown memory.
  const ktune::Choice sxm = ktune::choose(k, kH100SxmGpu, key(1024, 1024, 1024));
  EXPECT_EQ(sxm.rule, Rule::SameArch);
  EXPECT_EQ(sxm.table, &gpus[2]);
  EXPECT_EQ(sxm.config, 3);

  const ktune::Choice nvl = ktune::choose(k, {"NVIDIA H200 NVL", 9, 0, 132, 141 * kGiB}, key(1024, 1024, 1024));
  EXPECT_EQ(nvl.table, &gpus[1]);

  // The GPU's memory unknown: the SM count alone, ties in the order of the bake.
  const ktune::Choice unknown = ktune::choose(k, {"NVIDIA H100 80GB HBM3", 9, 0, 132}, key(1024, 1024, 1024));
  EXPECT_EQ(unknown.table, &gpus[0]);

  // The SM count comes before memory.
  const ktune::Choice fewer_sms =
      ktune::choose(kernel(), {"NVIDIA H100 NVL", 9, 0, 120, 141 * kGiB}, key(1024, 1024, 1024));
  EXPECT_EQ(fewer_sms.table, &kH100Pcie);
}

TEST(Choose, SameMajorRunsTheCubinOfAnOlderMinor) {
  const BakedKernel k = kernel();
  for (const GpuInfo& gpu : {kRtxA6000Gpu, kA10Gpu, kL40sGpu}) {
    const ktune::Choice c = ktune::choose(k, gpu, key(1024, 1024, 1024));
    EXPECT_EQ(c.rule, Rule::SameMajor) << gpu.name;
    EXPECT_EQ(c.table, &kA100) << gpu.name;
    EXPECT_EQ(c.config, 4) << gpu.name;
    EXPECT_EQ(c.image, ImageKind::Cubin) << gpu.name;
    EXPECT_TRUE(same_arch(c.arch, kSm80)) << gpu.name;
  }
  const ktune::Choice near = ktune::choose(k, kA10Gpu, key(1024, 1024, 2048));
  EXPECT_EQ(near.rule, Rule::SameMajor);
  EXPECT_EQ(near.config, 4);

  const ktune::Choice far = ktune::choose(k, kA10Gpu, key(1 << 20, 1 << 20, 1 << 20));
  EXPECT_EQ(far.rule, Rule::CommonBest);
  EXPECT_EQ(far.table, &kA100);
  EXPECT_EQ(far.config, kA100.common_best);
}

TEST(Choose, SameMajorPrefersTheHighestMinorNotAboveTheGpus) {
  // Ampere and Ada baked for 80, 86 and 89: each table's winner has its own architecture's cubin.
  const BakedArch archs[] = {kSm80, kSm86, kSm89};
  const BakedConfig configs[] = {
      {"0000000000000000", kValues0, kCubins80To89, kPtx}, {"1111111111111111", kValues1, kCubins80, {}},
      {"2222222222222222", kValues2, kCubins86, {}},       {"3333333333333333", kValues3, kCubins89, {}},
      {"4444444444444444", kValues4, kCubins80, {}},
  };
  const BakedEntry a100_entries[] = {{kKey1024, 1, 0.3}};
  const BakedEntry a30_entries[] = {{kKey1024, 4, 0.5}};
  const BakedEntry a6000_entries[] = {{kKey1024, 2, 0.4}};
  const BakedEntry l40s_entries[] = {{kKey1024, 3, 0.2}};
  const BakedGpu a100{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 80 * kGiB, "a100.json", a100_entries, 1};
  const BakedGpu a30{"NVIDIA A30", 8, 0, 56, 24 * kGiB, "a30.json", a30_entries, 4};
  const BakedGpu a6000{"NVIDIA RTX A6000", 8, 6, 84, 48 * kGiB, "a6000.json", a6000_entries, 2};
  const BakedGpu l40s{"NVIDIA L40S", 8, 9, 142, 48 * kGiB, "l40s.json", l40s_entries, 3};

  // cc 8.7: the 8.6 table, over 8.0 (older) and 8.9 (newer: its cubins do not run here).
  const BakedGpu all[] = {a100, l40s, a6000, a30};
  const GpuInfo orin{"Orin", 8, 7, 16, 32 * kGiB};
  const ktune::Choice c = ktune::choose(kernel(all, configs, archs, kSm80), orin, key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::SameMajor);
  EXPECT_EQ(c.table, &all[2]);
  EXPECT_EQ(c.config, 2);
  EXPECT_TRUE(same_arch(c.arch, kSm86));

  // Two tables of 8.0 for a cc 8.6 GPU: the closer SM count (the A30's 56 to the A10's 72).
  const BakedGpu ampere[] = {a100, l40s, a30};
  const ktune::Choice a10 = ktune::choose(kernel(ampere, configs, archs, kSm80), kA10Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(a10.rule, Rule::SameMajor);
  EXPECT_EQ(a10.table, &ampere[2]);
  EXPECT_EQ(a10.config, 4);

  // Only newer minors tuned: their winners' cubins do not run on 8.0, so both tables are
  // skipped for the DEFAULT's sm_80 cubin.
  const BakedGpu newer[] = {a6000, l40s};
  const ktune::Choice a100_gpu = ktune::choose(kernel(newer, configs, archs, kSm80), kA100Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(a100_gpu.rule, Rule::Default);
  EXPECT_EQ(a100_gpu.config, 0);
  EXPECT_EQ(a100_gpu.image, ImageKind::Cubin);
  EXPECT_TRUE(same_arch(a100_gpu.arch, kSm80));
  EXPECT_EQ(a100_gpu.describe(), "default (sm_80 cubin)");
}

TEST(Choose, NewerArchitectureJitsTheDefaultsPtx) {
  const BakedKernel k = kernel();
  for (const GpuInfo& gpu : {kB200Gpu, kRtx5090Gpu}) {
    const ktune::Choice c = ktune::choose(k, gpu, key(1024, 1024, 1024));
    EXPECT_EQ(c.rule, Rule::Default) << gpu.name;
    EXPECT_EQ(c.config, 0) << gpu.name;
    EXPECT_EQ(c.image, ImageKind::Ptx) << gpu.name;
    EXPECT_TRUE(same_arch(c.arch, kSm90)) << gpu.name;
    EXPECT_EQ(c.table, nullptr) << gpu.name;
  }
}

TEST(Choose, OlderArchitectureThrowsNamingTheArchitectures) {
  // sm_80 and sm_90 cubins, compute_90 PTX: nothing runs on cc 7.5.
  const std::string message = error_of(kernel(), kT4Gpu, key(1024, 1024, 1024));
  for (const char* part : {"sgemm", "Tesla T4", "sm_75", "sm_80, sm_90", "compute_90", "KTUNE_CUDA_ARCH"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;

  // No PTX baked at all (every architecture "-real"): said so.
  const std::string no_ptx =
      error_of(kernel(kFleetGpus, kFleetConfigs, kFleetArchs, kNoPtx), kB200Gpu, key(1024, 1024, 1024));
  EXPECT_NE(no_ptx.find("PTX was not built"), std::string::npos) << no_ptx;
}

TEST(Choose, ImportedTableOfAnArchitectureNotBaked) {
  // Baked for sm_90 only, with an A100 table imported: the bake has no cubin for the A100's
  // winners, and compute_90 PTX does not run on 8.0. An error, not a silent table of no use.
  const BakedArch archs[] = {kSm90};
  const BakedConfig configs[] = {
      {"0000000000000000", kValues0, kCubins90, kPtx},
      {"4444444444444444", kValues4, {}, {}},
  };
  const BakedEntry a100_entries[] = {{kKey1024, 1, 0.3}};
  const BakedGpu gpus[] = {{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 80 * kGiB, "a100.json", a100_entries, 1}};
  const std::string message = error_of(kernel(gpus, configs, archs, kSm90), kA100Gpu, key(1024, 1024, 1024));
  EXPECT_NE(message.find("nothing baked runs on NVIDIA A100-SXM4-80GB (sm_80)"), std::string::npos) << message;
  EXPECT_NE(message.find("cubins are for sm_90"), std::string::npos) << message;

  // With PTX for compute_80 the A100 JITs the DEFAULT: its own table's winner was never built.
  const ktune::Choice c = ktune::choose(kernel(gpus, configs, archs, kSm80), kA100Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::Default);
  EXPECT_EQ(c.config, 0);
  EXPECT_EQ(c.image, ImageKind::Ptx);
  EXPECT_EQ(c.describe(), "default (compute_80 PTX, JIT)");
}

TEST(Choose, TableWithoutARunnableWinnerIsSkipped) {
  // The H200's winner of 1024 has only an sm_80 cubin: the next rule, same-arch on the H100 PCIe.
  const BakedEntry h200_entries[] = {{kKey1024, 4, 0.1}};
  const BakedGpu gpus[] = {
      {"NVIDIA H200", 9, 0, 132, 141 * kGiB, "h200.json", h200_entries, 4},
      kH100Pcie,
      kA100,
  };
  const BakedKernel k = kernel(gpus);
  const ktune::Choice c = ktune::choose(k, kH200Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::SameArch);
  EXPECT_EQ(c.table, &gpus[1]);
  EXPECT_EQ(c.config, 2);

  // Far keys too: the H200's common best does not run either.
  const ktune::Choice far = ktune::choose(k, kH200Gpu, key(1 << 20, 1 << 20, 1 << 20));
  EXPECT_EQ(far.rule, Rule::CommonBest);
  EXPECT_EQ(far.table, &gpus[1]);

  // The A100's winner with only an sm_90 cubin, and no other cc 8.x table: the DEFAULT's sm_80 cubin.
  const BakedEntry a100_entries[] = {{kKey1024, 1, 0.3}};
  const BakedGpu a100_only[] = {{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 80 * kGiB, "a100.json", a100_entries, 1}};
  const ktune::Choice d = ktune::choose(kernel(a100_only), kA10Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(d.rule, Rule::Default);
  EXPECT_EQ(d.image, ImageKind::Cubin);
  EXPECT_TRUE(same_arch(d.arch, kSm80));
}

TEST(Choose, NoTableGivesTheDefaultCubin) {
  const BakedKernel k = kernel({});
  const ktune::Choice c = ktune::choose(k, kH200Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::Default);
  EXPECT_EQ(c.config, 0);
  EXPECT_EQ(c.image, ImageKind::Cubin);
  EXPECT_TRUE(same_arch(c.arch, kSm90));
  EXPECT_EQ(c.table, nullptr);
  EXPECT_EQ(c.key_distance, 0);

  // The best of the DEFAULT's cubins for each GPU: sm_80 on 8.x, sm_90 on 9.x.
  EXPECT_TRUE(same_arch(ktune::choose(k, kL40sGpu, key(1, 1, 1)).arch, kSm80));
  EXPECT_TRUE(same_arch(ktune::choose(k, {"Hopper Next", 9, 1, 140}, key(1, 1, 1)).arch, kSm90));
}

TEST(Choose, NoCubinsLoadsPtx) {
  const ktune::ChooseOptions ptx_only{.use_cubins = false};
  // As baked, only the DEFAULT has PTX: every 9.0 table is skipped for it.
  const ktune::Choice c = ktune::choose(kernel(), kH200Gpu, key(1024, 1024, 1024), ptx_only);
  EXPECT_EQ(c.rule, Rule::Default);
  EXPECT_EQ(c.config, 0);
  EXPECT_EQ(c.image, ImageKind::Ptx);
  EXPECT_TRUE(same_arch(c.arch, kSm90));
  EXPECT_EQ(c.table, nullptr);

  // A table whose winner is the DEFAULT keeps its rule, through the PTX.
  const BakedEntry default_wins[] = {{kKey1024, 0, 0.1}};
  const BakedGpu h200[] = {{"NVIDIA H200", 9, 0, 132, 141 * kGiB, "h200.json", default_wins, 0}};
  const ktune::Choice d = ktune::choose(kernel(h200), kH200Gpu, key(1024, 1024, 1024), ptx_only);
  EXPECT_EQ(d.rule, Rule::Exact);
  EXPECT_EQ(d.config, 0);
  EXPECT_EQ(d.image, ImageKind::Ptx);

  // Where winners have PTX of their own, they run through the JIT.
  const BakedConfig all_ptx[] = {
      {"0000000000000000", kValues0, kCubins80And90, kPtx}, {"1111111111111111", kValues1, kCubins90, kPtx},
      {"2222222222222222", kValues2, kCubins90, kPtx},      {"3333333333333333", kValues3, kCubins90, kPtx},
      {"4444444444444444", kValues4, kCubins80, kPtx},
  };
  const ktune::Choice e = ktune::choose(kernel(kFleetGpus, all_ptx), kH200Gpu, key(1024, 1024, 1024), ptx_only);
  EXPECT_EQ(e.rule, Rule::Exact);
  EXPECT_EQ(e.config, 1);
  EXPECT_EQ(e.image, ImageKind::Ptx);

  // The A100 has cubins but no PTX that runs there: the error says cubins are off.
  const std::string message = error_of(kernel(), kA100Gpu, key(1024, 1024, 1024), ptx_only);
  EXPECT_NE(message.find("KTUNE_NO_CUBINS"), std::string::npos) << message;
}

TEST(Choose, ArchSpecificCubinsRunOnTheirArchitectureOnly) {
  const BakedArch archs90a[] = {kSm90a};
  const BakedConfig configs90a[] = {
      {"0000000000000000", kValues0, kCubins90a, kPtx},
      {"1111111111111111", kValues1, kCubins90a, {}},
  };
  const BakedEntry h200_entries[] = {{kKey1024, 1, 0.1}};
  const BakedGpu h200[] = {{"NVIDIA H200", 9, 0, 132, 141 * kGiB, "h200.json", h200_entries, 1}};
  const GpuInfo hopper_next{"Hopper Next", 9, 1, 140};

  const BakedKernel specific = kernel(h200, configs90a, archs90a, kSm90a);
  const ktune::Choice c = ktune::choose(specific, kH200Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::Exact);
  EXPECT_EQ(c.describe(), "exact on NVIDIA H200 (sm_90a cubin)");
  // On 9.1 the H200 table (same major) and the DEFAULT's cubin are skipped; compute_90a PTX
  // does not run there either.
  const std::string message = error_of(specific, hopper_next, key(1024, 1024, 1024));
  EXPECT_NE(message.find("sm_90a"), std::string::npos) << message;
  EXPECT_NE(message.find("compute_90a"), std::string::npos) << message;

  // sm_90a cubins with plain compute_90 PTX: the PTX on 9.1.
  const ktune::Choice mixed =
      ktune::choose(kernel(h200, configs90a, archs90a, kSm90), hopper_next, key(1024, 1024, 1024));
  EXPECT_EQ(mixed.rule, Rule::Default);
  EXPECT_EQ(mixed.describe(), "default (compute_90 PTX, JIT)");

  // Both for the DEFAULT: sm_90a on 9.0, sm_90 on 9.1.
  const BakedConfig both[] = {{"0000000000000000", kValues0, kCubins90And90a, {}}};
  EXPECT_TRUE(same_arch(ktune::runnable_cubin(both[0], kH200Gpu)->arch, kSm90a));
  EXPECT_TRUE(same_arch(ktune::runnable_cubin(both[0], hopper_next)->arch, kSm90));
  EXPECT_EQ(ktune::runnable_cubin(both[0], kA100Gpu), nullptr);
  const BakedKernel k = kernel({}, both, kFleetArchs, kNoPtx);
  EXPECT_EQ(ktune::choose(k, kH200Gpu, key(1, 1, 1)).describe(), "default (sm_90a cubin)");
  EXPECT_EQ(ktune::choose(k, hopper_next, key(1, 1, 1)).describe(), "default (sm_90 cubin)");
}

TEST(Choose, CubinAndPtxCompatibility) {
  // Cubins: same major, minor at least as high; exactly that minor for "a" targets.
  EXPECT_TRUE(ktune::cubin_runs_on(kSm90, 9, 0));
  EXPECT_TRUE(ktune::cubin_runs_on(kSm90, 9, 1));
  EXPECT_FALSE(ktune::cubin_runs_on(kSm90, 10, 0));
  EXPECT_FALSE(ktune::cubin_runs_on(kSm90, 8, 9));
  EXPECT_TRUE(ktune::cubin_runs_on(kSm86, 8, 9));
  EXPECT_FALSE(ktune::cubin_runs_on(kSm86, 8, 0));
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
  EXPECT_FALSE(ktune::ptx_runs_on(kSm86, 8, 0));
  EXPECT_TRUE(ktune::ptx_runs_on(kSm90a, 9, 0));
  EXPECT_FALSE(ktune::ptx_runs_on(kSm90a, 9, 1));
  EXPECT_FALSE(ktune::ptx_runs_on(kSm90a, 10, 0));
  EXPECT_FALSE(ktune::ptx_runs_on({}, 9, 0));
}

TEST(Choose, WrongKeyDimensionsThrowNamingThem) {
  const BakedKernel k = kernel();
  const std::string message = error_of(k, kH200Gpu, std::vector<int64_t>{1024, 1024});
  EXPECT_NE(message.find("sgemm"), std::string::npos) << message;
  EXPECT_NE(message.find("M, N, K"), std::string::npos) << message;
  EXPECT_NE(message.find('2'), std::string::npos) << message;
  EXPECT_NE(message.find('3'), std::string::npos) << message;
  EXPECT_THROW(ktune::choose(k, kH200Gpu, std::vector<int64_t>{1, 2, 3, 4}), ktune::Error);
  EXPECT_THROW(ktune::choose(k, kH200Gpu, std::vector<int64_t>{}), ktune::Error);
}

TEST(Choose, CorruptIndicesFallBack) {
  // An entry or common best pointing past the configs is never used.
  const BakedEntry bad_entries[] = {{kKey1024, 99, 0.1}};
  const BakedGpu bad_entry[] = {{"NVIDIA H200", 9, 0, 132, 0, "x", bad_entries, 2}};
  const ktune::Choice c = ktune::choose(kernel(bad_entry), kH200Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(c.rule, Rule::CommonBest);
  EXPECT_EQ(c.config, 2);

  const BakedGpu bad_both[] = {{"NVIDIA H200", 9, 0, 132, 0, "x", bad_entries, -1}};
  const ktune::Choice d = ktune::choose(kernel(bad_both), kH200Gpu, key(1024, 1024, 1024));
  EXPECT_EQ(d.rule, Rule::Default);
  EXPECT_EQ(d.config, 0);

  BakedKernel no_default = kernel();
  no_default.default_config = 5;
  EXPECT_THROW(ktune::choose(no_default, kH200Gpu, key(1024, 1024, 1024)), ktune::Error);
}

TEST(KeyDistance, LogSpaceEuclidean) {
  const std::vector<int64_t> a{1024, 1024, 1024};
  EXPECT_EQ(ktune::key_distance(a, a), 0);
  EXPECT_NEAR(ktune::key_distance(a, std::vector<int64_t>{2048, 1024, 1024}), std::log(2.0), 1e-12);
  EXPECT_NEAR(ktune::key_distance(a, std::vector<int64_t>{512, 1024, 1024}), std::log(2.0), 1e-12);
  EXPECT_NEAR(ktune::key_distance(a, std::vector<int64_t>{2048, 2048, 1024}), std::sqrt(2.0) * std::log(2.0), 1e-12);

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
  EXPECT_EQ(ktune::choose(k, kH200Gpu, key(1024, 1024, 1024)).describe(), "exact on NVIDIA H200 (sm_90 cubin)");
  EXPECT_EQ(ktune::choose(k, kH200Gpu, key(1000, 1024, 1024)).describe(), "nearest-key on NVIDIA H200 (sm_90 cubin)");
  EXPECT_EQ(ktune::choose(k, kH100SxmGpu, key(1024, 1024, 1024)).describe(), "same-arch on NVIDIA H200 (sm_90 cubin)");
  EXPECT_EQ(ktune::choose(k, kA10Gpu, key(1024, 1024, 1024)).describe(),
            "same-major on NVIDIA A100-SXM4-80GB (sm_80 cubin)");
  EXPECT_EQ(ktune::choose(k, kH200Gpu, key(1 << 20, 1, 1)).describe(), "common-best on NVIDIA H200 (sm_90 cubin)");
  EXPECT_EQ(ktune::choose(kernel({}), kH200Gpu, key(1, 1, 1)).describe(), "default (sm_90 cubin)");
  EXPECT_EQ(ktune::choose(k, kH200Gpu, key(256, 256, 256), {.use_cubins = false}).describe(),
            "default (compute_90 PTX, JIT)");

  EXPECT_STREQ(ktune::to_string(Rule::SameMajor), "same-major");
  EXPECT_STREQ(ktune::to_string(Rule::Online), "online");
  EXPECT_STREQ(ktune::to_string(ImageKind::Ptx), "ptx");
  ktune::Choice online;
  online.rule = Rule::Online;
  online.table = &kH200;
  online.arch = kSm90;
  EXPECT_EQ(online.describe(), "online on NVIDIA H200 (sm_90 cubin)");
  // A Choice made by hand, without an architecture.
  ktune::Choice bare;
  EXPECT_EQ(bare.describe(), "default (cubin)");
  bare.image = ImageKind::Ptx;
  EXPECT_EQ(bare.describe(), "default (PTX, JIT)");
}

// The fleet kernel on one GPU of each kind, printed for reading (and for the notes)
// and checked row by row.
TEST(ChooseTable, FakeGpus) {
  struct Row {
    GpuInfo gpu;
    const char* expected;  // describe(), or "" where choose() throws
  };
  const Row rows[] = {
      {kH200Gpu, "exact on NVIDIA H200 (sm_90 cubin)"},
      {kH100PcieGpu, "exact on NVIDIA H100 PCIe (sm_90 cubin)"},
      {kA100Gpu, "exact on NVIDIA A100-SXM4-80GB (sm_80 cubin)"},
      {kH100SxmGpu, "same-arch on NVIDIA H200 (sm_90 cubin)"},
      {kH800PcieGpu, "same-arch on NVIDIA H100 PCIe (sm_90 cubin)"},
      {kA100PcieGpu, "same-arch on NVIDIA A100-SXM4-80GB (sm_80 cubin)"},
      {kRtxA6000Gpu, "same-major on NVIDIA A100-SXM4-80GB (sm_80 cubin)"},
      {kA10Gpu, "same-major on NVIDIA A100-SXM4-80GB (sm_80 cubin)"},
      {kL40sGpu, "same-major on NVIDIA A100-SXM4-80GB (sm_80 cubin)"},
      {kB200Gpu, "default (compute_90 PTX, JIT)"},
      {kRtx5090Gpu, "default (compute_90 PTX, JIT)"},
      {kT4Gpu, ""},
  };
  const BakedKernel k = kernel();
  const std::vector<int64_t> tuned = key(1024, 1024, 1024);
  std::printf(
      "The choice table for fake GPUs: sgemm baked for sm_80 and sm_90 (PTX compute_90),\n"
      "tuned on NVIDIA H200, NVIDIA H100 PCIe and NVIDIA A100-SXM4-80GB; key M=N=K=1024\n\n");
  std::printf("  %-24s %-5s %4s %8s   %s\n", "GPU", "cc", "SMs", "memory", "choice");
  for (const Row& row : rows) {
    std::string got;
    try {
      got = ktune::choose(k, row.gpu, tuned).describe();
    } catch (const ktune::Error&) {
      got = "";
    }
    const std::string cc = std::to_string(row.gpu.cc_major) + "." + std::to_string(row.gpu.cc_minor);
    const std::string memory = std::to_string(row.gpu.memory_bytes / kGiB) + " GiB";
    std::printf("  %-24s %-5s %4d %8s   %s\n", row.gpu.name.c_str(), cc.c_str(), row.gpu.sm_count, memory.c_str(),
                got.empty() ? "error: nothing baked runs here" : got.c_str());
    EXPECT_EQ(got, row.expected) << row.gpu.name;
  }
}

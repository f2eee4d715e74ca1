// Architectures as the build names them, and which listed one serves a GPU: the rule the
// CMake side (_ktune_arch_for_gpu), the bake and the run-time choice share.
#include <gtest/gtest.h>

#include <vector>

#include "ktune/cuda_arch.hpp"

namespace {

using ktune::BakedArch;

TEST(CudaArch, ParsesWhatNvccNames) {
  EXPECT_EQ(ktune::arch_text(*ktune::parse_cuda_arch("90")), "90");
  EXPECT_EQ(ktune::arch_text(*ktune::parse_cuda_arch("90a")), "90a");
  const BakedArch b = *ktune::parse_cuda_arch("100f");
  EXPECT_EQ(b.major, 10);
  EXPECT_EQ(b.minor, 0);
  EXPECT_TRUE(b.arch_specific);
  EXPECT_EQ(ktune::parse_cuda_arch("121")->minor, 1);
  for (const char* bad : {"", "9", "sm_90", "90-real", "0", "090", "1000", "90b", "9a", "a", "90 "})
    EXPECT_FALSE(ktune::parse_cuda_arch(bad)) << bad;
}

TEST(CudaArch, TheListedArchitectureAGpuRunsBest) {
  const std::vector<BakedArch> listed{{8, 0}, {8, 6}, {9, 0}, {9, 0, true}};
  auto best = [&](int major, int minor) {
    auto a = ktune::cubin_arch_for(listed, major, minor);
    return a ? ktune::arch_text(*a) : std::string("none");
  };
  EXPECT_EQ(best(8, 0), "80");
  EXPECT_EQ(best(8, 6), "86");
  EXPECT_EQ(best(8, 9), "86");   // the highest minor at most the GPU's
  EXPECT_EQ(best(9, 0), "90a");  // its own arch-specific target first
  EXPECT_EQ(best(7, 5), "none");
  EXPECT_EQ(best(10, 0), "none");  // cubins never run on another major
  const std::vector<BakedArch> specific_only{{9, 0, true}};
  EXPECT_EQ(ktune::cubin_arch_for(specific_only, 9, 0)->minor, 0);
  EXPECT_FALSE(ktune::cubin_arch_for(specific_only, 9, 1));  // arch-specific: its own minor only
}

TEST(CudaArch, CubinAndPtxRun) {
  EXPECT_TRUE(ktune::cubin_runs_on({8, 0}, 8, 6));
  EXPECT_FALSE(ktune::cubin_runs_on({8, 6}, 8, 0));
  EXPECT_FALSE(ktune::cubin_runs_on({9, 0}, 10, 0));
  EXPECT_TRUE(ktune::ptx_runs_on({9, 0}, 10, 0));
  EXPECT_FALSE(ktune::ptx_runs_on({9, 0, true}, 10, 0));
  EXPECT_FALSE(ktune::ptx_runs_on({9, 0}, 8, 9));
  EXPECT_FALSE(ktune::ptx_runs_on({}, 9, 0));  // no PTX baked
}

}  // namespace

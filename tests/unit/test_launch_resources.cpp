// What a launch template asks of the GPU, on a machine without one (the build's host check
// of launch templates runs there): the SM count is 0, a TMA descriptor is zeros, and what
// CUDA would refuse in a descriptor is refused here too, with the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ktune/driver.hpp"
#include "ktune/error.hpp"
#include "ktune/launch.hpp"
#include "ktune/launch_resources.hpp"

namespace {

std::string refusal(CUdeviceptr base, uint64_t rows, uint64_t cols, uint64_t row_bytes, uint32_t box_rows,
                    uint32_t box_cols, CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B) {
  try {
    (void)ktune::tensor_map_2d(base, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rows, cols, row_bytes, box_rows, box_cols,
                               swizzle);
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "";
}

TEST(LaunchResources, DescriptorsCudaWouldRefuseAreRefusedEverywhere) {
  const CUdeviceptr base = 0x7f0000000000;
  EXPECT_EQ(refusal(base, 4096, 4096, 8192, 128, 64), "");
  EXPECT_NE(refusal(base + 8, 4096, 4096, 8192, 128, 64).find("16-byte aligned"), std::string::npos);
  EXPECT_NE(refusal(base, 4096, 4092, 8184, 128, 64).find("multiple of 16"), std::string::npos);
  EXPECT_NE(refusal(base, 4096, 4096, 4096, 128, 64).find("hold a row of 8192 bytes"), std::string::npos);
  EXPECT_NE(refusal(base, 4096, 4096, 8192, 512, 64).find("1..256"), std::string::npos);
  EXPECT_NE(refusal(base, 4096, 4096, 8192, 128, 0).find("1..256"), std::string::npos);
  EXPECT_NE(refusal(base, 0, 4096, 8192, 128, 64).find("empty"), std::string::npos);
  const std::string wide = refusal(base, 4096, 4096, 8192, 128, 128);
  EXPECT_NE(wide.find("a box row of 256 bytes is wider than the 128-byte swizzle"), std::string::npos) << wide;
  EXPECT_EQ(refusal(base, 4096, 4096, 8192, 128, 128, CU_TENSOR_MAP_SWIZZLE_NONE), "");
  EXPECT_NE(refusal(base, 4096, 4096, 8192, 128, 4).find("multiple of 16 bytes"), std::string::npos);
}

TEST(LaunchResources, WithoutAGpuTheSmCountIsZeroAndDescriptorsAreZeros) {
  if (ktune::Driver::get_with_gpu()) GTEST_SKIP() << "a GPU is visible: this test is for machines without one";
  EXPECT_EQ(ktune::current_sm_count(), 0);
  const CUtensorMap map = ktune::tensor_map_2d(0x7f0000000000, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 100, 64, 128, 64, 64,
                                               CU_TENSOR_MAP_SWIZZLE_128B);
  CUtensorMap zeros;
  std::memset(&zeros, 0, sizeof zeros);
  EXPECT_EQ(std::memcmp(&map, &zeros, sizeof map), 0);
}

TEST(LaunchResources, ADescriptorIsAKernelArgumentOfItsOwnAlignment) {
  CUtensorMap map;
  std::memset(&map, 0, sizeof map);
  map.opaque[3] = 42;
  ktune::KernelArgs a = ktune::args(int{1}, map, uint64_t{7});
  ASSERT_EQ(a.count(), 3u);
  EXPECT_EQ(a.size(1), sizeof(CUtensorMap));
  void** p = a.pointers();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p[1]) % alignof(CUtensorMap), 0u);
  EXPECT_EQ(static_cast<const CUtensorMap*>(p[1])->opaque[3], 42u);
  EXPECT_EQ(*static_cast<uint64_t*>(p[2]), 7u);
  ktune::KernelArgs copy = a;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copy.pointers()[1]) % alignof(CUtensorMap), 0u);
  EXPECT_EQ(static_cast<const CUtensorMap*>(copy.pointers()[1])->opaque[3], 42u);
}

}  // namespace

// ktune::half and ktune::bfloat16 against the CUDA toolkit's own host conversions.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ktune/half.hpp"
#include "ktune/harness.hpp"

namespace {

uint16_t bits_of(__half h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
uint16_t bits_of(__nv_bfloat16 h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

// Every float class: zeros, subnormal halves, halfway cases, the overflow edge, inf, NaN.
std::vector<float> probe_values() {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          65504.0f,
                          65519.99f,
                          65520.0f,
                          1e9f,
                          -1e9f,
                          0x1.0p-24f,
                          0x1.8p-25f,
                          0x1.0p-25f,
                          0x1.0p-26f,
                          0x1.0p-14f,
                          0x1.ffcp-15f,
                          1.0f + 0x1.0p-11f,
                          1.0f + 0x1.8p-11f,
                          1.0f + 0x1.0p-8f,
                          1.0f + 0x1.8p-8f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::max()};
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    if (!std::isnan(f)) v.push_back(f);
  }
  std::uniform_real_distribution<float> small(-70000.0f, 70000.0f), tiny(-1e-4f, 1e-4f);
  for (int i = 0; i < 100000; ++i) v.push_back(small(rng)), v.push_back(tiny(rng));
  return v;
}

TEST(Half, FromFloatMatchesCudaRoundToNearestEven) {
  for (float f : probe_values()) {
    ASSERT_EQ(ktune::half(f).bits, bits_of(__float2half_rn(f))) << std::hexfloat << f;
    ASSERT_EQ(ktune::bfloat16(f).bits, bits_of(__float2bfloat16_rn(f))) << std::hexfloat << f;
  }
}

TEST(Half, EveryBitPatternConvertsToFloatLikeCuda) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = static_cast<uint16_t>(b);
    __half ch;
    __nv_bfloat16 cb;
    std::memcpy(&ch, &h, 2);
    std::memcpy(&cb, &h, 2);
    const float want_h = __half2float(ch), want_b = __bfloat162float(cb);
    const float got_h = static_cast<float>(ktune::half::from_bits(h));
    const float got_b = static_cast<float>(ktune::bfloat16::from_bits(h));
    if (std::isnan(want_h))
      EXPECT_TRUE(std::isnan(got_h)) << b;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(got_h), std::bit_cast<uint32_t>(want_h)) << b;
    if (std::isnan(want_b))
      EXPECT_TRUE(std::isnan(got_b)) << b;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(got_b), std::bit_cast<uint32_t>(want_b)) << b;
    // And back: every non-NaN value survives the round trip.
    if (!std::isnan(want_h)) ASSERT_EQ(ktune::half(got_h).bits, h) << b;
    if (!std::isnan(want_b)) ASSERT_EQ(ktune::bfloat16(got_b).bits, h) << b;
  }
}

TEST(Half, HarnessFillsAndComparesSixteenBitBuffers) {
  std::vector<ktune::half> v(1000);
  ktune::fill_values<ktune::half>(v, ktune::fill::random(3));
  double lo = 1, hi = -1;
  for (auto x : v) lo = std::min(lo, static_cast<double>(x)), hi = std::max(hi, static_cast<double>(x));
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);
  EXPECT_GT(hi, 0.9);
  std::vector<ktune::bfloat16> c(4);
  ktune::fill_values<ktune::bfloat16>(c, ktune::fill::constant(0.5));
  EXPECT_EQ(c[3].bits, 0x3F00);
  EXPECT_EQ(ktune::type_name<ktune::half>(), "half");
  EXPECT_EQ(ktune::type_name<ktune::bfloat16>(), "bfloat16");
}

}  // namespace

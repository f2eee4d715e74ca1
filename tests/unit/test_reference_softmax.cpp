// The softmax example's host reference (kernels/softmax/softmax_reference.hpp) on small
// hand-computed rows: the harness checks every tuned config against it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ktune/half.hpp"
#include "../../kernels/softmax/softmax_reference.hpp"

namespace {

TEST(ReferenceSoftmax, EqualInputsGiveAUniformRow) {
  const std::vector<float> x = {3, 3, 3, 3};
  std::vector<float> y(4);
  softmax_reference_row(x.data(), y.data(), x.size());
  for (float v : y) EXPECT_FLOAT_EQ(v, 0.25f);
}

TEST(ReferenceSoftmax, TwoValuesOneApart) {
  // softmax(0, 1) = (1, e) / (1 + e).
  const std::vector<float> x = {0, 1};
  std::vector<float> y(2);
  softmax_reference_row(x.data(), y.data(), 2);
  const double e = std::exp(1.0);
  EXPECT_FLOAT_EQ(y[0], static_cast<float>(1 / (1 + e)));
  EXPECT_FLOAT_EQ(y[1], static_cast<float>(e / (1 + e)));
}

TEST(ReferenceSoftmax, LargeInputsDoNotOverflow) {
  // exp(1000) overflows even double: only a max-subtracting reference gets (1, e) / (1 + e).
  const std::vector<float> x = {1000, 1001};
  std::vector<float> y(2);
  softmax_reference_row(x.data(), y.data(), 2);
  const double e = std::exp(1.0);
  EXPECT_FLOAT_EQ(y[0], static_cast<float>(1 / (1 + e)));
  EXPECT_FLOAT_EQ(y[1], static_cast<float>(e / (1 + e)));
}

TEST(ReferenceSoftmax, ShiftInvariant) {
  const std::vector<float> a = {-2, 0.5f, 4, 1}, b = {-12, -9.5f, -6, -9};  // b = a - 10
  std::vector<float> ya(4), yb(4);
  softmax_reference_row(a.data(), ya.data(), 4);
  softmax_reference_row(b.data(), yb.data(), 4);
  for (int j = 0; j < 4; ++j) EXPECT_FLOAT_EQ(ya[j], yb[j]);
}

TEST(ReferenceSoftmax, RowsAreIndependent) {
  // Two rows of 3: a uniform one, and (ln 1, ln 2, ln 5) -> (1, 2, 5) / 8.
  const std::vector<float> x = {7, 7, 7, 0, std::log(2.0f), std::log(5.0f)};
  std::vector<float> y(6, -1);
  softmax_reference_rows(x.data(), y.data(), 3, 0, 2);
  EXPECT_FLOAT_EQ(y[0], 1.0f / 3);
  EXPECT_FLOAT_EQ(y[2], 1.0f / 3);
  EXPECT_NEAR(y[3], 0.125, 1e-7);
  EXPECT_NEAR(y[4], 0.25, 1e-7);
  EXPECT_NEAR(y[5], 0.625, 1e-7);
}

TEST(ReferenceSoftmax, RowRangeLeavesOtherRowsAlone) {
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> y(4, -1);
  softmax_reference_rows(x.data(), y.data(), 2, 1, 2);  // the second row only
  EXPECT_EQ(y[0], -1);
  EXPECT_EQ(y[1], -1);
  EXPECT_FLOAT_EQ(y[2] + y[3], 1.0f);
}

TEST(ReferenceSoftmax, Bfloat16RoundsTheExactResultOnce) {
  // Equal inputs: 1/3 and 1/6, neither exact in bf16, round to the nearest bf16:
  // 0x3EAB = 0.333984375 (not 0x3EAA = 0.33203125) and 0x3E2B = 0.1669921875.
  const std::vector<ktune::bfloat16> three(3, ktune::bfloat16(2.5f)), six(6, ktune::bfloat16(-1.0f));
  std::vector<ktune::bfloat16> y3(3), y6(6);
  softmax_reference_row(three.data(), y3.data(), 3);
  softmax_reference_row(six.data(), y6.data(), 6);
  for (auto v : y3) EXPECT_EQ(v.bits, 0x3EABu);
  for (auto v : y6) EXPECT_EQ(v.bits, 0x3E2Bu);
  // (0, ln 3 as bf16 = 1.1015625): 1 / (1 + e^1.1015625) = 0.249447 lies below the midpoint
  // 0.249512 of its neighbours 0.25 - 2^-10 and 0.25; 0.750553 rounds to 0.75.
  const std::vector<ktune::bfloat16> x = {ktune::bfloat16(0.0f), ktune::bfloat16(1.1015625f)};
  std::vector<ktune::bfloat16> y(2);
  softmax_reference_row(x.data(), y.data(), 2);
  EXPECT_EQ(static_cast<float>(y[0]), 0.2490234375f);
  EXPECT_EQ(static_cast<float>(y[1]), 0.75f);
}

}  // namespace

// hgemm's host reference on small products worked out by hand: layout (row-major A M×K,
// B K×N), sums kept exact until one final rounding to fp16 / bf16, partial row ranges.
#include <gtest/gtest.h>

#include <vector>

#include "../../kernels/hgemm/hgemm_reference.hpp"

namespace {

template <typename T>
std::vector<T> values(std::initializer_list<double> v) {
  std::vector<T> out;
  for (double x : v) out.push_back(T(x));
  return out;
}

template <typename T>
std::vector<double> product(const std::vector<T>& a, const std::vector<T>& b, int M, int N, int K) {
  std::vector<T> c(static_cast<std::size_t>(M) * N);
  hgemm_reference<T>(a, b, c, M, N, K);
  std::vector<double> out;
  for (T x : c) out.push_back(static_cast<double>(x));
  return out;
}

template <typename T>
class HgemmReference : public ::testing::Test {};
using Types = ::testing::Types<ktune::half, ktune::bfloat16>;
TYPED_TEST_SUITE(HgemmReference, Types);

TYPED_TEST(HgemmReference, SquareTwoByTwo) {
  using T = TypeParam;
  // [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50]: small integers, exact in both types.
  auto c = product(values<T>({1, 2, 3, 4}), values<T>({5, 6, 7, 8}), 2, 2, 2);
  EXPECT_EQ(c, (std::vector<double>{19, 22, 43, 50}));
}

TYPED_TEST(HgemmReference, RectangularIsRowMajor) {
  using T = TypeParam;
  // A is 3×4, B is 4×2: a transposed or column-major reading would give other numbers.
  auto a = values<T>({1, 0, 2, -1, 0, 3, 1, 1, -2, 1, 0, 4});
  auto b = values<T>({1, 2, 3, 4, -1, 0.5, 2, -2});
  // row 0: 1*1 + 0*3 + 2*-1 + -1*2 = -3;   1*2 + 0*4 + 2*0.5 + -1*-2 = 5
  // row 1: 0 + 9 - 1 + 2 = 10;             0 + 12 + 0.5 - 2 = 10.5
  // row 2: -2 + 3 + 0 + 8 = 9;             -4 + 4 + 0 - 8 = -8
  auto c = product(a, b, 3, 2, 4);
  EXPECT_EQ(c, (std::vector<double>{-3, 5, 10, 10.5, 9, -8}));
}

TEST(HgemmReferenceRounding, Fp16SumsExactlyThenRoundsOnce) {
  using T = ktune::half;
  // 2048 + 1 + 1 = 2050 (fp16 spacing at 2048 is 2). Summing in fp16 would give 2048
  // (2049 ties to even, twice); the reference keeps the sum exact.
  EXPECT_EQ(product(values<T>({2048, 1, 1}), values<T>({1, 1, 1}), 1, 1, 3), (std::vector<double>{2050}));
  // 2048 + 1 = 2049, a tie: nearest even is 2048.
  EXPECT_EQ(product(values<T>({2048, 1}), values<T>({1, 1}), 1, 1, 2), (std::vector<double>{2048}));
  // 2048 + 3 = 2051, a tie: nearest even is 2052.
  EXPECT_EQ(product(values<T>({2048, 3}), values<T>({1, 1}), 1, 1, 2), (std::vector<double>{2052}));
  // 2048 + 1 + 2^-20 is just above the tie 2049: correctly rounded, 2050. Rounding the
  // double to float first would land on 2049 exactly and then round to 2048.
  const double tiny = 1.0 / 1024;  // 2^-10, a normal fp16
  EXPECT_EQ(product(values<T>({2048, 1, tiny}), values<T>({1, 1, tiny}), 1, 1, 3), (std::vector<double>{2050}));
  // And just below a tie rounds down: 2048 + 1 - 2^-20 -> 2048.
  EXPECT_EQ(product(values<T>({2048, 1, -tiny}), values<T>({1, 1, tiny}), 1, 1, 3), (std::vector<double>{2048}));
}

TEST(HgemmReferenceRounding, Bf16RoundsToEightBits) {
  using T = ktune::bfloat16;
  // bf16 spacing at 256 is 2: 256 + 1 ties to 256, 256 + 1 + 1 = 258 exactly.
  EXPECT_EQ(product(values<T>({256, 1}), values<T>({1, 1}), 1, 1, 2), (std::vector<double>{256}));
  EXPECT_EQ(product(values<T>({256, 1, 1}), values<T>({1, 1, 1}), 1, 1, 3), (std::vector<double>{258}));
  // 1 + 2^-8 + 2^-8 = 1 + 2^-7, one step above 1 (spacing 2^-7 there).
  const double e = 1.0 / 256;
  EXPECT_EQ(product(values<T>({1, e, e}), values<T>({1, 1, 1}), 1, 1, 3), (std::vector<double>{1 + 2 * e}));
}

TEST(HgemmReferenceRows, WritesOnlyTheRowsAsked) {
  using T = ktune::half;
  // A = [1 1; 2 2; 3 3], B = I: only row 1 is computed; the sentinels elsewhere stay.
  auto a = values<T>({1, 1, 2, 2, 3, 3});
  auto b = hgemm_to_float<T>(values<T>({1, 0, 0, 1}));
  auto c = values<T>({-7, -7, -7, -7, -7, -7});
  hgemm_reference_rows<T>(a, b, c, 2, 2, 1, 2);
  std::vector<double> got;
  for (T x : c) got.push_back(static_cast<double>(x));
  EXPECT_EQ(got, (std::vector<double>{-7, -7, 2, 2, -7, -7}));
}

TEST(HgemmReferenceRows, ZeroDepthGivesZeros) {
  using T = ktune::bfloat16;
  std::vector<T> a, b;
  std::vector<T> c = values<T>({5, 5, 5, 5});
  hgemm_reference<T>(a, b, c, 2, 2, 0);
  for (T x : c) EXPECT_EQ(static_cast<double>(x), 0.0);
}

}  // namespace

// The host reference of the fmha example (kernels/fmha/fmha_reference.hpp) on cases small
// enough to work out by hand: the tuner trusts it to judge every config.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ktune/half.hpp"
#include "../../kernels/fmha/fmha_reference.hpp"

namespace {

// One head (BH = 1), S = 2, D = 2: q = k = identity, v = [[1, 2], [3, 4]]. Row 0 scores
// (1/sqrt2, 0), row 1 (0, 1/sqrt2); w is the weight of the matching key.
struct TwoByTwo {
  std::vector<double> q = {1, 0, 0, 1}, k = {1, 0, 0, 1}, v = {1, 2, 3, 4};
  double w = std::exp(1 / std::sqrt(2.0)) / (std::exp(1 / std::sqrt(2.0)) + 1);
};

std::vector<double> run(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                        int BH, int S, int D, bool causal) {
  std::vector<double> o(q.size(), -1);
  fmha_ref::attention_rows(q.data(), k.data(), v.data(), o.data(), S, D, causal, 0, size_t(BH) * S);
  return o;
}

TEST(ReferenceFmha, TwoByTwoNotCausal) {
  TwoByTwo c;
  auto o = run(c.q, c.k, c.v, 1, 2, 2, false);
  // Row 0 weighs v0 by w and v1 by 1-w; row 1 the other way round.
  EXPECT_NEAR(o[0], c.w * 1 + (1 - c.w) * 3, 1e-12);
  EXPECT_NEAR(o[1], c.w * 2 + (1 - c.w) * 4, 1e-12);
  EXPECT_NEAR(o[2], (1 - c.w) * 1 + c.w * 3, 1e-12);
  EXPECT_NEAR(o[3], (1 - c.w) * 2 + c.w * 4, 1e-12);
  EXPECT_NEAR(c.w, 0.669761, 1e-6);  // e^0.7071 / (e^0.7071 + 1), by hand
}

TEST(ReferenceFmha, TwoByTwoCausal) {
  TwoByTwo c;
  auto o = run(c.q, c.k, c.v, 1, 2, 2, true);
  // Row 0 sees only key 0: exactly v0. Row 1 sees both keys, as without the mask.
  EXPECT_DOUBLE_EQ(o[0], 1);
  EXPECT_DOUBLE_EQ(o[1], 2);
  EXPECT_NEAR(o[2], (1 - c.w) * 1 + c.w * 3, 1e-12);
  EXPECT_NEAR(o[3], (1 - c.w) * 2 + c.w * 4, 1e-12);
}

TEST(ReferenceFmha, EqualScoresAverageV) {
  // q = 0: every score is 0, so every row is the mean of the keys it sees.
  const int S = 3, D = 2;
  std::vector<double> q(S * D, 0), k = {1, 2, 3, 4, 5, 6}, v = {1, 10, 2, 20, 6, 60};
  auto o = run(q, k, v, 1, S, D, false);
  for (int i = 0; i < S; ++i) {
    EXPECT_NEAR(o[i * D + 0], 3, 1e-12);
    EXPECT_NEAR(o[i * D + 1], 30, 1e-12);
  }
  o = run(q, k, v, 1, S, D, true);
  EXPECT_NEAR(o[0 * D + 1], 10, 1e-12);
  EXPECT_NEAR(o[1 * D + 1], 15, 1e-12);
  EXPECT_NEAR(o[2 * D + 1], 30, 1e-12);
}

TEST(ReferenceFmha, LargeScoresStayFinite) {
  // Scores near 1e4 overflow a naive exp: the max is subtracted first. Key 1 wins outright.
  const int S = 2, D = 2;
  std::vector<double> q = {1e4, 0, 1e4, 0}, k = {1, 0, 2, 0}, v = {5, 6, 7, 8};
  auto o = run(q, k, v, 1, S, D, false);
  for (int i = 0; i < S; ++i) {
    EXPECT_DOUBLE_EQ(o[i * D + 0], 7);
    EXPECT_DOUBLE_EQ(o[i * D + 1], 8);
  }
}

TEST(ReferenceFmha, HeadsAreIndependent) {
  // Two heads: the second is the first with v doubled, so its output doubles.
  TwoByTwo c;
  std::vector<double> q = c.q, k = c.k, v = c.v;
  q.insert(q.end(), c.q.begin(), c.q.end());
  k.insert(k.end(), c.k.begin(), c.k.end());
  for (double x : c.v) v.push_back(2 * x);
  for (bool causal : {false, true}) {
    auto o = run(q, k, v, 2, 2, 2, causal);
    for (int e = 0; e < 4; ++e) EXPECT_NEAR(o[4 + e], 2 * o[e], 1e-12) << "causal " << causal;
  }
}

TEST(ReferenceFmha, HalfInputsAndOutputs) {
  // The harness's types: fp16 in, fp16 out, rounded to nearest.
  TwoByTwo c;
  auto to_half = [](const std::vector<double>& x) {
    std::vector<ktune::half> h;
    for (double e : x) h.push_back(ktune::half(e));
    return h;
  };
  auto q = to_half(c.q), k = to_half(c.k), v = to_half(c.v);
  std::vector<ktune::half> o(4);
  fmha_ref::attention_rows(q.data(), k.data(), v.data(), o.data(), 2, 2, false, 0, 2);
  EXPECT_EQ(o[0].bits, ktune::half(c.w * 1 + (1 - c.w) * 3).bits);
  EXPECT_EQ(o[3].bits, ktune::half((1 - c.w) * 2 + c.w * 4).bits);
}

TEST(ReferenceFmha, RowRangeWritesOnlyItsRows) {
  TwoByTwo c;
  std::vector<double> o(4, -1);
  fmha_ref::attention_rows(c.q.data(), c.k.data(), c.v.data(), o.data(), 2, 2, true, 1, 2);
  EXPECT_EQ(o[0], -1);
  EXPECT_EQ(o[1], -1);
  EXPECT_NEAR(o[2], (1 - c.w) * 1 + c.w * 3, 1e-12);
}

}  // namespace

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/stopping_rule.hpp"

using ktune::StoppingRule;
using ktune::summarize;

namespace {

// 1, 2, ..., n in a shuffled order, so that rank r holds the value r.
std::vector<double> ranks_shuffled(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i + 1);
  std::shuffle(x.begin(), x.end(), std::mt19937(1234));
  return x;
}

// The first sample count at which `rule` says enough (0: never, up to `limit`).
std::size_t stops_at(const StoppingRule& rule, const std::vector<double>& all, double seconds = 0) {
  for (std::size_t n = 0; n <= all.size(); ++n)
    if (rule.enough(std::span(all).first(n), seconds)) return n;
  return 0;
}

}  // namespace

TEST(Summarize, OddCountUsesMiddleAndMinMaxBelowSix) {
  std::vector<double> x{5, 1, 4, 2, 3};
  auto s = summarize(x);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.ci_low, 1);
  EXPECT_DOUBLE_EQ(s.ci_high, 5);
  EXPECT_DOUBLE_EQ(s.rel_ci_halfwidth, (5.0 - 1.0) / 2 / 3);
  EXPECT_EQ(x, (std::vector<double>{5, 1, 4, 2, 3}));  // input untouched
}

TEST(Summarize, EvenCountAveragesTheMiddleTwo) {
  auto s = summarize(std::vector<double>{4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.ci_low, 1);
  EXPECT_DOUBLE_EQ(s.ci_high, 4);
}

TEST(Summarize, SingleSample) {
  auto s = summarize(std::vector<double>{0.75});
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.median, 0.75);
  EXPECT_DOUBLE_EQ(s.ci_low, 0.75);
  EXPECT_DOUBLE_EQ(s.ci_high, 0.75);
  EXPECT_DOUBLE_EQ(s.rel_ci_halfwidth, 0);
}

TEST(Summarize, OrderStatisticRanks) {
  struct Case {
    std::size_t n, j, k;
    double median;
  };
  // j = floor(n/2 - 0.98 sqrt(n)), k = ceil(n/2 + 1 + 0.98 sqrt(n)), clamped to [1, n]:
  const Case cases[] = {
      // n=6:   0.98*2.449 = 2.400; j = floor(0.600) = 0 -> 1; k = ceil(6.400) = 7 -> 6
      {6, 1, 6, 3.5},
      // n=10:  0.98*3.162 = 3.099; j = floor(1.901) = 1;  k = ceil(9.099) = 10
      {10, 1, 10, 5.5},
      // n=20:  0.98*4.472 = 4.383; j = floor(5.617) = 5;  k = ceil(15.383) = 16
      {20, 5, 16, 10.5},
      // n=25:  0.98*5 = 4.9;       j = floor(7.6) = 7;    k = ceil(18.4) = 19
      {25, 7, 19, 13},
      // n=100: 0.98*10 = 9.8;      j = floor(40.2) = 40;  k = ceil(60.8) = 61
      {100, 40, 61, 50.5},
      // n=2500: 0.98*50 = 49 exactly; j = 1250-49 = 1201; k = 1251+49 = 1300
      {2500, 1201, 1300, 1250.5},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("n=" + std::to_string(c.n));
    auto s = summarize(ranks_shuffled(c.n));
    EXPECT_EQ(s.n, c.n);
    EXPECT_DOUBLE_EQ(s.median, c.median);
    EXPECT_DOUBLE_EQ(s.ci_low, static_cast<double>(c.j));
    EXPECT_DOUBLE_EQ(s.ci_high, static_cast<double>(c.k));
    EXPECT_DOUBLE_EQ(s.rel_ci_halfwidth, static_cast<double>(c.k - c.j) / 2 / c.median);
  }
}

TEST(Summarize, ZeroMedianGivesZeroRelativeWidth) {
  auto s = summarize(std::vector<double>{0, 0, 0, 1, -1});
  EXPECT_DOUBLE_EQ(s.median, 0);
  EXPECT_DOUBLE_EQ(s.rel_ci_halfwidth, 0);
}

TEST(Summarize, RejectsEmptyAndNaN) {
  EXPECT_THROW(summarize(std::vector<double>{}), ktune::Error);
  EXPECT_THROW(summarize(std::vector<double>{1, NAN, 2}), ktune::Error);
}

TEST(StoppingRule, TightSamplesStopAtMinSamples) {
  StoppingRule rule;  // min 10, target 1 %
  std::vector<double> x;
  for (int i = 0; i < 50; ++i) x.push_back(1.000 + 0.001 * (i % 10));  // spread 0.9 %
  // At n = 10 the interval is [min, max] = [1.000, 1.009]: half-width 0.45 % of 1.0045.
  EXPECT_EQ(stops_at(rule, x), 10u);
  EXPECT_FALSE(rule.enough(std::span(x).first(9), 0));
}

TEST(StoppingRule, NoisySamplesRunToMaxSamples) {
  StoppingRule rule;  // max 200
  std::vector<double> x;
  for (int i = 0; i < 300; ++i) x.push_back(i % 2 ? 2.0 : 1.0);  // median interval [1, 2]
  EXPECT_EQ(stops_at(rule, x), 200u);
}

TEST(StoppingRule, TimeCapStopsAfterThreeSamples) {
  StoppingRule rule;  // min 10, max 2 s
  std::vector<double> x{900, 1100, 1000, 950};
  EXPECT_EQ(stops_at(rule, x, 2.0), 3u);
  EXPECT_EQ(stops_at(rule, x, 1.9), 0u);  // under the cap: wait for min_samples
  // The cap never trims below min_samples when that is smaller than three.
  rule.min_samples = 1;
  EXPECT_EQ(stops_at(rule, x, 5.0), 1u);
}

TEST(StoppingRule, TimeCapAtMinSamplesEvenIfNoisy) {
  StoppingRule rule;
  std::vector<double> x;
  for (int i = 0; i < 20; ++i) x.push_back(i % 2 ? 2.0 : 1.0);
  EXPECT_FALSE(rule.enough(x, 1.0));
  EXPECT_TRUE(rule.enough(x, 2.0));
}

TEST(StoppingRule, NeverStopsWithoutSamples) {
  StoppingRule rule;
  rule.min_samples = 0;
  rule.max_samples = 0;
  rule.max_seconds = 0;
  EXPECT_FALSE(rule.enough({}, 100.0));
  EXPECT_TRUE(rule.enough(std::vector<double>{1.0}, 0));
}

TEST(StoppingRule, ClearlySlowerWhenIntervalIsAboveTheBar) {
  StoppingRule rule;  // abandon_factor 1.5, needs 5 samples (min(min_samples, 5))
  std::vector<double> slow(10, 2.0);
  EXPECT_TRUE(rule.clearly_slower(slow, 1.0));   // 2.0 > 1.5
  EXPECT_FALSE(rule.clearly_slower(slow, 1.5));  // 2.0 < 2.25
  // Lower bound exactly on the bar is not "clearly" slower.
  EXPECT_FALSE(rule.clearly_slower(std::vector<double>(10, 1.5), 1.0));
  // Overlapping the bar: the low end of the interval (1.4 here) is under 1.5.
  EXPECT_FALSE(rule.clearly_slower(std::vector<double>{1.4, 1.5, 1.6, 1.5, 1.6, 1.4}, 1.0));
}

TEST(StoppingRule, ClearlySlowerUsesTheOrderStatisticNotTheMinimum) {
  StoppingRule rule;
  // n = 20, so ci_low is the 5th smallest sample.
  std::vector<double> x(20, 2.0);
  std::fill(x.begin(), x.begin() + 4, 1.0);  // four lucky fast samples
  EXPECT_TRUE(rule.clearly_slower(x, 1.0));  // x_(5) = 2.0
  x[4] = 1.0;                                // five: x_(5) = 1.0
  EXPECT_FALSE(rule.clearly_slower(x, 1.0));
}

TEST(StoppingRule, ClearlySlowerNeedsSamplesAndABest) {
  StoppingRule rule;
  EXPECT_FALSE(rule.clearly_slower(std::vector<double>(4, 10.0), 1.0));
  EXPECT_TRUE(rule.clearly_slower(std::vector<double>(5, 10.0), 1.0));
  EXPECT_FALSE(rule.clearly_slower(std::vector<double>(10, 10.0), 0.0));
  EXPECT_FALSE(rule.clearly_slower(std::vector<double>(10, 10.0), -1.0));
  EXPECT_FALSE(rule.clearly_slower({}, 1.0));
  rule.min_samples = 2;  // a smaller min_samples lowers the requirement too
  EXPECT_TRUE(rule.clearly_slower(std::vector<double>(2, 10.0), 1.0));
  EXPECT_FALSE(rule.clearly_slower(std::vector<double>(1, 10.0), 1.0));
  rule.min_samples = 0;
  EXPECT_FALSE(rule.clearly_slower({}, 1.0));
}

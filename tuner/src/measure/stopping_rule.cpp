#include "ktune/stopping_rule.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ktune/error.hpp"

namespace ktune {
namespace {

// Below this many samples the order-statistic interval is no tighter than [min, max].
constexpr std::size_t kMinForOrderStats = 6;
// A time-capped config still gets this many samples, so that a slow kernel is judged on
// more than one launch without spending min_samples × (1 s or more) on it.
constexpr std::size_t kMinSamplesAtTimeCap = 3;
// clearly_slower() never abandons on fewer samples than this (fewer if min_samples is).
constexpr std::size_t kMinSamplesToAbandon = 5;
// Keeps floor/ceil from flipping on a bound that is an integer up to rounding.
constexpr double kRankEps = 1e-9;

}  // namespace

SampleSummary summarize(std::span<const double> samples) {
  if (samples.empty()) throw Error("summarize: no samples (time the config at least once)");
  std::vector<double> x(samples.begin(), samples.end());
  for (double v : x)
    if (std::isnan(v)) throw Error("summarize: a sample is NaN (broken timer reading)");
  std::sort(x.begin(), x.end());

  SampleSummary s;
  const std::size_t n = x.size();
  s.n = n;
  s.median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;

  if (n < kMinForOrderStats) {
    s.ci_low = x.front();
    s.ci_high = x.back();
  } else {
    // Distribution-free 95 % interval of the median: the number of samples below the true
    // median is Binomial(n, 1/2); its normal approximation, mean n/2 and sd sqrt(n)/2,
    // gives the 1-based ranks n/2 ± 1.96·sqrt(n)/2 (Conover, Practical Nonparametric
    // Statistics, the large-sample median interval), widened outward to whole ranks.
    const double half = 0.98 * std::sqrt(static_cast<double>(n));
    const double nd = static_cast<double>(n);
    auto clamp_rank = [n](double r) { return static_cast<std::size_t>(std::clamp(r, 1.0, static_cast<double>(n))); };
    const std::size_t j = clamp_rank(std::floor(nd / 2 - half + kRankEps));
    const std::size_t k = clamp_rank(std::ceil(nd / 2 + 1 + half - kRankEps));
    s.ci_low = x[j - 1];
    s.ci_high = x[k - 1];
  }
  s.rel_ci_halfwidth = s.median == 0 ? 0 : (s.ci_high - s.ci_low) / 2 / std::abs(s.median);
  return s;
}

bool StoppingRule::enough(std::span<const double> samples_ms, double seconds_spent) const {
  const std::size_t n = samples_ms.size();
  if (n == 0) return false;  // nothing to report: whatever the caps say, time it once
  if (n >= max_samples) return true;
  if (seconds_spent >= max_seconds && n >= std::min(min_samples, kMinSamplesAtTimeCap)) return true;
  if (n < min_samples) return false;
  return summarize(samples_ms).rel_ci_halfwidth <= target_rel_ci;
}

bool StoppingRule::clearly_slower(std::span<const double> samples_ms, double best_ms) const {
  if (!(best_ms > 0)) return false;  // no best yet (also rejects NaN)
  const std::size_t n = samples_ms.size();
  if (n == 0 || n < std::min(min_samples, kMinSamplesToAbandon)) return false;
  return summarize(samples_ms).ci_low > abandon_factor * best_ms;
}

}  // namespace ktune

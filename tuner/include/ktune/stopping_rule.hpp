#pragma once
// When to stop timing a config: after `min_samples`, as soon as the 95 % confidence
// interval of the median is within `target_rel_ci` of it, or at `max_samples`, or once
// `max_seconds` of GPU time went into it. And when to give up on a config early: its
// confidence interval lies wholly above `abandon_factor` × the best median so far.
#include <cstddef>
#include <span>

namespace ktune {

struct SampleSummary {
  std::size_t n = 0;
  double median = 0;
  double ci_low = 0, ci_high = 0;  // 95 % interval of the median (order statistics)
  double rel_ci_halfwidth = 0;     // (ci_high - ci_low) / 2 / median
};

// Throws Error when `samples` is empty.
SampleSummary summarize(std::span<const double> samples);

struct StoppingRule {
  std::size_t min_samples = 10;
  std::size_t max_samples = 200;
  double target_rel_ci = 0.01;
  double max_seconds = 2.0;
  double abandon_factor = 1.5;

  bool enough(std::span<const double> samples_ms, double seconds_spent) const;
  // True once `samples_ms` (≥ min_samples of them) is clearly slower than `best_ms`.
  bool clearly_slower(std::span<const double> samples_ms, double best_ms) const;
};

}  // namespace ktune

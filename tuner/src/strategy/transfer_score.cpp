#include "strategy/transfer_score.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ktune {
namespace {

// The model of the ranking is fitted to at most this many of its configs, evenly spaced
// through it, so that a prior of a whole recorded space costs a fraction of a second.
constexpr std::size_t kMaxFitted = 2048;

// Φ⁻¹(q) for q in (0, 1), by bisection on erfc: exact to double precision, and called once
// per ranked config.
double normal_quantile(double q) {
  double lo = -10, hi = 10;
  for (int k = 0; k < 64; ++k) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::numbers::sqrt2) < q ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

TransferScore::TransferScore(const SearchSpace& space, const std::vector<std::size_t>& ranking) : model_(space) {
  const auto n = static_cast<double>(ranking.size());
  for (std::size_t r = 0; r < ranking.size(); ++r)
    if (ranking[r] < space.size())
      ranked_.emplace(ranking[r], std::min(0.0, normal_quantile((static_cast<double>(r) + 0.5) / n)));
  if (ranked_.empty()) return;
  std::vector<std::size_t> rows;
  std::vector<double> y;
  const std::size_t stride = (ranking.size() + kMaxFitted - 1) / kMaxFitted;
  for (std::size_t r = 0; r < ranking.size(); r += stride)
    if (auto it = ranked_.find(ranking[r]); it != ranked_.end()) rows.push_back(it->first), y.push_back(it->second);
  model_.fit(rows, std::move(y));
}

double TransferScore::operator()(std::size_t i) const {
  if (auto it = ranked_.find(i); it != ranked_.end()) return it->second;
  return model_.fitted() ? std::min(0.0, model_.expected(i)) : 0.0;
}

}  // namespace ktune

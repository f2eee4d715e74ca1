#include "strategy/additive_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace ktune {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
// Per-value and pairwise terms are left out where they would pass this many features (a
// wide space keeps its trends), so that a fit stays a fraction of a second.
constexpr std::size_t kMaxFeatures = 320;
// Prior variances of the groups, in units of the targets' spread: trends first, then the
// values' own deviations and the interactions.
constexpr double kLinearVar = 1.0, kQuadVar = 0.5, kValueVar = 0.25, kPairVar = 0.25;
// The prior's score is a single feature that may explain most of the spread.
constexpr double kPriorScoreVar = 1.0;
// A failure is taught as this much (log time) slower than the clipped slow half.
constexpr double kFailedAbove = 0.1;

// In place: A (n×n, row-major, symmetric positive definite) becomes its lower Cholesky
// factor; false when it is not positive definite.
bool cholesky(std::vector<double>& a, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) return false;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
    for (std::size_t k = j + 1; k < n; ++k) a[j * n + k] = 0;
  }
  return true;
}

// b := L⁻¹ b and b := L⁻ᵀ b, for the lower factor L.
void solve_lower(const std::vector<double>& l, std::size_t n, std::vector<double>& b) {
  for (std::size_t i = 0; i < n; ++i) {
    double s = b[i];
    for (std::size_t k = 0; k < i; ++k) s -= l[i * n + k] * b[k];
    b[i] = s / l[i * n + i];
  }
}
void solve_upper(const std::vector<double>& l, std::size_t n, std::vector<double>& b) {
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= l[k * n + i] * b[k];
    b[i] = s / l[i * n + i];
  }
}

}  // namespace

AdditiveModel::AdditiveModel(const SearchSpace& space, std::function<double(std::size_t)> prior_score)
    : space_(space), prior_score_(std::move(prior_score)) {
  const std::size_t w = space.width();
  auto add = [&](double var) {
    prior_.push_back(var);
    return static_cast<uint32_t>(prior_.size() - 1);
  };
  add(1.0);  // the intercept
  linear_.assign(w, kNone), quad_.assign(w, kNone), onehot_.assign(w, kNone);
  std::size_t trends = 1, values = 0, varying = 0;
  for (std::size_t k = 0; k < w; ++k) {
    const std::size_t c = space.cardinality(k);
    trends += c > 1 ? 1 : 0;
    trends += c > 2 ? 1 : 0;
    values += c > 2 ? c : 0;
    varying += c > 1 ? 1 : 0;
  }
  const bool per_value = trends + values <= kMaxFeatures;
  const bool pairwise = trends + (per_value ? values : 0) + varying * (varying - 1) / 2 <= kMaxFeatures;
  for (std::size_t k = 0; k < w; ++k) {
    const std::size_t c = space.cardinality(k);
    if (c < 2) continue;
    linear_[k] = add(kLinearVar);
    if (c < 3) continue;  // two values: the linear term says all
    quad_[k] = add(kQuadVar);
    if (!per_value) continue;
    onehot_[k] = add(kValueVar);
    for (std::size_t v = 1; v < c; ++v) add(kValueVar);
  }
  pair_base_ = static_cast<uint32_t>(prior_.size());
  if (pairwise)
    for (std::size_t k = 0; k < w; ++k)
      for (std::size_t l = k + 1; l < w; ++l)
        if (linear_[k] != kNone && linear_[l] != kNone) pairs_.emplace_back(k, l), add(kPairVar);
  if (prior_score_) prior_feature_ = add(kPriorScoreVar);
}

void AdditiveModel::features(std::size_t i, std::vector<Term>& out) const {
  out.clear();
  out.push_back({0, 1.0});
  thread_local std::vector<double> t;
  t.assign(space_.width(), 0);
  for (std::size_t k = 0; k < space_.width(); ++k) {
    if (linear_[k] == kNone) continue;
    const uint32_t p = space_.position(i, k);
    t[k] = static_cast<double>(p) / static_cast<double>(space_.cardinality(k) - 1) - 0.5;  // in [-1/2, 1/2]
    out.push_back({linear_[k], 2 * t[k]});
    if (quad_[k] != kNone) out.push_back({quad_[k], 12 * t[k] * t[k] - 1});
    if (onehot_[k] != kNone) out.push_back({onehot_[k] + p, 1.0});
  }
  for (std::size_t q = 0; q < pairs_.size(); ++q)
    out.push_back({pair_base_ + static_cast<uint32_t>(q), 4 * t[pairs_[q].first] * t[pairs_[q].second]});
  if (prior_feature_ != kNoFeature) out.push_back({prior_feature_, prior_score_(i)});
}

void AdditiveModel::fit(const SearchState& state) {
  // The prior's configs are answers, not directions (ktune/strategy.hpp): left out, so that
  // a prior whose fast configs are away from this GPU's optimum does not steer the model;
  // unless the model has the prior's score as a feature, whose weight they then measure.
  std::vector<std::size_t> rows;
  for (std::size_t i : state.history())
    if (prior_score_ || !state.is_prior(i)) rows.push_back(i);
  std::vector<double> ok;
  for (std::size_t i : rows)
    if (const double c = state.cost(i); std::isfinite(c)) ok.push_back(c);
  if (ok.empty()) return;
  std::nth_element(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>((ok.size() - 1) / 2), ok.end());
  const double clip = ok[(ok.size() - 1) / 2];
  std::vector<double> y;
  for (std::size_t i : rows) {
    const double c = state.cost(i);
    y.push_back(std::isfinite(c) ? std::min(c, clip) : clip + kFailedAbove);
  }
  fit(rows, std::move(y));
}

void AdditiveModel::fit(const std::vector<std::size_t>& rows, std::vector<double> y) {
  if (y.empty()) return;
  const auto n = static_cast<double>(y.size());
  double mu = 0, var = 0;
  for (double v : y) mu += v / n;
  for (double v : y) var += (v - mu) * (v - mu) / n;
  const double sd = var > 1e-18 ? std::sqrt(var) : 1;
  mu_ = mu, sd_ = sd;
  double yy = 0;
  for (double& v : y) v = (v - mu) / sd, yy += v * v;

  // The Gram matrix and Φᵀy, once: the hyperparameters only rescale them.
  const std::size_t f = prior_.size();
  std::vector<double> gram(f * f, 0), phy(f, 0);
  std::vector<Term> terms;
  for (std::size_t r = 0; r < y.size(); ++r) {
    features(rows[r], terms);
    for (const Term& a : terms) {
      phy[a.feature] += a.value * y[r];
      for (const Term& b : terms) gram[a.feature * f + b.feature] += a.value * b.value;
    }
  }
  // Type-II maximum likelihood over a small grid: log p(y) = -½ (yᵀy/σ² − bᵀA⁻¹b + log|A|
  // + log|S| + n log σ²) + const, with A = ΦᵀΦ/σ² + S⁻¹, b = Φᵀy/σ², S the prior.
  double best = -std::numeric_limits<double>::infinity();
  for (double scale : {0.1, 0.3, 1.0, 3.0})
    for (double noise : {0.01, 0.05, 0.2, 0.5}) {
      std::vector<double> a(f * f);
      for (std::size_t j = 0; j < f * f; ++j) a[j] = gram[j] / noise;
      double logdet_prior = 0;
      for (std::size_t j = 0; j < f; ++j) {
        a[j * f + j] += 1 / (scale * prior_[j]);
        logdet_prior += std::log(scale * prior_[j]);
      }
      if (!cholesky(a, f)) continue;
      std::vector<double> u(phy);
      for (double& v : u) v /= noise;
      solve_lower(a, f, u);
      double bab = 0, logdet = 0;
      for (std::size_t j = 0; j < f; ++j) bab += u[j] * u[j], logdet += 2 * std::log(a[j * f + j]);
      const double ml = -0.5 * (yy / noise - bab + logdet + logdet_prior + n * std::log(noise));
      if (ml > best) {
        best = ml;
        solve_upper(a, f, u);  // the posterior mean, A⁻¹b
        mean_ = std::move(u);
        chol_ = std::move(a);
      }
    }
}

std::vector<double> AdditiveModel::draw(SearchState& state) const {
  const std::size_t f = prior_.size();
  std::vector<double> z(f);
  for (double& v : z) {  // Box-Muller on the state's generator: the same draws everywhere
    const double u1 = 1 - state.unit(), u2 = state.unit();
    v = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }
  solve_upper(chol_, f, z);  // z ~ N(0, A⁻¹)
  for (std::size_t j = 0; j < f; ++j) z[j] += mean_[j];
  return z;
}

double AdditiveModel::predict(const std::vector<double>& weights, std::size_t i) const {
  thread_local std::vector<Term> terms;
  features(i, terms);
  double s = 0;
  for (const Term& t : terms) s += weights[t.feature] * t.value;
  return s;
}

}  // namespace ktune

#pragma once
// A Bayesian linear model of a config's log time over features of its value positions, to
// choose among candidates before they are measured: per parameter a linear and a quadratic
// term in the position (the smooth trend: a tile too small or too large), a deviation per
// value (what no trend explains) and the product of every two parameters' linear terms
// (interactions: a large block wants a small tile). The weights have Gaussian priors, per
// group, and the prior's scale and the noise are chosen by marginal likelihood at each fit,
// so the model keeps to its trends with few results and follows the values as results come.
// Targets are log times with the slow half clipped at the median (what matters is which
// configs are fast, not how slow the slow ones are) and failures a little slower than that.
// Thompson sampling: a draw of the weights from the posterior scores the candidates, so
// proposals made before results arrive (the tuner's compile pool) differ where the model
// is unsure. Cost: features ≤ kMaxFeatures, a fit is a few Cholesky factorisations of that
// size, a prediction a sum over a config's active features.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "ktune/search_space.hpp"
#include "strategy/search_state.hpp"

namespace ktune {

class AdditiveModel {
 public:
  // `prior_score`, when given, is one more feature: what another GPU's (or key's) results
  // say of a config, lower is faster (TransferScore). Its weight is learnt like the others,
  // so the model follows it as far as the results here bear it out, and not where they do not.
  explicit AdditiveModel(const SearchSpace& space, std::function<double(std::size_t)> prior_score = {});

  bool fitted() const { return !mean_.empty(); }
  // Fits the posterior to every config observed so far (at least one of them must have
  // run); the prior's configs only when the model has the prior's score as a feature.
  void fit(const SearchState& state);
  // Fits the posterior to explicit targets, log times or any score where lower is faster.
  void fit(const std::vector<std::size_t>& rows, std::vector<double> y);
  // One draw of the weights from the posterior (fitted() must hold), and a config's
  // predicted standardised log time under a draw: lower is faster.
  std::vector<double> draw(SearchState& state) const;
  double predict(const std::vector<double>& weights, std::size_t i) const;
  // A config's predicted target under the posterior mean, in the targets' own units.
  double expected(std::size_t i) const { return mu_ + sd_ * predict(mean_, i); }

 private:
  static constexpr uint32_t kNoFeature = UINT32_MAX;
  struct Term {
    uint32_t feature;
    double value;
  };
  void features(std::size_t i, std::vector<Term>& out) const;

  const SearchSpace& space_;
  std::function<double(std::size_t)> prior_score_;
  uint32_t prior_feature_ = kNoFeature;
  std::vector<double> prior_;                               // prior variance per feature, before the scale
  std::vector<uint32_t> linear_, quad_, onehot_;            // each parameter's first feature, or kNone
  std::vector<std::pair<std::size_t, std::size_t>> pairs_;  // parameters whose product is a feature
  uint32_t pair_base_ = 0;
  double mu_ = 0, sd_ = 1;    // the targets' mean and spread, which fit() standardises
  std::vector<double> mean_;  // posterior mean of the weights
  std::vector<double> chol_;  // lower Cholesky factor of the posterior precision, row-major
};

}  // namespace ktune

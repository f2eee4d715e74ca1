// Bayesian optimisation with a tree-ensemble surrogate. After a random initial design,
// extremely randomised trees (Geurts et al., 2006) learn log time from value positions,
// and the next config is the one with the largest expected improvement over the best time,
// the trees' mean and spread standing in for a Gaussian posterior. Trees rather than a
// Gaussian process: they need no kernel for mixed, constrained, categorical-ish positions,
// and fit in O(n log n). Failed configs are taught to the model as slower than anything
// seen, so it steers away from their region. The cost per proposal is bounded: the model
// is refitted after every n/16 new results (every result while n < 32), and scores at
// most 2000 random unvisited configs plus the untried neighbours of the best few.
#include <cmath>
#include <string>
#include <tuple>

#include "ktune/strategy.hpp"
#include "strategy/search_state.hpp"

namespace ktune {
namespace {

constexpr std::size_t kBayesTrees = 24;
// The random initial design: a tenth of the budget, within these bounds.
constexpr std::size_t kBayesMinInitial = 10;
constexpr std::size_t kBayesMaxInitial = 30;
constexpr std::size_t kBayesCandidates = 2000;
constexpr std::size_t kBayesLocalTop = 5;
constexpr std::size_t kBayesRefitDivisor = 16;
// A failure is taught as e times slower than the slowest config that ran.
constexpr double kBayesFailurePenalty = 1.0;

// Fully grown extra-trees regression: every split takes a random threshold per feature
// and keeps the feature whose split explains the most variance.
class BayesForest {
 public:
  void fit(const SearchSpace& space, const std::vector<std::size_t>& configs, std::vector<double> y,
           SearchState& state) {
    width_ = space.width();
    x_.clear();
    for (std::size_t i : configs) {
      const auto row = space.row(i);
      x_.insert(x_.end(), row.begin(), row.end());
    }
    y_ = std::move(y);
    trees_.assign(kBayesTrees, {});
    std::vector<uint32_t> order(configs.size());
    for (Tree& tree : trees_) {
      for (uint32_t s = 0; s < order.size(); ++s) order[s] = s;
      grow(tree, order, 0, order.size(), state);
    }
  }

  // Mean and spread of the trees' predictions for config i.
  std::pair<double, double> predict(const SearchSpace& space, std::size_t i) const {
    auto row = space.row(i);
    double sum = 0, squares = 0;
    for (const Tree& tree : trees_) {
      uint32_t n = 0;
      while (tree[n].feature >= 0) n = row[tree[n].feature] <= tree[n].threshold ? tree[n].left : tree[n].right;
      sum += tree[n].value;
      squares += tree[n].value * tree[n].value;
    }
    const double mean = sum / trees_.size();
    return {mean, std::sqrt(std::max(0.0, squares / trees_.size() - mean * mean))};
  }

 private:
  struct Node {
    int32_t feature = -1;  // a leaf when negative
    double threshold = 0;  // positions <= threshold go left
    uint32_t left = 0, right = 0;
    double value = 0;  // mean target of the node's samples
  };
  using Tree = std::vector<Node>;

  double x(uint32_t sample, std::size_t k) const { return x_[sample * width_ + k]; }

  uint32_t grow(Tree& tree, std::vector<uint32_t>& order, std::size_t lo, std::size_t hi, SearchState& state) {
    const auto id = static_cast<uint32_t>(tree.size());
    tree.emplace_back();
    double sum = 0;
    for (std::size_t s = lo; s < hi; ++s) sum += y_[order[s]];
    const double n = static_cast<double>(hi - lo);
    tree[id].value = sum / n;
    double best_gain = 0, best_threshold = 0;
    int32_t best_feature = -1;
    for (std::size_t k = 0; k < width_; ++k) {
      double low = x(order[lo], k), high = low;
      for (std::size_t s = lo + 1; s < hi; ++s) {
        low = std::min(low, x(order[s], k));
        high = std::max(high, x(order[s], k));
      }
      if (low == high) continue;
      const double threshold = low + state.unit() * (high - low);
      double left_sum = 0, left_n = 0;
      for (std::size_t s = lo; s < hi; ++s)
        if (x(order[s], k) <= threshold) left_sum += y_[order[s]], ++left_n;
      // Reduction of the sum of squared errors, up to a constant.
      const double right_sum = sum - left_sum, right_n = n - left_n;
      const double gain = left_sum * left_sum / left_n + right_sum * right_sum / right_n - sum * sum / n;
      if (gain > best_gain) best_gain = gain, best_feature = static_cast<int32_t>(k), best_threshold = threshold;
    }
    if (best_feature < 0) return id;  // constant targets or inputs: a leaf
    auto middle = std::partition(order.begin() + lo, order.begin() + hi,
                                 [&](uint32_t s) { return x(s, best_feature) <= best_threshold; });
    const std::size_t cut = middle - order.begin();
    const uint32_t left = grow(tree, order, lo, cut, state);
    const uint32_t right = grow(tree, order, cut, hi, state);
    tree[id].feature = best_feature;
    tree[id].threshold = best_threshold;
    tree[id].left = left;
    tree[id].right = right;
    return id;
  }

  std::size_t width_ = 0;
  std::vector<double> x_;  // samples × width positions
  std::vector<double> y_;
  std::vector<Tree> trees_;
};

class Bayes final : public Strategy {
 public:
  explicit Bayes(const StrategyContext& c)
      : state_("bayes", c),
        initial_(std::min(state_.limit(), std::clamp(state_.limit() / 10, kBayesMinInitial, kBayesMaxInitial))) {}

  std::string name() const override { return "bayes"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [this] { return next(); });
  }
  void observe(const Observation& o) override { state_.record(o); }
  bool done() const override { return state_.done(); }

 private:
  std::optional<std::size_t> next() {
    // Until something has run there is nothing to improve on: sample.
    if (state_.proposed() < initial_ || state_.ranking().empty()) return std::nullopt;
    const std::size_t n = state_.history().size();
    if (ranked_.empty() || n - fitted_at_ >= std::max<std::size_t>(1, n / kBayesRefitDivisor)) refit();
    while (!ranked_.empty()) {
      const std::size_t j = ranked_.back();
      ranked_.pop_back();
      if (!state_.was_proposed(j)) return j;
    }
    return std::nullopt;
  }

  // Fits the forest to every result so far and ranks candidates by expected improvement.
  void refit() {
    const SearchSpace& space = state_.space();
    const double best = state_.ranking().begin()->first;
    const double failed = state_.ranking().rbegin()->first + kBayesFailurePenalty;
    std::vector<double> y;
    for (std::size_t i : state_.history())
      y.push_back(state_.cost(i) == SearchState::kFailed ? failed : state_.cost(i));
    forest_.fit(space, state_.history(), std::move(y), state_);
    fitted_at_ = state_.history().size();

    std::vector<std::size_t> candidates;
    if (state_.unproposed_count() <= kBayesCandidates) {
      candidates = state_.unproposed();
    } else {
      for (std::size_t c = 0; c < kBayesCandidates; ++c) candidates.push_back(state_.any_unproposed());
      std::size_t rank = 0;
      for (const auto& [cost, i] : state_.ranking()) {
        if (rank++ == kBayesLocalTop) break;
        for (std::size_t j : space.hamming(i))
          if (!state_.was_proposed(j)) candidates.push_back(j);
      }
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    }
    // (expected improvement, -mean, config): sorted ascending, the best proposal is last.
    std::vector<std::tuple<double, double, std::size_t>> scored;
    for (std::size_t i : candidates) {
      const auto [mean, spread] = forest_.predict(space, i);
      double ei = std::max(0.0, best - mean);
      if (spread > 1e-12) {
        const double z = (best - mean) / spread;
        ei = (best - mean) * 0.5 * std::erfc(-z / std::sqrt(2.0)) +
             spread * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
      }
      scored.emplace_back(ei, -mean, i);
    }
    std::sort(scored.begin(), scored.end());
    ranked_.clear();
    for (const auto& s : scored) ranked_.push_back(std::get<2>(s));
  }

  SearchState state_;
  std::size_t initial_;  // random configs before the model takes over
  BayesForest forest_;
  std::size_t fitted_at_ = 0;        // results the forest was fitted to
  std::vector<std::size_t> ranked_;  // candidates by expected improvement, best last
};

}  // namespace

std::unique_ptr<Strategy> make_bayes(const StrategyContext& context) { return std::make_unique<Bayes>(context); }

}  // namespace ktune

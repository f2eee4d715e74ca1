// A portfolio of three moves, chosen per proposal by a bandit that learns which pays on
// this space: `refine` (an untried neighbour of one of the best configs, adjacent values
// first: local search's move), `breed` (a child of the fastest configs: genetic's move)
// and `model` (the config whose values are most common among the fastest configs).
// No single move is best on every space: hill climbing wins where fast configs sit in one
// smooth basin, recombination where they share good values of several parameters, the
// model where the fast configs share values the others lack. After a random start (a tenth of
// the budget within 6..24) each proposal draws a move with probability growing with its
// recent success, never below kFloor: a success is a result faster than the population's
// median at the time it arrives, so a move that feeds the front gains share. Credit counts
// when a result arrives, so proposals made ahead of results (the tuner's compile pool)
// keep the shares of the results already known.
//
// The model move is a density ratio over values (as in TPE): the fastest fifth of the configs
// that ran are "good", the other configs (failures included) the rest; per parameter, the
// share of each value among the good over its share among the rest, smoothed (a value lends
// a quarter of its count to its neighbouring values; every value has a pseudo-count), and a
// config scores the sum of its values' log ratios. Unlike a model of mean time it follows
// where the fastest configs are when parameters interact (a value that is slow on average
// may be in every fast config). Candidates: configs drawn from the good configs' values
// (each parameter's value from a random good config, repaired towards one of them) and the
// untried neighbours of the best three; the best scoring one is proposed. Spaces whose
// parameters have more than kModelMaxWidth values in all have no model move.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ktune/strategy.hpp"
#include "strategy/recombination.hpp"
#include "strategy/search_state.hpp"

namespace ktune {
namespace {

constexpr std::size_t kMinStart = 6;
constexpr std::size_t kMaxStart = 24;
constexpr std::size_t kMaxPopulation = 32;
constexpr double kFloor = 0.1;                // least share of each move
constexpr double kDecay = 0.95;               // older results count less in a move's share
constexpr std::size_t kModelMaxWidth = 4096;  // values of all parameters
constexpr std::size_t kDrawnCandidates = 32;
constexpr double kGoodShare = 0.2;  // the fastest fifth of the configs that ran are "good"
constexpr double kSpread = 0.25;    // weight a value lends its neighbouring values
constexpr double kPrior = 0.5;      // pseudo-count of every value
constexpr int kBreedTries = 8;

enum Move : std::size_t { kRefine, kBreed, kModel, kMoves };

class Hybrid final : public Strategy {
 public:
  explicit Hybrid(const StrategyContext& c)
      : state_("hybrid", c),
        start_(std::clamp<std::size_t>(state_.limit() / 10, kMinStart, kMaxStart)),
        population_(std::clamp<std::size_t>(state_.limit() / 10, 8, kMaxPopulation)) {
    const SearchSpace& space = state_.space();
    offset_.push_back(0);
    for (std::size_t k = 0; k < space.width(); ++k) offset_.push_back(offset_.back() + space.cardinality(k));
    if (offset_.back() > kModelMaxWidth) credit_[kModel] = {0, 0}, usable_[kModel] = false;
  }

  std::string name() const override { return "hybrid"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [this] { return next(); });
  }
  void observe(const Observation& o) override {
    if (!state_.record(o)) return;
    auto it = move_of_.find(o.index);
    if (it == move_of_.end()) return;
    const Move m = it->second;
    move_of_.erase(it);
    const bool success = o.status == Status::Ok && state_.cost(o.index) < median_cost();
    for (auto& [wins, tries] : credit_) wins *= kDecay, tries *= kDecay;
    credit_[m].first += success ? 1 : 0;
    credit_[m].second += 1;
  }
  bool done() const override { return state_.done(); }

 private:
  std::optional<std::size_t> next() {
    if (state_.proposed() < start_ || state_.ranking().size() < 2) return std::nullopt;
    const Move first = pick();
    // The drawn move first; when it has nothing to offer, the others in order.
    for (std::size_t t = 0; t < kMoves; ++t) {
      const Move m = static_cast<Move>((first + t) % kMoves);
      if (!usable_[m]) continue;
      std::optional<std::size_t> i = m == kRefine ? refine() : m == kBreed ? breed() : model();
      if (i && !state_.was_proposed(*i)) {
        move_of_[*i] = m;
        return i;
      }
    }
    return std::nullopt;
  }

  // A move with probability ∝ its smoothed success rate, each at least kFloor.
  Move pick() {
    std::array<double, kMoves> p{};
    double sum = 0;
    for (std::size_t m = 0; m < kMoves; ++m) {
      p[m] = usable_[m] ? (credit_[m].first + 1) / (credit_[m].second + 2) : 0;
      sum += p[m];
    }
    std::size_t n = 0;
    for (std::size_t m = 0; m < kMoves; ++m) n += usable_[m];
    double total = 0;
    for (std::size_t m = 0; m < kMoves; ++m) {
      if (usable_[m]) p[m] = kFloor + (1 - kFloor * static_cast<double>(n)) * p[m] / sum;
      total += p[m];
    }
    double u = state_.unit() * total;
    for (std::size_t m = 0; m < kMoves; ++m) {
      if (u < p[m]) return static_cast<Move>(m);
      u -= p[m];
    }
    return kRefine;
  }

  // The fastest configs that ran, up to the population's size, fastest first.
  std::vector<std::size_t> members() const {
    std::vector<std::size_t> out;
    for (const auto& [cost, i] : state_.ranking()) {
      if (out.size() == population_) break;
      out.push_back(i);
    }
    return out;
  }

  double median_cost() const {
    const std::vector<std::size_t> m = members();
    return m.empty() ? SearchState::kFailed : state_.cost(m[m.size() / 2]);
  }

  // An untried adjacent neighbour of the best config, else of the next best (up to 3),
  // else an untried Hamming neighbour of the best.
  std::optional<std::size_t> refine() {
    const std::vector<std::size_t> m = members();
    for (std::size_t r = 0; r < std::min<std::size_t>(3, m.size()); ++r)
      if (auto j = untried(state_.space().adjacent(m[r]))) return j;
    if (!m.empty()) return untried(state_.space().hamming(m[0]));
    return std::nullopt;
  }

  std::optional<std::size_t> untried(std::vector<std::size_t> near) {
    std::erase_if(near, [&](std::size_t j) { return state_.was_proposed(j); });
    if (near.empty()) return std::nullopt;
    return near[state_.below(near.size())];
  }

  // A child of the population (strategy/recombination.hpp).
  std::optional<std::size_t> breed() { return breed_child(state_, members(), kBreedTries); }

  // The candidate the density ratio favours most (see the file comment).
  std::optional<std::size_t> model() {
    const SearchSpace& space = state_.space();
    const std::vector<std::size_t>& seen = state_.history();
    std::vector<std::size_t> ranked;  // configs that ran, fastest first
    for (const auto& [cost, i] : state_.ranking()) ranked.push_back(i);
    const std::size_t good =
        std::max<std::size_t>(2, static_cast<std::size_t>(kGoodShare * static_cast<double>(ranked.size())));
    if (ranked.size() < good + 1) return std::nullopt;
    // Per parameter and value: smoothed counts among the good and among the rest.
    const std::size_t d = offset_.back();
    std::vector<double> lg(d, 0), bd(d, 0);
    std::unordered_set<std::size_t> is_good(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(good));
    for (std::size_t i : seen)
      for (std::size_t k = 0; k < space.width(); ++k) {
        const std::size_t n = space.cardinality(k), v = space.position(i, k);
        std::vector<double>& to = is_good.count(i) ? lg : bd;
        // Most weight on the value, some on its neighbours: values are ordered.
        to[offset_[k] + v] += 1;
        if (v > 0) to[offset_[k] + v - 1] += kSpread;
        if (v + 1 < n) to[offset_[k] + v + 1] += kSpread;
      }
    std::vector<double> ratio(d);
    for (std::size_t k = 0; k < space.width(); ++k) {
      const std::size_t n = space.cardinality(k);
      double sl = 0, sb = 0;
      for (std::size_t v = 0; v < n; ++v) sl += lg[offset_[k] + v] + kPrior, sb += bd[offset_[k] + v] + kPrior;
      for (std::size_t v = 0; v < n; ++v)
        ratio[offset_[k] + v] =
            std::log((lg[offset_[k] + v] + kPrior) / sl) - std::log((bd[offset_[k] + v] + kPrior) / sb);
    }
    auto score = [&](std::size_t i) {
      double s = 0;
      for (std::size_t k = 0; k < space.width(); ++k) s += ratio[offset_[k] + space.position(i, k)];
      return s;
    };
    std::optional<std::size_t> best;
    double best_score = 0;
    auto consider = [&](std::size_t i) {
      if (state_.was_proposed(i)) return;
      const double s = score(i);
      if (!best || s > best_score) best = i, best_score = s;
    };
    // Candidates drawn from the good configs' values: each parameter's value from a random
    // good config, repaired towards one of them until valid and new.
    std::vector<std::size_t> goods(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(good));
    for (std::size_t n = 0; n < kDrawnCandidates; ++n) {
      std::vector<uint32_t> c(space.width());
      for (std::size_t k = 0; k < c.size(); ++k) c[k] = space.position(goods[state_.below(goods.size())], k);
      if (auto i = repair_child(state_, c, goods[state_.below(goods.size())])) consider(*i);
    }
    for (std::size_t r = 0; r < std::min<std::size_t>(3, ranked.size()); ++r)
      for (std::size_t j : space.adjacent(ranked[r])) consider(j);
    return best;
  }

  SearchState state_;
  std::size_t start_;
  std::size_t population_;
  std::vector<std::size_t> offset_;                         // first one-hot feature of each parameter
  std::array<std::pair<double, double>, kMoves> credit_{};  // decayed (successes, tries)
  std::array<bool, kMoves> usable_{true, true, true};
  std::unordered_map<std::size_t, Move> move_of_;  // proposals whose result is pending
};

}  // namespace

std::unique_ptr<Strategy> make_hybrid(const StrategyContext& context) { return std::make_unique<Hybrid>(context); }

}  // namespace ktune

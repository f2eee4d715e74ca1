// A steady-state genetic algorithm on value positions, with local refinement. The
// population is the fastest configs measured so far (elitist: a child joins only by beating
// a member, and failures never join). After a random initial population, a share of the
// proposals refine the best so far and the rest are children: two parents by binary
// tournament, uniform crossover, then mutation of each gene with probability 1/width, half
// the time to a neighbouring value, half to any value. Refinement tries the best's untried
// neighbours one value away first (as `local` does), then any other value of one parameter:
// a fast region is often reached by a jump in one parameter (a tile of 4 to one of 2) that
// no adjacent step makes. The share is a third until half the budget is proposed, then
// grows to all of it at the end: breed while there is budget to explore, exploit the best
// as it runs out. Steady state rather than generations, because the tuner proposes one
// config whenever a compile slot frees. The refinement pays most when proposals run ahead
// of results (replay, docs/search.md): the best so far is known while children bred from
// it are still pending. A child that is not a valid config, or was measured already, is
// repaired by reverting its genes to one parent's, one at a time in random order, until it
// is a new valid config; when that fails a few times the child is resampled at random.
// Children are chosen by a model: of kChildren bred, the one a posterior draw of an additive
// model of log time (strategy/additive_model.hpp) predicts fastest is proposed. With
// proposals running ahead of results, most of what breeding proposes is bred from a
// population that lacks the latest results; the model, fitted to every result so far
// (slow and failed ones too, which the population forgets), keeps those proposals from the
// regions already measured slow (docs/search.md has the replay figures).
// With a prior (another GPU's or key's ranking), the model has one feature more, what the
// prior says of a config (strategy/transfer_score.hpp), and is fitted to the prior's configs
// too: they measure how far the prior holds here. Its weight decides how much the prior
// steers the children, and at times the prior's best unproposed config is a candidate too.
// Without that feature the prior's configs stay out of the model: a prior whose fast
// configs are away from this GPU's optimum would steer it there. They never join the
// population either (ktune/strategy.hpp: answers, not directions).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ktune/strategy.hpp"
#include "strategy/additive_model.hpp"
#include "strategy/recombination.hpp"
#include "strategy/search_state.hpp"
#include "strategy/transfer_score.hpp"

namespace ktune {
namespace {

// A tenth of the budget, within these bounds: small enough to start breeding early on
// small budgets, large enough to keep diversity on large ones.
constexpr std::size_t kGeneticMinPopulation = 8;
constexpr std::size_t kGeneticMaxPopulation = 32;
// Children bred (and repaired) per proposal before falling back to a random config.
constexpr int kGeneticTries = 8;
// Proposals that refine the best so far instead of breeding, until kRampFrom of the budget is
// proposed; from there the share grows linearly to 1 at the budget's end.
constexpr double kRefineShare = 1.0 / 3;
constexpr double kRampFrom = 0.5;
// Children bred per proposal, of which the model picks one: more would follow a model
// fitted to few results too closely (4 scored best in replay among 2, 3, 4, 6, 8 and 16).
constexpr int kChildren = 4;
// With a prior, the share of proposals in which the prior's best unproposed config is a
// candidate beside the children. At 1 the search walks down the prior's ranking whenever
// the model trusts it, which costs where another GPU's fast configs are good here but not
// the best (replay, docs/search.md: 0.25 scored best of 0, 0.25, 0.5 and 1).
constexpr double kPriorCandidateShare = 0.25;

class Genetic final : public Strategy {
 public:
  explicit Genetic(const StrategyContext& c)
      : state_("genetic", c),
        population_(std::clamp<std::size_t>(state_.limit() / 10, kGeneticMinPopulation, kGeneticMaxPopulation)),
        prior_(prior_in_space(c.space, c.prior)),
        transfer_(prior_.empty() ? nullptr : std::make_shared<TransferScore>(c.space, prior_)),
        model_(c.space, transfer_
                            ? std::function<double(std::size_t)>([t = transfer_](std::size_t i) { return (*t)(i); })
                            : std::function<double(std::size_t)>()) {}

  std::string name() const override { return "genetic"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [this] { return next(); });
  }
  void observe(const Observation& o) override { state_.record(o); }
  bool done() const override { return state_.done(); }

 private:
  std::optional<std::size_t> next() {
    // The prior's configs are not in the population: its random start is drawn whole.
    if (state_.proposed() < population_ + state_.prior_size() || state_.ranking().size() < 2) return std::nullopt;
    std::vector<std::size_t> members;  // fastest first
    for (const auto& [cost, i] : state_.ranking()) {
      if (members.size() == population_) break;
      members.push_back(i);
    }
    if (state_.unit() < refine_share())
      if (auto j = neighbour_of_best()) return j;
    return chosen_child(members);
  }

  // Refits the model after every result while there are few, then after every sixteenth more.
  void refit() {
    const std::size_t n = state_.history().size();
    if (!model_.fitted() || (fitted_at_ != n && (n < 64 || n >= fitted_at_ + fitted_at_ / 16))) {
      model_.fit(state_);
      fitted_at_ = n;
    }
  }

  // The child, of kChildren, that a posterior draw predicts fastest.
  std::optional<std::size_t> chosen_child(const std::vector<std::size_t>& members) {
    refit();
    if (!model_.fitted()) return breed_child(state_, members, kGeneticTries);
    const std::vector<double> w = model_.draw(state_);
    std::optional<std::size_t> best;
    double best_time = 0;
    auto consider = [&](std::optional<std::size_t> j) {
      if (j)
        if (const double t = model_.predict(w, *j); !best || t < best_time) best = j, best_time = t;
    };
    for (int c = 0; c < kChildren; ++c) consider(breed_child(state_, members, kGeneticTries));
    if (!prior_.empty() && state_.unit() < kPriorCandidateShare) consider(next_of_prior());
    return best;
  }

  // The prior's best config not proposed yet: a candidate beside the children, taken when
  // the model, having weighed the prior against the results here, predicts it fastest.
  std::optional<std::size_t> next_of_prior() {
    while (prior_at_ < prior_.size() && state_.was_proposed(prior_[prior_at_])) ++prior_at_;
    return prior_at_ < prior_.size() ? std::optional<std::size_t>(prior_[prior_at_]) : std::nullopt;
  }

  double refine_share() const {
    const double progress = static_cast<double>(state_.proposed()) / static_cast<double>(state_.limit());
    return kRefineShare + (1 - kRefineShare) * std::clamp((progress - kRampFrom) / (1 - kRampFrom), 0.0, 1.0);
  }

  // An untried neighbour of the best config so far: adjacent values first, each group in
  // random order, then the rest of its Hamming neighbourhood.
  std::optional<std::size_t> neighbour_of_best() {
    const std::size_t best = state_.ranking().begin()->second;
    if (best != queue_of_) {
      queue_of_ = best;
      const SearchSpace& space = state_.space();
      std::vector<std::size_t> near = space.adjacent(best), far = space.hamming(best);
      std::sort(near.begin(), near.end());
      std::erase_if(far, [&](std::size_t j) {
        return state_.was_proposed(j) || std::binary_search(near.begin(), near.end(), j);
      });
      std::erase_if(near, [&](std::size_t j) { return state_.was_proposed(j); });
      state_.shuffle(near);
      state_.shuffle(far);
      far.insert(far.end(), near.begin(), near.end());  // popped from the back: adjacent first
      queue_ = std::move(far);
    }
    while (!queue_.empty()) {
      const std::size_t j = queue_.back();
      queue_.pop_back();
      if (!state_.was_proposed(j)) return j;
    }
    return std::nullopt;
  }

  SearchState state_;
  std::size_t population_;
  std::vector<std::size_t> prior_;  // the whole prior ranking in this space, best first
  std::size_t prior_at_ = 0;
  std::shared_ptr<const TransferScore> transfer_;
  AdditiveModel model_;
  std::size_t fitted_at_ = 0;
  std::size_t queue_of_ = SIZE_MAX;
  std::vector<std::size_t> queue_;
};

}  // namespace

std::unique_ptr<Strategy> make_genetic(const StrategyContext& context) { return std::make_unique<Genetic>(context); }

}  // namespace ktune

// A steady-state genetic algorithm on value positions, with local refinement. The
// population is the fastest configs measured so far (elitist: a child joins only by beating
// a member, and failures never join). After a random initial population, a third of the
// proposals refine the best so far (an untried neighbour one value away, as `local` tries
// first) and the rest are children: two parents by binary tournament, uniform crossover,
// then mutation of each gene with probability 1/width, half the time to a neighbouring
// value, half to any value. Steady state rather than generations, because the tuner
// proposes one config whenever a compile slot frees. The refinement pays most when
// proposals run ahead of results (replay, docs/search.md): the best so far is known while
// children bred from it are still pending. A child that is not a valid config, or was
// measured already, is repaired by reverting its genes to one parent's, one at a time in
// random order, until it is a new valid config; when that fails a few times the child is
// resampled at random.
#include <string>

#include "ktune/strategy.hpp"
#include "strategy/recombination.hpp"
#include "strategy/search_state.hpp"

namespace ktune {
namespace {

// A tenth of the budget, within these bounds: small enough to start breeding early on
// small budgets, large enough to keep diversity on large ones.
constexpr std::size_t kGeneticMinPopulation = 8;
constexpr std::size_t kGeneticMaxPopulation = 32;
// Children bred (and repaired) per proposal before falling back to a random config.
constexpr int kGeneticTries = 8;
// Proposals that refine the best so far (an untried adjacent neighbour) instead of breeding.
constexpr double kRefineShare = 1.0 / 3;

class Genetic final : public Strategy {
 public:
  explicit Genetic(const StrategyContext& c)
      : state_("genetic", c),
        population_(std::clamp<std::size_t>(state_.limit() / 10, kGeneticMinPopulation, kGeneticMaxPopulation)) {}

  std::string name() const override { return "genetic"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [this] { return next(); });
  }
  void observe(const Observation& o) override { state_.record(o); }
  bool done() const override { return state_.done(); }

 private:
  std::optional<std::size_t> next() {
    if (state_.proposed() < population_ || state_.ranking().size() < 2) return std::nullopt;
    std::vector<std::size_t> members;  // fastest first
    for (const auto& [cost, i] : state_.ranking()) {
      if (members.size() == population_) break;
      members.push_back(i);
    }
    if (state_.unit() < kRefineShare)
      if (auto j = neighbour_of_best()) return j;
    return breed_child(state_, members, kGeneticTries);
  }

  // An untried neighbour of the best config so far, adjacent values first.
  std::optional<std::size_t> neighbour_of_best() {
    const std::size_t best = state_.ranking().begin()->second;
    if (best != queue_of_) {
      queue_of_ = best;
      const SearchSpace& space = state_.space();
      std::vector<std::size_t> near = space.adjacent(best);
      std::erase_if(near, [&](std::size_t j) { return state_.was_proposed(j); });
      state_.shuffle(near);
      queue_ = std::move(near);
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
  std::size_t queue_of_ = SIZE_MAX;
  std::vector<std::size_t> queue_;
};

}  // namespace

std::unique_ptr<Strategy> make_genetic(const StrategyContext& context) { return std::make_unique<Genetic>(context); }

}  // namespace ktune

// cuTile.jl's search: a uniform random sample, then refinement around the best few configs
// found so far, best first, adjacent values before the rest of the Hamming neighbourhood
// (timings are usually smooth between neighbouring values of a parameter). What the
// refinement finds joins the ranking, so a better neighbour is refined around next.
#include <string>

#include "ktune/strategy.hpp"
#include "strategy/search_state.hpp"

namespace ktune {
namespace {

// Half the budget explores, half refines; with no budget, a sample this large first.
constexpr std::size_t kRefineSampleWithoutBudget = 64;
// How many of the best configs are refined around before falling back to random.
constexpr std::size_t kRefineTop = 3;

class RandomRefine final : public Strategy {
 public:
  explicit RandomRefine(const StrategyContext& c)
      : state_("random-refine", c),
        sample_(c.budget ? std::max<std::size_t>(1, *c.budget / 2) : kRefineSampleWithoutBudget) {}

  std::string name() const override { return "random-refine"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [this] { return next(); });
  }
  void observe(const Observation& o) override { state_.record(o); }
  bool done() const override { return state_.done(); }

 private:
  std::optional<std::size_t> next() {
    if (state_.proposed() < sample_) return std::nullopt;
    std::size_t rank = 0;
    for (const auto& [cost, i] : state_.ranking()) {
      if (rank++ == kRefineTop) break;
      for (std::size_t j : state_.space().adjacent(i))
        if (!state_.was_proposed(j)) return j;
      for (std::size_t j : state_.space().hamming(i))
        if (!state_.was_proposed(j)) return j;
    }
    return std::nullopt;  // the best few are refined out: sample on
  }

  SearchState state_;
  std::size_t sample_;  // proposals made at random before refining
};

}  // namespace

std::unique_ptr<Strategy> make_random_refine(const StrategyContext& context) {
  return std::make_unique<RandomRefine>(context);
}

}  // namespace ktune

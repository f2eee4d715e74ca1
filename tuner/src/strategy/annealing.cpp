// Simulated annealing over Hamming neighbours. The walk starts at the default and proposes
// a random untried neighbour of its current config; a faster one is always accepted, a
// slower one with probability exp(-log(t_new / t_now) / T). Costs are log times, so the
// rule depends on ratios only: the same schedule suits microsecond and second kernels.
// T cools geometrically from kAnnealHot to kAnnealCold over the budget (the whole space
// when there is none), so the walk explores early and climbs at the end. Failures are never
// accepted; a walk with no runnable start, or whose neighbourhood is used up and cannot
// move on through known neighbours, restarts at a random config.
#include <cmath>
#include <string>

#include "ktune/strategy.hpp"
#include "strategy/search_state.hpp"

namespace ktune {
namespace {

// At the start a 25 % slower config is accepted with probability 0.4; at the end a 1 %
// slower one with probability 0.13.
constexpr double kAnnealHot = 0.25;
constexpr double kAnnealCold = 0.005;
// Moves through already measured neighbours tried before a stuck walk restarts.
constexpr int kAnnealFreeMoves = 16;

class Annealing final : public Strategy {
 public:
  explicit Annealing(const StrategyContext& c) : state_("annealing", c) {}

  std::string name() const override { return "annealing"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [this] { return next(); });
  }

  void observe(const Observation& o) override {
    if (!state_.record(o) || o.status != Status::Ok) return;
    if (!current_ || accept(state_.cost(o.index))) current_ = o.index;
  }

  bool done() const override { return state_.done(); }

 private:
  std::optional<std::size_t> next() {
    for (int move = 0; current_ && move <= kAnnealFreeMoves; ++move) {
      std::vector<std::size_t> untried, measured;
      for (std::size_t j : state_.space().hamming(*current_))
        (state_.was_proposed(j) ? measured : untried).push_back(j);
      if (!untried.empty()) return untried[state_.below(untried.size())];
      // The neighbourhood is used up: walk on through a measured neighbour, same rule.
      if (measured.empty()) break;
      const std::size_t j = measured[state_.below(measured.size())];
      if (state_.known(j) && accept(state_.cost(j))) current_ = j;
    }
    current_.reset();
    return std::nullopt;  // a random restart; its first runnable config is the new start
  }

  bool accept(double cost) {
    const double delta = cost - state_.cost(*current_);
    if (delta <= 0) return true;
    const double progress =
        std::min(1.0, static_cast<double>(state_.proposed()) / std::max<std::size_t>(1, state_.limit()));
    const double t = kAnnealHot * std::pow(kAnnealCold / kAnnealHot, progress);
    return state_.unit() < std::exp(-delta / t);
  }

  SearchState state_;
  std::optional<std::size_t> current_;  // where the walk is; none while restarting
};

}  // namespace

std::unique_ptr<Strategy> make_annealing(const StrategyContext& context) {
  return std::make_unique<Annealing>(context);
}

}  // namespace ktune

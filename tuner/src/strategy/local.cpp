// Multi-start hill climbing over neighbours. Starts at the default; from the current centre
// it tries unvisited neighbours, adjacent values first (timings are usually smooth between
// neighbouring values), then the rest of the Hamming neighbourhood, each group in random
// order. First improvement, not steepest: every evaluation costs a compile, and steepest
// ascent would pay for the whole neighbourhood (tens of configs) before every step, where
// first improvement moves as soon as one neighbour is faster. When no neighbour is faster
// (a local optimum) it restarts from a random config. Failed configs never become a centre.
#include <string>

#include "ktune/strategy.hpp"
#include "strategy/search_state.hpp"

namespace ktune {
namespace {

class LocalSearch final : public Strategy {
 public:
  explicit LocalSearch(const StrategyContext& c) : state_("local", c) {}

  std::string name() const override { return "local"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [this] { return next(); });
  }

  void observe(const Observation& o) override {
    if (!state_.record(o) || o.status != Status::Ok) return;
    // A restart's first config that runs is the new centre; afterwards, a faster neighbour.
    if (!centre_ || (state_.cost(o.index) < state_.cost(*centre_) && one_apart(*centre_, o.index)))
      move_to(o.index);
  }

  bool done() const override { return state_.done(); }

 private:
  std::optional<std::size_t> next() {
    while (centre_) {
      while (!queue_.empty()) {
        const std::size_t j = queue_.back();
        queue_.pop_back();
        if (!state_.was_proposed(j)) return j;
      }
      if (expanded_) centre_.reset();  // every neighbour tried, none faster: restart
      else expand();
    }
    return std::nullopt;  // a random restart
  }

  void move_to(std::size_t i) {
    centre_ = i;
    queue_.clear();
    expanded_ = false;
  }

  // Queues the centre's untried neighbours, or moves on at once when a neighbour measured
  // earlier (by another climb) is already known to be faster.
  void expand() {
    const SearchSpace& space = state_.space();
    std::vector<std::size_t> near = space.adjacent(*centre_), far;
    std::optional<std::size_t> better;
    for (std::size_t j : space.hamming(*centre_)) {
      if (state_.known(j) && state_.cost(j) < state_.cost(better ? *better : *centre_)) better = j;
      if (!state_.was_proposed(j) && std::find(near.begin(), near.end(), j) == near.end()) far.push_back(j);
    }
    if (better) return move_to(*better);
    std::erase_if(near, [&](std::size_t j) { return state_.was_proposed(j); });
    state_.shuffle(near);
    state_.shuffle(far);
    queue_ = std::move(far);  // popped from the back: adjacent values first
    queue_.insert(queue_.end(), near.begin(), near.end());
    expanded_ = true;
  }

  bool one_apart(std::size_t a, std::size_t b) const {
    auto ra = state_.space().row(a), rb = state_.space().row(b);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < ra.size(); ++k) differ += ra[k] != rb[k];
    return differ == 1;
  }

  SearchState state_;
  std::optional<std::size_t> centre_;  // the climb's current config; none while restarting
  std::vector<std::size_t> queue_;     // the centre's neighbours still to try, next at the back
  bool expanded_ = false;              // the queue holds the centre's whole neighbourhood
};

}  // namespace

std::unique_ptr<Strategy> make_local(const StrategyContext& context) {
  return std::make_unique<LocalSearch>(context);
}

}  // namespace ktune

// Random search: uniform sampling without replacement after the default. The baseline every
// other strategy must beat, and what a search falls back to when it knows nothing yet.
#include <string>

#include "ktune/strategy.hpp"
#include "strategy/search_state.hpp"

namespace ktune {
namespace {

class RandomSearch final : public Strategy {
 public:
  explicit RandomSearch(const StrategyContext& c) : state_("random", c) {}

  std::string name() const override { return "random"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [] { return std::optional<std::size_t>(); });
  }
  void observe(const Observation& o) override { state_.record(o); }
  bool done() const override { return state_.done(); }

 private:
  SearchState state_;
};

}  // namespace

std::unique_ptr<Strategy> make_random(const StrategyContext& context) {
  return std::make_unique<RandomSearch>(context);
}

}  // namespace ktune

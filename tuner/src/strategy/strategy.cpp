// The strategy registry's factories: one for each of strategy_names(), in its order.
#include <algorithm>
#include <cmath>
#include <string>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

namespace ktune {

// The sampling strategies, one file each (docs/search.md says how each searches). Each
// proposes the DEFAULT first, never an index twice, at most `budget` configs, and is
// deterministic for a seed; failures count as evaluations and steer it away. Each throws
// Error when `first` is outside a non-empty space.
std::unique_ptr<Strategy> make_random(const StrategyContext& context);
std::unique_ptr<Strategy> make_random_refine(const StrategyContext& context);
std::unique_ptr<Strategy> make_local(const StrategyContext& context);
std::unique_ptr<Strategy> make_annealing(const StrategyContext& context);
std::unique_ptr<Strategy> make_genetic(const StrategyContext& context);
std::unique_ptr<Strategy> make_bayes(const StrategyContext& context);
std::unique_ptr<Strategy> make_hybrid(const StrategyContext& context);

namespace {

using Factory = std::unique_ptr<Strategy> (*)(const StrategyContext& context);

std::unique_ptr<Strategy> exhaustive(const StrategyContext& c) {
  const bool cut = c.may_be_cut || (c.budget && *c.budget < c.space.size());
  return make_exhaustive(c.space.size(), c.first, cut ? std::optional<uint64_t>(c.seed) : std::nullopt);
}

// In the order of strategy_names(), which holds the names.
constexpr Factory kFactories[] = {&exhaustive,     &make_random,  &make_random_refine, &make_local,
                                  &make_annealing, &make_genetic, &make_bayes,         &make_hybrid};

}  // namespace

std::size_t prior_count(std::size_t limit) { return std::clamp<std::size_t>(limit / 20, 1, 16); }

std::unique_ptr<Strategy> make_strategy(const std::string& name, const StrategyContext& context) {
  if (name == "default") return make_strategy(default_strategy_name(), context);
  const auto names = strategy_names();
  if (names.size() != std::size(kFactories)) throw Error("ktune: the strategy table and its names disagree");
  for (std::size_t i = 0; i < names.size(); ++i)
    if (name == names[i]) return kFactories[i](context);
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown search strategy '" + name + "' (known: " + known + ")");
}

}  // namespace ktune

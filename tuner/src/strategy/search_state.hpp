#pragma once
// What every sampling strategy keeps: which configs it proposed, what each observed one
// cost, the best so far, and its seeded generator. Proposals go through propose(), which
// keeps the rules in one place: the DEFAULT first, never an index twice, no more than the
// budget, and a uniformly random unvisited config whenever the strategy has no idea of its
// own (a random restart, or results it still waits for in batch mode), so that propose()
// comes back empty only when the strategy is done.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

namespace ktune {

class SearchState {
 public:
  // Cost of a config that failed: worse than any time, so no strategy climbs from it.
  static constexpr double kFailed = std::numeric_limits<double>::infinity();

  SearchState(const std::string& strategy, const StrategyContext& c)
      : space_(c.space), first_(c.first), limit_(std::min(c.space.size(), c.budget.value_or(c.space.size()))),
        rng_(c.seed), cost_(c.space.size(), kUnknown), where_(c.space.size()), pool_(c.space.size()) {
    if (space_.size() > 0 && first_ >= space_.size())
      throw Error(strategy + ": default config index " + std::to_string(first_) +
                  " is outside the space of " + std::to_string(space_.size()) + " configs");
    for (std::size_t i = 0; i < pool_.size(); ++i) pool_[i] = where_[i] = i;
  }

  const SearchSpace& space() const { return space_; }
  // Evaluations this search may propose: the space, or the budget when it is smaller.
  std::size_t limit() const { return limit_; }
  std::size_t proposed() const { return space_.size() - pool_.size(); }
  // Observed configs, in the order their results came.
  const std::vector<std::size_t>& history() const { return history_; }
  bool done() const { return proposed() >= limit_; }
  bool was_proposed(std::size_t i) const { return where_[i] == kTaken; }

  // Up to `max` new indices; `next()` suggests one (an unproposed index) or nullopt.
  template <class Next>
  std::vector<std::size_t> propose(std::size_t max, Next&& next) {
    std::vector<std::size_t> out;
    while (out.size() < max && !done()) {
      std::optional<std::size_t> i = proposed() == 0 ? std::optional<std::size_t>(first_) : next();
      if (!i || *i >= space_.size() || was_proposed(*i)) i = any_unproposed();
      take(*i);
      out.push_back(*i);
    }
    return out;
  }

  // Stores the result; false when the index was observed before (the first result stands).
  bool record(const Observation& o) {
    if (o.index >= space_.size())
      throw Error("search: observed index " + std::to_string(o.index) + " outside the space of " +
                  std::to_string(space_.size()) + " configs");
    if (!std::isnan(cost_[o.index])) return false;
    if (!was_proposed(o.index)) take(o.index);
    // Log time: strategies compare ratios, so they work the same at any scale.
    cost_[o.index] = o.status == Status::Ok ? std::log(std::max(o.time_ms, 1e-9)) : kFailed;
    if (o.status == Status::Ok) ok_.emplace(cost_[o.index], o.index);
    history_.push_back(o.index);
    return true;
  }

  // Log time of an observed config, kFailed for a failure, NaN when not (yet) observed.
  double cost(std::size_t i) const { return cost_[i]; }
  bool known(std::size_t i) const { return !std::isnan(cost_[i]); }
  // Configs that ran, best (fastest) first.
  const std::set<std::pair<double, std::size_t>>& ranking() const { return ok_; }

  // Configs not proposed yet, in no particular order.
  const std::vector<std::size_t>& unproposed() const { return pool_; }
  // A uniformly random config not proposed yet; the space must not be exhausted.
  std::size_t any_unproposed() { return pool_[below(pool_.size())]; }

  // Seeded randomness, the same on every platform (the std distributions are not).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>((static_cast<unsigned __int128>(rng_()) * n) >> 64); }
  double unit() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  static constexpr std::size_t kTaken = static_cast<std::size_t>(-1);

  // Moves i out of the pool of unproposed configs: O(1), by swapping with the last.
  void take(std::size_t i) {
    const std::size_t at = where_[i];
    pool_[at] = pool_.back();
    where_[pool_[at]] = at;
    pool_.pop_back();
    where_[i] = kTaken;
  }

  const SearchSpace& space_;
  std::size_t first_;
  std::size_t limit_;
  std::mt19937_64 rng_;
  std::vector<double> cost_;
  std::vector<std::size_t> where_;  // position in pool_, or kTaken
  std::vector<std::size_t> pool_;   // configs not proposed yet, in no order
  std::set<std::pair<double, std::size_t>> ok_;
  std::vector<std::size_t> history_;
};

}  // namespace ktune

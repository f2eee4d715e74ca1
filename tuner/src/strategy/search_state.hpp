#pragma once
// What every sampling strategy keeps: which configs it proposed, what each observed one
// cost, the best so far, and its seeded generator. Proposals go through propose(), which
// keeps the rules in one place: the DEFAULT first, never an index twice, no more than the
// budget, and a uniformly random unvisited config whenever the strategy has no idea of its
// own (a random restart, or results it still waits for in batch mode), so that propose()
// comes back empty only when the strategy is done. Memory grows with the configs touched,
// not with the space: a budgeted search of a space of millions keeps a few entries.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <string>
#include <utility>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

namespace ktune {

// A prior ranking as configs of `space`, in its order: those outside the space, repeats and
// `skip` left out, at most `max` (a prior is mapped from another recording; a caller's need
// not be clean).
inline std::vector<std::size_t> prior_in_space(const SearchSpace& space, const std::vector<std::size_t>& prior,
                                               std::size_t max = SIZE_MAX, std::size_t skip = SIZE_MAX) {
  std::vector<std::size_t> out;
  std::unordered_set<std::size_t> seen;
  for (std::size_t i : prior) {
    if (out.size() == max) break;
    if (i < space.size() && i != skip && seen.insert(i).second) out.push_back(i);
  }
  return out;
}

class SearchState {
 public:
  // Cost of a config that failed: worse than any time, so no strategy climbs from it.
  static constexpr double kFailed = std::numeric_limits<double>::infinity();

  SearchState(const std::string& strategy, const StrategyContext& c)
      : space_(c.space),
        first_(c.first),
        limit_(std::min(c.space.size(), c.budget.value_or(c.space.size()))),
        rng_(c.seed) {
    if (space_.size() > 0 && first_ >= space_.size())
      throw Error(strategy + ": default config index " + std::to_string(first_) + " is outside the space of " +
                  std::to_string(space_.size()) + " configs");
    prior_ = prior_in_space(space_, c.prior, prior_count(limit_), first_);
  }

  const SearchSpace& space() const { return space_; }
  // Evaluations this search may propose: the space, or the budget when it is smaller.
  std::size_t limit() const { return limit_; }
  std::size_t proposed() const { return taken_.size(); }
  // The prior configs this search measures first (a share of the budget, prior_count()).
  std::size_t prior_size() const { return prior_.size(); }
  bool is_prior(std::size_t i) const { return std::find(prior_.begin(), prior_.end(), i) != prior_.end(); }
  // Observed configs, in the order their results came.
  const std::vector<std::size_t>& history() const { return history_; }
  bool done() const { return proposed() >= limit_; }
  bool was_proposed(std::size_t i) const { return taken_.count(i) > 0; }

  // Up to `max` new indices; `next()` suggests one (an unproposed index) or nullopt.
  template <class Next>
  std::vector<std::size_t> propose(std::size_t max, Next&& next) {
    std::vector<std::size_t> out;
    while (out.size() < max && !done()) {
      std::optional<std::size_t> i = proposed() == 0 ? std::optional<std::size_t>(first_) : next_prior();
      if (!i) i = next();
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
    if (known(o.index)) return false;
    if (!was_proposed(o.index)) take(o.index);
    // Log time: strategies compare ratios, so they work the same at any scale.
    const double cost = o.status == Status::Ok ? std::log(std::max(o.time_ms, 1e-9)) : kFailed;
    cost_.emplace(o.index, cost);
    // A prior config is an answer, not a direction: it is never searched from, so a prior
    // that misleads (fast here, but away from this GPU's optimum) cannot pull the search
    // away; its time still counts for the tuner's best.
    if (o.status == Status::Ok && std::find(prior_.begin(), prior_.end(), o.index) == prior_.end())
      ok_.emplace(cost, o.index);
    history_.push_back(o.index);
    return true;
  }

  // Log time of an observed config, kFailed for a failure, NaN when not (yet) observed.
  double cost(std::size_t i) const {
    auto it = cost_.find(i);
    return it == cost_.end() ? kUnknown : it->second;
  }
  bool known(std::size_t i) const { return cost_.count(i) > 0; }
  // Configs that ran, best (fastest) first; the prior's configs are not among them.
  const std::set<std::pair<double, std::size_t>>& ranking() const { return ok_; }

  std::size_t unproposed_count() const { return space_.size() - proposed(); }
  // Every config not proposed yet, ascending: for a strategy that scores them all when
  // few are left.
  std::vector<std::size_t> unproposed() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < space_.size(); ++i)
      if (!was_proposed(i)) out.push_back(i);
    return out;
  }
  // A uniformly random config not proposed yet; the space must not be exhausted. While
  // most are unproposed, a random draw rarely hits a proposed one: draw again. Once half
  // are taken, the rest are listed once and drawn from that list.
  std::size_t any_unproposed() {
    if (pool_.empty() && proposed() * 2 < space_.size())
      for (;;)
        if (std::size_t i = below(space_.size()); !was_proposed(i)) return i;
    if (pool_.empty()) {
      pool_ = unproposed();
      for (std::size_t at = 0; at < pool_.size(); ++at) where_[pool_[at]] = at;
    }
    return pool_[below(pool_.size())];
  }

  // Seeded randomness, the same on every platform (the std distributions are not).
  std::size_t below(std::size_t n) {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(rng_()) * n) >> 64);
  }
  double unit() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  // Marks i proposed; once the unproposed are listed (pool_), removes it from that list in
  // O(1), by swapping with the last.
  void take(std::size_t i) {
    taken_.insert(i);
    if (pool_.empty()) return;
    auto it = where_.find(i);
    if (it == where_.end()) return;
    const std::size_t at = it->second;
    pool_[at] = pool_.back();
    where_[pool_[at]] = at;
    pool_.pop_back();
    where_.erase(i);
  }

  // The next prior config not proposed yet, while the prior's share lasts.
  std::optional<std::size_t> next_prior() {
    while (prior_at_ < prior_.size())
      if (std::size_t i = prior_[prior_at_++]; !was_proposed(i)) return i;
    return std::nullopt;
  }

  const SearchSpace& space_;
  std::size_t first_;
  std::vector<std::size_t> prior_;  // the prior configs this search measures first
  std::size_t prior_at_ = 0;
  std::size_t limit_;
  std::mt19937_64 rng_;
  std::unordered_map<std::size_t, double> cost_;        // observed configs only
  std::unordered_set<std::size_t> taken_;               // proposed (or observed) configs
  std::vector<std::size_t> pool_;                       // the unproposed, once half are taken
  std::unordered_map<std::size_t, std::size_t> where_;  // position in pool_
  std::set<std::pair<double, std::size_t>> ok_;
  std::vector<std::size_t> history_;
};

}  // namespace ktune

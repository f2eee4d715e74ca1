#pragma once
// The seam between the tuner and the search: a strategy proposes configs (indices into
// the space's enumeration), the tuner measures them and reports back. Strategies never
// propose an index twice or outside [0, size).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ktune/measurement.hpp"
#include "ktune/search_choice.hpp"
#include "ktune/search_space.hpp"

namespace ktune {

struct Budget {
  std::optional<std::size_t> evaluations;  // measured configs, failures included
  std::optional<double> seconds;           // wall time of the search
};

struct Observation {
  std::size_t index = 0;
  Status status = Status::Ok;
  double time_ms = 0;  // median; meaningful when status is ok
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // Up to `max` indices to measure next; empty when the strategy has nothing to propose.
  virtual std::vector<std::size_t> propose(std::size_t max) = 0;
  virtual void observe(const Observation& o) = 0;
  // True when the strategy has nothing more to propose (the tuner also stops on budget).
  virtual bool done() const = 0;
};

// Every config once, the DEFAULT config (`first`) first so that its time sets the timeout
// and the early-abandon bar for the rest; then in enumeration order, or with a
// `shuffle_seed` in that seed's random order (what a budget that may cut the search needs).
std::unique_ptr<Strategy> make_exhaustive(std::size_t size, std::size_t first,
                                          std::optional<uint64_t> shuffle_seed = std::nullopt);

// What every strategy is made from. `space` outlives the strategy.
struct StrategyContext {
  const SearchSpace& space;
  std::size_t first = 0;              // the DEFAULT config: proposed first
  uint64_t seed = 0;                  // same seed, same observations: same proposals
  std::optional<std::size_t> budget;  // evaluations the caller will allow, if known
  // The search may be cut short (by evaluations or by time): exhaustive then visits in a
  // seeded random order. A `budget` implies it.
  bool may_be_cut = false;
  // Configs other GPUs (or other keys) found fastest, best first (ktune/prior.hpp): the
  // first prior_count() of them are proposed right after the DEFAULT, so a search that is
  // cut early has them measured. They are answers, not directions: no strategy breeds or
  // climbs from them, so a prior that misleads cannot pull the search away. `genetic`
  // weighs the whole ranking in its model, as far as the results here bear it out.
  std::vector<std::size_t> prior = {};
};

// How many prior configs a search of `limit` evaluations measures first: a twentieth of it
// within 1..16. A small share, so that a prior that misleads costs little against a cold
// start; the strategies' own start (random configs, a tenth of the budget) still follows.
std::size_t prior_count(std::size_t limit);

// By name ("exhaustive", ..., or "default": default_strategy_name()); throws Error listing
// the known names.
std::unique_ptr<Strategy> make_strategy(const std::string& name, const StrategyContext& context);
}  // namespace ktune

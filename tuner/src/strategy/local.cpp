// Multi-start hill climbing over neighbours. The first climb starts at the default; a climb
// tries the unvisited neighbours of its best config, adjacent values first (timings are
// usually smooth between neighbouring values), then the rest of the Hamming neighbourhood,
// each group in random order. First improvement, not steepest: every evaluation costs a
// compile, and steepest ascent would pay for the whole neighbourhood (tens of configs)
// before every step, where first improvement moves as soon as one neighbour is faster. A
// neighbour measured earlier (by another climb) and known to be faster is moved to at once.
// When no neighbour is faster (a local optimum) the next climb starts from a random config.
// Failed configs never become a centre.
//
// Proposals run ahead of results in the tuner. While a climb's results are pending its best
// may still move, so it is not yet at an optimum: the climb then proposes around its next
// best configs (up to kLocalCentres), and restarts only when those are exhausted too. A
// climb whose results arrive after a restart climbs on if it is still the better one; one
// proposal at a time, this is the plain climb above.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "ktune/strategy.hpp"
#include "strategy/search_state.hpp"

namespace ktune {
namespace {

// Configs of a climb, best first, whose neighbourhoods it proposes from while it waits.
constexpr std::size_t kLocalCentres = 1;

class LocalSearch final : public Strategy {
 public:
  explicit LocalSearch(const StrategyContext& c) : state_("local", c) {
    if (c.space.size() > 0) start_climb(c.first);
  }

  std::string name() const override { return "local"; }
  std::vector<std::size_t> propose(std::size_t max) override {
    return state_.propose(max, [this] { return next(); });
  }

  void observe(const Observation& o) override {
    if (!state_.record(o)) return;
    auto owner = owner_.find(o.index);
    if (owner == owner_.end()) return;
    Climb& climb = climbs_[owner->second];
    --climb.pending;
    if (o.status == Status::Ok) climb.ok.emplace(state_.cost(o.index), o.index);
  }

  bool done() const override { return state_.done(); }

 private:
  struct Climb {
    std::size_t start = 0;
    std::size_t pending = 0;                      // proposed, result not back
    std::set<std::pair<double, std::size_t>> ok;  // members that ran, fastest first
  };

  std::optional<std::size_t> next() {
    // The climbs that can still move, their best first; a climb that has no result yet
    // (its start pending) after those.
    std::vector<std::size_t> order;
    for (std::size_t c = 0; c < climbs_.size(); ++c)
      if (climbs_[c].pending > 0 || !climbs_[c].ok.empty()) order.push_back(c);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const bool ka = !climbs_[a].ok.empty(), kb = !climbs_[b].ok.empty();
      if (ka != kb) return ka;
      return ka && climbs_[a].ok.begin()->first < climbs_[b].ok.begin()->first;
    });
    for (std::size_t c : order)
      if (auto j = from(c)) return j;
    if (state_.unproposed_count() == 0) return std::nullopt;
    const std::size_t r = state_.any_unproposed();
    start_climb(r);
    return r;
  }

  // An untried neighbour of one of climb c's best configs, or nullopt when the climb is
  // at a local optimum or must wait for its results.
  std::optional<std::size_t> from(std::size_t c) {
    Climb& climb = climbs_[c];
    std::vector<std::size_t> centres;
    for (const auto& [cost, i] : climb.ok) {
      if (centres.size() == kLocalCentres) break;
      centres.push_back(i);
    }
    // A start whose result is pending: climb from it as if it ran (it usually does).
    if (centres.empty() && climb.pending > 0 && !state_.known(climb.start)) centres.push_back(climb.start);
    for (std::size_t k = 0; k < centres.size(); ++k) {
      if (k == 0 && !climb.ok.empty())
        if (auto better = known_better_neighbour(centres[0])) {
          climb.ok.emplace(state_.cost(*better), *better);
          return from(c);
        }
      if (auto j = untried_neighbour(centres[k])) {
        owner_[*j] = c;
        ++climb.pending;
        return j;
      }
      // Every neighbour of the best tried and none faster: an optimum, unless results that
      // may still move the climb are pending.
      if (k == 0 && climb.pending == 0) {
        climb.ok.clear();  // the climb is over
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  void start_climb(std::size_t r) {
    climbs_.push_back({r, 1, {}});
    owner_[r] = climbs_.size() - 1;
  }

  // A neighbour measured by another climb and faster than config i.
  std::optional<std::size_t> known_better_neighbour(std::size_t i) {
    if (!checked_.insert(i).second) return std::nullopt;
    std::optional<std::size_t> better;
    for (std::size_t j : state_.space().hamming(i))
      if (state_.known(j) && state_.cost(j) < state_.cost(better ? *better : i)) better = j;
    return better;
  }

  // The next untried neighbour of config i: its queue is made the first time it is asked.
  std::optional<std::size_t> untried_neighbour(std::size_t i) {
    auto it = queues_.find(i);
    if (it == queues_.end()) {
      const SearchSpace& space = state_.space();
      std::vector<std::size_t> near = space.adjacent(i), far;
      for (std::size_t j : space.hamming(i))
        if (!state_.was_proposed(j) && std::find(near.begin(), near.end(), j) == near.end()) far.push_back(j);
      std::erase_if(near, [&](std::size_t j) { return state_.was_proposed(j); });
      state_.shuffle(near);
      state_.shuffle(far);
      far.insert(far.end(), near.begin(), near.end());  // popped from the back: adjacent first
      it = queues_.emplace(i, std::move(far)).first;
    }
    std::vector<std::size_t>& queue = it->second;
    while (!queue.empty()) {
      const std::size_t j = queue.back();
      queue.pop_back();
      if (!state_.was_proposed(j)) return j;
    }
    return std::nullopt;
  }

  SearchState state_;
  std::vector<Climb> climbs_;
  std::map<std::size_t, std::size_t> owner_;                // proposed config -> its climb
  std::map<std::size_t, std::vector<std::size_t>> queues_;  // centre -> untried neighbours
  std::set<std::size_t> checked_;                           // centres looked at for faster known neighbours
};

}  // namespace

std::unique_ptr<Strategy> make_local(const StrategyContext& context) { return std::make_unique<LocalSearch>(context); }

}  // namespace ktune

#include "ktune/prior.hpp"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "ktune/error.hpp"

namespace ktune {

std::vector<std::size_t> prior_from(const ReplaySpace& other, const ReplaySpace& target) {
  const auto& to = target.space().parameters();
  const auto& from = other.space().parameters();
  // For each target parameter: the other's parameter of that name.
  std::vector<std::size_t> column(to.size());
  for (std::size_t k = 0; k < to.size(); ++k) {
    auto it = std::find_if(from.begin(), from.end(), [&](const Parameter& p) { return p.name == to[k].name; });
    if (it == from.end())
      throw Error("prior: " + other.origin() + " has no parameter '" + to[k].name + "' of " + target.origin());
    column[k] = static_cast<std::size_t>(it - from.begin());
  }
  std::vector<std::pair<double, std::size_t>> timed;
  for (std::size_t i = 0; i < other.size(); ++i)
    if (other.outcome(i).status == Status::Ok) timed.emplace_back(other.outcome(i).time_ms, i);
  std::sort(timed.begin(), timed.end());
  std::vector<std::size_t> out;
  std::unordered_set<std::size_t> seen;
  std::vector<uint32_t> positions(to.size());
  for (const auto& [time, i] : timed) {
    bool found = true;
    for (std::size_t k = 0; k < to.size() && found; ++k) {
      const int64_t v = other.space().value(i, column[k]);
      auto at = std::find(to[k].values.begin(), to[k].values.end(), v);
      found = at != to[k].values.end();
      if (found) positions[k] = static_cast<uint32_t>(at - to[k].values.begin());
    }
    if (!found) continue;
    if (auto j = target.space().find(positions); j && seen.insert(*j).second) out.push_back(*j);
  }
  return out;
}

}  // namespace ktune

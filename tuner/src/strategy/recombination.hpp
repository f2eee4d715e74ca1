#pragma once
// Breeding on value positions, shared by `genetic` and `hybrid`: two parents by binary
// tournament among the population (fastest first), uniform crossover, mutation of each
// gene with probability 1/width (half the time to any value, else to a neighbouring one).
// A child that is not a valid config, or was proposed already, is repaired by reverting its
// genes to the first parent's (a valid config) one at a time in random order, until it is a
// new valid config.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "strategy/search_state.hpp"

namespace ktune {

inline uint32_t mutate_position(SearchState& state, std::size_t k, uint32_t v) {
  const std::size_t n = state.space().cardinality(k);
  if (n < 2) return v;
  if (state.unit() < 0.5) return static_cast<uint32_t>(state.below(n));
  if (v == 0) return 1;
  if (v + 1 == n) return v - 1;
  return state.unit() < 0.5 ? v - 1 : v + 1;
}

// The child if it is a new valid config, else the first new valid config met on the way
// back to `parent`; nullopt when there is none.
inline std::optional<std::size_t> repair_child(SearchState& state, std::vector<uint32_t>& child, std::size_t parent) {
  auto fresh = [&]() -> std::optional<std::size_t> {
    auto i = state.space().find(child);
    return i && !state.was_proposed(*i) ? i : std::nullopt;
  };
  if (auto i = fresh()) return i;
  std::vector<std::size_t> differ;
  for (std::size_t k = 0; k < child.size(); ++k)
    if (child[k] != state.space().position(parent, k)) differ.push_back(k);
  state.shuffle(differ);
  for (std::size_t k : differ) {
    child[k] = state.space().position(parent, k);
    if (auto i = fresh()) return i;
  }
  return std::nullopt;
}

// A new valid child of `members` (non-empty, fastest first), in at most `tries` children.
inline std::optional<std::size_t> breed_child(SearchState& state, const std::vector<std::size_t>& members, int tries) {
  const SearchSpace& space = state.space();
  auto tournament = [&] { return members[std::min(state.below(members.size()), state.below(members.size()))]; };
  for (int attempt = 0; attempt < tries; ++attempt) {
    const std::size_t a = tournament(), b = tournament();
    std::vector<uint32_t> child(space.width());
    for (std::size_t k = 0; k < child.size(); ++k) {
      child[k] = space.position(state.unit() < 0.5 ? a : b, k);
      if (state.below(child.size()) == 0) child[k] = mutate_position(state, k, child[k]);
    }
    if (auto i = repair_child(state, child, a)) return i;
  }
  return std::nullopt;
}

}  // namespace ktune

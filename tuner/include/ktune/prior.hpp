#pragma once
// A prior for a search: the configs another GPU's (or another key's) measurements found
// fastest, as indices into the space being searched. Good configs carry over between GPUs
// of one kernel far better than chance, so a search on a new GPU measures them first
// (StrategyContext::prior) and goes on from what they give here.
#include <cstddef>
#include <vector>

#include "ktune/replay.hpp"

namespace ktune {

// The timed configs of `other`, fastest first, as indices of `target` (matched by parameter
// name and value); configs `target` lacks (a value it does not have, an invalid combination)
// are skipped, and a target config met twice (`other` has parameters `target` lacks) is
// kept once, at its best. Throws Error naming the parameter when `other` lacks one of
// `target`'s parameters.
std::vector<std::size_t> prior_from(const ReplaySpace& other, const ReplaySpace& target);

}  // namespace ktune

#pragma once
// What a prior (another GPU's or another key's ranking of this space, best first) says of
// each config, as one number a model can weigh: the normal score of the config's place in
// the ranking (the best of n configs about -Φ⁻¹(1 - 1/2n), the median 0), with the slow
// half clipped at 0 as the model's own targets are. A config the ranking lacks (a DB holds
// a budgeted sample) gets what an additive model fitted to the ranking's scores predicts
// for it. Lower is faster.
#include <cstddef>
#include <unordered_map>
#include <vector>

#include "ktune/search_space.hpp"
#include "strategy/additive_model.hpp"

namespace ktune {

class TransferScore {
 public:
  TransferScore(const SearchSpace& space, const std::vector<std::size_t>& ranking);
  double operator()(std::size_t i) const;

 private:
  std::unordered_map<std::size_t, double> ranked_;
  AdditiveModel model_;  // for the configs the ranking lacks
};

}  // namespace ktune

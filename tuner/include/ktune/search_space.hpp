#pragma once
// What a search strategy sees of a space: the valid configs, each as a row of value
// positions (the index of its value in its parameter's list), in the enumeration's order.
// Neighbourhoods and surrogate models work on positions: "the next value of TM" is
// position + 1 whatever the values are. The configs are the space engine's compact
// Enumeration (8 bytes a config); lookup of a row is a binary search, so strategies test
// whether a neighbour is valid without evaluating constraints.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ktune/parameter.hpp"
#include "ktune/space.hpp"

namespace ktune {

class SearchSpace {
 public:
  SearchSpace() = default;
  SearchSpace(std::vector<Parameter> parameters, Enumeration configs);
  // From parameters and the valid configs' values (rows × width, each value in its list).
  // Throws Error when a value is not in its parameter's list.
  SearchSpace(std::vector<Parameter> parameters, std::span<const int64_t> rows);
  static SearchSpace from(const std::vector<Parameter>& parameters, const Enumeration& e) {
    return SearchSpace(parameters, e);
  }

  std::size_t size() const { return configs_.size(); }
  std::size_t width() const { return parameters_.size(); }
  const std::vector<Parameter>& parameters() const { return parameters_; }
  const Enumeration& configs() const { return configs_; }
  // Number of values of parameter k: positions of k run over [0, cardinality(k)).
  std::size_t cardinality(std::size_t k) const { return parameters_[k].values.size(); }

  std::vector<uint32_t> row(std::size_t i) const { return configs_.positions(i); }
  uint32_t position(std::size_t i, std::size_t k) const { return configs_.position(i, k); }
  int64_t value(std::size_t i, std::size_t k) const { return parameters_[k].values[configs_.position(i, k)]; }

  // The config with these positions, if it is valid.
  std::optional<std::size_t> find(std::span<const uint32_t> positions) const { return configs_.find(positions); }

  // Valid configs that differ from config i in one parameter: by one position (adjacent)
  // or by any position (Hamming distance 1).
  std::vector<std::size_t> adjacent(std::size_t i) const;
  std::vector<std::size_t> hamming(std::size_t i) const;

 private:
  std::vector<Parameter> parameters_;
  Enumeration configs_;
};

}  // namespace ktune

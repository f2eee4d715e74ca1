#pragma once
// What a search strategy sees of a space: the valid configs, each as a row of value
// positions (the index of its value in its parameter's list), in the enumeration's order.
// Neighbourhoods and surrogate models work on positions: "the next value of TM" is
// position + 1 whatever the values are. Lookup of a row is a hash probe, so strategies
// test whether a neighbour is valid without evaluating constraints.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ktune/parameter.hpp"
#include "ktune/space.hpp"

namespace ktune {

class SearchSpace {
 public:
  SearchSpace() = default;
  // From parameters and the valid configs' values (rows × width, each value in its list).
  // Throws Error when a value is not in its parameter's list.
  SearchSpace(std::vector<Parameter> parameters, std::span<const int64_t> rows);
  static SearchSpace from(const std::vector<Parameter>& parameters, const Enumeration& e) {
    return SearchSpace(parameters, e.values);
  }

  std::size_t size() const { return width_ ? positions_.size() / width_ : 0; }
  std::size_t width() const { return width_; }
  const std::vector<Parameter>& parameters() const { return parameters_; }
  // Number of values of parameter k: positions of k run over [0, cardinality(k)).
  std::size_t cardinality(std::size_t k) const { return parameters_[k].values.size(); }

  std::span<const uint32_t> row(std::size_t i) const { return {positions_.data() + i * width_, width_}; }
  int64_t value(std::size_t i, std::size_t k) const { return parameters_[k].values[row(i)[k]]; }

  // The config with these positions, if it is valid.
  std::optional<std::size_t> find(std::span<const uint32_t> positions) const;

  // Valid configs that differ from config i in one parameter: by one position (adjacent)
  // or by any position (Hamming distance 1).
  std::vector<std::size_t> adjacent(std::size_t i) const;
  std::vector<std::size_t> hamming(std::size_t i) const;

 private:
  uint64_t hash(std::span<const uint32_t> positions) const;

  std::vector<Parameter> parameters_;
  std::size_t width_ = 0;
  std::vector<uint32_t> positions_;
  std::unordered_multimap<uint64_t, std::size_t> index_;
};

}  // namespace ktune

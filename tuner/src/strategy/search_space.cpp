#include "ktune/search_space.hpp"

#include <algorithm>
#include <map>

#include "ktune/error.hpp"

namespace ktune {

SearchSpace::SearchSpace(std::vector<Parameter> parameters, Enumeration configs)
    : parameters_(std::move(parameters)), configs_(std::move(configs)) {}

SearchSpace::SearchSpace(std::vector<Parameter> parameters, std::span<const int64_t> rows)
    : parameters_(std::move(parameters)), configs_(parameters_) {
  const std::size_t width = parameters_.size();
  if (width == 0) return;
  std::vector<std::map<int64_t, uint32_t>> position_of(width);
  for (std::size_t k = 0; k < width; ++k)
    for (std::size_t p = 0; p < parameters_[k].values.size(); ++p)
      position_of[k].emplace(parameters_[k].values[p], static_cast<uint32_t>(p));
  std::vector<uint32_t> positions(width);
  for (std::size_t i = 0; i < rows.size() / width; ++i) {
    for (std::size_t k = 0; k < width; ++k) {
      auto it = position_of[k].find(rows[i * width + k]);
      if (it == position_of[k].end())
        throw Error("search space: value " + std::to_string(rows[i * width + k]) + " of " + parameters_[k].name +
                    " is not among its values");
      positions[k] = it->second;
    }
    configs_.append(positions);
  }
  // Index i is row i: the rows must come in the enumeration's order, each once.
  if (!configs_.strictly_ordered())
    throw Error("search space: the rows are not in enumeration order (lexicographic by value positions), each once");
}

std::vector<std::size_t> SearchSpace::adjacent(std::size_t i) const {
  std::vector<std::size_t> out;
  std::vector<uint32_t> p = row(i);
  for (std::size_t k = 0; k < width(); ++k) {
    const uint32_t own = p[k];
    for (int step : {-1, 1}) {
      if ((step < 0 && own == 0) || (step > 0 && own + 1 >= cardinality(k))) continue;
      p[k] = own + step;
      if (auto j = find(p)) out.push_back(*j);
    }
    p[k] = own;
  }
  return out;
}

std::vector<std::size_t> SearchSpace::hamming(std::size_t i) const {
  std::vector<std::size_t> out;
  std::vector<uint32_t> p = row(i);
  for (std::size_t k = 0; k < width(); ++k) {
    const uint32_t own = p[k];
    for (uint32_t v = 0; v < cardinality(k); ++v) {
      if (v == own) continue;
      p[k] = v;
      if (auto j = find(p)) out.push_back(*j);
    }
    p[k] = own;
  }
  return out;
}

}  // namespace ktune

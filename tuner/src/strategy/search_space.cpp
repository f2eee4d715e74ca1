#include "ktune/search_space.hpp"

#include <algorithm>
#include <map>

#include "ktune/error.hpp"

namespace ktune {

SearchSpace::SearchSpace(std::vector<Parameter> parameters, std::span<const int64_t> rows)
    : parameters_(std::move(parameters)), width_(parameters_.size()) {
  if (width_ == 0) return;
  std::vector<std::map<int64_t, uint32_t>> position_of(width_);
  for (std::size_t k = 0; k < width_; ++k)
    for (std::size_t p = 0; p < parameters_[k].values.size(); ++p)
      position_of[k].emplace(parameters_[k].values[p], static_cast<uint32_t>(p));
  const std::size_t n = rows.size() / width_;
  positions_.resize(n * width_);
  index_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < width_; ++k) {
      auto it = position_of[k].find(rows[i * width_ + k]);
      if (it == position_of[k].end())
        throw Error("search space: value " + std::to_string(rows[i * width_ + k]) + " of " +
                    parameters_[k].name + " is not among its values");
      positions_[i * width_ + k] = it->second;
    }
    index_.emplace(hash(row(i)), i);
  }
}

uint64_t SearchSpace::hash(std::span<const uint32_t> positions) const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t p : positions) {
    h ^= p;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::optional<std::size_t> SearchSpace::find(std::span<const uint32_t> positions) const {
  if (positions.size() != width_) return std::nullopt;
  auto [lo, hi] = index_.equal_range(hash(positions));
  for (auto it = lo; it != hi; ++it) {
    auto r = row(it->second);
    if (std::equal(r.begin(), r.end(), positions.begin())) return it->second;
  }
  return std::nullopt;
}

std::vector<std::size_t> SearchSpace::adjacent(std::size_t i) const {
  std::vector<std::size_t> out;
  std::vector<uint32_t> p(row(i).begin(), row(i).end());
  for (std::size_t k = 0; k < width_; ++k) {
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
  std::vector<uint32_t> p(row(i).begin(), row(i).end());
  for (std::size_t k = 0; k < width_; ++k) {
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

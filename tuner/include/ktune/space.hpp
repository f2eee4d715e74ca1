#pragma once
// The search space: the cartesian product of the parameters, filtered by the constraints.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ktune/expression.hpp"
#include "ktune/parameter.hpp"

namespace ktune {

// The valid configs of a space, held compactly: each config is one key of packed value
// positions (the first parameter in the most significant bits), so a config costs 8 bytes
// for up to 64 bits of positions, and keys sort in lexicographic order of value positions
// (the first parameter varies slowest), as itertools.product would give the configs.
// Rows are decoded on access; a config's index is found by binary search.
struct Enumeration {
  std::size_t width = 0;
  std::vector<uint64_t> rejected_by;  // points each constraint removed (first to fail)
  bool truncated = false;             // stopped after more than the limit was found
  bool gave_up = false;               // stopped after visiting more than max_visits points
  uint64_t visits = 0;                // points visited: every value bound, at every depth

  // Valid configs found (counted, when they were not kept).
  std::size_t size() const { return kept_ ? keys_.size() / words_ : counted_; }
  bool kept() const { return kept_; }
  // Config i's values, declaration order.
  std::vector<int64_t> row(std::size_t i) const;
  // Config i's value positions (index of each value in its parameter's list).
  std::vector<uint32_t> positions(std::size_t i) const;
  uint32_t position(std::size_t i, std::size_t k) const;
  // The index of the config with these positions, if it is valid.
  std::optional<std::size_t> find(std::span<const uint32_t> positions) const;
  // The index of the config with these values, if it is valid.
  std::optional<std::size_t> find_values(std::span<const int64_t> values) const;
  // Bytes held for the configs themselves.
  std::size_t bytes() const { return keys_.capacity() * sizeof(uint64_t); }

  // For Space::enumerate and tests: an empty set for parameters of these value lists.
  explicit Enumeration(const std::vector<Parameter>& parameters = {});
  void append(std::span<const uint32_t> positions);
  void sort();                    // after appending out of order
  bool strictly_ordered() const;  // each config once, in lexicographic order

 private:
  void encode(std::span<const uint32_t> positions, uint64_t* key) const;
  std::vector<std::vector<int64_t>> values_;  // each parameter's values
  std::vector<uint8_t> bits_, shift_, word_;  // per parameter: field width, offset, word
  std::size_t words_ = 1;                     // key words per config
  std::vector<uint64_t> keys_;                // size() × words_
  bool kept_ = true;                          // false: counted only (Space::count)
  std::size_t counted_ = 0;
  friend class Space;
};

// The most valid configs a space may have to be planned and searched: each is kept (8
// bytes), so this bounds the memory to 160 MB. Larger spaces must be narrowed.
inline constexpr uint64_t kMaxValidConfigs = 20'000'000;

class Space {
 public:
  // Throws Error: duplicate or bad names, empty value lists, constraints that do not
  // parse (message names the constraint and points at the column).
  Space(std::vector<Parameter> parameters, std::vector<std::string> constraints);

  const std::vector<Parameter>& parameters() const { return parameters_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Expression>& constraints() const { return constraints_; }

  // Size of the unconstrained product; saturates at UINT64_MAX.
  uint64_t product() const;

  // Every valid config, each constraint evaluated as soon as its parameters are bound.
  // Stops once more than `limit` configs are found (truncated = true), or once more than
  // `max_visits` points (partial or whole) were visited (gave_up = true): a huge product
  // whose constraints bind late is visited almost point by point.
  Enumeration enumerate(uint64_t limit = UINT64_MAX, uint64_t max_visits = UINT64_MAX) const;
  // The same walk, keeping no configs: only the count (size()) and the rejections.
  Enumeration count(uint64_t max_visits = UINT64_MAX) const;

  // Points of the product that constraint `c` alone excludes, counted over the product
  // of its own parameters; nullopt when that product exceeds `max_evaluations`.
  std::optional<uint64_t> points_excluded_by(std::size_t c, uint64_t max_evaluations = 10'000'000) const;

  // The first constraint `values` (declaration order) violates, or -1 when it satisfies
  // all. Values need not be in the parameters' lists.
  int first_violated(std::span<const int64_t> values) const;

 private:
  Enumeration walk(uint64_t limit, uint64_t max_visits, bool keep) const;

  std::vector<Parameter> parameters_;
  std::vector<std::string> names_;
  std::vector<Expression> constraints_;
};

}  // namespace ktune

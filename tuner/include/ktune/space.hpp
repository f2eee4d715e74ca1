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

// The valid configs, one row of values per config in parameter declaration order; rows
// come in lexicographic order of value positions (the first parameter varies slowest),
// as itertools.product would give them.
struct Enumeration {
  std::size_t width = 0;
  std::vector<int64_t> values;          // rows × width
  std::vector<uint64_t> rejected_by;    // points each constraint removed (first to fail)
  bool truncated = false;               // stopped after more than the limit was found
  bool gave_up = false;                 // stopped after visiting more than max_visits points
  uint64_t visits = 0;                  // points visited: every value bound, at every depth

  std::size_t size() const { return width ? values.size() / width : 0; }
  std::span<const int64_t> row(std::size_t i) const {
    return {values.data() + i * width, width};
  }
};

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

  // Points of the product that constraint `c` alone excludes, counted over the product
  // of its own parameters; nullopt when that product exceeds `max_evaluations`.
  std::optional<uint64_t> points_excluded_by(std::size_t c,
                                             uint64_t max_evaluations = 10'000'000) const;

  // The first constraint `values` (declaration order) violates, or -1 when it satisfies
  // all. Values need not be in the parameters' lists.
  int first_violated(std::span<const int64_t> values) const;

 private:
  std::vector<Parameter> parameters_;
  std::vector<std::string> names_;
  std::vector<Expression> constraints_;
};

}  // namespace ktune

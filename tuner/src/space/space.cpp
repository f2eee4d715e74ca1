#include "ktune/space.hpp"

#include <algorithm>
#include <numeric>
#include <set>

namespace ktune {
namespace {

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

std::string describe(std::span<const std::string> names, std::span<const int64_t> values) {
  std::string s;
  for (std::size_t k = 0; k < names.size(); ++k)
    s += (k ? " " : "") + names[k] + "=" + std::to_string(values[k]);
  return s;
}

// The order in which enumeration binds parameters: greedily the one that completes the
// most constraints, so each constraint prunes as high in the tree as it can.
std::vector<int> binding_order(std::size_t n, const std::vector<Expression>& constraints) {
  std::vector<int> order;
  std::vector<bool> bound(n, false);
  std::vector<std::size_t> missing(constraints.size());
  for (std::size_t c = 0; c < constraints.size(); ++c) missing[c] = constraints[c].slots().size();
  while (order.size() < n) {
    int best = -1;
    std::pair<int, int> best_score{-1, -1};
    for (std::size_t p = 0; p < n; ++p) {
      if (bound[p]) continue;
      int completes = 0, touches = 0;
      for (std::size_t c = 0; c < constraints.size(); ++c) {
        const auto& s = constraints[c].slots();
        if (!std::binary_search(s.begin(), s.end(), static_cast<int>(p))) continue;
        ++touches;
        if (missing[c] == 1) ++completes;
      }
      std::pair<int, int> score{completes, touches};
      if (score > best_score) best_score = score, best = static_cast<int>(p);
    }
    bound[best] = true;
    order.push_back(best);
    for (std::size_t c = 0; c < constraints.size(); ++c) {
      const auto& s = constraints[c].slots();
      if (std::binary_search(s.begin(), s.end(), best)) --missing[c];
    }
  }
  return order;
}

}  // namespace

Space::Space(std::vector<Parameter> parameters, std::vector<std::string> constraints)
    : parameters_(std::move(parameters)) {
  std::set<std::string> seen;
  for (const auto& p : parameters_) {
    check_parameter_name(p.name, "parameter '" + p.name + "'");
    if (!seen.insert(p.name).second)
      throw Error("parameter '" + p.name + "' is declared twice; declare each parameter once");
    if (p.values.empty())
      throw Error("parameter '" + p.name + "' has no values; list some, e.g. \"" + p.name +
                  "=32,64\"");
    names_.push_back(p.name);
  }
  for (std::size_t c = 0; c < constraints.size(); ++c) {
    try {
      constraints_.push_back(Expression::parse(constraints[c], names_));
    } catch (const ParseError& e) {
      throw ParseError("constraint " + std::to_string(c + 1) + " \"" + constraints[c] +
                           "\": column " + std::to_string(e.column()) + ": " + e.what() +
                           "\n" + caret_at(constraints[c], e.column()),
                       e.column());
    }
  }
}

uint64_t Space::product() const {
  uint64_t n = 1;
  for (const auto& p : parameters_) n = saturating_mul(n, p.values.size());
  return n;
}

std::optional<uint64_t> Space::points_excluded_by(std::size_t c,
                                                  uint64_t max_evaluations) const {
  const auto& slots = constraints_[c].slots();
  uint64_t own = 1, others = 1;
  for (std::size_t k = 0; k < parameters_.size(); ++k) {
    bool mine = std::binary_search(slots.begin(), slots.end(), static_cast<int>(k));
    (mine ? own : others) = saturating_mul(mine ? own : others, parameters_[k].values.size());
  }
  if (own > max_evaluations) return std::nullopt;
  std::vector<int64_t> values(parameters_.size(), 0);
  std::vector<std::size_t> pos(slots.size(), 0);
  uint64_t excluded = 0;
  while (true) {
    for (std::size_t i = 0; i < slots.size(); ++i) values[slots[i]] = parameters_[slots[i]].values[pos[i]];
    excluded += !constraints_[c].holds(values);
    std::size_t i = slots.size();
    while (i > 0 && ++pos[i - 1] == parameters_[slots[i - 1]].values.size()) pos[--i] = 0;
    if (i == 0) break;
  }
  return saturating_mul(excluded, others);
}

int Space::first_violated(std::span<const int64_t> values) const {
  for (std::size_t c = 0; c < constraints_.size(); ++c) {
    try {
      if (!constraints_[c].holds(values)) return static_cast<int>(c);
    } catch (const EvalError& e) {
      throw EvalError("constraint " + std::to_string(c + 1) + " \"" + constraints_[c].text() +
                      "\" at " + describe(names_, values) + ": " + e.what());
    }
  }
  return -1;
}

Enumeration Space::enumerate(uint64_t limit, uint64_t max_visits) const {
  const std::size_t n = parameters_.size();
  Enumeration result;
  result.width = n;
  result.rejected_by.assign(constraints_.size(), 0);
  if (n == 0) return result;

  const std::vector<int> order = binding_order(n, constraints_);
  // checks[d]: constraints whose last parameter is bound at depth d.
  std::vector<std::vector<int>> checks(n);
  std::vector<int> depth_of(n);
  for (std::size_t d = 0; d < n; ++d) depth_of[order[d]] = static_cast<int>(d);
  for (std::size_t c = 0; c < constraints_.size(); ++c) {
    int last = 0;
    for (int s : constraints_[c].slots()) last = std::max(last, depth_of[s]);
    checks[last].push_back(static_cast<int>(c));
  }
  // Points below depth d: what a rejection at depth d removes.
  std::vector<uint64_t> below(n, 1);
  for (std::size_t d = n - 1; d > 0; --d)
    below[d - 1] = saturating_mul(below[d], parameters_[order[d]].values.size());

  std::vector<int64_t> values(n);
  std::vector<uint32_t> pos(n, 0);      // value position per depth
  std::vector<uint32_t> found;          // positions per survivor, declaration order
  uint64_t count = 0;

  std::size_t d = 0;
  while (true) {
    const auto& p = parameters_[order[d]];
    if (pos[d] == p.values.size()) {  // exhausted this level: backtrack
      pos[d] = 0;
      if (d == 0) break;
      --d;
      ++pos[d];
      continue;
    }
    values[order[d]] = p.values[pos[d]];
    if (++result.visits > max_visits) {
      result.gave_up = true;
      break;
    }
    bool ok = true;
    for (int c : checks[d]) {
      bool holds;
      try {
        holds = constraints_[c].holds(values);
      } catch (const EvalError& e) {
        // Name only the parameters bound so far: the others hold stale values.
        std::string at;
        for (std::size_t b = 0; b <= d; ++b)
          at += (b ? " " : "") + names_[order[b]] + "=" + std::to_string(values[order[b]]);
        throw EvalError("constraint " + std::to_string(c + 1) + " \"" + constraints_[c].text() +
                        "\" at " + at + ": " + e.what());
      }
      if (!holds) {
        result.rejected_by[c] += below[d];
        ok = false;
        break;
      }
    }
    if (ok && d + 1 < n) {
      ++d;
      continue;
    }
    if (ok) {
      if (++count > limit) {
        result.truncated = true;
        break;
      }
      for (std::size_t k = 0; k < n; ++k) found.push_back(0);
      uint32_t* row = found.data() + found.size() - n;
      for (std::size_t dd = 0; dd < n; ++dd) row[order[dd]] = pos[dd];
    }
    ++pos[d];
  }

  // Rows in declaration-order lexicographic order (the enumeration may bind in another).
  const std::size_t rows = found.size() / n;
  std::vector<uint32_t> index(rows);
  std::iota(index.begin(), index.end(), 0);
  bool identity = std::is_sorted(order.begin(), order.end());
  if (!identity)
    std::sort(index.begin(), index.end(), [&](uint32_t a, uint32_t b) {
      return std::lexicographical_compare(found.begin() + a * n, found.begin() + (a + 1) * n,
                                          found.begin() + b * n, found.begin() + (b + 1) * n);
    });
  result.values.resize(rows * n);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k = 0; k < n; ++k)
      result.values[r * n + k] = parameters_[k].values[found[index[r] * n + k]];
  return result;
}

}  // namespace ktune

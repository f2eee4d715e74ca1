#include "ktune/space.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <set>

#include "ktune/text.hpp"

namespace ktune {
namespace {

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
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

Enumeration::Enumeration(const std::vector<Parameter>& parameters) : width(parameters.size()) {
  // Each parameter a field of just enough bits for its positions, fields packed from the
  // most significant bit down; a field never straddles two words.
  std::size_t word = 0, free_bits = 64;
  for (const auto& p : parameters) {
    values_.push_back(p.values);
    const auto bits = static_cast<uint8_t>(p.values.size() <= 1 ? 0 : std::bit_width(p.values.size() - 1));
    if (bits > free_bits) ++word, free_bits = 64;
    free_bits -= bits;
    bits_.push_back(bits);
    shift_.push_back(static_cast<uint8_t>(free_bits));
    word_.push_back(static_cast<uint8_t>(word));
  }
  words_ = word + 1;
}

void Enumeration::encode(std::span<const uint32_t> positions, uint64_t* key) const {
  std::fill(key, key + words_, 0);
  for (std::size_t k = 0; k < width; ++k)
    if (bits_[k]) key[word_[k]] |= static_cast<uint64_t>(positions[k]) << shift_[k];
}

void Enumeration::append(std::span<const uint32_t> positions) {
  keys_.resize(keys_.size() + words_);
  encode(positions, keys_.data() + keys_.size() - words_);
}

void Enumeration::sort() {
  if (words_ == 1) return std::sort(keys_.begin(), keys_.end());
  const std::size_t n = size(), w = words_;
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::lexicographical_compare(keys_.begin() + a * w, keys_.begin() + (a + 1) * w, keys_.begin() + b * w,
                                        keys_.begin() + (b + 1) * w);
  });
  std::vector<uint64_t> sorted(keys_.size());
  for (std::size_t r = 0; r < n; ++r) std::copy_n(keys_.begin() + order[r] * w, w, sorted.begin() + r * w);
  keys_ = std::move(sorted);
}

bool Enumeration::strictly_ordered() const {
  for (std::size_t i = 1; i < size(); ++i)
    if (!std::lexicographical_compare(keys_.begin() + (i - 1) * words_, keys_.begin() + i * words_,
                                      keys_.begin() + i * words_, keys_.begin() + (i + 1) * words_))
      return false;
  return true;
}

uint32_t Enumeration::position(std::size_t i, std::size_t k) const {
  if (!bits_[k]) return 0;
  return static_cast<uint32_t>((keys_[i * words_ + word_[k]] >> shift_[k]) & ((uint64_t{1} << bits_[k]) - 1));
}

std::vector<uint32_t> Enumeration::positions(std::size_t i) const {
  std::vector<uint32_t> out(width);
  for (std::size_t k = 0; k < width; ++k) out[k] = position(i, k);
  return out;
}

std::vector<int64_t> Enumeration::row(std::size_t i) const {
  std::vector<int64_t> out(width);
  for (std::size_t k = 0; k < width; ++k) out[k] = values_[k][position(i, k)];
  return out;
}

std::optional<std::size_t> Enumeration::find(std::span<const uint32_t> positions) const {
  if (positions.size() != width || width == 0) return std::nullopt;
  for (std::size_t k = 0; k < width; ++k)
    if (positions[k] >= values_[k].size()) return std::nullopt;
  uint64_t key[8];
  std::vector<uint64_t> long_key;
  uint64_t* target = key;
  if (words_ > 8) long_key.resize(words_), target = long_key.data();
  encode(positions, target);
  std::size_t lo = 0, hi = size();
  while (lo < hi) {  // the first config not below the target
    const std::size_t mid = lo + (hi - lo) / 2;
    const uint64_t* at = keys_.data() + mid * words_;
    if (std::lexicographical_compare(at, at + words_, target, target + words_))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < size() && std::equal(target, target + words_, keys_.data() + lo * words_)) return lo;
  return std::nullopt;
}

std::optional<std::size_t> Enumeration::find_values(std::span<const int64_t> values) const {
  if (values.size() != width) return std::nullopt;
  std::vector<uint32_t> pos(width);
  for (std::size_t k = 0; k < width; ++k) {
    auto it = std::find(values_[k].begin(), values_[k].end(), values[k]);
    if (it == values_[k].end()) return std::nullopt;
    pos[k] = static_cast<uint32_t>(it - values_[k].begin());
  }
  return find(pos);
}

Space::Space(std::vector<Parameter> parameters, std::vector<std::string> constraints)
    : parameters_(std::move(parameters)) {
  std::set<std::string> seen;
  for (const auto& p : parameters_) {
    check_parameter_name(p.name, "parameter '" + p.name + "'");
    if (!seen.insert(p.name).second)
      throw Error("parameter '" + p.name + "' is declared twice; declare each parameter once");
    if (p.values.empty())
      throw Error("parameter '" + p.name + "' has no values; list some, e.g. \"" + p.name + "=32,64\"");
    names_.push_back(p.name);
  }
  for (std::size_t c = 0; c < constraints.size(); ++c) {
    try {
      constraints_.push_back(Expression::parse(constraints[c], names_));
    } catch (const ParseError& e) {
      throw ParseError("constraint " + std::to_string(c + 1) + " \"" + constraints[c] + "\": column " +
                           std::to_string(e.column()) + ": " + e.what() + "\n" + caret_at(constraints[c], e.column()),
                       e.column());
    }
  }
}

uint64_t Space::product() const {
  uint64_t n = 1;
  for (const auto& p : parameters_) n = saturating_mul(n, p.values.size());
  return n;
}

std::optional<uint64_t> Space::points_excluded_by(std::size_t c, uint64_t max_evaluations) const {
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
      throw EvalError("constraint " + std::to_string(c + 1) + " \"" + constraints_[c].text() + "\" at " +
                      assignments_text(names_, values) + ": " + e.what());
    }
  }
  return -1;
}

Enumeration Space::count(uint64_t max_visits) const { return walk(UINT64_MAX, max_visits, false); }

Enumeration Space::enumerate(uint64_t limit, uint64_t max_visits) const { return walk(limit, max_visits, true); }

Enumeration Space::walk(uint64_t limit, uint64_t max_visits, bool keep) const {
  const std::size_t n = parameters_.size();
  Enumeration result(parameters_);
  result.kept_ = keep;
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
  for (std::size_t d = n - 1; d > 0; --d) below[d - 1] = saturating_mul(below[d], parameters_[order[d]].values.size());

  std::vector<int64_t> values(n);
  std::vector<uint32_t> pos(n, 0);    // value position per depth
  std::vector<uint32_t> declared(n);  // a survivor's positions, declaration order
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
        throw EvalError("constraint " + std::to_string(c + 1) + " \"" + constraints_[c].text() + "\" at " + at + ": " +
                        e.what());
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
      if (keep) {
        for (std::size_t dd = 0; dd < n; ++dd) declared[order[dd]] = pos[dd];
        result.append(declared);
      } else {
        ++result.counted_;
      }
    }
    ++pos[d];
  }

  // Configs in declaration-order lexicographic order (the enumeration may bind in another).
  if (keep && !std::is_sorted(order.begin(), order.end())) result.sort();
  return result;
}

}  // namespace ktune

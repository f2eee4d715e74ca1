// Exhaustive search: every config once, the default (`first`) before all others. Without a
// budget, in enumeration order; with one, in a seeded random order, so that a search cut
// short by its budget samples the whole space instead of its first corner.
#include <random>
#include <string>
#include <unordered_map>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

namespace ktune {
namespace {

class Exhaustive final : public Strategy {
 public:
  Exhaustive(std::size_t size, std::size_t first, std::optional<uint64_t> shuffle_seed)
      : size_(size), first_(first), shuffled_(shuffle_seed.has_value()), rng_(shuffle_seed.value_or(0)) {}

  std::string name() const override { return "exhaustive"; }

  std::vector<std::size_t> propose(std::size_t max) override {
    std::vector<std::size_t> out;
    while (out.size() < max && next_ < size_) out.push_back(index_at(next_++));
    return out;
  }

  // Order is fixed up front, so results change nothing; only a bad index is an error.
  void observe(const Observation& o) override {
    if (o.index >= size_)
      throw Error("exhaustive: observed index " + std::to_string(o.index) + " outside the space of " +
                  std::to_string(size_) + " configs");
  }

  bool done() const override { return next_ >= size_; }

 private:
  // Position p of the visiting order: `first`, then 0..size-1 with `first` skipped, or
  // shuffled: a Fisher-Yates shuffle of 0..size-1 (first swapped to the front), drawn one
  // position at a time and keeping only the entries it moved.
  std::size_t index_at(std::size_t p) {
    if (!shuffled_) {
      if (p == 0) return first_;
      return p - 1 < first_ ? p - 1 : p;
    }
    const std::size_t j =
        p == 0 ? first_ : p + static_cast<std::size_t>((static_cast<unsigned __int128>(rng_()) * (size_ - p)) >> 64);
    const std::size_t at_j = entry(j);
    moved_[j] = entry(p);
    moved_.erase(p);  // position p is handed out and never read again
    return at_j;
  }
  std::size_t entry(std::size_t i) const {
    auto it = moved_.find(i);
    return it == moved_.end() ? i : it->second;
  }

  std::size_t size_;
  std::size_t first_;
  bool shuffled_;
  std::mt19937_64 rng_;
  std::unordered_map<std::size_t, std::size_t> moved_;
  std::size_t next_ = 0;  // positions handed out so far
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(std::size_t size, std::size_t first, std::optional<uint64_t> shuffle_seed) {
  // An empty space has no default config to check; the strategy is simply done.
  if (size > 0 && first >= size)
    throw Error("exhaustive: default config index " + std::to_string(first) + " is outside the space of " +
                std::to_string(size) + " configs");
  return std::make_unique<Exhaustive>(size, first, shuffle_seed);
}

}  // namespace ktune

// Exhaustive search: every config once, the default (`first`) before all others.
#include <string>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

namespace ktune {
namespace {

class Exhaustive final : public Strategy {
 public:
  Exhaustive(std::size_t size, std::size_t first) : size_(size), first_(first) {}

  std::string name() const override { return "exhaustive"; }

  std::vector<std::size_t> propose(std::size_t max) override {
    std::vector<std::size_t> out;
    while (out.size() < max && next_ < size_) out.push_back(index_at(next_++));
    return out;
  }

  // Order is fixed up front, so results change nothing; only a bad index is an error.
  void observe(const Observation& o) override {
    if (o.index >= size_)
      throw Error("exhaustive: observed index " + std::to_string(o.index) +
                  " outside the space of " + std::to_string(size_) + " configs");
  }

  bool done() const override { return next_ >= size_; }

 private:
  // Position p of the visiting order: `first`, then 0..size-1 with `first` skipped.
  std::size_t index_at(std::size_t p) const {
    if (p == 0) return first_;
    return p - 1 < first_ ? p - 1 : p;
  }

  std::size_t size_;
  std::size_t first_;
  std::size_t next_ = 0;  // positions handed out so far
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(std::size_t size, std::size_t first,
                                          uint64_t /*seed: the order is deterministic*/) {
  // An empty space has no default config to check; the strategy is simply done.
  if (size > 0 && first >= size)
    throw Error("exhaustive: default config index " + std::to_string(first) +
                " is outside the space of " + std::to_string(size) + " configs");
  return std::make_unique<Exhaustive>(size, first);
}

}  // namespace ktune

// Strategy by name: the one table that the --strategy option and the docs list.
#include <string>

#include "ktune/error.hpp"
#include "ktune/strategy.hpp"

namespace ktune {
namespace {

using Factory = std::unique_ptr<Strategy> (*)(std::size_t size, std::size_t first,
                                              uint64_t seed);

struct Entry {
  const char* name;
  Factory make;
};

constexpr Entry kStrategies[] = {
    {"exhaustive", &make_exhaustive},
};

}  // namespace

std::unique_ptr<Strategy> make_strategy(const std::string& name, std::size_t size,
                                        std::size_t first, uint64_t seed) {
  for (const Entry& e : kStrategies)
    if (name == e.name) return e.make(size, first, seed);
  std::string known;
  for (const Entry& e : kStrategies) known += std::string(known.empty() ? "" : ", ") + e.name;
  throw Error("unknown search strategy '" + name + "' (known: " + known + ")");
}

}  // namespace ktune

#include "ktune/config_id.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "ktune/fnv1a.hpp"

namespace ktune {

std::string config_id(std::span<const std::string> names, std::span<const int64_t> values) {
  std::vector<std::size_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });

  Fnv1a hash;  // raw bytes, no length prefixes: ids in DBs already written must not move
  auto feed = [&hash](std::string_view bytes) { hash.bytes(bytes.data(), bytes.size()); };
  for (std::size_t k : order) {
    feed(names[k]);
    feed("=");
    feed(std::to_string(values[k]));
    feed("\n");
  }
  return hash.hex();
}

}  // namespace ktune

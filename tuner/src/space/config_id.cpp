#include "ktune/config_id.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

namespace ktune {

std::string config_id(std::span<const std::string> names, std::span<const int64_t> values) {
  std::vector<std::size_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });

  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a offset basis
  auto feed = [&hash](std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash ^= c;
      hash *= 0x100000001b3ULL;  // FNV prime
    }
  };
  for (std::size_t k : order) {
    feed(names[k]);
    feed("=");
    feed(std::to_string(values[k]));
    feed("\n");
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace ktune

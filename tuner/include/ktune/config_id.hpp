#pragma once
// A config's id: a stable hash of its name=value pairs, independent of the order in which
// the parameters were declared, so cubins, logs and measurements keep their names when a
// space is reordered or extended.
#include <cstdint>
#include <span>
#include <string>

namespace ktune {

// FNV-1a (64-bit) over "name=value\n" for the pairs sorted by name; 16 hex digits.
std::string config_id(std::span<const std::string> names, std::span<const int64_t> values);

}  // namespace ktune

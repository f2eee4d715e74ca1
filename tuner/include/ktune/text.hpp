#pragma once
// Small text helpers shared by messages and reports.
#include <cstdint>
#include <string>
#include <string_view>

namespace ktune {

// 10240 -> "10,240": counts in messages read at a glance.
std::string with_thousands(uint64_t n);

// A C identifier: letters, digits and '_', not starting with a digit.
bool is_c_identifier(std::string_view name);

}  // namespace ktune

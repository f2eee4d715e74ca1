#pragma once
// Small text helpers shared by messages and reports.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace ktune {

// 10240 -> "10,240": counts in messages read at a glance.
std::string with_thousands(uint64_t n);

// A C identifier: letters, digits and '_', not starting with a digit.
bool is_c_identifier(std::string_view name);

// A JSON value as an error message shows it: short scalars as written, "a list" or
// "an object" for containers, long text cut at 60 characters.
std::string json_excerpt(const nlohmann::json& value);

// strerror(err) as a string.
std::string errno_text(int err);

}  // namespace ktune

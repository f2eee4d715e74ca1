#pragma once
// Small text helpers shared by messages and reports.
#include <cstdint>
#include <span>
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

// Text read from a file (a DB's GPU name, a manifest's kernel, a compile log, a worker's
// reply) made safe to print on one line of a terminal: control characters (C0, DEL, C1),
// CR and newlines become \xNN, and so do bytes that are not UTF-8; at most `max` bytes,
// longer text ends in "...".
std::string terminal_text(std::string_view s, std::size_t max = 200);
// The same for a message written as lines (a list of problems): each line made safe as
// above, at most `max` bytes each, the newlines between them kept; past `max_lines` lines,
// one saying how many more there were.
std::string terminal_lines(std::string_view s, std::size_t max = 200, std::size_t max_lines = 40);

// An argument as POSIX sh reads it back: bare when only safe characters, else quoted.
std::string shell_quote(const std::string& arg);

// A config as every message and listing writes it: "BM=64 BN=128", names and values in
// order (as many as the shorter of the two has).
std::string assignments_text(std::span<const std::string> names, std::span<const int64_t> values);

// strerror(err) as a string.
std::string errno_text(int err);

}  // namespace ktune

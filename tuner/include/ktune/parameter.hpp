#pragma once
// A tunable parameter: a named integer knob with a list of values.
//
// Text form, as written in ktune_add_kernel(PARAMS ...): NAME=ITEM[,ITEM...] where an
// item is one of
//   64            an integer (negative allowed)
//   16..256       every integer from 16 to 256 inclusive
//   16..256:16    the same with a step (16, 32, ..., 256)
//   pow2(16..256) the powers of two from 16 to 256 inclusive
// Items may be mixed ("TK=1,2,pow2(8..64),96"). Values keep the order written; a value
// listed twice is an error.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ktune {

struct Parameter {
  std::string name;
  std::vector<int64_t> values;
};

Parameter parse_parameter(std::string_view spec);

// Refuses a value listed twice: the space would count, compile and measure its configs
// twice. Throws Error "<what> lists the value <v> twice; list each value once". Every
// reader of parameter values (PARAMS, a T1 spec) checks with it.
void check_distinct_values(std::span<const int64_t> values, std::string_view what);

// Names become C macros and expression variables: a C identifier that is not a keyword
// of the constraint language. Throws Error naming `what` ("parameter 'TM=1,2'", "KEYS: key
// 1") otherwise; the message itself names no kind, since parameters and key dimensions share it.
void check_parameter_name(std::string_view name, std::string_view what);

// "TM=64 TN=64" (spaces or commas between pairs) → ordered name/value pairs.
using Assignment = std::pair<std::string, int64_t>;
std::vector<Assignment> parse_assignments(std::string_view text);

// Parses a whole-string integer ("-12", "0x10"); throws Error naming `what`.
int64_t parse_integer(std::string_view text, std::string_view what);

}  // namespace ktune

#pragma once
// The Python list forms that T1 files use for parameter values:
//   "[1, 2, 4]"                        literal list of integer expressions
//   "list(range(16, 257, 16))"         range(stop) / range(start, stop[, step])
//   "[2**i for i in range(0, 6)]"      comprehension over a range, optional `if` filter
//   "[1, 2] + list(range(4, 9, 4))"    `+` concatenation of any of the above
// Anything else is rejected with an Error that says which forms are accepted.
#include <cstdint>
#include <string_view>
#include <vector>

namespace ktune {

std::vector<int64_t> evaluate_python_list(std::string_view text);

}  // namespace ktune

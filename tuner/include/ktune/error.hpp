#pragma once
// One error type for every bad input: the message names the input, the value and the fix.
#include <stdexcept>
#include <string>

namespace ktune {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ktune

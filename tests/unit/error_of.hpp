#pragma once
// The message of the ktune::Error that `f` throws, or "no error": for tests of error texts.
#include <string>

#include "ktune/error.hpp"

namespace ktune::test_support {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace ktune::test_support

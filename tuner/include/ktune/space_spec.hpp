#pragma once
// A space as declared, before enumeration: what ktune_add_kernel(), a T1 file and a
// manifest all describe.
#include <string>
#include <vector>

#include "ktune/parameter.hpp"
#include "ktune/space.hpp"

namespace ktune {

struct SpaceSpec {
  std::string name;
  std::vector<Parameter> parameters;
  std::vector<std::string> constraints;
  std::vector<Assignment> default_config;  // empty when none was declared
  // Why a declared default was set aside while reading (a T1 Default that is not an
  // integer, or given for some parameters only); empty when there was none to set aside.
  std::string default_problem;

  Space space() const { return Space(parameters, constraints); }
};

// The default config as values in declaration order. Throws Error naming the problem:
// a parameter missing or unknown, a value outside the parameter's list, or the
// constraint it violates.
std::vector<int64_t> resolve_default(const SpaceSpec& spec, const Space& space);

}  // namespace ktune

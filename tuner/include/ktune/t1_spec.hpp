#pragma once
// Reads the search space of a T1 tuning spec (Kernel Tuner's benchmark_hub input format):
// ConfigurationSpace.TuningParameters (Values as Python list expressions) and Conditions.
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "ktune/space_spec.hpp"

namespace ktune {

bool is_t1_spec(const nlohmann::json& doc);

// `origin` (a file name) prefixes every error message.
SpaceSpec read_t1_spec(const nlohmann::json& doc, std::string_view origin);

}  // namespace ktune

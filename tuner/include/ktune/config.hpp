#pragma once
// One point of a space as the launch template sees it: parameter values by name. Asking
// for a name the space does not have throws, so a typo in a launch template fails loudly
// on the first config instead of launching with a made-up value.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ktune/error.hpp"

namespace ktune {

class Config {
 public:
  Config() = default;
  Config(std::vector<std::string> names, std::vector<int64_t> values, std::string id = "")
      : names_(std::move(names)), values_(std::move(values)), id_(std::move(id)) {}

  // The value of `name`; throws Error naming the parameters the config has.
  int64_t operator[](std::string_view name) const {
    if (auto v = find(name)) return *v;
    std::string known;
    for (const auto& n : names_) known += (known.empty() ? "" : ", ") + n;
    throw Error("config has no parameter '" + std::string(name) + "' (its parameters: " + known +
                "); check the spelling in the launch template");
  }
  std::optional<int64_t> find(std::string_view name) const {
    for (std::size_t k = 0; k < names_.size(); ++k)
      if (names_[k] == name) return values_[k];
    return std::nullopt;
  }
  int64_t get_or(std::string_view name, int64_t fallback) const { return find(name).value_or(fallback); }

  const std::vector<std::string>& names() const { return names_; }
  const std::vector<int64_t>& values() const { return values_; }
  const std::string& id() const { return id_; }

 private:
  std::vector<std::string> names_;
  std::vector<int64_t> values_;
  std::string id_;
};

}  // namespace ktune

#include "ktune/space_spec.hpp"

#include <algorithm>

namespace ktune {

std::vector<int64_t> resolve_default(const SpaceSpec& spec, const Space& space) {
  const auto& names = space.names();
  std::vector<int64_t> values(names.size());
  std::vector<bool> given(names.size(), false);
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  for (const auto& [name, value] : spec.default_config) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
      throw Error("DEFAULT names '" + name + "', which is not a parameter (parameters: " + known + ")");
    std::size_t k = it - names.begin();
    const auto& allowed = space.parameters()[k].values;
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
      throw Error("DEFAULT " + name + "=" + std::to_string(value) + " is not among the values of " + name +
                  "; pick one of its values or add it to the parameter");
    values[k] = value;
    given[k] = true;
  }
  for (std::size_t k = 0; k < names.size(); ++k)
    if (!given[k]) throw Error("DEFAULT gives no value for " + names[k] + "; give a value for every parameter");
  int c = space.first_violated(values);
  if (c >= 0)
    throw Error("DEFAULT violates constraint " + std::to_string(c + 1) + " \"" + space.constraints()[c].text() +
                "\"; choose a default inside the space");
  return values;
}

}  // namespace ktune

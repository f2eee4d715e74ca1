// Fuzz target: the T1 reader (read_t1_spec), then the space it declares, as `ktune space`
// uses them. Input that is not JSON is dropped at the start: the JSON parser is not the
// subject. Everything after it may refuse the input only with ktune::Error, and values
// and defaults given as JSON numbers must be kept exactly as written. Small spaces are
// checked against brute force: enumerate() must keep exactly the points that violate no
// constraint, and its rejection counts must add up to the product.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "ktune/space.hpp"
#include "ktune/space_spec.hpp"
#include "ktune/t1_spec.hpp"

namespace {

// Bounds the work per input, so that fuzzing explores instead of enumerating.
constexpr uint64_t kMaxPoints = 1 << 12;

// Every point of the product that violates no constraint, in declaration order; nullopt
// when a constraint cannot be evaluated at some point (enumerate() may prune that point
// before reaching the failing constraint, so the two need not agree on errors).
std::optional<std::vector<int64_t>> brute_force(const ktune::Space& space) {
  const auto& params = space.parameters();
  std::vector<std::size_t> pos(params.size(), 0);
  std::vector<int64_t> values(params.size());
  std::vector<int64_t> valid;
  while (true) {
    for (std::size_t k = 0; k < params.size(); ++k) values[k] = params[k].values[pos[k]];
    try {
      if (space.first_violated(values) < 0) valid.insert(valid.end(), values.begin(), values.end());
    } catch (const ktune::EvalError&) {
      return std::nullopt;
    }
    std::size_t k = params.size();
    while (k > 0 && ++pos[k - 1] == params[k - 1].values.size()) pos[--k] = 0;
    if (k == 0) break;
  }
  return valid;
}

void check_space(const ktune::SpaceSpec& spec) {
  std::optional<ktune::Space> space;
  try {
    space.emplace(spec.space());
  } catch (const ktune::Error&) {
    return;
  }
  KTUNE_FUZZ_CHECK(space->names().size() == spec.parameters.size());
  KTUNE_FUZZ_CHECK(space->constraints().size() == spec.constraints.size());
  if (!spec.default_config.empty()) {
    try {
      std::vector<int64_t> values = ktune::resolve_default(spec, *space);
      KTUNE_FUZZ_CHECK(values.size() == spec.parameters.size());
    } catch (const ktune::Error&) {
    }
  }
  for (std::size_t c = 0; c < space->constraints().size(); ++c) {
    try {
      (void)space->points_excluded_by(c, kMaxPoints);
    } catch (const ktune::EvalError&) {
    }
  }
  const uint64_t product = space->product();
  if (product > kMaxPoints || space->names().empty()) return;
  ktune::Enumeration found;
  try {
    found = space->enumerate();
  } catch (const ktune::EvalError&) {
    return;
  }
  KTUNE_FUZZ_CHECK(found.width == space->names().size());
  KTUNE_FUZZ_CHECK(!found.truncated);
  uint64_t rejected = 0;
  for (uint64_t r : found.rejected_by) rejected += r;
  KTUNE_FUZZ_CHECK(rejected + found.size() == product);
  // A capped enumeration stops at its limit and says so.
  if (found.size() > 1) {
    ktune::Enumeration first = space->enumerate(found.size() / 2);
    KTUNE_FUZZ_CHECK(first.truncated);
    KTUNE_FUZZ_CHECK(first.size() == found.size() / 2);
  }
  std::optional<std::vector<int64_t>> want = brute_force(*space);
  if (want) {
    std::vector<int64_t> rows;
    for (std::size_t i = 0; i < found.size(); ++i) {
      const auto row = found.row(i);
      rows.insert(rows.end(), row.begin(), row.end());
      // Each config is found again by its own positions: the compact index holds.
      KTUNE_FUZZ_CHECK(found.find(found.positions(i)) == std::optional<std::size_t>(i));
    }
    KTUNE_FUZZ_CHECK(*want == rows);
  }
}

void check_t1(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return;
  if (!ktune::is_t1_spec(doc)) return;
  ktune::SpaceSpec spec;
  try {
    spec = ktune::read_t1_spec(doc, "fuzz.T1.json");
  } catch (const ktune::Error& e) {
    KTUNE_FUZZ_CHECK(std::string_view(e.what()).starts_with("fuzz.T1.json: "));
    return;
  }
  // Values given as a JSON list, and defaults, are kept exactly as written.
  const nlohmann::json& params = doc["ConfigurationSpace"]["TuningParameters"];
  KTUNE_FUZZ_CHECK(params.size() == spec.parameters.size());
  KTUNE_FUZZ_CHECK(spec.default_config.empty() || spec.default_config.size() == params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!spec.default_config.empty())
      KTUNE_FUZZ_CHECK(params[i]["Default"].dump() == std::to_string(spec.default_config[i].second));
    const nlohmann::json& values = params[i]["Values"];
    if (!values.is_array()) continue;
    KTUNE_FUZZ_CHECK(values.size() == spec.parameters[i].values.size());
    for (std::size_t k = 0; k < values.size(); ++k)
      KTUNE_FUZZ_CHECK(values[k].dump() == std::to_string(spec.parameters[i].values[k]));
  }
  check_space(spec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  ktune::fuzz::on_small_stack([=] { check_t1(data, size); });
  return 0;
}

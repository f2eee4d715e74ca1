#include "ktune/build_plan.hpp"

#include <algorithm>

#include "ktune/config_id.hpp"
#include "ktune/parameter.hpp"
#include "ktune/text.hpp"

namespace ktune {
namespace {

Space build_space(const PlanRequest& r, std::vector<Parameter>& params) {
  if (r.params.empty())
    throw Error("PARAMS: no parameters; declare at least one, e.g. PARAMS \"TM=32,64,128\"");
  for (const auto& text : r.params) {
    try {
      params.push_back(parse_parameter(text));
    } catch (const Error& e) {
      throw Error(std::string("PARAMS: ") + e.what());
    }
  }
  for (std::size_t a = 0; a < params.size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      if (params[a].name == params[b].name)
        throw Error("PARAMS: parameter '" + params[a].name +
                    "' is declared twice; merge its values into one entry");
  try {
    return Space(params, r.constraints);
  } catch (const ParseError& e) {
    throw Error(std::string("WHERE: ") + e.what());
  }
}

}  // namespace

std::vector<std::string> hint_flags(const std::vector<Parameter>& params,
                                    const std::vector<int64_t>& values) {
  std::vector<std::string> flags;
  for (std::size_t k = 0; k < params.size(); ++k)
    if (params[k].name == "maxnreg" && values[k] > 0)
      flags.push_back("-maxrregcount=" + std::to_string(values[k]));
  return flags;
}

Plan make_plan(const PlanRequest& r) {
  Plan plan;
  Manifest& m = plan.manifest;
  m.kernel = r.kernel;
  m.source = r.source;
  m.entry = r.entry.empty() ? r.kernel : r.entry;
  if (!is_c_identifier(m.entry))
    throw Error("ENTRY: '" + m.entry + "' is not a C identifier; name the kernel's extern \"C\" function");
  m.compile = r.compile;
  m.spec.name = r.kernel;
  Space space = build_space(r, m.spec.parameters);
  m.spec.constraints = r.constraints;
  m.product = space.product();

  Enumeration valid;
  try {
    valid = space.enumerate(r.max_configs);
  } catch (const EvalError& e) {
    throw Error(std::string("WHERE: ") + e.what() + "; guard the division, e.g. \"B != 0 and A % B == 0\"");
  }
  plan.rejected_by = valid.rejected_by;
  if (valid.truncated)
    throw Error("MAX_CONFIGS: the space has more than " + with_thousands(r.max_configs) +
                " valid configs (of " + with_thousands(m.product) +
                " points), each a cubin to compile; tighten WHERE or PARAMS, or raise the "
                "limit with MAX_CONFIGS (per kernel) or -DKTUNE_MAX_CONFIGS=N");
  if (valid.size() == 0) {
    // Name the constraint that excludes the most on its own: the one to loosen first.
    std::string why;
    uint64_t most = 0;
    for (std::size_t c = 0; c < r.constraints.size(); ++c) {
      uint64_t excluded = space.points_excluded_by(c).value_or(plan.rejected_by[c]);
      if (why.empty() || excluded > most) {
        most = excluded;
        why = "; constraint " + std::to_string(c + 1) + " \"" + r.constraints[c] +
              "\" alone excludes " + with_thousands(excluded) + " of them";
      }
    }
    throw Error("WHERE: the space is empty: none of its " + with_thousands(m.product) +
                " points satisfies every constraint" + why +
                ". Loosen the constraints or widen the parameters.");
  }

  const auto& names = space.names();
  if (!r.default_text.empty()) {
    try {
      m.spec.default_config = parse_assignments(r.default_text);
      std::vector<int64_t> values = resolve_default(m.spec, space);
      m.default_id = config_id(names, values);
    } catch (const Error& e) {
      throw Error(std::string("DEFAULT \"") + r.default_text + "\": " + e.what());
    }
  } else {
    plan.default_chosen = true;
    auto first = valid.row(0);
    for (std::size_t k = 0; k < names.size(); ++k)
      m.spec.default_config.emplace_back(names[k], first[k]);
    m.default_id = config_id(names, first);
  }

  for (std::size_t i = 0; i < r.keys.size(); ++i) {
    std::vector<Assignment> key;
    try {
      key = parse_assignments(r.keys[i]);
    } catch (const Error& e) {
      throw Error("KEYS: key " + std::to_string(i + 1) + ": " + e.what());
    }
    if (key.empty()) throw Error("KEYS: key " + std::to_string(i + 1) + " is empty; write e.g. \"N=4096\"");
    for (const auto& [name, value] : key) check_parameter_name(name, "KEYS: key " + std::to_string(i + 1));
    // Compared sorted; stored in the order key 1 declares its dimensions (the order of
    // the generated Key struct's fields).
    auto sorted = [](std::vector<Assignment> k) {
      std::sort(k.begin(), k.end());
      return k;
    };
    auto same_names = [](const std::vector<Assignment>& a, const std::vector<Assignment>& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                        [](const Assignment& x, const Assignment& y) { return x.first == y.first; });
    };
    if (!m.keys.empty() && !same_names(sorted(key), sorted(m.keys[0])))
      throw Error("KEYS: key " + std::to_string(i + 1) + " \"" + r.keys[i] +
                  "\" names other dimensions than key 1 \"" + r.keys[0] +
                  "\"; every key gives a value for the same dimensions");
    for (const auto& earlier : m.keys)
      if (sorted(earlier) == sorted(key))
        throw Error("KEYS: key " + std::to_string(i + 1) + " \"" + r.keys[i] + "\" is listed twice");
    if (!m.keys.empty()) {
      std::vector<Assignment> ordered;
      for (const auto& [name, v] : m.keys[0])
        for (const auto& a : key)
          if (a.first == name) ordered.push_back(a);
      key = std::move(ordered);
    }
    m.keys.push_back(std::move(key));
  }

  m.configs.reserve(valid.size());
  for (std::size_t i = 0; i < valid.size(); ++i) {
    auto row = valid.row(i);
    m.configs.push_back({config_id(names, row), {row.begin(), row.end()}});
  }
  return plan;
}

std::string cmake_edges(const Manifest& m) {
  std::string out = "# Written by `ktune plan` for kernel " + m.kernel +
                    ": one cubin per valid config. Data only; the logic is _ktune_cubin() in "
                    "cmake/ktune.cmake.\n";
  out += "set(_ktune_default_id " + m.default_id + ")\n";
  const auto& params = m.spec.parameters;
  for (const auto& c : m.configs) {
    out += "_ktune_cubin(" + m.kernel + " " + c.id + " \"";
    for (std::size_t k = 0; k < params.size(); ++k)
      out += (k ? ";" : "") + std::string("-D") + params[k].name + "=" + std::to_string(c.values[k]);
    for (const auto& flag : hint_flags(params, c.values)) out += ";" + flag;
    out += "\")\n";
  }
  return out;
}

}  // namespace ktune

#include "ktune/t1_spec.hpp"

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "ktune/parameter.hpp"
#include "ktune/python_list.hpp"
#include "ktune/text.hpp"

namespace ktune {
namespace {

using nlohmann::json;

const json& member(const json& obj, const char* key, std::string_view where, std::string_view origin) {
  if (!obj.is_object() || !obj.contains(key))
    throw Error(std::string(origin) + ": " + std::string(where) + " has no \"" + key + "\"");
  return obj.at(key);
}

std::string text_of(const json& v, std::string_view where, std::string_view origin) {
  if (!v.is_string()) throw Error(std::string(origin) + ": " + std::string(where) + " must be a string");
  return v.get<std::string>();
}

// A JSON integer as int64; nullopt for anything else, including unsigned values above
// INT64_MAX, which get<int64_t>() would silently wrap to negatives.
std::optional<int64_t> int64_of(const json& v) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) return std::nullopt;
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<int64_t>();
}

}  // namespace

bool is_t1_spec(const json& doc) { return doc.is_object() && doc.contains("ConfigurationSpace"); }

SpaceSpec read_t1_spec(const json& doc, std::string_view origin) {
  SpaceSpec spec;
  if (doc.contains("General") && doc["General"].is_object() && doc["General"].contains("BenchmarkName") &&
      doc["General"]["BenchmarkName"].is_string())
    spec.name = doc["General"]["BenchmarkName"].get<std::string>();

  const json& space = member(doc, "ConfigurationSpace", "the document", origin);
  const json& params = member(space, "TuningParameters", "ConfigurationSpace", origin);
  if (!params.is_array()) throw Error(std::string(origin) + ": ConfigurationSpace.TuningParameters must be a list");
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::string where = "TuningParameters[" + std::to_string(i) + "]";
    const json& p = params[i];
    Parameter parameter;
    parameter.name = text_of(member(p, "Name", where, origin), where + ".Name", origin);
    where += " (" + parameter.name + ")";
    if (p.contains("Type") && p["Type"] != "int")
      throw Error(std::string(origin) + ": " + where + " has Type " + json_excerpt(p["Type"]) +
                  "; ktune parameters are integers (Type \"int\")");
    const json& values = member(p, "Values", where, origin);
    try {
      if (values.is_string()) {
        parameter.values = evaluate_python_list(values.get<std::string>());
      } else if (values.is_array()) {
        for (const auto& v : values) {
          std::optional<int64_t> value = int64_of(v);
          if (!value) throw Error("value " + json_excerpt(v) + " is not a 64-bit signed integer");
          parameter.values.push_back(*value);
        }
      } else {
        throw Error("Values must be a Python list expression (string) or a JSON list");
      }
    } catch (const Error& e) {
      throw Error(std::string(origin) + ": " + where + ".Values: " + e.what());
    }
    check_distinct_values(parameter.values, std::string(origin) + ": " + where + ".Values");
    if (p.contains("Default")) {
      // Real specs write `"Default": [0]`: a one-element list is read as its element.
      const json& given = p["Default"].is_array() && p["Default"].size() == 1 ? p["Default"][0] : p["Default"];
      if (std::optional<int64_t> value = int64_of(given))
        spec.default_config.emplace_back(parameter.name, *value);
      else if (spec.default_problem.empty())
        spec.default_problem = where + ".Default " + json_excerpt(p["Default"]) + " is not an integer";
    }
    spec.parameters.push_back(std::move(parameter));
  }
  if (spec.default_problem.empty() && !spec.default_config.empty() &&
      spec.default_config.size() != spec.parameters.size())
    spec.default_problem = "a Default is given for " + std::to_string(spec.default_config.size()) + " of the " +
                           std::to_string(spec.parameters.size()) + " parameters";
  if (!spec.default_problem.empty()) spec.default_config.clear();

  if (space.contains("Conditions")) {
    const json& conditions = space["Conditions"];
    if (!conditions.is_array()) throw Error(std::string(origin) + ": ConfigurationSpace.Conditions must be a list");
    for (std::size_t i = 0; i < conditions.size(); ++i) {
      std::string where = "Conditions[" + std::to_string(i) + "]";
      spec.constraints.push_back(
          text_of(member(conditions[i], "Expression", where, origin), where + ".Expression", origin));
    }
  }
  return spec;
}

}  // namespace ktune

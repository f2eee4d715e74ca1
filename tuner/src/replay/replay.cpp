#include "ktune/replay.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "base/untrusted_json.hpp"
#include "ktune/error.hpp"
#include "ktune/text.hpp"
#include "replay/compressed_file.hpp"

namespace ktune {
namespace {
namespace kt_cache {

using nlohmann::json;

// Names from a hostile file can be megabytes long; messages stay one short line.
std::string cache_name(const std::string& s) { return untrusted_json::quoted(s); }

// ktune spaces are integer-valued. Kernel Tuner's may hold any Python value: integral
// numbers (1 or 1.0) and booleans (as 0/1) map exactly; anything else is refused.
bool integral_value(const json& v, int64_t& out) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) return false;
    out = v.get<int64_t>();
    return true;
  }
  if (v.is_boolean()) {
    out = v.get<bool>() ? 1 : 0;
    return true;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15) return false;
    out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

// Kernel Tuner's failure markers (kernel_tuner/util.py, ErrorConfig subclasses), stored
// as the entry's "time". Runtime failures become launch-failed: Kernel Tuner catches the
// error of the launch or of the run and goes on with the next config, so its context
// survived (it records no crash). Invalid configs are those Kernel Tuner refuses as too
// large for the device (threads, shared memory, registers) without a launch: resource.
bool failure_status(const std::string& marker, Status& out) {
  if (marker == "RuntimeFailedConfig")
    out = Status::LaunchFailed;
  else if (marker == "CompilationFailedConfig")
    out = Status::CompileFailed;
  else if (marker == "InvalidConfig")
    out = Status::Resource;
  else
    return false;
  return true;
}

const json& member(const json& doc, const char* name, const std::string& origin) {
  auto it = doc.find(name);
  if (it == doc.end()) throw Error(origin + ": \"" + name + "\" is missing; is this a Kernel Tuner cache file?");
  return *it;
}

// Caches before schemas carry no version; a later major version may mean anything.
void check_schema(const json& doc, const std::string& origin) {
  if (!doc.is_object()) throw Error(origin + ": not a JSON object; expected a Kernel Tuner cache file");
  if (auto v = doc.find("schema_version"); v != doc.end()) {
    if (!v->is_string())
      throw Error(origin + ": \"schema_version\" must be a string like \"1.1.0\", not " + json_excerpt(*v));
    if (v->get<std::string>().rfind("1.", 0) != 0)
      throw Error(origin + ": \"schema_version\" " + cache_name(v->get<std::string>()) +
                  " is not a Kernel Tuner cache schema 1.x.y, which ktune reads");
  }
}

// The parameters in tune_params_keys' order, and each value's position in its list.
struct CacheParameters {
  std::vector<Parameter> parameters;
  std::vector<std::map<int64_t, uint32_t>> position_of;
};

CacheParameters parameters_of(const json& keys, const json& params, const std::string& origin) {
  CacheParameters out;
  for (const json& k : keys) {
    if (!k.is_string()) throw Error(origin + ": \"tune_params_keys\" holds a non-string");
    const std::string name = k.get<std::string>();
    const std::string where = origin + ": tune_params." + cache_name(name);
    auto values = params.find(name);
    if (values == params.end()) throw Error(where + " is missing (it is listed in tune_params_keys)");
    if (!values->is_array() || values->empty()) throw Error(where + " must be a non-empty list of values");
    Parameter p{name, {}};
    std::map<int64_t, uint32_t> positions;
    for (const json& v : *values) {
      int64_t x = 0;
      if (!integral_value(v, x))
        throw Error(where + " has the value " + v.dump().substr(0, 40) +
                    ": ktune spaces are integer-valued, so this space cannot be replayed");
      if (!positions.emplace(x, static_cast<uint32_t>(p.values.size())).second)
        throw Error(where + " lists the value " + std::to_string(x) + " twice");
      p.values.push_back(x);
    }
    out.parameters.push_back(std::move(p));
    out.position_of.push_back(std::move(positions));
  }
  return out;
}

// An entry's "time": milliseconds, or one of Kernel Tuner's failure markers.
RecordedOutcome outcome_of(const json& entry, const std::string& where) {
  auto time = entry.find("time");
  if (time == entry.end()) throw Error(where + " has no \"time\"");
  if (time->is_number()) {
    const double t = time->get<double>();
    if (!std::isfinite(t) || t < 0) throw Error(where + ".\"time\" = " + time->dump() + " is not a time in ms");
    return {Status::Ok, t};
  }
  if (time->is_string()) {
    Status s = Status::Ok;
    if (!failure_status(time->get<std::string>(), s))
      throw Error(where + ".\"time\" = " + cache_name(time->get<std::string>()) +
                  " is neither a time nor a known failure (RuntimeFailedConfig, "
                  "CompilationFailedConfig, InvalidConfig)");
    return {s, 0};
  }
  throw Error(where + ".\"time\" must be a number (ms) or a failure name, not " + std::string(time->type_name()));
}

// One cache entry: its value positions (the sort key) and its outcome.
struct Row {
  std::vector<uint32_t> positions;
  RecordedOutcome outcome;
  std::string key;
};

Row row_of(const std::string& key, const json& entry, const CacheParameters& cp, const std::string& origin) {
  const std::string where = origin + ": cache." + cache_name(key);
  if (!entry.is_object()) throw Error(where + " must be an object");
  const std::size_t width = cp.parameters.size();
  Row row{std::vector<uint32_t>(width), {}, key};
  for (std::size_t k = 0; k < width; ++k) {
    const std::string& name = cp.parameters[k].name;
    auto v = entry.find(name);
    if (v == entry.end()) throw Error(where + " has no value for parameter " + cache_name(name));
    int64_t x = 0;
    auto pos = integral_value(*v, x) ? cp.position_of[k].find(x) : cp.position_of[k].end();
    if (pos == cp.position_of[k].end())
      throw Error(where + "." + cache_name(name) + " = " + v->dump().substr(0, 40) +
                  " is not among the values in tune_params");
    row.positions[k] = pos->second;
  }
  row.outcome = outcome_of(entry, where);
  return row;
}

}  // namespace kt_cache
}  // namespace

ReplaySpace::ReplaySpace(SearchSpace space, std::vector<RecordedOutcome> outcomes, std::string device,
                         std::string kernel, std::string origin)
    : space_(std::move(space)),
      outcomes_(std::move(outcomes)),
      device_(std::move(device)),
      kernel_(std::move(kernel)),
      origin_(std::move(origin)) {
  if (outcomes_.size() != space_.size())
    throw Error(origin_ + ": " + std::to_string(outcomes_.size()) + " outcomes for " + std::to_string(space_.size()) +
                " configs");
  for (const RecordedOutcome& o : outcomes_)
    if (o.status == Status::Ok && (!std::isfinite(o.time_ms) || o.time_ms < 0))
      throw Error(origin_ + ": a recorded time is negative or not finite");
}

ReplaySpace ReplaySpace::from_cache_file(const std::filesystem::path& path) {
  nlohmann::json doc;
  if (const std::string why = untrusted_json::parse(read_maybe_gzip(path), doc); !why.empty())
    throw Error(path.string() + ": not JSON (" + why + "); expected a Kernel Tuner cache file (.json or .json.gz)");
  return from_cache(doc, path.string());
}

ReplaySpace ReplaySpace::from_cache(const nlohmann::json& doc, const std::string& origin) {
  using kt_cache::cache_name;
  using nlohmann::json;
  kt_cache::check_schema(doc, origin);
  const json& keys = kt_cache::member(doc, "tune_params_keys", origin);
  const json& params = kt_cache::member(doc, "tune_params", origin);
  const json& cache = kt_cache::member(doc, "cache", origin);
  if (!keys.is_array() || keys.empty())
    throw Error(origin + ": \"tune_params_keys\" must be a non-empty list of names");
  if (!params.is_object()) throw Error(origin + ": \"tune_params\" must be an object");
  if (!cache.is_object()) throw Error(origin + ": \"cache\" must be an object of entries");
  if (cache.empty()) throw Error(origin + ": \"cache\" has no entries: nothing to replay");

  kt_cache::CacheParameters cp = kt_cache::parameters_of(keys, params, origin);
  const std::size_t width = cp.parameters.size();
  std::vector<kt_cache::Row> rows;
  rows.reserve(cache.size());
  for (const auto& [key, entry] : cache.items()) rows.push_back(kt_cache::row_of(key, entry, cp, origin));
  // Kernel Tuner enumerates itertools.product over tune_params_keys: ordering the entries
  // by positions gives that order, whatever order the file lists them in.
  std::sort(rows.begin(), rows.end(),
            [](const kt_cache::Row& a, const kt_cache::Row& b) { return a.positions < b.positions; });
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].positions == rows[i - 1].positions)
      throw Error(origin + ": cache." + cache_name(rows[i - 1].key) + " and cache." + cache_name(rows[i].key) +
                  " are the same config");

  std::vector<int64_t> values(rows.size() * width);
  std::vector<RecordedOutcome> outcomes(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t k = 0; k < width; ++k) values[i * width + k] = cp.parameters[k].values[rows[i].positions[k]];
    outcomes[i] = rows[i].outcome;
  }
  auto text = [&](const char* name) {
    auto it = doc.find(name);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  return ReplaySpace(SearchSpace(std::move(cp.parameters), values), std::move(outcomes), text("device_name"),
                     text("kernel_name"), origin);
}

std::pair<std::size_t, double> ReplaySpace::best() const {
  std::size_t best = outcomes_.size();
  for (std::size_t i = 0; i < outcomes_.size(); ++i)
    if (outcomes_[i].status == Status::Ok &&
        (best == outcomes_.size() || outcomes_[i].time_ms < outcomes_[best].time_ms))
      best = i;
  if (best == outcomes_.size()) throw Error(origin_ + ": no config of the recording was timed");
  return {best, outcomes_[best].time_ms};
}

std::size_t ReplaySpace::timed() const {
  return std::count_if(outcomes_.begin(), outcomes_.end(),
                       [](const RecordedOutcome& o) { return o.status == Status::Ok; });
}

nlohmann::ordered_json ReplaySpace::config(std::size_t index) const {
  if (index >= size())
    throw Error(origin_ + ": config " + std::to_string(index) + " is out of range (" + std::to_string(size()) +
                " configs)");
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < space_.width(); ++k) out[space_.parameters()[k].name] = space_.value(index, k);
  return out;
}

}  // namespace ktune

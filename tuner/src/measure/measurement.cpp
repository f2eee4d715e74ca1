#include "ktune/measurement.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/text.hpp"

namespace ktune {

using nlohmann::json;

namespace {

constexpr std::array<std::pair<Status, const char*>, 7> kStatusNames = {{
    {Status::Ok, "ok"},
    {Status::CompileFailed, "compile-failed"},
    {Status::Resource, "resource"},
    {Status::LaunchFailed, "launch-failed"},
    {Status::Crashed, "crashed"},
    {Status::TimedOut, "timed-out"},
    {Status::WrongResult, "wrong-result"},
}};

[[noreturn]] void bad(const std::string& field, const std::string& what, const json& value) {
  throw Error("measurement: \"" + field + "\" " + what + ", got " + json_excerpt(value));
}

// Timings and errors: finite and never negative. JSON cannot hold NaN or infinity, so a
// number here is finite unless a caller built the json by hand.
double non_negative(const json& j, const std::string& field) {
  if (!j.is_number()) bad(field, "must be a number", j);
  double v = j.get<double>();
  if (!std::isfinite(v) || v < 0) bad(field, "must be a non-negative number", j);
  return v;
}

// Range-checked: json's own get<int>() casts an out-of-range number silently.
int small_count(const json& j, const std::string& field) {
  if (j.is_number_unsigned()) {
    if (j.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int>::max()))
      return static_cast<int>(j.get<uint64_t>());
  } else if (j.is_number_integer()) {
    int64_t v = j.get<int64_t>();
    if (v >= 0 && v <= std::numeric_limits<int>::max()) return static_cast<int>(v);
  } else {
    bad(field, "must be an integer", j);
  }
  bad(field, "must be an integer from 0 to 2147483647", j);
}

const json* member(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

}  // namespace

const char* to_string(Status s) {
  for (const auto& [status, name] : kStatusNames)
    if (status == s) return name;
  return "unknown";
}

Status status_from_string(const std::string& s) {
  for (const auto& [status, name] : kStatusNames)
    if (s == name) return status;
  std::string names;
  for (const auto& entry : kStatusNames) names += (names.empty() ? "" : ", ") + std::string(entry.second);
  throw Error("measurement: unknown status \"" + s + "\"; expected one of " + names);
}

json Measurement::to_json() const {
  json doc = {{"status", to_string(status)},
              {"samples_ms", samples_ms},
              {"median_ms", median_ms},
              {"abandoned", abandoned},
              {"resources",
               {{"registers", resources.registers},
                {"static_shared_bytes", resources.static_shared_bytes},
                {"local_bytes", resources.local_bytes},
                {"max_threads_per_block", resources.max_threads_per_block}}},
              {"message", message},
              {"seconds", seconds}};
  if (at > 0) doc["at"] = at;  // older DBs have none
  // An output full of NaN has no finite error; null (what JSON can say) reads back as inf.
  doc["max_error"] = std::isfinite(max_error) ? json(max_error) : json(nullptr);
  return doc;
}

// "status" is required; every other field may be absent (its default), but never of the
// wrong type or out of range.
Measurement Measurement::from_json(const json& j) {
  if (!j.is_object()) throw Error("measurement: must be an object, got " + json_excerpt(j));
  Measurement m;
  const json* status = member(j, "status");
  if (!status) throw Error("measurement: \"status\" is missing");
  if (!status->is_string()) bad("status", "must be a string", *status);
  m.status = status_from_string(status->get<std::string>());

  if (const json* samples = member(j, "samples_ms")) {
    if (!samples->is_array()) bad("samples_ms", "must be a list of numbers", *samples);
    m.samples_ms.reserve(samples->size());
    for (std::size_t i = 0; i < samples->size(); ++i)
      m.samples_ms.push_back(non_negative((*samples)[i], "samples_ms[" + std::to_string(i) + "]"));
  }
  if (const json* v = member(j, "median_ms")) m.median_ms = non_negative(*v, "median_ms");
  if (const json* v = member(j, "abandoned")) {
    if (!v->is_boolean()) bad("abandoned", "must be true or false", *v);
    m.abandoned = v->get<bool>();
  }
  if (const json* v = member(j, "max_error"))
    m.max_error = v->is_null() ? std::numeric_limits<double>::infinity() : non_negative(*v, "max_error");
  if (const json* r = member(j, "resources")) {
    if (!r->is_object()) bad("resources", "must be an object", *r);
    const std::pair<const char*, int*> fields[] = {{"registers", &m.resources.registers},
                                                   {"static_shared_bytes", &m.resources.static_shared_bytes},
                                                   {"local_bytes", &m.resources.local_bytes},
                                                   {"max_threads_per_block", &m.resources.max_threads_per_block}};
    for (const auto& [name, out] : fields)
      if (const json* v = member(*r, name)) *out = small_count(*v, std::string("resources.") + name);
  }
  if (const json* v = member(j, "message")) {
    if (!v->is_string()) bad("message", "must be a string", *v);
    m.message = v->get<std::string>();
  }
  if (const json* v = member(j, "seconds")) m.seconds = non_negative(*v, "seconds");
  if (const json* v = member(j, "at")) m.at = non_negative(*v, "at");
  return m;
}

}  // namespace ktune

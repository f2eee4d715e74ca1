// Export of ktune measurements as a Kernel Tuner cache or T4 results, and import of T4
// results (ktune/interop.hpp). Written from the public schemas cache/1.1.0 and T4/1.0.0
// of the KernelTuner/kernel_tuner repository.
#include "ktune/interop.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <numeric>
#include <set>

#include "base/untrusted_json.hpp"
#include "ktune/config_id.hpp"
#include "ktune/error.hpp"
#include "ktune/key.hpp"
#include "replay/compressed_file.hpp"

namespace ktune {
namespace {
namespace interop_detail {

using nlohmann::json;
using nlohmann::ordered_json;

// Names from a hostile file can be megabytes long; messages stay one short line.
std::string iop_shown(const std::string& s) { return untrusted_json::quoted(s); }

template <class J>
std::string iop_excerpt(const J& v) {
  const std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// Integers, integral floats and booleans (0/1) map exactly; nothing else does.
template <class J>
bool iop_integral(const J& v, int64_t& out) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.template get<uint64_t>() > uint64_t(INT64_MAX)) return false;
    out = v.template get<int64_t>();
    return true;
  }
  if (v.is_boolean()) {
    out = v.template get<bool>() ? 1 : 0;
    return true;
  }
  if (v.is_number_float()) {
    const double d = v.template get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15) return false;
    out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

double iop_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string iop_join_values(const std::vector<int64_t>& values) {
  std::string out;
  for (int64_t v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

// One result of a T4 file, checked.
struct T4Row {
  std::vector<std::string> names;  // the configuration's, in the file's order
  std::vector<int64_t> values;
  Status status = Status::Ok;
  std::string invalidity;
  double time_ms = 0;
  std::vector<double> samples;
};

// A time in `unit` to ms; false for a unit ktune does not know.
bool iop_to_ms(const std::string& unit, double& v) {
  if (unit == "ms") return true;
  if (unit == "s")
    v *= 1e3;
  else if (unit == "us" || unit == "µs")
    v *= 1e-3;
  else if (unit == "ns")
    v *= 1e-6;
  else
    return false;
  return true;
}

double iop_time_value(const ordered_json& v, const std::string& where) {
  if (!v.is_number())
    throw Error(where + " must be a number, not " + std::string(v.type_name()) + " " + iop_excerpt(v));
  const double t = v.get<double>();
  if (!std::isfinite(t) || t < 0) throw Error(where + " = " + iop_excerpt(v) + " is not a time");
  return t;
}

const ordered_json& iop_required(const ordered_json& obj, const char* name, const std::string& where) {
  auto it = obj.find(name);
  if (it == obj.end()) throw Error(where + ": \"" + name + "\" is missing (the T4 results schema requires it)");
  return *it;
}

// The file's frame: an object of a 1.x schema with a non-empty "results" list, returned.
const ordered_json& t4_results(const ordered_json& doc, const std::string& origin) {
  if (!doc.is_object())
    throw Error(origin +
                ": not a JSON object; expected T4 results ({\"schema_version\", "
                "\"results\": [...]})");
  if (auto v = doc.find("schema_version"); v != doc.end()) {
    if (!v->is_string())
      throw Error(origin + ": \"schema_version\" must be a string like \"1.0.0\", not " + iop_excerpt(*v));
    const std::string s = v->get<std::string>();
    if (s.rfind("1.", 0) != 0)
      throw Error(origin + ": \"schema_version\" " + iop_shown(s) +
                  " is not a T4 results schema 1.x.y, which ktune reads");
  }
  auto results = doc.find("results");
  if (results == doc.end()) throw Error(origin + ": \"results\" is missing; is this a T4 results file?");
  if (!results->is_array()) throw Error(origin + ": \"results\" must be a list of results");
  if (results->empty()) throw Error(origin + ": \"results\" is empty: nothing to import");
  return *results;
}

// The "time" measurement of a result that ran: a number, or a list of samples; in its unit
// (ms if none). False when the result has none.
bool read_t4_time(const ordered_json& r, const std::string& where, T4Row& row) {
  bool have_time = false;
  if (auto ms = r.find("measurements"); ms != r.end()) {
    if (!ms->is_array()) throw Error(where + ".measurements must be a list");
    for (std::size_t k = 0; k < ms->size(); ++k) {
      const ordered_json& m = (*ms)[k];
      const std::string mw = where + ".measurements[" + std::to_string(k) + "]";
      if (!m.is_object()) throw Error(mw + " must be an object");
      auto name = m.find("name");
      if (name == m.end()) throw Error(mw + ": \"name\" is missing");
      if (!name->is_string()) throw Error(mw + ".name must be a string");
      if (name->get<std::string>() != "time" || row.status != Status::Ok) continue;
      std::string unit = "ms";
      if (auto u = m.find("unit"); u != m.end()) {
        if (!u->is_string()) throw Error(mw + ".unit must be a string");
        unit = u->get<std::string>();
      }
      auto value = m.find("value");
      if (value == m.end()) throw Error(mw + ": \"value\" is missing");
      std::vector<double> vs;
      if (value->is_array()) {
        for (std::size_t j = 0; j < value->size(); ++j)
          vs.push_back(iop_time_value((*value)[j], mw + ".value[" + std::to_string(j) + "]"));
        if (vs.empty()) throw Error(mw + ".value is an empty list");
      } else {
        vs.push_back(iop_time_value(*value, mw + ".value"));
      }
      for (double& v : vs)
        if (!iop_to_ms(unit, v)) throw Error(mw + ".unit " + iop_shown(unit) + " is not a time unit (ms, s, us, ns)");
      row.time_ms = value->is_array() ? iop_median(vs) : vs[0];
      if (value->is_array() && row.samples.empty()) row.samples = vs;
      have_time = true;
    }
  }
  return have_time;
}

// One result, checked: its configuration, status, samples and time.
T4Row parse_t4_row(const ordered_json& r, const std::string& where) {
  if (!r.is_object()) throw Error(where + " must be an object");
  T4Row row;

  const ordered_json& config = iop_required(r, "configuration", where);
  if (!config.is_object() || config.empty())
    throw Error(where + ".configuration must be a non-empty object of parameter values");
  for (const auto& [name, v] : config.items()) {
    int64_t x = 0;
    if (!iop_integral(v, x))
      throw Error(where + ".configuration." + iop_shown(name) + " = " + iop_excerpt(v) +
                  " is not an integer: ktune spaces are integer-valued");
    row.names.push_back(name);
    row.values.push_back(x);
  }

  const ordered_json& inv = iop_required(r, "invalidity", where);
  if (!inv.is_string()) throw Error(where + ".invalidity must be a string, not " + iop_excerpt(inv));
  row.invalidity = inv.get<std::string>();
  try {
    row.status = status_from_t4_invalidity(row.invalidity);
  } catch (const Error& e) {
    throw Error(where + ".invalidity: " + e.what());
  }

  const ordered_json& correctness = iop_required(r, "correctness", where);
  if (!correctness.is_number()) throw Error(where + ".correctness must be a number, not " + iop_excerpt(correctness));

  const ordered_json& times = iop_required(r, "times", where);
  if (!times.is_object()) throw Error(where + ".times must be an object");
  for (const char* f : {"compilation_time", "framework", "search_algorithm", "validation"})
    if (auto v = times.find(f); v != times.end() && !v->is_number())
      throw Error(where + ".times." + f + " must be a number, not " + iop_excerpt(*v));
  if (auto rt = times.find("runtimes"); rt != times.end()) {
    if (!rt->is_array()) throw Error(where + ".times.runtimes must be a list of numbers");
    for (std::size_t k = 0; k < rt->size(); ++k)
      row.samples.push_back(iop_time_value((*rt)[k], where + ".times.runtimes[" + std::to_string(k) + "]"));
  }
  if (auto v = r.find("timestamp"); v != r.end() && !v->is_string())
    throw Error(where + ".timestamp must be a string, not " + iop_excerpt(*v));
  if (auto v = r.find("objectives"); v != r.end() && !v->is_array())
    throw Error(where + ".objectives must be a list, not " + iop_excerpt(*v));

  const bool have_time = read_t4_time(r, where, row);
  if (row.status == Status::Ok && !have_time) {
    if (row.samples.empty())
      throw Error(where +
                  " is \"correct\" but has neither a \"time\" measurement nor "
                  "times.runtimes: no time to import");
    row.time_ms = iop_median(row.samples);
  }
  if (row.status != Status::Ok) {
    row.time_ms = 0;
    row.samples.clear();
  }
  return row;
}

// One set of parameters for all results, each configuration once; every row's values are
// put in results[0]'s parameter order.
void check_t4_rows(std::vector<T4Row>& rows, const std::string& origin) {
  const std::set<std::string> names(rows[0].names.begin(), rows[0].names.end());
  std::set<std::vector<int64_t>> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    T4Row& row = rows[i];
    const std::string where = origin + ": results[" + std::to_string(i) + "]";
    if (std::set<std::string>(row.names.begin(), row.names.end()) != names)
      throw Error(where +
                  ".configuration has other parameters than results[0] (were two "
                  "kernels' results mixed?)");
    // Reorder to results[0]'s parameter order.
    if (row.names != rows[0].names) {
      std::vector<int64_t> values;
      for (const std::string& n : rows[0].names)
        values.push_back(row.values[std::find(row.names.begin(), row.names.end(), n) - row.names.begin()]);
      row.values = std::move(values);
      row.names = rows[0].names;
    }
    if (!seen.insert(row.values).second)
      throw Error(where + ".configuration " + iop_shown(iop_join_values(row.values)) +
                  " was already given by an earlier result");
  }
}

std::vector<T4Row> iop_parse_t4(const ordered_json& doc, const std::string& origin) {
  const ordered_json& results = t4_results(doc, origin);
  std::vector<T4Row> rows;
  rows.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i)
    rows.push_back(parse_t4_row(results[i], origin + ": results[" + std::to_string(i) + "]"));
  check_t4_rows(rows, origin);
  return rows;
}

}  // namespace interop_detail
}  // namespace

const char* kernel_tuner_failure(Status s) {
  switch (s) {
    case Status::Ok:
      return nullptr;
    case Status::CompileFailed:
      return "CompilationFailedConfig";
    case Status::Resource:
      return "InvalidConfig";
    default:
      return "RuntimeFailedConfig";
  }
}

const char* t4_invalidity(Status s) {
  switch (s) {
    case Status::Ok:
      return "correct";
    case Status::CompileFailed:
      return "compile";
    case Status::Resource:
      return "constraints";
    case Status::TimedOut:
      return "timeout";
    case Status::WrongResult:
      return "correctness";
    default:
      return "runtime";  // launch-failed, crashed
  }
}

Status status_from_t4_invalidity(const std::string& invalidity) {
  if (invalidity == "correct") return Status::Ok;
  if (invalidity == "compile") return Status::CompileFailed;
  if (invalidity == "constraints") return Status::Resource;
  if (invalidity == "timeout") return Status::TimedOut;
  if (invalidity == "correctness") return Status::WrongResult;
  if (invalidity == "runtime") return Status::LaunchFailed;
  throw Error(interop_detail::iop_shown(invalidity) +
              " is not a T4 invalidity (timeout, compile, runtime, correctness, constraints, "
              "correct)");
}

std::string utc_timestamp_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

InteropData interop_from_db(const DbTables& db, const std::string& key, const std::string& origin) {
  using interop_detail::iop_shown;
  const std::string wanted = db.wanted_key(key, origin);
  const DbTable& chosen = *db.fullest(wanted);  // the rule of ReplaySpace::from_db
  const std::vector<DbEntry>& entries = chosen.keys.at(wanted);

  InteropData out;
  out.kernel = db.kernel;
  out.device = chosen.fingerprint.gpu.name;
  out.key = wanted;
  try {
    out.key_values = parse_key(wanted, KeyText::Written);
  } catch (const Error&) {
    out.key_values.clear();  // not name=value: exported as the key text
  }

  std::map<std::string, std::set<int64_t>> values_of;
  for (const DbEntry& e : entries)
    for (const auto& [name, v] : e.values.items()) values_of[name];
  for (const auto& [name, set] : values_of) out.parameters.push_back(name);
  if (out.parameters.empty()) throw Error(origin + ": the configs of key " + iop_shown(wanted) + " have no values");

  for (const DbEntry& entry : entries) {
    const std::string where = origin + ": key " + iop_shown(wanted) + ", config " + iop_shown(entry.config_id);
    InteropEntry e;
    for (const std::string& name : out.parameters) {
      auto v = entry.values.find(name);
      if (v == entry.values.end())
        throw Error(where + " has no value for " + iop_shown(name) + " (the entries disagree on the parameters)");
      int64_t x = 0;
      if (!interop_detail::iop_integral(*v, x))
        throw Error(where + ", values." + iop_shown(name) + " = " + interop_detail::iop_excerpt(*v) +
                    " is not an integer");
      e.values.push_back(x);
      values_of[name].insert(x);
    }
    e.measurement = entry.measurement;
    out.entries.push_back(std::move(e));
  }
  std::sort(out.entries.begin(), out.entries.end(),
            [](const InteropEntry& a, const InteropEntry& b) { return a.values < b.values; });
  for (std::size_t i = 1; i < out.entries.size(); ++i)
    if (out.entries[i].values == out.entries[i - 1].values)
      throw Error(origin + ": key " + iop_shown(wanted) +
                  " holds two entries with the same values under different config ids");
  for (const std::string& name : out.parameters)
    out.parameter_values.emplace_back(values_of[name].begin(), values_of[name].end());
  return out;
}

InteropData interop_from_replay(const ReplaySpace& space) {
  InteropData out;
  out.kernel = space.kernel();
  out.device = space.device();
  const SearchSpace& s = space.space();
  for (const Parameter& p : s.parameters()) {
    out.parameters.push_back(p.name);
    std::vector<int64_t> values = p.values;
    std::sort(values.begin(), values.end());
    out.parameter_values.push_back(std::move(values));
  }
  for (std::size_t i = 0; i < space.size(); ++i) {
    InteropEntry e;
    for (std::size_t k = 0; k < s.width(); ++k) e.values.push_back(s.value(i, k));
    const RecordedOutcome& o = space.outcome(i);
    e.measurement.status = o.status;
    e.measurement.median_ms = o.status == Status::Ok ? o.time_ms : 0;
    if (o.status != Status::Ok) e.measurement.message = "replayed failure";
    out.entries.push_back(std::move(e));
  }
  std::sort(out.entries.begin(), out.entries.end(),
            [](const InteropEntry& a, const InteropEntry& b) { return a.values < b.values; });
  return out;
}

nlohmann::ordered_json to_kernel_tuner_cache(const InteropData& data, const std::string& timestamp) {
  using nlohmann::ordered_json;
  const std::string ts = timestamp.empty() ? utc_timestamp_now() : timestamp;
  ordered_json problem_size = ordered_json::array();
  if (!data.key_values.empty())
    for (const auto& [name, v] : data.key_values) problem_size.push_back(v);
  else if (!data.key.empty())
    problem_size = data.key;
  ordered_json params = ordered_json::object();
  for (std::size_t k = 0; k < data.parameters.size(); ++k) params[data.parameters[k]] = data.parameter_values.at(k);

  ordered_json cache = ordered_json::object();
  for (const InteropEntry& e : data.entries) {
    ordered_json entry = ordered_json::object();
    for (std::size_t k = 0; k < data.parameters.size(); ++k) entry[data.parameters[k]] = e.values.at(k);
    const Measurement& m = e.measurement;
    if (const char* failure = kernel_tuner_failure(m.status))
      entry["time"] = failure;
    else
      entry["time"] = m.median_ms;
    if (m.status == Status::Ok) entry["times"] = m.samples_ms;
    entry["compile_time"] = 0;
    entry["verification_time"] = 0;
    entry["benchmark_time"] = std::accumulate(m.samples_ms.begin(), m.samples_ms.end(), 0.0);
    entry["strategy_time"] = 0;
    entry["framework_time"] = 0;
    entry["timestamp"] = ts;
    cache[interop_detail::iop_join_values(e.values)] = std::move(entry);
  }
  return ordered_json{{"schema_version", "1.1.0"},
                      {"device_name", data.device},
                      {"kernel_name", data.kernel},
                      {"problem_size", problem_size},
                      {"tune_params_keys", data.parameters},
                      {"tune_params", params},
                      {"objective", "time"},
                      {"cache", cache}};
}

nlohmann::ordered_json to_t4_results(const InteropData& data, const std::string& timestamp) {
  using nlohmann::ordered_json;
  const std::string ts = timestamp.empty() ? utc_timestamp_now() : timestamp;
  ordered_json results = ordered_json::array();
  for (const InteropEntry& e : data.entries) {
    const Measurement& m = e.measurement;
    ordered_json config = ordered_json::object();
    for (std::size_t k = 0; k < data.parameters.size(); ++k) config[data.parameters[k]] = e.values.at(k);
    ordered_json measurements = ordered_json::array();
    if (m.status == Status::Ok) measurements.push_back({{"name", "time"}, {"value", m.median_ms}, {"unit", "ms"}});
    ordered_json times = ordered_json::object();
    times["runtimes"] = m.status == Status::Ok ? m.samples_ms : std::vector<double>();
    results.push_back({{"timestamp", ts},
                       {"configuration", config},
                       {"times", times},
                       {"invalidity", t4_invalidity(m.status)},
                       {"correctness", m.status == Status::Ok ? 1 : 0},
                       {"measurements", measurements},
                       {"objectives", ordered_json::array({"time"})}});
  }
  return ordered_json{{"schema_version", "1.0.0"}, {"results", results}};
}

nlohmann::ordered_json read_t4_file(const std::filesystem::path& path, const std::string& expected) {
  nlohmann::ordered_json doc;
  if (const std::string why = untrusted_json::parse(read_maybe_gzip(path), doc); !why.empty())
    throw Error(path.string() + ": not JSON (" + why + "); expected " + expected);
  return doc;
}

std::vector<DbRecord> t4_to_db_records(const nlohmann::ordered_json& doc, const T4Import& who,
                                       const std::string& origin) {
  if (who.kernel.empty()) throw Error(origin + ": T4 import needs the kernel's name (--kernel)");
  if (who.gpu.name.empty()) throw Error(origin + ": T4 results do not say the GPU; name it (--gpu \"NVIDIA H200\")");
  // The run-time choice matches tables by compute capability: without one, none would match.
  if (who.gpu.cc_major <= 0)
    throw Error(origin + ": the compute capability of " + interop_detail::iop_shown(who.gpu.name) +
                " is not known; give it (--cc 8.0)");
  const std::string key = who.key.empty() ? "" : key_id(parse_key(who.key));
  const std::vector<interop_detail::T4Row> rows = interop_detail::iop_parse_t4(doc, origin);
  Fingerprint fp{who.kernel_hash, who.nvcc_version, who.gpu};
  std::vector<DbRecord> out;
  out.reserve(rows.size());
  for (const interop_detail::T4Row& r : rows) {
    DbRecord rec;
    rec.fp = fp;
    rec.key = key;
    rec.config_id = config_id(r.names, r.values);
    rec.values = nlohmann::json::object();
    for (std::size_t k = 0; k < r.names.size(); ++k) rec.values[r.names[k]] = r.values[k];
    Measurement& m = rec.measurement;
    m.status = r.status;
    if (r.status == Status::Ok) {
      m.samples_ms = r.samples.empty() ? std::vector<double>{r.time_ms} : r.samples;
      m.median_ms = r.time_ms;
    } else {
      m.message = "imported from T4 (invalidity \"" + r.invalidity + "\")";
    }
    out.push_back(std::move(rec));
  }
  return out;
}

ReplaySpace t4_to_replay(const nlohmann::ordered_json& doc, const std::string& origin, const std::string& device,
                         const std::string& kernel) {
  std::vector<interop_detail::T4Row> rows = interop_detail::iop_parse_t4(doc, origin);
  const std::size_t width = rows[0].names.size();
  std::vector<std::set<int64_t>> seen(width);
  for (const auto& r : rows)
    for (std::size_t k = 0; k < width; ++k) seen[k].insert(r.values[k]);
  std::vector<Parameter> parameters;
  for (std::size_t k = 0; k < width; ++k)
    parameters.push_back({rows[0].names[k], std::vector<int64_t>(seen[k].begin(), seen[k].end())});
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.values < b.values; });
  std::vector<int64_t> flat;
  std::vector<RecordedOutcome> outcomes;
  for (const auto& r : rows) {
    flat.insert(flat.end(), r.values.begin(), r.values.end());
    outcomes.push_back({r.status, r.status == Status::Ok ? r.time_ms : 0});
  }
  return ReplaySpace(SearchSpace(std::move(parameters), flat), std::move(outcomes), device, kernel, origin);
}

}  // namespace ktune

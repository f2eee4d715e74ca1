// ReplaySpace::from_db: the recording of one key of a ktune DB file. The DB keeps only
// the configs that were measured, so the replayed space is those configs, not the
// kernel's whole space.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/untrusted_json.hpp"
#include "ktune/db_tables.hpp"
#include "ktune/error.hpp"
#include "ktune/replay.hpp"

namespace ktune {
namespace {
namespace db_replay {

using nlohmann::json;

std::string shown(const std::string& s) { return untrusted_json::quoted(s); }

// Parameters: the names every entry's "values" carry; values sorted ascending.
std::vector<Parameter> parameters_of(const std::vector<DbEntry>& entries, const std::string& where_key) {
  std::map<std::string, std::set<int64_t>> values_of;
  for (const DbEntry& e : entries) {
    for (const auto& [name, v] : e.values.items()) {
      const std::string where = where_key + ", config " + shown(e.config_id) + ", values." + shown(name);
      int64_t x = 0;
      if (v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
        x = v.get<int64_t>();
      else if (v.is_number_float() && std::isfinite(v.get<double>()) &&
               v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 9e15)
        x = static_cast<int64_t>(v.get<double>());
      else
        throw Error(where + " = " + v.dump().substr(0, 40) + " is not an integer: ktune spaces are integer-valued");
      values_of[name].insert(x);
    }
  }
  std::vector<Parameter> parameters;
  for (const auto& [name, values] : values_of)
    parameters.push_back({name, std::vector<int64_t>(values.begin(), values.end())});
  return parameters;
}

struct Row {
  std::vector<int64_t> values;
  RecordedOutcome outcome;
};

Row row_of(const DbEntry& e, const std::vector<Parameter>& parameters, const std::string& where_key) {
  Row row;
  for (const Parameter& p : parameters) {
    auto v = e.values.find(p.name);
    if (v == e.values.end())
      throw Error(where_key + ", config " + shown(e.config_id) + " has no value for " + shown(p.name) +
                  " (the entries disagree on the "
                  "parameters: was the DB merged from different kernels?)");
    row.values.push_back(v->is_number_float() ? static_cast<int64_t>(v->get<double>()) : v->get<int64_t>());
  }
  // An abandoned config was stopped early as clearly slower than the best so far: its
  // median of fewer samples still ranks it correctly, so it replays as timed.
  const Measurement& m = e.measurement;
  row.outcome = m.status == Status::Ok ? RecordedOutcome{Status::Ok, m.median_ms} : RecordedOutcome{m.status, 0};
  return row;
}

}  // namespace db_replay
}  // namespace

ReplaySpace ReplaySpace::from_db(const std::filesystem::path& db_file, const std::string& key) {
  using db_replay::shown;
  const std::string origin = db_file.string();
  const DbTables db = DbTables::load(db_file);
  const std::string wanted = db.wanted_key(key, origin);
  // The fingerprint (GPU, driver, kernel version) with the most configs of this key.
  const DbTable& chosen = *db.fullest(wanted);
  const std::vector<DbEntry>& entries = chosen.keys.at(wanted);
  const std::string where_key = origin + ": key " + shown(wanted);

  std::vector<Parameter> parameters = db_replay::parameters_of(entries, where_key);
  if (parameters.empty()) throw Error(origin + ": the configs of key " + shown(wanted) + " have no values");
  std::vector<db_replay::Row> rows;
  for (const DbEntry& e : entries) rows.push_back(db_replay::row_of(e, parameters, where_key));
  // Sorted by values (= by positions, as values are sorted): one order for any DB file.
  std::sort(rows.begin(), rows.end(),
            [](const db_replay::Row& a, const db_replay::Row& b) { return a.values < b.values; });
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].values == rows[i - 1].values)
      throw Error(where_key + " holds two entries with the same values under different config ids");

  std::vector<int64_t> flat;
  std::vector<RecordedOutcome> outcomes;
  for (const db_replay::Row& r : rows) {
    flat.insert(flat.end(), r.values.begin(), r.values.end());
    outcomes.push_back(r.outcome);
  }
  return ReplaySpace(SearchSpace(std::move(parameters), flat), std::move(outcomes), chosen.fingerprint.gpu.name,
                     db.kernel, origin);
}

}  // namespace ktune

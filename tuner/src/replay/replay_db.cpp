// ReplaySpace::from_db: the recording of one key of a ktune DB file. The DB keeps only
// the configs that were measured, so the replayed space is those configs, not the
// kernel's whole space.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/untrusted_json.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/replay.hpp"

namespace ktune {
namespace {
namespace db_replay {

using nlohmann::json;

std::string shown(const std::string& s) { return "\"" + untrusted_json::printable(s, 40) + "\""; }

std::string listed(const std::set<std::string>& names) {
  std::string out;
  std::size_t n = 0;
  for (const std::string& s : names) {
    if (n++ == 5) return out + ", ...";
    out += (out.empty() ? "" : ", ") + shown(s);
  }
  return out.empty() ? "none" : out;
}

}  // namespace db_replay
}  // namespace

ReplaySpace ReplaySpace::from_db(const std::filesystem::path& db_file, const std::string& key) {
  using db_replay::shown;
  using nlohmann::json;
  const std::string origin = db_file.string();
  const json doc = Db::load_document(db_file).document;
  const json& fingerprints = doc.at("fingerprints");

  std::set<std::string> all_keys;
  for (const auto& [digest, entry] : fingerprints.items())
    for (const auto& [k, configs] : entry.at("keys").items()) all_keys.insert(k);
  std::string wanted = key;
  if (wanted.empty()) {
    if (all_keys.size() != 1)
      throw Error(origin + ": the DB holds " + std::to_string(all_keys.size()) +
                  " keys; name one with --key (keys: " + db_replay::listed(all_keys) + ")");
    wanted = *all_keys.begin();
  }
  if (!all_keys.count(wanted))
    throw Error(origin + ": no measurements for key " + shown(wanted) + " (keys: " + db_replay::listed(all_keys) + ")");

  // The fingerprint (GPU, driver, kernel version) with the most configs of this key; the
  // first digest in order on a tie, so the choice is deterministic.
  const json* chosen = nullptr;
  std::size_t most = 0;
  for (const auto& [digest, entry] : fingerprints.items()) {
    auto configs = entry.at("keys").find(wanted);
    if (configs != entry.at("keys").end() && configs->size() > most) {
      most = configs->size();
      chosen = &entry;
    }
  }
  const json& configs = chosen->at("keys").at(wanted);

  // Parameters: the names every entry's "values" carry; values sorted ascending.
  std::map<std::string, std::set<int64_t>> values_of;
  for (const auto& [id, rec] : configs.items()) {
    for (const auto& [name, v] : rec.at("values").items()) {
      const std::string where = origin + ": key " + shown(wanted) + ", config " + shown(id) + ", values." + shown(name);
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
  const std::size_t width = parameters.size();
  if (width == 0) throw Error(origin + ": the configs of key " + shown(wanted) + " have no values");

  struct Row {
    std::vector<int64_t> values;
    RecordedOutcome outcome;
  };
  std::vector<Row> rows;
  for (const auto& [id, rec] : configs.items()) {
    const json& values = rec.at("values");
    Row row;
    for (const Parameter& p : parameters) {
      auto v = values.find(p.name);
      if (v == values.end())
        throw Error(origin + ": key " + shown(wanted) + ", config " + shown(id) + " has no value for " + shown(p.name) +
                    " (the entries disagree on the "
                    "parameters: was the DB merged from different kernels?)");
      row.values.push_back(v->is_number_float() ? static_cast<int64_t>(v->get<double>()) : v->get<int64_t>());
    }
    const Measurement m = Measurement::from_json(rec.at("measurement"));
    // An abandoned config was stopped early as clearly slower than the best so far: its
    // median of fewer samples still ranks it correctly, so it replays as timed.
    row.outcome = m.status == Status::Ok ? RecordedOutcome{Status::Ok, m.median_ms} : RecordedOutcome{m.status, 0};
    rows.push_back(std::move(row));
  }
  // Sorted by values (= by positions, as values are sorted): one order for any DB file.
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.values < b.values; });
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].values == rows[i - 1].values)
      throw Error(origin + ": key " + shown(wanted) +
                  " holds two entries with the same values under different config ids");

  std::vector<int64_t> flat;
  std::vector<RecordedOutcome> outcomes;
  for (const Row& r : rows) {
    flat.insert(flat.end(), r.values.begin(), r.values.end());
    outcomes.push_back(r.outcome);
  }
  const json& gpu = chosen->at("fingerprint").at("gpu");
  return ReplaySpace(SearchSpace(std::move(parameters), flat), std::move(outcomes), gpu.value("name", std::string()),
                     doc.value("kernel", std::string()), origin);
}

}  // namespace ktune

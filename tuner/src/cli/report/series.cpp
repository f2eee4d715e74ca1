#include "cli/report/series.hpp"

#include <algorithm>

#include "ktune/db.hpp"
#include "ktune/db_tables.hpp"
#include "ktune/text.hpp"

namespace ktune::cli::report {

using nlohmann::json;

double Series::best() const {
  const Entry* w = winner();
  return w ? w->ms() : 0;
}

const Entry* Series::winner() const {
  const Entry* w = nullptr;
  for (const auto& e : entries)
    if (e.ms() > 0 && (!w || e.ms() < w->ms())) w = &e;
  return w;
}

const Entry* Series::find(const std::string& id) const {
  for (const auto& e : entries)
    if (e.id == id) return &e;
  return nullptr;
}

namespace {

Entry read_entry(const DbEntry& e) {
  const Measurement& m = e.measurement;
  json values = json::object();
  for (const auto& [name, v] : e.values.items()) values[terminal_text(name, 80)] = v;
  Entry x{terminal_text(e.config_id, 40), std::move(values), terminal_text(to_string(m.status), 40)};
  x.median_ms = m.median_ms;
  x.abandoned = m.abandoned;
  x.samples = m.samples_ms.size();
  x.at = m.at;
  x.seconds = m.seconds;
  x.message = terminal_text(m.message, 300);
  return x;
}

}  // namespace

Measurements read_measurements(const std::vector<std::filesystem::path>& files) {
  Measurements all;
  for (const auto& path : files) {
    const Db::Loaded loaded = Db::load_document(path);
    if (!loaded.warning.empty()) all.warnings.push_back(loaded.warning);
    const DbTables db = DbTables::of(loaded.document);
    for (const DbTable& t : db.tables) {
      const std::string gpu = terminal_text(t.fingerprint.gpu.name, 80);
      for (const auto& [key, entries] : t.keys) {
        Series s{terminal_text(db.kernel, 80), gpu, terminal_text(key, 200), {}};
        for (const DbEntry& e : entries) s.entries.push_back(read_entry(e));
        std::stable_sort(s.entries.begin(), s.entries.end(),
                         [](const Entry& a, const Entry& b) { return a.at < b.at; });
        all.gpus.insert(s.gpu);
        all.kernels.insert(s.kernel);
        for (const auto& e : s.entries)
          for (const auto& [name, v] : e.values.items()) all.params.insert(name);
        all.series.push_back(std::move(s));
      }
    }
  }
  return all;
}

}  // namespace ktune::cli::report

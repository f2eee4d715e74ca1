#include "cli/report/series.hpp"

#include <algorithm>

#include "ktune/db.hpp"
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

Entry read_entry(const std::string& id, const json& e) {
  const json& m = e.at("measurement");
  const json stored = e.value("values", json::object());  // kept: items() of a temporary dangles
  json values = json::object();
  for (const auto& [name, v] : stored.items()) values[terminal_text(name, 80)] = v;
  Entry x{terminal_text(id, 40), std::move(values), terminal_text(m.value("status", "?"), 40)};
  x.median_ms = m.value("median_ms", 0.0);
  x.abandoned = m.value("abandoned", false);
  x.samples = m.contains("samples_ms") && m["samples_ms"].is_array() ? m["samples_ms"].size() : 0;
  x.at = m.value("at", 0.0);
  x.seconds = m.value("seconds", 0.0);
  x.message = terminal_text(m.value("message", ""), 300);
  return x;
}

}  // namespace

Measurements read_measurements(const std::vector<std::filesystem::path>& files) {
  Measurements all;
  for (const auto& path : files) {
    const Db::Loaded loaded = Db::load_document(path);
    if (!loaded.warning.empty()) all.warnings.push_back(loaded.warning);
    const json& doc = loaded.document;
    for (const auto& [digest, fp] : doc.at("fingerprints").items()) {
      const std::string gpu = terminal_text(fp.at("fingerprint").at("gpu").value("name", "?"), 80);
      for (const auto& [key, configs] : fp.at("keys").items()) {
        Series s{terminal_text(doc.value("kernel", "?"), 80), gpu, terminal_text(key, 200), {}};
        for (const auto& [id, e] : configs.items()) s.entries.push_back(read_entry(id, e));
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

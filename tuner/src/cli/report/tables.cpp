#include "cli/report/tables.hpp"

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "cli/db_inputs.hpp"

namespace ktune::cli::report {

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

std::string plain(std::string s) {
  for (char& c : s)
    if (c == '"' || c == '\\' || c == '\'' || static_cast<unsigned char>(c) < 32) c = '_';
  return s;
}

std::string series_label(const Measurements& all, const Series& s) {
  return plain((all.kernels.size() > 1 ? s.kernel + " " : "") + (all.gpus.size() > 1 ? s.gpu + " " : "") + s.key);
}

const std::vector<std::string>& winner_columns() {
  static const std::vector<std::string> columns = {"kernel",  "GPU",    "key",        "measured", "ok",
                                                   "best ms", "winner", "DEFAULT ms", "speedup"};
  return columns;
}

std::vector<WinnerRow> winner_rows(const Measurements& all, const std::string& default_id) {
  std::vector<WinnerRow> rows;
  for (const auto& s : all.series) {
    int ok = 0;
    for (const auto& e : s.entries) ok += e.status == "ok";
    const Entry* winner = s.winner();
    const Entry* def = default_id.empty() ? nullptr : s.find(default_id);
    WinnerRow r;
    r.label = series_label(all, s);
    if (winner && def && def->ms() > 0) r.speedup = def->ms() / winner->ms();
    r.cells = {s.kernel,
               s.gpu,
               s.key,
               std::to_string(s.entries.size()),
               std::to_string(ok),
               winner ? fixed(winner->ms(), 4) : "-",
               winner ? values_text(winner->values) : "none ok",
               def && def->ms() > 0 ? fixed(def->ms(), 4) : "-",
               r.speedup > 0 ? fixed(r.speedup, 2) + "×" : "-"};
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<ParameterValues> parameter_values(const Measurements& all) {
  std::vector<ParameterValues> out;
  for (const auto& p : all.params) {
    std::map<long long, std::pair<double, int>> per_value;  // sum of logs, keys
    for (const auto& s : all.series) {
      const double best = s.best();
      if (best <= 0) continue;
      std::map<long long, double> best_at;
      for (const auto& e : s.entries)
        if (e.ms() > 0 && e.values.contains(p) && e.values[p].is_number_integer()) {
          const long long v = e.values[p].get<long long>();
          if (!best_at.count(v) || e.ms() < best_at[v]) best_at[v] = e.ms();
        }
      for (const auto& [v, ms] : best_at) {
        per_value[v].first += std::log(ms / best);
        ++per_value[v].second;
      }
    }
    if (per_value.empty()) continue;
    ParameterValues pv{p, {}};
    for (const auto& [v, acc] : per_value) pv.ratios.emplace_back(v, std::exp(acc.first / acc.second));
    out.push_back(std::move(pv));
  }
  return out;
}

}  // namespace ktune::cli::report

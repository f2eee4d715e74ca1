#pragma once
// The report's two tables, as cells, for the Markdown and the HTML to render alike: each
// GPU and key's winner with its speedup over the DEFAULT, and per parameter value how
// close the best config with that value comes to each key's best.
#include <string>
#include <utility>
#include <vector>

#include "cli/report/series.hpp"

namespace ktune::cli::report {

struct WinnerRow {
  std::vector<std::string> cells;  // kernel, GPU, key, measured, ok, best ms, winner, DEFAULT ms, speedup
  std::string label;               // the series in a plot's legend
  double speedup = 0;              // 0: not known (no DEFAULT measured, or none given)
};
const std::vector<std::string>& winner_columns();
std::vector<WinnerRow> winner_rows(const Measurements& all, const std::string& default_id);

// Per parameter: (value, geometric mean over keys of best-with-that-value / key's best).
struct ParameterValues {
  std::string name;
  std::vector<std::pair<long long, double>> ratios;
};
std::vector<ParameterValues> parameter_values(const Measurements& all);

// Text gnuplot prints as is: quotes, backslashes and control characters become '_'.
std::string plain(std::string s);

// What tells series apart in a legend: the key, with the GPU and kernel when several.
std::string series_label(const Measurements& all, const Series& s);

std::string fixed(double v, int digits);

}  // namespace ktune::cli::report

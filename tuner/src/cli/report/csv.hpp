#pragma once
// measurements.csv: every measurement of the report's DBs, one row each, abandoned and
// failed ones included, for a spreadsheet or a notebook.
#include <string>

#include "cli/report/series.hpp"

namespace ktune::cli::report {

// Columns: kernel, gpu, key, id, one per parameter (empty where a config lacks it),
// status, median_ms, abandoned, samples, seconds, at, message.
std::string measurements_csv(const Measurements& all);

// A CSV field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a
// quote or a line break.
std::string csv_field(const std::string& s);

}  // namespace ktune::cli::report

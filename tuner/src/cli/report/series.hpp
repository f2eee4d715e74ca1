#pragma once
// What a report is drawn from: every measurement of every DB given, one series per GPU and
// key, with the fields the tables, plots, CSV and HTML show. Names from the files are made
// terminal-safe once, here.
#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune::cli::report {

struct Entry {
  std::string id;
  nlohmann::json values;  // name -> value
  std::string status;
  double median_ms = 0;  // as recorded, also for an abandoned config (from its first samples)
  bool abandoned = false;
  std::size_t samples = 0;
  double at = 0, seconds = 0;
  std::string message;
  // The time a ranking may use: the median of an ok, fully measured config; else 0.
  double ms() const { return status == "ok" && !abandoned ? median_ms : 0; }
  // An ok config stopped early as slower than the best by the abandon factor.
  bool abandoned_ok() const { return status == "ok" && abandoned && median_ms > 0; }
};

struct Series {
  std::string kernel, gpu, key;
  std::vector<Entry> entries;  // in the order measured (when the DB says)
  double best() const;         // the fastest ms(); 0 when none
  const Entry* winner() const;
  const Entry* find(const std::string& id) const;
};

struct Measurements {
  std::vector<Series> series;
  std::vector<std::string> warnings;  // entries the files had to leave out
  std::set<std::string> gpus, kernels, params;
};

Measurements read_measurements(const std::vector<std::filesystem::path>& files);

}  // namespace ktune::cli::report

#pragma once
// The report's plots: data files and gnuplot scripts written under DIR/data and DIR/plots
// (to restyle or redraw), drawn as DIR/<name>.png by gnuplot, a Debian package that renders
// PNG headless and offline.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli/report/series.hpp"

namespace ktune::cli::report {

// Writes the data and scripts of every plot there is something to draw for; returns
// their names: best_vs_evaluations and best_vs_time (when measurements carry their
// time), param_<name> per parameter with two or more values, speedup.
std::vector<std::string> write_plots(const Measurements& all,
                                     const std::vector<std::pair<std::string, double>>& speedups,
                                     const std::filesystem::path& out);

// Runs gnuplot on each plot's script; returns the names not drawn.
std::vector<std::string> draw_plots(const std::vector<std::string>& names, const std::filesystem::path& out,
                                    const std::string& gnuplot);

// Writes `text` to `p`; throws Error naming it when it cannot.
void write_text(const std::filesystem::path& p, const std::string& text);

}  // namespace ktune::cli::report

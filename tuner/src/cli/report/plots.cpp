#include "cli/report/plots.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli/report/tables.hpp"
#include "ktune/error.hpp"
#include "ktune/process.hpp"
#include "ktune/text.hpp"

namespace ktune::cli::report {

namespace fs = std::filesystem;

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out.flush()) throw Error(p.string() + ": cannot write the report here; choose another --out");
}

namespace {

const char* kTerminal = "set terminal pngcairo size 1000,560 noenhanced font ',10'\n";
// Ratios to the best on a log axis: tics where they read well, not only at decades.
const char* kRatioTics =
    "set ytics ('1' 1, '1.1' 1.1, '1.25' 1.25, '1.5' 1.5, '2' 2, '3' 3, '5' 5, '10' 10, '20' 20, '50' 50, '100' 100)\n";

// Best so far (relative to the key's best) after each evaluation and over time; only the
// series whose measurements carry their time ("at": DBs written since it was recorded).
std::vector<std::string> curves(const Measurements& all, const fs::path& out) {
  std::ostringstream data, by_eval, by_time;
  int block = 0;
  for (const auto& s : all.series) {
    const double best = s.best();
    if (best <= 0 || s.entries.empty() || s.entries.front().at <= 0) continue;
    const double start = s.entries.front().at - s.entries.front().seconds;
    double so_far = 0;
    data << "# " << series_label(all, s) << "\n";
    for (std::size_t i = 0; i < s.entries.size(); ++i) {
      const Entry& e = s.entries[i];
      if (e.ms() > 0 && (so_far == 0 || e.ms() < so_far)) so_far = e.ms();
      if (so_far > 0) data << i + 1 << " " << e.at - start << " " << so_far / best << "\n";
    }
    data << "\n\n";
    const std::string sep = block ? ", \\\n     " : "";
    const std::string title = " with steps lw 2 title '" + series_label(all, s) + "'";
    by_eval << sep << "'data/curves.dat' index " << block << " using 1:3" << title;
    by_time << sep << "'data/curves.dat' index " << block << " using 2:3" << title;
    ++block;
  }
  if (!block) return {};
  write_text(out / "data" / "curves.dat", data.str());
  const std::string common = std::string(kTerminal) +
                             "set logscale y\nset autoscale yfixmax\nset ylabel 'best so far / best found'\nset grid\n"
                             "set key outside right\n" +
                             kRatioTics;
  write_text(out / "plots" / "best_vs_evaluations.gp",
             common +
                 "set output 'best_vs_evaluations.png'\nset title 'Best config so far, by evaluations'\n"
                 "set xlabel 'configs evaluated'\nplot " +
                 by_eval.str() + "\n");
  write_text(out / "plots" / "best_vs_time.gp",
             common +
                 "set output 'best_vs_time.png'\nset title 'Best config so far, by tuning time'\n"
                 "set xlabel 'seconds of tuning'\nplot " +
                 by_time.str() + "\n");
  return {"best_vs_evaluations", "best_vs_time"};
}

// Every ok config's time relative to its key's best, at each value of `param`: filled
// points measured fully, open ones abandoned early (their time from the samples taken, a
// config known to be slower than the best by the abandon factor).
std::string parameter_plot(const Measurements& all, const std::string& param, const fs::path& out) {
  auto value_of = [&](const Entry& e, long long& v) {
    if (!e.values.contains(param) || !e.values[param].is_number_integer()) return false;
    v = e.values[param].get<long long>();
    return true;
  };
  std::set<long long> values;
  for (const auto& s : all.series)
    for (const auto& e : s.entries)
      if (long long v; (e.ms() > 0 || e.abandoned_ok()) && value_of(e, v)) values.insert(v);
  if (values.size() < 2) return "";  // a parameter with one value measured says nothing
  std::map<long long, int> index;
  std::string xtics;
  for (long long v : values) {
    xtics += (index.empty() ? "" : ", ") + ("'" + std::to_string(v) + "' " + std::to_string(index.size()));
    index.emplace(v, static_cast<int>(index.size()));
  }
  const std::string name = "param_" + plain(param), file = "'data/" + name + ".dat'";
  std::ostringstream data, plot;
  int block = 0;
  for (bool abandoned : {false, true}) {
    for (const auto& s : all.series) {
      const double best = s.best();
      if (best <= 0) continue;
      int n = 0;
      std::ostringstream points;
      for (const auto& e : s.entries) {
        long long v = 0;
        const double ms = abandoned ? (e.abandoned_ok() ? e.median_ms : 0) : e.ms();
        if (ms <= 0 || !value_of(e, v)) continue;
        const double jitter = ((n++ * 7919) % 21 - 10) * 0.015;  // spread points that share a value
        points << index[v] + jitter << " " << ms / best << "\n";
      }
      if (n == 0) continue;  // gnuplot refuses an empty block
      data << "# " << series_label(all, s) << (abandoned ? " (abandoned)" : "") << "\n" << points.str() << "\n\n";
      plot << (block ? ", \\\n     " : "") << file << " index " << block << " using 1:2 with points "
           << (abandoned ? "pt 6 ps 0.6 lc rgb 'gray' notitle" : "pt 7 ps 0.6 title '" + series_label(all, s) + "'");
      ++block;
    }
  }
  write_text(out / "data" / (name + ".dat"), data.str());
  write_text(out / "plots" / (name + ".gp"),
             std::string(kTerminal) + "set output '" + name + ".png'\nset title 'Time of every ok config by " +
                 plain(param) + " (open gray: abandoned early, time from its first samples)'\nset xlabel '" +
                 plain(param) +
                 "'\nset ylabel 'time / best of its key'\nset logscale y\nset autoscale yfixmax\nset grid\n" +
                 kRatioTics + "set key outside right\nset xtics (" + xtics +
                 ")\nset xrange [-0.5:" + std::to_string(values.size() - 0.5) + "]\nplot " + plot.str() + "\n");
  return name;
}

std::string speedup_plot(const std::vector<std::pair<std::string, double>>& speedups, const fs::path& out) {
  if (speedups.empty()) return "";
  std::ostringstream data;
  for (const auto& [l, x] : speedups) data << "\"" << plain(l) << "\" " << x << "\n";
  write_text(out / "data" / "speedup.dat", data.str());
  write_text(out / "plots" / "speedup.gp",
             std::string(kTerminal) +
                 "set output 'speedup.png'\nset title \"Speedup of each key's winner over the DEFAULT\"\n"
                 "set ylabel 'DEFAULT time / winner time'\nset style data histograms\nset style fill solid 0.7\n"
                 "set boxwidth 0.8\nset grid ytics\nset yrange [0:*]\nset xtics rotate by -30\n"
                 "plot 'data/speedup.dat' using 2:xtic(1) notitle, 1 with lines lc rgb 'gray' notitle\n");
  return "speedup";
}

}  // namespace

std::vector<std::string> write_plots(const Measurements& all,
                                     const std::vector<std::pair<std::string, double>>& speedups, const fs::path& out) {
  std::vector<std::string> names = curves(all, out);
  for (const auto& p : all.params)
    if (std::string n = parameter_plot(all, p, out); !n.empty()) names.push_back(n);
  if (std::string n = speedup_plot(speedups, out); !n.empty()) names.push_back(n);
  return names;
}

std::vector<std::string> draw_plots(const std::vector<std::string>& names, const fs::path& out,
                                    const std::string& gnuplot) {
  std::vector<std::string> not_drawn;
  for (const auto& name : names) {
    // gnuplot runs in DIR so that the scripts' relative paths hold.
    ProcessOptions io;
    io.working_directory = out;
    io.stderr_file = out / "plots" / "gnuplot.log";
    if (!run_process({gnuplot, "plots/" + name + ".gp"}, io).succeeded() || !fs::exists(out / (name + ".png")))
      not_drawn.push_back(name);
  }
  return not_drawn;
}

}  // namespace ktune::cli::report

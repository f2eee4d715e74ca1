// `ktune report DB... [--manifest M] [--out DIR] [--json]`: a tuning report to look at. DIR gets
// report.md (per GPU and key: what was measured, the winner, its speedup over the DEFAULT;
// which parameter values the fast configs have) and PNG plots drawn by gnuplot: best so far
// against evaluations and against tuning time, the time of every config per value of each
// parameter, and the speedup of each key's winner. The plots' data and gnuplot scripts stay
// in DIR/data and DIR/plots, to restyle or redraw. gnuplot because it is a Debian package
// that renders PNG headless and offline; without it the report is written without images
// and says so.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/db_inputs.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/text.hpp"
#include "ktune/manifest.hpp"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string manifest;
  std::string out = "ktune-report";
  std::string gnuplot = "gnuplot";
  bool json = false;
};

struct Entry {
  std::string id;
  json values;
  std::string status;
  double ms = 0;  // median, when ok and not abandoned; else 0
  double at = 0, seconds = 0;
};

// One GPU's measurements of one key.
struct Series {
  std::string kernel, gpu, key;
  std::vector<Entry> entries;  // in the order measured (when the DB says)
  double best() const {
    double b = 0;
    for (const auto& e : entries)
      if (e.ms > 0 && (b == 0 || e.ms < b)) b = e.ms;
    return b;
  }
  const Entry* find(const std::string& id) const {
    for (const auto& e : entries)
      if (e.id == id) return &e;
    return nullptr;
  }
};

// `warnings`: the entries each file had to leave out, said once the report is written.
std::vector<Series> read_series(const std::vector<fs::path>& files, std::vector<std::string>& warnings) {
  std::vector<Series> all;
  for (const auto& path : files) {
    const Db::Loaded loaded = Db::load_document(path);
    if (!loaded.warning.empty()) warnings.push_back(loaded.warning);
    const json& doc = loaded.document;
    // Names from the file reach the report and the terminal: made terminal-safe once, here.
    for (const auto& [digest, fp] : doc.at("fingerprints").items()) {
      const std::string gpu = terminal_text(fp.at("fingerprint").at("gpu").value("name", "?"), 80);
      for (const auto& [key, configs] : fp.at("keys").items()) {
        Series s{terminal_text(doc.value("kernel", "?"), 80), gpu, terminal_text(key, 200), {}};
        for (const auto& [id, e] : configs.items()) {
          const json& m = e.at("measurement");
          const json stored = e.value("values", json::object());
          json values = json::object();
          for (const auto& [name, v] : stored.items()) values[terminal_text(name, 80)] = v;
          Entry x{id, std::move(values), terminal_text(m.value("status", "?"), 40)};
          if (x.status == "ok" && !m.value("abandoned", false)) x.ms = m.value("median_ms", 0.0);
          x.at = m.value("at", 0.0);
          x.seconds = m.value("seconds", 0.0);
          s.entries.push_back(std::move(x));
        }
        std::stable_sort(s.entries.begin(), s.entries.end(), [](const Entry& a, const Entry& b) { return a.at < b.at; });
        all.push_back(std::move(s));
      }
    }
  }
  return all;
}

// A label gnuplot prints as is: no quotes or backslashes.
std::string plain(std::string s) {
  for (char& c : s)
    if (c == '"' || c == '\\' || c == '\'' || static_cast<unsigned char>(c) < 32) c = '_';
  return s;
}

// What tells a series apart in a plot's legend: the key, and the GPU and kernel when the
// report holds more than one.
struct Naming {
  bool gpu = false, kernel = false;
};
std::string label(const Series& s, Naming n) {
  return plain((n.kernel ? s.kernel + " " : "") + (n.gpu ? s.gpu + " " : "") + s.key);
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out.flush()) throw Error(p.string() + ": cannot write the report here; choose another --out");
}

const char* kTerminal = "set terminal pngcairo size 1000,560 noenhanced font ',10'\n";
// Ratios to the best on a log axis: tics where they read well, not only at decades.
const char* kRatioTics = "set ytics ('1' 1, '1.1' 1.1, '1.25' 1.25, '1.5' 1.5, '2' 2, '3' 3, '5' 5, '10' 10, '20' 20, '50' 50, '100' 100)\n";

// Best so far (relative to the key's best) after each evaluation and over time; only the
// series whose measurements carry their time ("at": DBs written since it was recorded).
std::string curves(const std::vector<Series>& all, Naming naming, const fs::path& out) {
  std::ostringstream data, by_eval, by_time;
  int block = 0;
  for (const auto& s : all) {
    const double best = s.best();
    if (best <= 0 || s.entries.empty() || s.entries.front().at <= 0) continue;
    const double start = s.entries.front().at - s.entries.front().seconds;
    double so_far = 0;
    data << "# " << label(s, naming) << "\n";
    for (std::size_t i = 0; i < s.entries.size(); ++i) {
      const Entry& e = s.entries[i];
      if (e.ms > 0 && (so_far == 0 || e.ms < so_far)) so_far = e.ms;
      if (so_far > 0) data << i + 1 << " " << e.at - start << " " << so_far / best << "\n";
    }
    data << "\n\n";
    const std::string sep = block ? ", \\\n     " : "";
    by_eval << sep << "'data/curves.dat' index " << block << " using 1:3 with steps lw 2 title '" << label(s, naming) << "'";
    by_time << sep << "'data/curves.dat' index " << block << " using 2:3 with steps lw 2 title '" << label(s, naming) << "'";
    ++block;
  }
  if (!block) return "";
  write(out / "data" / "curves.dat", data.str());
  const std::string common = std::string(kTerminal) +
                             "set logscale y\nset autoscale yfixmax\nset ylabel 'best so far / best found'\nset grid\n"
                             "set key outside right\n" + kRatioTics;
  write(out / "plots" / "best_vs_evaluations.gp",
        common + "set output 'best_vs_evaluations.png'\nset title 'Best config so far, by evaluations'\n"
                 "set xlabel 'configs evaluated'\nplot " + by_eval.str() + "\n");
  write(out / "plots" / "best_vs_time.gp",
        common + "set output 'best_vs_time.png'\nset title 'Best config so far, by tuning time'\n"
                 "set xlabel 'seconds of tuning'\nplot " + by_time.str() + "\n");
  return "best_vs_evaluations best_vs_time";
}

// Every ok config's time relative to its key's best, at each value of `param`.
std::string parameter_plot(const std::vector<Series>& all, const std::string& param, Naming naming, const fs::path& out) {
  std::set<int64_t> values;
  for (const auto& s : all)
    for (const auto& e : s.entries)
      if (e.ms > 0 && e.values.contains(param) && e.values[param].is_number_integer()) values.insert(e.values[param].get<int64_t>());
  if (values.size() < 2) return "";  // a parameter with one value measured says nothing
  std::map<int64_t, int> index;
  std::string xtics;
  for (int64_t v : values) {
    xtics += (index.empty() ? "" : ", ") + ("'" + std::to_string(v) + "' " + std::to_string(index.size()));
    index.emplace(v, static_cast<int>(index.size()));
  }
  std::ostringstream data, plot;
  int block = 0;
  for (const auto& s : all) {
    const double best = s.best();
    if (best <= 0) continue;
    int n = 0;
    data << "# " << label(s, naming) << "\n";
    for (const auto& e : s.entries) {
      if (e.ms <= 0 || !e.values.contains(param) || !e.values[param].is_number_integer()) continue;
      const double jitter = ((n++ * 7919) % 21 - 10) * 0.015;  // spread points that share a value
      data << index[e.values[param].get<int64_t>()] + jitter << " " << e.ms / best << "\n";
    }
    data << "\n\n";
    plot << (block ? ", \\\n     " : "") << "'data/param_" << param << ".dat' index " << block
         << " using 1:2 with points pt 7 ps 0.6 title '" << label(s, naming) << "'";
    ++block;
  }
  const std::string name = "param_" + plain(param);
  write(out / "data" / (name + ".dat"), data.str());
  write(out / "plots" / (name + ".gp"),
        std::string(kTerminal) + "set output '" + name + ".png'\nset title 'Time of every ok config by " + plain(param) +
            "'\nset xlabel '" + plain(param) + "'\nset ylabel 'time / best of its key'\nset logscale y\n"
            "set autoscale yfixmax\nset grid\n" + kRatioTics +
            "set key outside right\nset xtics (" + xtics + ")\nset xrange [-0.5:" + std::to_string(values.size() - 0.5) +
            "]\nplot " + plot.str() + "\n");
  return name;
}

std::string speedup_plot(const std::vector<std::pair<std::string, double>>& speedups, const fs::path& out) {
  if (speedups.empty()) return "";
  std::ostringstream data;
  for (const auto& [l, x] : speedups) data << "\"" << l << "\" " << x << "\n";
  write(out / "data" / "speedup.dat", data.str());
  write(out / "plots" / "speedup.gp",
        std::string(kTerminal) + "set output 'speedup.png'\nset title \"Speedup of each key's winner over the DEFAULT\"\n"
            "set ylabel 'DEFAULT time / winner time'\nset style data histograms\nset style fill solid 0.7\n"
            "set boxwidth 0.8\nset grid ytics\nset yrange [0:*]\nset xtics rotate by -30\n"
            "plot 'data/speedup.dat' using 2:xtic(1) notitle, 1 with lines lc rgb 'gray' notitle\n");
  return "speedup";
}

void run(const ReportOptions& o) {
  std::vector<std::string> skipped;
  const std::vector<Series> all = read_series(db_files(o.inputs), skipped);
  std::string default_id, default_text;
  if (!o.manifest.empty()) {
    const Manifest m = Manifest::from_json(read_json_file(o.manifest), o.manifest);
    default_id = m.default_id;
  }
  const fs::path out = o.out;
  fs::create_directories(out / "data");
  fs::create_directories(out / "plots");
  std::set<std::string> gpus, kernels, params;
  for (const auto& s : all) {
    gpus.insert(s.gpu);
    kernels.insert(s.kernel);
    for (const auto& e : s.entries)
      for (const auto& [name, v] : e.values.items()) params.insert(name);
  }
  const Naming naming{gpus.size() > 1, kernels.size() > 1};

  std::ostringstream md;
  std::string kernel_list;
  for (const auto& k : kernels) kernel_list += (kernel_list.empty() ? "" : ", ") + k;
  md << "# Tuning report: " << kernel_list << "\n\n";
  md << "From " << o.inputs.size() << " input(s): " << all.size() << " GPU × key series.";
  if (default_id.empty()) md << " No manifest given (`--manifest`): speedups over the DEFAULT are left out.";
  md << "\n\n| kernel | GPU | key | measured | ok | best ms | winner | DEFAULT ms | speedup |\n|---|---|---|---|---|---|---|---|---|\n";
  std::vector<std::pair<std::string, double>> speedups;
  for (const auto& s : all) {
    int ok = 0;
    const Entry* winner = nullptr;
    for (const auto& e : s.entries) {
      ok += e.status == "ok";
      if (e.ms > 0 && (!winner || e.ms < winner->ms)) winner = &e;
    }
    const Entry* def = default_id.empty() ? nullptr : s.find(default_id);
    md << "| " << s.kernel << " | " << s.gpu << " | " << s.key << " | " << s.entries.size() << " | " << ok << " | "
       << (winner ? fixed(winner->ms, 4) : "-") << " | " << (winner ? values_text(winner->values) : "none ok") << " | "
       << (def && def->ms > 0 ? fixed(def->ms, 4) : "-") << " | ";
    if (winner && def && def->ms > 0) {
      md << fixed(def->ms / winner->ms, 2) << "× |\n";
      speedups.emplace_back(label(s, naming), def->ms / winner->ms);
    } else {
      md << "- |\n";
    }
  }

  // Which knobs matter: per value, how close the best config with that value comes to the
  // key's best (geometric mean over keys; 1.00 = it holds the winner everywhere).
  md << "\n## Which parameter values the fast configs have\n\nPer parameter and value: the best time "
        "among configs with that value, over the key's best (geometric mean over the keys; 1.00: "
        "every key's winner has it). A parameter whose values all sit near 1.00 matters little.\n\n";
  for (const auto& p : params) {
    std::map<int64_t, std::pair<double, int>> per_value;  // sum of logs, keys
    for (const auto& s : all) {
      const double best = s.best();
      if (best <= 0) continue;
      std::map<int64_t, double> best_at;
      for (const auto& e : s.entries)
        if (e.ms > 0 && e.values.contains(p) && e.values[p].is_number_integer()) {
          const int64_t v = e.values[p].get<int64_t>();
          if (!best_at.count(v) || e.ms < best_at[v]) best_at[v] = e.ms;
        }
      for (const auto& [v, ms] : best_at) {
        per_value[v].first += std::log(ms / best);
        ++per_value[v].second;
      }
    }
    if (per_value.empty()) continue;
    md << "- `" << p << "`: ";
    bool first = true;
    for (const auto& [v, acc] : per_value) {
      md << (first ? "" : ", ") << v << " → " << fixed(std::exp(acc.first / acc.second), 2);
      first = false;
    }
    md << "\n";
  }

  std::vector<std::string> plots;
  auto add = [&](const std::string& names) {
    std::istringstream in(names);
    for (std::string n; in >> n;) plots.push_back(n);
  };
  add(curves(all, naming, out));
  for (const auto& p : params) add(parameter_plot(all, p, naming, out));
  add(speedup_plot(speedups, out));
  if (plots.empty() || std::find(plots.begin(), plots.end(), "best_vs_evaluations") == plots.end())
    md << "\nNo best-so-far curves: these measurements do not say when they were made (DBs written "
          "before measurements carried their time).\n";

  // Draw: gnuplot runs in DIR so that the scripts' relative paths hold.
  std::string missing;
  json not_drawn = json::array();
  std::size_t drawn = 0;
  for (const auto& name : plots) {
    const std::string command = "cd " + shell_quote(out.string()) + " && " + shell_quote(o.gnuplot) + " " +
                                shell_quote("plots/" + name + ".gp") + " 2>>" + shell_quote("plots/gnuplot.log");
    if (std::system(command.c_str()) == 0 && fs::exists(out / (name + ".png"))) {
      ++drawn;
    } else {
      missing += " " + name;
      not_drawn.push_back(name);
    }
  }
  md << "\n## Plots\n\n";
  for (const auto& name : plots)
    if (fs::exists(out / (name + ".png"))) md << "![" << name << "](" << name << ".png)\n\n";
  if (!missing.empty())
    md << "Not drawn (gnuplot missing or failed, see plots/gnuplot.log; `apt-get install gnuplot-nox`):" << missing << "\n";
  write(out / "report.md", md.str());
  for (const std::string& w : skipped) std::cerr << "ktune report: warning: " << terminal_text(w, 400) << "\n";
  if (o.json) {
    std::cout << json{{"report", (out / "report.md").string()}, {"plots", plots}, {"drawn", drawn},
                      {"not_drawn", not_drawn}}.dump(2, ' ', false, json::error_handler_t::replace)
              << "\n";
    return;
  }
  std::cout << "ktune report: " << (out / "report.md").string() << ", " << drawn << " of " << plots.size()
            << " plots drawn" << (missing.empty() ? "" : " (not drawn:" + missing + "; see plots/gnuplot.log)") << "\n";
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand("report", "Write a tuning report to look at: Markdown and PNG plots from tuning DBs");
  sub->add_option("inputs", o->inputs, "DB files, or directories of them (their *.json)")->required();
  sub->add_option("--manifest", o->manifest, "the kernel's manifest.json: names the DEFAULT, for speedups")
      ->check(CLI::ExistingFile);
  sub->add_option("--out", o->out, "directory for report.md, the PNGs, their data and scripts")->capture_default_str();
  sub->add_option("--gnuplot", o->gnuplot, "the gnuplot program")->capture_default_str();
  sub->add_flag("--json", o->json, "print what was written as JSON");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

// `ktune report DB... [--manifest M] [--out DIR] [--json]`: a tuning report to look at. DIR
// gets report.md (per GPU and key: what was measured, the winner, its speedup over the
// DEFAULT; which parameter values the fast configs have), report.html (the same in one file,
// plots inline, every measurement in a sortable table), measurements.csv and PNG plots drawn
// by gnuplot (report/plots.hpp); without gnuplot the report is written without images and
// says so.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/db_inputs.hpp"
#include "cli/report/csv.hpp"
#include "cli/report/html.hpp"
#include "cli/report/plots.hpp"
#include "cli/report/series.hpp"
#include "cli/report/tables.hpp"
#include "ktune/manifest.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace report;

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string manifest;
  std::string out = "ktune-report";
  std::string gnuplot = "gnuplot";
  bool json = false;
};

// How many ok measurements the per-parameter plots show, and how: abandoned ones apart.
std::string abandoned_note(const Measurements& all) {
  std::size_t full = 0, abandoned = 0;
  for (const auto& s : all.series)
    for (const auto& e : s.entries) {
      full += e.ms() > 0;
      abandoned += e.abandoned_ok();
    }
  return "The per-parameter plots show all " + std::to_string(full + abandoned) +
         " ok measurements: " + std::to_string(full) + " measured fully (filled points) and " +
         std::to_string(abandoned) +
         " abandoned early as slower than the best by the abandon factor (open gray points, their time "
         "from the samples taken); rankings and winners use the full ones only.";
}

std::string markdown(const std::string& title, const std::string& intro, const std::vector<WinnerRow>& winners,
                     const std::vector<ParameterValues>& parameters, const std::string& note) {
  std::ostringstream md;
  md << "# " << title << "\n\n" << intro << "\n\n|";
  for (const auto& c : winner_columns()) md << " " << c << " |";
  md << "\n|";
  for (std::size_t i = 0; i < winner_columns().size(); ++i) md << "---|";
  md << "\n";
  for (const auto& w : winners) {
    md << "|";
    for (const auto& c : w.cells) md << " " << c << " |";
    md << "\n";
  }
  // Which knobs matter: per value, how close the best config with that value comes to the
  // key's best (geometric mean over keys; 1.00 = it holds the winner everywhere).
  md << "\n## Which parameter values the fast configs have\n\nPer parameter and value: the best time "
        "among configs with that value, over the key's best (geometric mean over the keys; 1.00: "
        "every key's winner has it). A parameter whose values all sit near 1.00 matters little.\n\n";
  for (const auto& p : parameters) {
    md << "- `" << p.name << "`: ";
    for (std::size_t i = 0; i < p.ratios.size(); ++i)
      md << (i ? ", " : "") << p.ratios[i].first << " → " << fixed(p.ratios[i].second, 2);
    md << "\n";
  }
  md << "\n" << note << "\n";
  return md.str();
}

void run(const ReportOptions& o) {
  const Measurements all = read_measurements(db_files(o.inputs));
  std::string default_id;
  if (!o.manifest.empty()) default_id = Manifest::from_json(read_json_file(o.manifest), o.manifest).default_id;
  const fs::path out = o.out;
  fs::create_directories(out / "data");
  fs::create_directories(out / "plots");

  std::string kernels;
  for (const auto& k : all.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
  const std::string title = "Tuning report: " + kernels;
  std::string intro = "From " + std::to_string(o.inputs.size()) + " input(s): " + std::to_string(all.series.size()) +
                      " GPU × key series.";
  if (default_id.empty()) intro += " No manifest given (`--manifest`): speedups over the DEFAULT are left out.";
  const std::vector<WinnerRow> winners = winner_rows(all, default_id);
  const std::vector<ParameterValues> parameters = parameter_values(all);
  std::vector<std::pair<std::string, double>> speedups;
  for (const auto& w : winners)
    if (w.speedup > 0) speedups.emplace_back(w.label, w.speedup);

  const std::vector<std::string> plots = write_plots(all, speedups, out);
  const std::vector<std::string> not_drawn = draw_plots(plots, out, o.gnuplot);
  std::string missing;
  for (const auto& n : not_drawn) missing += " " + n;
  std::string note = abandoned_note(all);
  if (std::find(plots.begin(), plots.end(), "best_vs_evaluations") == plots.end())
    note +=
        "\n\nNo best-so-far curves: these measurements do not say when they were made (DBs written "
        "before measurements carried their time).";
  const std::string plot_note =
      missing.empty()
          ? ""
          : "Not drawn (gnuplot missing or failed, see plots/gnuplot.log; `apt-get install gnuplot-nox`):" + missing;

  std::string md = markdown(title, intro, winners, parameters, note) + "\n## Plots\n\n";
  std::vector<std::string> drawn;
  for (const auto& name : plots)
    if (std::find(not_drawn.begin(), not_drawn.end(), name) == not_drawn.end()) {
      md += "![" + name + "](" + name + ".png)\n\n";
      drawn.push_back(name);
    }
  if (!plot_note.empty()) md += plot_note + "\n";
  md += "\nEvery measurement: `measurements.csv`; the whole report in one file: `report.html`.\n";
  write_text(out / "report.md", md);
  write_text(out / "measurements.csv", measurements_csv(all));
  write_text(out / "report.html", html_report({title, intro, winners, parameters, note, drawn, plot_note}, all, out));

  for (const std::string& w : all.warnings) std::cerr << "ktune report: warning: " << terminal_text(w, 400) << "\n";
  if (o.json) {
    std::cout << json{{"report", (out / "report.md").string()},
                      {"html", (out / "report.html").string()},
                      {"csv", (out / "measurements.csv").string()},
                      {"plots", plots},
                      {"drawn", drawn.size()},
                      {"not_drawn", not_drawn}}
                     .dump(2, ' ', false, json::error_handler_t::replace)
              << "\n";
    return;
  }
  std::cout << "ktune report: " << (out / "report.md").string() << " and report.html, measurements.csv; "
            << drawn.size() << " of " << plots.size() << " plots drawn"
            << (missing.empty() ? "" : " (not drawn:" + missing + "; see plots/gnuplot.log)") << "\n";
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "Write a tuning report to look at: Markdown, one-file HTML, a CSV of every measurement and PNG plots");
  sub->add_option("inputs", o->inputs, "DB files, or directories of them (their *.json)")->required();
  sub->add_option("--manifest", o->manifest, "the kernel's manifest.json: names the DEFAULT, for speedups")
      ->check(CLI::ExistingFile);
  sub->add_option("--out", o->out,
                  "directory for report.md, report.html, measurements.csv, the PNGs, their data and scripts")
      ->capture_default_str();
  sub->add_option("--gnuplot", o->gnuplot, "the gnuplot program")->capture_default_str();
  sub->add_flag("--json", o->json, "print what was written as JSON");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

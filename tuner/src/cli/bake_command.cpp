// `ktune bake --manifest M --out-dir DIR [--db-dir D]... [--ptx FILE] [--json]`: writes the
// generated header and data source that carry a kernel's tuned configs into the user's
// binary, and bake.json saying what was used. Prints one line: which GPUs' tables, or
// DEFAULT only; with --json, the files written and bake.json's content.
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/bake_winners.hpp"
#include "ktune/emit_bake.hpp"
#include "ktune/manifest.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct BakeOptions {
  std::string manifest;
  std::string out_dir;
  std::vector<std::string> db_dirs;
  std::string ptx;
  unsigned jobs = 1;
  bool quiet = false;
  bool json = false;
};

// GPU names and paths come from DB files: control bytes (a newline, a terminal escape)
// would forge or hide lines of the build's output.
std::string one_line(const std::string& text) { return terminal_text(text, 400); }

void run(const BakeOptions& o) {
  namespace fs = std::filesystem;
  const Manifest m = Manifest::from_json(read_json_file(o.manifest), o.manifest);
  const fs::path kernel_dir = fs::path(o.manifest).parent_path();
  const BakePlan plan =
      plan_bake_compiling_winners(m, o.manifest, std::vector<fs::path>(o.db_dirs.begin(), o.db_dirs.end()), o.jobs);
  const std::string ptx = o.ptx.empty() ? std::string() : read_file(o.ptx);
  BakeSources sources = emit_bake(plan, m, kernel_dir / "cubins", ptx);

  const fs::path out = o.out_dir;
  const fs::path header = out / "include" / ("ktune_" + m.kernel + ".hpp");
  const fs::path source = out / ("ktune_" + m.kernel + "_baked.cpp");
  write_file_atomic(header, sources.header);
  write_file_atomic(source, sources.source);
  nlohmann::json doc = plan.to_json();
  nlohmann::json sizes = nlohmann::json::object();
  for (const auto& [a, size] : sources.sizes) sizes[a] = {{"cubins", size.cubins}, {"bytes", size.bytes}};
  doc["sizes"] = {{"cubins", sizes}, {"ptx_bytes", sources.ptx_bytes}};
  write_file_atomic(out / "bake.json", doc.dump(2) + "\n");
  if (o.json) {
    doc["files"] = {{"header", header.string()}, {"source", source.string()}, {"bake", (out / "bake.json").string()}};
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  if (o.quiet) return;
  std::cout << "ktune: " << one_line(m.kernel) << ": " << one_line(plan.note) << " [" << sources.size_line() << "]\n";
  for (std::size_t i = 0; i < plan.warnings.size() && i < 5; ++i)
    std::cout << "ktune: " << one_line(m.kernel) << ": warning: " << one_line(plan.warnings[i]) << "\n";
}

}  // namespace

void add_bake_command(CLI::App& app) {
  auto o = std::make_shared<BakeOptions>();
  CLI::App* sub = app.add_subcommand(
      "bake", "Write the generated header and data that carry a kernel's tuned configs into a binary");
  sub->add_option("--manifest", o->manifest, "the kernel's manifest.json")->required()->check(CLI::ExistingFile);
  sub->add_option("--out-dir", o->out_dir, "where to write include/ktune_<kernel>.hpp, the data and bake.json")
      ->required();
  sub->add_option("--db-dir", o->db_dirs, "a directory of tuning DBs; earlier ones win for a GPU model");
  sub->add_option("--ptx", o->ptx, "the DEFAULT config's PTX, for GPUs nothing was compiled for")
      ->check(CLI::ExistingFile);
  sub->add_option("--jobs", o->jobs, "parallel compiles of the DBs' winners, for kernels compiled on demand")
      ->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
  auto* quiet = sub->add_flag("--quiet", o->quiet, "print nothing");
  sub->add_flag("--json", o->json, "print bake.json's content and the files written, as JSON")->excludes(quiet);
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

// `ktune bake --manifest M --out-dir DIR [--db-dir D]... [--ptx FILE]`: writes the generated
// header and data source that carry a kernel's tuned configs into the user's binary, and
// bake.json saying what was used. Prints one line: which GPUs' tables, or DEFAULT only.
#include <filesystem>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/bake.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/manifest.hpp"

namespace ktune::cli {
namespace {

struct BakeOptions {
  std::string manifest;
  std::string out_dir;
  std::vector<std::string> db_dirs;
  std::string ptx;
  bool quiet = false;
};

void run(const BakeOptions& o) {
  namespace fs = std::filesystem;
  const Manifest m = Manifest::from_json(read_json_file(o.manifest), o.manifest);
  const fs::path kernel_dir = fs::path(o.manifest).parent_path();
  std::set<std::string> compiled;
  for (const auto& c : m.configs) {
    const fs::path record = kernel_dir / c.record();
    std::error_code ec;
    if (!fs::exists(record, ec)) continue;
    if (CompileRecord::from_json(read_json_file(record), record.string()).status == "ok") compiled.insert(c.id);
  }
  if (!compiled.count(m.default_id))
    throw Error("ktune bake: " + m.kernel + ": the DEFAULT config " + m.default_id +
                " did not compile (see " + (kernel_dir / m.configs.front().log()).parent_path().string() +
                "); every build needs it as the fallback");
  std::vector<fs::path> dirs(o.db_dirs.begin(), o.db_dirs.end());
  BakePlan plan = plan_bake(m, kernel_hash(o.manifest), dirs, compiled);
  const std::string ptx = o.ptx.empty() ? std::string() : read_file(o.ptx);
  BakeSources sources = emit_bake(plan, m, kernel_dir / "cubins", ptx);

  const fs::path out = o.out_dir;
  write_file_atomic(out / "include" / ("ktune_" + m.kernel + ".hpp"), sources.header);
  write_file_atomic(out / ("ktune_" + m.kernel + "_baked.cpp"), sources.source);
  write_file_atomic(out / "bake.json", plan.to_json().dump(2) + "\n");
  if (o.quiet) return;
  std::cout << "ktune: " << m.kernel << ": " << plan.note << "\n";
  for (std::size_t i = 0; i < plan.warnings.size() && i < 5; ++i)
    std::cout << "ktune: " << m.kernel << ": warning: " << plan.warnings[i] << "\n";
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
  sub->add_flag("--quiet", o->quiet, "print nothing");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

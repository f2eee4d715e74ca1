// `ktune bake --manifest M --out-dir DIR [--db-dir D]... [--ptx FILE] [--json]`: writes the
// generated header and data source that carry a kernel's tuned configs into the user's
// binary, and bake.json saying what was used. Prints one line: which GPUs' tables, or
// DEFAULT only; with --json, the files written and bake.json's content.
#include <filesystem>
#include <iostream>
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/emit_bake.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/manifest.hpp"
#include "ktune/text.hpp"
#include "ktune/compile_pool.hpp"

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

// The configs of the space whose compile record says "ok": found through the records
// directory, so that a space of millions costs what was compiled, not what could be.
std::set<std::string> compiled_configs(const Manifest& m, const std::filesystem::path& kernel_dir) {
  std::set<std::string> ok;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(kernel_dir / "records", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".json") continue;
    const std::string id = it->path().stem().string();
    if (!m.configs.find_id(id)) continue;
    if (CompileRecord::read(it->path()).status == "ok") ok.insert(id);
  }
  return ok;
}

// The configs a table launches: each key's best and the common best.
std::set<std::string> winners(const BakeTable& table) {
  std::set<std::string> ids;
  for (const auto& e : table.entries) ids.insert(e.config_id);
  if (!table.common_best.empty()) ids.insert(table.common_best);
  return ids;
}

// One listed architecture: the manifest compiling for it, where its files are, and which
// configs' cubins for it are ok or failed.
struct ArchState {
  Manifest manifest;
  std::filesystem::path dir;
  std::set<std::string> compiled, failed, asked;
  std::unique_ptr<CompilePool> pool;
};

void run(const BakeOptions& o) {
  namespace fs = std::filesystem;
  const Manifest m = Manifest::from_json(read_json_file(o.manifest), o.manifest);
  const fs::path kernel_dir = fs::path(o.manifest).parent_path();
  const std::vector<std::string> arch_names = m.compile.listed_archs();
  std::map<std::string, ArchState> archs;
  for (const auto& a : arch_names) {
    ArchState& st = archs[a];
    st.manifest = for_arch(m, a);
    st.dir = arch_kernel_dir(m, kernel_dir, a);
    st.compiled = compiled_configs(st.manifest, st.dir);
  }
  ArchState& primary = archs.at(m.compile.arch);
  if (!primary.compiled.count(m.default_id))
    throw Error("ktune bake: " + m.kernel + ": the DEFAULT config " + m.default_id +
                " did not compile (see " + (kernel_dir / "logs").string() +
                "); every build needs it as the fallback");
  auto pool_of = [&](ArchState& st) -> CompilePool& {
    if (!st.pool) st.pool = std::make_unique<CompilePool>(st.manifest, st.dir, o.jobs);
    return *st.pool;
  };
  // Each architecture besides the one the build compiled needs the DEFAULT: the fallback of
  // every GPU of that architecture.
  for (auto& [a, st] : archs) {
    if (&st == &primary) continue;
    st.asked.insert(m.default_id);
    const ManifestConfig d = m.configs[*m.configs.find_id(m.default_id)];
    pool_of(st).compile_all({d});
    if (!CompileRecord::says_ok(st.dir / d.record()))
      throw Error("ktune bake: " + m.kernel + ": the DEFAULT config " + m.default_id + " did not compile for sm_" +
                  a + " (see " + (st.dir / d.log()).string() + "); a kernel that needs a newer architecture "
                  "names it with ARCH in ktune_add_kernel(), or leave " + a + " out of CMAKE_CUDA_ARCHITECTURES");
    st.compiled.insert(m.default_id);
  }
  std::vector<fs::path> dirs(o.db_dirs.begin(), o.db_dirs.end());
  std::map<std::string, BakeArch> views;
  for (auto& [a, st] : archs) {
    views[a].kernel_hash = kernel_hash(o.manifest, a);
    // What the build compiled whole is taken as it is; else the winners a DB names may not
    // be built yet (or built from older sources): plan as if every config were compiled,
    // compile the winners (the pool skips what is current), and plan again. A winner that
    // fails to compile drops out and the next best takes its place.
    const bool as_built = &st == &primary && !m.on_demand;
    views[a].compiled = [&st, &m, as_built](const std::string& id) {
      return as_built ? st.compiled.count(id) > 0 : !st.failed.count(id) && m.configs.find_id(id).has_value();
    };
  }
  for (;;) {
    std::map<std::string, std::vector<ManifestConfig>> wanted;
    for (const auto& table : plan_bake_archs(m, views, dirs).tables) {
      ArchState& st = archs.at(table.arch);
      if (&st == &primary && !m.on_demand) continue;
      for (const auto& id : winners(table))
        if (st.asked.insert(id).second) wanted[table.arch].push_back(m.configs[*m.configs.find_id(id)]);
    }
    if (wanted.empty()) break;
    for (auto& [a, configs] : wanted) {
      ArchState& st = archs.at(a);
      pool_of(st).compile_all(configs);
      for (const auto& c : configs)
        (CompileRecord::says_ok(st.dir / c.record()) ? st.compiled : st.failed).insert(c.id);
    }
  }
  for (auto& [a, view] : views) {
    ArchState& st = archs.at(a);
    view.compiled = [&st](const std::string& id) { return st.compiled.count(id) > 0; };
  }
  const BakePlan plan = plan_bake_archs(m, views, dirs);
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
  sub->add_option("--jobs", o->jobs, "parallel compiles of the DBs' winners, for kernels compiled on demand")->capture_default_str()->check(CLI::Range(1u, 4096u));
  auto* quiet = sub->add_flag("--quiet", o->quiet, "print nothing");
  sub->add_flag("--json", o->json, "print bake.json's content and the files written, as JSON")->excludes(quiet);
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

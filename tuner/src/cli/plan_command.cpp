// `ktune plan`: run by ktune_add_kernel() at configure time. Checks the declaration,
// enumerates the space and writes the manifest plus the CMake list of cubin edges.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/build_plan.hpp"
#include "ktune/build_tunes.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct PlanOptions {
  PlanRequest request;
  std::string out_dir;
  std::string tool;  // the `ktune` the build edges run; default: this program
  std::string seed;  // unused here
};

void run(PlanOptions& o) {
  const auto& name = o.request.kernel;
  if (!is_c_identifier(name))
    throw Error("kernel name '" + name +
                "' is not a C identifier; it names targets, files and "
                "a C++ namespace, so use letters, digits and '_'");
  if (o.request.max_configs == 0) throw Error("MAX_CONFIGS: must be a positive integer");
  if (o.request.max_points == 0) throw Error("KTUNE_MAX_POINTS: must be a positive integer");

  Plan plan = make_plan(o.request);
  std::filesystem::path dir = o.out_dir;
  // nvcc writes its depfile but does not make the directory for it.
  for (const char* sub : {"cubins", "logs", "records", "deps"}) std::filesystem::create_directories(dir / sub);
  write_file_if_changed(dir / "manifest.json", plan.manifest.to_json().dump(1) + "\n");
  const std::string tool = o.tool.empty() ? std::filesystem::read_symlink("/proc/self/exe").string() : o.tool;
  dir = std::filesystem::absolute(dir);
  write_file_if_changed(dir / "configs.cmake", cmake_edges(plan.manifest, dir, tool));
  std::filesystem::remove(dir / "on_demand.ninja");  // what older versions wrote
  if (o.request.tuned) {                             // what the tune step will measure, for the build's progress line
    const std::size_t whole = plan.manifest.configs.size();
    write_file_if_changed(
        dir / "tune_plan.json",
        tune_plan_json({plan.manifest.keys.size(), std::min(whole, plan.search.evaluations.value_or(whole)),
                        plan.search.seconds}));
  }

  const Manifest& m = plan.manifest;
  std::cout << m.kernel << ": " << m.configs.size() << " configs of " << points_text(m.product) << " points";
  std::string def;
  for (const auto& [n, v] : m.spec.default_config) def += " " + n + "=" + std::to_string(v);
  std::cout << "; default" << def << (plan.default_chosen ? " (no DEFAULT given: the first valid config)" : "");
  if (m.on_demand && o.request.eager_limit == 0)
    std::cout << "; compiled as needed: the build makes the DEFAULT's cubin, the tuner those it measures, "
                 "the bake the winners";
  else if (m.on_demand)
    std::cout << "; compiled on demand (over the eager-build limit of "
              << std::min(o.request.eager_limit, o.request.max_configs)
              << "): the build makes the DEFAULT's cubin, the tuner those it measures, the bake the winners";
  else
    std::cout << "; compiled whole by the build";
  if (!plan.search.why.empty()) std::cout << "; search: " << plan.search.why;
  std::cout << "\n";
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand("plan",
                                     "Check a kernel's space and write its manifest and cubin build list "
                                     "(run by ktune_add_kernel at configure time)");
  auto& r = o->request;
  sub->add_option("--kernel", r.kernel, "kernel name")->required();
  sub->add_option("--source", r.source, "kernel source file")->required();
  sub->add_option("--out-dir", o->out_dir, "where manifest.json and configs.cmake go")->required();
  sub->add_option("--param", r.params, "NAME=VALUES, once per parameter");
  sub->add_option("--where", r.constraints, "a constraint, once each");
  sub->add_option("--default", r.default_text, "\"NAME=VALUE ...\"");
  sub->add_option("--key", r.keys, "a key (KEYS), once each");
  sub->add_option("--entry", r.entry, "the kernel's extern \"C\" function (default: the kernel name)");
  sub->add_option("--max-configs", r.max_configs,
                  "the most configs compiled and measured whole; larger spaces are searched within a budget");
  sub->add_flag("--tuned", r.tuned, "the kernel is tuned (HARNESS): check and print the search");
  sub->add_option("--strategy", r.strategy, "STRATEGY, when given");
  sub->add_option("--budget", r.budget, "BUDGET's count or share, when given");
  sub->add_option("--seconds", r.seconds, "BUDGET's seconds, when given");
  sub->add_option("--seed", o->seed, "SEED (the tuner's; accepted so the search's arguments pass whole)");
  sub->add_option("--max-points", r.max_points, "give up enumerating a space after visiting this many points")
      ->capture_default_str();
  sub->add_option("--eager-limit", r.eager_limit, "compile spaces with more valid configs on demand (default: never)");
  sub->add_option("--launcher", r.compile.launcher, "compiler launcher argument (e.g. ccache), once each");
  sub->add_option("--tool", o->tool, "the ktune program the build edges run (default: this one)");
  sub->add_option("--nvcc", r.compile.nvcc, "nvcc used for the cubins (recorded)");
  sub->add_option("--arch", r.compile.arch, "the architecture compiled and tuned here, e.g. 90 (recorded)");
  sub->add_option("--archs", r.compile.archs,
                  "every real architecture the bake embeds cubins for, once each (default: --arch)");
  sub->add_option("--ptx-arch", r.ptx_arch, "the DEFAULT's PTX architecture; empty: no PTX (default: --arch)");
  sub->add_option("--flag", r.compile.flags, "extra nvcc flag (recorded)");
  sub->add_option("--include-dir", r.compile.include_dirs, "include directory (recorded)");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

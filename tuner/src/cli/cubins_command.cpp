// `ktune cubins MANIFEST [--json] [--out FILE]`: what the build made of a kernel's configs:
// how many compiled, which failed (with their logs), the compiler time spent, and the
// kernel hash that tuning DB fingerprints carry for this version of the kernel.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

struct CubinsOptions {
  std::string manifest;
  bool json = false;
  std::string out;
  std::string depfile;  // for --out: every file the compiled configs were built from
};

void run(const CubinsOptions& o) {
  namespace fs = std::filesystem;
  const Manifest m = Manifest::from_json(read_json_file(o.manifest), o.manifest);
  const fs::path dir = fs::path(o.manifest).parent_path();
  std::size_t ok = 0, failed = 0;
  double cpu = 0, wall = 0;
  nlohmann::json failures = nlohmann::json::array();
  // The records there are, not a look for every config: a space of millions is compiled on
  // demand, a few hundred at a time. Records of configs no longer in the space are left out.
  std::vector<fs::path> records;
  std::error_code ec;
  for (fs::directory_iterator it(dir / "records", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json" && m.configs.find_id(it->path().stem().string()))
      records.push_back(it->path());
  std::sort(records.begin(), records.end());
  for (const auto& record_path : records) {
    const std::string id = record_path.stem().string();
    CompileRecord r = CompileRecord::read(record_path);
    cpu += r.cpu_s;
    wall += r.wall_s;
    if (r.status == "ok") {
      ++ok;
    } else {
      ++failed;
      const auto index = m.configs.find_id(id);
      failures.push_back({{"id", id},
                          {"config", index ? m.describe(m.configs[*index].values) : r.config},
                          {"log", r.log},
                          {"exit_code", r.exit_code},
                          {"error", first_error_line(r.log)}});
    }
  }
  const std::size_t missing = m.configs.size() - ok - failed;
  nlohmann::json summary = {
      {"kernel", m.kernel},       {"configs", m.configs.size()}, {"compiled", ok},
      {"compile_failed", failed}, {"not_built", missing},        {"compiler_cpu_s", cpu},
      {"compiler_wall_s", wall},  {"failures", failures},        {"kernel_hash", kernel_hash(o.manifest)}};
  // Per listed architecture, the hash a DB of a GPU of that architecture carries (what
  // `ktune import --kernel-hash` takes for results measured elsewhere).
  nlohmann::json hashes = nlohmann::json::object();
  for (const auto& a : m.compile.archs) hashes[a] = kernel_hash(o.manifest, a);
  summary["kernel_hashes"] = hashes;
  if (!o.out.empty()) write_file_atomic(o.out, summary.dump(2) + "\n");
  if (!o.depfile.empty()) {
    // On-demand kernels: the build step that writes --out reruns when any of these
    // changes, as eager kernels' steps do through their cubins' own depfiles.
    if (o.out.empty()) throw Error("--depfile names the inputs of --out; give --out too");
    std::string text = o.out + ":";
    for (const auto& input : compiled_inputs(dir)) {
      text += " \\\n  ";
      for (char ch : input) text += ch == ' ' ? std::string("\\ ") : ch == '$' ? std::string("$$") : std::string(1, ch);
    }
    write_file_atomic(o.depfile, text + "\n");
  }
  if (o.json) {
    std::cout << summary.dump(2) << "\n";
    return;
  }
  std::cout << std::fixed << std::setprecision(1) << m.kernel << ": " << m.configs.size() << " configs, " << ok
            << " compiled, " << failed << " failed to compile";
  if (missing) std::cout << ", " << missing << " not built yet";
  std::cout << "; nvcc " << cpu << " s CPU, " << wall << " s summed wall\n";
  for (std::size_t i = 0; i < failures.size() && i < 5; ++i)
    std::cout << "  compile-failed " << terminal_text(failures[i]["config"].get<std::string>()) << " ("
              << failures[i]["id"].get<std::string>() << "): " << terminal_text(failures[i]["error"].get<std::string>())
              << "\n    log: " << terminal_text(failures[i]["log"].get<std::string>()) << "\n";
  if (failures.size() > 5) std::cout << "  ... and " << failures.size() - 5 << " more\n";
}

}  // namespace

void add_cubins_command(CLI::App& app) {
  auto o = std::make_shared<CubinsOptions>();
  CLI::App* sub =
      app.add_subcommand("cubins", "Summarise a kernel's compiled configs: compiled, failed (with logs), nvcc time");
  sub->add_option("manifest", o->manifest, "the kernel's manifest.json")->required()->check(CLI::ExistingFile);
  sub->add_flag("--json", o->json, "print the summary as JSON");
  sub->add_option("--out", o->out, "also write the JSON summary to this file");
  sub->add_option("--depfile", o->depfile,
                  "also write a Makefile depfile for --out: the files the configs were compiled from");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

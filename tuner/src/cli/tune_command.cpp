// `ktune tune --t1 SPEC.json [--source KERNEL.cu] [--strategy S --budget N] ...`: tunes a
// Kernel Tuner-style kernel from its T1 spec with no C++ to write (docs/t1.md). The spec
// is checked whole (plan_t1), the reference config (the Default's values) is compiled, then
// ktune-t1-tuner compiles what its strategy proposes in a pool of --jobs nvcc processes and
// measures each cubin on the GPU as soon as it exists, with the generic harness, every
// config checked against the reference outputs; the DB and a T4 file per problem size are
// written under --out.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/db.hpp"
#include "ktune/driver.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/interop.hpp"
#include "ktune/compile_pool.hpp"
#include "ktune/config_id.hpp"
#include "ktune/process.hpp"
#include "ktune/strategy.hpp"
#include "ktune/t1_plan.hpp"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct TuneT1Options {
  std::string t1;
  std::string source;
  std::string out;
  std::vector<std::string> problem_sizes;
  std::string strategy;
  std::string budget;
  std::optional<double> seconds;
  uint64_t seed = 0;
  std::string arch, nvcc, tuner;
  std::vector<std::string> flags;
  unsigned jobs = 0;
  std::optional<double> atol, rtol;
  std::string save_arguments;
  uint64_t max_configs = 10000;
  uint64_t max_points = 1'000'000'000;
  bool retune = false, compile_only = false, json = false;
  std::string gpus;  // passed to the tuner as it is: it checks the list
};

// Helpers of `ktune tune`, in their own namespace: unity builds merge this file with others.
namespace tune_cli {

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

std::string find_nvcc(const std::string& given) {
  if (!given.empty()) {
    if (::access(given.c_str(), X_OK) != 0) throw Error("--nvcc " + given + ": not an executable; give nvcc's path");
    return given;
  }
  for (const char* var : {"KTUNE_NVCC", "CUDA_PATH", "CUDA_HOME"})
    if (const char* v = std::getenv(var); v && *v) {
      const fs::path p = std::string(var) == "KTUNE_NVCC" ? fs::path(v) : fs::path(v) / "bin" / "nvcc";
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  if (::access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
  if (auto p = on_path("nvcc"); !p.empty()) return p;
  throw Error("nvcc not found (looked at KTUNE_NVCC, CUDA_PATH, CUDA_HOME, /usr/local/cuda, PATH); install the CUDA "
              "toolkit or pass --nvcc PATH");
}

fs::path self() { return fs::read_symlink("/proc/self/exe"); }

std::string find_tuner(const std::string& given) {
  std::string t = given;
  if (t.empty())
    if (const char* v = std::getenv("KTUNE_T1_TUNER"); v && *v) t = v;
  if (t.empty()) t = (self().parent_path() / "ktune-t1-tuner").string();
  if (::access(t.c_str(), X_OK) != 0)
    throw Error("the T1 tuner program " + t + " is missing; build the target ktune-t1-tuner (it is installed beside "
                "ktune), or pass --tuner PATH");
  return t;
}

// "convolution.T1.json" -> "ktune-convolution".
std::string default_out(const std::string& spec) {
  std::string stem = fs::path(spec).filename().string();
  for (const char* suffix : {".json", ".T1", ".t1"})
    if (stem.size() > std::strlen(suffix) && stem.ends_with(suffix)) stem.resize(stem.size() - std::strlen(suffix));
  return "ktune-" + stem;
}

// The tuner program, its stdout on ours (with --json on our stderr, so that stdout holds
// only the JSON). Returns its exit code.
int run_tuner(const std::vector<std::string>& args, bool json_mode) {
  ProcessOptions io;
  io.stdout_to_stderr = json_mode;
  std::cout.flush();
  const ProcessResult r = run_process(args, io);
  if (!r.started()) throw Error("cannot run " + args[0] + ": " + std::strerror(r.start_error));
  return r.status();
}

}  // namespace tune_cli

void run(const TuneT1Options& o) {
  using namespace tune_cli;
  std::ostream& say = o.json ? std::cerr : std::cout;  // human lines; stdout is the JSON's with --json

  T1PlanRequest r;
  r.spec = o.t1;
  r.source = o.source;
  r.out = o.out.empty() ? default_out(o.t1) : o.out;
  for (const auto& text : o.problem_sizes) r.problem_sizes.push_back(parse_problem_size(text, "--problem-size"));
  r.compile.nvcc = find_nvcc(o.nvcc);
  r.compile.flags = o.flags;
  r.tool = self().string();
  r.atol = o.atol;
  r.rtol = o.rtol;
  r.save_arguments = o.save_arguments;
  if (o.max_configs == 0) throw Error("--max-configs must be a positive integer");
  r.max_points = o.max_points;

  std::string why_no_gpu;
  const Driver* driver = Driver::get_with_gpu(&why_no_gpu);
  std::optional<GpuIdentity> gpu;
  if (driver) {
    CUdevice device;
    driver->check(driver->cuDeviceGet(&device, 0), "opening GPU 0");
    gpu = query_gpu(*driver, device);
  }
  std::string arch_why = "--arch";
  r.compile.arch = o.arch;
  if (r.compile.arch.empty()) {
    r.compile.arch = gpu ? std::to_string(gpu->cc_major) + std::to_string(gpu->cc_minor) : "90";
    arch_why = gpu ? "the visible GPU, " + gpu->name : "no GPU visible: the default, Hopper";
  }
  if (r.compile.arch.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz") != std::string::npos)
    throw Error("--arch \"" + r.compile.arch + "\": give a compute capability as nvcc writes it, e.g. 90 or 90a");
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());

  const T1Plan p = plan_t1(r);
  const Manifest& m = p.manifest;

  // Strategy and budget: the command line, else the spec's Search and Budget, completed by
  // the defaults (a budget without a strategy, or a space too large to measure whole, gets
  // the default strategy).
  const std::string given_strategy = !o.strategy.empty() ? o.strategy : p.kernel.strategy.value_or("");
  const std::string budget = !o.budget.empty() ? o.budget : p.kernel.budget.value_or("");
  const std::optional<double> seconds = o.seconds ? o.seconds : p.kernel.budget_seconds;
  if (seconds && !(*seconds > 0)) throw Error("--seconds must be positive");
  SearchOrigin origin;
  if (o.strategy.empty()) origin.strategy = o.t1 + ": Search.Name";
  if (o.budget.empty() && !budget.empty()) origin.budget = o.t1 + ": Budget";
  // A spec written for Kernel Tuner names its strategies: say which of ours they map to.
  origin.unknown_strategy_hint = " (Kernel Tuner's brute_force, random_sample, genetic_algorithm, simulated_annealing, "
                                 "bayes_opt and mls map to them; pass --strategy NAME)";
  const SearchChoice choice = choose_search(given_strategy, budget, seconds, m.configs.size(), o.max_configs, origin);
  const std::string strategy = choice.strategy;

  std::string default_text;
  for (const auto& [n, v] : m.spec.default_config) default_text += (default_text.empty() ? "" : " ") + n + "=" + std::to_string(v);
  say << "ktune: " << m.kernel << " from " << o.t1 << ": " << m.configs.size() << " configs of " << m.product
      << " points; Default " << default_text << (p.default_from_spec ? "" : " (no usable Default in the spec: the first valid config)")
      << "; " << p.keys.size() << " problem size" << (p.keys.size() == 1 ? "" : "s") << "; cubins for sm_"
      << m.compile.arch << " (" << arch_why << "), " << jobs << " parallel nvcc jobs\n";
  if (!p.space.default_problem.empty())
    say << "ktune: warning: " << o.t1 << ": " << p.space.default_problem << "\n";
  if (!p.default_outside.empty())
    say << "ktune: warning: " << o.t1 << ": " << p.default_outside
        << "; its values still give the reference outputs, and the first valid config is the baseline\n";
  if (!choice.why.empty()) say << "ktune: " << m.kernel << ": search: " << choice.why << "\n";

  // The tuner program, looked for before anything is compiled.
  const std::string tuner = driver && !o.compile_only ? find_tuner(o.tuner) : "";

  // Compile now: the reference and the DEFAULT (and with --compile-only every config); the
  // tuner compiles the rest in its own pool, measuring each cubin as soon as it exists.
  const auto compile_start = std::chrono::steady_clock::now();
  CompilePool pool(m, p.kernel_dir, jobs);
  const ManifestConfig reference = m.configs.make(p.reference);
  // The first valid config besides the reference too: the harness falls back on it when
  // the reference does not run.
  const ManifestConfig fallback_config = m.configs[m.configs[0].id == reference.id && m.configs.size() > 1 ? 1 : 0];
  std::vector<ManifestConfig> wanted = {reference};
  if (reference.id != m.default_id) wanted.push_back(m.configs[m.default_index()]);
  if (fallback_config.id != reference.id && fallback_config.id != m.default_id) wanted.push_back(fallback_config);
  if (o.compile_only)
    for (std::size_t i = 0; i < m.configs.size(); ++i)
      if (const ManifestConfig c = m.configs[i];
          std::none_of(wanted.begin(), wanted.end(), [&](const ManifestConfig& w) { return w.id == c.id; }))
        wanted.push_back(c);
  pool.compile_all(wanted);
  const double compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - compile_start).count();
  std::size_t ok = 0, failed = 0;
  auto compiled = [&](const ManifestConfig& c) { return CompileRecord::says_ok(p.kernel_dir / c.record()); };
  for (const auto& c : wanted) compiled(c) ? ++ok : ++failed;
  say << "ktune: " << m.kernel << ": compiled " << wanted.size() << " config" << (wanted.size() == 1 ? "" : "s")
      << " in " << std::fixed << std::setprecision(1) << compile_seconds << " s: " << ok << " ok, " << failed
      << " failed to compile" << (failed ? " (logs: " + (p.kernel_dir / "logs").string() + ")" : "")
      << (o.compile_only ? "" : "; the tuner compiles the configs its strategy proposes") << "\n";

  // The reference: the Default's values when they compile (and, in the harness, run), else
  // the first valid config (the next one, when the first is the Default itself).
  std::vector<int64_t> reference_values = p.reference;
  std::string reference_text = p.reference_why.empty() ? "the Default's values" : "the first valid config (" + p.reference_why + ")";
  if (!compiled(reference)) {
    const std::string line = first_error_line(p.kernel_dir / reference.log());
    const std::string why = "the Default's values did not compile" + (line.empty() ? "" : ": " + line);
    const std::size_t at = m.configs[0].id == reference.id ? 1 : 0;
    if (at >= m.configs.size())
      throw Error(m.kernel + ": the Default config (" + m.describe(reference.values) + ") did not compile" +
                  (line.empty() ? "" : ": " + line) + ", and the space has no other config to take the reference "
                  "outputs from; log: " + (p.kernel_dir / reference.log()).string());
    const ManifestConfig& fallback = fallback_config;
    if (!compiled(fallback))
      throw Error(m.kernel + ": the Default config (" + m.describe(reference.values) + ") did not compile" +
                  (line.empty() ? "" : ": " + line) + ", nor did the first valid config (" +
                  m.describe(fallback.values) + "); every config is checked against the reference outputs, so fix "
                  "the kernel; log: " + (p.kernel_dir / reference.log()).string());
    say << "ktune: warning: " << m.kernel << ": " << why << "; log: " << (p.kernel_dir / reference.log()).string()
        << "\n";
    reference_values = fallback.values;
    reference_text = at == 0 ? "the first valid config (" + why + ")" : "the second valid config (" + why +
                                                                              "; the first is the Default)";
  }
  say << "ktune: " << m.kernel << ": reference outputs: " << reference_text << ", " << m.describe(reference_values)
      << "\n";
  {
    T1Run run = T1Run::from_json(read_json_file(p.run_file), p.run_file.string());
    run.reference = reference_values;
    write_file_if_changed(p.run_file, run.to_json().dump(1) + "\n");
  }

  json out = {{"kernel", m.kernel}, {"spec", o.t1}, {"source", p.source}, {"out", fs::absolute(r.out).string()},
              {"manifest", p.manifest_path.string()}, {"arch", m.compile.arch}, {"configs", m.configs.size()},
              {"product", m.product}, {"default_id", m.default_id}, {"strategy", strategy},
              {"reference", {{"values", reference_values}, {"why", reference_text}, {"fallback_id", fallback_config.id}}},
              {"compile", {{"asked", wanted.size()}, {"ok", ok}, {"failed", failed}, {"seconds", compile_seconds}}},
              {"keys", json::array()}, {"tuned", false}};
  for (const auto& key : p.keys) out["keys"].push_back(key_id(key));
  if (choice.evaluations) out["budget"] = *choice.evaluations;
  if (!choice.why.empty()) out["search_why"] = choice.why;
  if (o.compile_only) {
    if (o.json) std::cout << out.dump(2) << "\n";
    return;
  }
  if (!driver) {
    out["why"] = why_no_gpu;
    if (o.json) std::cout << out.dump(2) << "\n";
    throw Error(m.kernel + ": no GPU visible (" + why_no_gpu + "): the cubins are compiled in " +
                p.kernel_dir.string() + ", nothing was measured and no DB or T4 file written; run it where a GPU "
                "is visible, or pass --compile-only to only compile");
  }

  // Tune: ktune-t1-tuner, whose workers run the generic harness (KTUNE_T1_RUN).
  const fs::path out_dir = fs::absolute(r.out);
  const fs::path summary = out_dir / "tune.json", worker_log = out_dir / "worker.log";
  fs::remove(summary);
  std::vector<std::string> args = {tuner, "--manifest", p.manifest_path.string(), "--db-dir",
                                   p.db_dir.string(), "--strategy", strategy, "--seed", std::to_string(o.seed),
                                   "--summary-out", summary.string(), "--worker-log", worker_log.string(),
                                   "--compile-jobs", std::to_string(jobs), "--require-gpu"};
  if (choice.evaluations) args.insert(args.end(), {"--budget", std::to_string(*choice.evaluations)});
  if (choice.seconds) args.insert(args.end(), {"--seconds", std::to_string(*choice.seconds)});
  if (o.retune) args.push_back("--retune");
  if (!o.gpus.empty()) args.insert(args.end(), {"--gpus", o.gpus});
  for (const auto& key : p.keys) {
    std::string text;
    for (const auto& [d, v] : key) text += (text.empty() ? "" : " ") + d + "=" + std::to_string(v);
    args.insert(args.end(), {"--key", text});
  }
  ::setenv(kT1RunVariable, p.run_file.c_str(), 1);
  const int code = run_tuner(args, o.json);
  if (code != 0 || !fs::exists(summary))
    throw Error(m.kernel + ": the tuner " + args[0] + " exited with " + std::to_string(code) +
                "; its messages are above, the measuring workers' in " + worker_log.string());
  const json tuned = read_json_file(summary);
  if (!tuned.value("tuned", false)) throw Error(m.kernel + ": the tuner did not tune: " + tuned.dump());

  // The T4 files: each problem size's results under this run's fingerprint (one table per
  // GPU model when the visible GPUs differ).
  out["tuned"] = true;
  out["summary"] = tuned;
  out["t4"] = json::array();
  const json tables = tuned.contains("tables") ? tuned["tables"] : json::array({tuned});
  for (const json& table : tables) {
    const std::string db_path = table.at("db").get<std::string>();
    if (!out.contains("db")) out["db"] = db_path;
    json doc = Db::load_document(db_path).document;
    const std::string digest = table.at("fingerprint").get<std::string>();
    if (doc.contains("fingerprints") && doc["fingerprints"].is_object())
      for (auto it = doc["fingerprints"].begin(); it != doc["fingerprints"].end();)
        it = it.key() == digest ? std::next(it) : doc["fingerprints"].erase(it);
    const std::string gpu = tables.size() == 1 ? "" : "." + fs::path(db_path).stem().string();
    for (const auto& key : p.keys) {
      const InteropData data = interop_from_db(doc, key_id(key), db_path);
      const fs::path file = out_dir / (m.kernel + "." + t1_size_text(key) + gpu + ".T4.json");
      write_file_atomic(file, to_t4_results(data).dump(1, ' ', false, json::error_handler_t::replace) + "\n");
      out["t4"].push_back({{"key", key_id(key)}, {"file", file.string()}, {"results", data.entries.size()}});
      say << "T4: " << file.string() << " (" << data.entries.size() << " results)\n";
    }
  }
  if (o.json) std::cout << out.dump(2) << "\n";
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneT1Options>();
  CLI::App* sub = app.add_subcommand(
      "tune", "Tune a Kernel Tuner-style kernel from its T1 spec: compile every config in parallel, measure each on "
              "the GPU against the Default config's outputs, write a ktune DB and T4 results (docs/t1.md)");
  sub->footer(
      "Exit codes: 0 tuned (or compiled, with --compile-only); 1 bad input, a Default config that does not compile, "
      "no GPU visible (the cubins are compiled first) or a failed tuner; 2 bad command line.\n"
      "Writes under --out: kernel/ (manifest, cubins, logs), db/<GPU>.json, <kernel>.<size>.T4.json per problem "
      "size, tune.json (the summary), worker.log.");
  sub->add_option("--t1", o->t1, "the T1 spec (JSON): ConfigurationSpace and KernelSpecification")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--source", o->source, "the kernel's .cu file (default: the spec's KernelFile)");
  sub->add_option("--out", o->out, "output directory (default: ktune-<spec name> here)");
  // Values that are wrong whatever the spec says are a bad command line (exit 2).
  auto valid = [](std::function<void(const std::string&)> check) {
    return CLI::Validator(
        [check](std::string& v) {
          try {
            check(v);
            return std::string();
          } catch (const Error& e) {
            return std::string(e.what());
          }
        },
        "");
  };
  sub->add_option("--problem-size", o->problem_sizes,
                  "a problem size to tune for, e.g. 4096,4096 (repeat for several, each a key of the DB; default: "
                  "the spec's ProblemSize)")
      ->check(valid([](const std::string& v) { parse_problem_size(v, "value"); }));
  std::string names;
  for (const auto& n : strategy_names()) names += (names.empty() ? "" : ", ") + n;
  sub->add_option("--strategy", o->strategy,
                  "search strategy: " + names + " (default: the spec's Search; else with a budget, or for a space "
                  "over --max-configs, the default strategy; else exhaustive)")
      ->check(valid([names](const std::string& v) {
        const auto known = strategy_names();
        if (v != "default" && std::find(known.begin(), known.end(), v) == known.end())
          throw Error("\"" + v + "\" is not one of " + names);
      }));
  sub->add_option("--budget", o->budget, "configs to measure per problem size: a count (200) or a share (5%)")
      ->check(valid([](const std::string& v) { parse_budget(v, 1000000, "value"); }));
  sub->add_option("--seconds", o->seconds, "most seconds of search per problem size")->check(positive_number());
  sub->add_option("--seed", o->seed, "seed of randomised strategies")->capture_default_str()->check(unsigned_integer());
  sub->add_option("--atol", o->atol, "absolute tolerance of the outputs (default: by element type; float 1e-5)")
      ->check(non_negative_number());
  sub->add_option("--rtol", o->rtol, "relative tolerance of the outputs (default: by element type; float 1e-4)")
      ->check(non_negative_number());
  sub->add_option("--save-arguments", o->save_arguments,
                  "write every array as it starts and each output as the Default config leaves it (the reference) "
                  "to DIR/<size>/<Name>.bin and <Name>.expected.bin, raw, to check against a reference of your own");
  sub->add_option("--arch", o->arch, "cubin architecture, e.g. 90 (default: the visible GPU's, else 90)")
      ->check(cuda_arch());
  sub->add_option("--nvcc", o->nvcc, "nvcc (default: KTUNE_NVCC, CUDA_PATH, /usr/local/cuda, PATH)");
  sub->add_option("--flag", o->flags, "an extra nvcc flag after the spec's CompilerOptions (repeatable)");
  sub->add_option("--jobs", o->jobs, "parallel nvcc jobs (default: the cores)")->check(CLI::Range(1u, 4096u));
  sub->add_option("--tuner", o->tuner, "the ktune-t1-tuner program (default: beside ktune)");
  sub->add_option("--max-configs", o->max_configs,
                  "the most configs measured whole: a larger space without --strategy or --budget is searched by "
                  "the default strategy within a default budget, and exhaustive search of it is refused")
      ->capture_default_str()
      ->check(positive_integer());
  sub->add_option("--max-points", o->max_points, "give up enumerating the space after visiting this many points")
      ->capture_default_str()
      ->check(positive_integer());
  sub->add_flag("--retune", o->retune, "measure again what the DB already has for this GPU and kernel");
  sub->add_option("--gpus", o->gpus, "GPUs to measure on, one worker each, e.g. 0,1 (default: every visible GPU; docs/tuning.md)")
      ->check(gpu_list());
  sub->add_flag("--compile-only", o->compile_only, "compile every config, then stop (exit 0, no GPU needed)");
  sub->add_flag("--json", o->json, "print the result as JSON on stdout (progress and tables go to stderr)");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

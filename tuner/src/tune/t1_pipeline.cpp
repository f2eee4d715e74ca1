#include "tune/t1_pipeline.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "ktune/compile_pool.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/db.hpp"
#include "ktune/driver.hpp"
#include "ktune/error.hpp"
#include "ktune/files.hpp"
#include "ktune/gpu_identity.hpp"
#include "ktune/interop.hpp"
#include "ktune/key.hpp"
#include "ktune/process.hpp"
#include "ktune/search_choice.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Helpers of the T1 pipeline, in their own namespace: unity builds merge this file with others.
namespace t1_pipeline {

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
  throw Error(
      "nvcc not found (looked at KTUNE_NVCC, CUDA_PATH, CUDA_HOME, /usr/local/cuda, PATH); install the CUDA "
      "toolkit or pass --nvcc PATH");
}

// --launcher's program must run: a missing one would turn every compile into compile-failed.
void check_launcher(const std::vector<std::string>& launcher) {
  if (launcher.empty()) return;
  const std::string& program = launcher.front();
  const bool is_path = program.find('/') != std::string::npos;
  if (is_path ? ::access(program.c_str(), X_OK) != 0 : on_path(program).empty())
    throw Error("--launcher " + program + ": not an executable" + (is_path ? "" : " on PATH") +
                "; install it or give its path");
}

fs::path self() { return fs::read_symlink("/proc/self/exe"); }

std::string find_tuner(const std::string& given) {
  std::string t = given;
  if (t.empty())
    if (const char* v = std::getenv("KTUNE_T1_TUNER"); v && *v) t = v;
  if (t.empty()) t = (self().parent_path() / "ktune-t1-tuner").string();
  if (::access(t.c_str(), X_OK) != 0)
    throw Error("the T1 tuner program " + t +
                " is missing; build the target ktune-t1-tuner (it is installed beside "
                "ktune), or pass --tuner PATH");
  return t;
}

// The GPU the cubins are for: --arch, else the visible GPU's, else Hopper. Returns why.
std::string choose_arch(const std::string& given, const std::optional<GpuIdentity>& gpu, std::string& arch) {
  std::string why = "--arch";
  arch = given;
  if (arch.empty()) {
    arch = gpu ? std::to_string(gpu->cc_major) + std::to_string(gpu->cc_minor) : "90";
    why = gpu ? "the visible GPU, " + gpu->name : "no GPU visible: the default, Hopper";
  }
  if (arch.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz") != std::string::npos)
    throw Error("--arch \"" + arch + "\": give a compute capability as nvcc writes it, e.g. 90 or 90a");
  return why;
}

// Strategy and budget: the request's, else the spec's Search and Budget, completed by the
// defaults (a budget without a strategy, or a space too large to measure whole, gets the
// default strategy).
SearchChoice choose_t1_search(const T1TuneRequest& q, const T1Plan& p) {
  const std::string t1 = q.plan.spec.string();
  const std::string strategy = !q.strategy.empty() ? q.strategy : p.kernel.strategy.value_or("");
  const std::string budget = !q.budget.empty() ? q.budget : p.kernel.budget.value_or("");
  const std::optional<double> seconds = q.seconds ? q.seconds : p.kernel.budget_seconds;
  if (seconds && !(*seconds > 0)) throw Error("--seconds must be positive");
  SearchOrigin origin;
  if (q.strategy.empty()) origin.strategy = t1 + ": Search.Name";
  if (q.budget.empty() && !budget.empty()) origin.budget = t1 + ": Budget";
  // A spec written for Kernel Tuner names its strategies: say which of ours they map to.
  origin.unknown_strategy_hint =
      " (Kernel Tuner's brute_force, random_sample, genetic_algorithm, simulated_annealing, "
      "bayes_opt and mls map to them; pass --strategy NAME)";
  return choose_search(strategy, budget, seconds, p.manifest.configs.size(), q.max_configs, origin);
}

// The plan in a line (what, how big, the baseline, the problem sizes, the compiles), then
// the spec's Default problems as warnings.
void say_plan(const T1Plan& p, const std::string& t1, const std::string& compiles, std::ostream& say) {
  const Manifest& m = p.manifest;
  const std::string default_text = m.describe(m.configs[m.default_index()].values);
  // A Default outside the space still gives the reference; the baseline is then another config.
  const std::string baseline =
      !p.default_outside.empty()
          ? "baseline " + default_text + " (the spec's Default is outside the space: the first valid config)"
          : "Default " + default_text +
                (p.default_from_spec ? "" : " (no usable Default in the spec: the first valid config)");
  say << "ktune: " << m.kernel << " from " << t1 << ": " << m.configs.size() << " configs of " << m.product
      << " points; " << baseline << "; " << p.keys.size() << " problem size" << (p.keys.size() == 1 ? "" : "s")
      << "; cubins for " << compiles << "\n";
  if (!p.space.default_problem.empty()) say << "ktune: warning: " << t1 << ": " << p.space.default_problem << "\n";
  if (!p.default_outside.empty())
    say << "ktune: warning: " << t1 << ": " << p.default_outside
        << "; its values still give the reference outputs, and the first valid config is the baseline\n";
}

// What is compiled before the tuner starts: the reference, the DEFAULT and the first valid
// config besides the reference (the harness falls back on it when the reference does not
// run); with --compile-only every config.
struct FirstCompiles {
  ManifestConfig reference, fallback;
  std::vector<ManifestConfig> wanted;
  std::size_t ok = 0, failed = 0;
  double seconds = 0;
};

FirstCompiles compile_first(const T1TuneRequest& q, const T1Plan& p, unsigned jobs) {
  const Manifest& m = p.manifest;
  const auto start = std::chrono::steady_clock::now();
  CompilePool pool(m, p.kernel_dir, jobs);
  FirstCompiles f{m.configs.make(p.reference), {}, {}, 0, 0, 0};
  f.fallback = m.configs[m.configs[0].id == f.reference.id && m.configs.size() > 1 ? 1 : 0];
  f.wanted = {f.reference};
  if (f.reference.id != m.default_id) f.wanted.push_back(m.configs[m.default_index()]);
  if (f.fallback.id != f.reference.id && f.fallback.id != m.default_id) f.wanted.push_back(f.fallback);
  if (q.compile_only)
    for (std::size_t i = 0; i < m.configs.size(); ++i)
      if (const ManifestConfig c = m.configs[i];
          std::none_of(f.wanted.begin(), f.wanted.end(), [&](const ManifestConfig& w) { return w.id == c.id; }))
        f.wanted.push_back(c);
  pool.compile_all(f.wanted);
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& c : f.wanted) CompileRecord::says_ok(p.kernel_dir / c.record()) ? ++f.ok : ++f.failed;
  return f;
}

// The reference outputs: the Default's values when they compile (and, in the harness, run),
// else the first valid config (the next one, when the first is the Default itself). Written
// into the run file; returns (values, why).
std::pair<std::vector<int64_t>, std::string> settle_reference(const T1Plan& p, const FirstCompiles& f,
                                                              std::ostream& say) {
  const Manifest& m = p.manifest;
  std::vector<int64_t> values = p.reference;
  std::string text =
      p.reference_why.empty() ? "the Default's values" : "the first valid config (" + p.reference_why + ")";
  if (!CompileRecord::says_ok(p.kernel_dir / f.reference.record())) {
    const std::string log = (p.kernel_dir / f.reference.log()).string();
    const std::string line = first_error_line(log);
    const std::string why = "the Default's values did not compile" + (line.empty() ? "" : ": " + line);
    const std::size_t at = m.configs[0].id == f.reference.id ? 1 : 0;
    if (at >= m.configs.size())
      throw Error(m.kernel + ": the Default config (" + m.describe(f.reference.values) + ") did not compile" +
                  (line.empty() ? "" : ": " + line) +
                  ", and the space has no other config to take the reference "
                  "outputs from; log: " +
                  log);
    if (!CompileRecord::says_ok(p.kernel_dir / f.fallback.record()))
      throw Error(m.kernel + ": the Default config (" + m.describe(f.reference.values) + ") did not compile" +
                  (line.empty() ? "" : ": " + line) + ", nor did the first valid config (" +
                  m.describe(f.fallback.values) +
                  "); every config is checked against the reference outputs, so fix "
                  "the kernel; log: " +
                  log);
    say << "ktune: warning: " << m.kernel << ": " << why << "; log: " << log << "\n";
    values = f.fallback.values;
    text = at == 0 ? "the first valid config (" + why + ")"
                   : "the second valid config (" + why + "; the first is the Default)";
  }
  say << "ktune: " << m.kernel << ": reference outputs: " << text << ", " << m.describe(values) << "\n";
  T1Run run = T1Run::from_json(read_json_file(p.run_file), p.run_file.string());
  run.reference = values;
  write_file_if_changed(p.run_file, run.to_json().dump(1) + "\n");
  return {values, text};
}

// ktune-t1-tuner, whose workers run the generic harness (KTUNE_T1_RUN). Returns its summary.
json run_t1_tuner(const T1TuneRequest& q, const T1Plan& p, const SearchChoice& choice, const std::string& tuner,
                  unsigned jobs) {
  const Manifest& m = p.manifest;
  const fs::path out_dir = fs::absolute(q.plan.out);
  const fs::path summary = out_dir / "tune.json", worker_log = out_dir / "worker.log";
  fs::remove(summary);
  std::vector<std::string> args = {tuner,
                                   "--manifest",
                                   p.manifest_path.string(),
                                   "--db-dir",
                                   p.db_dir.string(),
                                   "--strategy",
                                   choice.strategy,
                                   "--seed",
                                   std::to_string(q.seed),
                                   "--summary-out",
                                   summary.string(),
                                   "--worker-log",
                                   worker_log.string(),
                                   "--compile-jobs",
                                   std::to_string(jobs),
                                   "--require-gpu"};
  if (choice.evaluations) args.insert(args.end(), {"--budget", std::to_string(*choice.evaluations)});
  if (choice.seconds) args.insert(args.end(), {"--seconds", std::to_string(*choice.seconds)});
  if (q.retune) args.push_back("--retune");
  if (!q.gpus.empty()) args.insert(args.end(), {"--gpus", q.gpus});
  for (const auto& key : p.keys) args.insert(args.end(), {"--key", key_id(key)});
  ::setenv(kT1RunVariable, p.run_file.c_str(), 1);
  // Its stdout on ours, or on our stderr when stdout holds only the JSON.
  ProcessOptions io;
  io.stdout_to_stderr = q.quiet_stdout;
  std::cout.flush();
  const ProcessResult r = run_process(args, io);
  if (!r.started()) throw Error("cannot run " + args[0] + ": " + std::strerror(r.start_error));
  if (r.status() != 0 || !fs::exists(summary))
    throw Error(m.kernel + ": the tuner " + args[0] + " exited with " + std::to_string(r.status()) +
                "; its messages are above, the measuring workers' in " + worker_log.string());
  const json tuned = read_json_file(summary);
  if (!tuned.value("tuned", false)) throw Error(m.kernel + ": the tuner did not tune: " + tuned.dump());
  return tuned;
}

// The T4 files: each problem size's results under this run's fingerprint (one table per GPU
// model when the visible GPUs differ).
void write_t4_files(const T1TuneRequest& q, const T1Plan& p, const json& tuned, json& out, std::ostream& say) {
  const fs::path out_dir = fs::absolute(q.plan.out);
  out["t4"] = json::array();
  const json tables = tuned.contains("tables") ? tuned["tables"] : json::array({tuned});
  for (const json& table : tables) {
    const std::string db_path = table.at("db").get<std::string>();
    if (!out.contains("db")) out["db"] = db_path;
    // This run's table only: the DB may hold other GPUs' and other kernel versions'.
    DbTables db = DbTables::load(db_path);
    const std::string digest = table.at("fingerprint").get<std::string>();
    std::erase_if(db.tables, [&](const DbTable& t) { return t.digest != digest; });
    const std::string gpu = tables.size() == 1 ? "" : "." + fs::path(db_path).stem().string();
    for (const auto& key : p.keys) {
      const InteropData data = interop_from_db(db, key_id(key), db_path);
      const fs::path file = out_dir / (p.manifest.kernel + "." + t1_size_text(key) + gpu + ".T4.json");
      write_file_atomic(file, to_t4_results(data).dump(1, ' ', false, json::error_handler_t::replace) + "\n");
      out["t4"].push_back({{"key", key_id(key)}, {"file", file.string()}, {"results", data.entries.size()}});
      say << "T4: " << file.string() << " (" << data.entries.size() << " results)\n";
    }
  }
}

}  // namespace t1_pipeline
}  // namespace

T1TuneOutcome tune_t1(const T1TuneRequest& q, std::ostream& say) {
  using namespace t1_pipeline;
  const std::string t1 = q.plan.spec.string();
  T1PlanRequest r = q.plan;
  r.compile.nvcc = find_nvcc(q.nvcc);
  check_launcher(r.compile.launcher);
  r.tool = self().string();
  if (q.max_configs == 0) throw Error("--max-configs must be a positive integer");

  std::string why_no_gpu;
  const Driver* driver = Driver::get_with_gpu(&why_no_gpu);
  std::optional<GpuIdentity> gpu;
  if (driver) {
    CUdevice device;
    driver->check(driver->cuDeviceGet(&device, 0), "opening GPU 0");
    gpu = query_gpu(*driver, device);
  }
  const std::string arch_why = choose_arch(q.arch, gpu, r.compile.arch);
  const unsigned jobs = q.jobs ? q.jobs : std::max(1u, std::thread::hardware_concurrency());

  const T1Plan p = plan_t1(r);
  const Manifest& m = p.manifest;
  const SearchChoice choice = choose_t1_search(q, p);

  say_plan(p, t1, "sm_" + m.compile.arch + " (" + arch_why + "), " + std::to_string(jobs) + " parallel nvcc jobs", say);
  if (!choice.why.empty()) say << "ktune: " << m.kernel << ": search: " << choice.why << "\n";

  // The tuner program, looked for before anything is compiled.
  const std::string tuner = driver && !q.compile_only ? find_tuner(q.tuner) : "";

  // Compile now: the reference and the DEFAULT (and with --compile-only every config); the
  // tuner compiles the rest in its own pool, measuring each cubin as soon as it exists.
  const FirstCompiles f = compile_first(q, p, jobs);
  say << "ktune: " << m.kernel << ": compiled " << f.wanted.size() << " config" << (f.wanted.size() == 1 ? "" : "s")
      << " in " << std::fixed << std::setprecision(1) << f.seconds << " s: " << f.ok << " ok, " << f.failed
      << " failed to compile" << (f.failed ? " (logs: " + (p.kernel_dir / "logs").string() + ")" : "")
      << (q.compile_only ? "" : "; the tuner compiles the configs its strategy proposes") << "\n";
  const auto [reference_values, reference_text] = settle_reference(p, f, say);

  T1TuneOutcome outcome;
  json& out = outcome.summary;
  out = {{"kernel", m.kernel},
         {"spec", t1},
         {"source", p.source},
         {"out", fs::absolute(r.out).string()},
         {"manifest", p.manifest_path.string()},
         {"arch", m.compile.arch},
         {"configs", m.configs.size()},
         {"product", m.product},
         {"default_id", m.default_id},
         {"strategy", choice.strategy},
         {"reference", {{"values", reference_values}, {"why", reference_text}, {"fallback_id", f.fallback.id}}},
         {"compile", {{"asked", f.wanted.size()}, {"ok", f.ok}, {"failed", f.failed}, {"seconds", f.seconds}}},
         {"keys", json::array()},
         {"tuned", false}};
  for (const auto& key : p.keys) out["keys"].push_back(key_id(key));
  if (choice.evaluations) out["budget"] = *choice.evaluations;
  if (!choice.why.empty()) out["search_why"] = choice.why;
  if (q.compile_only) return outcome;
  if (!driver) {
    out["why"] = why_no_gpu;
    outcome.error = m.kernel + ": no GPU visible (" + why_no_gpu + "): the cubins are compiled in " +
                    p.kernel_dir.string() +
                    ", nothing was measured and no DB or T4 file written; run it where a GPU "
                    "is visible, or pass --compile-only to only compile";
    return outcome;
  }
  const json tuned = run_t1_tuner(q, p, choice, tuner, jobs);
  out["tuned"] = true;
  out["summary"] = tuned;
  write_t4_files(q, p, tuned, out, say);
  return outcome;
}

}  // namespace ktune

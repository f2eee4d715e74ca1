// main() of every kernel's tuner program (ktune_<kernel>_tuner): the user's harness is
// linked in; the same program runs as the tuner and, with --worker, as its measuring
// worker process.
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/option_checks.hpp"
#include "ktune/error.hpp"
#include "ktune/key.hpp"
#include "ktune/launch_check.hpp"
#include "ktune/manifest.hpp"
#include "ktune/tuner.hpp"
#include "ktune/text.hpp"
#include "ktune/worker_protocol.hpp"
#include "measure/worker.hpp"

namespace {

// What the command line gives beyond TuneOptions: texts that are read once it is parsed.
struct TunerArgs {
  std::vector<std::string> keys;
  std::string budget, strategy, shard, worker_program;
  std::optional<double> seconds;
  std::size_t max_configs = 10000;
  bool check_launch = false;
  ktune::LaunchCheckRequest check;
  std::string check_out;
};

void add_options(CLI::App& app, ktune::TuneOptions& o, TunerArgs& a) {
  app.add_option("--manifest", o.manifest, "the kernel's manifest.json")->required()->check(CLI::ExistingFile);
  app.add_option("--db-dir", o.db_dir, "directory of the DB files (one per GPU model); required to tune");
  app.add_flag("--check-launch", a.check_launch,
               "check the launch template on the host instead of tuning: the harness "
               "for each key, the template for the DEFAULT and the baked configs; no GPU needed");
  app.add_option("--bake", a.check.bake_json, "with --check-launch: the bake's bake.json, naming the baked configs")
      ->check(CLI::ExistingFile);
  app.add_option("--ptx", a.check.ptx, "with --check-launch: the kernel's PTX, for its parameters")
      ->check(CLI::ExistingFile);
  app.add_option("--out", a.check_out, "with --check-launch: write the summary line here when the check passes");
  app.add_option("--key", a.keys, "a key, e.g. \"M=4096 N=4096 K=4096\"; once per key; default: the manifest's KEYS");
  std::string names;
  for (const auto& n : ktune::strategy_names()) names += (names.empty() ? "" : ", ") + n;
  app.add_option("--strategy", a.strategy,
                 "search strategy: " + names +
                     " (docs/search.md); default: every config, "
                     "or with a budget or over --max-configs the default strategy");
  app.add_option("--max-configs", a.max_configs, "the most configs measured whole when no strategy or budget is given")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 62));
  app.add_option("--budget", a.budget, "most configs to measure per key: a count, or a share of the space (5%)");
  app.add_option("--seconds", a.seconds, "most wall seconds per key")->check(ktune::cli::positive_number());
  app.add_option("--seed", o.seed, "seed of randomised strategies")->check(ktune::cli::unsigned_integer());
  app.add_option("--min-samples", o.rule.min_samples)->capture_default_str();
  app.add_option("--max-samples", o.rule.max_samples)->capture_default_str();
  app.add_option("--target-rel-ci", o.rule.target_rel_ci, "stop at this relative CI half-width")
      ->capture_default_str()
      ->check(ktune::cli::positive_number());
  app.add_option("--max-seconds", o.rule.max_seconds, "timing cap per config")
      ->capture_default_str()
      ->check(ktune::cli::positive_number());
  app.add_option("--abandon-factor", o.rule.abandon_factor, "give up on configs this much slower than the best")
      ->capture_default_str()
      ->check(ktune::cli::positive_number());
  app.add_option("--gpus", o.gpus,
                 "GPUs to measure on, one worker each, e.g. --gpus 0,1 (numbered as "
                 "CUDA_VISIBLE_DEVICES leaves them); default: every visible GPU")
      ->delimiter(',')
      ->check(ktune::cli::gpu_list());
  app.add_option("--prior-db-dir", o.prior_dirs,
                 "a directory of DBs whose other GPUs' results start each key's "
                 "search, besides --db-dir's other files (the build passes DB_DIRS); once per directory");
  app.add_option("--build-tunes", o.build_tunes,
                 "the build's list of tune steps (its _ktune/tune_steps.txt): the progress line then shows this "
                 "kernel's place among them and an ETA for the build");
  app.add_option("--shard", a.shard,
                 "I/N: measure only configs I, I+N, I+2N, ... of an exhaustive search (and the "
                 "DEFAULT); one task's share of a search split over machines (ktune slurm)");
  app.add_option("--worker-program", a.worker_program,
                 "the measuring worker to start, run as PROGRAM --worker; "
                 "default: this program (for wrappers, profilers and tests)")
      ->check(CLI::ExistingFile);
  app.add_flag("--retune", o.retune, "measure again what the DB has for this GPU and kernel");
  app.add_flag("--require-gpu", o.require_gpu, "fail when no GPU is visible (KTUNE_TUNE=ON)");
  app.add_option("--summary-out", o.summary_out, "write the JSON summary here");
  app.add_option("--worker-log", o.worker_log, "file for the workers' output");
  app.add_option("--compile-jobs", o.compile_jobs, "parallel compiles of configs not built yet")
      ->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
}

// --check-launch: the launch template checked on the host, no GPU needed.
int check_launch(TunerArgs& a, const ktune::TuneOptions& o) {
  a.check.manifest = o.manifest;
  const std::string summary = ktune::check_launches(a.check, &ktune_harness);
  std::cout << "ktune: " << summary << "\n";
  if (!a.check_out.empty()) ktune::write_file_atomic(a.check_out, summary + "\n");
  return 0;
}

// --shard I/N.
ktune::TuneOptions::Shard parse_shard(const std::string& shard) {
  const auto slash = shard.find('/');
  ktune::TuneOptions::Shard s;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no /");
    std::size_t used = 0;
    s.index = std::stoull(shard.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    s.count = std::stoull(shard.substr(slash + 1), &used);
    if (used != shard.size() - slash - 1 || shard[0] == '-' || shard[slash + 1] == '-')
      throw std::invalid_argument("count");
  } catch (const std::exception&) {
    throw ktune::Error("--shard '" + ktune::terminal_text(shard, 40) + "' is not I/N; write e.g. --shard 0/4");
  }
  return s;
}

// Completes the options from the manifest and the texts given: keys, search, worker, shard.
void complete_options(ktune::TuneOptions& o, const TunerArgs& a) {
  if (o.db_dir.empty()) throw CLI::RequiredError("--db-dir");
  const auto m = ktune::Manifest::from_json(ktune::read_json_file(o.manifest), o.manifest);
  // The keys: those given, read as every subcommand reads a key, else the manifest's KEYS.
  for (const auto& k : a.keys) o.keys.push_back(ktune::parse_key(k));
  for (const auto& declared : a.keys.empty() ? m.keys : decltype(m.keys){})
    o.keys.emplace_back(declared.begin(), declared.end());
  if (o.keys.empty())
    throw ktune::Error(m.kernel +
                       ": no keys to tune: the manifest declares no KEYS; give --key, e.g. --key \"N=4096\"");
  // The strategy and budget, completed by the defaults (the configure line said which).
  const ktune::SearchChoice choice =
      ktune::choose_search(a.strategy, a.budget, a.seconds, m.configs.size(), a.max_configs);
  o.strategy = choice.strategy;
  o.budget.evaluations = choice.evaluations;
  o.budget.seconds = choice.seconds;
  if (!choice.why.empty()) std::cout << "ktune: " << m.kernel << ": " << ktune::terminal_text(choice.why, 400) << "\n";
  o.worker_command = {
      a.worker_program.empty() ? std::filesystem::read_symlink("/proc/self/exe").string() : a.worker_program,
      "--worker"};
  if (!a.shard.empty()) o.shard = parse_shard(a.shard);
  if (o.worker_log.empty()) o.worker_log = (std::filesystem::path(o.manifest).parent_path() / "worker.log").string();
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--worker")
      return ktune::run_worker(ktune::WorkerChannel::reply_fd_from_args(argc, argv));

  // Over a file size limit the DB write fails with EFBIG and says so (see ktune's main).
  std::signal(SIGXFSZ, SIG_IGN);
  ktune::TuneOptions o;
  TunerArgs a;
  CLI::App app{"ktune tuner: measure every config of a kernel on this GPU, for each key"};
  add_options(app, o, a);
  try {
    app.parse(argc, argv);
    if (a.check_launch) return check_launch(a, o);
    complete_options(o, a);
    return ktune::tune(o);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    // A list of problems (the launch check's) keeps its lines; each is made terminal-safe.
    std::cerr << "ktune: error: " << ktune::terminal_lines(e.what(), 2000) << "\n";
    return 1;
  }
}

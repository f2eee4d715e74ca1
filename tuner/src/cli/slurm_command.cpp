// `ktune slurm --tuner T --manifest M --out-dir D --tasks N [--split key|config]`: writes the
// Slurm batch script that tunes one kernel as a job array of N tasks, each on its own node
// and GPU, and submit.sh, which submits it and, once every task has ended well, a job that
// merges their DBs into D/merged (`ktune merge`). By key: task i tunes keys i, i+N, ...;
// by config: every key, task i measuring configs i, i+N, ... of an exhaustive search
// (the tuner's --shard). Slurm is only written for here; nothing runs until submit.sh.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ktune/error.hpp"
#include "ktune/key.hpp"
#include "ktune/manifest.hpp"
#include "ktune/text.hpp"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;

struct SlurmOptions {
  std::string tuner, manifest, out_dir, split = "key";
  std::size_t tasks = 0;
  unsigned gpus_per_task = 1;
  std::vector<std::string> sbatch;      // more #SBATCH options
  std::vector<std::string> tuner_args;  // after --: the tuner's own options
};

std::string absolute(const std::string& p) { return fs::absolute(p).lexically_normal().string(); }

void run(const SlurmOptions& o) {
  const Manifest m = Manifest::from_json(read_json_file(o.manifest), o.manifest);
  if (::access(o.tuner.c_str(), X_OK) != 0)
    throw Error("--tuner " + terminal_text(o.tuner) +
                " is not an executable program; give the kernel's ktune_<name>_tuner");
  std::vector<std::string> keys;
  for (const auto& declared : m.keys) keys.push_back(key_id(Key(declared.begin(), declared.end())));
  if (keys.empty()) throw Error(m.kernel + ": the manifest declares no KEYS; a split needs keys to tune");
  if (o.split == "key" && o.tasks > keys.size())
    throw Error("--tasks " + std::to_string(o.tasks) + ": " + m.kernel + " has " + std::to_string(keys.size()) +
                " key(s), so split by key at most that many tasks run; give fewer, or --split config");
  for (const auto& a : o.sbatch)
    if (a.find_first_of("\n\r") != std::string::npos)
      throw Error("--sbatch '" + terminal_text(a) + "' holds a line break");
  const std::string out = absolute(o.out_dir);
  fs::create_directories(fs::path(out) / "logs");
  const std::string n = std::to_string(o.tasks);

  std::string s = "#!/bin/bash\n# Written by `ktune slurm` for kernel " + m.kernel + ": " + n + " task(s), split by " +
                  o.split + ". Submit with submit.sh (it merges the tasks' DBs when all have ended).\n";
  s += "#SBATCH --job-name=ktune-" + m.kernel + "\n#SBATCH --array=0-" + std::to_string(o.tasks - 1) +
       "\n#SBATCH --ntasks=1\n#SBATCH --output=" + out + "/logs/task_%a.log\n";
  if (o.gpus_per_task > 0) s += "#SBATCH --gres=gpu:" + std::to_string(o.gpus_per_task) + "\n";
  for (const auto& a : o.sbatch) s += "#SBATCH " + a + "\n";
  s += "set -euo pipefail\ntask=${SLURM_ARRAY_TASK_ID:?run this as a task of a Slurm job array: sbatch it}\n";
  std::string tuner = shell_quote(absolute(o.tuner)) + " --manifest " + shell_quote(absolute(o.manifest)) +
                      " --db-dir " + shell_quote(out) + "/task_$task --worker-log " + shell_quote(out) +
                      "/logs/worker_$task.log";
  for (const auto& a : o.tuner_args) tuner += " " + shell_quote(a);
  if (o.split == "key") {
    s += "keys=(";
    for (const auto& k : keys) s += " " + shell_quote(k);
    s += " )\nargs=()\nfor i in \"${!keys[@]}\"; do\n  if (( i % " + n +
         " == task )); then args+=(--key \"${keys[$i]}\"); fi\ndone\nexec " + tuner + " \"${args[@]}\"\n";
  } else {
    s += "exec " + tuner + " --strategy exhaustive --shard \"$task/" + n + "\"\n";
  }
  const std::string script = out + "/tune.sbatch";
  write_file_atomic(script, s);
  const std::string tool = fs::read_symlink("/proc/self/exe").string();
  const std::string merge =
      shell_quote(tool) + " merge --into " + shell_quote(out) + "/merged " + shell_quote(out) + "/task_*";
  const std::string submit = out + "/submit.sh";
  write_file_atomic(submit, "#!/bin/bash\n# Submits " + script + ", then the merge of its tasks' DBs into " + out +
                                "/merged once every task has ended well. Prints both job ids.\nset -euo pipefail\n"
                                "jid=$(sbatch --parsable " +
                                shell_quote(script) +
                                ")\n"
                                "mid=$(sbatch --parsable --dependency=afterok:$jid --job-name=ktune-" +
                                m.kernel + "-merge --ntasks=1 --output=" + shell_quote(out) +
                                "/logs/merge.log --wrap " + shell_quote(merge) + ")\necho \"$jid $mid\"\n");
  fs::permissions(submit, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  std::cout << "ktune slurm: " << m.kernel << ": " << n << " task(s) split by " << o.split << " in " << script
            << "; submit with: bash " << submit << " (the merged DB: " << out << "/merged)\n";
}

}  // namespace

void add_slurm_command(CLI::App& app) {
  auto o = std::make_shared<SlurmOptions>();
  CLI::App* sub = app.add_subcommand(
      "slurm",
      "Write a Slurm job array that tunes one kernel on several nodes, and the script that submits and merges it");
  sub->add_option("--tuner", o->tuner, "the kernel's tuner program (ktune_<name>_tuner) on the shared file system")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--manifest", o->manifest, "the kernel's manifest.json")->required()->check(CLI::ExistingFile);
  sub->add_option("--out-dir", o->out_dir, "where the script, the tasks' DBs and logs and the merged DB go (shared)")
      ->required();
  sub->add_option("--tasks", o->tasks, "tasks of the job array, one node and GPU each")
      ->required()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  sub->add_option("--split", o->split,
                  "key: task i tunes keys i, i+N, ...; config: every key, task i measuring "
                  "configs i, i+N, ... of an exhaustive search")
      ->capture_default_str()
      ->check(CLI::IsMember({"key", "config"}));
  sub->add_option("--gpus-per-task", o->gpus_per_task, "GPUs each task asks for (#SBATCH --gres=gpu:G); 0: none")
      ->capture_default_str()
      ->check(CLI::Range(0u, 64u));
  sub->add_option("--sbatch", o->sbatch, "one more #SBATCH line, e.g. --sbatch=--partition=gpu; repeatable");
  sub->add_option("tuner_args", o->tuner_args, "after --: options for the tuner (--budget, --seed, ...)");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

// `ktune tune --t1 SPEC.json [--source KERNEL.cu] [--strategy S --budget N] ...`: tunes a
// Kernel Tuner-style kernel from its T1 spec with no C++ to write (docs/t1.md). The options
// become a T1TuneRequest; the pipeline itself is tune/t1_pipeline.cpp.
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "ktune/search_choice.hpp"
#include "ktune/strategy.hpp"
#include "ktune/t1_plan.hpp"
#include "tune/t1_pipeline.hpp"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;

// The request, bound to the options where they map one to one; the rest is read in run().
struct TuneT1Options {
  T1TuneRequest q;
  std::string t1, out;
  std::vector<std::string> problem_sizes;
  bool json = false;
};

// "convolution.T1.json" -> "ktune-convolution".
std::string default_out(const std::string& spec) {
  std::string stem = fs::path(spec).filename().string();
  for (const char* suffix : {".json", ".T1", ".t1"})
    if (stem.size() > std::strlen(suffix) && stem.ends_with(suffix)) stem.resize(stem.size() - std::strlen(suffix));
  return "ktune-" + stem;
}

void run(const TuneT1Options& o) {
  std::ostream& say = o.json ? std::cerr : std::cout;  // human lines; stdout is the JSON's with --json
  T1TuneRequest q = o.q;
  q.plan.spec = o.t1;
  q.plan.out = o.out.empty() ? default_out(o.t1) : o.out;
  for (const auto& text : o.problem_sizes) q.plan.problem_sizes.push_back(parse_problem_size(text, "--problem-size"));
  q.quiet_stdout = o.json;
  const T1TuneOutcome outcome = tune_t1(q, say);
  if (o.json) std::cout << outcome.summary.dump(2) << "\n";
  if (!outcome.error.empty()) throw Error(outcome.error);
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneT1Options>();
  CLI::App* sub = app.add_subcommand(
      "tune",
      "Tune a Kernel Tuner-style kernel from its T1 spec: compile every config in parallel, measure each on "
      "the GPU against the Default config's outputs, write a ktune DB and T4 results (docs/t1.md)");
  sub->footer(
      "Exit codes: 0 tuned (or compiled, with --compile-only); 1 bad input, a Default config that does not compile, "
      "no GPU visible (the cubins are compiled first) or a failed tuner; 2 bad command line.\n"
      "Writes under --out: kernel/ (manifest, cubins, logs), db/<GPU>.json, <kernel>.<size>.T4.json per problem "
      "size, tune.json (the summary), worker.log.");
  sub->add_option("--t1", o->t1, "the T1 spec (JSON): ConfigurationSpace and KernelSpecification")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--source", o->q.plan.source, "the kernel's .cu file (default: the spec's KernelFile)");
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
  sub->add_option("--strategy", o->q.strategy,
                  "search strategy: " + names +
                      " (default: the spec's Search; else with a budget, or for a space "
                      "over --max-configs, the default strategy; else exhaustive)")
      ->check(strategy_name());
  sub->add_option("--budget", o->q.budget, "configs to measure per problem size: a count (200) or a share (5%)")
      ->check(valid([](const std::string& v) { parse_budget(v, 1000000, "value"); }));
  sub->add_option("--seconds", o->q.seconds, "most seconds of search per problem size")->check(positive_number());
  sub->add_option("--seed", o->q.seed, "seed of randomised strategies")
      ->capture_default_str()
      ->check(unsigned_integer());
  sub->add_option("--atol", o->q.plan.atol, "absolute tolerance of the outputs (default: by element type; float 1e-5)")
      ->check(non_negative_number());
  sub->add_option("--rtol", o->q.plan.rtol, "relative tolerance of the outputs (default: by element type; float 1e-4)")
      ->check(non_negative_number());
  sub->add_option("--save-arguments", o->q.plan.save_arguments,
                  "write every array as it starts and each output as the Default config leaves it (the reference) "
                  "to DIR/<size>/<Name>.bin and <Name>.expected.bin, raw, to check against a reference of your own");
  sub->add_option("--arch", o->q.arch, "cubin architecture, e.g. 90 (default: the visible GPU's, else 90)")
      ->check(cuda_arch());
  sub->add_option("--nvcc", o->q.nvcc, "nvcc (default: KTUNE_NVCC, CUDA_PATH, /usr/local/cuda, PATH)");
  sub->add_option("--flag", o->q.plan.compile.flags,
                  "an extra nvcc flag after the spec's CompilerOptions (repeatable)");
  sub->add_option("--launcher", o->q.plan.compile.launcher,
                  "a compiler launcher put before nvcc, e.g. ccache (repeatable: a program, then its arguments)");
  sub->add_option("--jobs", o->q.jobs, "parallel nvcc jobs (default: the cores)")->check(CLI::Range(1u, 4096u));
  sub->add_option("--tuner", o->q.tuner, "the ktune-t1-tuner program (default: beside ktune)");
  sub->add_option("--max-configs", o->q.max_configs,
                  "the most configs measured whole: a larger space without --strategy or --budget is searched by "
                  "the default strategy within a default budget, and exhaustive search of it is refused")
      ->capture_default_str()
      ->check(positive_integer());
  sub->add_option("--max-points", o->q.plan.max_points, "give up enumerating the space after visiting this many points")
      ->capture_default_str()
      ->check(positive_integer());
  sub->add_flag("--retune", o->q.retune, "measure again what the DB already has for this GPU and kernel");
  sub->add_option("--gpus", o->q.gpus,
                  "GPUs to measure on, one worker each, e.g. 0,1 (default: every visible GPU; docs/tuning.md)")
      ->check(gpu_list());
  sub->add_flag("--compile-only", o->q.compile_only, "compile every config, then stop (exit 0, no GPU needed)");
  sub->add_flag("--json", o->json, "print the result as JSON on stdout (progress and tables go to stderr)");
  sub->callback([o] { run(*o); });
}

}  // namespace ktune::cli

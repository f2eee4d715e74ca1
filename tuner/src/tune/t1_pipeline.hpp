#pragma once
// The T1 pipeline of `ktune tune --t1` (docs/t1.md): the spec planned whole (plan_t1), the
// reference config and the DEFAULT compiled, ktune-t1-tuner run on the visible GPUs (it
// compiles what its strategy proposes while it measures), then a T4 results file per
// problem size. The CLI only reads options into a T1TuneRequest and prints the outcome.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/t1_plan.hpp"

namespace ktune {

struct T1TuneRequest {
  T1PlanRequest plan;            // spec, source, out, problem sizes, flags, tolerances; nvcc and arch below
  std::string nvcc;              // empty: KTUNE_NVCC, CUDA_PATH, CUDA_HOME, /usr/local/cuda, PATH
  std::string arch;              // empty: the visible GPU's, else 90
  std::string strategy, budget;  // empty: the spec's Search and Budget, completed by the defaults
  std::optional<double> seconds;
  uint64_t seed = 0;
  unsigned jobs = 0;             // parallel nvcc jobs; 0: the cores
  uint64_t max_configs = 10000;  // the most configs measured whole
  std::string tuner;             // ktune-t1-tuner; empty: KTUNE_T1_TUNER, else beside this program
  std::string gpus;              // passed to the tuner as it is: it checks the list
  bool retune = false, compile_only = false;
  bool quiet_stdout = false;  // the tuner's stdout goes to stderr (stdout holds only the JSON)
};

struct T1TuneOutcome {
  nlohmann::json summary;  // what `--json` prints
  std::string error;       // set when it stopped after compiling (no GPU): print the summary, then fail
};

// Human progress lines go to `say`. Throws Error for bad input, a reference that does not
// compile, or a failed tuner.
T1TuneOutcome tune_t1(const T1TuneRequest& request, std::ostream& say);

}  // namespace ktune

#pragma once
// The tune step: for every key, let the strategy propose configs, measure each in a
// worker process, record every result in the DB as it comes, and print the summary. For
// a kernel compiled on demand, each batch of proposals is compiled (Ninja, all jobs) while
// the batch before it is measured.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ktune/stopping_rule.hpp"
#include "ktune/strategy.hpp"

namespace ktune {

struct TuneOptions {
  std::string manifest;                                // the kernel's manifest.json
  std::string db_dir;                                  // DB file: <db_dir>/<GPU model>.json
  std::vector<std::map<std::string, int64_t>> keys;    // problem sizes to tune for
  std::string strategy = "exhaustive";
  Budget budget;                                       // per key
  uint64_t seed = 0;
  StoppingRule rule;
  int warmup = 2;
  bool retune = false;       // measure again what the DB already has for this fingerprint
  bool require_gpu = false;  // no GPU is an error (KTUNE_TUNE=ON) instead of a note
  std::string summary_out;   // JSON summary, written last (the build step's output)
  std::vector<std::string> worker_command;  // how to start a worker (this program --worker)
  std::string worker_log;    // the workers' stdout and stderr
  double timeout_floor_s = 15.0;  // a config's time limit: this + 10 x the DEFAULT's seconds
  double first_timeout_s = 120.0; // the limit before the DEFAULT's time is known
  std::vector<int> gpus;          // GPUs to measure on, numbered as the tuner sees them; empty: all
  std::string ninja = "ninja";    // compiles on-demand kernels' configs
  unsigned compile_jobs = 1;      // parallel compiles, and so the batch size, when on demand
};

// Returns the process exit code: 0 when tuning ran (whatever the configs' statuses) or
// when there is no GPU and none is required.
int tune(const TuneOptions& options);

}  // namespace ktune

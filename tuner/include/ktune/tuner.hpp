#pragma once
// The tune step: for every key, let the strategy propose configs, compile each in the
// compile pool (at once when its cubin is current), measure it in a worker process as soon
// as its cubin exists, record every result in the DB as it comes, and print the summary.
// A new proposal takes each compile slot that frees: no compile waits for a batch.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ktune/key.hpp"
#include "ktune/stopping_rule.hpp"
#include "ktune/strategy.hpp"

namespace ktune {

struct TuneOptions {
  std::string manifest;                 // the kernel's manifest.json
  std::string db_dir;                   // DB file: <db_dir>/<GPU model>.json
  std::vector<Key> keys;                // problem sizes to tune for
  std::string strategy = "exhaustive";  // as choose_search() completed it
  Budget budget;                        // per key
  uint64_t seed = 0;
  StoppingRule rule;
  int warmup = 2;
  bool retune = false;                      // measure again what the DB already has for this fingerprint
  bool require_gpu = false;                 // no GPU is an error (KTUNE_TUNE=ON) instead of a note
  std::string summary_out;                  // JSON summary, written last (the build step's output)
  std::vector<std::string> worker_command;  // how to start a worker (this program --worker)
  std::string worker_log;                   // the workers' stdout and stderr
  double timeout_floor_s = 15.0;            // a config's time limit: this + 10 x the DEFAULT's seconds
  double first_timeout_s = 120.0;           // the limit before the DEFAULT's time is known
  std::vector<int> gpus;                    // GPUs to measure on, numbered as the tuner sees them; empty: all
  unsigned compile_jobs = 1;                // parallel compiles of configs not built yet
  // Directories of DBs whose other GPUs' measurements start each key's search (besides
  // db_dir's own other files): DB_DIRS. See tune_prior.hpp.
  std::vector<std::string> prior_dirs;
  // The build's list of tune steps (build_tunes.hpp), for the progress line; "" outside a build.
  std::string build_tunes;
  // Measure only configs I, I+N, I+2N, ... of the space (and the DEFAULT, which sets the
  // pace): one task's share of an exhaustive search split over machines (`ktune slurm`).
  struct Shard {
    std::size_t index = 0, count = 1;
  };
  std::optional<Shard> shard;
};

// Returns the process exit code: 0 when tuning ran (whatever the configs' statuses) or
// when there is no GPU and none is required.
int tune(const TuneOptions& options);

}  // namespace ktune

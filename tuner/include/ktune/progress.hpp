#pragma once
// Progress while tuning a kernel: one line across all its keys, rewritten in place on a
// terminal: the key, configs done of the budget, the best so far by its values, what is
// compiling, compile and measure throughput, and ETAs for the key and all keys from the
// budget at the pace so far; in a build, this kernel's place among the build's tune steps
// and an ETA for the steps still to run. Quiet when not a terminal (a build log gets the
// tuner's summary table instead).
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>

#include "ktune/build_tunes.hpp"

namespace ktune {

struct ProgressState {
  std::size_t done = 0;        // configs of the current key evaluated
  double best_ms = -1;         // < 0: nothing ok yet
  std::string best;            // the best config, by its values
  std::size_t compiling = 0;   // compiles in flight
  std::string compiling_what;  // the config last sent to compile, by its values
  std::size_t compiled = 0;    // cubins compiled since the tune began
  std::size_t measured = 0;    // configs measured on a GPU since the tune began
};

class Progress {
 public:
  // `interactive`: write the line at all (default: whether `out` is a terminal).
  Progress(std::string kernel, std::size_t keys, std::FILE* out = stderr);
  Progress(std::string kernel, std::size_t keys, std::FILE* out, bool interactive);

  // Key `index` (from 0) begins, `planned` configs at most, `elapsed_s` into the tune;
  // `seconds`: the key's time budget, when it has one (a key ends at whichever comes first).
  void start_key(std::size_t index, std::string key, std::size_t planned, double elapsed_s,
                 std::optional<double> seconds = std::nullopt);
  void update(const ProgressState& state, double elapsed_s);
  // The build around this tune (read_build_tunes): its steps still to run are estimated at
  // this kernel's pace per config, each bounded by its time budget.
  void set_build(BuildTunes build) { build_ = std::move(build); }
  // Ends the line: how many configs, in how long.
  void finish(double elapsed_s);

  // The line for `state` (without the carriage return), for tests.
  std::string line(const ProgressState& state, double elapsed_s) const;

 private:
  std::string kernel_;
  std::size_t keys_;
  std::FILE* out_;
  bool interactive_;
  std::size_t width_ = 0;  // the terminal's columns; 0: unknown, no limit
  std::size_t key_index_ = 0, planned_ = 0;
  std::string key_;
  double key_start_s_ = 0;
  std::optional<double> seconds_;  // the time budget per key
  BuildTunes build_;
  std::size_t done_before_ = 0;  // configs of the keys before this one
  std::size_t done_ = 0;         // of this key, from the last update
  std::size_t last_width_ = 0;   // of the line on screen, to blank its leftovers
};

}  // namespace ktune

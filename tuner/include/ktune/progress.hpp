#pragma once
// Progress while tuning: configs done / total, current best, ETA. One line rewritten in
// place on a terminal; on a pipe or file (a build log), a plain line every few seconds.
#include <cstddef>
#include <cstdio>
#include <string>

namespace ktune {

class Progress {
 public:
  // `interactive`: rewrite one line (default: whether `out` is a terminal).
  Progress(std::string label, std::size_t total, std::FILE* out = stderr);
  Progress(std::string label, std::size_t total, std::FILE* out, bool interactive);

  // After each config: `best_ms` < 0 when nothing is ok yet; `best` names that config by
  // its values. `elapsed_s` since start.
  void update(std::size_t done, double best_ms, const std::string& best, double elapsed_s);
  void finish(double elapsed_s);

 private:
  std::string label_;
  std::size_t total_;
  std::FILE* out_;
  bool interactive_;
  double last_print_s_ = -1e9;
  std::size_t done_ = 0;        // from the last update, for finish()
  std::size_t last_width_ = 0;  // of the line on screen, to blank its leftovers
};

}  // namespace ktune

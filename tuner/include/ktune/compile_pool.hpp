#pragma once
// The tuner's compile pool: configs compiled to cubins `jobs` at a time, each starting as
// soon as a slot frees, so that a search can propose one config whenever one finishes and
// no compile waits for a batch's slowest member. A config whose compile record is current
// (written for the same command, newer than every input its depfile lists: what Ninja
// checks) is answered at once without compiling, so the cubins a build made are reused.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "ktune/compile_record.hpp"
#include "ktune/manifest.hpp"

namespace ktune {

class CompilePool {
 public:
  struct Done {
    std::size_t tag = 0;    // what submit() was given
    bool compiled = false;  // false: its record was current, nothing ran
    double wall_s = 0;      // of the compiler, when compiled
  };

  CompilePool(const Manifest& manifest, std::filesystem::path kernel_dir, unsigned jobs);
  ~CompilePool();  // lets the compiles in progress finish: their records stay valid
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Queues the compile of `config`; its Done comes back from wait_for() with `tag`.
  void submit(std::size_t tag, const ManifestConfig& config);
  // The next finished compile, waiting at most `timeout`. Throws Error when ktune itself
  // could not compile (the log or the record could not be written).
  std::optional<Done> wait_for(std::chrono::milliseconds timeout);
  // Compiles these (what is not current) and returns when every one is done.
  void compile_all(const std::vector<ManifestConfig>& configs);

  unsigned jobs() const { return jobs_; }
  // Slots with nothing to compile: how many more configs to propose now.
  std::size_t free_slots() const;
  double busy_seconds() const;  // compiler wall time summed over every compile so far

 private:
  void work();

  const Manifest& manifest_;
  std::filesystem::path dir_;
  unsigned jobs_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<std::size_t, CompileJob>> queue_;
  std::deque<Done> done_;
  std::exception_ptr error_;
  std::size_t compiling_ = 0;
  double busy_s_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Whether `job`'s record is current: it exists, was written for the same command, and is
// newer than every input its depfile lists (a failed compile's too, so a fixed header
// retries it).
bool compile_is_current(const CompileJob& job);

}  // namespace ktune

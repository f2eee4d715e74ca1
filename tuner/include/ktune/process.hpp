#pragma once
// Starting another program (nvcc, the T1 tuner, gnuplot) and waiting for it: one place for
// posix_spawn, its file actions, EINTR and the exit status. posix_spawn, not fork: the
// tuner compiles on several threads while it measures. (The measuring worker is the one
// fork of the tree, tune/worker_process.cpp: its child runs our own code, not a program.)
#include <filesystem>
#include <string>
#include <vector>

namespace ktune {

struct ProcessOptions {
  std::filesystem::path stdin_file;         // read from this file; empty: ours
  std::filesystem::path stdout_file;        // appended to (created 0644); empty: ours
  std::filesystem::path stderr_file;        // appended to (created 0644); empty: ours
  bool stderr_to_stdout = false;            // stderr goes wherever stdout goes
  bool stdout_to_stderr = false;            // stdout goes wherever stderr goes
  bool capture_stdout = false;              // stdout read back into ProcessResult::output
  std::filesystem::path working_directory;  // empty: ours
};

struct ProcessResult {
  int start_error = 0;  // errno when the program could not be started (nothing ran)
  int exit_code = 0;    // its exit code, when it exited
  int signal = 0;       // the signal that ended it, else 0
  double cpu_s = 0;     // its CPU time and its children's (nvcc runs cicc and ptxas)
  std::string output;   // its stdout, with capture_stdout
  bool started() const { return start_error == 0; }
  bool succeeded() const { return started() && signal == 0 && exit_code == 0; }
  // As a shell reports it: 127 when it could not start, 128 + signal when killed.
  int status() const { return !started() ? 127 : signal != 0 ? 128 + signal : exit_code; }
};

// Runs argv (argv[0] looked up on PATH unless it holds a '/') to its end. A program that
// cannot start is a result (start_error), not an exception: callers record it as they
// record a failure. Throws only when waiting itself fails.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace ktune

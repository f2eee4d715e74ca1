#pragma once
// Starting another program (nvcc, the T1 tuner, gnuplot, the measuring worker) and waiting
// for it: the one place for posix_spawn, its file actions, its signal reset, EINTR and the
// exit status. posix_spawn, not fork: the tuner compiles on several threads while it
// measures, and a forked child of a threaded process may only make async-signal-safe calls.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace ktune {

struct ProcessOptions {
  std::filesystem::path stdin_file;         // read from this file; empty: ours
  std::filesystem::path stdout_file;        // appended to (created 0644); empty: ours
  std::filesystem::path stderr_file;        // appended to (created 0644); empty: ours
  bool stderr_to_stdout = false;            // stderr goes wherever stdout goes
  bool stdout_to_stderr = false;            // stdout goes wherever stderr goes
  bool capture_stdout = false;              // stdout read back into ProcessResult::output
  std::filesystem::path working_directory;  // empty: ours

  // For a child that lives on and talks over pipes (start_process: the measuring worker).
  int stdin_fd = -1;                                     // this descriptor becomes its stdin; before stdin_file
  int output_fd = -1;                                    // this descriptor becomes its stdout and its stderr
  std::pair<int, int> pass_fd{-1, -1};                   // descriptor .first stays open in it as number .second
  bool own_process_group = false;                        // a group of its own: a kill of the group reaches its children
  std::vector<std::pair<std::string, std::string>> env;  // set in its environment, replacing ours
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

// Every program starts with no signal blocked and SIGPIPE at its default, whatever the
// calling thread had, and keeps no descriptor of ours but stdin, stdout, stderr and pass_fd
// (ours are opened close-on-exec).

// Starts argv (argv[0] looked up on PATH unless it holds a '/') and returns at once: the
// child's pid, or -1 with errno in *start_error when it could not start. The caller waits
// for it (waitpid). capture_stdout is for run_process only.
pid_t start_process(const std::vector<std::string>& argv, const ProcessOptions& options, int* start_error);

// Runs argv (argv[0] looked up on PATH unless it holds a '/') to its end. A program that
// cannot start is a result (start_error), not an exception: callers record it as they
// record a failure. Throws only when waiting itself fails.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace ktune

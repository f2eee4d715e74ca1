#pragma once
// Runs a program (the `ktune` tool) as a child process: a crash or a hang there is a
// finding, not the end of the test program.
#include <filesystem>
#include <string>
#include <vector>

namespace ktune::file_faults {

struct ToolRun {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal killed it (SIGSEGV: a crash)
  bool timed_out = false;
  std::string out, err;
  std::string command;  // for messages
};

// `args` without the program; stdout and stderr captured through files in `scratch`.
// `file_size_limit` > 0: the child runs under that RLIMIT_FSIZE (`ulimit -f`), in bytes.
ToolRun run_tool(const std::filesystem::path& program, const std::vector<std::string>& args,
                 const std::filesystem::path& scratch, int timeout_s = 120, long file_size_limit = 0);

// The `ktune` tool this test was built with.
std::filesystem::path ktune_tool();

}  // namespace ktune::file_faults

#pragma once
// What compiling one config produced: written by `ktune compile` next to the cubin, read
// by the tuner and the compile benchmark. A config that fails to compile gets a record
// with status "compile-failed" and its log; the build goes on.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ktune {

struct CompileRecord {
  static constexpr int kSchemaVersion = 1;

  std::string status;  // "ok" or "compile-failed"
  int exit_code = 0;
  double wall_s = 0;   // elapsed time of the compiler command
  double cpu_s = 0;    // user + system time of the compiler and its children
  std::string log;     // path of the compiler's output
  std::string cubin;   // path of the cubin; empty when failed (the file is then empty too)

  nlohmann::json to_json() const;
  static CompileRecord from_json(const nlohmann::json& doc, const std::string& origin);
  // Reads and checks the record at `path`. Throws Error naming it, and the fix (delete it
  // and build again), when it is missing, not JSON or not a valid record.
  static CompileRecord read(const std::filesystem::path& path);
};

struct CompileJob {
  std::filesystem::path record;
  std::filesystem::path log;
  std::filesystem::path cubin;
  std::filesystem::path depfile;     // optional: the compiler's dependency file
  std::filesystem::path source;      // the file compiled, for a placeholder depfile
  std::vector<std::string> command;  // the compiler command line, launcher first if any
};

// Runs the job's command with its output in the log and writes the record. Returns the
// exit code for `ktune compile`: 0 whether or not the config compiled, non-zero only when
// ktune itself failed or the compiler was interrupted (Ctrl-C, kill), so an interrupted
// build is rebuilt rather than remembered as a compile failure.
int run_compile_job(const CompileJob& job);

}  // namespace ktune

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
  int exit_code = 0;   // 128 + the signal when the compiler died of one
  std::string signal;  // "SIGSEGV" when the compiler crashed; empty when it exited
  double wall_s = 0;   // elapsed time of the compiler command
  double cpu_s = 0;    // user + system time of the compiler and its children
  std::string log;     // path of the compiler's output
  std::string cubin;   // path of the cubin; empty when failed (the file is then empty too)
  // command_digest() of the compiler command that wrote it: another command (flags,
  // macros, compiler) makes the record stale. Empty in records of older versions.
  std::string command_digest;
  std::string config;  // the config by its values ("TM=64 TN=4"); empty in older records

  nlohmann::json to_json() const;
  static CompileRecord from_json(const nlohmann::json& doc, const std::string& origin);
  // Reads and checks the record at `path`. Throws Error naming it, and the fix (delete it
  // and build again), when it is missing, not JSON or not a valid record.
  static CompileRecord read(const std::filesystem::path& path);
  // Whether the record at `path` exists, is whole and says "ok"; never throws.
  static bool says_ok(const std::filesystem::path& path);
};

struct CompileJob {
  std::filesystem::path record;
  std::filesystem::path log;
  std::filesystem::path cubin;
  std::filesystem::path depfile;     // optional: the compiler's dependency file
  std::filesystem::path source;      // the file compiled, for a placeholder depfile
  std::vector<std::string> command;  // the compiler command line, launcher first if any
  std::string config;                // the config by its values, for the log, record and messages
};

// The compiler's first error line in a compile log (after ktune's own "# " header lines),
// so that a report says why without opening the log; empty when none, or no log.
std::string first_error_line(const std::filesystem::path& log);

// "SIGSEGV" for 11; "signal 64" for one without a name here.
std::string signal_name(int sig);

// Whether a compiler killed by `sig` was interrupted (the build stopped by the user or the
// system: record nothing, compile again next build) rather than crashed on this config.
bool is_interrupt_signal(int sig);

// A digest of a compiler command line (16 hex digits).
std::string command_digest(const std::vector<std::string>& command);

struct CompileOutcome {
  // For `ktune compile`: 0 whether or not the config compiled, non-zero only when the
  // compiler was interrupted (SIGINT, SIGTERM, SIGHUP, SIGKILL: Ctrl-C or a kill), so an
  // interrupted build is rebuilt rather than remembered as a compile failure. A compiler
  // that crashed (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, ...) is recorded compile-failed.
  int exit_code = 0;             // 128 + the signal when the compiler died of one
  std::string signal;            // "SIGSEGV" when the compiler crashed; empty when it exited
  double wall_s = 0, cpu_s = 0;  // the compiler's
};

// Runs the job's command with its output in the log and writes the record. Safe to call
// from several threads at once. Throws Error when the log or record cannot be written.
CompileOutcome run_compile_job(const CompileJob& job);

}  // namespace ktune

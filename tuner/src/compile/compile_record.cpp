#include "ktune/compile_record.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/fnv1a.hpp"
#include "ktune/manifest.hpp"
#include "ktune/process.hpp"
#include "ktune/text.hpp"

namespace ktune {

using nlohmann::json;

json CompileRecord::to_json() const {
  json doc = {{"schema", "ktune.compile"},
              {"schema_version", kSchemaVersion},
              {"status", status},
              {"exit_code", exit_code},
              {"wall_s", wall_s},
              {"cpu_s", cpu_s},
              {"log", log}};
  if (!cubin.empty()) doc["cubin"] = cubin;
  if (!signal.empty()) doc["signal"] = signal;
  if (!command_digest.empty()) doc["command_digest"] = command_digest;
  if (!config.empty()) doc["config"] = config;
  return doc;
}

// Read by `ktune cubins`, the bake and the tuner. A record is a build output: Ninja
// rewrites it only when it is missing or older than its inputs, so the fix for a damaged
// one is to delete it.
namespace {
constexpr const char* kFix = "; delete it and build again to recompile that config";
}

CompileRecord CompileRecord::read(const std::filesystem::path& path) {
  json doc;
  try {
    doc = read_json_file(path);
  } catch (const Error& e) {
    if (!std::filesystem::exists(path)) throw;  // not built yet: building, not deleting, is the fix
    throw Error(std::string(e.what()) + kFix);
  }
  return from_json(doc, path.string());
}

bool CompileRecord::says_ok(const std::filesystem::path& path) {
  try {
    return read(path).status == "ok";
  } catch (const Error&) {
    return false;
  }
}

CompileRecord CompileRecord::from_json(const json& doc, const std::string& origin) {
  auto refuse = [&](const std::string& why) -> Error { return Error(origin + ": " + why + kFix); };
  auto schema = doc.is_object() ? doc.find("schema") : doc.end();
  if (!doc.is_object() || schema == doc.end() || !schema->is_string() || *schema != "ktune.compile")
    throw refuse("not a ktune compile record (no \"schema\": \"ktune.compile\")");
  auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_number_integer() || *version != kSchemaVersion)
    throw refuse("not a compile record of schema version " + std::to_string(kSchemaVersion));
  auto member = [&](const char* name, bool (json::*is)() const noexcept, const char* kind) -> const json& {
    auto it = doc.find(name);
    if (it == doc.end()) throw refuse(std::string("\"") + name + "\" is missing");
    if (!((*it).*is)()) throw refuse(std::string("\"") + name + "\" must be " + kind + ", not " + json_excerpt(*it));
    return *it;
  };
  CompileRecord r;
  r.status = member("status", &json::is_string, "a string").get<std::string>();
  if (r.status != "ok" && r.status != "compile-failed")
    throw refuse("\"status\" is " + json_excerpt(doc["status"]) + ", not \"ok\" or \"compile-failed\"");
  const json& exit_code = member("exit_code", &json::is_number_integer, "an integer");
  if (exit_code.get<int64_t>() < 0 || exit_code.get<int64_t>() > 255 ||
      (exit_code.is_number_unsigned() && exit_code.get<uint64_t>() > 255u))
    throw refuse("\"exit_code\" " + json_excerpt(exit_code) + " is not an exit code");
  r.exit_code = exit_code.get<int>();
  r.wall_s = member("wall_s", &json::is_number, "a number").get<double>();
  r.cpu_s = member("cpu_s", &json::is_number, "a number").get<double>();
  if (!(r.wall_s >= 0 && r.wall_s < 1e9 && r.cpu_s >= 0 && r.cpu_s < 1e9))
    throw refuse("\"wall_s\" and \"cpu_s\" must be times in seconds");
  // Paths, printed in summaries and messages: one line, of a length a file system allows.
  auto path = [&](const char* name) {
    std::string p = member(name, &json::is_string, "a string").get<std::string>();
    if (p.size() > 4096 || p.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
      throw refuse(std::string("\"") + name + "\" is not a path");
    return p;
  };
  r.log = path("log");
  if (doc.contains("cubin")) r.cubin = path("cubin");
  if (doc.contains("signal")) {
    r.signal = member("signal", &json::is_string, "a string").get<std::string>();
    if (r.signal.empty() || r.signal.size() > 16 ||
        r.signal.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 abcdefghijklmnopqrstuvwxyz") !=
            std::string::npos)
      throw refuse("\"signal\" is not a signal's name");
  }
  if (doc.contains("command_digest")) {
    r.command_digest = member("command_digest", &json::is_string, "a string").get<std::string>();
    if (r.command_digest.size() != 16) throw refuse("\"command_digest\" is not a digest");
  }
  if (doc.contains("config")) {
    r.config = member("config", &json::is_string, "a string").get<std::string>();
    if (r.config.size() > 4096 || r.config.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
      throw refuse("\"config\" is not a config's values on one line");
  }
  return r;
}

std::string signal_name(int sig) {
  static const std::pair<int, const char*> names[] = {
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"},
      {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},
      {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"}, {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
      {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"}};
  for (const auto& [number, name] : names)
    if (number == sig) return name;
  return "signal " + std::to_string(sig);
}

bool is_interrupt_signal(int sig) {
  return sig == SIGINT || sig == SIGTERM || sig == SIGKILL || sig == SIGHUP || sig == SIGQUIT;
}

std::string command_digest(const std::vector<std::string>& command) {
  Fnv1a h;
  h.number(command.size());
  for (const auto& arg : command) h.field(arg);
  return h.hex();
}

namespace {

bool is_source_like(const std::filesystem::path& p) {
  static const std::vector<std::string> extensions = {".h",   ".hh",  ".hpp", ".hxx", ".cuh",
                                                      ".inl", ".inc", ".cu",  ".cpp", ".cc"};
  return std::find(extensions.begin(), extensions.end(), p.extension().string()) != extensions.end();
}

// Without the compiler's list, the failed config depends on every header-like file next to
// the source and under each -I directory: an over-approximation that makes a fix in any
// header retry it. Only failed configs pay for it.
void write_fallback_depfile(const CompileJob& job) {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (job.source.has_parent_path()) dirs.push_back(job.source.parent_path());
  for (const auto& arg : job.command)
    if (arg.size() > 2 && arg.starts_with("-I")) dirs.emplace_back(arg.substr(2));
  std::vector<std::string> inputs = {job.source.string()};
  constexpr std::size_t kMaxInputs = 2000;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator() && inputs.size() < kMaxInputs; it.increment(ec)) {
      if (it.depth() > 4) it.disable_recursion_pending();
      if (it->is_regular_file(ec) && is_source_like(it->path()) &&
          std::find(inputs.begin(), inputs.end(), it->path().string()) == inputs.end())
        inputs.push_back(it->path().string());
    }
  }
  std::ofstream out(job.depfile, std::ios::trunc);
  out << job.record.string() << ":";
  for (const auto& input : inputs) {
    out << " \\\n  ";
    for (char c : input) out << (c == ' ' ? "\\ " : std::string(1, c));
  }
  out << "\n";
}

// "config TM=64 TN=4 (1ede47b008f641de)": values for people, the id for the files.
std::string job_name(const CompileJob& job) {
  const std::string id = job.cubin.stem().string();
  return job.config.empty() ? id : "config " + job.config + " (" + id + ")";
}

}  // namespace

std::string first_error_line(const std::filesystem::path& log) {
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("# ktune: ") && line.find("error") != std::string::npos)
      return terminal_text(line, 300);  // a log is any bytes
  return "";
}

CompileOutcome run_compile_job(const CompileJob& job) {
  namespace fs = std::filesystem;
  for (const auto& path : {job.record, job.log, job.cubin, job.depfile})
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
  // A stale cubin must not outlive a failed recompile.
  std::error_code ignored;
  fs::remove(job.cubin, ignored);
  fs::remove(job.record, ignored);

  // The log starts with what was compiled and how, so that it can be read, and the
  // command rerun by hand, without the build files.
  {
    std::ofstream header(job.log, std::ios::trunc);
    if (!job.config.empty()) header << "# ktune: config " << job.config << "\n";
    header << "# ktune: command";
    for (const auto& a : job.command) header << " " << shell_quote(a);
    header << "\n";
  }

  ProcessOptions io;
  io.stdin_file = "/dev/null";
  io.stdout_file = job.log;
  io.stderr_to_stdout = true;
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult run = run_process(job.command, io);
  const int err = run.start_error;
  if (err != 0) {
    // Recorded like a compiler error: the log says why, and the build goes on.
    std::ofstream(job.log, std::ios::app)
        << "ktune: cannot run " << job.command.front() << ": " << std::strerror(err) << "\n";
  }
  CompileOutcome outcome;
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The compiler's own CPU time and its children's, from wait4: exact even while other
  // compiles run beside it.
  outcome.cpu_s = run.cpu_s;

  const int sig = run.signal;
  if (sig != 0 && is_interrupt_signal(sig)) {
    std::cerr << "ktune: the compiler of " << job_name(job) << " was interrupted by " << signal_name(sig)
              << "; nothing recorded, the next build compiles it again\n";
    outcome.exit_code = 128 + sig;
    return outcome;
  }
  if (sig != 0)  // crashed on this config: it would crash again, so it is recorded
    std::ofstream(job.log, std::ios::app) << "\nktune: the compiler died of " << signal_name(sig) << "\n";

  CompileRecord record;
  record.exit_code = run.status();
  if (sig != 0) record.signal = signal_name(sig);
  record.wall_s = outcome.wall_s;
  record.cpu_s = outcome.cpu_s;
  record.log = job.log.string();
  record.command_digest = command_digest(job.command);
  record.config = job.config;
  bool have_cubin = fs::exists(job.cubin) && fs::file_size(job.cubin) > 0;
  record.status = (record.exit_code == 0 && have_cubin) ? "ok" : "compile-failed";
  if (record.status == "ok") {
    record.cubin = job.cubin.string();
  } else {
    // An empty placeholder: the cubin is a declared output of the build edge, and a missing
    // output would make Ninja retry the failed config on every build. The record is the
    // truth; nothing loads a cubin whose record says compile-failed.
    std::ofstream(job.cubin, std::ios::trunc);
    // Likewise a failed compiler may write no depfile (a preprocessor error stops it
    // early), which Ninja also takes as dirty.
    if (!job.depfile.empty() && !fs::exists(job.depfile)) write_fallback_depfile(job);
    std::cerr << "ktune: warning: " << job_name(job) << " did not compile ("
              << (err != 0   ? "cannot run " + job.command.front() + ": " + std::strerror(err)
                  : sig != 0 ? "the compiler died of " + record.signal
                             : "exit code " + std::to_string(record.exit_code))
              << "); recorded as compile-failed, the build goes on. Log: " << job.log.string() << "\n";
  }
  write_file_atomic(job.record, record.to_json().dump(2) + "\n");
  return outcome;
}

}  // namespace ktune

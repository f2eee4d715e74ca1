#include "ktune/process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktune/error.hpp"

extern char** environ;

namespace ktune {
namespace {

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

// One of posix_spawn's argument structs, destroyed however we leave.
template <class T, int (*Init)(T*), int (*Destroy)(T*)>
struct SpawnArgument {
  T a;
  SpawnArgument() { Init(&a); }
  ~SpawnArgument() { Destroy(&a); }
  SpawnArgument(const SpawnArgument&) = delete;
  SpawnArgument& operator=(const SpawnArgument&) = delete;
};
using FileActions =
    SpawnArgument<posix_spawn_file_actions_t, posix_spawn_file_actions_init, posix_spawn_file_actions_destroy>;
using Attributes = SpawnArgument<posix_spawnattr_t, posix_spawnattr_init, posix_spawnattr_destroy>;

// The child's environment: ours, with `env` replacing variables of its names.
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [n, v] : env) replaced = replaced || n == name;
    if (!replaced) out.emplace_back(entry);
  }
  for (const auto& [n, v] : env) out.push_back(n + "=" + v);
  return out;
}

// Starts argv; `capture_write` (or -1) becomes its stdout. Returns its pid, or -1 with the
// errno in `error`.
pid_t spawn(const std::vector<std::string>& args, const ProcessOptions& o, int capture_write, int& error) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  // Actions run in this order in the child: directory, then files, then redirections.
  FileActions actions;
  if (!o.working_directory.empty()) posix_spawn_file_actions_addchdir_np(&actions.a, o.working_directory.c_str());
  if (o.stdin_fd >= 0)
    posix_spawn_file_actions_adddup2(&actions.a, o.stdin_fd, STDIN_FILENO);
  else if (!o.stdin_file.empty())
    posix_spawn_file_actions_addopen(&actions.a, STDIN_FILENO, o.stdin_file.c_str(), O_RDONLY, 0);
  const int append = O_WRONLY | O_CREAT | O_APPEND;
  if (capture_write >= 0)
    posix_spawn_file_actions_adddup2(&actions.a, capture_write, STDOUT_FILENO);
  else if (o.output_fd >= 0)
    posix_spawn_file_actions_adddup2(&actions.a, o.output_fd, STDOUT_FILENO);
  else if (!o.stdout_file.empty())
    posix_spawn_file_actions_addopen(&actions.a, STDOUT_FILENO, o.stdout_file.c_str(), append, 0644);
  if (o.output_fd >= 0)
    posix_spawn_file_actions_adddup2(&actions.a, o.output_fd, STDERR_FILENO);
  else if (!o.stderr_file.empty())
    posix_spawn_file_actions_addopen(&actions.a, STDERR_FILENO, o.stderr_file.c_str(), append, 0644);
  if (o.stderr_to_stdout) posix_spawn_file_actions_adddup2(&actions.a, STDOUT_FILENO, STDERR_FILENO);
  if (o.stdout_to_stderr) posix_spawn_file_actions_adddup2(&actions.a, STDERR_FILENO, STDOUT_FILENO);
  // Last, so that the descriptor numbers above are never overwritten before they are used.
  // dup2 onto another number: the copy is not close-on-exec.
  if (o.pass_fd.first >= 0) posix_spawn_file_actions_adddup2(&actions.a, o.pass_fd.first, o.pass_fd.second);

  // A fresh program expects default signal handling: the caller's mask (a thread that
  // blocks SIGPIPE while it writes) and an ignored SIGPIPE would otherwise cross exec.
  Attributes attributes;
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  sigset_t none, pipe_only;
  sigemptyset(&none);
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes.a, &none);
  posix_spawnattr_setsigdefault(&attributes.a, &pipe_only);
  if (o.own_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attributes.a, 0);
  }
  posix_spawnattr_setflags(&attributes.a, flags);

  std::vector<std::string> environment;
  std::vector<char*> envp;
  if (!o.env.empty()) {
    environment = environment_with(o.env);
    for (auto& e : environment) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  pid_t pid = -1;
  // glibc's posix_spawn waits for the exec: a program that cannot run is an error here.
  error = ::posix_spawnp(&pid, argv[0], &actions.a, &attributes.a, argv.data(), o.env.empty() ? environ : envp.data());
  return error == 0 ? pid : -1;
}

}  // namespace

pid_t start_process(const std::vector<std::string>& args, const ProcessOptions& o, int* start_error) {
  if (args.empty() || args.front().empty()) throw Error("start_process: no program to run");
  if (o.capture_stdout) throw Error("start_process: capture_stdout is for run_process");
  if (o.pass_fd.first >= 0 && (o.pass_fd.second <= STDERR_FILENO || o.pass_fd.second == o.pass_fd.first))
    throw Error("start_process: pass_fd must move a descriptor to another number above stderr");
  int error = 0;
  const pid_t pid = spawn(args, o, -1, error);
  if (start_error) *start_error = error;
  return pid;
}

ProcessResult run_process(const std::vector<std::string>& args, const ProcessOptions& o) {
  if (args.empty() || args.front().empty()) throw Error("run_process: no program to run");
  int pipe_fds[2] = {-1, -1};
  if (o.capture_stdout && ::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw Error("cannot run " + args.front() + ": no pipe (" + std::strerror(errno) + ")");

  ProcessResult r;
  const pid_t pid = spawn(args, o, pipe_fds[1], r.start_error);
  if (o.capture_stdout) {
    ::close(pipe_fds[1]);
    if (r.started()) {
      char buffer[4096];
      for (;;) {
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n > 0)
          r.output.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR)
          break;
      }
    }
    ::close(pipe_fds[0]);
  }
  if (!r.started()) return r;

  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) throw Error("waiting for " + args.front() + " failed: " + std::strerror(errno));
  r.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  if (WIFSIGNALED(status))
    r.signal = WTERMSIG(status);
  else
    r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace ktune

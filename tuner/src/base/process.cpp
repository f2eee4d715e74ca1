#include "ktune/process.hpp"

#include <cerrno>
#include <cstring>

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

// posix_spawn_file_actions_t, destroyed however we leave.
struct FileActions {
  posix_spawn_file_actions_t a;
  FileActions() { posix_spawn_file_actions_init(&a); }
  ~FileActions() { posix_spawn_file_actions_destroy(&a); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
};

}  // namespace

ProcessResult run_process(const std::vector<std::string>& args, const ProcessOptions& o) {
  if (args.empty() || args.front().empty()) throw Error("run_process: no program to run");
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int pipe_fds[2] = {-1, -1};
  if (o.capture_stdout && ::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw Error("cannot run " + args.front() + ": no pipe (" + std::strerror(errno) + ")");

  // Actions run in this order in the child: directory, then files, then redirections.
  FileActions actions;
  if (!o.working_directory.empty()) posix_spawn_file_actions_addchdir_np(&actions.a, o.working_directory.c_str());
  if (!o.stdin_file.empty())
    posix_spawn_file_actions_addopen(&actions.a, STDIN_FILENO, o.stdin_file.c_str(), O_RDONLY, 0);
  const int append = O_WRONLY | O_CREAT | O_APPEND;
  if (o.capture_stdout)
    posix_spawn_file_actions_adddup2(&actions.a, pipe_fds[1], STDOUT_FILENO);
  else if (!o.stdout_file.empty())
    posix_spawn_file_actions_addopen(&actions.a, STDOUT_FILENO, o.stdout_file.c_str(), append, 0644);
  if (!o.stderr_file.empty())
    posix_spawn_file_actions_addopen(&actions.a, STDERR_FILENO, o.stderr_file.c_str(), append, 0644);
  if (o.stderr_to_stdout) posix_spawn_file_actions_adddup2(&actions.a, STDOUT_FILENO, STDERR_FILENO);
  if (o.stdout_to_stderr) posix_spawn_file_actions_adddup2(&actions.a, STDERR_FILENO, STDOUT_FILENO);

  ProcessResult r;
  pid_t pid = 0;
  r.start_error = ::posix_spawnp(&pid, argv[0], &actions.a, nullptr, argv.data(), environ);
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

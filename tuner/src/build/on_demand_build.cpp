#include "ktune/on_demand_build.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "ktune/error.hpp"

extern char** environ;

namespace ktune {

OnDemandBuild::OnDemandBuild(std::filesystem::path kernel_dir, std::string ninja, unsigned jobs)
    : kernel_dir_(std::move(kernel_dir)), ninja_(std::move(ninja)), jobs_(jobs < 1 ? 1 : jobs) {}

OnDemandBuild::Result OnDemandBuild::build(const std::vector<const ManifestConfig*>& configs) const {
  Result result;
  result.asked = configs.size();
  if (configs.empty()) return result;
  const auto ninja_file = kernel_dir_ / "on_demand.ninja";
  if (!std::filesystem::exists(ninja_file))
    throw Error(ninja_file.string() + " does not exist; reconfigure the build (cmake) to write it");
  std::filesystem::create_directories(log().parent_path());

  std::vector<std::string> args = {ninja_, "-f", ninja_file.string(), "-j", std::to_string(jobs_)};
  for (const auto* c : configs) args.push_back((kernel_dir_ / c->record()).string());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // posix_spawn, not fork: the tuner measures on another thread meanwhile.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log().c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int err = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0)
    throw Error("cannot run " + ninja_ + " to compile configs on demand: " + std::strerror(err) +
                "; install Ninja or point KTUNE_NINJA at it");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error("waiting for " + ninja_ + " failed: " + std::strerror(errno));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace ktune

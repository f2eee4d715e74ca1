#pragma once
// A child process that answers requests, one JSON line each way, and may crash or hang.
// (The child's side of the channel: WorkerChannel in worker_protocol.hpp.)
// The tuner runs candidates in one so that a crash, a sticky CUDA error or an infinite
// loop costs a worker, never the tuner: the caller kills it and starts another.
#include <chrono>
#include <optional>
#include <utility>
#include <string>
#include <sys/types.h>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune {

class WorkerProcess {
 public:
  // Starts `argv` with two pipes: requests on its stdin, replies on the file descriptor
  // whose number is appended to argv as "--reply-fd=N". Its stdout and stderr are
  // appended to `log_path` (empty: inherited). `env` sets (or replaces) variables of the
  // child's environment, e.g. CUDA_VISIBLE_DEVICES to pin it to one GPU. Throws Error when
  // it cannot start.
  WorkerProcess(std::vector<std::string> argv, std::string log_path = "",
                std::vector<std::pair<std::string, std::string>> env = {});
  ~WorkerProcess();  // kills the child if still running
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  enum class Outcome { Reply, Died, TimedOut };
  struct Result {
    Outcome outcome;
    nlohmann::json reply;  // Outcome::Reply
    std::string detail;    // Died: "exit code 3" / "killed by signal 11 (SIGSEGV)"
  };

  // Sends one request line and waits at most `timeout` for one reply line. On TimedOut
  // the child is killed (SIGKILL) and reaped; on Died it is reaped. Either way the
  // process is then finished: create a new WorkerProcess to go on.
  Result call(const nlohmann::json& request, std::chrono::milliseconds timeout);

  // Waits for the first line the child sends unasked (its "ready" line).
  Result wait_ready(std::chrono::milliseconds timeout);

  bool alive() const { return pid_ > 0; }
  // True when the child has ended on its own (it is not reaped here: call() reports it).
  bool exited() const;
  pid_t pid() const { return pid_; }

 private:
  Result read_line(std::chrono::milliseconds timeout);
  void kill_and_reap();

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
};

}  // namespace ktune

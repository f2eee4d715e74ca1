#include "ktune/worker_process.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktune/error.hpp"
#include "ktune/process.hpp"
#include "ktune/text.hpp"

namespace ktune {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// A worker that exits on its own (EOF on stdin, or after a crash) gets this long before the
// group is killed: enough for a clean exit, short enough not to stall the tuner.
constexpr milliseconds kExitGrace{200};
// A reply line longer than this is a runaway writer, not a reply.
constexpr std::size_t kMaxLine = std::size_t{64} << 20;

// The child's descriptors 0..2 and its reply descriptor are dup2()ed onto from ours, so
// ours must not hold those numbers: a dup2 onto one would close it before its own turn.
// Only happens when the tuner runs with a std stream closed. Returns false (fd untouched)
// when it cannot move it.
constexpr int kChildReplyFd = 3;
bool move_above_reserved(int& fd) {
  if (fd > kChildReplyFd) return true;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, kChildReplyFd + 1);
  if (moved < 0) return false;
  ::close(fd);
  fd = moved;
  return true;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGHUP:
      return "SIGHUP";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGXCPU:
      return "SIGXCPU";
    default:
      return nullptr;
  }
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    std::string text = "killed by signal " + std::to_string(sig);
    if (const char* name = signal_name(sig)) return text + " (" + name + ")";
    return text + " (" + ::strsignal(sig) + ")";
  }
  return "stopped with wait status " + std::to_string(status);
}

milliseconds remaining(Clock::time_point deadline) {
  auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? left : milliseconds{0};
}

int poll_ms(milliseconds left) { return static_cast<int>(std::min<long long>(left.count(), 1 << 30)); }

// Writes all of `data` to a non-blocking pipe before `deadline`. Returns 0, or the errno
// that stopped it (ETIMEDOUT when the reader did not drain the pipe in time).
//
// SIGPIPE: a write to a pipe whose reader is gone raises SIGPIPE, which by default kills the
// tuner. MSG_NOSIGNAL exists only for sockets, and ignoring SIGPIPE process-wide would change
// the tuner for everyone (and be inherited across exec by every child). So SIGPIPE is blocked
// in this thread during the write (a pipe's SIGPIPE goes to the writing thread), and one it
// raised is consumed before the old mask returns; the write then just fails with EPIPE.
int write_all(int fd, const std::string& data, Clock::time_point deadline) {
  sigset_t pipe_set, old_set, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;

  int err = 0;
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      err = errno;
      break;
    }
    milliseconds left = remaining(deadline);
    if (left.count() == 0) {
      err = ETIMEDOUT;
      break;
    }
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, poll_ms(left)) < 0 && errno != EINTR) {
      err = errno;
      break;
    }
  }

  if (err == EPIPE && !was_pending) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  return err;
}

// True once the child has exited (not reaped: WNOWAIT keeps it a zombie, so its pid still
// names its process group and cannot be reused before the group kill).
bool exited_within(pid_t pid, milliseconds grace) {
  auto deadline = Clock::now() + grace;
  for (;;) {
    siginfo_t info{};
    int rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && info.si_pid == pid) return true;
    if (rc < 0 && errno != EINTR) return true;  // not our child any more; nothing to wait for
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds{2});
  }
}

// Kills the child's whole group (grandchildren included) and reaps the child. Returns its
// wait status, or -1 when someone else reaped it (e.g. SIGCHLD set to SIG_IGN).
int kill_group_and_reap(pid_t pid) {
  if (::kill(-pid, SIGKILL) < 0) ::kill(pid, SIGKILL);  // its group is gone: the child alone
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// For a worker that stopped talking (EOF on replies, EPIPE on requests): gives it a moment
// to finish dying, then kills its group, reaps it and says what happened.
std::string reap_dead_worker(pid_t pid) {
  bool exited = exited_within(pid, kExitGrace);
  int status = kill_group_and_reap(pid);
  if (!exited) return "closed its pipe without exiting; killed";
  if (status < 0) return "exited (status unknown: reaped elsewhere)";
  return describe_status(status);
}

}  // namespace

WorkerProcess::WorkerProcess(std::vector<std::string> argv, std::string log_path,
                             std::vector<std::pair<std::string, std::string>> env) {
  if (argv.empty() || argv[0].empty()) throw Error("cannot start worker: empty command line");

  int request[2], reply[2];
  if (::pipe2(request, O_CLOEXEC) < 0)
    throw Error("cannot start worker " + argv[0] + ": pipe failed: " + errno_text(errno));
  if (::pipe2(reply, O_CLOEXEC) < 0) {
    int err = errno;
    ::close(request[0]);
    ::close(request[1]);
    throw Error("cannot start worker " + argv[0] + ": pipe failed: " + errno_text(err));
  }
  int log_fd = -1;
  auto close_all = [&] {
    for (int fd : {request[0], request[1], reply[0], reply[1], log_fd})
      if (fd >= 0) ::close(fd);
  };
  // Opened here, not in the child, so that a bad path is an Error that names it.
  if (!log_path.empty()) {
    log_fd = ::open(log_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      int err = errno;
      close_all();
      throw Error("cannot start worker " + argv[0] + ": cannot open log " + log_path + ": " + errno_text(err));
    }
  }
  for (int* fd : {&request[0], &request[1], &reply[0], &reply[1], &log_fd}) {
    if (*fd >= 0 && !move_above_reserved(*fd)) {
      int err = errno;
      close_all();
      throw Error("cannot start worker " + argv[0] + ": fcntl(F_DUPFD) failed: " + errno_text(err));
    }
  }

  ProcessOptions options;
  options.stdin_fd = request[0];
  options.output_fd = log_fd;
  options.pass_fd = {reply[1], kChildReplyFd};
  options.own_process_group = true;  // a kill of its group also takes what it started
  options.env = std::move(env);
  argv.push_back("--reply-fd=" + std::to_string(kChildReplyFd));
  int err = 0;
  const pid_t pid = start_process(argv, options, &err);
  if (pid < 0) {
    close_all();
    throw Error("cannot start worker " + argv[0] + ": " + errno_text(err));
  }
  // The child has its copies; ours of its ends are closed.
  for (int fd : {request[0], reply[1], log_fd})
    if (fd >= 0) ::close(fd);
  pid_ = pid;
  to_child_ = request[1];
  from_child_ = reply[0];
  // Non-blocking so that a worker that stops reading cannot stall a request past its timeout.
  ::fcntl(to_child_, F_SETFL, ::fcntl(to_child_, F_GETFL) | O_NONBLOCK);
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0) {
    close_fd(to_child_);  // EOF on its stdin: a well-behaved worker exits
    exited_within(pid_, kExitGrace);
    kill_group_and_reap(pid_);  // also takes any grandchildren it left behind
    pid_ = -1;
  }
  close_fd(to_child_);
  close_fd(from_child_);
}

void WorkerProcess::kill_and_reap() {
  if (pid_ > 0) kill_group_and_reap(pid_);
  pid_ = -1;
  close_fd(to_child_);
  close_fd(from_child_);
}

WorkerProcess::Result WorkerProcess::call(const json& request, milliseconds timeout) {
  if (!alive()) return {Outcome::Died, {}, "worker is not running"};
  const auto deadline = Clock::now() + timeout;
  std::string line = request.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  int err = write_all(to_child_, line, deadline);
  if (err == ETIMEDOUT) {
    kill_and_reap();
    return {Outcome::TimedOut,
            {},
            "no reply within " + std::to_string(timeout.count()) + " ms (the worker did not read its request)"};
  }
  if (err != 0) {
    // EPIPE: the worker closed its stdin, almost surely because it died. Say how.
    std::string why = err == EPIPE ? "" : " (writing the request failed: " + errno_text(err) + ")";
    std::string detail = reap_dead_worker(pid_) + why;
    pid_ = -1;
    close_fd(to_child_);
    close_fd(from_child_);
    return {Outcome::Died, {}, detail};
  }
  Result result = read_line(remaining(deadline));
  // The write used part of the budget; report the caller's timeout, not what was left.
  if (result.outcome == Outcome::TimedOut) result.detail = "no reply within " + std::to_string(timeout.count()) + " ms";
  return result;
}

WorkerProcess::Result WorkerProcess::wait_ready(milliseconds timeout) {
  if (!alive()) return {Outcome::Died, {}, "worker is not running"};
  return read_line(timeout);
}

WorkerProcess::Result WorkerProcess::read_line(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::size_t scanned = 0;  // a long reply arrives in many chunks: search each byte once
  for (;;) {
    std::size_t newline = buffer_.find('\n', scanned);
    scanned = buffer_.size();
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      json reply = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (reply.is_discarded()) {
        kill_and_reap();
        return {Outcome::Died, {}, "malformed reply: " + line.substr(0, 200)};
      }
      return {Outcome::Reply, std::move(reply), ""};
    }
    if (buffer_.size() > kMaxLine) {
      std::string head = buffer_.substr(0, 200);
      kill_and_reap();
      return {Outcome::Died, {}, "malformed reply: no newline in " + std::to_string(kMaxLine) + " bytes: " + head};
    }

    milliseconds left = remaining(deadline);
    pollfd p{from_child_, POLLIN, 0};
    int ready = left.count() > 0 ? ::poll(&p, 1, poll_ms(left)) : ::poll(&p, 1, 0);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      kill_and_reap();
      return {Outcome::TimedOut, {}, "no reply within " + std::to_string(timeout.count()) + " ms"};
    }
    if (ready < 0) {
      int err = errno;
      kill_and_reap();
      return {Outcome::Died, {}, "waiting for the worker's reply failed: " + errno_text(err)};
    }

    char chunk[65536];
    ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    // EOF: every holder of the reply pipe's write end is gone, i.e. the worker died (or
    // closed it, which breaks the protocol just the same).
    std::string detail = reap_dead_worker(pid_);
    pid_ = -1;
    close_fd(to_child_);
    close_fd(from_child_);
    return {Outcome::Died, {}, detail};
  }
}

bool WorkerProcess::exited() const {
  if (pid_ <= 0) return true;
  siginfo_t info{};
  if (::waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return true;
  return info.si_pid != 0;
}

}  // namespace ktune

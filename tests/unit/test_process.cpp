// run_process and start_process: the one way the tuner starts a program (nvcc, the T1
// tuner, gnuplot, the measuring worker).
#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktune/error.hpp"
#include "ktune/process.hpp"
#include "temp_dir.hpp"

namespace ktune {
namespace {

using test_support::TempDir;

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Process, ExitCodeAndCapturedOutput) {
  ProcessOptions io;
  io.capture_stdout = true;
  const ProcessResult r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, io);
  EXPECT_TRUE(r.started());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.status(), 3);
  EXPECT_FALSE(r.succeeded());
  EXPECT_EQ(r.output, "out\n");  // stderr is not captured
}

TEST(Process, AProgramThatCannotStartIsAResultNotAnException) {
  const ProcessResult r = run_process({"/nonexistent/ktune-no-such-program"});
  EXPECT_FALSE(r.started());
  EXPECT_EQ(r.start_error, ENOENT);
  EXPECT_EQ(r.status(), 127);
  const ProcessResult on_path = run_process({"ktune-no-such-program-on-path"});
  EXPECT_EQ(on_path.start_error, ENOENT);
}

TEST(Process, ASignalIsReportedAsTheShellDoes) {
  const ProcessResult r = run_process({"sh", "-c", "kill -SEGV $$"});
  EXPECT_TRUE(r.started());
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.status(), 128 + SIGSEGV);
}

TEST(Process, OutputAppendsToAFileWithStderrFollowing) {
  TempDir dir;
  const auto log = dir.path() / "log";
  std::ofstream(log) << "header\n";
  ProcessOptions io;
  io.stdin_file = "/dev/null";
  io.stdout_file = log;
  io.stderr_to_stdout = true;
  // stdin is /dev/null: `cat` ends at once instead of waiting on the test's terminal.
  const ProcessResult r = run_process({"sh", "-c", "cat; echo out; echo err >&2"}, io);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(slurp(log), "header\nout\nerr\n");
}

TEST(Process, RunsInTheGivenDirectoryWithStderrToAFile) {
  TempDir dir;
  ProcessOptions io;
  io.working_directory = dir.path();
  io.stderr_file = dir.path() / "errors";
  io.capture_stdout = true;
  const ProcessResult r = run_process({"sh", "-c", "pwd; echo oops >&2; touch made_here"}, io);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(r.output, std::filesystem::canonical(dir.path()).string() + "\n");
  EXPECT_EQ(slurp(dir.path() / "errors"), "oops\n");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "made_here"));
}

TEST(Process, CpuTimeCountsTheChildrensWork) {
  // A busy loop in a grandchild: wait4's usage includes children the program waited for.
  const ProcessResult r = run_process({"sh", "-c", "sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'"});
  EXPECT_TRUE(r.succeeded());
  EXPECT_GT(r.cpu_s, 0.01);
}

// What the measuring worker needs: its stdin and output on our descriptors, one more
// descriptor under a number of its own, a group of its own and a changed environment.
TEST(Process, StartedChildGetsPipesAGroupAndAnEnvironment) {
  TempDir dir;
  const auto log = dir.path() / "log";
  int request[2], reply[2];
  ASSERT_EQ(::pipe2(request, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(reply, O_CLOEXEC), 0);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(log_fd, 0);
  ::setenv("KTUNE_TEST_REPLACED", "ours", 1);
  ::setenv("KTUNE_TEST_KEPT", "kept", 1);
  ProcessOptions o;
  o.stdin_fd = request[0];
  o.output_fd = log_fd;
  o.pass_fd = {reply[1], 9};  // a number none of ours holds (sh reads one digit)
  o.own_process_group = true;
  o.env = {{"KTUNE_TEST_REPLACED", "theirs"}};
  int error = -1;
  const pid_t pid = start_process(
      {"sh", "-c", "read line; echo \"$line $KTUNE_TEST_REPLACED $KTUNE_TEST_KEPT\" >&9; echo out; echo err >&2"}, o,
      &error);
  ::unsetenv("KTUNE_TEST_REPLACED");
  ::unsetenv("KTUNE_TEST_KEPT");
  ASSERT_GT(pid, 0);
  EXPECT_EQ(error, 0);
  EXPECT_EQ(::getpgid(pid), pid);  // its own group, formed before start_process returned
  for (int fd : {request[0], reply[1], log_fd}) ::close(fd);
  ASSERT_EQ(::write(request[1], "hello\n", 6), 6);
  ::close(request[1]);
  std::string answer;
  char buffer[256];
  for (ssize_t n; (n = ::read(reply[0], buffer, sizeof buffer)) > 0;)
    answer.append(buffer, static_cast<std::size_t>(n));
  ::close(reply[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(answer, "hello theirs kept\n");
  EXPECT_EQ(slurp(log), "out\nerr\n");
}

TEST(Process, StartingWhatCannotStartIsAnErrnoAndMisuseIsAnError) {
  int error = 0;
  EXPECT_EQ(start_process({"/nonexistent/ktune-no-such-program"}, {}, &error), -1);
  EXPECT_EQ(error, ENOENT);
  ProcessOptions capture;
  capture.capture_stdout = true;
  EXPECT_THROW(start_process({"true"}, capture, &error), Error);
  ProcessOptions onto_stdout;
  onto_stdout.pass_fd = {5, STDOUT_FILENO};
  EXPECT_THROW(start_process({"true"}, onto_stdout, &error), Error);
  EXPECT_THROW(start_process({}, {}, &error), Error);
}

// A thread that blocks SIGPIPE while it writes, or a process that ignores it, must not hand
// that on: nvcc and the worker start with default signal handling.
TEST(Process, ProgramsStartWithNoSignalBlockedAndSigpipeAtItsDefault) {
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set), 0);
  struct sigaction ignore {
  }, old_action{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &old_action), 0);
  ProcessOptions io;
  io.capture_stdout = true;
  const ProcessResult r = run_process({"cat", "/proc/self/status"}, io);
  ::sigaction(SIGPIPE, &old_action, nullptr);
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  ASSERT_TRUE(r.succeeded());
  // /proc's masks are hex, bit n-1 for signal n: SIGPIPE (13) is 0x1000.
  auto mask = [&](const std::string& field) {
    const auto at = r.output.find(field + ":\t");
    return at == std::string::npos ? ~0ULL : std::stoull(r.output.substr(at + field.size() + 2, 16), nullptr, 16);
  };
  EXPECT_EQ(mask("SigBlk"), 0ULL);
  EXPECT_EQ(mask("SigIgn") & (1ULL << (SIGPIPE - 1)), 0ULL);
}

}  // namespace
}  // namespace ktune

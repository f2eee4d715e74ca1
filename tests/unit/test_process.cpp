// run_process: the one way the tuner starts a program (nvcc, the T1 tuner, gnuplot).
#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace ktune

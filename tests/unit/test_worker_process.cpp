#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/text.hpp"
#include "ktune/worker_process.hpp"
#include "ktune/worker_protocol.hpp"

#ifndef KTUNE_FAKE_WORKER
#error "KTUNE_FAKE_WORKER must name the fake_worker executable"
#endif

namespace {

using ktune::WorkerProcess;
using nlohmann::json;
using Outcome = WorkerProcess::Outcome;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kStart{5000};  // generous: sanitizer builds start slowly
constexpr milliseconds kCall{5000};

std::unique_ptr<WorkerProcess> start(const std::string& log_path = "") {
  auto w = std::make_unique<WorkerProcess>(std::vector<std::string>{KTUNE_FAKE_WORKER}, log_path);
  auto ready = w->wait_ready(kStart);
  EXPECT_EQ(ready.outcome, Outcome::Reply) << ready.detail;
  EXPECT_EQ(ready.reply, json({{"ready", true}}));
  return w;
}

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "ktune_wp_" + std::to_string(::getpid()) + "_" + name;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Gone, or a zombie waiting for init to reap it (it was reparented: not ours to reap).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) < 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

bool gone_within(pid_t pid, milliseconds limit) {
  auto deadline = Clock::now() + limit;
  while (!process_gone(pid)) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds{5});
  }
  return true;
}

// Every test ends with no child of this process left, running or zombie.
class WorkerProcessTest : public testing::Test {
 protected:
  void TearDown() override {
    int status = 0;
    errno = 0;
    pid_t found = ::waitpid(-1, &status, WNOHANG);
    EXPECT_EQ(found, -1) << "a child process was left behind (0: running, >0: zombie)";
    EXPECT_EQ(errno, ECHILD);
  }
};

}  // namespace

TEST_F(WorkerProcessTest, ReadyThenSeveralEchoes) {
  auto w = start();
  ASSERT_TRUE(w->alive());
  for (int i = 0; i < 5; ++i) {
    json request = {{"op", "echo"}, {"i", i}, {"text", "hello \"worker\"\n"}};
    auto r = w->call(request, kCall);
    ASSERT_EQ(r.outcome, Outcome::Reply) << r.detail;
    EXPECT_EQ(r.reply, request);
  }
  EXPECT_TRUE(w->alive());
}

TEST_F(WorkerProcessTest, LargeRequestAndReplyCrossThePipeInPieces) {
  auto w = start();
  json request = {{"op", "echo"}, {"payload", std::string(1 << 20, 'x')}};
  auto r = w->call(request, kCall);
  ASSERT_EQ(r.outcome, Outcome::Reply) << r.detail;
  EXPECT_EQ(r.reply, request);
}

TEST_F(WorkerProcessTest, CrashIsDiedWithSignalNameAndANewWorkerWorks) {
  auto w = start();
  auto r = w->call({{"op", "crash"}}, kCall);
  EXPECT_EQ(r.outcome, Outcome::Died);
  EXPECT_NE(r.detail.find("killed by signal"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("SIGSEGV"), std::string::npos) << r.detail;
  EXPECT_FALSE(w->alive());

  auto next = start();
  auto e = next->call({{"op", "echo"}, {"n", 1}}, kCall);
  ASSERT_EQ(e.outcome, Outcome::Reply) << e.detail;
  EXPECT_EQ(e.reply["n"], 1);
}

TEST_F(WorkerProcessTest, ExitCodeIsReported) {
  auto w = start();
  auto r = w->call({{"op", "exit"}}, kCall);
  EXPECT_EQ(r.outcome, Outcome::Died);
  EXPECT_EQ(r.detail, "exit code 3");
  EXPECT_FALSE(w->alive());
}

TEST_F(WorkerProcessTest, ExitBetweenCallsIsDiedOnTheNextCall) {
  auto w = start();
  auto r = w->call({{"op", "exit_after_reply"}, {"code", 5}}, kCall);
  ASSERT_EQ(r.outcome, Outcome::Reply) << r.detail;
  // The write may land before the exit (then EOF) or after it (then EPIPE): same answer.
  auto next = w->call({{"op", "echo"}}, kCall);
  EXPECT_EQ(next.outcome, Outcome::Died);
  EXPECT_EQ(next.detail, "exit code 5");
}

TEST_F(WorkerProcessTest, ClosedStdinIsDiedNotSigpipe) {
  auto w = start();
  auto r = w->call({{"op", "close_stdin"}}, kCall);
  ASSERT_EQ(r.outcome, Outcome::Reply) << r.detail;
  // SIGPIPE would kill this test process; the call must report it instead.
  auto next = w->call({{"op", "echo"}}, kCall);
  EXPECT_EQ(next.outcome, Outcome::Died);
  EXPECT_NE(next.detail.find("without exiting"), std::string::npos) << next.detail;
  EXPECT_FALSE(w->alive());
}

TEST_F(WorkerProcessTest, ClosedReplyPipeIsDied) {
  auto w = start();
  auto r = w->call({{"op", "close_reply"}}, kCall);
  EXPECT_EQ(r.outcome, Outcome::Died);
  EXPECT_NE(r.detail.find("without exiting"), std::string::npos) << r.detail;
}

TEST_F(WorkerProcessTest, HangTimesOutInAboutTheTimeout) {
  auto w = start();
  constexpr milliseconds timeout{300};
  auto t0 = Clock::now();
  auto r = w->call({{"op", "hang"}}, timeout);
  auto elapsed = Clock::now() - t0;
  EXPECT_EQ(r.outcome, Outcome::TimedOut);
  EXPECT_EQ(r.detail, "no reply within 300 ms");
  EXPECT_GE(elapsed, timeout);
  EXPECT_LT(elapsed, timeout + milliseconds{1000});
  EXPECT_FALSE(w->alive());
}

TEST_F(WorkerProcessTest, GarbageIsMalformedReply) {
  auto w = start();
  auto r = w->call({{"op", "garbage"}}, kCall);
  EXPECT_EQ(r.outcome, Outcome::Died);
  EXPECT_EQ(r.detail, "malformed reply: not json");
  EXPECT_FALSE(w->alive());
}

TEST_F(WorkerProcessTest, TimeoutKillsTheWholeProcessGroup) {
  auto w = start();
  auto r = w->call({{"op", "spawn_and_hang"}}, kCall);
  ASSERT_EQ(r.outcome, Outcome::Reply) << r.detail;
  pid_t grandchild = r.reply.at("grandchild").get<pid_t>();
  ASSERT_GT(grandchild, 0);
  EXPECT_FALSE(process_gone(grandchild));

  auto t = w->call({{"op", "echo"}}, milliseconds{200});  // the worker is hanging
  EXPECT_EQ(t.outcome, Outcome::TimedOut);
  EXPECT_TRUE(gone_within(grandchild, milliseconds{2000})) << "grandchild " << grandchild;
}

TEST_F(WorkerProcessTest, DestructorKillsAHangingWorkerAndItsGroup) {
  pid_t grandchild = -1;
  auto t0 = Clock::now();
  {
    auto w = start();
    auto r = w->call({{"op", "spawn_and_hang"}}, kCall);
    ASSERT_EQ(r.outcome, Outcome::Reply) << r.detail;
    grandchild = r.reply.at("grandchild").get<pid_t>();
    t0 = Clock::now();
  }
  EXPECT_LT(Clock::now() - t0, milliseconds{1000});
  EXPECT_TRUE(gone_within(grandchild, milliseconds{2000})) << "grandchild " << grandchild;
}

TEST_F(WorkerProcessTest, LogReceivesStdoutAndStderr) {
  const std::string log = temp_path("print.log");
  ::unlink(log.c_str());
  {
    auto w = start(log);
    auto r = w->call({{"op", "print"}, {"out", "to stdout 123"}, {"err", "to stderr 456"}}, kCall);
    ASSERT_EQ(r.outcome, Outcome::Reply) << r.detail;
    EXPECT_EQ(r.reply["printed"], true);
  }
  std::string text = read_file(log);
  EXPECT_NE(text.find("to stdout 123"), std::string::npos) << text;
  EXPECT_NE(text.find("to stderr 456"), std::string::npos) << text;
  ::unlink(log.c_str());
}

TEST_F(WorkerProcessTest, LogThatCannotBeOpenedThrowsNamingIt) {
  const std::string bad = "/nonexistent-ktune-dir/worker.log";
  try {
    WorkerProcess w({KTUNE_FAKE_WORKER}, bad);
    FAIL() << "expected ktune::Error";
  } catch (const ktune::Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
}

TEST_F(WorkerProcessTest, EmptyCommandThrows) { EXPECT_THROW(WorkerProcess({}), ktune::Error); }

TEST_F(WorkerProcessTest, CallAfterDeathIsDiedWithoutThrowing) {
  auto w = start();
  EXPECT_EQ(w->call({{"op", "exit"}}, kCall).outcome, Outcome::Died);
  for (int i = 0; i < 2; ++i) {
    WorkerProcess::Result r;
    EXPECT_NO_THROW(r = w->call({{"op", "echo"}}, kCall));
    EXPECT_EQ(r.outcome, Outcome::Died);
    EXPECT_EQ(r.detail, "worker is not running");
  }
  EXPECT_EQ(w->wait_ready(kCall).detail, "worker is not running");
}

TEST_F(WorkerProcessTest, NonexistentProgramIsAnErrorThatNamesIt) {
  try {
    WorkerProcess w({"/nonexistent/ktune-no-such-worker", "--flag"}, temp_path("missing.log"));
    FAIL() << "expected ktune::Error";
  } catch (const ktune::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot start worker /nonexistent/ktune-no-such-worker: " + ktune::errno_text(ENOENT));
  }
}

TEST_F(WorkerProcessTest, OneWorkerDyingLeavesAnotherAlone) {
  auto a = start();
  auto b = start();
  EXPECT_EQ(a->call({{"op", "crash"}}, kCall).outcome, Outcome::Died);
  auto r = b->call({{"op", "echo"}, {"who", "b"}}, kCall);
  ASSERT_EQ(r.outcome, Outcome::Reply) << r.detail;
  EXPECT_EQ(r.reply["who"], "b");
}

TEST(WorkerChannel, ReplyFdFromArgs) {
  char prog[] = "worker", other[] = "--x", good[] = "--reply-fd=17", bad[] = "--reply-fd=1x", empty[] = "--reply-fd=";
  char* with[] = {prog, other, good, nullptr};
  EXPECT_EQ(ktune::WorkerChannel::reply_fd_from_args(3, with), 17);
  char* without[] = {prog, other, nullptr};
  EXPECT_EQ(ktune::WorkerChannel::reply_fd_from_args(2, without), -1);
  char* malformed[] = {prog, bad, nullptr};
  EXPECT_EQ(ktune::WorkerChannel::reply_fd_from_args(2, malformed), -1);
  char* blank[] = {prog, empty, nullptr};
  EXPECT_EQ(ktune::WorkerChannel::reply_fd_from_args(2, blank), -1);
}

TEST(WorkerChannel, BadReplyFdThrows) { EXPECT_THROW(ktune::WorkerChannel(-1), ktune::Error); }

TEST(WorkerChannel, ReadsRequestsAndWritesReplyLines) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::istringstream input("{\"op\":\"a\"}\n\n[1,2]\nnot json\n");
  auto* saved = std::cin.rdbuf(input.rdbuf());
  {
    ktune::WorkerChannel channel(fds[1]);
    auto first = channel.next_request();
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ((*first)["op"], "a");
    auto second = channel.next_request();  // the blank line is skipped
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(*second, json::array({1, 2}));
    EXPECT_THROW(channel.next_request(), ktune::Error);
    EXPECT_FALSE(channel.next_request().has_value());
    channel.reply({{"x", 1}});
  }
  std::cin.rdbuf(saved);
  std::cin.clear();
  ::close(fds[1]);
  char buf[64];
  ssize_t n = ::read(fds[0], buf, sizeof buf);
  ::close(fds[0]);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)), "{\"x\":1}\n");
}

// A compiler killed by a signal: a crash (SIGSEGV in nvcc, an abort) is a failed compile of
// that config, recorded so that the next build does not retry it; an interrupt of the build
// (Ctrl-C, a stop, a kill) records nothing, so the next build compiles it again.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/compile_record.hpp"
#include "ktune/error.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using ktune::test_support::read;

struct Killed {
  ktune::CompileOutcome outcome;
  fs::path dir;
};

// A "compiler" that writes a line to its log, then kills itself with `sig`.
ktune::CompileJob job_killed_by(const fs::path& dir, int sig) {
  return {dir / "records/c.json", dir / "logs/c.log",
          dir / "cubins/c.cubin", dir / "deps/c.d",
          dir / "k.cu",           {"sh", "-c", "echo compiling; kill -" + std::to_string(sig) + " $$"}};
}

class CrashSignal : public testing::TestWithParam<int> {};

TEST_P(CrashSignal, IsRecordedCompileFailedWithTheSignalNamed) {
  ktune::test_support::TempDir tmp;
  const int sig = GetParam();
  const ktune::CompileJob job = job_killed_by(tmp.path(), sig);
  const ktune::CompileOutcome outcome = ktune::run_compile_job(job);
  EXPECT_EQ(outcome.exit_code, 0) << "a crash is a failed compile: the build goes on";
  const ktune::CompileRecord r = ktune::CompileRecord::read(job.record);
  EXPECT_EQ(r.status, "compile-failed");
  EXPECT_EQ(r.signal, ktune::signal_name(sig));
  EXPECT_EQ(r.exit_code, 128 + sig);
  const std::string log = read(job.log);
  EXPECT_NE(log.find("compiling"), std::string::npos) << log;
  EXPECT_NE(log.find("ktune: the compiler died of " + ktune::signal_name(sig)), std::string::npos) << log;
  EXPECT_TRUE(fs::exists(job.cubin)) << "the placeholder keeps Ninja from retrying it";
  // Read back by every reader of records.
  EXPECT_FALSE(ktune::CompileRecord::says_ok(job.record));
}

INSTANTIATE_TEST_SUITE_P(CompileSignals, CrashSignal, testing::Values(SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSYS),
                         [](const testing::TestParamInfo<int>& info) { return ktune::signal_name(info.param); });

class InterruptSignal : public testing::TestWithParam<int> {};

TEST_P(InterruptSignal, RecordsNothingSoTheNextBuildRetries) {
  ktune::test_support::TempDir tmp;
  const int sig = GetParam();
  const ktune::CompileJob job = job_killed_by(tmp.path(), sig);
  const ktune::CompileOutcome outcome = ktune::run_compile_job(job);
  EXPECT_EQ(outcome.exit_code, 128 + sig);
  EXPECT_FALSE(fs::exists(job.record)) << "an interrupted compile records nothing";
}

INSTANTIATE_TEST_SUITE_P(CompileSignals, InterruptSignal, testing::Values(SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGKILL),
                         [](const testing::TestParamInfo<int>& info) { return ktune::signal_name(info.param); });

// A compiler that cannot be started (here: an argument list over the system's limit, as a
// spec with megabytes of options gives) is a failed compile whose warning says why.
TEST(CompileSignals, ACompilerThatCannotStartSaysWhy) {
  ktune::test_support::TempDir tmp;
  const fs::path dir = tmp.path();
  ktune::CompileJob job{dir / "records/c.json", dir / "logs/c.log", dir / "cubins/c.cubin",
                        dir / "deps/c.d",       dir / "k.cu",       {"true"}};
  for (int i = 0; i < 64; ++i) job.command.push_back(std::string(128 * 1024 - 1, 'x'));  // 8 MiB
  testing::internal::CaptureStderr();
  const ktune::CompileOutcome outcome = ktune::run_compile_job(job);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(outcome.exit_code, 0) << "a failed compile: the build goes on";
  EXPECT_EQ(ktune::CompileRecord::read(job.record).status, "compile-failed");
  EXPECT_NE(err.find("did not compile (cannot run true: Argument list too long)"), std::string::npos) << err;
  EXPECT_NE(read(job.log).find("Argument list too long"), std::string::npos);
}

TEST(CompileSignals, SignalNamesAndKinds) {
  EXPECT_EQ(ktune::signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(ktune::signal_name(64), "signal 64");
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGKILL}) EXPECT_TRUE(ktune::is_interrupt_signal(sig)) << sig;
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSYS, SIGXCPU})
    EXPECT_FALSE(ktune::is_interrupt_signal(sig)) << sig;
}

// "signal" in a record is read back; damage there makes the record refused like any other.
TEST(CompileSignals, RecordKeepsTheSignalAndRefusesAnotherValue) {
  ktune::CompileRecord r;
  r.status = "compile-failed";
  r.exit_code = 128 + SIGSEGV;
  r.signal = "SIGSEGV";
  r.log = "/logs/c.log";
  nlohmann::json doc = r.to_json();
  EXPECT_EQ(ktune::CompileRecord::from_json(doc, "c.json").signal, "SIGSEGV");
  doc["signal"] = "SIG\x1b[2J";
  EXPECT_THROW(ktune::CompileRecord::from_json(doc, "c.json"), ktune::Error);
  doc["signal"] = 11;
  EXPECT_THROW(ktune::CompileRecord::from_json(doc, "c.json"), ktune::Error);
}

}  // namespace

// A config is named by its values wherever a person reads about its compile: the log's
// first lines (with the command, to rerun by hand), the record, the build's warning.
#include <gtest/gtest.h>

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

// A "compiler" whose command line itself says "error" (as -Werror would), and that fails.
ktune::CompileJob failing_job(const fs::path& dir) {
  return {dir / "records/1ede47b008f641de.json",
          dir / "logs/1ede47b008f641de.log",
          dir / "cubins/1ede47b008f641de.cubin",
          dir / "deps/1ede47b008f641de.d",
          dir / "k.cu",
          {"sh", "-c", "echo 'k.cu(5): error: identifier \"BROWZ\" is undefined' >&2; exit 2", "-Werror"},
          "BLOCK=128 UNROLL=2"};
}

TEST(CompileLog, StartsWithTheConfigAndTheCommand) {
  ktune::test_support::TempDir tmp;
  const ktune::CompileJob job = failing_job(tmp.path());
  testing::internal::CaptureStderr();
  ktune::run_compile_job(job);
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string log = read(job.log);
  EXPECT_EQ(log.rfind("# ktune: config BLOCK=128 UNROLL=2\n# ktune: command sh -c 'echo '\\''k.cu(5)", 0), 0u) << log;
  EXPECT_NE(log.find("-Werror\nk.cu(5): error: identifier \"BROWZ\" is undefined\n"), std::string::npos) << log;
  EXPECT_NE(err.find("warning: config BLOCK=128 UNROLL=2 (1ede47b008f641de) did not compile (exit code 2)"),
            std::string::npos)
      << err;
  const ktune::CompileRecord r = ktune::CompileRecord::read(job.record);
  EXPECT_EQ(r.status, "compile-failed");
  EXPECT_EQ(r.config, "BLOCK=128 UNROLL=2");
  // The compiler's error, not ktune's header line that quotes a command saying "error".
  EXPECT_EQ(ktune::first_error_line(job.log), "k.cu(5): error: identifier \"BROWZ\" is undefined");
}

TEST(CompileLog, WithoutValuesTheIdNamesTheConfig) {
  ktune::test_support::TempDir tmp;
  ktune::CompileJob job = failing_job(tmp.path());
  job.config.clear();
  testing::internal::CaptureStderr();
  ktune::run_compile_job(job);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("warning: 1ede47b008f641de did not compile"), std::string::npos) << err;
  EXPECT_EQ(read(job.log).rfind("# ktune: command sh -c ", 0), 0u);
  EXPECT_FALSE(ktune::CompileRecord::read(job.record).to_json().contains("config"));
}

TEST(CompileLog, TheRecordsConfigIsOneLineOfText) {
  ktune::CompileRecord r;
  r.status = "ok";
  r.log = "/logs/c.log";
  r.config = "TM=64 TN=4";
  nlohmann::json doc = r.to_json();
  EXPECT_EQ(ktune::CompileRecord::from_json(doc, "c.json").config, "TM=64 TN=4");
  doc["config"] = "TM=64\nTN=4";
  EXPECT_THROW(ktune::CompileRecord::from_json(doc, "c.json"), ktune::Error);
  doc["config"] = 64;
  EXPECT_THROW(ktune::CompileRecord::from_json(doc, "c.json"), ktune::Error);
}

TEST(CompileLog, FirstErrorLineOfNoLogIsEmpty) { EXPECT_EQ(ktune::first_error_line("/nonexistent/ktune/c.log"), ""); }

}  // namespace

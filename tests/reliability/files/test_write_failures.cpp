// Writes that fail in ways other than a full disk: over a file size limit (`ulimit -f`, which
// without care kills the writer with SIGXFSZ and leaves its temporary file), ktune merge,
// bake and export say so on one line naming the file, leave no temporary file and keep the
// old file as it was. A compiler killed by a crash signal is a recorded compile failure; one
// interrupted (Ctrl-C, a stop) records nothing.
#include <gtest/gtest.h>

#include <csignal>

#include "checks.hpp"
#include "kernel_dir.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/db.hpp"
#include "ktune/fingerprint.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::read;
using test_support::write;

constexpr long kLimit = 16384;  // bytes: above every message, below what is written

// Files under `dir` whose name says they are a temporary of an atomic write.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

void expect_clear_failure(const ToolRun& run, const fs::path& file) {
  EXPECT_EQ(run.signal, 0) << "killed by signal " << run.signal << " (SIGXFSZ is " << SIGXFSZ << ")";
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find(file.string()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("File too large"), std::string::npos) << run.err;
  EXPECT_EQ(message_problem(run.err), "") << run.err;
}

// A DB of `n` measured configs on one key: large enough to pass the limit.
void big_db(const fs::path& path, const KernelDir& k, int n) {
  const json doc = json::parse(read(k.db()));
  const Fingerprint fp = Fingerprint::from_json(doc["fingerprints"].begin().value()["fingerprint"]);
  std::vector<DbRecord> records;
  for (int i = 0; i < n; ++i) {
    Measurement m;
    m.samples_ms = {1.0 + i, 1.0 + i, 1.0 + i};
    m.median_ms = 1.0 + i;
    const json values = {{"TM", i}, {"TN", 4}};
    records.push_back({fp, "M=1,N=2", config_id_of(values), values, m});
  }
  Db(path, "k").record_many(records);
}

TEST(WriteFailures, MergeOverAFileSizeLimit) {
  KernelDir k;
  const fs::path input = k.root() / "big" / "NVIDIA_H200.json", into = k.root() / "into";
  big_db(input, k, 2000);
  ASSERT_GT(fs::file_size(input), static_cast<std::uintmax_t>(kLimit));
  fs::create_directories(into);
  fs::copy_file(k.db(), into / "NVIDIA_H200.json");
  const std::string before = read(into / "NVIDIA_H200.json");
  const ToolRun run =
      run_tool(ktune_tool(), {"merge", "--into", into.string(), input.string()}, k.root() / "run", 120, kLimit);
  expect_clear_failure(run, into / "NVIDIA_H200.json");
  EXPECT_EQ(read(into / "NVIDIA_H200.json"), before);
  EXPECT_EQ(temporaries(into), std::vector<std::string>{});
}

TEST(WriteFailures, BakeOverAFileSizeLimit) {
  KernelDir k;
  // Cubins large enough that the generated source passes the limit.
  for (const auto& e : fs::directory_iterator(k.dir() / "cubins")) write(e.path(), std::string(8192, 'c'));
  fs::create_directories(k.bake_dir());
  write(k.generated(), "// the previous bake\n");
  const ToolRun run = run_tool(ktune_tool(),
                               {"bake", "--manifest", k.manifest().string(), "--out-dir", k.bake_dir().string(),
                                "--db-dir", k.db_dir().string()},
                               k.root() / "run", 120, kLimit);
  expect_clear_failure(run, k.generated());
  EXPECT_EQ(read(k.generated()), "// the previous bake\n");
  EXPECT_EQ(temporaries(k.bake_dir()), std::vector<std::string>{});
}

TEST(WriteFailures, ExportOverAFileSizeLimit) {
  KernelDir k;
  const fs::path input = k.root() / "big.json", out = k.root() / "out.json";
  big_db(input, k, 2000);
  write(out, "previous\n");
  const ToolRun run =
      run_tool(ktune_tool(),
               {"export", "--db", input.string(), "--key", "M=1,N=2", "--format", "kt-cache", "--out", out.string()},
               k.root() / "run", 120, kLimit);
  expect_clear_failure(run, out);
  EXPECT_EQ(read(out), "previous\n");
  EXPECT_EQ(temporaries(k.root()), std::vector<std::string>{});
}

// `ktune compile` around a compiler that kills itself with `sig`.
ToolRun compile_killed_by(const KernelDir& k, int sig) {
  const fs::path d = k.root() / "compile";
  return k.ktune({"compile", "--record", (d / "r.json").string(), "--log", (d / "c.log").string(), "--cubin",
                  (d / "c.cubin").string(), "--", "sh", "-c", "kill -" + std::to_string(sig) + " $$"});
}

TEST(WriteFailures, CompilerCrashIsRecordedInterruptIsNot) {
  KernelDir k;
  const fs::path record = k.root() / "compile" / "r.json";
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS}) {
    fs::remove(record);
    const ToolRun run = compile_killed_by(k, sig);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const CompileRecord r = CompileRecord::read(record);
    EXPECT_EQ(r.status, "compile-failed");
    EXPECT_EQ(r.signal, signal_name(sig));
    EXPECT_NE(run.err.find("the compiler died of " + signal_name(sig)), std::string::npos) << run.err;
    EXPECT_NE(read(k.root() / "compile" / "c.log").find("died of " + signal_name(sig)), std::string::npos);
  }
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    fs::remove(record);
    const ToolRun run = compile_killed_by(k, sig);
    EXPECT_EQ(run.exit_code, 128 + sig) << run.err;
    EXPECT_FALSE(fs::exists(record)) << signal_name(sig);
    EXPECT_NE(run.err.find("interrupted by " + signal_name(sig)), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace ktune::file_faults

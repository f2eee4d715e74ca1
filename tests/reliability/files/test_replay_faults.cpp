// Damaged, future-schema or hostile recordings of other tuners: Kernel Tuner cache files
// (`ktune simulate --cache`, `ktune export --cache`), plain and gzipped, and T4 results
// (`ktune import --t4`, `ktune simulate --t4`). Each is refused on one line naming the
// file, before anything is written; odd text in names and labels is harmless.
#include <gtest/gtest.h>

#include <iostream>

#include <zlib.h>

#include "checks.hpp"
#include "fault_matrix.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"
#include "tool_run.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::read;
using test_support::TempDir;
using test_support::write;

// TM in {1, 2}, TN in {4, 8}, every config timed: what Kernel Tuner writes (schema 1.1.0).
json kt_cache() {
  json cache = json::object();
  for (int tm : {1, 2})
    for (int tn : {4, 8})
      cache[std::to_string(tm) + "," + std::to_string(tn)] = {{"TM", tm},
                                                              {"TN", tn},
                                                              {"time", 1.0 / (tm * tn)},
                                                              {"times", {0.25, 0.25}},
                                                              {"compile_time", 10.0},
                                                              {"timestamp", "2025-01-31T12:00:00Z"}};
  return {{"schema_version", "1.1.0"},
          {"device_name", "NVIDIA H200"},
          {"kernel_name", "k"},
          {"problem_size", {1024}},
          {"tune_params_keys", {"TM", "TN"}},
          {"tune_params", {{"TM", {1, 2}}, {"TN", {4, 8}}}},
          {"objective", "time"},
          {"cache", cache}};
}

Shape kt_cache_shape() {
  Shape s;
  s.version = "/schema_version";
  s.future_version = "2.0.0";
  s.required = {"/tune_params_keys", "/tune_params", "/cache", "/tune_params/TM", "/cache/*/TM", "/cache/*/time"};
  s.typed = {"/tune_params_keys", "/tune_params", "/cache",       "/tune_params_keys/0",
             "/tune_params/TM",   "/cache/*",     "/cache/*/time"};
  // Kernel Tuner's values may be Python booleans, which map to 0 and 1: not a fault here.
  s.integers = {"/tune_params/TM/0", "/cache/*/TN"};
  s.reals = {"/cache/*/time"};
  s.names = {"/tune_params_keys/0", "/cache/*/time"};
  s.free_text = {"/device_name", "/kernel_name"};
  return s;
}

json t4_results() {
  json results = json::array();
  for (int tm : {1, 2})
    for (int tn : {4, 8})
      results.push_back({{"timestamp", "2025-01-31T12:00:00Z"},
                         {"configuration", {{"TM", tm}, {"TN", tn}}},
                         {"times", {{"runtimes", {0.5, 0.5}}, {"compilation_time", 1.0}}},
                         {"invalidity", "correct"},
                         {"correctness", 1},
                         {"measurements", {{{"name", "time"}, {"value", 1.0 / (tm * tn)}, {"unit", "ms"}}}},
                         {"objectives", {"time"}}});
  return {{"schema_version", "1.0.0"}, {"results", results}};
}

Shape t4_shape() {
  Shape s;
  s.version = "/schema_version";
  s.future_version = "2.0.0";
  s.required = {"/results", "/results/0/configuration", "/results/0/invalidity", "/results/0/correctness",
                "/results/0/times"};
  s.typed = {"/results",
             "/results/0",
             "/results/0/configuration",
             "/results/0/invalidity",
             "/results/0/correctness",
             "/results/0/times",
             "/results/0/times/runtimes",
             "/results/0/measurements",
             "/results/0/measurements/0",
             "/results/0/measurements/0/value",
             "/results/0/timestamp",
             "/results/0/objectives"};
  s.integers = {"/results/0/configuration/TM"};
  s.reals = {"/results/0/measurements/0/value", "/results/0/times/runtimes/0"};
  s.names = {"/results/0/invalidity", "/results/0/measurements/0/unit"};
  s.free_text = {"/results/0/timestamp", "/results/0/measurements/0/name"};
  return s;
}

// Kernel Tuner and T4 read booleans as 0/1, so those two cases are valid input.
std::vector<Fault> without_booleans(std::vector<Fault> faults) {
  std::erase_if(faults, [](const Fault& f) { return f.name.starts_with("boolean_"); });
  return faults;
}

std::string gzipped(const std::string& bytes) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, bytes.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

ToolRun ktune(const TempDir& tmp, const std::vector<std::string>& args) {
  return run_tool(ktune_tool(), args, tmp.path() / "run");
}

// Both readers of a cache file: the replay (simulate) and the export.
void check_cache(const TempDir& tmp, const fs::path& file, Expect expect) {
  const fs::path out = tmp.path() / "exported.json";
  const ToolRun simulate = ktune(tmp, {"simulate", "--cache", file.string(), "--budget", "2", "--seed", "1"});
  const ToolRun exported = ktune(tmp, {"export", "--cache", file.string(), "--format", "t4", "--out", out.string()});
  if (expect == Expect::Refused) {
    expect_refusal(simulate, file.string());
    expect_refusal(exported, file.string());
    EXPECT_FALSE(fs::exists(out));
  } else {
    expect_no_crash(simulate);
    expect_no_crash(exported);
  }
}

class KernelTunerCacheFaults : public testing::TestWithParam<Fault> {};

TEST_P(KernelTunerCacheFaults, RefusedOnOneLineOrHarmless) {
  const Fault& fault = GetParam();
  TempDir tmp("ktune_kt_cache_faults");
  const std::string text = fault.make(kt_cache());
  write(tmp.path() / "cache.json", text);
  check_cache(tmp, tmp.path() / "cache.json", fault.expect);
  // The same bytes gzipped: the decompressed text is read the same way.
  write(tmp.path() / "cache.json.gz", gzipped(text));
  check_cache(tmp, tmp.path() / "cache.json.gz", fault.expect);
  EXPECT_EQ(read(tmp.path() / "cache.json"), text);
}

INSTANTIATE_TEST_SUITE_P(KernelTunerCache, KernelTunerCacheFaults,
                         testing::ValuesIn(without_booleans(faults_of(kt_cache_shape()))),
                         [](const testing::TestParamInfo<Fault>& info) { return info.param.name; });

TEST(KernelTunerCacheFaultsBaseline, ValidCacheIsReplayed) {
  TempDir tmp("ktune_kt_cache_faults");
  for (const std::string name : {"cache.json", "cache.json.gz"}) {
    const std::string text = text_of(kt_cache());
    write(tmp.path() / name, name.ends_with(".gz") ? gzipped(text) : text);
    const ToolRun simulate =
        ktune(tmp, {"simulate", "--cache", (tmp.path() / name).string(), "--budget", "2", "--seed", "1"});
    EXPECT_EQ(simulate.exit_code, 0) << simulate.err;
  }
}

// What only a compressed file can get wrong.
TEST(KernelTunerCacheFaultsBaseline, DamagedGzipIsRefused) {
  TempDir tmp("ktune_kt_cache_faults");
  const std::string gz = gzipped(text_of(kt_cache()));
  std::string flipped = gz;
  flipped[flipped.size() / 2] ^= 0x5a;
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 6] ^= 0x01;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cut_in_half", gz.substr(0, gz.size() / 2)},
      {"header_only", gz.substr(0, 10)},
      {"magic_only", gz.substr(0, 2)},
      {"flipped_byte", flipped},
      {"bad_checksum", bad_crc},
      {"garbage_after", gz + "garbage"},
      {"plain_text_named_gz", text_of(kt_cache())},
      {"gzipped_deep_nesting", gzipped(std::string(100000, '[') + std::string(100000, ']'))},
      {"gzipped_binary", gzipped(std::string("\0\1\2\xff", 4))},
  };
  for (const auto& [name, bytes] : cases) {
    SCOPED_TRACE(name);
    const fs::path file = tmp.path() / (name + ".json.gz");
    write(file, bytes);
    check_cache(tmp, file, Expect::Refused);
  }
}

// A gzip bomb: 100 gzip members of 1 MiB of spaces each, 450 KB that inflate to
// 100 MiB. Refused by its ratio once past 64 MiB, well before the 2 GiB cap.
TEST(KernelTunerCacheFaultsBaseline, GzipBombIsRefusedByItsRatio) {
  TempDir tmp("ktune_kt_cache_faults");
  const std::string member = gzipped(std::string(std::size_t{1} << 20, ' '));
  std::string bomb;
  for (int i = 0; i < 100; ++i) bomb += member;
  const fs::path file = tmp.path() / "bomb.json.gz";
  write(file, bomb);
  check_cache(tmp, file, Expect::Refused);
  const ToolRun simulate = ktune(tmp, {"simulate", "--cache", file.string(), "--budget", "2", "--seed", "1"});
  EXPECT_NE(simulate.err.find("a gzip bomb"), std::string::npos) << simulate.err;
  std::cout << "gzip bomb of " << bomb.size() << " bytes: " << simulate.err;
}

class T4Faults : public testing::TestWithParam<Fault> {};

TEST_P(T4Faults, RefusedOnOneLineOrHarmless) {
  const Fault& fault = GetParam();
  TempDir tmp("ktune_t4_faults");
  const fs::path file = tmp.path() / "results.T4.json";
  const std::string text = fault.make(t4_results());
  write(file, text);
  const fs::path into = tmp.path() / "dbs";
  const ToolRun imported = ktune(tmp, {"import", "--t4", file.string(), "--into", into.string(), "--kernel", "k",
                                       "--gpu", "NVIDIA H200", "--key", "M=64"});
  const ToolRun simulate = ktune(tmp, {"simulate", "--t4", file.string(), "--budget", "2", "--seed", "1"});
  if (fault.expect == Expect::Refused) {
    expect_refusal(imported, file.string());
    expect_refusal(simulate, file.string());
    EXPECT_FALSE(fs::exists(into / "NVIDIA_H200.json")) << "a refused import wrote a DB";
  } else {
    expect_no_crash(imported);
    expect_no_crash(simulate);
  }
  EXPECT_EQ(read(file), text);
}

INSTANTIATE_TEST_SUITE_P(T4Results, T4Faults, testing::ValuesIn(without_booleans(faults_of(t4_shape()))),
                         [](const testing::TestParamInfo<Fault>& info) { return info.param.name; });

TEST(T4FaultsBaseline, ValidResultsAreImported) {
  TempDir tmp("ktune_t4_faults");
  const fs::path file = tmp.path() / "results.T4.json";
  write(file, text_of(t4_results()));
  const ToolRun imported = ktune(tmp, {"import", "--t4", file.string(), "--into", (tmp.path() / "dbs").string(),
                                       "--kernel", "k", "--gpu", "NVIDIA H200", "--key", "M=64"});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_TRUE(fs::exists(tmp.path() / "dbs" / "NVIDIA_H200.json"));
}

}  // namespace
}  // namespace ktune::file_faults

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/prior.hpp"
#include "ktune/replay.hpp"
#include "ktune/simulate.hpp"
#include "ktune/strategy.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using ktune::ReplaySpace;
using ktune::Status;
using nlohmann::json;
using TempDir = ktune::test_support::TempDir;

fs::path hub(const char* file) { return fs::path(KTUNE_BENCHMARK_HUB) / file; }

#define REQUIRE_HUB(file)                                                    \
  if (!fs::exists(hub(file)))                                                \
    GTEST_SKIP() << "SKIPPED: benchmark_hub data not found at " << hub(file) \
                 << " (it lives in ../shared beside the checkout)";

// A Kernel Tuner cache of 6 configs, listed out of order, with every kind of failure.
// In position order: (1,0) 3.0 | (1,1) 2.0 | (2,0) runtime | (2,1) compile | (4,0) invalid
// | (4,1) 0.5.
json tiny_cache() {
  return json::parse(R"({
    "device_name": "Tiny GPU", "kernel_name": "tiny_kernel", "problem_size": [64],
    "tune_params_keys": ["A", "B"], "tune_params": {"A": [1, 2, 4], "B": [0, 1]},
    "objective": "time",
    "cache": {
      "4,1": {"A": 4, "B": 1, "time": 0.5, "times": [0.5, 0.5]},
      "1,0": {"A": 1, "B": 0, "time": 3.0},
      "2,0": {"A": 2, "B": 0, "time": "RuntimeFailedConfig"},
      "1,1": {"A": 1, "B": 1, "time": 2.0},
      "2,1": {"A": 2, "B": 1, "time": "CompilationFailedConfig"},
      "4,0": {"A": 4, "B": 0, "time": "InvalidConfig"}
    }})");
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

void write_gzip(const fs::path& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), int(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The Error message of loading `doc` as a cache ("" when it loads).
std::string cache_error(const json& doc) {
  try {
    ReplaySpace::from_cache(doc, "tiny.json");
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "";
}

std::string file_error(const fs::path& path) {
  try {
    ReplaySpace::from_cache_file(path);
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "";
}

std::size_t count_status(const ReplaySpace& r, Status s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < r.size(); ++i) n += r.outcome(i).status == s;
  return n;
}

std::string trace_of(const ReplaySpace& r, const std::string& strategy, std::size_t budget, uint64_t seed) {
  std::ostringstream out;
  ktune::JsonlTrace trace(out);
  ktune::simulate(r, strategy, budget, seed, &trace);
  return out.str();
}

// Proposes config 0 forever: breaks the interface's "never twice".
class Repeater : public ktune::Strategy {
 public:
  std::string name() const override { return "repeater"; }
  std::vector<std::size_t> propose(std::size_t) override { return {0}; }
  void observe(const ktune::Observation&) override {}
  bool done() const override { return false; }
};

// Proposes 0, 1, 2, ... and logs each call: "p<i>" for a proposal, "o<i>" for a result.
class Logger : public ktune::Strategy {
 public:
  explicit Logger(std::size_t size) : size_(size) {}
  std::string name() const override { return "logger"; }
  std::vector<std::size_t> propose(std::size_t) override {
    if (next_ >= size_) return {};
    log += "p" + std::to_string(next_) + " ";
    return {next_++};
  }
  void observe(const ktune::Observation& o) override { log += "o" + std::to_string(o.index) + " "; }
  bool done() const override { return next_ >= size_; }
  std::string log;

 private:
  std::size_t size_, next_ = 0;
};

}  // namespace

// As the tuner runs a search: proposals run up to `in_flight` ahead of the results, which
// come back oldest first; one in flight is one proposal at a time.
TEST(Simulate, ProposalsRunAheadOfResultsAsInTheTuner) {
  const ReplaySpace r = ReplaySpace::from_cache(tiny_cache(), "tiny.json");
  Logger one(r.size()), three(r.size());
  EXPECT_EQ(ktune::simulate(r, one, 6).evaluations.size(), 6u);
  EXPECT_EQ(one.log, "p0 o0 p1 o1 p2 o2 p3 o3 p4 o4 p5 o5 ");
  const auto s = ktune::simulate(r, three, 5, nullptr, 3);
  EXPECT_EQ(three.log, "p0 p1 p2 o0 p3 o1 p4 o2 o3 o4 ");
  ASSERT_EQ(s.evaluations.size(), 5u);
  EXPECT_EQ(s.evaluations[4].index, 4u);
}

TEST(Replay, TinyCacheInPositionOrder) {
  const ReplaySpace r = ReplaySpace::from_cache(tiny_cache(), "tiny.json");
  EXPECT_EQ(r.device(), "Tiny GPU");
  EXPECT_EQ(r.kernel(), "tiny_kernel");
  ASSERT_EQ(r.size(), 6u);
  ASSERT_EQ(r.space().width(), 2u);
  EXPECT_EQ(r.space().parameters()[0].name, "A");
  EXPECT_EQ(r.space().parameters()[0].values, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(r.config(0).dump(), R"({"A":1,"B":0})");
  EXPECT_EQ(r.config(5).dump(), R"({"A":4,"B":1})");
  EXPECT_EQ(r.outcome(0).time_ms, 3.0);
  EXPECT_EQ(r.outcome(1).time_ms, 2.0);
  // Kernel Tuner's failure markers and the statuses they replay as.
  EXPECT_EQ(r.outcome(2).status, Status::LaunchFailed);   // RuntimeFailedConfig
  EXPECT_EQ(r.outcome(3).status, Status::CompileFailed);  // CompilationFailedConfig
  EXPECT_EQ(r.outcome(4).status, Status::Resource);       // InvalidConfig
  EXPECT_EQ(r.outcome(5).status, Status::Ok);
  EXPECT_EQ(r.timed(), 3u);
  EXPECT_EQ(r.best(), (std::pair<std::size_t, double>{5, 0.5}));
  EXPECT_THROW(r.config(6), ktune::Error);
}

TEST(Replay, ReadsPlainAndGzipFiles) {
  TempDir dir;
  write_file(dir.path() / "tiny.json", tiny_cache().dump());
  write_gzip(dir.path() / "tiny.json.gz", tiny_cache().dump(1));
  const ReplaySpace plain = ReplaySpace::from_cache_file(dir.path() / "tiny.json");
  const ReplaySpace gz = ReplaySpace::from_cache_file(dir.path() / "tiny.json.gz");
  ASSERT_EQ(plain.size(), 6u);
  ASSERT_EQ(gz.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(plain.config(i), gz.config(i));
    EXPECT_EQ(plain.outcome(i).status, gz.outcome(i).status);
    EXPECT_EQ(plain.outcome(i).time_ms, gz.outcome(i).time_ms);
  }
  EXPECT_EQ(gz.origin(), (dir.path() / "tiny.json.gz").string());
}

TEST(Replay, IntegralFloatsAndBooleansMap) {
  json doc = tiny_cache();
  doc["tune_params"]["B"] = {false, true};
  doc["tune_params"]["A"] = {1.0, 2, 4};
  const ReplaySpace r = ReplaySpace::from_cache(doc, "tiny.json");
  EXPECT_EQ(r.space().parameters()[1].values, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(r.size(), 6u);
}

TEST(Replay, CorruptFilesGiveClearErrors) {
  TempDir dir;
  const std::string text = tiny_cache().dump();
  // Truncated gzip: the first half of a valid stream.
  write_gzip(dir.path() / "whole.json.gz", text);
  const std::string gz = read_file(dir.path() / "whole.json.gz");
  const fs::path truncated = dir.path() / "truncated.json.gz";
  write_file(truncated, gz.substr(0, gz.size() / 2));
  std::string e = file_error(truncated);
  EXPECT_NE(e.find(truncated.string()), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  // Damaged gzip: a flipped byte in the compressed data.
  std::string damaged = gz;
  damaged[damaged.size() / 2] ^= 0x55;
  write_file(dir.path() / "damaged.json.gz", damaged);
  e = file_error(dir.path() / "damaged.json.gz");
  EXPECT_NE(e.find("damaged.json.gz"), std::string::npos) << e;
  // A .gz name on a plain file.
  write_file(dir.path() / "plain.json.gz", text);
  e = file_error(dir.path() / "plain.json.gz");
  EXPECT_NE(e.find("not gzip"), std::string::npos) << e;
  // Not JSON, a truncated JSON text, an empty file, and no file at all.
  for (const char* name : {"notjson.json", "cut.json", "empty.json"}) {
    write_file(dir.path() / name, std::string(name) == "notjson.json" ? "time: 1 ms\n"
                                  : std::string(name) == "cut.json"   ? text.substr(0, 100)
                                                                      : "");
    e = file_error(dir.path() / name);
    EXPECT_NE(e.find(name), std::string::npos) << e;
    EXPECT_NE(e.find("not JSON"), std::string::npos) << e;
  }
  e = file_error(dir.path() / "missing.json");
  EXPECT_NE(e.find("missing.json: cannot open"), std::string::npos) << e;
}

TEST(Replay, MalformedDocumentsNameTheField) {
  json doc = tiny_cache();
  doc.erase("cache");
  EXPECT_NE(cache_error(doc).find("tiny.json: \"cache\" is missing"), std::string::npos);

  doc = tiny_cache();
  doc["cache"]["1,0"]["time"] = "BogusFailedConfig";
  std::string e = cache_error(doc);
  EXPECT_NE(e.find("cache.\"1,0\".\"time\" = \"BogusFailedConfig\""), std::string::npos) << e;
  EXPECT_NE(e.find("RuntimeFailedConfig"), std::string::npos) << e;

  doc = tiny_cache();
  doc["tune_params"]["A"] = {1, 2.5, 4};
  e = cache_error(doc);
  EXPECT_NE(e.find("tune_params.\"A\""), std::string::npos) << e;
  EXPECT_NE(e.find("integer-valued"), std::string::npos) << e;

  doc = tiny_cache();
  doc["tune_params"]["B"] = {"row", "col"};
  EXPECT_NE(cache_error(doc).find("tune_params.\"B\""), std::string::npos);

  doc = tiny_cache();
  doc["cache"]["4,1"]["A"] = 8;
  e = cache_error(doc);
  EXPECT_NE(e.find("cache.\"4,1\".\"A\" = 8 is not among the values"), std::string::npos) << e;

  doc = tiny_cache();
  doc["cache"]["4,1"].erase("time");
  EXPECT_NE(cache_error(doc).find("cache.\"4,1\" has no \"time\""), std::string::npos);

  doc = tiny_cache();
  doc["cache"]["4,1"]["time"] = -1;
  EXPECT_NE(cache_error(doc).find("is not a time"), std::string::npos);

  doc = tiny_cache();
  doc["cache"]["4,1 "] = doc["cache"]["4,1"];  // the same config under another key
  EXPECT_NE(cache_error(doc).find("are the same config"), std::string::npos);

  doc = tiny_cache();
  doc["cache"] = json::object();
  EXPECT_NE(cache_error(doc).find("\"cache\" has no entries"), std::string::npos);

  doc = tiny_cache();
  doc["tune_params_keys"].push_back("C");
  EXPECT_NE(cache_error(doc).find("tune_params.\"C\" is missing"), std::string::npos);

  EXPECT_NE(cache_error(json::array()).find("not a JSON object"), std::string::npos);
}

TEST(Replay, SharedConvolutionA100) {
  REQUIRE_HUB("convolution_milo_A100.json.gz");
  const ReplaySpace r = ReplaySpace::from_cache_file(hub("convolution_milo_A100.json.gz"));
  EXPECT_EQ(r.device(), "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(r.kernel(), "convolution_kernel");
  EXPECT_EQ(r.space().width(), 10u);
  EXPECT_EQ(r.size(), 4362u);
  EXPECT_EQ(r.timed(), 4201u);
  EXPECT_EQ(count_status(r, Status::LaunchFailed), 155u);
  EXPECT_EQ(count_status(r, Status::CompileFailed), 6u);
  EXPECT_NEAR(r.best().second, 0.5536, 1e-4);
}

TEST(Replay, SharedConvolutionA4000) {
  REQUIRE_HUB("convolution_milo_A4000.json.gz");
  const ReplaySpace r = ReplaySpace::from_cache_file(hub("convolution_milo_A4000.json.gz"));
  EXPECT_EQ(r.device(), "NVIDIA RTX A4000");
  EXPECT_EQ(r.size(), 4362u);
  EXPECT_EQ(r.timed(), 4201u);
  EXPECT_NEAR(r.best().second, 1.0212, 1e-4);
}

TEST(Replay, SharedDedispersionA100) {
  REQUIRE_HUB("dedispersion_milo_A100.json.gz");
  const ReplaySpace r = ReplaySpace::from_cache_file(hub("dedispersion_milo_A100.json.gz"));
  EXPECT_EQ(r.kernel(), "dedispersion_kernel");
  EXPECT_EQ(r.space().width(), 8u);
  EXPECT_EQ(r.size(), 11130u);
  EXPECT_EQ(r.timed(), 11130u);
  EXPECT_NEAR(r.best().second, 68.12, 5e-3);
}

TEST(Replay, SharedTruncatedGzip) {
  REQUIRE_HUB("convolution_milo_A100.json.gz");
  TempDir dir;
  const std::string gz = read_file(hub("convolution_milo_A100.json.gz"));
  write_file(dir.path() / "cut.json.gz", gz.substr(0, gz.size() - 1000));
  const std::string e = file_error(dir.path() / "cut.json.gz");
  EXPECT_NE(e.find("cut.json.gz: the gzip stream is truncated"), std::string::npos) << e;
}

TEST(Replay, FromDbTakesTheLargestFingerprint) {
  TempDir dir;
  const fs::path file = dir.path() / "NVIDIA_H200.json";
  ktune::Fingerprint fp;
  fp.kernel_hash = "0123456789abcdef";
  fp.nvcc_version = "13.0.88";
  fp.gpu = {
      .name = "NVIDIA H200", .cc_major = 9, .cc_minor = 0, .sm_count = 132, .driver_version = 13000, .l2_bytes = 1};
  ktune::Fingerprint old = fp;
  old.kernel_hash = "fedcba9876543210";
  auto timed = [](double ms) {
    ktune::Measurement m;
    m.samples_ms = {ms};
    m.median_ms = ms;
    return m;
  };
  ktune::Measurement failed;
  failed.status = Status::LaunchFailed;
  failed.message = "too many resources requested for launch";
  {
    ktune::Db db(file, "sgemm");
    const std::string key = "M=64,N=64";
    db.record(fp, key, ktune::config_id_of({{"TM", 64}, {"TN", 32}}), {{"TM", 64}, {"TN", 32}}, timed(2.0));
    db.record(fp, key, ktune::config_id_of({{"TM", 32}, {"TN", 32}}), {{"TM", 32}, {"TN", 32}}, timed(1.5));
    db.record(fp, key, ktune::config_id_of({{"TM", 32}, {"TN", 64}}), {{"TM", 32}, {"TN", 64}}, failed);
    db.record(old, key, ktune::config_id_of({{"TM", 64}, {"TN", 32}}), {{"TM", 64}, {"TN", 32}},
              timed(0.1));  // an older kernel
    db.record(fp, "M=8,N=8", ktune::config_id_of({{"TM", 64}, {"TN", 32}}), {{"TM", 64}, {"TN", 32}}, timed(9.0));
  }
  const ReplaySpace r = ReplaySpace::from_db(file, "M=64,N=64");
  EXPECT_EQ(r.kernel(), "sgemm");
  EXPECT_EQ(r.device(), "NVIDIA H200");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r.space().parameters()[0].name, "TM");
  EXPECT_EQ(r.space().parameters()[0].values, (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(r.config(0).dump(), R"({"TM":32,"TN":32})");
  EXPECT_EQ(r.config(1).dump(), R"({"TM":32,"TN":64})");
  EXPECT_EQ(r.outcome(1).status, Status::LaunchFailed);
  EXPECT_EQ(r.best(), (std::pair<std::size_t, double>{0, 1.5}));
  // Two keys: the key must be named; an unknown one lists those there are.
  try {
    ReplaySpace::from_db(file, "");
    ADD_FAILURE() << "no error";
  } catch (const ktune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds 2 keys"), std::string::npos) << e.what();
  }
  try {
    ReplaySpace::from_db(file, "M=1");
    ADD_FAILURE() << "no error";
  } catch (const ktune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no measurements for key \"M=1\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(ReplaySpace::from_db(dir.path() / "none.json", ""), ktune::Error);
}

TEST(Simulate, ExhaustiveFindsTheRecordedBest) {
  const ReplaySpace r = ReplaySpace::from_cache(tiny_cache(), "tiny.json");
  const ktune::SimulationResult s = ktune::simulate(r, "exhaustive", r.size(), 0);
  EXPECT_EQ(s.strategy, "exhaustive");
  ASSERT_EQ(s.evaluations.size(), 6u);
  EXPECT_EQ(s.best_index, 5u);
  EXPECT_EQ(s.best_ms, 0.5);
  EXPECT_EQ(s.evaluations[2].status, Status::LaunchFailed);
  EXPECT_EQ(s.evaluations[2].time_ms, 0.0);
  EXPECT_EQ(s.evaluations[2].best_ms, 2.0);
}

TEST(Simulate, ExhaustiveFindsTheRecordedBestOnSharedSpaces) {
  for (const char* file :
       {"convolution_milo_A100.json.gz", "convolution_milo_A4000.json.gz", "dedispersion_milo_A100.json.gz"}) {
    SCOPED_TRACE(file);
    REQUIRE_HUB(file);
    const ReplaySpace r = ReplaySpace::from_cache_file(hub(file));
    const ktune::SimulationResult s = ktune::simulate(r, "exhaustive", r.size(), 1);
    EXPECT_EQ(s.evaluations.size(), r.size());
    ASSERT_TRUE(s.best_ms);
    EXPECT_EQ(*s.best_ms, r.best().second);  // exactly: the same recorded number
    EXPECT_EQ(*s.best_index, r.best().first);
  }
}

// This project's own recordings (benchmarks/recordings and its subdirectories): each loads,
// names its GPU, holds a timed config, and an exhaustive replay finds its recorded best.
TEST(Simulate, OwnRecordingsLoadAndReplay) {
  const fs::path dir = fs::path(KTUNE_SOURCE_DIR) / "benchmarks" / "recordings";
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.path().string().ends_with(".json.gz")) continue;
    SCOPED_TRACE(e.path().string());
    ++files;
    const ReplaySpace r = ReplaySpace::from_cache_file(e.path());
    EXPECT_FALSE(r.device().empty());
    ASSERT_GT(r.size(), 0u);
    const ktune::SimulationResult s = ktune::simulate(r, "exhaustive", r.size(), 1);
    ASSERT_TRUE(s.best_ms);
    EXPECT_EQ(*s.best_ms, r.best().second);
  }
  EXPECT_GE(files, 39u) << "the H200 convolution recording and the 38 example spaces";
}

TEST(Simulate, BudgetDefaultAndFirst) {
  const ReplaySpace r = ReplaySpace::from_cache(tiny_cache(), "tiny.json");
  auto s = ktune::simulate(r, "default", 2, 0, nullptr, 4);
  EXPECT_EQ(s.strategy, ktune::default_strategy_name());
  ASSERT_EQ(s.evaluations.size(), 2u);
  EXPECT_EQ(s.evaluations[0].index, 4u);  // the DEFAULT first
  EXPECT_EQ(s.evaluations[0].status, Status::Resource);
  EXPECT_FALSE(s.evaluations[0].best_ms);
  EXPECT_EQ(ktune::simulate(r, "exhaustive", 1000, 0).evaluations.size(), 6u);  // clamped
  EXPECT_THROW(ktune::simulate(r, "exhaustive", 3, 0, nullptr, 6), ktune::Error);
  EXPECT_THROW(ktune::simulate(r, "no-such-strategy", 3, 0), ktune::Error);
}

TEST(Simulate, TraceLineFormat) {
  const ReplaySpace r = ReplaySpace::from_cache(tiny_cache(), "tiny.json");
  std::ostringstream out;
  ktune::JsonlTrace trace(out);
  ktune::simulate(r, "exhaustive", 6, 0, &trace, 2);
  std::istringstream in(out.str());
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 6u);
  // Order: 2 (runtime failure), 0, 1, 3, 4, 5.
  const json& first = lines[0];
  EXPECT_EQ(first.size(), 5u);
  EXPECT_EQ(first["n"], 1);
  EXPECT_EQ(first["config"], json({{"A", 2}, {"B", 0}}));
  EXPECT_TRUE(first["time_ms"].is_null());
  EXPECT_EQ(first["status"], "launch-failed");
  EXPECT_TRUE(first["best_ms"].is_null());
  EXPECT_EQ(lines[1]["n"], 2);
  EXPECT_EQ(lines[1]["time_ms"], 3.0);
  EXPECT_EQ(lines[1]["status"], "ok");
  EXPECT_EQ(lines[1]["best_ms"], 3.0);
  EXPECT_EQ(lines[3]["status"], "compile-failed");
  EXPECT_EQ(lines[3]["best_ms"], 2.0);
  EXPECT_EQ(lines[4]["status"], "resource");
  EXPECT_EQ(lines[5]["best_ms"], 0.5);
  // Fields in the documented order, config in parameter order.
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')),
            R"({"n":1,"config":{"A":2,"B":0},"time_ms":null,"status":"launch-failed","best_ms":null})");
}

TEST(Simulate, SameSeedSameTraceForEveryStrategy) {
  const ReplaySpace tiny = ReplaySpace::from_cache(tiny_cache(), "tiny.json");
  for (const std::string& name : ktune::strategy_names()) {
    SCOPED_TRACE(name);
    const std::string a = trace_of(tiny, name, 4, 42);
    EXPECT_EQ(a, trace_of(tiny, name, 4, 42));
    EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 4);
  }
  REQUIRE_HUB("convolution_milo_A100.json.gz");
  const ReplaySpace conv = ReplaySpace::from_cache_file(hub("convolution_milo_A100.json.gz"));
  const std::size_t budget = ktune::parse_budget("2%", conv.size(), "--budget");
  for (const std::string& name : ktune::strategy_names()) {
    SCOPED_TRACE(name);
    const std::string a = trace_of(conv, name, budget, 7);
    EXPECT_EQ(a, trace_of(conv, name, budget, 7));
    EXPECT_EQ(std::size_t(std::count(a.begin(), a.end(), '\n')), budget);
  }
}

TEST(Simulate, RefusesAStrategyThatRepeats) {
  const ReplaySpace r = ReplaySpace::from_cache(tiny_cache(), "tiny.json");
  Repeater repeater;
  try {
    ktune::simulate(r, repeater, 6);
    ADD_FAILURE() << "no error";
  } catch (const ktune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"repeater\" proposed config 0 again at proposal 2"), std::string::npos)
        << e.what();
  }
}

TEST(Simulate, BudgetText) {
  EXPECT_EQ(ktune::parse_budget("100", 4362, "--budget"), 100u);
  EXPECT_EQ(ktune::parse_budget("2%", 4362, "--budget"), 87u);    // 87.24
  EXPECT_EQ(ktune::parse_budget("0.5%", 4362, "--budget"), 22u);  // 21.81
  EXPECT_EQ(ktune::parse_budget("100%", 4362, "--budget"), 4362u);
  EXPECT_EQ(ktune::parse_budget("0.001%", 10, "--budget"), 1u);  // at least one
  for (const char* bad : {"", "%", "0", "-5", "abc", "2.5", "0%", "101%", "1.2.3%", ".%"}) {
    SCOPED_TRACE(bad);
    try {
      ktune::parse_budget(bad, 100, "--budget");
      ADD_FAILURE() << "no error";
    } catch (const ktune::Error& e) {
      EXPECT_NE(std::string(e.what()).find("--budget"), std::string::npos) << e.what();
    }
  }
}

// A prior maps another recording's ranking onto this space by parameter names and values:
// fastest first, failures and configs this space lacks skipped, a config met twice kept at
// its best; a parameter the other lacks is an error naming it.
TEST(Prior, RanksTheTargetsConfigsByTheOthersTimes) {
  using ktune::Parameter;
  using ktune::RecordedOutcome;
  using ktune::ReplaySpace;
  using ktune::SearchSpace;
  using ktune::Status;
  // Target: A in {1,2,3}, B in {10,20}: 6 configs, in enumeration order (A, B).
  const std::vector<int64_t> target_rows = {1, 10, 1, 20, 2, 10, 2, 20, 3, 10, 3, 20};
  const ReplaySpace target(SearchSpace({{"A", {1, 2, 3}}, {"B", {10, 20}}}, target_rows),
                           std::vector<RecordedOutcome>(6, {Status::Ok, 1.0}), "GPU T", "k", "target.json");
  // Other: B first, an extra parameter C, A = 4 that the target lacks.
  const std::vector<int64_t> other_rows = {10, 1, 0, 10, 2, 0, 10, 4, 0, 20, 1, 0, 20, 3, 0, 20, 3, 1};
  const std::vector<RecordedOutcome> times = {{Status::Ok, 5.0},         {Status::Ok, 2.0}, {Status::Ok, 0.5},
                                              {Status::LaunchFailed, 0}, {Status::Ok, 3.0}, {Status::Ok, 1.0}};
  const ReplaySpace other(SearchSpace({{"B", {10, 20}}, {"A", {1, 2, 3, 4}}, {"C", {0, 1}}}, other_rows), times,
                          "GPU O", "k", "other.json");
  // Fastest first: A=4 (not in the target), A=3 B=20 C=1 (index 5), A=2 B=10 (2), A=3 B=20
  // C=0 (5 again: skipped), A=1 B=10 (0); A=1 B=20 failed.
  EXPECT_EQ(ktune::prior_from(other, target), (std::vector<std::size_t>{5, 2, 0}));
  try {
    ktune::prior_from(target, other);
    FAIL() << "the target's parameter C is not in the other";
  } catch (const ktune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no parameter 'C'"), std::string::npos) << e.what();
  }
}

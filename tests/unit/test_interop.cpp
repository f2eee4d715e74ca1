// Export to Kernel Tuner caches and T4 results, import of T4 (ktune/interop.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/config_id.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/interop.hpp"
#include "ktune/replay.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using ktune::ReplaySpace;
using ktune::Status;
using nlohmann::json;
using nlohmann::ordered_json;
using TempDir = ktune::test_support::TempDir;

fs::path interop_hub(const char* file) { return fs::path(KTUNE_BENCHMARK_HUB) / file; }

const std::string kInteropKey = "M=64,N=128";

ktune::Fingerprint interop_fp(const std::string& hash = "0123456789abcdef") {
  ktune::Fingerprint fp;
  fp.kernel_hash = hash;
  fp.nvcc_version = "13.0.88";
  fp.gpu = {.name = "NVIDIA H200",
            .cc_major = 9,
            .cc_minor = 0,
            .sm_count = 132,
            .driver_version = 13000,
            .l2_bytes = 62914560};
  return fp;
}

ktune::DbRecord interop_record(const ktune::Fingerprint& fp, int64_t a, int64_t b, Status status, double ms = 0) {
  const std::vector<std::string> names = {"A", "B"};
  const std::vector<int64_t> values = {a, b};
  ktune::DbRecord r;
  r.fp = fp;
  r.key = kInteropKey;
  r.config_id = ktune::config_id(names, values);
  r.values = {{"A", a}, {"B", b}};
  r.measurement.status = status;
  if (status == Status::Ok) {
    r.measurement.samples_ms = {ms * 1.01, ms, ms * 0.99};
    r.measurement.median_ms = ms;
  } else {
    r.measurement.message = "failed";
  }
  return r;
}

// A DB of kernel "tiny" with every status on one key, plus a second fingerprint with
// fewer configs (the exports pick the one with the most).
fs::path make_interop_db(const fs::path& dir) {
  const fs::path path = dir / "NVIDIA_H200.json";
  ktune::Db db(path, "tiny");
  const ktune::Fingerprint fp = interop_fp();
  std::vector<ktune::DbRecord> records = {
      interop_record(fp, 1, 0, Status::Ok, 3.0),      interop_record(fp, 1, 1, Status::Ok, 2.0),
      interop_record(fp, 2, 0, Status::LaunchFailed), interop_record(fp, 2, 1, Status::CompileFailed),
      interop_record(fp, 4, 0, Status::Resource),     interop_record(fp, 4, 1, Status::Ok, 0.5),
      interop_record(fp, 8, 0, Status::Crashed),      interop_record(fp, 8, 1, Status::TimedOut),
      interop_record(fp, 16, 0, Status::WrongResult), interop_record(fp, 16, 1, Status::Ok, 1.5),
  };
  records.push_back(interop_record(interop_fp("other"), 1, 0, Status::Ok, 0.1));
  db.record_many(records);
  return path;
}

// What Kernel Tuner's cache can say of a ktune status.
Status through_kernel_tuner(Status s) {
  switch (s) {
    case Status::Ok:
      return Status::Ok;
    case Status::CompileFailed:
      return Status::CompileFailed;
    case Status::Resource:
      return Status::Resource;
    default:
      return Status::LaunchFailed;
  }
}

// ... and T4's.
Status through_t4(Status s) { return s == Status::Crashed ? Status::LaunchFailed : s; }

std::string t4_error(const ordered_json& doc) {
  try {
    ktune::t4_to_replay(doc, "t4.json");
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Interop, DbToKernelTunerCacheRoundTrip) {
  TempDir dir;
  const fs::path db = make_interop_db(dir.path());
  const ktune::InteropData data = ktune::interop_from_db(ktune::DbTables::load(db), kInteropKey, db.string());
  EXPECT_EQ(data.entries.size(), 10u);
  const ordered_json cache = ktune::to_kernel_tuner_cache(data, "2025-01-01T00:00:00Z");

  // Schema cache/1.1.0: every required field.
  for (const char* f : {"schema_version", "device_name", "kernel_name", "problem_size", "tune_params_keys",
                        "tune_params", "objective", "cache"})
    EXPECT_TRUE(cache.contains(f)) << f;
  EXPECT_EQ(cache["schema_version"], "1.1.0");
  EXPECT_EQ(cache["device_name"], "NVIDIA H200");
  EXPECT_EQ(cache["kernel_name"], "tiny");
  EXPECT_EQ(cache["problem_size"], ordered_json::array({64, 128}));
  EXPECT_EQ(cache["objective"], "time");
  EXPECT_EQ(cache["tune_params"]["A"], ordered_json::array({1, 2, 4, 8, 16}));
  for (const auto& [k, entry] : cache["cache"].items())
    for (const char* f : {"time", "compile_time", "verification_time", "benchmark_time", "strategy_time",
                          "framework_time", "timestamp"})
      EXPECT_TRUE(entry.contains(f)) << k << " " << f;
  EXPECT_EQ(cache["cache"]["4,1"]["time"], 0.5);
  EXPECT_EQ(cache["cache"]["4,1"]["times"].size(), 3u);
  EXPECT_EQ(cache["cache"]["2,1"]["time"], "CompilationFailedConfig");
  EXPECT_EQ(cache["cache"]["4,0"]["time"], "InvalidConfig");
  EXPECT_EQ(cache["cache"]["8,1"]["time"], "RuntimeFailedConfig");

  const ReplaySpace from_db = ReplaySpace::from_db(db, kInteropKey);
  const ReplaySpace back = ReplaySpace::from_cache(json::parse(cache.dump()), "exported.json");
  ASSERT_EQ(back.size(), from_db.size());
  EXPECT_EQ(back.timed(), from_db.timed());
  EXPECT_EQ(back.timed(), 4u);
  EXPECT_EQ(back.best().second, from_db.best().second);
  EXPECT_EQ(back.config(back.best().first), from_db.config(from_db.best().first));
  EXPECT_EQ(back.device(), "NVIDIA H200");
  EXPECT_EQ(back.kernel(), "tiny");
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back.config(i), from_db.config(i));
    EXPECT_EQ(back.outcome(i).status, through_kernel_tuner(from_db.outcome(i).status)) << i;
    EXPECT_EQ(back.outcome(i).time_ms, from_db.outcome(i).time_ms) << i;
  }
}

TEST(Interop, DbToT4ToDbRoundTrip) {
  TempDir dir;
  const fs::path db = make_interop_db(dir.path());
  const json original = ktune::Db::load_document(db).document;
  const ordered_json t4 = ktune::to_t4_results(
      ktune::interop_from_db(ktune::DbTables::of(original), kInteropKey, db.string()), "2025-01-01T00:00:00Z");

  // T4 results schema 1.0.0: each result has the required fields.
  EXPECT_EQ(t4["schema_version"], "1.0.0");
  ASSERT_EQ(t4["results"].size(), 10u);
  for (const auto& r : t4["results"]) {
    for (const char* f : {"configuration", "times", "invalidity", "correctness"}) EXPECT_TRUE(r.contains(f)) << f;
    EXPECT_TRUE(r["correctness"].is_number());
    EXPECT_EQ(r["objectives"], ordered_json::array({"time"}));
  }

  ktune::T4Import who;
  who.kernel = "tiny";
  who.key = "N=128,M=64";  // any order: made canonical
  who.gpu = interop_fp().gpu;
  who.kernel_hash = interop_fp().kernel_hash;
  who.nvcc_version = interop_fp().nvcc_version;
  const std::vector<ktune::DbRecord> records = ktune::t4_to_db_records(ordered_json::parse(t4.dump()), who, "t4.json");
  ASSERT_EQ(records.size(), 10u);
  EXPECT_EQ(records[0].fp.digest(), interop_fp().digest());  // same fingerprint as named

  TempDir out;
  {
    ktune::Db imported(out.path() / "NVIDIA_H200.json", "tiny");
    imported.record_many(records);
  }
  const json back = ktune::Db::load_document(out.path() / "NVIDIA_H200.json").document;
  const json& want = original["fingerprints"][interop_fp().digest()]["keys"][kInteropKey];
  const json& got = back["fingerprints"][interop_fp().digest()]["keys"][kInteropKey];
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [id, rec] : want.items()) {
    ASSERT_TRUE(got.contains(id)) << id;
    EXPECT_EQ(got[id]["values"], rec["values"]);
    const auto m0 = ktune::Measurement::from_json(rec["measurement"]);
    const auto m1 = ktune::Measurement::from_json(got[id]["measurement"]);
    EXPECT_EQ(m1.status, through_t4(m0.status)) << id;
    EXPECT_EQ(m1.median_ms, m0.median_ms) << id;
    EXPECT_EQ(m1.samples_ms, m0.samples_ms) << id;
  }
}

TEST(Interop, T4ToReplaySpace) {
  const ordered_json doc = ordered_json::parse(R"({
    "schema_version": "1.0.0",
    "results": [
      {"configuration": {"block": 128, "tile": 2}, "times": {"runtimes": [0.002, 0.004]},
       "invalidity": "correct", "correctness": 1,
       "measurements": [{"name": "time", "value": 0.003, "unit": "s"}]},
      {"configuration": {"tile": 1, "block": 64}, "times": {"runtimes": [1.0, 2.0, 4.0]},
       "invalidity": "correct", "correctness": 1},
      {"configuration": {"block": 64, "tile": 2}, "times": {}, "invalidity": "compile",
       "correctness": 0, "measurements": [{"name": "time", "value": "CompilationFailedConfig"}]},
      {"configuration": {"block": 128, "tile": 1}, "times": {}, "invalidity": "timeout",
       "correctness": 0}
    ]})");
  const ReplaySpace space = ktune::t4_to_replay(doc, "t4.json", "GPU X", "k");
  ASSERT_EQ(space.size(), 4u);
  EXPECT_EQ(space.timed(), 2u);
  EXPECT_EQ(space.space().parameters()[0].name, "block");  // the first configuration's order
  // Sorted by values: (64,1) (64,2) (128,1) (128,2).
  EXPECT_EQ(space.config(0), ordered_json({{"block", 64}, {"tile", 1}}));
  EXPECT_DOUBLE_EQ(space.outcome(0).time_ms, 2.0);  // median of runtimes
  EXPECT_EQ(space.outcome(1).status, Status::CompileFailed);
  EXPECT_EQ(space.outcome(2).status, Status::TimedOut);
  EXPECT_DOUBLE_EQ(space.outcome(3).time_ms, 3.0);  // 0.003 s
  EXPECT_EQ(space.best().first, 0u);
  EXPECT_EQ(space.device(), "GPU X");
}

TEST(Interop, MalformedT4GivesClearErrors) {
  auto with = [](const std::string& result) {
    return ordered_json::parse(R"({"schema_version": "1.0.0", "results": [)" + result + "]}");
  };
  const std::string good =
      R"({"configuration": {"A": 1}, "times": {}, "invalidity": "correct", "correctness": 1,
          "measurements": [{"name": "time", "value": 1.0, "unit": "ms"}]})";
  EXPECT_EQ(t4_error(with(good)), "");
  const std::vector<std::pair<ordered_json, std::string>> cases = {
      {ordered_json::array(), "not a JSON object"},
      {ordered_json::parse(R"({"schema_version": "1.0.0"})"), "\"results\" is missing"},
      {ordered_json::parse(R"({"results": {}})"), "\"results\" must be a list"},
      {ordered_json::parse(R"({"results": []})"), "\"results\" is empty"},
      {ordered_json::parse(R"({"schema_version": 1, "results": []})"), "\"schema_version\" must be a string"},
      {ordered_json::parse(R"({"schema_version": "2.0.0", "results": []})"), "not a T4 results schema 1.x.y"},
      {with("3"), "results[0] must be an object"},
      {with(R"({"times": {}, "invalidity": "correct", "correctness": 1})"), "results[0]: \"configuration\" is missing"},
      {with(R"({"configuration": [1], "times": {}, "invalidity": "correct", "correctness": 1})"),
       "results[0].configuration must be a non-empty object"},
      {with(R"({"configuration": {"A": 1.5}, "times": {}, "invalidity": "correct", "correctness": 1})"),
       "results[0].configuration.\"A\" = 1.5 is not an integer"},
      {with(R"({"configuration": {"A": "x"}, "times": {}, "invalidity": "correct", "correctness": 1})"),
       "is not an integer"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "correctness": 1})"), "results[0]: \"invalidity\" is missing"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "invalidity": "broken", "correctness": 1})"),
       "results[0].invalidity: \"broken\" is not a T4 invalidity"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "invalidity": 3, "correctness": 1})"),
       "results[0].invalidity must be a string"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "invalidity": "correct"})"),
       "results[0]: \"correctness\" is missing"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "invalidity": "correct", "correctness": "yes"})"),
       "results[0].correctness must be a number"},
      {with(R"({"configuration": {"A": 1}, "invalidity": "correct", "correctness": 1})"),
       "results[0]: \"times\" is missing"},
      {with(R"({"configuration": {"A": 1}, "times": {"runtimes": 3}, "invalidity": "correct", "correctness": 1})"),
       "results[0].times.runtimes must be a list"},
      {with(
           R"({"configuration": {"A": 1}, "times": {"runtimes": [1, -2]}, "invalidity": "correct", "correctness": 1})"),
       "results[0].times.runtimes[1] = -2 is not a time"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "invalidity": "correct", "correctness": 1})"),
       "has neither a \"time\" measurement nor times.runtimes"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "invalidity": "correct", "correctness": 1,
                "measurements": [{"name": "time", "value": "fast"}]})"),
       "results[0].measurements[0].value must be a number"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "invalidity": "correct", "correctness": 1,
                "measurements": [{"name": "time", "value": 1, "unit": "parsec"}]})"),
       "unit \"parsec\" is not a time unit"},
      {with(R"({"configuration": {"A": 1}, "times": {}, "invalidity": "correct", "correctness": 1,
                "measurements": {}})"),
       "results[0].measurements must be a list"},
      {with(good + "," + good), "results[1].configuration \"1\" was already given"},
      {with(good + R"(, {"configuration": {"B": 1}, "times": {}, "invalidity": "compile", "correctness": 0})"),
       "results[1].configuration has other parameters"},
  };
  for (const auto& [doc, want] : cases) {
    const std::string got = t4_error(doc);
    EXPECT_NE(got.find(want), std::string::npos) << "want \"" << want << "\", got \"" << got << "\" for " << doc.dump();
    EXPECT_EQ(got.rfind("t4.json", 0), 0u) << got;  // names the file
  }

  // Import needs a kernel, a GPU (a name and a compute capability) and a well-formed key.
  ktune::T4Import who;
  who.gpu.name = "NVIDIA H200";
  who.gpu.cc_major = 9;
  EXPECT_THROW(ktune::t4_to_db_records(with(good), who, "t4.json"), ktune::Error);
  who.kernel = "k";
  who.key = "M=64,N";
  EXPECT_THROW(ktune::t4_to_db_records(with(good), who, "t4.json"), ktune::Error);
  who.key = "M=64";
  EXPECT_EQ(ktune::t4_to_db_records(with(good), who, "t4.json").size(), 1u);
  who.gpu.cc_major = 0;
  EXPECT_THROW(ktune::t4_to_db_records(with(good), who, "t4.json"), ktune::Error);
  who.gpu.cc_major = 9;
  who.gpu.name.clear();
  EXPECT_THROW(ktune::t4_to_db_records(with(good), who, "t4.json"), ktune::Error);
}

TEST(Interop, BenchmarkHubThroughT4AndKernelTunerCache) {
  const fs::path file = interop_hub("convolution_milo_A100.json.gz");
  if (!fs::exists(file))
    GTEST_SKIP() << "SKIPPED: benchmark_hub data not found at " << file
                 << " (it lives in ../shared beside the checkout)";
  const ReplaySpace space = ReplaySpace::from_cache_file(file);
  const ktune::InteropData data = ktune::interop_from_replay(space);

  const ReplaySpace via_t4 = ktune::t4_to_replay(ordered_json::parse(ktune::to_t4_results(data).dump()),
                                                 "convolution.t4.json", space.device(), space.kernel());
  EXPECT_EQ(via_t4.size(), 4362u);
  EXPECT_EQ(via_t4.timed(), 4201u);
  EXPECT_NEAR(via_t4.best().second, 0.5536, 5e-5);
  EXPECT_EQ(via_t4.best().second, space.best().second);
  EXPECT_EQ(via_t4.config(via_t4.best().first), space.config(space.best().first));

  const ReplaySpace via_kt =
      ReplaySpace::from_cache(json::parse(ktune::to_kernel_tuner_cache(data).dump()), "convolution.kt.json");
  EXPECT_EQ(via_kt.size(), 4362u);
  EXPECT_EQ(via_kt.timed(), 4201u);
  EXPECT_EQ(via_kt.best().second, space.best().second);
  std::size_t compile_failed = 0;
  for (std::size_t i = 0; i < via_kt.size(); ++i) compile_failed += via_kt.outcome(i).status == Status::CompileFailed;
  EXPECT_EQ(compile_failed, 6u);
}

}  // namespace

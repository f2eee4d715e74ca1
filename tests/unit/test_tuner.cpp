// The tune step's bookkeeping, end to end: the real ktune::tune() against a fake worker
// (fake_measuring_worker.cpp) whose configs succeed, fail, crash or hang on request, on a
// kernel directory built here (manifest, compile records, cubins) so no GPU or nvcc is needed.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <csignal>
#include <random>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ktune/plan_bake.hpp"
#include "ktune/build_plan.hpp"
#include "ktune/db.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/config_id.hpp"
#include "ktune/error.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"
#include "ktune/tune_prior.hpp"
#include "ktune/tuner.hpp"
#include "temp_dir.hpp"

#ifndef KTUNE_FAKE_MEASURING_WORKER
#error "KTUNE_FAKE_MEASURING_WORKER must name the fake_measuring_worker executable"
#endif

namespace ktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The space of the fake kernel: MODE picks the outcome (see fake_measuring_worker.cpp), TIME
// scales MODE 0's time. Faulty modes only at TIME=1, so 3 + 5 = 8 configs.
const std::vector<std::string> kParams = {"MODE=0..5", "TIME=1..3"};
const std::vector<std::string> kWhere = {"MODE == 0 or TIME == 1"};
const char* const kDefault = "MODE=0 TIME=2";
constexpr std::size_t kConfigs = 8;
const std::vector<std::string> kKeys = {"N=1000", "N=2000"};

using TempDir = ktune::test_support::TempDir;

json read_json(const fs::path& path) { return read_json_file(path); }

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::size_t count_lines(const fs::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

std::string id_of(const Manifest& m, const std::vector<int64_t>& values) {
  std::vector<std::string> names;
  for (const auto& p : m.spec.parameters) names.push_back(p.name);
  return config_id(names, values);
}

// A built kernel: what `ktune plan` and `ktune compile` would have left in `dir`. Configs
// whose values are in `failed` get a "compile-failed" record and an empty cubin.
Manifest make_kernel(const fs::path& dir, const std::vector<std::string>& params, const std::vector<std::string>& where,
                     const std::string& default_text, const std::set<std::vector<int64_t>>& failed = {}) {
  for (const char* sub : {"records", "cubins", "deps"}) fs::create_directories(dir / sub);
  std::ofstream(dir / "fake.cu") << "extern \"C\" __global__ void fake() {}\n";
  PlanRequest r;
  r.kernel = "fake";
  r.source = (dir / "fake.cu").string();
  r.params = params;
  r.constraints = where;
  r.default_text = default_text;
  r.compile = {"/nonexistent/nvcc", "90", {"-O3"}, {}};  // never run: "unknown" version
  Manifest m = make_plan(r).manifest;
  write_file_if_changed(dir / "manifest.json", m.to_json().dump(2) + "\n");
  for (const auto& c : m.configs) {
    const bool ok = !failed.count(c.values);
    CompileRecord rec;
    rec.status = ok ? "ok" : "compile-failed";
    rec.exit_code = ok ? 0 : 1;
    rec.log = (dir / c.log()).string();
    rec.cubin = ok ? (dir / c.cubin()).string() : "";
    // As `ktune compile` leaves it: the command it ran and the depfile, so that the
    // tuner's compile pool finds the record current and compiles nothing.
    const CompileJob job = compile_job(m, c, dir);
    rec.command_digest = command_digest(job.command);
    std::ofstream(job.depfile) << job.record.string() << ": " << r.source << "\n";
    std::ofstream(dir / c.cubin(), std::ios::binary) << (ok ? "fake cubin" : "");
    write_file_if_changed(dir / c.record(), rec.to_json().dump(2) + "\n");
  }
  return m;
}

TuneOptions options_for(const fs::path& dir) {
  TuneOptions o;
  o.manifest = (dir / "manifest.json").string();
  o.db_dir = (dir / "db").string();
  o.keys = {{{"N", 1000}}, {{"N", 2000}}};
  o.worker_command = {KTUNE_FAKE_MEASURING_WORKER, "--worker"};
  o.worker_log = (dir / "worker.log").string();
  o.timeout_floor_s = 1.0;  // the hang config costs this (+ 10 x 4 ms) per key
  // ...or this, where it is measured before the DEFAULT's time is known (with two GPUs it
  // can run beside the DEFAULT: 120 s a key, twice, made one CI run 4 minutes longer).
  o.first_timeout_s = 10.0;
  o.summary_out = (dir / "summary.json").string();
  o.rule.max_seconds = 0.1;
  return o;
}

// Sets (or clears) the fake worker's environment for one test; the worker inherits it.
class TunerTest : public testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("KTUNE_FAKE_NO_GPU");
    use_starts_file("starts");
  }
  void TearDown() override {
    ::unsetenv("KTUNE_FAKE_NO_GPU");
    ::unsetenv("KTUNE_FAKE_STARTS");
    ::unsetenv("KTUNE_FAKE_HARNESS");
  }
  // Worker starts are counted in a new file from here on.
  fs::path use_starts_file(const std::string& name) {
    starts_ = dir_.path() / name;
    ::setenv("KTUNE_FAKE_STARTS", starts_.c_str(), 1);
    return starts_;
  }
  std::size_t starts() const { return count_lines(starts_); }

  // The standard fake kernel, MODE=0 TIME=3 failing to compile.
  Manifest make_standard() { return make_kernel(kernel_dir(), kParams, kWhere, kDefault, {{0, 3}}); }
  fs::path kernel_dir() const { return dir_.path() / "kernel"; }

  TempDir dir_;
  fs::path starts_;
};

// One status per MODE, for a key's counts.
const std::map<std::string, int> kExpectedCounts = {{"ok", 2},  // MODE 0 at TIME=1 and TIME=2 (TIME=3 did not compile)
                                                    {"compile-failed", 1},  // MODE 0 TIME=3
                                                    {"wrong-result", 1},    // MODE 1
                                                    {"crashed", 2},  // MODE 2 (died) and MODE 5 (sticky error, replied)
                                                    {"timed-out", 1},  // MODE 3
                                                    {"resource", 1}};  // MODE 4

std::map<std::string, int> counts_of(const json& key_summary) {
  return key_summary.at("counts").get<std::map<std::string, int>>();
}

TEST_F(TunerTest, EveryStatusIsCountedAndTheBestIsFaultless) {
  const Manifest m = make_standard();
  const TuneOptions o = options_for(kernel_dir());
  ASSERT_EQ(tune(o), 0);
  const json summary = read_json(o.summary_out);
  EXPECT_EQ(summary["tuned"], true);
  EXPECT_EQ(summary["gpu"]["name"], "Fake GPU");
  ASSERT_EQ(summary["keys"].size(), kKeys.size());
  for (std::size_t k = 0; k < kKeys.size(); ++k) {
    const json& key = summary["keys"][k];
    SCOPED_TRACE(key.dump());
    EXPECT_EQ(key["key"], kKeys[k]);
    EXPECT_EQ(counts_of(key), kExpectedCounts);
    // The fastest faultless config: MODE=0 at the smallest TIME.
    EXPECT_EQ(key["best_id"], id_of(m, {0, 1}));
    EXPECT_NEAR(key["best_ms"].get<double>(), 0.1, 1e-3);
    EXPECT_NEAR(key["default_ms"].get<double>(), 0.2, 2e-3);
    EXPECT_EQ(key["measured_now"], kConfigs - 1);  // all but the one that did not compile
    EXPECT_EQ(key["from_db"], 0);
    // Five replies carried phases: MODE 0 (twice), 1, 4 and 5.
    EXPECT_NEAR(key["phases_s"]["measure"].get<double>(), 5 * 0.002, 1e-9);
    EXPECT_NEAR(key["samples_ms_total"].get<double>(), 10 * 0.1 + 10 * 0.2, 1e-9);
  }
}

TEST_F(TunerTest, EveryMeasurementIsInTheDb) {
  const Manifest m = make_standard();
  const TuneOptions o = options_for(kernel_dir());
  ASSERT_EQ(tune(o), 0);
  const json summary = read_json(o.summary_out);
  EXPECT_EQ(summary["db"], (fs::path(o.db_dir) / "Fake_GPU.json").string());
  const json db = read_json(summary["db"].get<std::string>());
  const json& keys = db["fingerprints"][summary["fingerprint"].get<std::string>()]["keys"];
  ASSERT_EQ(keys.size(), kKeys.size());
  const std::map<int64_t, std::string> by_mode = {{0, "ok"},        {1, "wrong-result"}, {2, "crashed"},
                                                  {3, "timed-out"}, {4, "resource"},     {5, "crashed"}};
  for (const auto& key : kKeys) {
    SCOPED_TRACE(key);
    ASSERT_TRUE(keys.contains(key));
    // Compile failures are not measurements: the tuner re-reads the compile record instead.
    EXPECT_EQ(keys[key].size(), kConfigs - 1);
    for (const auto& c : m.configs) {
      const std::string id = c.id;
      if (c.values == std::vector<int64_t>{0, 3}) {
        EXPECT_FALSE(keys[key].contains(id));
        continue;
      }
      ASSERT_TRUE(keys[key].contains(id)) << id;
      const json& entry = keys[key][id];
      EXPECT_EQ(entry["values"], json({{"MODE", c.values[0]}, {"TIME", c.values[1]}}));
      const json& measurement = entry["measurement"];
      EXPECT_EQ(measurement["status"], by_mode.at(c.values[0])) << id;
      if (c.values[0] == 0) {
        EXPECT_EQ(measurement["samples_ms"].size(), 10u) << id;
        EXPECT_NEAR(measurement["median_ms"].get<double>(), 0.1 * c.values[1], 1e-3);
      } else {
        EXPECT_TRUE(measurement["samples_ms"].empty()) << id;
        EXPECT_FALSE(measurement["message"].get<std::string>().empty()) << id;
      }
    }
    EXPECT_EQ(keys[key][id_of(m, {1, 1})]["measurement"]["max_error"], 0.5);
    EXPECT_NE(keys[key][id_of(m, {2, 1})]["measurement"]["message"].get<std::string>().find("SIGSEGV"),
              std::string::npos);
    EXPECT_NEAR(keys[key][id_of(m, {3, 1})]["measurement"]["seconds"].get<double>(), 1.04, 1e-6);
  }
}

TEST_F(TunerTest, ResumeMeasuresNothingAgain) {
  make_standard();
  const TuneOptions o = options_for(kernel_dir());
  ASSERT_EQ(tune(o), 0);
  const fs::path db = read_json(o.summary_out)["db"].get<std::string>();
  const auto db_before = fs::last_write_time(db);
  use_starts_file("starts_rerun");
  ASSERT_EQ(tune(o), 0);
  EXPECT_EQ(starts(), 1u);  // the first ready line only: no config reached a worker
  EXPECT_EQ(fs::last_write_time(db), db_before);
  const json summary = read_json(o.summary_out);
  for (const auto& key : summary["keys"]) {
    SCOPED_TRACE(key.dump());
    EXPECT_EQ(key["measured_now"], 0);
    // The compile failure is not in the DB: it is re-read from its record, not measured.
    EXPECT_EQ(key["from_db"], kConfigs - 1);
    EXPECT_EQ(counts_of(key), kExpectedCounts);
    EXPECT_NEAR(key["default_ms"].get<double>(), 0.2, 2e-3);
    EXPECT_NEAR(key["best_ms"].get<double>(), 0.1, 1e-3);
  }
}

// A search cut short (a budget), then the whole space: the DB answers what was measured,
// compile failures come from their records, and every other config is measured now.
TEST_F(TunerTest, ResumeAfterACutSearchMeasuresTheRest) {
  const Manifest m = make_kernel(kernel_dir(), {"MODE=0", "TIME=1..120"}, {}, "MODE=0 TIME=5", {{0, 7}, {0, 80}});
  TuneOptions o = options_for(kernel_dir());
  o.keys = {{{"N", 1000}}};
  o.budget.evaluations = 60;
  ASSERT_EQ(tune(o), 0);
  o.budget.evaluations.reset();
  ASSERT_EQ(tune(o), 0);
  const json key = read_json(o.summary_out)["keys"][0];
  std::size_t evaluated = 0;
  for (const auto& [status, n] : key["counts"].items()) evaluated += n.get<std::size_t>();
  EXPECT_EQ(evaluated, 120u) << key.dump(1);
  EXPECT_EQ(key["counts"]["compile-failed"], 2) << key.dump(1);
  EXPECT_EQ(key["from_db"].get<std::size_t>() + key["measured_now"].get<std::size_t>(), 118u) << key.dump(1);
  EXPECT_GE(key["measured_now"].get<std::size_t>(), 58u);
}

// Answers that need no GPU (from the DB, or a compile failure from its record) one after
// the other, more of them than proposals may run ahead: the search goes on to the end.
TEST_F(TunerTest, ARunOfFailuresAndDbAnswersDoesNotEndTheSearch) {
  std::set<std::vector<int64_t>> failed;
  for (int64_t t = 10; t < 20; ++t) failed.insert({0, t});
  make_kernel(kernel_dir(), {"MODE=0", "TIME=1..60"}, {}, "MODE=0 TIME=5", failed);
  TuneOptions o = options_for(kernel_dir());
  o.keys = {{{"N", 1000}}};
  ASSERT_EQ(tune(o), 0);
  ASSERT_EQ(tune(o), 0);
  const json key = read_json(o.summary_out)["keys"][0];
  EXPECT_EQ(key["counts"], json({{"compile-failed", 10}, {"ok", 50}})) << key.dump(1);
  EXPECT_EQ(key["from_db"], 50);
}

TEST_F(TunerTest, RetuneMeasuresEverythingAgain) {
  make_standard();
  TuneOptions o = options_for(kernel_dir());
  ASSERT_EQ(tune(o), 0);
  o.retune = true;
  ASSERT_EQ(tune(o), 0);
  const json summary = read_json(o.summary_out);
  for (const auto& key : summary["keys"]) {
    SCOPED_TRACE(key.dump());
    EXPECT_EQ(key["measured_now"], kConfigs - 1);
    EXPECT_EQ(key["from_db"], 0);
    EXPECT_EQ(counts_of(key), kExpectedCounts);
  }
}

// Per key the exhaustive order is the DEFAULT (MODE=0 TIME=2), then enumeration order:
// MODE=0 TIME=1, MODE=0 TIME=3 (compile-failed, no call), MODE 1, 2, 3, 4, 5. Worker starts:
//   1  before key 1: tune() starts one for its ready line.
//   MODE 2 crashes with no reply: the call is Died; MODE 3 finds the worker gone and starts
//      one (+1).
//   MODE 3 hangs: the timeout kills the worker, MODE 4 starts one (+1).
//   MODE 5 replies "crashed" and exits; retire() drops it, the next config starts one (+1).
// Key 1: 1 + 3 (the last start serves key 2's DEFAULT); key 2: +2 (nothing follows its
// MODE 5). Total 6: one start per worker lost, none spent on a second try.
TEST_F(TunerTest, WorkerRestartsAfterEachCrashOrHang) {
  make_standard();
  const TuneOptions o = options_for(kernel_dir());
  ASSERT_EQ(tune(o), 0);
  EXPECT_EQ(starts(), 6u);
}

TEST_F(TunerTest, NoGpuIsANoteUnlessRequired) {
  make_standard();
  TuneOptions o = options_for(kernel_dir());
  ::setenv("KTUNE_FAKE_NO_GPU", "1", 1);
  ASSERT_EQ(tune(o), 0);
  const json summary = read_json(o.summary_out);
  EXPECT_EQ(summary["tuned"], false);
  EXPECT_EQ(summary["why"], "fake: no GPU");
  EXPECT_FALSE(fs::exists(o.db_dir));
  EXPECT_EQ(starts(), 1u);

  o.require_gpu = true;
  try {
    tune(o);
    FAIL() << "require_gpu without a GPU must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fake: no GPU"), std::string::npos) << e.what();
  }
}

TEST_F(TunerTest, FatalReplyStopsTheTuner) {
  make_kernel(kernel_dir(), {"MODE=0", "FATAL=0..1"}, {}, "MODE=0 FATAL=0");
  const TuneOptions o = options_for(kernel_dir());
  try {
    tune(o);
    FAIL() << "a fatal reply must throw";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("config has no parameter"), std::string::npos) << what;
    EXPECT_NE(what.find("fake [N=1000]"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(o.summary_out));
}

// A harness that throws or dies while making a key's inputs and references is one error
// naming the key, not a crash recorded for every config.
TEST_F(TunerTest, FailingHarnessIsOneErrorNotCrashedConfigs) {
  make_standard();
  const TuneOptions o = options_for(kernel_dir());
  for (const char* mode : {"fail", "crash"}) {
    ::setenv("KTUNE_FAKE_HARNESS", mode, 1);
    try {
      tune(o);
      ADD_FAILURE() << mode << ": a failing harness must throw";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the harness failed on key N=1000"), std::string::npos) << what;
      if (std::string(mode) == "fail") EXPECT_NE(what.find("fake: the reference failed"), std::string::npos) << what;
      EXPECT_NE(what.find("worker.log"), std::string::npos) << what;
    }
    EXPECT_FALSE(fs::exists(fs::path(o.db_dir) / "Fake_GPU.json")) << mode << ": nothing recorded";
  }
}

// The tuner killed (SIGKILL or SIGINT) at 20 random points, each after a random number of
// new results: the DB always parses and is trusted, no result recorded before a kill is
// lost, and the final run measures only what is missing.
TEST_F(TunerTest, KilledAtRandomPointsLosesNothing) {
  constexpr std::size_t kPerKey = 200;
  make_kernel(kernel_dir(), {"MODE=0", "TIME=1.." + std::to_string(kPerKey)}, {}, "MODE=0 TIME=1");
  TuneOptions o = options_for(kernel_dir());
  ::setenv("KTUNE_FAKE_DELAY_MS", "10", 1);
  const fs::path db_path = fs::path(o.db_dir) / "Fake_GPU.json";
  auto recorded = [&] {
    std::map<std::string, std::set<std::string>> ids;  // key -> config ids
    if (!fs::exists(db_path)) return ids;
    Db db(db_path, "fake");
    EXPECT_EQ(db.warning(), "") << "the DB was not trusted after a kill";
    for (const auto& [digest, fp] : db.document()["fingerprints"].items())
      for (const auto& [key, configs] : fp["keys"].items())
        for (const auto& [id, entry] : configs.items()) ids[key].insert(id);
    return ids;
  };
  auto total = [](const std::map<std::string, std::set<std::string>>& ids) {
    std::size_t n = 0;
    for (const auto& [key, set] : ids) n += set.size();
    return n;
  };
  std::mt19937 rng(20261202);
  std::map<std::string, std::set<std::string>> before;
  int killed_mid_run = 0;
  for (int run = 0; run < 20; ++run) {
    const std::size_t target = total(before) + std::uniform_int_distribution<int>(1, 8)(rng);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        tune(o);
      } catch (...) {
      }
      ::_exit(0);
    }
    // Poll cheaply (the file is replaced atomically, so it always parses); give up after 2 s.
    auto count_in_file = [&] {
      std::ifstream in(db_path);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::size_t n = 0;
      for (auto at = text.find("\"measurement\""); at != std::string::npos; at = text.find("\"measurement\"", at + 1))
        ++n;
      return n;
    };
    for (int waited = 0; waited < 1000; ++waited) {
      const std::size_t n = count_in_file();
      if (n >= target || n >= 2 * kPerKey) break;
      ::usleep(2000);
    }
    ::kill(child, run % 2 ? SIGINT : SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    killed_mid_run += WIFSIGNALED(status);
    auto now = recorded();
    for (const auto& [key, ids] : before)
      for (const auto& id : ids) EXPECT_TRUE(now[key].count(id)) << "run " << run << " lost " << id;
    before = now;
  }
  ::unsetenv("KTUNE_FAKE_DELAY_MS");
  // On a loaded machine later runs may finish before their kill (the parent polls late);
  // the first ones cannot: they leave hundreds of configs unmeasured.
  EXPECT_GE(killed_mid_run, 1) << "no kill landed while the tuner ran";
  std::cout << "kills that landed mid-run: " << killed_mid_run << " of 20\n";
  const std::size_t kept = total(before);
  ASSERT_EQ(tune(o), 0);
  const json summary = read_json(o.summary_out);
  std::size_t measured = 0;
  for (const auto& key : summary["keys"]) {
    EXPECT_EQ(key["from_db"].get<std::size_t>() + key["measured_now"].get<std::size_t>(), kPerKey);
    measured += key["measured_now"].get<std::size_t>();
  }
  EXPECT_EQ(measured, 2 * kPerKey - kept) << "the final run measured again what the DB had";
  EXPECT_EQ(total(recorded()), 2 * kPerKey);
}

// Two tuners (one key each) and a bake on one DB at once: no update lost, no torn file.
// Each tuner records every measurement as it goes; the bake plans from the directory in a
// loop the whole time, so it reads the file between, and during, the tuners' writes.
TEST_F(TunerTest, TwoTunersAndABakeShareOneDb) {
  constexpr std::size_t kPerKey = 60;
  Manifest m = make_kernel(kernel_dir(), {"MODE=0", "TIME=1.." + std::to_string(kPerKey)}, {}, "MODE=0 TIME=1");
  ::setenv("KTUNE_FAKE_DELAY_MS", "5", 1);
  const TuneOptions base = options_for(kernel_dir());
  m.keys = {{{"N", 1000}}, {{"N", 2000}}};  // the bake's tables need the KEYS' dimensions
  std::vector<pid_t> tuners;
  for (int t = 0; t < 2; ++t) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 1;
      try {
        TuneOptions o = base;
        o.keys = {{{"N", t ? 2000 : 1000}}};
        o.summary_out = (dir_.path() / ("summary" + std::to_string(t) + ".json")).string();
        o.worker_log = (dir_.path() / ("worker" + std::to_string(t) + ".log")).string();
        rc = tune(o);
      } catch (...) {
      }
      ::_exit(rc);
    }
    tuners.push_back(pid);
  }
  const std::string hash = kernel_hash((kernel_dir() / "manifest.json").string());
  std::set<std::string> ids;
  for (const auto& c : m.configs) ids.insert(c.id);
  int reads = 0, running = 2;
  std::vector<std::string> warnings;
  std::vector<int> statuses(2, -1);
  while (running > 0) {
    const BakePlan plan = plan_bake(m, hash, {fs::path(base.db_dir)}, ids);
    ++reads;
    warnings.insert(warnings.end(), plan.warnings.begin(), plan.warnings.end());
    for (std::size_t t = 0; t < tuners.size(); ++t) {
      if (statuses[t] != -1) continue;
      int status = 0;
      if (::waitpid(tuners[t], &status, WNOHANG) == tuners[t]) {
        statuses[t] = status;
        --running;
      }
    }
  }
  ::unsetenv("KTUNE_FAKE_DELAY_MS");
  for (int status : statuses) EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(warnings.empty()) << "the bake saw a bad DB while the tuners wrote it: " << warnings.front();
  std::cout << "bake plans made while two tuners wrote the DB: " << reads << "\n";
  EXPECT_GE(reads, 10);
  Db db(fs::path(base.db_dir) / "Fake_GPU.json", "fake");
  EXPECT_EQ(db.warning(), "");
  const json doc = db.document();
  const json& keys = doc["fingerprints"].begin().value()["keys"];
  ASSERT_EQ(keys.size(), 2u);
  for (const auto& [key, configs] : keys.items()) EXPECT_EQ(configs.size(), kPerKey) << key << ": an update was lost";
  const BakePlan last = plan_bake(m, hash, {fs::path(base.db_dir)}, ids);
  ASSERT_EQ(last.tables.size(), 1u);
  EXPECT_EQ(last.tables[0].entries.size(), 2u);
}

namespace {

// Runs tune(o) in a child process prepared by `setup` (limits, identity); returns the
// error message it ended with ("" when tune() returned 0) through a file.
std::string tune_in_child(const TuneOptions& o, const fs::path& message_file, const std::function<void()>& setup) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int rc = 0;
    std::string message;
    try {
      setup();
      rc = tune(o);
      if (rc != 0) message = "tune() returned " + std::to_string(rc);
    } catch (const std::exception& e) {
      rc = 3;
      message = e.what();
    }
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
    ::setrlimit(RLIMIT_FSIZE, &unlimited);  // a raised hard limit is refused: the message is short
    std::ofstream(message_file) << message;
    ::_exit(rc);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::ifstream in(message_file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

// The disk fills while the tuner records (a file-size limit in its process makes every
// write past it fail as a full disk would): a clear error naming the DB, the DB as it was
// after the last write that fit, nothing left half-written; a later run with room measures
// only what is missing.
TEST_F(TunerTest, DiskFullIsAClearErrorAndTheDbStaysWhole) {
  constexpr std::size_t kPerKey = 40;
  make_kernel(kernel_dir(), {"MODE=0", "TIME=1.." + std::to_string(kPerKey)}, {}, "MODE=0 TIME=1");
  TuneOptions o = options_for(kernel_dir());
  o.keys = {{{"N", 1000}}};
  ASSERT_EQ(tune(o), 0);
  const fs::path db_path = fs::path(o.db_dir) / "Fake_GPU.json";
  const auto full_size = fs::file_size(db_path);

  o.keys = {{{"N", 1000}}, {{"N", 2000}}};
  const std::string message = tune_in_child(o, dir_.path() / "message.txt", [&] {
    ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead of killing
    const rlimit room{full_size + 3000, full_size + 3000};
    if (::setrlimit(RLIMIT_FSIZE, &room) != 0) throw std::runtime_error("setrlimit failed");
  });
  EXPECT_NE(message.find(db_path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("unchanged"), std::string::npos) << message;
  Db after(db_path, "fake");
  EXPECT_EQ(after.warning(), "");
  const json doc = after.document();
  const json& keys = doc["fingerprints"].begin().value()["keys"];
  EXPECT_EQ(keys["N=1000"].size(), kPerKey) << "a measurement made before the disk filled was lost";
  const std::size_t kept = keys.contains("N=2000") ? keys["N=2000"].size() : 0;
  EXPECT_LT(kept, kPerKey) << "the limit never bit";
  for (const auto& e : fs::directory_iterator(o.db_dir))
    EXPECT_TRUE(e.path().filename() == "Fake_GPU.json" || e.path().filename() == "Fake_GPU.json.lock")
        << "left behind: " << e.path();
  std::cout << "disk full after " << kept << " new measurements: " << message.substr(0, 160) << "\n";

  ASSERT_EQ(tune(o), 0);
  const json summary = read_json(o.summary_out);
  EXPECT_EQ(summary["keys"][0]["measured_now"], 0);
  EXPECT_EQ(summary["keys"][1]["measured_now"], kPerKey - kept);
}

// A DB directory the tuner may not write (for root too: the child gives up root first):
// a clear error naming the DB, the DB on disk unchanged.
TEST_F(TunerTest, UnwritableDbDirectoryIsAClearErrorAndKeepsTheDb) {
  make_kernel(kernel_dir(), {"MODE=0", "TIME=1..6"}, {}, "MODE=0 TIME=1");
  TuneOptions o = options_for(kernel_dir());
  o.keys = {{{"N", 1000}}};
  ASSERT_EQ(tune(o), 0);
  const fs::path db_path = fs::path(o.db_dir) / "Fake_GPU.json";
  const std::string before = file_text(db_path);
  // What the child writes besides the DB goes where anyone may write.
  const fs::path open_dir = dir_.path() / "open";
  fs::create_directories(open_dir);
  for (fs::path p = open_dir; p != dir_.path().parent_path(); p = p.parent_path())
    fs::permissions(p, fs::perms::all, fs::perm_options::add);
  fs::permissions(o.db_dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(db_path, fs::perms::all, fs::perm_options::add);  // the file is writable; its directory is not
  o.keys = {{{"N", 2000}}};
  o.summary_out = (open_dir / "summary.json").string();
  o.worker_log = (open_dir / "worker.log").string();
  ::setenv("KTUNE_FAKE_STARTS", (open_dir / "starts").c_str(), 1);
  const std::string message = tune_in_child(o, open_dir / "message.txt", [] {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0))
      throw std::runtime_error("could not give up root");
  });
  fs::permissions(o.db_dir, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_NE(message.find(db_path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("unchanged"), std::string::npos) << message;
  EXPECT_EQ(file_text(db_path), before);
  std::cout << "unwritable DB directory: " << message.substr(0, 160) << "\n";
}

// Every config that was not ok is listed in the summary with its status and reason; one
// that did not compile quotes the compiler's first error line (compile failures are not
// measurements: the DB does not keep them).
TEST_F(TunerTest, FailuresAreReportedWithTheirReasons) {
  const Manifest m = make_standard();
  std::optional<ManifestConfig> failed;
  for (const auto& c : m.configs)
    if (c.values == std::vector<int64_t>{0, 3}) failed = c;
  ASSERT_TRUE(failed);
  fs::create_directories((kernel_dir() / failed->log()).parent_path());
  std::ofstream(kernel_dir() / failed->log())
      << "nvcc -cubin ...\nfake.cu(3): error: FAULT=1 on purpose\n1 error detected\n";
  TuneOptions o = options_for(kernel_dir());
  o.keys = {{{"N", 1000}}};
  testing::internal::CaptureStdout();
  const int rc = tune(o);
  const std::string printed = testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0) << printed;
  const json failures = read_json(o.summary_out)["keys"][0]["failures"];
  std::map<std::string, std::string> reason_of;  // status -> reasons
  for (const auto& f : failures) reason_of[f["status"]] += f["reason"].get<std::string>() + "|";
  EXPECT_EQ(failures.size(), 6u) << failures.dump(1);
  // Named by their values, in the summary and in the table printed (the first five).
  std::size_t named = 0;
  for (const auto& c : m.configs)
    for (const auto& f : failures)
      if (f["id"] == c.id) {
        EXPECT_EQ(f["config"], m.describe(c.values)) << f.dump();
        ++named;
      }
  EXPECT_EQ(named, failures.size());
  EXPECT_EQ(failures[0]["config"].get<std::string>().rfind("MODE=", 0), 0u) << failures.dump(1);
  for (std::size_t i = 0; i < 5; ++i) {
    const std::string line = "  " + failures[i]["status"].get<std::string>() + " " +
                             failures[i]["config"].get<std::string>() + " at N=1000: ";
    EXPECT_NE(printed.find(line), std::string::npos) << line << "\n" << printed;
  }
  EXPECT_EQ(printed.find(failures[5]["config"].get<std::string>() + " at N=1000"), std::string::npos) << printed;
  EXPECT_NE(printed.find("6 measurements were not ok (the first 5 above)"), std::string::npos) << printed;
  EXPECT_NE(reason_of["compile-failed"].find("fake.cu(3): error: FAULT=1 on purpose"), std::string::npos)
      << reason_of["compile-failed"];
  EXPECT_NE(reason_of["compile-failed"].find(failed->log()), std::string::npos);
  EXPECT_NE(reason_of["wrong-result"].find("beyond tolerance"), std::string::npos);
  EXPECT_NE(reason_of["crashed"].find("SIGSEGV"), std::string::npos);
  EXPECT_NE(reason_of["crashed"].find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos);
  EXPECT_NE(reason_of["timed-out"].find("no reply within"), std::string::npos);
  EXPECT_NE(reason_of["resource"].find("shared memory"), std::string::npos);
}

// A compile record cut short (a disk that filled, a crash mid-write) is not current: the
// config is compiled again (here by a compiler that does not exist, so it is recorded
// compile-failed, naming its log), and every other config is measured as before.
TEST_F(TunerTest, DamagedCompileRecordIsCompiledAgain) {
  const Manifest m = make_kernel(kernel_dir(), {"MODE=0", "TIME=1..4"}, {}, "MODE=0 TIME=1");
  const ManifestConfig damaged = m.configs.back();
  const fs::path record = kernel_dir() / damaged.record();
  const std::string whole = file_text(record);
  std::ofstream(record, std::ios::trunc) << whole.substr(0, whole.size() / 2);
  TuneOptions o = options_for(kernel_dir());
  o.keys = {{{"N", 1000}}};
  ASSERT_EQ(tune(o), 0);
  const json key = read_json(o.summary_out)["keys"][0];
  ASSERT_EQ(key["failures"].size(), 1u) << key.dump(1);
  const std::string reason = key["failures"][0]["reason"];
  EXPECT_EQ(key["failures"][0]["status"], "compile-failed");
  EXPECT_EQ(key["failures"][0]["id"], damaged.id);
  EXPECT_NE(reason.find("did not compile"), std::string::npos) << reason;
  EXPECT_NE(reason.find(damaged.log()), std::string::npos) << reason;
  EXPECT_EQ(CompileRecord::read(record).status, "compile-failed");  // whole again
  EXPECT_EQ(key["compile"]["asked"], 1);
  EXPECT_EQ(key["measured_now"], 3);
  for (const auto& f : fs::recursive_directory_iterator(o.db_dir))
    if (f.is_regular_file())
      EXPECT_EQ(file_text(f.path()).find(damaged.id), std::string::npos) << f.path() << ": kept as a result";
}

// `ktune report` on a DB the tuner just wrote: the table names each key's winner and its
// speedup over the DEFAULT, and gnuplot draws every plot (best so far by evaluations and by
// time, time per parameter value, speedups) as PNG.
TEST_F(TunerTest, ReportDrawsTheSearch) {
  make_kernel(kernel_dir(), {"MODE=0", "TIME=1..12"}, {}, "MODE=0 TIME=5");  // a config's time is TIME x 0.1 ms
  TuneOptions o = options_for(kernel_dir());
  ASSERT_EQ(tune(o), 0);
  const fs::path out = dir_.path() / "report";
  const std::string command = std::string(KTUNE_TOOL) + " report '" + o.db_dir + "' --manifest '" + o.manifest +
                              "' --out '" + out.string() + "' > '" + (dir_.path() / "report.log").string() + "' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text(dir_.path() / "report.log");
  // KTUNE_TEST_KEEP=<dir>: keep the report, to look at the plots.
  if (const char* keep = std::getenv("KTUNE_TEST_KEEP")) fs::copy(out, keep, fs::copy_options::recursive);
  const std::string md = read_text(out / "report.md");
  EXPECT_NE(md.find("| fake | Fake GPU | N=1000 | 12 | 12 | 0.1000 | MODE=0 TIME=1 | 0.5000 | 5.00× |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| fake | Fake GPU | N=2000 | 12 | 12 |"), std::string::npos) << md;
  EXPECT_NE(md.find("- `TIME`: 1 → 1.00, 2 → 2.00,"), std::string::npos) << md;
  for (const char* png : {"best_vs_evaluations", "best_vs_time", "param_TIME", "speedup"}) {
    const std::string image = read_text(out / (std::string(png) + ".png"));
    EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8))
        << png << ": not drawn; " << read_text(dir_.path() / "report.log");
    EXPECT_GT(image.size(), 5000u) << png;
    EXPECT_NE(md.find("![" + std::string(png) + "](" + png + ".png)"), std::string::npos) << png;
  }
  // The one-file HTML holds each plot inline and the tables; the CSV every measurement.
  const std::string html = read_text(out / "report.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  std::size_t images = 0;
  for (std::size_t at = 0; (at = html.find("src=\"data:image/png;base64,iVBORw0KGgo", at)) != std::string::npos; ++at)
    ++images;
  EXPECT_EQ(images, 4u);
  EXPECT_NE(html.find("<td>MODE=0 TIME=1</td>"), std::string::npos);
  EXPECT_NE(html.find("<p>The per-parameter plots show all 24 ok measurements: 24 measured fully"), std::string::npos);
  const std::string csv = read_text(out / "measurements.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\r')),
            "kernel,gpu,key,id,MODE,TIME,status,median_ms,abandoned,samples,seconds,at,message");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 24) << csv;
  // Each measurement's time as a Unix time to the millisecond (the 12th column), as the DB has it.
  std::istringstream rows(csv);
  std::string row;
  std::getline(rows, row);
  while (std::getline(rows, row)) {
    std::vector<std::string> cells;
    std::istringstream cols(row);
    for (std::string cell; std::getline(cols, cell, ',');) cells.push_back(cell);
    ASSERT_GE(cells.size(), 12u) << row;
    const std::string& at = cells[11];
    EXPECT_TRUE(at.size() > 4 && at[at.size() - 4] == '.' && at.find('e') == std::string::npos) << row;
    EXPECT_GT(std::stod(at), 1.7e9) << row;
  }
}

// A budget of 3 with no strategy named is exhaustive cut short: in a seeded random order,
// the DEFAULT first, 3 configs per key and no more.
TEST_F(TunerTest, BudgetLimitsEvaluationsPerKey) {
  const Manifest m = make_kernel(kernel_dir(), {"MODE=0", "TIME=1..40"}, {}, "MODE=0 TIME=5");
  TuneOptions o = options_for(kernel_dir());
  o.budget.evaluations = 3;
  ASSERT_EQ(tune(o), 0);
  EXPECT_EQ(starts(), 1u);
  const json summary = read_json(o.summary_out);
  const json db = read_json(summary["db"].get<std::string>());
  const json& keys = db["fingerprints"][summary["fingerprint"].get<std::string>()]["keys"];
  for (const auto& key : kKeys) {
    SCOPED_TRACE(key);
    ASSERT_TRUE(keys.contains(key));
    EXPECT_EQ(keys[key].size(), 3u);
    EXPECT_TRUE(keys[key].contains(m.default_id));
    // Not the first corner of the space: not TIME=1 and TIME=2 after the DEFAULT.
    EXPECT_FALSE(keys[key].contains(id_of(m, {0, 1})) && keys[key].contains(id_of(m, {0, 2})));
  }
  for (const auto& key : summary["keys"]) {
    EXPECT_EQ(key["measured_now"], 3);
    EXPECT_EQ(key["counts"], json({{"ok", 3}}));
  }
}

// A space above the eager limit: nothing is compiled before tuning; the tuner's compile
// pool runs the compiler (a stand-in for nvcc that logs each config it compiles) for each
// proposal as a slot frees, and measures each cubin as soon as it exists, while others
// compile. Only what the strategy proposed is ever compiled.
TEST_F(TunerTest, OnDemandCompilesOnlyWhatIsProposedWhileMeasuring) {
  const fs::path dir = kernel_dir();
  for (const char* sub : {"records", "cubins", "logs", "deps"})
    fs::create_directories(dir / sub);  // as `ktune plan` does
  std::ofstream(dir / "fake.cu") << "extern \"C\" __global__ void fake() {}\n";
  const fs::path events = dir_.path() / "events.txt";
  const fs::path fake_nvcc = dir_.path() / "fake_nvcc.sh";
  // nvcc's arguments end with: -MD -MF DEPFILE -MT RECORD -o CUBIN SOURCE.
  std::ofstream(fake_nvcc)
      << "#!/bin/sh\n"
      << "while [ $# -gt 1 ]; do case \"$1\" in -MF) dep=$2;; -o) out=$2;; esac; shift; done\n"
      // `nvcc --version`, for the fingerprint: its stdout is read, its stderr is not
      << "[ -n \"$out\" ] || { echo 'Cuda compilation tools, release 13.0, V13.0.88'; echo noise >&2; exit 0; }\n"
      << "sleep 0.05\n"
      << "echo \"compile $(basename \"$out\" .cubin)\" >>'" << events.string() << "'\n"
      << "echo cubin >\"$out\"; echo \"x: $1\" >\"$dep\"\n";
  fs::permissions(fake_nvcc, fs::perms::owner_all);
  PlanRequest r;
  r.kernel = "fake";
  r.source = (dir / "fake.cu").string();
  r.params = {"MODE=0", "TIME=1..40"};
  r.default_text = "MODE=0 TIME=20";
  r.compile = {fake_nvcc.string(), "90", {"-O3"}, {}};
  r.eager_limit = 16;
  const Manifest m = make_plan(r).manifest;
  ASSERT_TRUE(m.on_demand);
  write_file_if_changed(dir / "manifest.json", m.to_json().dump(2) + "\n");
  ::setenv("KTUNE_FAKE_EVENTS", events.c_str(), 1);
  ::setenv("KTUNE_FAKE_DELAY_MS", "40", 1);

  TuneOptions o = options_for(dir);
  o.strategy = "random";
  o.seed = 3;
  o.budget.evaluations = 12;
  o.compile_jobs = 4;
  const int rc = tune(o);
  ::unsetenv("KTUNE_FAKE_EVENTS");
  ::unsetenv("KTUNE_FAKE_DELAY_MS");
  ASSERT_EQ(rc, 0);

  std::vector<std::pair<std::string, std::string>> log;  // (what, config id)
  {
    std::ifstream in(events);
    for (std::string line, what, id; std::getline(in, line);)
      if (std::istringstream(line) >> what >> id) log.emplace_back(what, id);
  }
  std::set<std::string> compiled, measured;
  for (const auto& [what, id] : log) (what == "compile" ? compiled : measured).insert(id);
  std::size_t records = 0;
  for (const auto& e : fs::directory_iterator(dir / "records")) records += e.path().extension() == ".json";
  EXPECT_EQ(compiled, measured) << "compiled something it did not measure, or the reverse";
  EXPECT_EQ(records, compiled.size());
  EXPECT_LE(compiled.size(), 24u);
  EXPECT_GE(compiled.size(), 12u);
  std::size_t compile_lines = 0;
  for (const auto& [what, id] : log) compile_lines += what == "compile";
  EXPECT_EQ(compile_lines, compiled.size()) << "a config was compiled twice";

  const json summary = read_json(o.summary_out);
  EXPECT_EQ(summary["build"], "on-demand");
  const json db = read_json(summary["db"].get<std::string>());
  EXPECT_EQ(db["fingerprints"][summary["fingerprint"].get<std::string>()]["fingerprint"].value("nvcc_version", ""),
            "13.0.88")
      << "the fingerprint names the version the compiler printed";
  for (const auto& key : summary["keys"]) {
    EXPECT_EQ(key["measured_now"], 12);
    EXPECT_EQ(key["counts"], json({{"ok", 12}}));
    EXPECT_EQ(
        db["fingerprints"][summary["fingerprint"].get<std::string>()]["keys"][key["key"].get<std::string>()].size(),
        12u);
  }
  EXPECT_EQ(summary["keys"][0]["compile"]["asked"], 12) << "the first key compiles each of its proposals once";
  // Compiling and measuring overlap: the first key's configs were still being compiled
  // after its first measurement, and measured before its last compile ended.
  std::size_t first_measure = log.size(), last_compile = 0, first_key_compiles = 0;
  for (std::size_t i = 0; i < log.size() && first_key_compiles < 12; ++i) {
    if (log[i].first == "compile")
      last_compile = i, ++first_key_compiles;
    else
      first_measure = std::min(first_measure, i);
  }
  EXPECT_LT(first_measure, last_compile) << "nothing was measured before the last compile ended";

  // A rerun finds everything in the DB: nothing is compiled or measured.
  const std::size_t events_before = log.size();
  ASSERT_EQ(tune(o), 0);
  std::size_t lines = 0;
  {
    std::ifstream in(events);
    for (std::string line; std::getline(in, line);) lines += !line.empty();
  }
  EXPECT_EQ(lines, events_before) << read_text(events);
}

// Several GPUs (fake ones: KTUNE_FAKE_GPUS, see fake_measuring_worker.cpp).
class MultiGpuTest : public TunerTest {
 protected:
  void SetUp() override {
    TunerTest::SetUp();
    events_ = dir_.path() / "events";
    ::setenv("KTUNE_FAKE_EVENTS", events_.c_str(), 1);
    ::unsetenv("CUDA_VISIBLE_DEVICES");
  }
  void TearDown() override {
    TunerTest::TearDown();
    for (const char* v :
         {"KTUNE_FAKE_EVENTS", "KTUNE_FAKE_GPUS", "KTUNE_FAKE_BAD_GPU", "KTUNE_FAKE_DELAY_MS", "CUDA_VISIBLE_DEVICES"})
      ::unsetenv(v);
  }
  // Measurements per GPU (as the worker saw it), and per config id.
  std::map<int, std::size_t> measured_per_gpu() const {
    std::map<int, std::size_t> out;
    std::ifstream in(events_);
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::string what, id, gpu_word;
      int gpu = -1;
      if (words >> what >> id >> gpu_word >> gpu) ++out[gpu];
    }
    return out;
  }
  // Eight configs that all pass: TIME=1..8.
  Manifest make_good() { return make_kernel(kernel_dir(), {"MODE=0", "TIME=1..8"}, {}, "MODE=0 TIME=1"); }

  fs::path events_;
};

// Two GPUs of one model: both measure, into one table; a config's own faults (crash, hang,
// sticky error) are tried on the other GPU once, then recorded as before; no GPU is dropped.
TEST_F(MultiGpuTest, TwoGpusOfOneModelShareTheWorkAndOneTable) {
  make_standard();
  ::setenv("KTUNE_FAKE_GPUS", "Fake GPU,Fake GPU", 1);
  ::setenv("KTUNE_FAKE_DELAY_MS", "20", 1);
  const TuneOptions o = options_for(kernel_dir());
  ASSERT_EQ(tune(o), 0);
  const json summary = read_json(o.summary_out);
  EXPECT_EQ(summary["gpus"], json({0, 1}));
  EXPECT_TRUE(summary["dropped_gpus"].empty()) << summary["dropped_gpus"];
  for (const auto& key : summary["keys"]) {
    EXPECT_EQ(counts_of(key), kExpectedCounts) << key["key"];
    for (const auto& f : key["failures"])
      if (f["status"] == "crashed" || f["status"] == "timed-out")
        EXPECT_NE(f["reason"].get<std::string>().find("measured again on GPU"), std::string::npos) << f;
  }
  const auto per_gpu = measured_per_gpu();
  EXPECT_GT(per_gpu.count(0) ? per_gpu.at(0) : 0, 0u);
  EXPECT_GT(per_gpu.count(1) ? per_gpu.at(1) : 0, 0u);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(o.db_dir)) files += e.path().extension() == ".json";
  EXPECT_EQ(files, 1u);
  const json db = read_json(summary["db"].get<std::string>());
  ASSERT_EQ(db["fingerprints"].size(), 1u);
  for (const auto& key : kKeys) EXPECT_EQ(db["fingerprints"].begin().value()["keys"][key].size(), kConfigs - 1) << key;
}

// Two models: two tables (two DB files), each holding every config measured on its model.
TEST_F(MultiGpuTest, DifferentModelsTuneIntoSeparateTables) {
  make_good();
  ::setenv("KTUNE_FAKE_GPUS", "Fake GPU A,Fake GPU B", 1);
  const TuneOptions o = options_for(kernel_dir());
  testing::internal::CaptureStdout();
  ASSERT_EQ(tune(o), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("the GPUs differ; each kind tunes into its own table"), std::string::npos) << out;
  const json summary = read_json(o.summary_out);
  ASSERT_EQ(summary["tables"].size(), 2u) << summary;
  std::set<std::string> names;
  for (const auto& t : summary["tables"]) {
    names.insert(t["gpu"]["name"].get<std::string>());
    EXPECT_EQ(t["gpus"].size(), 1u);
    const json db = read_json(t["db"].get<std::string>());
    for (const auto& key : kKeys) EXPECT_EQ(db["fingerprints"].begin().value()["keys"][key].size(), 8u);
  }
  EXPECT_EQ(names, (std::set<std::string>{"Fake GPU A", "Fake GPU B"}));
  EXPECT_TRUE(fs::exists(fs::path(o.db_dir) / "Fake_GPU_A.json"));
  EXPECT_TRUE(fs::exists(fs::path(o.db_dir) / "Fake_GPU_B.json"));
  EXPECT_EQ(measured_per_gpu(), (std::map<int, std::size_t>{{0, 16}, {1, 16}}));
}

// A GPU that crashes, hangs on, or cannot start every config is dropped; what it had in
// flight is measured on the other GPU, and every config ends ok (also one whose failure on
// the bad GPU arrives after that GPU was dropped: a race the CI once lost).
TEST_F(MultiGpuTest, FailingGpuIsDroppedAndTheOthersFinish) {
  for (const char* mode : {"crash", "hang", "nostart"}) {
    SCOPED_TRACE(mode);
    fs::remove_all(kernel_dir());
    fs::remove(events_);
    make_good();
    ::setenv("KTUNE_FAKE_GPUS", "Fake GPU,Fake GPU", 1);
    ::setenv("KTUNE_FAKE_BAD_GPU", (std::string("1:") + mode).c_str(), 1);
    TuneOptions o = options_for(kernel_dir());
    o.first_timeout_s = 1.0;  // a hang costs a second, not ten
    ASSERT_EQ(tune(o), 0);
    const json summary = read_json(o.summary_out);
    ASSERT_TRUE(summary["dropped_gpus"].contains("1")) << summary;
    const std::string why = summary["dropped_gpus"]["1"];
    if (std::string(mode) == "nostart")
      EXPECT_NE(why.find("did not start"), std::string::npos) << why;
    else
      EXPECT_NE(why.find("passed on another GPU"), std::string::npos) << why;
    for (const auto& key : summary["keys"]) EXPECT_EQ(counts_of(key), (std::map<std::string, int>{{"ok", 8}})) << key;
    const auto per_gpu = measured_per_gpu();
    // GPU 1 got at most the configs that earned it its strikes: 2 (its first worker's
    // config and one more), plus one per key at most while a strike was pending.
    EXPECT_LE(per_gpu.count(1) ? per_gpu.at(1) : 0, 3u);
    EXPECT_GE(per_gpu.at(0), 16u);
  }
}

// --gpus picks GPUs; an index the tuner does not see, or one named twice, is an error that
// says which and how many there are.
TEST_F(MultiGpuTest, GpusOptionPicksAndIsChecked) {
  make_good();
  ::setenv("KTUNE_FAKE_GPUS", "Fake GPU,Fake GPU,Fake GPU", 1);
  TuneOptions o = options_for(kernel_dir());
  o.gpus = {0, 2};
  ASSERT_EQ(tune(o), 0);
  auto per_gpu = measured_per_gpu();
  EXPECT_EQ(per_gpu.count(1), 0u);
  EXPECT_GT(per_gpu[0] + per_gpu[2], 0u);
  EXPECT_EQ(read_json(o.summary_out)["gpus"], json({0, 2}));

  for (const auto& [gpus, expected] : std::vector<std::pair<std::vector<int>, std::string>>{
           {{5}, "GPU 5 does not exist; the tuner sees 3 GPU(s), numbered from 0 to 2"},
           {{1, 1}, "GPU 1 is listed twice"}}) {
    o.gpus = gpus;
    try {
      tune(o);
      ADD_FAILURE() << expected;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--gpus"), std::string::npos) << e.what();
    }
  }
}

// Workers are pinned with the tuner's own CUDA_VISIBLE_DEVICES entries: GPU 0 of "2,0" is
// the machine's GPU 2.
TEST_F(MultiGpuTest, PinningFollowsTheTunersVisibleDevices) {
  make_good();
  ::setenv("KTUNE_FAKE_GPUS", "Fake GPU,Fake GPU,Fake GPU", 1);
  ::setenv("CUDA_VISIBLE_DEVICES", "2,0", 1);
  TuneOptions o = options_for(kernel_dir());
  ASSERT_EQ(tune(o), 0);
  auto per_gpu = measured_per_gpu();
  EXPECT_EQ(per_gpu.count(1), 0u);
  EXPECT_GT(per_gpu[2], 0u);
  EXPECT_GT(per_gpu[0], 0u);
  EXPECT_EQ(per_gpu[0] + per_gpu[2], 16u);
  EXPECT_EQ(read_json(o.summary_out)["gpus"], json({0, 1}));  // as the tuner numbers them
}

// Another GPU's DB beside this one's starts the search: its fastest config for the first
// key (at the nearest key it has) is measured right after the DEFAULT, and the summary says
// where the prior came from and what it bought. The second key starts from this GPU's
// results for the first, a nearer source than another architecture.
TEST_F(TunerTest, OtherGpusResultsAreMeasuredFirst) {
  const Manifest m = make_kernel(kernel_dir(), {"MODE=0", "TIME=1..40"}, {}, "MODE=0 TIME=20");
  TuneOptions o = options_for(kernel_dir());
  o.strategy = "genetic";
  o.budget.evaluations = 20;
  o.seed = 3;
  // The other GPU found TIME=1 fastest (as here: a time of TIME x 0.1 ms), then TIME=2, at N=1000 only.
  ktune::Fingerprint other;
  other.kernel_hash = "0123456789abcdef";
  other.nvcc_version = "13.0.0";
  other.gpu = {.name = "Other GPU", .cc_major = 8, .cc_minor = 0, .sm_count = 108, .driver_version = 13000};
  ktune::Db db(fs::path(o.db_dir) / "Other_GPU.json", m.kernel);
  for (int64_t t : {2, 1, 30}) {
    ktune::Measurement meas;
    meas.median_ms = 0.05 * t;
    meas.samples_ms = {meas.median_ms};
    db.record(other, "N=1000", id_of(m, {0, t}), json{{"MODE", 0}, {"TIME", t}}, meas);
  }
  ASSERT_EQ(tune(o), 0);
  const json summary = read_json(o.summary_out);
  const json tuned = read_json(summary["db"].get<std::string>());
  const json& keys = tuned["fingerprints"][summary["fingerprint"].get<std::string>()]["keys"];
  for (std::size_t k = 0; k < kKeys.size(); ++k) {
    SCOPED_TRACE(kKeys[k]);
    const json& key = summary["keys"][k];
    ASSERT_TRUE(key.contains("prior")) << key.dump();
    EXPECT_EQ(key["prior"]["from"], k == 0 ? "Other GPU at key N=1000" : "Fake GPU at key N=1000");
    EXPECT_EQ(key["prior"]["measured_first"], 1);  // a twentieth of 20
    EXPECT_EQ(key["prior"]["holds_the_best"], true);
    EXPECT_EQ(key["best_id"], id_of(m, {0, 1}));
    // Measured second, right after the DEFAULT.
    std::vector<std::pair<double, std::string>> order;
    for (const auto& [id, e] : keys[kKeys[k]].items()) order.emplace_back(e["measurement"]["at"].get<double>(), id);
    std::sort(order.begin(), order.end());
    ASSERT_GE(order.size(), 2u);
    EXPECT_EQ(order[0].second, m.default_id);
    EXPECT_EQ(order[1].second, id_of(m, {0, 1}));
  }
}

// The prior is the nearest (fingerprint, key) at hand, never this GPU's results for the key
// being tuned: another GPU of this architecture at the same key, else this GPU's nearest
// other key, before a GPU of another architecture at the same key.
TEST_F(TunerTest, ThePriorIsTheNearestSourceButNeverTheKeysOwnResults) {
  const Manifest m = make_kernel(kernel_dir(), {"MODE=0", "TIME=1..40"}, {}, "MODE=0 TIME=20");
  auto fingerprint = [](const std::string& name, int cc_major, int sms) {
    ktune::Fingerprint f;
    f.kernel_hash = "0123456789abcdef";
    f.nvcc_version = "13.0.0";
    f.gpu = {.name = name, .cc_major = cc_major, .cc_minor = 0, .sm_count = sms, .driver_version = 13000};
    return f;
  };
  const ktune::Fingerprint self = fingerprint("This GPU", 9, 132);
  const fs::path dir = kernel_dir() / "priors";
  // Each source's fastest config: `fastest`, then 30 (the DEFAULT region is slower).
  auto record = [&](const ktune::Fingerprint& f, const std::string& key, int64_t fastest) {
    ktune::Db db(dir / (f.gpu.name + ".json"), m.kernel);
    for (int64_t t : {fastest, int64_t(30)}) {
      ktune::Measurement meas;
      meas.median_ms = t == fastest ? 0.1 : 0.5;
      meas.samples_ms = {meas.median_ms};
      db.record(f, key, id_of(m, {0, t}), json{{"MODE", 0}, {"TIME", t}}, meas);
    }
  };
  auto first = [&](const ktune::Key& key) {
    const ktune::TunePrior p = ktune::tune_prior(m, ktune::prior_documents(m, {dir}), self, key);
    return p.configs.empty() ? std::string("none")
                             : p.from + ": TIME=" + std::to_string(m.configs[p.configs[0]].values[1]);
  };
  record(self, "N=1000", 5);
  EXPECT_EQ(first({{"N", 1000}}), "none");  // its own results are no prior
  EXPECT_EQ(first({{"N", 3000}}), "This GPU at key N=1000: TIME=5");
  record(fingerprint("Old GPU", 8, 132), "N=1000", 2);
  EXPECT_EQ(first({{"N", 1000}}), "Old GPU at key N=1000: TIME=2");
  EXPECT_EQ(first({{"N", 3000}}), "This GPU at key N=1000: TIME=5");  // another key beats another architecture
  record(fingerprint("Sibling GPU", 9, 114), "N=1000", 3);
  EXPECT_EQ(first({{"N", 1000}}), "Sibling GPU at key N=1000: TIME=3");
  record(self, "N=4000", 7);
  EXPECT_EQ(first({{"N", 3000}}), "This GPU at key N=4000: TIME=7");  // |log 4/3| < |log 3|
}

// Results measured before the kernel gained a parameter still serve as a prior: each stands
// for the config with the DEFAULT's value of the new parameter. A value the space no longer
// has leaves the entry out.
TEST_F(TunerTest, APriorMeasuredBeforeAParameterWasAddedTakesTheDefaultsValue) {
  const Manifest m = make_kernel(kernel_dir(), {"MODE=0,1", "TIME=1..40"}, {}, "MODE=1 TIME=20");
  ktune::Fingerprint other;
  other.kernel_hash = "0123456789abcdef";
  other.nvcc_version = "13.0.0";
  other.gpu = {.name = "Old GPU", .cc_major = 8, .cc_minor = 0, .sm_count = 108, .driver_version = 13000};
  const fs::path dir = kernel_dir() / "priors";
  ktune::Db db(dir / "Old_GPU.json", m.kernel);
  for (int64_t t : {7, 41, 3}) {  // TIME=41 is not in the space any more
    ktune::Measurement meas;
    meas.median_ms = t == 41 ? 0.05 : 0.1 * t;
    meas.samples_ms = {meas.median_ms};
    const std::vector<std::string> names = {"TIME"};
    const std::vector<int64_t> values = {t};
    db.record(other, "N=1000", ktune::config_id(names, values), json{{"TIME", t}}, meas);
  }
  const ktune::TunePrior p =
      ktune::tune_prior(m, ktune::prior_documents(m, {dir}), ktune::Fingerprint{}, {{"N", 1000}});
  ASSERT_EQ(p.configs.size(), 2u);
  EXPECT_EQ(m.configs[p.configs[0]].values, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(m.configs[p.configs[1]].values, (std::vector<int64_t>{1, 7}));
}

// A shard of an exhaustive search measures configs I, I+N, ... and the DEFAULT; the shards
// together measure the space. A shard of a sampling strategy is refused.
TEST_F(TunerTest, ShardsSplitAnExhaustiveSearch) {
  const Manifest m = make_kernel(kernel_dir(), {"MODE=0", "TIME=1..10"}, {}, "MODE=0 TIME=5");
  std::set<std::string> all;
  for (std::size_t shard = 0; shard < 3; ++shard) {
    TuneOptions o = options_for(kernel_dir());
    o.db_dir = (dir_.path() / ("shard" + std::to_string(shard))).string();
    o.summary_out = (dir_.path() / ("shard" + std::to_string(shard) + ".json")).string();
    o.shard = TuneOptions::Shard{shard, 3};
    ASSERT_EQ(tune(o), 0);
    const json summary = read_json(o.summary_out);
    const json db = read_json(summary["db"].get<std::string>());
    const json& entries = db["fingerprints"][summary["fingerprint"].get<std::string>()]["keys"]["N=1000"];
    std::set<std::string> expected = {m.default_id};
    for (std::size_t i = shard; i < m.configs.size(); i += 3) expected.insert(m.configs[i].id);
    std::set<std::string> got;
    for (const auto& [id, e] : entries.items()) got.insert(id);
    EXPECT_EQ(got, expected) << "shard " << shard;
    all.insert(got.begin(), got.end());
  }
  EXPECT_EQ(all.size(), m.configs.size());
  TuneOptions o = options_for(kernel_dir());
  o.strategy = "genetic";
  o.shard = TuneOptions::Shard{0, 2};
  EXPECT_THROW(tune(o), Error);
  o.strategy = "exhaustive";
  o.shard = TuneOptions::Shard{2, 2};
  EXPECT_THROW(tune(o), Error);
}

}  // namespace
}  // namespace ktune

// The build's tune steps as a tune step sees them (build_tunes.hpp): its place among them,
// and which others are still to run, by the times of their files as Ninja judges them.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "ktune/build_tunes.hpp"
#include "ktune/error.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using ktune::BuildTunes;
using ktune::read_build_tunes;
using ktune::TunePlan;
using ktune::test_support::TempDir;

namespace {

// A kernel directory with its inputs, a plan and, when `tuned`, a tune.json newer than them.
fs::path kernel(const fs::path& root, const std::string& name, TunePlan plan, bool tuned) {
  const fs::path dir = root / name;
  fs::create_directories(dir);
  for (const char* input : {"manifest.json", "cubins.json"}) std::ofstream(dir / input) << "{}";
  std::ofstream(dir / "tune_plan.json") << ktune::tune_plan_json(plan);
  if (tuned) {
    std::ofstream(dir / "tune.json") << "{}";
    fs::last_write_time(dir / "tune.json", fs::last_write_time(dir / "manifest.json") + std::chrono::seconds(5));
  }
  return dir;
}

}  // namespace

TEST(BuildTunes, PlanRoundTrips) {
  TempDir tmp;
  std::ofstream(tmp.path() / "p.json") << ktune::tune_plan_json({5, 32, 60.0});
  const TunePlan p = ktune::read_tune_plan(tmp.path() / "p.json");
  EXPECT_EQ(p.keys, 5u);
  EXPECT_EQ(p.evaluations_per_key, 32u);
  ASSERT_TRUE(p.seconds_per_key);
  EXPECT_EQ(*p.seconds_per_key, 60.0);
  std::ofstream(tmp.path() / "q.json") << ktune::tune_plan_json({2, 117, std::nullopt});
  EXPECT_FALSE(ktune::read_tune_plan(tmp.path() / "q.json").seconds_per_key);
  std::ofstream(tmp.path() / "bad.json") << R"({"keys": "five"})";
  EXPECT_THROW(ktune::read_tune_plan(tmp.path() / "bad.json"), ktune::Error);
}

TEST(BuildTunes, PlaceAmongTheStepsAndTheWorkStillToRun) {
  TempDir tmp;
  const fs::path a = kernel(tmp.path(), "a", {2, 10, std::nullopt}, true);   // done
  const fs::path b = kernel(tmp.path(), "b", {3, 20, std::nullopt}, false);  // this one
  const fs::path c = kernel(tmp.path(), "c", {4, 30, 9.0}, false);           // still to run
  const fs::path d = kernel(tmp.path(), "d", {1, 40, std::nullopt}, true);   // done, then changed
  fs::last_write_time(d / "cubins.json", fs::last_write_time(d / "tune.json") + std::chrono::seconds(5));
  std::ofstream(tmp.path() / "steps.txt") << a.string() << "\n"
                                          << b.string() << "\n"
                                          << c.string() << "\n"
                                          << d.string() << "\n";
  const BuildTunes t = read_build_tunes(tmp.path() / "steps.txt", b);
  EXPECT_EQ(t.total, 4u);
  EXPECT_EQ(t.position, 2u);  // after the one up to date
  ASSERT_EQ(t.later.size(), 2u);
  EXPECT_EQ(t.later[0].keys, 4u);
  EXPECT_EQ(t.later[0].evaluations_per_key, 30u);
  EXPECT_EQ(t.later[1].evaluations_per_key, 40u);
}

TEST(BuildTunes, BestEffortWhenTheListDoesNotFit) {
  TempDir tmp;
  const fs::path a = kernel(tmp.path(), "a", {2, 10, std::nullopt}, false);
  EXPECT_EQ(read_build_tunes(tmp.path() / "missing.txt", a).total, 0u);
  std::ofstream(tmp.path() / "other.txt") << (tmp.path() / "x").string() << "\n";
  EXPECT_EQ(read_build_tunes(tmp.path() / "other.txt", a).position, 0u);  // not this build's list
  // A step without a plan counts, its work left out.
  const fs::path n = tmp.path() / "n";
  fs::create_directories(n);
  std::ofstream(tmp.path() / "steps.txt") << a.string() << "\n" << n.string() << "\n";
  const BuildTunes t = read_build_tunes(tmp.path() / "steps.txt", a);
  EXPECT_EQ(t.total, 2u);
  EXPECT_EQ(t.position, 1u);
  EXPECT_TRUE(t.later.empty());
}

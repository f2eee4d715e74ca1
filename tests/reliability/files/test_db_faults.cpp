// A damaged, future-schema or hostile tuning DB, given to each of its readers:
//   - Db (the tuner): a file it cannot trust is moved aside, kept byte for byte, and an
//     empty DB started, with a one-line warning; a damaged entry is skipped with a warning
//     and the file left in place; then measurements are recorded as usual;
//   - `ktune bake`: the file is skipped with a warning and never moved or changed;
//   - `ktune merge`: refused before anything is written;
//   - `ktune export --db`: refused when the file as a whole cannot be trusted.
#include <gtest/gtest.h>

#include <algorithm>

#include "checks.hpp"
#include "base/untrusted_json.hpp"
#include "fault_matrix.hpp"
#include "kernel_dir.hpp"
#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::names_in;
using test_support::read;
using test_support::write;

const std::string kEntry = "/fingerprints/*/keys/*/*";
const std::string kGpu = "/fingerprints/*/fingerprint/gpu";

Shape db_shape() {
  Shape s;
  s.schema = "/schema";
  s.version = "/schema_version";
  s.future_version = 2;
  s.required = {"/schema",
                "/schema_version",
                "/kernel",
                "/fingerprints",
                "/fingerprints/*/fingerprint",
                "/fingerprints/*/fingerprint/kernel_hash",
                kGpu,
                kGpu + "/name",
                kGpu + "/sm_count",
                "/fingerprints/*/keys",
                kEntry + "/values",
                kEntry + "/measurement",
                kEntry + "/measurement/status"};
  s.typed = {"/kernel",
             "/fingerprints",
             "/fingerprints/*",
             "/fingerprints/*/keys",
             "/fingerprints/*/keys/*",
             kEntry,
             kGpu,
             kGpu + "/name",
             kGpu + "/cc_major",
             kEntry + "/values",
             kEntry + "/measurement",
             kEntry + "/measurement/status",
             kEntry + "/measurement/samples_ms",
             kEntry + "/measurement/median_ms",
             kEntry + "/measurement/resources"};
  s.integers = {kGpu + "/sm_count", kGpu + "/driver_version", kEntry + "/measurement/resources/registers"};
  s.reals = {kEntry + "/measurement/median_ms", kEntry + "/measurement/samples_ms/0"};
  s.names = {"/kernel", kEntry + "/measurement/status"};
  s.free_text = {kGpu + "/name", kEntry + "/measurement/message", kEntry + "/values/TM"};
  return s;
}

// Damage inside one fingerprint's entries spoils those entries, not the file; unless the
// text no longer parses (1e400, NaN, raw bytes, deep nesting), which spoils the file.
bool in_entries(const Fault& f, const std::string& text) {
  json doc;
  return f.path.rfind("/fingerprints/", 0) == 0 && untrusted_json::parse(text, doc).empty();
}

struct FirstEntry {
  Fingerprint fp;
  std::string key, id;
};

FirstEntry first_entry(const json& good) {
  const json& slot = good["fingerprints"].begin().value();
  const json& keys = slot["keys"];
  return {Fingerprint::from_json(slot["fingerprint"]), keys.begin().key(), keys.begin().value().begin().key()};
}

Measurement measured(double ms) {
  Measurement m;
  m.samples_ms = {ms};
  m.median_ms = ms;
  return m;
}

class DbFaults : public testing::TestWithParam<Fault> {};

TEST_P(DbFaults, SetAsideOrSkippedNeverTrusted) {
  const Fault& fault = GetParam();
  KernelDir k;
  const json good = json::parse(read(k.db()));
  const FirstEntry first = first_entry(good);
  const std::string text = fault.make(good);
  const std::string path = k.db().string();
  const bool entry_level = in_entries(fault, text);

  // The bake, merge and export read it first: none of them may move or change it.
  write(k.db(), text);
  const ToolRun bake = k.bake();
  const ToolRun merge = k.ktune({"merge", "--into", (k.root() / "merged").string(), path});
  const ToolRun exported = k.ktune(
      {"export", "--db", path, "--key", first.key, "--format", "t4", "--out", (k.root() / "exported.json").string()});
  EXPECT_EQ(read(k.db()), text) << "a reader changed the DB";
  expect_no_crash(bake);
  if (fault.expect == Expect::Refused) {
    EXPECT_EQ(bake.exit_code, 0) << bake.err;
    EXPECT_NE(bake.out.find(path), std::string::npos) << "the bake did not say why it skipped the file\n" << bake.out;
    expect_refusal(merge, path);
    EXPECT_FALSE(fs::exists(k.root() / "merged" / "NVIDIA_H200.json"));
    if (!entry_level) {
      expect_refusal(exported, path);
      EXPECT_FALSE(fs::exists(k.root() / "exported.json"));
    } else {
      expect_no_crash(exported);
    }
  } else {
    expect_no_crash(merge);
    expect_no_crash(exported);
    if (bake.exit_code == 0) EXPECT_EQ(injection_problem(read(k.generated())), "");
  }

  // The tuner's Db.
  {
    Db db(k.db(), "k");
    const std::string& w = db.warning();
    if (fault.expect == Expect::Refused) {
      EXPECT_EQ(message_problem(w + "\n"), "") << w.substr(0, 2000);
      EXPECT_NE(w.find(path), std::string::npos) << w;
      EXPECT_FALSE(db.find(first.fp, first.key, first.id)) << "a damaged entry was trusted";
      if (entry_level) {
        EXPECT_NE(w.find("skipped"), std::string::npos) << w;
        EXPECT_EQ(read(k.db()), text) << "an otherwise good file must stay where it is";
      } else {
        EXPECT_NE(w.find(".corrupt-"), std::string::npos) << w;
        EXPECT_FALSE(fs::exists(k.db()));
        const std::vector<std::string> names = names_in(k.db_dir());
        auto aside = std::find_if(names.begin(), names.end(),
                                  [](const std::string& n) { return n.starts_with("NVIDIA_H200.json.corrupt-"); });
        ASSERT_NE(aside, names.end());
        EXPECT_EQ(read(k.db_dir() / *aside), text) << "the file set aside is not the file as it was";
      }
    }
    db.record(first.fp, first.key, config_id_of({{"TM", 1}}), {{"TM", 1}}, measured(1.5));
  }
  Db again(k.db(), "k");
  EXPECT_EQ(again.warning(), "") << again.warning().substr(0, 500);
  ASSERT_TRUE(again.find(first.fp, first.key, config_id_of({{"TM", 1}})));
  EXPECT_EQ(again.find(first.fp, first.key, config_id_of({{"TM", 1}}))->median_ms, 1.5);
}

INSTANTIATE_TEST_SUITE_P(Db, DbFaults, testing::ValuesIn(faults_of(db_shape())),
                         [](const testing::TestParamInfo<Fault>& info) { return info.param.name; });

TEST(DbFaultsBaseline, ValidDbIsTrustedByEveryReader) {
  KernelDir k;
  const json good = json::parse(read(k.db()));
  const FirstEntry first = first_entry(good);
  Db db(k.db(), "k");
  EXPECT_EQ(db.warning(), "");
  EXPECT_TRUE(db.find(first.fp, first.key, first.id));
  const ToolRun merge = k.ktune({"merge", "--into", (k.root() / "merged").string(), k.db().string()});
  EXPECT_EQ(merge.exit_code, 0) << merge.err;
  const ToolRun bake = k.bake();
  EXPECT_EQ(bake.exit_code, 0) << bake.err;
  EXPECT_EQ(bake.out.find("warning"), std::string::npos) << bake.out;
}

// A GPU name longer than the driver's 255 bytes is damage: the fingerprint is skipped.
TEST(DbFaultsBaseline, GpuNamesLongerThanTheDriversAreSkipped) {
  KernelDir k;
  Fingerprint fp = first_entry(json::parse(read(k.db()))).fp;
  fp.gpu.name = std::string(256, 'G');
  EXPECT_THROW(Db(k.db(), "k").record(fp, "M=1,N=2", config_id_of({{"TM", 1}}), {{"TM", 1}}, measured(1)), Error);
  fp.gpu.name = std::string(255, 'G');
  EXPECT_NO_THROW(Db(k.db(), "k").record(fp, "M=1,N=2", config_id_of({{"TM", 1}}), {{"TM", 1}}, measured(1)));
}

// A DB its own readers would set aside as damaged is never written: an import under a
// kernel name that is no C identifier used to make one.
TEST(DbFaultsBaseline, KernelNamesThatNoReaderAcceptsAreNotRecorded) {
  KernelDir k;
  write(k.root() / "t4.json",
        R"({"schema_version": "1.0.0", "results": [{"configuration": {"TM": 1}, "invalidity": "correct",
            "correctness": 1, "times": {"runtimes": [0.5]}}]})");
  const fs::path into = k.root() / "imported";
  const ToolRun run = k.ktune({"import", "--t4", (k.root() / "t4.json").string(), "--into", into.string(), "--kernel",
                               "my kernel", "--gpu", "NVIDIA H200"});
  expect_refusal(run, "a kernel's name is a C identifier");
  EXPECT_FALSE(fs::exists(into / "NVIDIA_H200.json"));
  EXPECT_THROW(
      Db(k.db(), "k\n#define x").record(Fingerprint{}, "M=1", config_id_of({{"TM", 1}}), {{"TM", 1}}, measured(1)),
      Error);
}

}  // namespace
}  // namespace ktune::file_faults

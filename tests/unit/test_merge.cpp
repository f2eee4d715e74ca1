#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "ktune/merge.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using TempDir = ktune::test_support::TempDir;
using ktune::test_support::error_of;
using ktune::test_support::read;
using ktune::test_support::write;

// Every file under `dir` with its content: what "untouched" is checked against.
std::map<std::string, std::string> tree_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    out[fs::relative(e.path(), dir).string()] = e.is_regular_file() ? read(e.path()) : "<dir>";
  return out;
}

ktune::Fingerprint fingerprint(const std::string& gpu = "NVIDIA H200", int driver = 13000) {
  ktune::Fingerprint fp;
  fp.kernel_hash = "0123456789abcdef";
  fp.nvcc_version = "13.0.88";
  fp.gpu = {.name = gpu, .cc_major = 9, .cc_minor = 0, .sm_count = 132, .driver_version = driver, .l2_bytes = 62914560};
  return fp;
}

// An ok measurement of `samples` samples around `ms`.
ktune::Measurement timed(double ms, int samples = 3) {
  ktune::Measurement m;
  for (int i = 0; i < samples; ++i) m.samples_ms.push_back(ms * (1 + 0.01 * (i % 3)));
  m.median_ms = ms;
  m.seconds = 0.25;
  return m;
}

ktune::Measurement failed(ktune::Status status, int samples = 0) {
  ktune::Measurement m;
  m.status = status;
  m.samples_ms.assign(static_cast<std::size_t>(samples), 1.0);
  m.message = "it failed";
  return m;
}

const std::string kKey = "K=4096,M=4096,N=4096";
const std::string kKey2 = "K=1024,M=1024,N=1024";

// The tests name configs ("aaaa"); a DB entry's id is the id of its values, so each name
// stands for the config {"TM": <a number made from the name>} and its real id.
json values_named(const std::string& name) {
  uint64_t tm = 0;  // unsigned: long names wrap instead of overflowing
  for (unsigned char c : name) tm = tm * 131 + c;
  return {{"TM", static_cast<int64_t>(tm % 1000000007)}};
}
std::string cid(const std::string& name) { return ktune::config_id_of(values_named(name)); }

// Writes one measurement into the DB file at `path` (as a tuner on another machine would).
void put(const fs::path& path, const ktune::Fingerprint& fp, const std::string& key, const std::string& name,
         const ktune::Measurement& m, const std::string& kernel = "sgemm") {
  ktune::Db(path, kernel).record(fp, key, cid(name), values_named(name), m);
}

std::optional<ktune::Measurement> find(const fs::path& path, const ktune::Fingerprint& fp, const std::string& key,
                                       const std::string& name) {
  ktune::Db db(path, "sgemm");
  EXPECT_TRUE(db.warning().empty()) << db.warning();
  return db.find(fp, key, cid(name));
}

std::size_t configs_in(const fs::path& path) {
  std::size_t n = 0;
  const json doc = json::parse(read(path));
  for (const auto& [digest, slot] : doc["fingerprints"].items())
    for (const auto& [key, configs] : slot["keys"].items()) n += configs.size();
  return n;
}

}  // namespace

TEST(Merge, TwoGpuModelsGoToTwoFiles) {
  TempDir tmp;
  const fs::path a = tmp.path() / "machine_a" / "x.json", b = tmp.path() / "machine_b.json";
  put(a, fingerprint("NVIDIA H200"), kKey, "aaaa", timed(1));
  put(a, fingerprint("NVIDIA H200"), kKey2, "aaaa", timed(2));
  put(b, fingerprint("NVIDIA H100 80GB HBM3"), kKey, "aaaa", timed(3));
  const fs::path into = tmp.path() / "db" / "sgemm";  // made on demand

  ktune::MergeReport r = ktune::merge_dbs(into, {a, b});
  EXPECT_EQ(r.kernel, "sgemm");
  ASSERT_EQ(r.files.size(), 2u);
  const ktune::MergeFileCounts& h200 = r.files.at("NVIDIA_H200.json");
  EXPECT_EQ(h200.added, 2u);
  EXPECT_EQ(h200.replaced + h200.kept, 0u);
  EXPECT_EQ(h200.keys, 2u);
  EXPECT_EQ(r.files.at("NVIDIA_H100_80GB_HBM3.json").added, 1u);
  EXPECT_EQ(r.text(),
            "NVIDIA_H100_80GB_HBM3.json: 1 added, 0 replaced, 0 kept (1 key)\n"
            "NVIDIA_H200.json: 2 added, 0 replaced, 0 kept (2 keys)\n");
  const json j = r.to_json();
  EXPECT_EQ(j["kernel"], "sgemm");
  EXPECT_EQ(j["files"]["NVIDIA_H200.json"], json({{"added", 2}, {"replaced", 0}, {"kept", 0}, {"keys", 2}}));

  EXPECT_EQ(find(into / "NVIDIA_H200.json", fingerprint(), kKey2, "aaaa")->median_ms, 2);
  EXPECT_EQ(find(into / "NVIDIA_H100_80GB_HBM3.json", fingerprint("NVIDIA H100 80GB HBM3"), kKey, "aaaa")->median_ms,
            3);
  EXPECT_EQ(configs_in(into / "NVIDIA_H200.json"), 2u);
  EXPECT_EQ(configs_in(into / "NVIDIA_H100_80GB_HBM3.json"), 1u);
}

TEST(Merge, SameModelFromTwoInputsIsTheUnion) {
  TempDir tmp;
  const fs::path a = tmp.path() / "a.json", b = tmp.path() / "b.json";
  const ktune::Fingerprint old_driver = fingerprint("NVIDIA H200", 12080);
  put(a, fingerprint(), kKey, "aaaa", timed(1));
  put(a, fingerprint(), kKey, "bbbb", timed(2));
  put(b, fingerprint(), kKey, "cccc", timed(3));
  put(b, fingerprint(), kKey2, "aaaa", timed(4));
  put(b, old_driver, kKey, "aaaa", timed(5));  // another digest, same model: same file
  const fs::path into = tmp.path() / "into";

  ktune::MergeReport r = ktune::merge_dbs(into, {a, b});
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files.at("NVIDIA_H200.json").added, 5u);
  EXPECT_EQ(r.files.at("NVIDIA_H200.json").keys, 2u);
  const fs::path out = into / "NVIDIA_H200.json";
  EXPECT_EQ(configs_in(out), 5u);
  for (const char* id : {"aaaa", "bbbb", "cccc"}) EXPECT_TRUE(find(out, fingerprint(), kKey, id));
  EXPECT_TRUE(find(out, fingerprint(), kKey2, "aaaa"));
  EXPECT_EQ(find(out, old_driver, kKey, "aaaa")->median_ms, 5);
  EXPECT_EQ(json::parse(read(out))["fingerprints"].size(), 2u);
}

TEST(Merge, PrefersOkThenMoreSamplesThenWhatIsThere) {
  using ktune::merge_prefers;
  using ktune::Status;
  EXPECT_TRUE(merge_prefers(timed(1, 1), failed(Status::Crashed, 5)));
  EXPECT_FALSE(merge_prefers(failed(Status::WrongResult, 50), timed(9, 1)));
  EXPECT_TRUE(merge_prefers(timed(1, 20), timed(1, 10)));
  EXPECT_FALSE(merge_prefers(timed(1, 10), timed(1, 20)));
  EXPECT_FALSE(merge_prefers(timed(1, 10), timed(2, 10)));  // a tie keeps the existing one
  EXPECT_TRUE(merge_prefers(failed(Status::TimedOut, 2), failed(Status::Crashed, 1)));
  EXPECT_FALSE(merge_prefers(failed(Status::Resource), failed(Status::CompileFailed)));
}

TEST(Merge, ConflictsFollowThePreferenceAndAreCounted) {
  TempDir tmp;
  const fs::path into = tmp.path() / "into", dest = into / "NVIDIA_H200.json";
  const fs::path in = tmp.path() / "in.json";
  const ktune::Fingerprint fp = fingerprint();
  put(dest, fp, kKey, "ok_vs_failed", failed(ktune::Status::Crashed));
  put(in, fp, kKey, "ok_vs_failed", timed(1, 3));  // replaced
  put(dest, fp, kKey, "failed_vs_ok", timed(2, 3));
  put(in, fp, kKey, "failed_vs_ok", failed(ktune::Status::WrongResult, 40));  // kept
  put(dest, fp, kKey, "more_samples", timed(3, 10));
  put(in, fp, kKey, "more_samples", timed(4, 30));  // replaced
  put(dest, fp, kKey, "fewer_samples", timed(5, 30));
  put(in, fp, kKey, "fewer_samples", timed(6, 10));  // kept
  put(dest, fp, kKey, "tie", timed(7, 10));
  put(in, fp, kKey, "tie", timed(8, 10));  // kept
  put(in, fp, kKey, "new", timed(9));      // added

  ktune::MergeReport r = ktune::merge_dbs(into, {in});
  const ktune::MergeFileCounts& c = r.files.at("NVIDIA_H200.json");
  EXPECT_EQ(c.added, 1u);
  EXPECT_EQ(c.replaced, 2u);
  EXPECT_EQ(c.kept, 3u);
  EXPECT_EQ(c.keys, 1u);
  EXPECT_EQ(find(dest, fp, kKey, "ok_vs_failed")->status, ktune::Status::Ok);
  EXPECT_EQ(find(dest, fp, kKey, "failed_vs_ok")->median_ms, 2);
  EXPECT_EQ(find(dest, fp, kKey, "more_samples")->median_ms, 4);
  EXPECT_EQ(find(dest, fp, kKey, "fewer_samples")->median_ms, 5);
  EXPECT_EQ(find(dest, fp, kKey, "tie")->median_ms, 7);
  EXPECT_EQ(find(dest, fp, kKey, "new")->median_ms, 9);

  // Merging the same input again changes nothing.
  const std::string before = read(dest);
  r = ktune::merge_dbs(into, {in});
  EXPECT_EQ(r.files.at("NVIDIA_H200.json").kept, 6u);
  EXPECT_EQ(r.files.at("NVIDIA_H200.json").added + r.files.at("NVIDIA_H200.json").replaced, 0u);
  EXPECT_EQ(read(dest), before);
}

TEST(Merge, ConflictsBetweenInputsAreCountedOnce) {
  TempDir tmp;
  const fs::path a = tmp.path() / "a.json", b = tmp.path() / "b.json", into = tmp.path() / "into";
  put(a, fingerprint(), kKey, "aaaa", timed(1, 5));
  put(b, fingerprint(), kKey, "aaaa", timed(2, 50));
  put(a, fingerprint(), kKey, "bbbb", timed(3, 5));
  put(b, fingerprint(), kKey, "bbbb", timed(4, 5));  // a tie: the first input's stays
  ktune::MergeReport r = ktune::merge_dbs(into, {a, b});
  EXPECT_EQ(r.files.at("NVIDIA_H200.json").added, 2u);
  EXPECT_EQ(r.files.at("NVIDIA_H200.json").replaced, 0u);
  EXPECT_EQ(find(into / "NVIDIA_H200.json", fingerprint(), kKey, "aaaa")->median_ms, 2);
  EXPECT_EQ(find(into / "NVIDIA_H200.json", fingerprint(), kKey, "bbbb")->median_ms, 3);
}

TEST(Merge, CorruptInputIsAnErrorAndNothingIsWritten) {
  TempDir tmp;
  const fs::path good = tmp.path() / "good.json", into = tmp.path() / "into";
  put(good, fingerprint("NVIDIA H100"), kKey, "aaaa", timed(1));
  put(into / "NVIDIA_H200.json", fingerprint(), kKey, "zzzz", timed(2));
  const std::string text = read(good);
  json future = json::parse(text);
  future["schema_version"] = 2;
  json other_schema = json::parse(text);
  other_schema["schema"] = "ktune.manifest";
  const std::pair<const char*, std::string> cases[] = {
      {"truncated", text.substr(0, text.size() / 2)},
      {"empty", ""},
      {"future version", future.dump()},
      {"wrong schema", other_schema.dump()},
  };
  for (const auto& [name, bad_text] : cases) {
    SCOPED_TRACE(name);
    const fs::path bad = tmp.path() / "inputs" / "bad.json";
    fs::create_directories(bad.parent_path());
    write(bad, bad_text);
    const auto into_before = tree_of(into);
    const auto inputs_before = tree_of(tmp.path() / "inputs");
    const std::string message = error_of([&] { ktune::merge_dbs(into, {good, bad}); });
    EXPECT_NE(message.find(bad.string()), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(tree_of(into), into_before);                     // not even the H100 file of the good input
    EXPECT_EQ(tree_of(tmp.path() / "inputs"), inputs_before);  // not moved aside, no lock
  }
  json future_db = json::parse(text);
  future_db["schema_version"] = 7;
  write(tmp.path() / "future.json", future_db.dump());
  const std::string message = error_of([&] { ktune::merge_dbs(into, {tmp.path() / "future.json"}); });
  EXPECT_NE(message.find("schema_version 7"), std::string::npos) << message;
}

TEST(Merge, MalformedEntriesInAnInputAreAnError) {
  TempDir tmp;
  const fs::path in = tmp.path() / "in.json", into = tmp.path() / "into";
  put(in, fingerprint(), kKey, "aaaa", timed(1));
  json doc = json::parse(read(in));
  doc["fingerprints"][fingerprint().digest()]["keys"][kKey]["bbbb"] = {{"values", {{"TM", 1}}},
                                                                       {"measurement", {{"status", "exploded"}}}};
  write(in, doc.dump());
  const std::string message = error_of([&] { ktune::merge_dbs(into, {in}); });
  EXPECT_NE(message.find(in.string()), std::string::npos) << message;
  EXPECT_NE(message.find("1 malformed entry"), std::string::npos) << message;
  EXPECT_NE(message.find("bbbb"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(into));
}

// An entry whose id is not the id of its values would be merged under the wrong values:
// in an input or in the destination, it is an error, and nothing is written.
TEST(Merge, EntriesWhoseIdIsNotTheirValuesAreAnErrorAndNeverWritten) {
  TempDir tmp;
  const fs::path in = tmp.path() / "in.json", into = tmp.path() / "into";
  put(in, fingerprint(), kKey, "aaaa", timed(1));
  json doc = json::parse(read(in));
  json& configs = doc["fingerprints"][fingerprint().digest()]["keys"][kKey];
  configs[cid("bbbb")] = {{"values", values_named("cccc")}, {"measurement", timed(0.5).to_json()}};
  write(in, doc.dump());
  const std::string message = error_of([&] { ktune::merge_dbs(into, {in}); });
  EXPECT_NE(message.find(in.string()), std::string::npos) << message;
  EXPECT_NE(message.find("1 malformed entry"), std::string::npos) << message;
  EXPECT_NE(message.find(kKey), std::string::npos) << message;
  EXPECT_NE(message.find(cid("bbbb")), std::string::npos) << message;
  EXPECT_NE(message.find("is not the id of its values"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(into));

  // The same entry in the destination's file: refused, the file kept as it is.
  const fs::path good = tmp.path() / "good.json", dest = into / "NVIDIA_H200.json";
  put(good, fingerprint(), kKey, "dddd", timed(2));
  fs::create_directories(into);
  write(dest, doc.dump());
  const std::string text = read(dest);
  const std::string second = error_of([&] { ktune::merge_dbs(into, {good}); });
  EXPECT_NE(second.find(dest.string()), std::string::npos) << second;
  EXPECT_NE(second.find("is not the id of its values"), std::string::npos) << second;
  EXPECT_EQ(read(dest), text);
}

TEST(Merge, InputOfAnotherKernelIsAnError) {
  TempDir tmp;
  const fs::path a = tmp.path() / "a.json", b = tmp.path() / "b.json", into = tmp.path() / "into";
  put(a, fingerprint(), kKey, "aaaa", timed(1), "sgemm");
  put(b, fingerprint("NVIDIA H100"), kKey, "aaaa", timed(1), "hgemm");
  const std::string message = error_of([&] { ktune::merge_dbs(into, {a, b}); });
  EXPECT_NE(message.find(b.string()), std::string::npos) << message;
  EXPECT_NE(message.find("\"hgemm\""), std::string::npos) << message;
  EXPECT_NE(message.find("\"sgemm\""), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(into));
}

TEST(Merge, ExistingFileOfAnotherKernelIsAnErrorAndKept) {
  TempDir tmp;
  const fs::path in = tmp.path() / "in.json", into = tmp.path() / "into";
  put(in, fingerprint(), kKey, "aaaa", timed(1), "sgemm");
  put(into / "NVIDIA_H100.json", fingerprint("NVIDIA H100"), kKey, "aaaa", timed(1), "hgemm");
  const auto before = tree_of(into);
  const std::string message = error_of([&] { ktune::merge_dbs(into, {in}); });
  EXPECT_NE(message.find((into / "NVIDIA_H100.json").string()), std::string::npos) << message;
  EXPECT_NE(message.find("\"hgemm\""), std::string::npos) << message;
  EXPECT_NE(message.find("\"sgemm\""), std::string::npos) << message;
  EXPECT_EQ(tree_of(into), before);  // Db would have set it aside; the merge does not

  write(into / "NVIDIA_H100.json", "{\"truncated");
  const std::string corrupt = error_of([&] { ktune::merge_dbs(into, {in}); });
  EXPECT_NE(corrupt.find((into / "NVIDIA_H100.json").string()), std::string::npos) << corrupt;
  EXPECT_FALSE(fs::exists(into / "NVIDIA_H200.json"));
}

TEST(Merge, DirectoryInputMergesItsJsonFiles) {
  TempDir tmp;
  const fs::path machine = tmp.path() / "from_machine_b", into = tmp.path() / "into";
  put(machine / "NVIDIA_H200.json", fingerprint(), kKey, "aaaa", timed(1));
  put(machine / "NVIDIA_H100.json", fingerprint("NVIDIA H100"), kKey, "bbbb", timed(2));
  write(machine / "notes.txt", "not a DB");  // only *.json is read; .lock files are left too
  ASSERT_TRUE(fs::exists(machine / "NVIDIA_H200.json.lock"));
  const auto before = tree_of(machine);

  ktune::MergeReport r = ktune::merge_dbs(into, {machine});
  EXPECT_EQ(r.files.size(), 2u);
  EXPECT_TRUE(find(into / "NVIDIA_H200.json", fingerprint(), kKey, "aaaa"));
  EXPECT_TRUE(find(into / "NVIDIA_H100.json", fingerprint("NVIDIA H100"), kKey, "bbbb"));
  EXPECT_EQ(tree_of(machine), before);

  const std::vector<fs::path> files = ktune::merge_input_files({machine});
  EXPECT_EQ(files, (std::vector<fs::path>{machine / "NVIDIA_H100.json", machine / "NVIDIA_H200.json"}));
}

TEST(Merge, InputsThatNameNoDbAreErrors) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "empty");
  std::string message = error_of([&] { ktune::merge_input_files({tmp.path() / "empty"}); });
  EXPECT_NE(message.find("without *.json"), std::string::npos) << message;
  message = error_of([&] { ktune::merge_input_files({tmp.path() / "missing.json"}); });
  EXPECT_NE(message.find("missing.json: no such file"), std::string::npos) << message;
  EXPECT_THROW(ktune::merge_dbs(tmp.path() / "into", {}), ktune::Error);
  write(tmp.path() / "plain", "x");
  message = error_of([&] {
    ktune::Fingerprint fp = fingerprint();
    put(tmp.path() / "in.json", fp, kKey, "aaaa", timed(1));
    ktune::merge_dbs(tmp.path() / "plain", {tmp.path() / "in.json"});
  });
  EXPECT_NE(message.find("must be a directory"), std::string::npos) << message;
}

TEST(DbLoadDocument, ReadsAnyKernelAndNeverTouchesTheFile) {
  TempDir tmp;
  const fs::path path = tmp.path() / "x.json";
  put(path, fingerprint(), kKey, "aaaa", timed(1), "hgemm");
  fs::remove(tmp.path() / "x.json.lock");
  ktune::Db::Loaded loaded = ktune::Db::load_document(path);
  EXPECT_EQ(loaded.document["kernel"], "hgemm");
  EXPECT_EQ(loaded.skipped, 0u);
  EXPECT_EQ(loaded.document, ktune::Db(path, "hgemm").document());
  fs::remove(tmp.path() / "x.json.lock");

  write(path, "[1, 2]");
  const std::string message = error_of([&] { ktune::Db::load_document(path); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("not a JSON object"), std::string::npos) << message;
  EXPECT_EQ(read(path), "[1, 2]");
  EXPECT_EQ(tree_of(tmp.path()).size(), 1u);  // no lock file, nothing set aside

  write(path, "{\"schema\": \"ktune.db\", \"schema_version\": 1, \"fingerprints\": {}}");
  EXPECT_NE(error_of([&] { ktune::Db::load_document(path); }).find("\"kernel\""), std::string::npos);
  EXPECT_THROW(ktune::Db::load_document(tmp.path() / "missing.json"), ktune::Error);
}

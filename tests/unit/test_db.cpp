#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ktune/db.hpp"
#include "ktune/error.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using TempDir = ktune::test_support::TempDir;
using ktune::test_support::names_in;
using ktune::test_support::read;
using ktune::test_support::write;

ktune::Fingerprint fingerprint(const std::string& gpu = "NVIDIA H200") {
  ktune::Fingerprint fp;
  fp.kernel_hash = "0123456789abcdef";
  fp.nvcc_version = "13.0.88";
  fp.gpu = {.name = gpu, .cc_major = 9, .cc_minor = 0, .sm_count = 132, .driver_version = 13000, .l2_bytes = 62914560};
  return fp;
}

ktune::Measurement timed(double ms) {
  ktune::Measurement m;
  m.samples_ms = {ms, ms * 1.01, ms * 0.99};
  m.median_ms = ms;
  m.resources.registers = 96;
  m.seconds = 0.25;
  return m;
}

const std::string kKey = "K=4096,M=4096,N=4096";

// An entry's id is the id of its values: readers drop any other.
std::string id_of(const json& values) { return ktune::config_id_of(values); }
const std::string kA = id_of({{"TM", 64}}), kB = id_of({{"TM", 32}}), kC = id_of({{"TM", 16}}), kD = id_of({{"TM", 8}});

// A valid DB file with one measurement, as text.
std::string one_entry_db() {
  const ktune::Fingerprint fp = fingerprint();
  json doc = {{"schema", "ktune.db"}, {"schema_version", 1}, {"kernel", "sgemm"}};
  json entry = {{"values", {{"TM", 64}}}, {"measurement", timed(1).to_json()}};
  doc["fingerprints"][fp.digest()] = {{"fingerprint", fp.to_json()}, {"keys", {{kKey, {{kA, entry}}}}}};
  return doc.dump(1);
}

}  // namespace

TEST(Db, MissingFileStartsEmptyWithoutWriting) {
  TempDir tmp;
  ktune::Db db(tmp.path() / "sub" / "sgemm.json", "sgemm");
  EXPECT_TRUE(db.warning().empty());
  EXPECT_FALSE(db.find(fingerprint(), kKey, kA));
  EXPECT_EQ(db.document()["schema"], "ktune.db");
  EXPECT_FALSE(fs::exists(tmp.path() / "sub"));
}

TEST(Db, RoundTripThroughTheFile) {
  TempDir tmp;
  const fs::path path = tmp.path() / "dbs" / "sgemm.H200.json";  // parent made on demand
  const ktune::Fingerprint fp = fingerprint();
  ktune::Measurement failed;
  failed.status = ktune::Status::WrongResult;
  failed.max_error = 0.5;
  failed.message = "max |out - ref| = 0.5 at (3, 7)";
  const std::string a_id = id_of({{"TM", 64}, {"TN", 32}}), b_id = id_of({{"TM", 128}, {"TN", 32}});
  {
    ktune::Db db(path, "sgemm");
    db.record(fp, kKey, a_id, {{"TM", 64}, {"TN", 32}}, timed(1.5));
    db.record(fp, kKey, b_id, {{"TM", 128}, {"TN", 32}}, failed);
    EXPECT_TRUE(db.find(fp, kKey, a_id));  // visible to the writer at once
  }
  ktune::Db db(path, "sgemm");
  EXPECT_TRUE(db.warning().empty()) << db.warning();
  auto a = db.find(fp, kKey, a_id);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->to_json(), timed(1.5).to_json());
  auto b = db.find(fp, kKey, b_id);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->status, ktune::Status::WrongResult);
  EXPECT_EQ(b->message, failed.message);

  const json doc = json::parse(read(path));
  EXPECT_EQ(doc["schema"], "ktune.db");
  EXPECT_EQ(doc["schema_version"], ktune::Db::kSchemaVersion);
  EXPECT_EQ(doc["kernel"], "sgemm");
  const json& entry = doc["fingerprints"][fp.digest()];
  EXPECT_EQ(entry["fingerprint"], fp.to_json());
  EXPECT_EQ(entry["keys"][kKey][a_id]["values"], json({{"TM", 64}, {"TN", 32}}));
  EXPECT_EQ(entry["keys"][kKey][a_id]["measurement"]["status"], "ok");
}

// Many records, one write; a batch with one bad entry records none of them.
TEST(Db, RecordManyIsOneWriteAllOrNothing) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  std::vector<ktune::DbRecord> batch;
  for (int i = 0; i < 50; ++i) batch.push_back({fingerprint(), kKey, id_of({{"TM", i}}), {{"TM", i}}, timed(1 + i)});
  batch.push_back({fingerprint("NVIDIA H100"), "K=1,M=1,N=1", id_of({{"TM", 1}}), {{"TM", 1}}, timed(9)});
  {
    ktune::Db db(path, "sgemm");
    db.record_many(batch);
  }
  ktune::Db db(path, "sgemm");
  for (int i = 0; i < 50; ++i) EXPECT_TRUE(db.find(fingerprint(), kKey, id_of({{"TM", i}}))) << i;
  EXPECT_TRUE(db.find(fingerprint("NVIDIA H100"), "K=1,M=1,N=1", id_of({{"TM", 1}})));
  const std::string before = read(path);

  std::vector<ktune::DbRecord> bad = {{fingerprint(), kKey, "new", {{"TM", 1}}, timed(1)},
                                      {fingerprint(), kKey, "nested", {{"TM", {{"x", 1}}}}, timed(1)}};
  EXPECT_THROW(db.record_many(bad), ktune::Error);
  EXPECT_FALSE(db.find(fingerprint(), kKey, "new"));
  EXPECT_EQ(read(path), before);
}

TEST(Db, ResumeFindsOnlyWhatWasRecorded) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  ktune::Db(path, "sgemm").record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, timed(1));
  ktune::Db db(path, "sgemm");
  EXPECT_TRUE(db.find(fingerprint(), kKey, kA));
  EXPECT_FALSE(db.find(fingerprint(), kKey, kB));
  EXPECT_FALSE(db.find(fingerprint(), "K=1,M=1,N=1", kA));
  EXPECT_FALSE(db.find(fingerprint("NVIDIA H100"), kKey, kA));  // another fingerprint
}

TEST(Db, RecordReplacesTheSameEntry) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  ktune::Db db(path, "sgemm");
  db.record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, timed(1));
  db.record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, timed(2));
  EXPECT_EQ(ktune::Db(path, "sgemm").find(fingerprint(), kKey, kA)->median_ms, 2);
  EXPECT_EQ(json::parse(read(path))["fingerprints"].size(), 1u);
}

TEST(Db, WritesAtomicallyAndLeavesNoTemporaries) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  ktune::Db db(path, "sgemm");
  for (int i = 0; i < 20; ++i) {
    db.record(fingerprint(), kKey, id_of({{"TM", i}}), {{"TM", i}}, timed(1 + i));
    ASSERT_NO_THROW(json::parse(read(path))) << "after record " << i;
  }
  EXPECT_EQ(names_in(tmp.path()), (std::vector<std::string>{"sgemm.json", "sgemm.json.lock"}));
}

TEST(Db, ReloadSeesAnotherWriter) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  ktune::Db first(path, "sgemm");
  ktune::Db second(path, "sgemm");
  first.record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, timed(1));
  second.record(fingerprint(), kKey, id_of({{"TM", 32}}), {{"TM", 32}}, timed(2));  // merges, keeps aaaa
  EXPECT_TRUE(second.find(fingerprint(), kKey, kA));
  EXPECT_FALSE(first.find(fingerprint(), kKey, kB));
  first.reload();
  EXPECT_TRUE(first.find(fingerprint(), kKey, kB));
  // The first writer's next record must not drop what the second added meanwhile.
  second.record(fingerprint(), kKey, id_of({{"TM", 16}}), {{"TM", 16}}, timed(3));
  first.record(fingerprint(), kKey, id_of({{"TM", 8}}), {{"TM", 8}}, timed(4));
  ktune::Db fresh(path, "sgemm");
  for (const std::string& id : {kA, kB, kC, kD}) EXPECT_TRUE(fresh.find(fingerprint(), kKey, id)) << id;
}

TEST(Db, TwoProcessesWritingAtOnceLoseNothing) {
  TempDir tmp;
  const fs::path path = tmp.path() / "shared" / "sgemm.json";
  constexpr int kPerWriter = 50;
  std::vector<pid_t> children;
  for (int writer = 0; writer < 2; ++writer) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        ktune::Db db(path, "sgemm");
        for (int i = 0; i < kPerWriter; ++i)
          db.record(fingerprint(), kKey, id_of({{"TM", writer * kPerWriter + i}}), {{"TM", writer * kPerWriter + i}},
                    timed(1 + i));
      } catch (...) {
        rc = 1;
      }
      ::_exit(rc);  // no gtest teardown in the child
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ktune::Db db(path, "sgemm");
  EXPECT_TRUE(db.warning().empty()) << db.warning();
  int found = 0;
  for (int writer = 0; writer < 2; ++writer)
    for (int i = 0; i < kPerWriter; ++i)
      found += db.find(fingerprint(), kKey, id_of({{"TM", writer * kPerWriter + i}})).has_value();
  EXPECT_EQ(found, 2 * kPerWriter);
  EXPECT_EQ(db.document()["fingerprints"][fingerprint().digest()]["keys"][kKey].size(), std::size_t(2 * kPerWriter));
}

TEST(Db, CorruptFilesAreSetAsideNeverTrusted) {
  const std::string good = one_entry_db();
  json future = json::parse(good);
  future["schema_version"] = 2;
  json older = json::parse(good);
  older["schema_version"] = 0;
  json other_schema = json::parse(good);
  other_schema["schema"] = "ktune.manifest";
  json other_kernel = json::parse(good);
  other_kernel["kernel"] = "hgemm";
  json no_fingerprints = json::parse(good);
  no_fingerprints["fingerprints"] = json::array();
  const std::pair<const char*, std::string> cases[] = {
      {"truncated", good.substr(0, good.size() / 2)},
      {"empty", ""},
      {"array", "[1, 2, 3]"},
      {"wrong schema", other_schema.dump()},
      {"future version", future.dump()},
      {"older version", older.dump()},
      {"other kernel", other_kernel.dump()},
      {"fingerprints a list", no_fingerprints.dump()},
      {"number overflow", "{\"schema\": 1e999}"},
      {"binary", std::string("\x00\xff\xfe{", 4)},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    TempDir tmp;
    const fs::path path = tmp.path() / "sgemm.json";
    write(path, text);
    ktune::Db db(path, "sgemm");
    const std::string& w = db.warning();
    EXPECT_NE(w.find(path.string()), std::string::npos) << w;
    EXPECT_NE(w.find(".corrupt-"), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
    EXPECT_FALSE(fs::exists(path));
    std::vector<std::string> names = names_in(tmp.path());
    auto aside = std::find_if(names.begin(), names.end(),
                              [](const std::string& n) { return n.starts_with("sgemm.json.corrupt-"); });
    ASSERT_NE(aside, names.end());
    EXPECT_EQ(read(tmp.path() / *aside), text);  // kept as it was, for a post-mortem
    EXPECT_FALSE(db.find(fingerprint(), kKey, kA));
    db.record(fingerprint(), kKey, id_of({{"TM", 32}}), {{"TM", 32}}, timed(2));
    EXPECT_TRUE(ktune::Db(path, "sgemm").find(fingerprint(), kKey, kB));
  }
}

TEST(Db, MessagesSayWhy) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  json future = json::parse(one_entry_db());
  future["schema_version"] = 7;
  write(path, future.dump());
  ktune::Db db(path, "sgemm");
  EXPECT_NE(db.warning().find("schema_version 7"), std::string::npos) << db.warning();
  write(path, "{\"schema\": \"ktune.db\", \"schema_version\": 1, \"kernel\": \"hgemm\"}");
  db.reload();
  EXPECT_NE(db.warning().find("hgemm"), std::string::npos) << db.warning();
}

// The bake launches an entry's id; show, report, export, replay and merge go by its values.
// An entry where they disagree is dropped on every read, with one line naming the file, the
// key and the id, and a writer refuses to make one.
TEST(Db, EntriesWhoseIdIsNotTheirValuesAreDropped) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  json doc = json::parse(one_entry_db());
  json& configs = doc["fingerprints"][fingerprint().digest()]["keys"][kKey];
  configs[kB] = {{"values", {{"TM", 16}}}, {"measurement", timed(0.1).to_json()}};                   // another's id
  configs[kC] = {{"values", {{"TM", 16}, {"TN", 1}}}, {"measurement", timed(0.1).to_json()}};        // a value more
  configs[kD] = {{"values", {{"TM", "8"}}}, {"measurement", timed(0.1).to_json()}};                  // text
  configs[id_of({{"TM", 1}})] = {{"values", {{"TM", 1.0}}}, {"measurement", timed(0.1).to_json()}};  // a float
  configs["8"] = {{"values", {{"TM", 8}}}, {"measurement", timed(0.1).to_json()}};                   // not an id
  write(path, doc.dump());
  const std::string text = read(path);

  ktune::Db db(path, "sgemm");
  EXPECT_TRUE(db.find(fingerprint(), kKey, kA));
  for (const std::string& id : {kB, kC, kD, id_of({{"TM", 1}}), std::string("8")})
    EXPECT_FALSE(db.find(fingerprint(), kKey, id)) << id;
  const std::string& w = db.warning();
  EXPECT_NE(w.find(path.string() + ": skipped 5 malformed entries"), std::string::npos) << w;
  EXPECT_NE(w.find(kKey), std::string::npos) << w;
  EXPECT_EQ(w.find('\n'), std::string::npos) << w;
  EXPECT_EQ(read(path), text);  // an otherwise good file stays as it is

  const ktune::Db::Loaded loaded = ktune::Db::load_document(path);
  EXPECT_EQ(loaded.skipped, 5u);
  EXPECT_EQ(loaded.warning, w);
  EXPECT_EQ(loaded.document["fingerprints"][fingerprint().digest()]["keys"][kKey].size(), 1u);

  // The swapped entry alone: the reason names its id and the id its values have.
  json one = json::parse(one_entry_db());
  one["fingerprints"][fingerprint().digest()]["keys"][kKey][kB] = {{"values", {{"TM", 16}}},
                                                                   {"measurement", timed(0.1).to_json()}};
  write(path, one.dump());
  const std::string why = ktune::Db::load_document(path).first_skipped;
  EXPECT_NE(why.find(kB), std::string::npos) << why;
  EXPECT_NE(why.find("is not the id of its values (" + kC + ")"), std::string::npos) << why;

  // Never written: the write is refused and the file stays as it was.
  const std::string before = read(path);
  EXPECT_THROW(db.record(fingerprint(), kKey, kB, {{"TM", 16}}, timed(1)), ktune::Error);
  EXPECT_THROW(db.record(fingerprint(), kKey, "x", {{"TM", 16}}, timed(1)), ktune::Error);
  EXPECT_EQ(read(path), before);
}

// Thousands of bad entries are one line with their count, not thousands of lines.
TEST(Db, ManyEntriesWithWrongIdsAreOneLine) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  json doc = json::parse(one_entry_db());
  json& configs = doc["fingerprints"][fingerprint().digest()]["keys"][kKey];
  for (int i = 0; i < 5000; ++i)
    configs[id_of({{"TM", i}})] = {{"values", {{"TM", i + 1}}}, {"measurement", timed(1).to_json()}};
  write(path, doc.dump());
  ktune::Db db(path, "sgemm");
  EXPECT_NE(db.warning().find("skipped 5000 malformed entries"), std::string::npos) << db.warning().substr(0, 500);
  EXPECT_EQ(db.warning().find('\n'), std::string::npos);
  EXPECT_LT(db.warning().size(), 600u);
}

TEST(Db, MalformedEntriesAreSkippedTheRestKept) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  json doc = json::parse(one_entry_db());
  const std::string d = fingerprint().digest();
  json& configs = doc["fingerprints"][d]["keys"][kKey];
  json negative = timed(1).to_json();
  negative["samples_ms"][1] = -3;
  configs[id_of({{"TM", 1}})] = {{"values", {{"TM", 1}}}, {"measurement", negative}};
  configs[id_of({{"TM", 2}})] = {{"values", {{"TM", 2}}}, {"measurement", "fast"}};
  configs["nest"] = {{"values", {{"TM", {{"deep", 1}}}}}, {"measurement", timed(1).to_json()}};
  configs["bare"] = 5;
  doc["fingerprints"][d]["keys"]["M=1"] = "not an object";
  doc["fingerprints"]["0000000000000000"] = doc["fingerprints"][d];  // digest mismatch
  doc["fingerprints"]["junk"] = {{"fingerprint", {{"gpu", 1}}}};
  write(path, doc.dump());
  ktune::Db db(path, "sgemm");
  EXPECT_TRUE(fs::exists(path));  // an otherwise good file stays where it is
  EXPECT_TRUE(db.find(fingerprint(), kKey, kA));
  for (const std::string& id : {id_of({{"TM", 1}}), id_of({{"TM", 2}}), std::string("nest"), std::string("bare")})
    EXPECT_FALSE(db.find(fingerprint(), kKey, id)) << id;
  EXPECT_NE(db.warning().find("skipped 7 malformed entries"), std::string::npos) << db.warning();
  EXPECT_NE(db.warning().find(path.string()), std::string::npos);
}

TEST(Db, HostileFilesNeverCrash) {
  const std::string d = fingerprint().digest();
  std::string deep_values =
      "{\"schema\":\"ktune.db\",\"schema_version\":1,\"kernel\":\"sgemm\","
      "\"fingerprints\":{\"" +
      d + "\":{\"fingerprint\":" + fingerprint().to_json().dump() +
      ",\"keys\":{\"k\":{\"c\":"
      "{\"measurement\":{\"status\":\"ok\"},\"values\":{\"TM\":" +
      std::string(200000, '[') + std::string(200000, ']') + "}}}}}}}";
  json huge = json::parse(one_entry_db());
  json& m = huge["fingerprints"][d]["keys"][kKey][kA]["measurement"];
  m["resources"]["registers"] = 1e300;
  m["resources"]["local_bytes"] = json::parse("18446744073709551615");
  json wrong_types = json::parse(one_entry_db());
  wrong_types["fingerprints"][d]["fingerprint"]["gpu"]["sm_count"] = "many";
  wrong_types["fingerprints"][d]["keys"] = json::array({1, 2});
  const std::pair<const char*, std::string> cases[] = {
      {"deep document", std::string(300000, '[') + std::string(300000, ']')},
      {"deep values", deep_values},
      {"huge numbers", huge.dump()},
      {"wrong types", wrong_types.dump()},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    TempDir tmp;
    const fs::path path = tmp.path() / "sgemm.json";
    write(path, text);
    ktune::Db db(path, "sgemm");
    EXPECT_FALSE(db.warning().empty());
    EXPECT_FALSE(db.find(fingerprint(), kKey, kA));
    db.record(fingerprint(), kKey, id_of({{"TM", 32}}), {{"TM", 32}}, timed(2));
    EXPECT_TRUE(ktune::Db(path, "sgemm").find(fingerprint(), kKey, kB));
  }
}

TEST(Db, RefusesWhatItCouldNotReadBack) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  ktune::Db db(path, "sgemm");
  ktune::Measurement bad = timed(1);
  bad.samples_ms[0] = -1;
  EXPECT_THROW(db.record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, bad), ktune::Error);
  EXPECT_THROW(db.record(fingerprint(), kKey, kA, {{"TM", {1, 2}}}, timed(1)), ktune::Error);
  EXPECT_FALSE(fs::exists(path));
  // Compiler output is not always UTF-8: stored with replacement characters, not refused.
  ktune::Measurement odd;
  odd.status = ktune::Status::LaunchFailed;
  odd.message = "bad byte \xff here";
  db.record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, odd);
  ktune::Db again(path, "sgemm");
  EXPECT_TRUE(again.warning().empty()) << again.warning();
  EXPECT_EQ(again.find(fingerprint(), kKey, kA)->status, ktune::Status::LaunchFailed);
}

TEST(Db, UnwritableDirectoryThrowsAndKeepsTheFile) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "ro";
  const fs::path path = dir / "sgemm.json";
  ktune::Db db(path, "sgemm");
  db.record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, timed(1));
  const std::string before = read(path);
  ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);
  try {
    db.record(fingerprint(), kKey, id_of({{"TM", 32}}), {{"TM", 32}}, timed(2));
    if (::geteuid() == 0) GTEST_SKIP() << "SKIPPED: running as root, permissions not enforced";
    ADD_FAILURE() << "a record into a read-only directory succeeded";
  } catch (const ktune::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("unchanged"), std::string::npos) << message;
  }
  EXPECT_EQ(read(path), before);
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"sgemm.json", "sgemm.json.lock"}));
}

// Fails the same way for root: the temporary file's name is taken by a directory.
TEST(Db, FailedWriteThrowsAndKeepsTheFile) {
  TempDir tmp;
  const fs::path path = tmp.path() / "sgemm.json";
  ktune::Db db(path, "sgemm");
  db.record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, timed(1));
  const std::string before = read(path);
  const fs::path blocker = tmp.path() / ("sgemm.json.tmp." + std::to_string(::getpid()));
  fs::create_directories(blocker / "inside");
  try {
    db.record(fingerprint(), kKey, id_of({{"TM", 32}}), {{"TM", 32}}, timed(2));
    ADD_FAILURE() << "the write went through a directory";
  } catch (const ktune::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("the DB on disk is unchanged"), std::string::npos) << message;
  }
  EXPECT_EQ(read(path), before);
  EXPECT_TRUE(fs::exists(blocker / "inside"));     // not ours: left alone
  EXPECT_FALSE(db.find(fingerprint(), kKey, kB));  // memory agrees with the disk
  fs::remove_all(blocker);
  db.record(fingerprint(), kKey, id_of({{"TM", 32}}), {{"TM", 32}}, timed(2));
  EXPECT_TRUE(ktune::Db(path, "sgemm").find(fingerprint(), kKey, kA));
}

TEST(Db, ParentThatIsAFileThrows) {
  TempDir tmp;
  write(tmp.path() / "plain", "x");
  ktune::Db db(tmp.path() / "plain" / "sgemm.json", "sgemm");
  EXPECT_THROW(db.record(fingerprint(), kKey, id_of({{"TM", 64}}), {{"TM", 64}}, timed(1)), ktune::Error);
}

// plan_bake and emit_bake on DB files written for the test: which config each GPU model and
// key get, which files are trusted, and that nothing a DB or manifest holds can reach the
// generated C++ as code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/emit_bake.hpp"
#include "ktune/baked_names.hpp"
#include "ktune/build_plan.hpp"
#include "ktune/config_id.hpp"
#include "ktune/db.hpp"
#include "ktune/key.hpp"
#include "ktune/error.hpp"
#include "ktune/manifest.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using TempDir = ktune::test_support::TempDir;
using ktune::test_support::names_in;
using ktune::test_support::read;
using ktune::test_support::write;

const std::string kHash = "kernel-hash-v2";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

ktune::Fingerprint fingerprint(const std::string& gpu, int sm_count = 132, const std::string& hash = kHash,
                               int driver = 13000) {
  ktune::Fingerprint fp;
  fp.kernel_hash = hash;
  fp.nvcc_version = "13.0.88";
  fp.gpu = {
      .name = gpu, .cc_major = 9, .cc_minor = 0, .sm_count = sm_count, .driver_version = driver, .l2_bytes = 62914560};
  return fp;
}

ktune::Measurement ok(double ms) {
  ktune::Measurement m;
  m.samples_ms = {ms, ms, ms};
  m.median_ms = ms;
  m.seconds = 0.1;
  return m;
}

// Failed, yet with a (tempting) time: never a winner.
ktune::Measurement failed(ktune::Status status, double ms) {
  ktune::Measurement m;
  m.status = status;
  m.samples_ms = {ms};
  m.median_ms = ms;
  m.message = "failed on purpose";
  return m;
}

ktune::Measurement abandoned(double ms) {
  ktune::Measurement m = ok(ms);
  m.abandoned = true;
  return m;
}

std::string key_text(int64_t m, int64_t n, int64_t k) { return ktune::key_id({{"M", m}, {"N", n}, {"K", k}}); }

const std::vector<std::string> kParamNames{"TM", "TN"};

// sgemm with TM, TN in {64, 128} and KEYS declared as M, N, K (not alphabetical).
ktune::Manifest manifest() {
  ktune::Manifest m;
  m.kernel = "sgemm";
  m.source = "/src/sgemm.cu";
  m.entry = "sgemm_kernel";
  m.compile.nvcc = "nvcc";
  m.compile.arch = "90";
  m.spec.name = "sgemm";
  m.spec.parameters = {{"TM", {64, 128}}, {"TN", {64, 128}}};
  m.spec.default_config = {{"TM", 64}, {"TN", 64}};
  m.enumerate_configs();
  m.default_id = m.configs[0].id;
  m.product = 4;
  m.keys = {{{"M", 1024}, {"N", 1024}, {"K", 1024}}, {{"M", 4096}, {"N", 4096}, {"K", 4096}}};
  return m;
}

struct Ids {
  std::string a, b, c, d;  // (64,64) = DEFAULT, (64,128), (128,64), (128,128)
};
Ids ids(const ktune::Manifest& m) { return {m.configs[0].id, m.configs[1].id, m.configs[2].id, m.configs[3].id}; }

json values_of(const ktune::Manifest& m, const std::string& id) {
  for (const auto& c : m.configs)
    if (c.id == id) return {{"TM", c.values[0]}, {"TN", c.values[1]}};
  return {{"TM", 0}};
}

void record(const fs::path& db, const ktune::Fingerprint& fp, const std::string& key, const std::string& id,
            const ktune::Measurement& result, const std::string& kernel = "sgemm") {
  ktune::Db(db, kernel).record(fp, key, id, values_of(manifest(), id), result);
}

const ktune::BakeTable* table_of(const ktune::BakePlan& plan, const std::string& gpu) {
  for (const auto& t : plan.tables)
    if (t.gpu.name == gpu) return &t;
  return nullptr;
}

const ktune::BakeEntry* entry_of(const ktune::BakeTable& t, const std::vector<int64_t>& key) {
  for (const auto& e : t.entries)
    if (e.key == key) return &e;
  return nullptr;
}

std::string cubin_bytes(const std::string& tag) {
  return std::string(
             "\x7f"
             "ELF\x02\x01",
             6) +
         tag;
}

// Fake cubins, each with its own bytes: "\x7fELF..." + the config's id.
fs::path cubins(const fs::path& dir, const std::vector<std::string>& config_ids) {
  for (const auto& id : config_ids) write(dir / (id + ".cubin"), cubin_bytes(id));
  return dir;
}

// How emit_bake writes a short array: "[] = {\n  0x7f,0x45,...,0x00};".
std::string array_text(const std::string& bytes) {
  std::string s = "[] = {\n  ";
  char hex[8];
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::snprintf(hex, sizeof hex, "%s0x%02x", i ? "," : "", static_cast<unsigned char>(bytes[i]));
    s += hex;
  }
  return s + "};";
}

std::string emit_error(const ktune::BakePlan& plan, const ktune::Manifest& m, const fs::path& cubin_dir) {
  try {
    ktune::emit_bake(plan, m, cubin_dir, "");
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "no error";
}

// What the generated C++ holds, read the way a compiler reads it: string literals decoded,
// everything else kept as written. `problem` names the first thing a literal must not hold
// (a raw byte outside the plain set, an escape other than three octal digits).
struct Scanned {
  std::string code;                   // outside literals and comments
  std::vector<std::string> literals;  // decoded
  std::string problem;
};

bool plain(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view(" _.,:;/()=+#@-[]").find(static_cast<char>(c)) != std::string_view::npos;
}

bool octal(char c) { return c >= '0' && c <= '7'; }

Scanned scan(const std::string& text) {
  Scanned s;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
      continue;
    }
    if (text[i] != '"') {
      s.code += text[i++];
      continue;
    }
    std::string decoded;
    for (++i;; ++i) {
      if (i >= text.size()) {
        s.problem = "a string literal is not closed";
        return s;
      }
      const char c = text[i];
      if (c == '"') break;
      if (c == '\\') {
        if (i + 3 >= text.size() || !octal(text[i + 1]) || !octal(text[i + 2]) || !octal(text[i + 3])) {
          s.problem = "an escape that is not \\ooo at byte " + std::to_string(i);
          return s;
        }
        decoded += static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0'));
        i += 3;
      } else if (!plain(static_cast<unsigned char>(c))) {
        s.problem =
            "raw byte " + std::to_string(static_cast<unsigned char>(c)) + " in a literal at byte " + std::to_string(i);
        return s;
      } else {
        decoded += c;
      }
    }
    ++i;
    s.literals.push_back(decoded);
  }
  return s;
}

// Decodes one literal as cpp_string_literal writes it; empty optional-like flag on failure.
bool decode_literal(const std::string& literal, std::string& out) {
  const Scanned s = scan(literal);
  if (!s.problem.empty() || s.literals.size() != 1 || !s.code.empty()) return false;
  out = s.literals[0];
  return true;
}

// Where the generated code compiles: the host compiler, ktune's headers and cuda.h.
struct Toolchain {
  fs::path tuner_include, cuda_include;
  std::string missing;  // why the compile check cannot run here
};

Toolchain toolchain() {
  Toolchain t;
  t.tuner_include = fs::path(__FILE__).parent_path() / ".." / ".." / "tuner" / "include";
  if (!fs::exists(t.tuner_include / "ktune" / "dispatcher.hpp")) {
    t.missing = "ktune's headers are not at " + t.tuner_include.string();
    return t;
  }
  std::vector<fs::path> cuda;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var)) cuda.push_back(fs::path(v) / "include");
  cuda.push_back("/usr/local/cuda/include");
  for (const auto& dir : cuda)
    if (fs::exists(dir / "cuda.h")) {
      t.cuda_include = dir;
      break;
    }
  if (t.cuda_include.empty())
    t.missing = "no cuda.h (CUDA toolkit) found";
  else if (std::system("command -v c++ > /dev/null 2>&1") != 0)
    t.missing = "no host compiler `c++` on PATH";
  return t;
}

std::string quoted(const fs::path& p) {
  std::string s = "'";
  for (char c : p.string()) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return s + "'";
}

// Compiles (syntax only, warnings as errors) `check_cpp` next to the generated files; "" when
// it compiles, else the command and the compiler's output.
std::string compile(const Toolchain& t, const fs::path& dir, const ktune::BakeSources& out, const std::string& kernel,
                    const std::string& check_cpp) {
  write(dir / ("ktune_" + kernel + ".hpp"), out.header);
  write(dir / ("ktune_" + kernel + "_baked.cpp"), out.source);
  write(dir / "check.cpp", check_cpp);
  const fs::path log = dir / "compile.log";
  // ktune's and CUDA's headers as system headers: warnings count in the generated code only.
  const std::string command = "c++ -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I" + quoted(dir) + " -isystem " +
                              quoted(t.tuner_include) + " -isystem " + quoted(t.cuda_include) + " " +
                              quoted(dir / "check.cpp") + " > " + quoted(log) + " 2>&1";
  if (std::system(command.c_str()) == 0) return "";
  return command + "\n" + read(log);
}

}  // namespace

// ---------------------------------------------------------------------------- plan_bake

TEST(BakePlan, PerModelTheFastestOkConfigThatCompiled) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const fs::path dbs = tmp.path() / "dbs";
  const fs::path h200 = dbs / "sgemm.NVIDIA_H200.json";
  const fs::path h100 = dbs / "sgemm.NVIDIA_H100.json";
  const std::string small = key_text(1024, 1024, 1024), big = key_text(4096, 4096, 4096);
  // H200, small key: C is fastest but did not compile here, D was abandoned, A failed.
  record(h200, fingerprint("NVIDIA H200"), small, id.a, failed(ktune::Status::WrongResult, 0.01));
  record(h200, fingerprint("NVIDIA H200"), small, id.b, ok(0.5));
  record(h200, fingerprint("NVIDIA H200"), small, id.c, ok(0.1));
  record(h200, fingerprint("NVIDIA H200"), small, id.d, abandoned(0.2));
  // H200, big key: B crashed, D is the fastest ok.
  record(h200, fingerprint("NVIDIA H200"), big, id.a, ok(8));
  record(h200, fingerprint("NVIDIA H200"), big, id.b, failed(ktune::Status::Crashed, 1));
  record(h200, fingerprint("NVIDIA H200"), big, id.c, ok(3));
  record(h200, fingerprint("NVIDIA H200"), big, id.d, ok(5));
  // H100: one key, A; a key where nothing is ok gets no entry.
  record(h100, fingerprint("NVIDIA H100", 114), small, id.a, ok(0.9));
  record(h100, fingerprint("NVIDIA H100", 114), small, id.b, ok(1.2));
  record(h100, fingerprint("NVIDIA H100", 114), big, id.b, failed(ktune::Status::TimedOut, 0.5));

  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {dbs}, {id.a, id.b, id.d});
  EXPECT_EQ(plan.kernel, "sgemm");
  ASSERT_EQ(plan.tables.size(), 2u) << plan.to_json().dump(1);

  const ktune::BakeTable* t200 = table_of(plan, "NVIDIA H200");
  ASSERT_TRUE(t200);
  EXPECT_EQ(t200->gpu.sm_count, 132);
  EXPECT_EQ(t200->gpu.cc_major, 9);
  EXPECT_EQ(t200->source, h200.string());
  ASSERT_EQ(t200->entries.size(), 2u);
  const ktune::BakeEntry* s = entry_of(*t200, {1024, 1024, 1024});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->config_id, id.b);
  EXPECT_DOUBLE_EQ(s->best_ms, 0.5);
  const ktune::BakeEntry* b = entry_of(*t200, {4096, 4096, 4096});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->config_id, id.d);
  EXPECT_DOUBLE_EQ(b->best_ms, 5);

  const ktune::BakeTable* t100 = table_of(plan, "NVIDIA H100");
  ASSERT_TRUE(t100);
  EXPECT_EQ(t100->gpu.sm_count, 114);
  ASSERT_EQ(t100->entries.size(), 1u);
  EXPECT_EQ(t100->entries[0].key, (std::vector<int64_t>{1024, 1024, 1024}));
  EXPECT_EQ(t100->entries[0].config_id, id.a);
  EXPECT_EQ(t100->common_best, id.a);

  // Never a config that failed, was abandoned or did not compile.
  for (const auto& t : plan.tables) {
    EXPECT_NE(t.common_best, id.c);
    for (const auto& e : t.entries) EXPECT_NE(e.config_id, id.c);
  }
  EXPECT_TRUE(contains(plan.note, "NVIDIA H200")) << plan.note;
  EXPECT_TRUE(contains(plan.note, "NVIDIA H100")) << plan.note;
  EXPECT_EQ(plan.to_json()["tables"].size(), 2u);
}

TEST(BakePlan, CommonBestIsTheSmallestGeometricMeanSlowdown) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const fs::path db = tmp.path() / "sgemm.json";
  const auto fp = fingerprint("NVIDIA H200");
  const std::string k1 = key_text(1024, 1024, 1024), k2 = key_text(2048, 2048, 2048), k3 = key_text(4096, 4096, 4096);
  // Winners: D, B, A. C wins nowhere but is within 39%, 25% and 20% of each key's best:
  // exp(mean log slowdown) 1.277, against A's 1.305 and B's 1.424. D failed on k2.
  record(db, fp, k1, id.a, ok(1.0));
  record(db, fp, k1, id.b, ok(1.3));
  record(db, fp, k1, id.c, ok(1.25));
  record(db, fp, k1, id.d, ok(0.9));
  record(db, fp, k2, id.a, ok(2.0));
  record(db, fp, k2, id.b, ok(1.0));
  record(db, fp, k2, id.c, ok(1.25));
  record(db, fp, k2, id.d, failed(ktune::Status::Resource, 0.1));
  record(db, fp, k3, id.a, ok(1.0));
  record(db, fp, k3, id.b, ok(2.0));
  record(db, fp, k3, id.c, ok(1.2));
  record(db, fp, k3, id.d, ok(3.0));

  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path()}, {id.a, id.b, id.c, id.d});
  ASSERT_EQ(plan.tables.size(), 1u);
  const ktune::BakeTable& t = plan.tables[0];
  ASSERT_EQ(t.entries.size(), 3u);
  EXPECT_EQ(entry_of(t, {1024, 1024, 1024})->config_id, id.d);
  EXPECT_EQ(entry_of(t, {2048, 2048, 2048})->config_id, id.b);
  EXPECT_EQ(entry_of(t, {4096, 4096, 4096})->config_id, id.a);
  EXPECT_EQ(t.common_best, id.c);

  // Without C, A is the best of those ok everywhere (D is not ok on k2).
  const ktune::BakePlan without_c = ktune::plan_bake(m, kHash, {tmp.path()}, {id.a, id.b, id.d});
  ASSERT_EQ(without_c.tables.size(), 1u);
  EXPECT_EQ(without_c.tables[0].common_best, id.a);
}

TEST(BakePlan, EarlierDirectoryWinsForAModel) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const fs::path local = tmp.path() / "build" / "ktune_db", shipped = tmp.path() / "src" / "tuning";
  const std::string key = key_text(1024, 1024, 1024);
  record(local / "sgemm.NVIDIA_H200.json", fingerprint("NVIDIA H200", 132, kHash, 13010), key, id.b, ok(0.5));
  record(shipped / "sgemm.NVIDIA_H200.json", fingerprint("NVIDIA H200"), key, id.c, ok(0.4));
  record(shipped / "sgemm.NVIDIA_H100.json", fingerprint("NVIDIA H100", 114), key, id.d, ok(0.7));
  const std::set<std::string> compiled{id.a, id.b, id.c, id.d};

  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {local, shipped}, compiled);
  ASSERT_EQ(plan.tables.size(), 2u);
  const ktune::BakeTable* h200 = table_of(plan, "NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->source, (local / "sgemm.NVIDIA_H200.json").string());
  EXPECT_EQ(h200->entries.at(0).config_id, id.b);
  EXPECT_EQ(h200->gpu.driver_version, 13010);
  const ktune::BakeTable* h100 = table_of(plan, "NVIDIA H100");  // only shipped: used
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100->entries.at(0).config_id, id.d);

  const ktune::BakePlan reversed = ktune::plan_bake(m, kHash, {shipped, local}, compiled);
  ASSERT_EQ(reversed.tables.size(), 2u);
  EXPECT_EQ(table_of(reversed, "NVIDIA H200")->entries.at(0).config_id, id.c);
  EXPECT_EQ(table_of(reversed, "NVIDIA H200")->source, (shipped / "sgemm.NVIDIA_H200.json").string());

  // A missing directory is no error.
  const ktune::BakePlan with_missing = ktune::plan_bake(m, kHash, {tmp.path() / "nowhere", shipped}, compiled);
  EXPECT_EQ(with_missing.tables.size(), 2u);
}

TEST(BakePlan, EarlierDirectoryWithoutUsableResultsDoesNotHideALaterOne) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const fs::path local = tmp.path() / "local", shipped = tmp.path() / "shipped";
  const std::string key = key_text(1024, 1024, 1024);
  // The local tuning of this model crashed on everything it tried.
  record(local / "sgemm.json", fingerprint("NVIDIA H200"), key, id.b, failed(ktune::Status::Crashed, 0));
  record(shipped / "sgemm.json", fingerprint("NVIDIA H200"), key, id.c, ok(0.4));
  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {local, shipped}, {id.a, id.b, id.c, id.d});
  ASSERT_EQ(plan.tables.size(), 1u) << plan.to_json().dump(1);
  EXPECT_EQ(plan.tables[0].entries.at(0).config_id, id.c);
  EXPECT_EQ(plan.tables[0].source, (shipped / "sgemm.json").string());
}

TEST(BakePlan, StaleFingerprintsAreNotUsed) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const fs::path db = tmp.path() / "sgemm.NVIDIA_H200.json";
  const std::string key = key_text(1024, 1024, 1024);
  // The old kernel version was fastest with C; the current one has only B measured.
  record(db, fingerprint("NVIDIA H200", 132, "kernel-hash-v1"), key, id.c, ok(0.1));
  record(db, fingerprint("NVIDIA H200", 132, "kernel-hash-v1"), key, id.b, ok(0.9));
  record(db, fingerprint("NVIDIA H200"), key, id.b, ok(0.5));
  const std::set<std::string> compiled{id.a, id.b, id.c, id.d};

  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path()}, compiled);
  ASSERT_EQ(plan.tables.size(), 1u);
  ASSERT_EQ(plan.tables[0].entries.size(), 1u);
  EXPECT_EQ(plan.tables[0].entries[0].config_id, id.b);
  EXPECT_DOUBLE_EQ(plan.tables[0].entries[0].best_ms, 0.5);
  EXPECT_TRUE(contains(joined(plan.warnings), "1 fingerprint(s) of an earlier version")) << joined(plan.warnings);

  // Only stale data: nothing baked but the DEFAULT, and said so.
  const ktune::BakePlan only_stale = ktune::plan_bake(m, "kernel-hash-v3", {tmp.path()}, compiled);
  EXPECT_TRUE(only_stale.tables.empty());
  EXPECT_TRUE(contains(joined(only_stale.warnings), "2 fingerprint(s)")) << joined(only_stale.warnings);
  EXPECT_TRUE(contains(only_stale.note, "DEFAULT")) << only_stale.note;
}

TEST(BakePlan, OtherKernelsAndCorruptFilesAreSkippedUntouched) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const std::string key = key_text(1024, 1024, 1024);
  const fs::path good = tmp.path() / "sgemm.NVIDIA_H200.json";
  const fs::path other = tmp.path() / "dgemm.NVIDIA_H100.json";
  const fs::path corrupt = tmp.path() / "sgemm.NVIDIA_A100.json";
  const fs::path not_db = tmp.path() / "notes.json";
  record(good, fingerprint("NVIDIA H200"), key, id.b, ok(0.5));
  record(other, fingerprint("NVIDIA H100", 114), key, id.c, ok(0.1), "dgemm");
  const std::string corrupt_bytes = "{\"schema\": \"ktune.db\", \"kernel\": \"sgemm\", \"fingerpr";
  write(corrupt, corrupt_bytes);
  write(not_db, "[1, 2, 3]");
  write(tmp.path() / "README.txt", "not a DB, not even .json");
  const std::vector<std::string> before = names_in(tmp.path());
  const std::string other_bytes = read(other);

  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path()}, {id.a, id.b, id.c, id.d});
  ASSERT_EQ(plan.tables.size(), 1u);
  EXPECT_EQ(plan.tables[0].gpu.name, "NVIDIA H200");
  const std::string warnings = joined(plan.warnings);
  EXPECT_TRUE(contains(warnings, other.string() + ": a DB of another kernel")) << warnings;
  EXPECT_TRUE(contains(warnings, corrupt.string())) << warnings;
  EXPECT_TRUE(contains(warnings, "not valid JSON")) << warnings;
  EXPECT_TRUE(contains(warnings, not_db.string())) << warnings;
  EXPECT_FALSE(contains(warnings, "README.txt")) << warnings;

  // Read only: nothing moved aside, renamed or rewritten.
  EXPECT_EQ(names_in(tmp.path()), before);
  EXPECT_EQ(read(corrupt), corrupt_bytes);
  EXPECT_EQ(read(not_db), "[1, 2, 3]");
  EXPECT_EQ(read(other), other_bytes);
}

// An entry whose id is not the id of its values would be baked as the id's config while every
// report showed the values: it is dropped, with a warning naming the file, the key and the id,
// however fast it claims to be. Many such entries make one line with their count.
TEST(BakePlan, EntriesWhoseIdIsNotTheirValuesAreNeverChosen) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const std::string key = key_text(1024, 1024, 1024);
  const fs::path db = tmp.path() / "sgemm.NVIDIA_H200.json";
  const auto fp = fingerprint("NVIDIA H200");
  record(db, fp, key, id.b, ok(0.5));
  json doc = json::parse(read(db));
  json& configs = doc["fingerprints"][fp.digest()]["keys"][key];
  configs[id.c] = {{"values", values_of(m, id.d)}, {"measurement", ok(0.01).to_json()}};            // swapped
  configs[id.d] = {{"values", {{"TM", 128}, {"TN", "128"}}}, {"measurement", ok(0.02).to_json()}};  // text
  configs[id.a] = {{"values", json::object()}, {"measurement", ok(0.03).to_json()}};                // no values
  write(db, doc.dump());

  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path()}, {id.a, id.b, id.c, id.d});
  ASSERT_EQ(plan.tables.size(), 1u);
  ASSERT_EQ(plan.tables[0].entries.size(), 1u);
  EXPECT_EQ(plan.tables[0].entries[0].config_id, id.b);
  EXPECT_EQ(plan.tables[0].common_best, id.b);
  ASSERT_EQ(plan.warnings.size(), 1u) << joined(plan.warnings);
  const std::string& w = plan.warnings[0];
  EXPECT_TRUE(contains(w, db.string() + ": skipped 3 malformed entries")) << w;
  EXPECT_TRUE(contains(w, key)) << w;
  EXPECT_TRUE(contains(w, "is not the id of its values") || contains(w, "is not a 64-bit integer")) << w;
  EXPECT_FALSE(contains(w, "\n")) << w;
}

// Values outside the kernel's space (a DB of an older space, or edited with a matching id):
// left out with one warning, never baked.
TEST(BakePlan, EntriesOutsideTheSpaceAreLeftOutWithAWarning) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const std::string key = key_text(1024, 1024, 1024);
  const fs::path db = tmp.path() / "sgemm.NVIDIA_H200.json";
  const auto fp = fingerprint("NVIDIA H200");
  record(db, fp, key, id.b, ok(0.5));
  for (const json& outside : {json{{"TM", 256}, {"TN", 64}}, json{{"TM", 64}}, json{{"TM", 64}, {"TN", 64}, {"TK", 8}}})
    ktune::Db(db, "sgemm").record(fp, key, ktune::config_id_of(outside), outside, ok(0.01));

  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path()}, {id.a, id.b, id.c, id.d});
  ASSERT_EQ(plan.tables.size(), 1u);
  ASSERT_EQ(plan.tables[0].entries.size(), 1u);
  EXPECT_EQ(plan.tables[0].entries[0].config_id, id.b);
  const std::string warnings = joined(plan.warnings);
  EXPECT_TRUE(
      contains(warnings, db.string() + ": left out 3 entries whose values are not a config of the kernel's space"))
      << warnings;
}

TEST(BakePlan, NoDataBakesTheDefaultOnly) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path() / "missing", tmp.path()}, {ids(m).a});
  EXPECT_TRUE(plan.tables.empty());
  EXPECT_TRUE(plan.warnings.empty()) << joined(plan.warnings);
  EXPECT_TRUE(contains(plan.note, "DEFAULT config only")) << plan.note;
  EXPECT_EQ(plan.key_dims, (std::vector<std::string>{"M", "N", "K"}));

  const fs::path cubin_dir = cubins(tmp.path() / "cubins", {m.default_id});
  const ktune::BakeSources out = ktune::emit_bake(plan, m, cubin_dir, "");
  EXPECT_TRUE(contains(out.header, "struct Config {")) << out.header;
  EXPECT_TRUE(contains(out.source, "\"" + m.default_id + "\"")) << out.source;
  EXPECT_TRUE(contains(out.source, "cubin_0_0" + array_text(cubin_bytes(m.default_id)))) << out.source;
  EXPECT_FALSE(contains(out.source, "cubin_1_0"));
  EXPECT_FALSE(contains(out.source, "ptx_0"));
  EXPECT_TRUE(contains(out.source, "{gpus, 0}")) << out.source;
  EXPECT_TRUE(contains(out.source, "DEFAULT config only")) << out.source;
}

TEST(BakePlan, KeyDimensionsKeepTheDeclaredOrder) {
  TempDir tmp;
  const ktune::Manifest m = manifest();  // KEYS "M=... N=... K=..."
  const Ids id = ids(m);
  // The DB names keys alphabetically: K=3,M=1,N=2.
  record(tmp.path() / "sgemm.json", fingerprint("NVIDIA H200"), key_text(1, 2, 3), id.b, ok(0.5));
  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path()}, {id.a, id.b});
  EXPECT_EQ(plan.key_dims, (std::vector<std::string>{"M", "N", "K"}));
  ASSERT_EQ(plan.tables.size(), 1u);
  ASSERT_EQ(plan.tables[0].entries.size(), 1u);
  EXPECT_EQ(plan.tables[0].entries[0].key, (std::vector<int64_t>{1, 2, 3}));

  const ktune::BakeSources out = ktune::emit_bake(plan, m, cubins(tmp.path() / "cubins", {id.a, id.b}), "");
  EXPECT_TRUE(contains(out.header, "struct Key {\n  int64_t M;\n  int64_t N;\n  int64_t K;\n")) << out.header;
  EXPECT_TRUE(contains(out.header, "std::array<int64_t, 3> values() const { return {M, N, K}; }")) << out.header;
  EXPECT_TRUE(contains(out.source, "{\"M\", \"N\", \"K\"}")) << out.source;
  EXPECT_TRUE(contains(out.source, "= {1LL, 2LL, 3LL};")) << out.source;
}

TEST(BakePlan, KeyDimensionsKeepTheOrderKeysDeclaresThroughThePlan) {
  // As configure makes the manifest: KEYS "M=... N=... K=...", then the manifest file.
  ktune::PlanRequest r;
  r.kernel = "sgemm";
  r.source = "/src/sgemm.cu";
  r.params = {"TM=64,128", "TN=64,128"};
  r.default_text = "TM=64 TN=64";
  r.keys = {"M=1024 N=1024 K=1024", "K=4096 N=4096 M=4096"};
  r.compile = {"nvcc", "90", {"-O3"}, {}};
  const ktune::Manifest planned = ktune::make_plan(r).manifest;
  const ktune::Manifest m = ktune::Manifest::from_json(planned.to_json(), "sgemm.manifest.json");
  TempDir tmp;
  record(tmp.path() / "sgemm.json", fingerprint("NVIDIA H200"), key_text(1, 2, 3), m.default_id, ok(0.5));
  for (const ktune::Manifest* manifest : {&planned, &m}) {
    const ktune::BakePlan plan = ktune::plan_bake(*manifest, kHash, {tmp.path()}, {m.default_id});
    EXPECT_EQ(plan.key_dims, (std::vector<std::string>{"M", "N", "K"}));
    ASSERT_EQ(plan.tables.size(), 1u);
    EXPECT_EQ(plan.tables[0].entries.at(0).key, (std::vector<int64_t>{1, 2, 3}));
  }
}

TEST(BakePlan, KeysOfOtherDimensionsAreSkippedWithAWarning) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const fs::path db = tmp.path() / "sgemm.json";
  const auto fp = fingerprint("NVIDIA H200");
  record(db, fp, key_text(1024, 1024, 1024), id.b, ok(0.5));
  record(db, fp, "M=1024,N=1024", id.c, ok(0.1));                // a dimension short
  record(db, fp, "B=1,K=1024,M=1024,N=1024", id.c, ok(0.1));     // one too many
  record(db, fp, "K=1024,M=1024,X=1024", id.c, ok(0.1));         // another name
  record(db, fp, "K=1e3,M=1024,N=1024", id.c, ok(0.1));          // not an integer
  record(db, fp, "K=1024,M=1024,N=1024,", id.c, ok(0.1));        // trailing comma
  record(db, fp, "K=1024,K=1024,M=1024,N=1024", id.c, ok(0.1));  // twice
  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path()}, {id.a, id.b, id.c});
  ASSERT_EQ(plan.tables.size(), 1u);
  ASSERT_EQ(plan.tables[0].entries.size(), 1u);
  EXPECT_EQ(plan.tables[0].entries[0].config_id, id.b);
  EXPECT_TRUE(contains(joined(plan.warnings), "6 key(s) whose dimensions")) << joined(plan.warnings);
}

// ---------------------------------------------------------------------------- emit_bake

TEST(BakeEmit, ConfigFieldsCubinsAndDefaultPtx) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const fs::path db = tmp.path() / "dbs" / "sgemm.json";
  record(db, fingerprint("NVIDIA H200"), key_text(1024, 1024, 1024), id.b, ok(0.5));
  record(db, fingerprint("NVIDIA H200"), key_text(4096, 4096, 4096), id.d, ok(2.5));
  record(db, fingerprint("NVIDIA H200"), key_text(4096, 4096, 4096), id.b, ok(3));
  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path() / "dbs"}, {id.a, id.b, id.d});
  ASSERT_EQ(plan.tables.size(), 1u);
  // C's cubin is there but wins nothing: not embedded.
  const fs::path cubin_dir = cubins(tmp.path() / "cubins", {id.a, id.b, id.c, id.d});
  const std::string ptx = ".version 8.8\n.target sm_90\n.address_size 64\n";
  const ktune::BakeSources out = ktune::emit_bake(plan, m, cubin_dir, ptx);

  EXPECT_TRUE(contains(out.header, "namespace ktune_sgemm {")) << out.header;
  EXPECT_TRUE(contains(out.header, "struct Config {\n  int64_t TM;\n  int64_t TN;\n")) << out.header;
  EXPECT_TRUE(contains(out.header, "return {c.values()[0], c.values()[1]};")) << out.header;
  EXPECT_TRUE(contains(out.header, "#include <ktune/dispatcher.hpp>")) << out.header;

  EXPECT_TRUE(contains(out.source, "#include \"ktune_sgemm.hpp\"")) << out.source;
  for (const std::string& embedded : {id.a, id.b, id.d}) {
    EXPECT_TRUE(contains(out.source, array_text(cubin_bytes(embedded)))) << embedded;
    EXPECT_TRUE(contains(out.source, "\"" + embedded + "\"")) << embedded;
  }
  EXPECT_FALSE(contains(out.source, id.c));
  // The DEFAULT first, with its PTX NUL-terminated; the others without PTX.
  EXPECT_TRUE(contains(out.source, "const int64_t values_0[] = {64LL, 64LL};")) << out.source;
  EXPECT_TRUE(contains(out.source, "{values_0, 2}, cubins_0, {ptx_0, sizeof ptx_0}}")) << out.source;
  EXPECT_TRUE(contains(out.source, "{values_1, 2}, cubins_1, {}}")) << out.source;
  EXPECT_TRUE(contains(out.source,
                       "const ktune::BakedCubin cubins_1[] = {\n  {{9, 0, false}, {cubin_1_0, sizeof cubin_1_0}},\n};"))
      << out.source;
  EXPECT_TRUE(contains(out.source, "\"sgemm\", \"sgemm_kernel\"")) << out.source;
  EXPECT_TRUE(contains(out.source, "const ktune::BakedArch cubin_archs[] = {{9, 0, false}};")) << out.source;
  EXPECT_TRUE(contains(out.source, "cubin_archs, {9, 0, false},")) << out.source;  // PTX: compute_90
  EXPECT_TRUE(contains(out.source, "\"NVIDIA H200\", 9, 0, 132, 0ULL, ")) << out.source;
  EXPECT_EQ(out.sizes.size(), 1u);
  EXPECT_EQ(out.sizes.at("90").cubins, 3u);
  EXPECT_EQ(out.ptx_bytes, ptx.size() + 1);
  EXPECT_TRUE(contains(out.source, "{gpus, 1}")) << out.source;

  // The whole PTX, byte for byte (it is longer than one line of 24 bytes).
  std::string flat;
  const std::size_t at = out.source.find("ptx_0[] = {");
  ASSERT_NE(at, std::string::npos);
  for (std::size_t i = at + 11; i < out.source.size() && out.source[i] != '}'; ++i)
    if (out.source[i] != '\n' && out.source[i] != ' ') flat += out.source[i];
  std::string expected;
  char hex[8];
  for (unsigned char c : ptx + std::string(1, '\0')) {
    std::snprintf(hex, sizeof hex, "%s0x%02x", expected.empty() ? "" : ",", c);
    expected += hex;
  }
  EXPECT_EQ(flat, expected);

  // An arch-specific target.
  ktune::Manifest specific = m;
  specific.compile.arch = "90a";
  ktune::BakePlan specific_plan = plan;
  for (auto& t : specific_plan.tables) t.arch = "90a";
  const std::string specific_source = ktune::emit_bake(specific_plan, specific, cubin_dir, ptx).source;
  EXPECT_TRUE(contains(specific_source, "const ktune::BakedArch cubin_archs[] = {{9, 0, true}};")) << specific_source;
  EXPECT_TRUE(contains(specific_source, "cubin_archs, {9, 0, true},"));  // its PTX: compute_90a
  specific.compile.arch = "100a";
  for (auto& t : specific_plan.tables) t.arch = "100a";
  EXPECT_TRUE(contains(ktune::emit_bake(specific_plan, specific, cubin_dir, "").source, "{{10, 0, true}, {cubin_0_0"));
  // Every listed architecture -real: no PTX, whatever file is given.
  ktune::Manifest no_ptx = m;
  no_ptx.compile.ptx_arch = "";
  const std::string no_ptx_source = ktune::emit_bake(plan, no_ptx, cubin_dir, ptx).source;
  EXPECT_FALSE(contains(no_ptx_source, "ptx_0"));
  EXPECT_TRUE(contains(no_ptx_source, "cubin_archs, {0, 0, false},"));
}

TEST(BakeEmit, MissingCubinNamesTheFile) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  record(tmp.path() / "sgemm.json", fingerprint("NVIDIA H200"), key_text(1024, 1024, 1024), id.b, ok(0.5));
  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path()}, {id.a, id.b});
  const fs::path cubin_dir = cubins(tmp.path() / "cubins", {id.a});
  const std::string message = emit_error(plan, m, cubin_dir);
  EXPECT_TRUE(contains(message, (cubin_dir / (id.b + ".cubin")).string())) << message;
}

TEST(BakeEmit, NamesThatAreNotIdentifiersAreRefused) {
  TempDir tmp;
  const fs::path cubin_dir = cubins(tmp.path(), {manifest().default_id});
  const ktune::BakePlan plan = ktune::plan_bake(manifest(), kHash, {}, {});

  for (const std::string bad : {"class", "TM;int x", "int", "1TM", "TM-1", "", "T\xc3\xa9"}) {
    ktune::Manifest m = manifest();
    m.spec.parameters[0].name = bad;
    const std::string message = emit_error(plan, m, cubin_dir);
    EXPECT_TRUE(contains(message, "parameter " + ktune::cpp_string_literal(bad))) << message;
    EXPECT_TRUE(contains(message, "not a C++ identifier")) << message;
  }
  {
    ktune::Manifest m = manifest();
    for (auto& key : m.keys) key[2].first = "class";
    const ktune::BakePlan p = ktune::plan_bake(m, kHash, {}, {});
    const std::string message = emit_error(p, m, cubin_dir);
    EXPECT_TRUE(contains(message, "key dimension \"class\"")) << message;
  }
  {
    ktune::BakePlan p = plan;
    p.key_dims[0] = "M;int x";
    const std::string message = emit_error(p, manifest(), cubin_dir);
    EXPECT_TRUE(contains(message, "key dimension \"M;int x\"")) << message;
  }
  {
    ktune::Manifest m = manifest();
    m.kernel = "sgemm\"); system(\"x";
    const std::string message = emit_error(plan, m, cubin_dir);
    EXPECT_TRUE(contains(message, "kernel name")) << message;
    EXPECT_FALSE(contains(message, "\"); system")) << message;
  }
  {
    ktune::Manifest m = manifest();
    m.entry = "template";
    EXPECT_TRUE(contains(emit_error(plan, m, cubin_dir), "kernel entry \"template\""));
  }
  {
    ktune::Manifest m = manifest();
    m.compile.arch = "90\"; int x; //";
    EXPECT_TRUE(contains(emit_error(plan, m, cubin_dir), "architecture"));
  }
}

TEST(BakeEmit, NamesTheGeneratedHeaderUsesAreRefused) {
  // Config::of, Key::values() and int64_t: a field of that name would not compile.
  TempDir tmp;
  const fs::path cubin_dir = cubins(tmp.path(), {manifest().default_id});
  const ktune::BakePlan plan = ktune::plan_bake(manifest(), kHash, {}, {});
  for (const std::string taken : {"of", "Config", "int64_t"}) {
    ktune::Manifest m = manifest();
    m.spec.parameters[1].name = taken;
    const std::string message = emit_error(plan, m, cubin_dir);
    EXPECT_TRUE(contains(message, "parameter \"" + taken + "\" clashes")) << message;
  }
  for (const std::string taken : {"values", "int64_t"}) {
    ktune::BakePlan p = plan;
    p.key_dims[1] = taken;
    const std::string message = emit_error(p, manifest(), cubin_dir);
    EXPECT_TRUE(contains(message, "key dimension \"" + taken + "\" clashes")) << message;
  }
  // Where they do not clash, they are fine.
  ktune::Manifest m = manifest();
  m.spec.parameters[1].name = "values";
  ktune::BakePlan p = plan;
  p.key_dims = {"of", "Config", "Key"};
  EXPECT_NO_THROW(ktune::emit_bake(p, m, cubin_dir, ""));
}

TEST(BakeEmit, ConfigIdsNotInTheManifestAreRefused) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const fs::path cubin_dir = cubins(tmp.path(), {m.default_id});
  ktune::BakePlan plan = ktune::plan_bake(m, kHash, {}, {});
  ktune::BakeTable t;
  t.gpu.name = "NVIDIA H200";
  t.entries.push_back({{1, 2, 3}, "\"}; int x; //", 1.0});
  plan.tables.push_back(t);
  std::string message = emit_error(plan, m, cubin_dir);
  EXPECT_TRUE(contains(message, "is not in the manifest")) << message;
  EXPECT_FALSE(contains(message, "\"}; int x")) << message;

  plan.tables[0].entries[0].config_id = "0123456789abcdef";  // an id, but not this space's
  EXPECT_TRUE(contains(emit_error(plan, m, cubin_dir), "\"0123456789abcdef\" is not in the manifest"));
  // A path through the cubin directory is no id either.
  plan.tables[0].entries[0].config_id = "../../etc/passwd";
  EXPECT_TRUE(contains(emit_error(plan, m, cubin_dir), "is not in the manifest"));
}

TEST(BakeEmit, HostileDbCannotInjectCode) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const std::string payload = "\"); system(\"rm -rf /\"); //";
  // Valid UTF-8 (a DB is JSON), with everything a C++ literal must not hold raw.
  const std::string gpu_name = payload + "\n*/ /* ?\?/ ?\?= \\\" \\ \t\r\x01 \xc3\xa9 \xe2\x80\xa8 end";
  const fs::path dbs = tmp.path() / std::string("db\"s\\ ?\?/\n*/");
  const fs::path db = dbs / "sgemm.json";
  const auto fp = fingerprint(gpu_name);
  record(db, fp, key_text(1024, 1024, 1024), id.b, ok(0.5));
  record(db, fp, key_text(4096, 4096, 4096), id.d, ok(2.0));
  // Hostile keys and config ids: never parsed as keys, never compiled.
  record(db, fp, "K=1\"); system(\"x\"); //,M=1,N=1", id.a, ok(0.01));
  record(db, fp, "K=1024,M=1024,N=1024\n*/?\?/", id.a, ok(0.01));
  // Config ids no writer records (not the id of their values): written into the file, then
  // dropped by the reader.
  json doc = json::parse(read(db));
  json& configs = doc["fingerprints"][fp.digest()]["keys"][key_text(1024, 1024, 1024)];
  for (const std::string& hostile : {payload, std::string("\\\n*/?\?/\"")})
    configs[hostile] = {{"values", values_of(m, id.a)}, {"measurement", ok(0.01).to_json()}};
  write(db, doc.dump());

  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {dbs}, {id.a, id.b, id.c, id.d});
  ASSERT_EQ(plan.tables.size(), 1u) << plan.to_json().dump(1);
  EXPECT_EQ(plan.tables[0].gpu.name, gpu_name);
  ASSERT_EQ(plan.tables[0].entries.size(), 2u);
  EXPECT_EQ(entry_of(plan.tables[0], {1024, 1024, 1024})->config_id, id.b);
  EXPECT_TRUE(contains(joined(plan.warnings), "2 key(s)")) << joined(plan.warnings);

  const ktune::BakeSources out =
      ktune::emit_bake(plan, m, cubins(tmp.path() / "cubins", {id.a, id.b, id.d}), "// ptx \"); system(\"x\n");
  for (const std::string* text : {&out.header, &out.source}) {
    const Scanned s = scan(*text);
    EXPECT_EQ(s.problem, "") << *text;
    EXPECT_FALSE(contains(s.code, "system")) << s.code;
    EXPECT_FALSE(contains(s.code, "rm -rf")) << s.code;
    EXPECT_FALSE(contains(*text, "\"); ")) << *text;
    EXPECT_FALSE(contains(*text, "?\?")) << *text;
    EXPECT_FALSE(contains(*text, "*/")) << *text;
    EXPECT_FALSE(contains(*text, "/*")) << *text;
    for (unsigned char c : *text) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << int(c);
  }
  // The name and the path come back whole from their literals.
  const Scanned s = scan(out.source);
  EXPECT_NE(std::find(s.literals.begin(), s.literals.end(), gpu_name), s.literals.end());
  EXPECT_NE(std::find(s.literals.begin(), s.literals.end(), db.string()), s.literals.end());
  EXPECT_TRUE(contains(out.source, ktune::cpp_string_literal(gpu_name)));
  // Every byte of the name outside the plain set is a three-digit octal escape.
  EXPECT_TRUE(contains(out.source, "\\042); system(\\042rm -rf /\\042); //\\012\\052/ /\\052 \\077\\077/"))
      << out.source;
}

TEST(BakeEmit, NonUtf8BytesAreEscaped) {
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  ktune::BakePlan plan = ktune::plan_bake(m, kHash, {}, {});
  ktune::BakeTable t;
  t.gpu = {.name = std::string("GPU \xff\xfe\x80\0\"", 9), .cc_major = 9, .cc_minor = 0, .sm_count = 132};
  t.source = std::string("/db/\xc0\xaf\n.json");
  t.entries.push_back({{1024, 1024, 1024}, id.b, 0.5});
  t.common_best = id.b;
  plan.tables.push_back(t);
  const ktune::BakeSources out = ktune::emit_bake(plan, m, cubins(tmp.path(), {id.a, id.b}), "");
  EXPECT_TRUE(contains(out.source, "\"GPU \\377\\376\\200\\000\\042\", 9, 0, 132, 0ULL, \"/db/\\300\\257\\012.json\""))
      << out.source;
  const Scanned s = scan(out.source);
  EXPECT_EQ(s.problem, "");
  EXPECT_NE(std::find(s.literals.begin(), s.literals.end(), t.gpu.name), s.literals.end());
}

TEST(BakeEmit, GeneratedSourceCompiles) {
  const Toolchain tools = toolchain();
  if (!tools.missing.empty()) GTEST_SKIP() << tools.missing;
  TempDir tmp;
  const ktune::Manifest m = manifest();
  const Ids id = ids(m);
  const std::string gpu_name = "\"); system(\"rm -rf /\"); //\n*/?\?/\\ \xc3\xa9";
  const fs::path db = tmp.path() / "dbs" / "sgemm.json";
  record(db, fingerprint(gpu_name), key_text(1024, 1024, 1024), id.b, ok(0.5));
  record(db, fingerprint(gpu_name), key_text(4096, 4096, 4096), id.d, ok(2));
  record(db, fingerprint("NVIDIA H100", 114), key_text(1024, 1024, 1024), id.c, ok(0.7));
  const ktune::BakePlan plan = ktune::plan_bake(m, kHash, {tmp.path() / "dbs"}, {id.a, id.b, id.c, id.d});
  ASSERT_EQ(plan.tables.size(), 2u);
  const ktune::BakeSources out =
      ktune::emit_bake(plan, m, cubins(tmp.path() / "cubins", {id.a, id.b, id.c, id.d}), ".version 8.8\n");

  // The generated data, then a user of the header: the fields in declared order (designated
  // initializers), both kinds of launch template, and the GPU name as the compiler reads it.
  std::string bytes;
  for (unsigned char c : gpu_name) bytes += (bytes.empty() ? "" : ", ") + std::to_string(c);
  const std::string check =
      "#include \"ktune_sgemm_baked.cpp\"\n"
      "#include <string_view>\n"
      "#include <type_traits>\n"
      "static_assert(sizeof(ktune_sgemm::Config) == 2 * sizeof(int64_t));\n"
      "static_assert(sizeof(ktune_sgemm::Key) == 3 * sizeof(int64_t));\n"
      "constexpr char kName[] = " +
      ktune::cpp_string_literal(gpu_name) +
      ";\n"
      "constexpr unsigned char kBytes[] = {" +
      bytes +
      "};\n"
      "constexpr bool same() {\n"
      "  if (sizeof kName != sizeof kBytes + 1) return false;\n"
      "  for (unsigned i = 0; i < sizeof kBytes; ++i)\n"
      "    if (static_cast<unsigned char>(kName[i]) != kBytes[i]) return false;\n"
      "  return true;\n"
      "}\n"
      "static_assert(same());\n"
      "void use(CUstream stream) {\n"
      "  const ktune_sgemm::Key key{.M = 1, .N = 2, .K = 3};\n"
      "  static_assert(std::is_same_v<decltype(key.values()), std::array<int64_t, 3>>);\n"
      "  const ktune_sgemm::Config c{.TM = 64, .TN = 128};\n"
      "  (void)c;\n"
      "  ktune_sgemm::launch(key, [](const ktune_sgemm::Config& c) {\n"
      "    return ktune::Launch{.grid = {ktune::cdiv(1024, c.TM)}, .block = {static_cast<uint32_t>(c.TN)},\n"
      "                         .args = ktune::args(1, 2.0f)};\n"
      "  }, stream);\n"
      "  ktune_sgemm::launch(key, [](const ktune::Config&) { return ktune::Launch{}; });\n"
      "  const ktune::Choice choice = ktune_sgemm::choice(key);\n"
      "  (void)choice;\n"
      "  const ktune::BakedKernel& k = ktune_sgemm::baked;\n"
      "  (void)k.declared_keys.size();\n"
      "}\n";
  const std::string errors = compile(tools, tmp.path() / "gen", out, "sgemm", check);
  EXPECT_EQ(errors, "") << "--- header\n" << out.header << "--- source\n" << out.source;
  // The declared KEYS, in key_dims order, for demos and benchmarks.
  EXPECT_NE(out.source.find("const int64_t declared_keys[] = {1024LL, 1024LL, 1024LL, 4096LL, 4096LL, 4096LL};"),
            std::string::npos)
      << out.source;
  EXPECT_NE(out.source.find("{declared_keys, 6}}"), std::string::npos);
}

// ---------------------------------------------------------------------------- helpers

TEST(CppIdentifier, IdentifiersAndKeywords) {
  for (const char* good : {"TM", "_x", "a1", "BLOCK_SIZE", "int64", "classy", "Class", "x_", "_"})
    EXPECT_TRUE(ktune::is_cpp_identifier(good)) << good;
  for (const char* bad : {"", "1a", "a-b", "a b", "TM;int x", "x\n", "a.b", "$x", "T\xc3\xa9"})
    EXPECT_FALSE(ktune::is_cpp_identifier(bad)) << bad;
  for (const char* keyword : {"class", "int", "template", "co_await", "requires", "concept", "char8_t", "and", "xor_eq",
                              "final", "override", "import", "module", "nullptr", "true", "this"})
    EXPECT_FALSE(ktune::is_cpp_identifier(keyword)) << keyword;
  EXPECT_TRUE(ktune::is_cpp_identifier(std::string(200, 'x')));
  EXPECT_FALSE(ktune::is_cpp_identifier(std::string(201, 'x')));
  EXPECT_FALSE(ktune::is_cpp_identifier(std::string("a\0b", 3)));
}

TEST(UnbakeableName, ReservedAndHeaderNamesAreRefusedWithTheReason) {
  for (const char* good : {"TM", "_x", "x__y", "_", "tile_M"}) {
    EXPECT_EQ(ktune::unbakeable_name(good, false), "") << good;
    EXPECT_EQ(ktune::unbakeable_name(good, true), "") << good;
  }
  EXPECT_NE(ktune::unbakeable_name("class", false).find("not a C++ identifier"), std::string::npos);
  for (const char* reserved : {"__x", "__CUDA_ARCH__", "_Tile"})
    EXPECT_NE(ktune::unbakeable_name(reserved, false).find("reserved to the compiler"), std::string::npos) << reserved;
  for (const char* taken : {"of", "Config", "int64_t"})
    EXPECT_NE(ktune::unbakeable_name(taken, false).find("clashes"), std::string::npos) << taken;
  for (const char* taken : {"values", "int64_t"})
    EXPECT_NE(ktune::unbakeable_name(taken, true).find("clashes"), std::string::npos) << taken;
  EXPECT_EQ(ktune::unbakeable_name("of", true), "");  // Key has no of(); Config has no values()
  EXPECT_EQ(ktune::unbakeable_name("values", false), "");
}

TEST(CppStringLiteral, EverythingButPlainBytesIsAnOctalEscape) {
  EXPECT_EQ(ktune::cpp_string_literal(""), "\"\"");
  EXPECT_EQ(ktune::cpp_string_literal("NVIDIA H200"), "\"NVIDIA H200\"");
  EXPECT_EQ(ktune::cpp_string_literal("a\"b"), "\"a\\042b\"");
  EXPECT_EQ(ktune::cpp_string_literal("a\\b"), "\"a\\134b\"");
  EXPECT_EQ(ktune::cpp_string_literal("?\?/"), "\"\\077\\077/\"");
  EXPECT_EQ(ktune::cpp_string_literal("*/"), "\"\\052/\"");
  EXPECT_EQ(ktune::cpp_string_literal("\n"), "\"\\012\"");
  EXPECT_EQ(ktune::cpp_string_literal(std::string("\0"
                                                  "7",
                                                  2)),
            "\"\\0007\"");  // never "\07"
  EXPECT_EQ(ktune::cpp_string_literal("\x01"
                                      "23"),
            "\"\\00123\"");
  EXPECT_EQ(ktune::cpp_string_literal("\xff"), "\"\\377\"");

  // Every byte value, in a row: each plain byte as itself, any other as \ooo, and the
  // literal decodes back to the input.
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string literal = ktune::cpp_string_literal(all);
  std::string expected = "\"";
  char buf[8];
  for (int c = 0; c < 256; ++c) {
    if (plain(static_cast<unsigned char>(c))) {
      expected += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      expected += buf;
    }
  }
  EXPECT_EQ(literal, expected + "\"");
  std::string back;
  ASSERT_TRUE(decode_literal(literal, back));
  EXPECT_EQ(back, all);
  for (unsigned char c : literal) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
  EXPECT_EQ(literal.find('?'), std::string::npos);
  EXPECT_EQ(literal.find('\''), std::string::npos);
  EXPECT_EQ(literal.find('*'), std::string::npos);
}

// ------------------------------------------------------------------ several architectures

namespace {

ktune::Fingerprint fingerprint_cc(const std::string& gpu, int major, int minor, const std::string& hash) {
  ktune::Fingerprint fp = fingerprint(gpu, 108, hash);
  fp.gpu.cc_major = major;
  fp.gpu.cc_minor = minor;
  return fp;
}

// sgemm listed for 80 and 90, tuned here for 90; the hash of each architecture differs.
ktune::Manifest fleet_manifest() {
  ktune::Manifest m = manifest();
  m.compile.archs = {"80", "90"};
  return m;
}

std::map<std::string, ktune::BakeArch> fleet_archs(const std::set<std::string>& ok80,
                                                   const std::set<std::string>& ok90) {
  return {{"80", {"hash-80", [ok80](const std::string& id) { return ok80.count(id) > 0; }}},
          {"90", {"hash-90", [ok90](const std::string& id) { return ok90.count(id) > 0; }}}};
}

}  // namespace

TEST(BakePlan, EachTableGoesToTheListedArchitectureItsGpuRuns) {
  TempDir tmp;
  const ktune::Manifest m = fleet_manifest();
  const Ids id = ids(m);
  const std::string key = key_text(1024, 1024, 1024);
  record(tmp.path() / "h200.json", fingerprint_cc("NVIDIA H200", 9, 0, "hash-90"), key, id.b, ok(0.5));
  record(tmp.path() / "a100.json", fingerprint_cc("NVIDIA A100-SXM4-80GB", 8, 0, "hash-80"), key, id.c, ok(0.9));
  record(tmp.path() / "a10.json", fingerprint_cc("NVIDIA A10", 8, 6, "hash-80"), key, id.d, ok(1.9));
  // Measured with the sm_90 build's cubins on an A100: not this build's sm_80 code.
  record(tmp.path() / "a100_stale.json", fingerprint_cc("NVIDIA A100-PCIE-40GB", 8, 0, "hash-90"), key, id.d, ok(1));
  record(tmp.path() / "t4.json", fingerprint_cc("Tesla T4", 7, 5, "hash-80"), key, id.d, ok(3));
  record(tmp.path() / "unknown.json", fingerprint_cc("Imported GPU", 0, 0, "hash-80"), key, id.d, ok(3));
  const std::set<std::string> all{id.a, id.b, id.c, id.d};
  const ktune::BakePlan plan = ktune::plan_bake_archs(m, fleet_archs(all, all), {tmp.path()});
  ASSERT_EQ(plan.tables.size(), 3u) << joined(plan.warnings);
  EXPECT_EQ(table_of(plan, "NVIDIA H200")->arch, "90");
  EXPECT_EQ(table_of(plan, "NVIDIA A100-SXM4-80GB")->arch, "80");
  EXPECT_EQ(table_of(plan, "NVIDIA A10")->arch, "80");  // sm_86 runs sm_80 cubins
  EXPECT_EQ(table_of(plan, "NVIDIA A100-PCIE-40GB"), nullptr);
  const std::string w = joined(plan.warnings);
  EXPECT_TRUE(contains(w, "Tesla T4 (" + (tmp.path() / "t4.json").string() +
                              ") is sm_75, which none of the "
                              "architectures this build lists (80, 90) runs cubins for: no GPU could choose its table"))
      << w;
  EXPECT_TRUE(
      contains(w, "Imported GPU (" + (tmp.path() / "unknown.json").string() + ") records compute capability 0.0"))
      << w;
  EXPECT_TRUE(contains(w, "1 fingerprint(s) of an earlier version")) << w;

  // A winner whose sm_80 cubin did not compile gives way to the next best of that table.
  record(tmp.path() / "a100.json", fingerprint_cc("NVIDIA A100-SXM4-80GB", 8, 0, "hash-80"), key, id.d, ok(1.2));
  const ktune::BakePlan without = ktune::plan_bake_archs(m, fleet_archs({id.a, id.b, id.d}, all), {tmp.path()});
  EXPECT_EQ(table_of(without, "NVIDIA A100-SXM4-80GB")->entries.at(0).config_id, id.d);
  EXPECT_EQ(table_of(without, "NVIDIA H200")->entries.at(0).config_id, id.b);
}

TEST(BakeEmit, EachConfigCarriesTheCubinsOfItsTablesArchitectures) {
  TempDir tmp;
  ktune::Manifest m = fleet_manifest();
  m.compile.ptx_arch = "90";
  const Ids id = ids(m);
  const std::string key = key_text(1024, 1024, 1024);
  record(tmp.path() / "dbs" / "h200.json", fingerprint_cc("NVIDIA H200", 9, 0, "hash-90"), key, id.b, ok(0.5));
  record(tmp.path() / "dbs" / "a100.json", fingerprint_cc("NVIDIA A100-SXM4-80GB", 8, 0, "hash-80"), key, id.c,
         ok(0.9));
  const std::set<std::string> all{id.a, id.b, id.c, id.d};
  const ktune::BakePlan plan = ktune::plan_bake_archs(m, fleet_archs(all, all), {tmp.path() / "dbs"});
  ASSERT_EQ(plan.tables.size(), 2u);
  const fs::path kernel = tmp.path() / "kernel";
  for (const auto& i : {id.a, id.b, id.c})
    write(kernel / "cubins" / (i + ".cubin"), cubin_bytes("9:" + i.substr(0, 12)));
  for (const auto& i : {id.a, id.c})
    write(kernel / "sm_80" / "cubins" / (i + ".cubin"), cubin_bytes("8:" + i.substr(0, 12)));
  const ktune::BakeSources out = ktune::emit_bake(plan, m, kernel / "cubins", ".version 9.0\n");
  // The DEFAULT for both, the H200's winner for sm_90 only, the A100's for sm_80 only.
  EXPECT_TRUE(contains(out.source, "const ktune::BakedArch cubin_archs[] = {{8, 0, false}, {9, 0, false}};"));
  auto cubins_of = [&](const std::string& config) {
    const std::size_t at = out.source.find("{\"" + config + "\", {values_");
    const std::size_t index = std::stoul(out.source.substr(out.source.find("cubins_", at) + 7));
    const std::string name = "cubins_" + std::to_string(index) + "[] = {";
    const std::size_t from = out.source.find(name);
    return out.source.substr(from, out.source.find("};", from) - from);
  };
  EXPECT_TRUE(contains(cubins_of(id.a), "{8, 0, false}") && contains(cubins_of(id.a), "{9, 0, false}"))
      << cubins_of(id.a);
  EXPECT_FALSE(contains(cubins_of(id.b), "{8, 0, false}")) << cubins_of(id.b);
  EXPECT_TRUE(contains(cubins_of(id.b), "{9, 0, false}")) << cubins_of(id.b);
  EXPECT_TRUE(contains(cubins_of(id.c), "{8, 0, false}")) << cubins_of(id.c);
  EXPECT_FALSE(contains(cubins_of(id.c), "{9, 0, false}")) << cubins_of(id.c);
  EXPECT_TRUE(contains(out.source, array_text(cubin_bytes("8:" + id.c.substr(0, 12)))));
  EXPECT_FALSE(contains(out.source, array_text(cubin_bytes("9:" + id.c.substr(0, 12)))));
  EXPECT_EQ(out.sizes.at("80").cubins, 2u);
  EXPECT_EQ(out.sizes.at("90").cubins, 2u);
  EXPECT_TRUE(contains(out.size_line(), "sm_80: 2 cubins, 1 KiB; sm_90: 2 cubins, 1 KiB; PTX 1 KiB"))
      << out.size_line();
  // A missing sm_80 cubin is named with its path.
  fs::remove(kernel / "sm_80" / "cubins" / (id.c + ".cubin"));
  EXPECT_TRUE(
      contains(emit_error(plan, m, kernel / "cubins"), (kernel / "sm_80" / "cubins" / (id.c + ".cubin")).string()));
}

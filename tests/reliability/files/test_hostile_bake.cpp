// `ktune bake` from a hostile DB and a manifest whose free-text fields are hostile: the
// generated C++ compiles with the host compiler (warnings as errors) and every hostile
// byte is inside a string literal, escaped; none is code.
#include <gtest/gtest.h>

#include <cstdlib>

#include "checks.hpp"
#include "fault_matrix.hpp"
#include "kernel_dir.hpp"
#include "ktune/emit_bake.hpp"
#include "ktune/db.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::read;
using test_support::TempDir;
using test_support::write;

// Every kind of text a C++ literal or comment must not hold raw. Valid UTF-8: a DB is JSON.
const std::string kHostile =
    "\"); system(\"rm -rf / PWNED\"); // */ /* ?\?/ ?\?= \\\" \\\n#define PWNED 1\r\t\x01 \xc3\xa9";

std::string quoted(const fs::path& p) {
  std::string s = "'";
  for (char c : p.string()) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return s + "'";
}

// "" when the host compiler and cuda.h are here, else why the compile check cannot run.
std::string compile_check(const fs::path& bake_dir, std::string& errors) {
  const fs::path cuda = "/usr/local/cuda/include";
  if (!fs::exists(cuda / "cuda.h")) return "no cuda.h in " + cuda.string();
  if (std::system("command -v c++ > /dev/null 2>&1") != 0) return "no host compiler `c++` on PATH";
  const fs::path tuner_include = fs::path(KTUNE_SOURCE_DIR) / "tuner" / "include";
  const fs::path log = bake_dir / "compile.log";
  const std::string command = "c++ -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I" + quoted(bake_dir / "include") +
                              " -isystem " + quoted(tuner_include) + " -isystem " + quoted(cuda) + " " +
                              quoted(bake_dir / "ktune_k_baked.cpp") + " > " + quoted(log) + " 2>&1";
  if (std::system(command.c_str()) != 0) errors = command + "\n" + read(log);
  return "";
}

TEST(HostileBake, HostileDbAndManifestTextStaysInsideLiterals) {
  KernelDir k;
  // The manifest: hostile text wherever the format allows any string. (Not in constraints:
  // the readers enumerate the space from them, so one that does not parse is refused.)
  json doc = k.manifest_doc();
  doc["compile"]["nvcc"] = "/usr/local/cuda/bin/nvcc" + kHostile;
  doc["compile"]["flags"].push_back(kHostile);
  doc["compile"]["include_dirs"].push_back(kHostile);
  write(k.manifest(), text_of(doc));
  const std::string hash = kernel_hash(k.manifest().string());

  // The DB, in a directory whose name is hostile too: a GPU named with every bad byte, keys
  // and config ids that are not keys or ids, extreme keys and times.
  const fs::path dbs = k.root() / ("dbs" + kHostile.substr(0, 60));
  Fingerprint fp;
  fp.kernel_hash = hash;
  fp.nvcc_version = kHostile;
  fp.gpu = {.name = "NVIDIA H200 " + kHostile,
            .cc_major = 9,
            .cc_minor = 0,
            .sm_count = 132,
            .driver_version = 13000,
            .l2_bytes = 1};
  auto ok = [](double ms) {
    Measurement m;
    m.samples_ms = {ms};
    m.median_ms = ms;
    m.message = kHostile;
    return m;
  };
  // Entries carry their config's values (a reader drops one whose id is not theirs); hostile
  // text goes into value names (a config no space has), and into ids written by hand.
  const Manifest m = Manifest::from_json(doc, k.manifest().string());
  auto values_of = [&](const std::string& id) {
    const ManifestConfig c = m.configs[*m.configs.find_id(id)];
    return json{{"TM", c.values[0]}, {"TN", c.values[1]}};
  };
  const json hostile_values = {{"TM" + kHostile, 1}};
  const fs::path db = dbs / "NVIDIA_H200.json";
  Db(db, "k").record_many({
      {fp, "M=1,N=2", k.default_id(), values_of(k.default_id()), ok(1e-300)},
      {fp, "M=-9223372036854775808,N=9223372036854775807", k.other_id(), values_of(k.other_id()), ok(1e300)},
      {fp, "M=3\"); system(\"PWNED\"); //,N=4", k.default_id(), values_of(k.default_id()), ok(0.001)},
      {fp, "M=5,N=6\n#define PWNED", k.default_id(), values_of(k.default_id()), ok(0.001)},
      {fp, "M=1,N=2", config_id_of(hostile_values), hostile_values, ok(1e-301)},
  });
  json file = json::parse(read(db));
  json& configs = file["fingerprints"][fp.digest()]["keys"]["M=1,N=2"];
  for (const std::string& id : {kHostile, std::string("../../../etc/passwd")})
    configs[id] = {{"values", values_of(k.default_id())}, {"measurement", ok(1e-302).to_json()}};
  write(db, file.dump());
  const fs::path ptx = k.root() / "default.ptx";
  write(ptx, "// PTX " + kHostile + std::string("\0\xff", 2));

  const ToolRun bake = k.ktune({"bake", "--manifest", k.manifest().string(), "--out-dir", k.bake_dir().string(),
                                "--db-dir", dbs.string(), "--ptx", ptx.string()});
  ASSERT_EQ(bake.exit_code, 0) << bake.err;
  EXPECT_NE(bake.out.find("baked NVIDIA H200"), std::string::npos) << bake.out;
  EXPECT_NE(bake.out.find("key(s) whose dimensions are not the kernel's KEYS"), std::string::npos) << bake.out;

  const std::string source = read(k.generated());
  const std::string header = read(k.bake_dir() / "include" / "ktune_k.hpp");
  EXPECT_EQ(injection_problem(source), "");
  EXPECT_EQ(injection_problem(header), "");
  EXPECT_EQ(header.find("PWNED"), std::string::npos);
  // The GPU's name comes back whole from its literal, and the extreme key as a literal the
  // compiler takes without a warning.
  EXPECT_NE(source.find(cpp_string_literal(fp.gpu.name)), std::string::npos);
  EXPECT_NE(source.find("(-9223372036854775807LL - 1), 9223372036854775807LL"), std::string::npos);

  std::string errors;
  const std::string missing = compile_check(k.bake_dir(), errors);
  if (!missing.empty()) GTEST_SKIP() << missing;
  EXPECT_EQ(errors, "") << source;
}

// A manifest whose names would be code is refused before anything is written.
TEST(HostileBake, ManifestNamesThatWouldBeCodeAreRefused) {
  KernelDir k;
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, std::string>>{{"/kernel", "k\"); system(\"PWNED"},
                                                        {"/entry", "k_entry() {} void PWNED"},
                                                        {"/parameters/0/name", "TM; int PWNED"},
                                                        {"/default_id", "\"}; PWNED"},
                                                        {"/keys/0", ""}}) {
    SCOPED_TRACE(field);
    json doc = k.manifest_doc();
    if (field == "/keys/0")
      doc["keys"][0] = {{"M; int PWNED", 1}, {"N", 2}};
    else
      doc[json::json_pointer(field)] = value;
    write(k.manifest(), text_of(doc));
    expect_refusal(k.bake(), k.manifest().string());
    EXPECT_FALSE(fs::exists(k.generated()));
  }
}

}  // namespace
}  // namespace ktune::file_faults

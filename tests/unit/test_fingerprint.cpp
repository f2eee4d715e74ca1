#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/config_id.hpp"
#include "ktune/fingerprint.hpp"
#include "ktune/manifest.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using TempDir = ktune::test_support::TempDir;
using ktune::test_support::write;

ktune::Fingerprint h200() {
  ktune::Fingerprint fp;
  fp.kernel_hash = "0123456789abcdef";
  fp.nvcc_version = "13.0.88";
  fp.gpu = {.name = "NVIDIA H200",
            .cc_major = 9,
            .cc_minor = 0,
            .sm_count = 132,
            .driver_version = 13000,
            .l2_bytes = 62914560};
  return fp;
}

// A kernel directory as configure and the build leave it: manifest.json, the source, a
// header and the depfiles of the configs built so far.
class KernelDir {
 public:
  KernelDir() {
    source = tmp.path() / "src" / "tiny.cu";
    header = tmp.path() / "src" / "tiny.cuh";
    spaced = tmp.path() / "inc dir" / "spaced.cuh";
    write(source, "#include \"tiny.cuh\"\n__global__ void tiny() {}\n");
    write(header, "#define TINY 1\n");
    write(spaced, "#define SPACED 1\n");
    manifest.kernel = "tiny";
    manifest.source = source.string();
    manifest.compile = {"/usr/local/cuda/bin/nvcc", "90", {"-O3"}, {(tmp.path() / "inc dir").string()}};
    manifest.spec.parameters = {{"TM", {32, 64}}, {"TN", {32, 64}}};
    manifest.spec.constraints = {"TM * TN <= 2048"};
    manifest.spec.default_config = {{"TM", 32}, {"TN", 32}};
    manifest.product = 4;
    save();
  }
  // The manifest as a plan writes it: its DEFAULT's id and its configs from its space.
  void save() const {
    ktune::Manifest m = manifest;
    m.default_id = default_id();
    m.enumerate_configs();
    ktune::write_file_if_changed(dir() / "manifest.json", m.to_json().dump(1));
  }
  fs::path dir() const { return tmp.path() / "build"; }
  // The DEFAULT's id: the config whose depfile the hash reads.
  std::string default_id() const {
    std::vector<std::string> names;
    std::vector<int64_t> values;
    for (const auto& [name, value] : manifest.spec.default_config) {
      names.push_back(name);
      values.push_back(value);
    }
    return ktune::config_id(names, values);
  }
  std::string manifest_path() const { return (dir() / "manifest.json").string(); }
  std::string hash() const { return ktune::kernel_hash(manifest_path()); }
  // nvcc -MD -MT <record>: the target first, then the source and its headers.
  void write_depfile(const std::string& id, const std::vector<fs::path>& deps) const {
    std::string text = (dir() / "records" / (id + ".json")).string() + ":";
    for (const auto& d : deps) {
      text += " \\\n  ";
      for (char c : d.string()) text += c == ' ' ? std::string("\\ ") : std::string(1, c);
    }
    write(dir() / "deps" / (id + ".d"), text + "\n");
  }

  TempDir tmp;
  fs::path source, header, spaced;
  ktune::Manifest manifest;
};

}  // namespace

TEST(GpuIdentity, JsonRoundTrip) {
  const ktune::GpuIdentity g = h200().gpu;
  const json j = g.to_json();
  EXPECT_EQ(j["name"], "NVIDIA H200");
  EXPECT_EQ(j["cc_major"], 9);
  EXPECT_EQ(j["cc_minor"], 0);
  auto back = ktune::GpuIdentity::from_json(json::parse(j.dump()));
  EXPECT_EQ(back.to_json(), j);
  EXPECT_EQ(back.l2_bytes, 62914560u);
}

TEST(GpuIdentity, RejectsMalformedInputNamingTheField) {
  const json good = h200().gpu.to_json();
  const std::pair<const char*, json> cases[] = {{"name", 7},       {"cc_major", "9"},         {"cc_minor", -1},
                                                {"sm_count", 1.5}, {"driver_version", 1e300}, {"l2_bytes", -5}};
  for (const auto& [field, value] : cases) {
    json bad = good;
    bad[field] = value;
    try {
      ktune::GpuIdentity::from_json(bad);
      ADD_FAILURE() << field << " = " << value.dump() << " was accepted";
    } catch (const ktune::Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
    bad.erase(field);
    EXPECT_THROW(ktune::GpuIdentity::from_json(bad), ktune::Error) << field;
  }
  EXPECT_THROW(ktune::GpuIdentity::from_json(json::array()), ktune::Error);
}

TEST(GpuIdentity, ModelSlugIsFileNameSafe) {
  ktune::GpuIdentity g;
  g.name = "NVIDIA H200";
  EXPECT_EQ(g.model_slug(), "NVIDIA_H200");
  g.name = "  NVIDIA GeForce RTX 4090 (PCIe)/x ";
  EXPECT_EQ(g.model_slug(), "NVIDIA_GeForce_RTX_4090_PCIe_x");
  g.name = "A100-SXM4-80GB";
  EXPECT_EQ(g.model_slug(), "A100_SXM4_80GB");
  g.name = "Ünïcode GPU";
  EXPECT_EQ(g.model_slug(), "n_code_GPU");
  g.name = "";
  EXPECT_EQ(g.model_slug(), "unknown_gpu");
}

TEST(Fingerprint, JsonRoundTrip) {
  const ktune::Fingerprint fp = h200();
  auto back = ktune::Fingerprint::from_json(json::parse(fp.to_json().dump()));
  EXPECT_EQ(back.to_json(), fp.to_json());
  EXPECT_EQ(back.digest(), fp.digest());
  json bad = fp.to_json();
  bad.erase("nvcc_version");
  EXPECT_THROW(ktune::Fingerprint::from_json(bad), ktune::Error);
  bad = fp.to_json();
  bad["gpu"] = "H200";
  EXPECT_THROW(ktune::Fingerprint::from_json(bad), ktune::Error);
}

TEST(Fingerprint, DigestIsStableHex) {
  const std::string d = h200().digest();
  EXPECT_EQ(d.size(), 16u);
  EXPECT_EQ(d.find_first_not_of("0123456789abcdef"), std::string::npos);
  // Pinned: a change here re-measures every DB in the world; bump the canonical form's
  // version tag on purpose, never by accident.
  EXPECT_EQ(d, "125619e68accf337");
}

TEST(Fingerprint, DigestChangesWithEachFieldButNotL2) {
  const ktune::Fingerprint base = h200();
  const std::string d = base.digest();
  auto differs = [&](auto change) {
    ktune::Fingerprint fp = base;
    change(fp);
    return fp.digest() != d;
  };
  EXPECT_TRUE(differs([](auto& fp) { fp.kernel_hash = "fedcba9876543210"; }));
  EXPECT_TRUE(differs([](auto& fp) { fp.nvcc_version = "13.0.89"; }));
  EXPECT_TRUE(differs([](auto& fp) { fp.gpu.name = "NVIDIA H100"; }));
  EXPECT_TRUE(differs([](auto& fp) { fp.gpu.cc_major = 10; }));
  EXPECT_TRUE(differs([](auto& fp) { fp.gpu.cc_minor = 1; }));
  EXPECT_TRUE(differs([](auto& fp) { fp.gpu.sm_count = 114; }));
  EXPECT_TRUE(differs([](auto& fp) { fp.gpu.driver_version = 12080; }));
  EXPECT_FALSE(differs([](auto& fp) { fp.gpu.l2_bytes = 1; }));
  // Field boundaries matter: moving a character from one field to the next is a change.
  EXPECT_TRUE(differs([](auto& fp) {
    fp.kernel_hash = "0123456789abcdef1";
    fp.nvcc_version = "3.0.88";
  }));
}

TEST(KernelHash, StableAndChangesWithSource) {
  KernelDir k;
  k.write_depfile(k.default_id(), {k.source, k.header});
  const std::string h = k.hash();
  EXPECT_EQ(h.size(), 16u);
  EXPECT_EQ(k.hash(), h);
  write(k.source, "#include \"tiny.cuh\"\n__global__ void tiny() { }\n");
  EXPECT_NE(k.hash(), h);
}

TEST(KernelHash, ChangesWithAHeaderTheDefaultsDepfileLists) {
  KernelDir k;
  k.write_depfile(k.default_id(), {k.source, k.header, k.spaced});
  const std::string h = k.hash();
  write(k.header, "#define TINY 2\n");
  const std::string after_header = k.hash();
  EXPECT_NE(after_header, h);
  write(k.spaced, "#define SPACED 2\n");  // a path with an escaped space
  EXPECT_NE(k.hash(), after_header);
}

// The tuner compiles configs on demand while it measures and writes each result under the
// hash it computed at its start; the bake computes it again afterwards. Other configs'
// depfiles, a failed compile's stand-in listing every file of the source directory among
// them, must not move it, or the bake would take the fresh DB for an older kernel's.
TEST(KernelHash, OtherConfigsDepfilesDoNotMoveIt) {
  KernelDir k;
  k.write_depfile(k.default_id(), {k.source, k.header});
  const std::string h = k.hash();
  k.write_depfile("c1", {k.source, k.spaced});
  k.write_depfile("failed", {k.source, k.header, k.spaced, k.tmp.path() / "src" / "harness.cpp"});
  EXPECT_EQ(k.hash(), h);
}

TEST(KernelHash, IgnoresUnlistedFilesAndTheTarget) {
  KernelDir k;
  k.write_depfile(k.default_id(), {k.source, k.header});
  write(k.dir() / "records" / (k.default_id() + ".json"), "{}");
  const std::string h = k.hash();
  write(k.tmp.path() / "src" / "unrelated.cuh", "#define X 1\n");
  write(k.dir() / "records" / (k.default_id() + ".json"), "{\"status\": \"ok\"}");
  write(k.dir() / "deps" / "notes.txt", "not a depfile: " + k.spaced.string() + "\n");
  EXPECT_EQ(k.hash(), h);
}

TEST(KernelHash, ChangesWithSettingsAndParameters) {
  KernelDir k;
  k.write_depfile(k.default_id(), {k.source, k.header});
  std::set<std::string> seen = {k.hash()};
  // Each edit must give a hash not seen before.
  auto fresh = [&](auto edit) {
    edit(k.manifest);
    k.save();
    return seen.insert(k.hash()).second;
  };
  EXPECT_TRUE(fresh([](auto& m) { m.compile.flags.push_back("-lineinfo"); }));
  EXPECT_TRUE(fresh([](auto& m) { m.compile.flags = {"-O2", "-lineinfo"}; }));
  EXPECT_TRUE(fresh([](auto& m) { m.compile.arch = "90a"; }));
  // Where the toolkit and the includes live is not an input (their contents are).
  EXPECT_FALSE(fresh([](auto& m) { m.compile.nvcc = "/opt/cuda/bin/nvcc"; }));
  EXPECT_FALSE(fresh([](auto& m) { m.compile.include_dirs.push_back("/opt/include"); }));
  EXPECT_TRUE(fresh([](auto& m) { m.spec.parameters[1].values.push_back(128); }));
  EXPECT_TRUE(fresh([](auto& m) {
    m.spec.parameters[0].name = "TX";
    m.spec.default_config[0].first = "TX";
    m.spec.constraints = {"TX * TN <= 2048"};
  }));
  EXPECT_TRUE(fresh([](auto& m) { m.spec.constraints = {"TX * TN <= 4096"}; }));
}

// A DB tuned in one checkout must match another: paths are no input, contents are.
TEST(KernelHash, SameInAnotherCheckout) {
  KernelDir a, b;
  a.write_depfile(a.default_id(), {a.source, a.header});
  b.write_depfile(b.default_id(), {b.source, b.header});
  EXPECT_EQ(a.hash(), b.hash());
  write(b.header, "#define TINY 2\n");
  EXPECT_NE(a.hash(), b.hash());
}

// Toolkit and system headers are covered by the nvcc version, not hashed.
TEST(KernelHash, ToolkitHeadersAreLeftOut) {
  KernelDir k;
  const fs::path toolkit_header = k.tmp.path() / "cuda" / "include" / "cuda_fp16.h";
  write(toolkit_header, "// toolkit\n");
  k.manifest.compile.nvcc = (k.tmp.path() / "cuda" / "bin" / "nvcc").string();
  k.save();
  k.write_depfile(k.default_id(), {k.source, k.header, toolkit_header});
  const std::string h = k.hash();
  write(toolkit_header, "// another toolkit build\n");
  EXPECT_EQ(k.hash(), h);
}

TEST(KernelHash, WithoutDepfilesHashesSourceAndSettings) {
  KernelDir k;
  const std::string before_build = k.hash();  // no deps/ directory at all
  write(k.header, "#define TINY 3\n");
  EXPECT_EQ(k.hash(), before_build);  // nothing says the header is used yet
  write(k.source, "// edited\n");
  const std::string edited = k.hash();
  EXPECT_NE(edited, before_build);
  k.write_depfile(k.default_id(), {k.source, k.header});
  EXPECT_NE(k.hash(), edited);
}

TEST(KernelHash, SkipsVanishedHeadersButNotAMissingSource) {
  KernelDir k;
  k.write_depfile(k.default_id(), {k.source, k.header, k.tmp.path() / "gone.cuh"});
  const std::string h = k.hash();
  EXPECT_EQ(k.hash(), h);
  fs::remove(k.source);
  try {
    k.hash();
    ADD_FAILURE() << "a missing source was hashed";
  } catch (const ktune::Error& e) {
    EXPECT_NE(std::string(e.what()).find(k.source.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(ktune::kernel_hash((k.tmp.path() / "nope.json").string()), ktune::Error);
}

// Its time is printed, not asserted: speed is for benchmarks on a known machine (a sanitizer
// build takes several times as long).
TEST(KernelHash, ThousandsOfDepfilesAreEqualToOne) {
  KernelDir k;
  std::vector<fs::path> headers = {k.source, k.header, k.spaced};
  for (int i = 0; i < 150; ++i) {
    fs::path h = k.tmp.path() / "many" / ("h" + std::to_string(i) + ".cuh");
    write(h, std::string(20000, char('a' + i % 26)));
    headers.push_back(h);
  }
  k.write_depfile(k.default_id(), headers);
  const std::string one = k.hash();
  for (int i = 1; i < 3000; ++i) k.write_depfile("c" + std::to_string(i), headers);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(k.hash(), one);  // the DEFAULT's depfile is the one read
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("kernel_hash beside 3000 depfiles of %zu headers: %.3f s\n", headers.size(), seconds);
  EXPECT_EQ(ktune::compiled_inputs(k.dir()).size(), headers.size());  // the build's inputs: a union
}

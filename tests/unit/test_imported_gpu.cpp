// The identity of the GPU that measured imported results: options over metadata over the
// known-GPU table (ImportedGpu, ktune/known_gpus.hpp), and `ktune import` recording it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "error_of.hpp"
#include "ktune/error.hpp"
#include "ktune/interop.hpp"
#include "ktune/known_gpus.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using ktune::GpuFactSource;
using ktune::ImportedGpu;
using ktune::test_support::error_of;
using nlohmann::json;
using nlohmann::ordered_json;
using TempDir = ktune::test_support::TempDir;

// Two results: one timed, one failed.
ordered_json gpu_test_results() {
  return ordered_json::parse(R"({"schema_version": "1.0.0", "results": [
    {"configuration": {"A": 1}, "times": {"runtimes": [1.0, 1.2]}, "invalidity": "correct", "correctness": 1},
    {"configuration": {"A": 2}, "times": {}, "invalidity": "runtime", "correctness": 0}]})");
}

// T4 metadata as Kernel Tuner's store_metadata_file writes it, nvidia-smi's part trimmed.
ordered_json kernel_tuner_metadata(const ordered_json& gpus) {
  ordered_json doc = ordered_json::parse(R"({"schema_version": "1.0.0", "metadata": {
    "hardware": {"lshw": []},
    "environment": {"device_query": {"nvidia-smi": {"nvidia_smi_log": {"driver_version": "550.54"}}},
                    "requirements": ["numpy==1.26.4"]}}})");
  doc["metadata"]["environment"]["device_query"]["nvidia-smi"]["nvidia_smi_log"]["gpu"] = gpus;
  return doc;
}

ordered_json smi_gpu(const std::string& name, const std::string& total = "40960 MiB") {
  return {{"product_name", name}, {"fb_memory_usage", {{"total", total}, {"used", "1 MiB"}}}};
}

// Options, then the document's metadata, then the table: what `ktune import` does.
ImportedGpu gather(const ordered_json& doc, const ktune::GpuIdentity& given = {}) {
  ImportedGpu gpu = ktune::imported_gpu_from_options(given);
  ktune::fill_from_t4_metadata(gpu, doc, "t4.json");
  ktune::fill_from_known_gpus(gpu);
  return gpu;
}

TEST(KnownGpus, NamesMatchWholeWordsTheLongestEntryFirst) {
  struct Case {
    const char* name;
    int major, minor, sms;
  };
  const std::vector<Case> cases = {
      {"NVIDIA A100-SXM4-80GB", 8, 0, 108},
      {"NVIDIA A100-PCIE-40GB", 8, 0, 108},
      {"NVIDIA H100 80GB HBM3", 9, 0, 132},
      {"NVIDIA H100 PCIe", 9, 0, 114},
      {"NVIDIA H100 NVL", 9, 0, 132},
      {"NVIDIA H200", 9, 0, 132},
      {"NVIDIA GH200 480GB", 9, 0, 132},
      {"NVIDIA L4", 8, 9, 58},
      {"NVIDIA L40S", 8, 9, 142},
      {"NVIDIA A10", 8, 6, 72},
      {"Tesla T4", 7, 5, 40},
      {"tesla v100-sxm2-16gb", 7, 0, 80},
      {"NVIDIA RTX A6000", 8, 6, 84},
      {"NVIDIA RTX A4000", 8, 6, 48},
      {"NVIDIA RTX 6000 Ada Generation", 8, 9, 142},
      {"NVIDIA B200", 10, 0, 148},
  };
  for (const Case& c : cases) {
    const auto g = ktune::find_known_gpu(c.name);
    ASSERT_TRUE(g) << c.name;
    EXPECT_EQ(g->cc_major, c.major) << c.name;
    EXPECT_EQ(g->cc_minor, c.minor) << c.name;
    EXPECT_EQ(g->sm_count, c.sms) << c.name;
  }
  // A part of a word is not the word: A10G is not an A10, an RTX 6000 (Turing) not an Ada.
  for (const char* other : {"NVIDIA A10G", "Quadro RTX 6000", "NVIDIA GeForce RTX 4090", "NVIDIA H20", "", "A"})
    EXPECT_FALSE(ktune::find_known_gpu(other)) << other;
  // A MIG instance runs on a slice of the SMs.
  const auto mig = ktune::find_known_gpu("NVIDIA A100-SXM4-40GB MIG 1g.5gb");
  ASSERT_TRUE(mig);
  EXPECT_EQ(mig->cc_major, 8);
  EXPECT_EQ(mig->sm_count, 0);
}

TEST(KnownGpus, EveryEntryIsWholeAndFindsItself) {
  ASSERT_GE(ktune::known_gpus().size(), 10u);
  for (const ktune::KnownGpu& g : ktune::known_gpus()) {
    EXPECT_GE(g.cc_major, 7) << g.words;
    EXPECT_LE(g.cc_minor, 9) << g.words;
    EXPECT_GT(g.sm_count, 0) << g.words;
    const auto found = ktune::find_known_gpu(std::string("NVIDIA ") + g.words);
    ASSERT_TRUE(found) << g.words;
    EXPECT_STREQ(found->words, g.words);
  }
}

TEST(ImportedGpu, FromKernelTunerMetadata) {
  ordered_json doc =
      kernel_tuner_metadata(ordered_json::array({smi_gpu("NVIDIA A100-PCIE-40GB"), smi_gpu("NVIDIA A100-PCIE-40GB")}));
  ImportedGpu g = gather(doc);
  EXPECT_EQ(g.gpu.name, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(g.gpu.memory_bytes, 40960ull << 20);
  EXPECT_EQ(g.name, GpuFactSource::Metadata);
  EXPECT_EQ(g.memory, GpuFactSource::Metadata);
  // nvidia-smi has no compute capability: the table gives it, by the name.
  EXPECT_EQ(g.gpu.cc_major, 8);
  EXPECT_EQ(g.gpu.cc_minor, 0);
  EXPECT_EQ(g.gpu.sm_count, 108);
  EXPECT_EQ(g.compute_capability, GpuFactSource::KnownGpus);
  EXPECT_EQ(g.sm_count, GpuFactSource::KnownGpus);

  // One GPU as an object, not a list.
  g = gather(kernel_tuner_metadata(smi_gpu("NVIDIA H200", "143771 MiB")));
  EXPECT_EQ(g.gpu.name, "NVIDIA H200");
  EXPECT_EQ(g.gpu.memory_bytes, 143771ull << 20);

  // Two models on the machine: which one measured is not written, so neither is taken.
  g = gather(kernel_tuner_metadata(ordered_json::array({smi_gpu("NVIDIA A100-PCIE-40GB"), smi_gpu("NVIDIA L4")})));
  EXPECT_EQ(g.name, GpuFactSource::Unknown);
  EXPECT_EQ(g.compute_capability, GpuFactSource::Unknown);
  EXPECT_EQ(g.gpu.memory_bytes, 0u);
}

TEST(ImportedGpu, FromKernelTunerEnvironmentInEveryPlaceAndForm) {
  for (const char* place : {"", "environment", "metadata", "metadata.environment"}) {
    for (const char* cc : {R"("86")", R"("8.6")", "86", "8.6", "[8, 6]"}) {
      const ordered_json env = {{"device_name", "NVIDIA RTX Foo"},
                                {"compute_capability", ordered_json::parse(cc)},
                                {"device_properties", {{"multiProcessorCount", 46}, {"totalGlobalMem", 8589934592}}}};
      ordered_json doc = gpu_test_results();
      const std::string at = place;
      if (at.empty())
        doc.update(env);
      else if (at == "metadata.environment")
        doc["metadata"]["environment"] = env;
      else
        doc[at] = env;
      const ImportedGpu g = gather(doc);
      const std::string where = std::string(place) + " " + cc;
      EXPECT_EQ(g.gpu.name, "NVIDIA RTX Foo") << where;
      EXPECT_EQ(g.gpu.cc_major, 8) << where;
      EXPECT_EQ(g.gpu.cc_minor, 6) << where;
      EXPECT_EQ(g.gpu.sm_count, 46) << where;
      EXPECT_EQ(g.gpu.memory_bytes, 8589934592u) << where;
      for (GpuFactSource s : {g.name, g.compute_capability, g.sm_count, g.memory})
        EXPECT_EQ(s, GpuFactSource::Metadata) << where;
    }
  }
  // Compute capability 10.0 as Kernel Tuner writes it; pycuda's name for the SM count.
  const ordered_json doc = ordered_json::parse(
      R"({"environment": {"device_name": "NVIDIA B200", "compute_capability": "100",
                          "device_properties": {"MULTIPROCESSOR_COUNT": 148}}})");
  const ImportedGpu g = gather(doc);
  EXPECT_EQ(g.gpu.cc_major, 10);
  EXPECT_EQ(g.gpu.cc_minor, 0);
  EXPECT_EQ(g.gpu.sm_count, 148);
  EXPECT_EQ(g.sm_count, GpuFactSource::Metadata);
}

TEST(ImportedGpu, OptionsOverrideMetadata) {
  const ordered_json doc = ordered_json::parse(
      R"({"device_name": "NVIDIA RTX Foo", "compute_capability": "86",
          "device_properties": {"multiProcessorCount": 46, "totalGlobalMem": 8589934592}})");
  ktune::GpuIdentity given;
  given.name = "NVIDIA L4";
  given.cc_major = 8;
  given.cc_minor = 9;
  given.sm_count = 60;
  given.memory_bytes = 24ull << 30;
  const ImportedGpu g = gather(doc, given);
  EXPECT_EQ(g.gpu.name, "NVIDIA L4");
  EXPECT_EQ(g.gpu.cc_major, 8);
  EXPECT_EQ(g.gpu.cc_minor, 9);
  EXPECT_EQ(g.gpu.sm_count, 60);
  EXPECT_EQ(g.gpu.memory_bytes, 24ull << 30);
  for (GpuFactSource s : {g.name, g.compute_capability, g.sm_count, g.memory}) EXPECT_EQ(s, GpuFactSource::Option);

  // A fact not given comes from the metadata; one given is not even read.
  ktune::GpuIdentity cc_only;
  cc_only.cc_major = 8;
  cc_only.cc_minor = 9;
  ordered_json bad = doc;
  bad["compute_capability"] = "not one";
  const ImportedGpu h = gather(bad, cc_only);
  EXPECT_EQ(h.gpu.name, "NVIDIA RTX Foo");
  EXPECT_EQ(h.name, GpuFactSource::Metadata);
  EXPECT_EQ(h.compute_capability, GpuFactSource::Option);
  EXPECT_EQ(h.gpu.sm_count, 46);
}

TEST(ImportedGpu, TableFillsOnlyWhatIsUnknownAndOnlyWhenItAgrees) {
  ktune::GpuIdentity given;
  given.name = "NVIDIA H100 PCIe";
  ImportedGpu g = gather(gpu_test_results(), given);
  EXPECT_EQ(g.gpu.cc_major, 9);
  EXPECT_EQ(g.gpu.sm_count, 114);
  EXPECT_EQ(g.compute_capability, GpuFactSource::KnownGpus);

  given.sm_count = 100;  // a given SM count stays
  g = gather(gpu_test_results(), given);
  EXPECT_EQ(g.gpu.sm_count, 100);
  EXPECT_EQ(g.sm_count, GpuFactSource::Option);

  // A compute capability other than the table's: the name is of another GPU, so nothing of
  // the table's is mixed in.
  given = {};
  given.name = "NVIDIA A100-SXM4-80GB";
  given.cc_major = 9;
  g = gather(gpu_test_results(), given);
  EXPECT_EQ(g.gpu.cc_major, 9);
  EXPECT_EQ(g.gpu.sm_count, 0);
  EXPECT_EQ(g.sm_count, GpuFactSource::Unknown);

  // An unknown name gives nothing: the compute capability stays unknown.
  given = {};
  given.name = "NVIDIA Foo";
  g = gather(gpu_test_results(), given);
  EXPECT_EQ(g.compute_capability, GpuFactSource::Unknown);
  EXPECT_EQ(g.gpu.cc_major, 0);
}

TEST(ImportedGpu, MalformedMetadataNamesTheFileAndField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"device_name": 5})", "t4.json: device_name = 5 is not a GPU's name"},
      {R"({"compute_capability": "abc"})", "t4.json: compute_capability = \"abc\" is not a compute capability"},
      {R"({"compute_capability": "9.0.1"})", "is not a compute capability"},
      {R"({"compute_capability": "9"})", "is not a compute capability"},
      {R"({"compute_capability": [9]})", "is not a compute capability"},
      {R"({"environment": {"compute_capability": "0.9"}})", "t4.json: environment.compute_capability = \"0.9\""},
      {R"({"device_properties": {"multiProcessorCount": 0}})",
       "device_properties.multiProcessorCount = 0 is not a whole number from 1 to 100000"},
      {R"({"device_properties": {"totalGlobalMem": -1}})", "device_properties.totalGlobalMem = -1"},
      {R"({"device_name": ")" + std::string(300, 'x') + R"("})", "is 300 bytes long"},
  };
  for (const auto& [text, want] : cases) {
    const std::string got = error_of([&] { gather(ordered_json::parse(text)); });
    EXPECT_NE(got.find(want), std::string::npos) << text << ": " << got;
  }
  const std::string smi = error_of([&] { gather(kernel_tuner_metadata(smi_gpu("NVIDIA H200", "lots"))); });
  EXPECT_NE(smi.find("t4.json: metadata.environment.device_query.nvidia-smi.nvidia_smi_log.gpu.fb_memory_usage.total"
                     " = \"lots\" is not a memory size like \"81559 MiB\""),
            std::string::npos)
      << smi;
}

TEST(ImportedGpu, DbRecordsNeedANameAndAComputeCapability) {
  ktune::T4Import who;
  who.kernel = "k";
  who.gpu.name = "NVIDIA Foo";
  EXPECT_NE(error_of([&] {
              ktune::t4_to_db_records(gpu_test_results(), who, "t4.json");
            }).find("t4.json: the compute capability of \"NVIDIA Foo\" is not known; give it (--cc 8.0)"),
            std::string::npos);
  who.gpu.cc_major = 8;
  who.gpu.sm_count = 58;
  who.gpu.memory_bytes = 24ull << 30;
  const auto records = ktune::t4_to_db_records(gpu_test_results(), who, "t4.json");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].fp.gpu.cc_major, 8);
  EXPECT_EQ(records[0].fp.gpu.memory_bytes, 24ull << 30);
}

// `ktune import` as a user runs it.
class ImportCli : public testing::Test {
 protected:
  struct Run {
    int exit_code = -1;
    std::string out, err;
  };

  Run ktune(const std::vector<std::string>& args) {
    std::string command = std::string(KTUNE_TOOL) + " import";
    for (const std::string& a : args) command += " '" + a + "'";
    const fs::path out = dir_.path() / "out.txt", err = dir_.path() / "err.txt";
    command += " > '" + out.string() + "' 2> '" + err.string() + "'";
    const int status = std::system(command.c_str());
    Run r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read(out);
    r.err = read(err);
    return r;
  }

  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string write(const std::string& name, const ordered_json& doc) {
    const fs::path p = dir_.path() / name;
    std::ofstream(p) << doc.dump();
    return p.string();
  }

  std::string into() const { return (dir_.path() / "db").string(); }

  // The GPU of the DB's only fingerprint.
  json recorded_gpu(const std::string& file) {
    const json doc = json::parse(read(dir_.path() / "db" / file));
    EXPECT_EQ(doc["fingerprints"].size(), 1u);
    return doc["fingerprints"].begin().value()["fingerprint"]["gpu"];
  }

  TempDir dir_{"ktune_import_cli"};
};

TEST_F(ImportCli, WithoutComputeCapabilityIsRefusedWithExitCode2) {
  const std::string t4 = write("t4.json", gpu_test_results());
  Run r = ktune({"--t4", t4, "--into", into(), "--kernel", "k", "--gpu", "NVIDIA Foo"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ktune: error: " + t4 +
                       ": the compute capability of \"NVIDIA Foo\" is not known (no metadata "
                       "gives it, and ktune's table of known GPUs does not have that name); give it as nvidia-smi "
                       "--query-gpu=compute_cap prints it: --cc 8.0\n");
  EXPECT_FALSE(fs::exists(into())) << "a refused import wrote a DB";

  r = ktune({"--t4", t4, "--into", into(), "--kernel", "k"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ktune: error: " + t4 +
                       ": no metadata names the GPU the results were measured on; give it: "
                       "--gpu \"NVIDIA H200\"\n");
  EXPECT_FALSE(fs::exists(into()));
}

TEST_F(ImportCli, MalformedOptionValuesAreRefusedWithExitCode2) {
  const std::string t4 = write("t4.json", gpu_test_results());
  const std::vector<std::vector<std::string>> bad = {
      {"--cc", "9"},
      {"--cc", "x.y"},
      {"--cc", "9.0.1"},
      {"--cc", "09.0"},
      {"--cc", "9."},
      {"--cc", ".9"},
      {"--cc", "9.10"},
      {"--sm-count", "0"},
      {"--sm-count", "-1"},
      {"--sm-count", "1.5"},
      {"--memory-gib", "0"},
      {"--memory-gib", "nan"},
      {"--memory-gib", "1e30"},
      {"--gpu", ""},
  };
  for (const auto& option : bad) {
    std::vector<std::string> args = {"--t4", t4, "--into", into(), "--kernel", "k", "--gpu", "NVIDIA H200"};
    args.insert(args.end(), option.begin(), option.end());
    const Run r = ktune(args);
    EXPECT_EQ(r.exit_code, 2) << option[0] << " " << option[1];
    EXPECT_EQ(r.err.rfind(option[0] + ": ", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(into())) << option[0] << " " << option[1];
  }
  const Run r = ktune({"--t4", t4, "--into", into(), "--kernel", "k", "--gpu", "NVIDIA Foo", "--cc", "9"});
  EXPECT_NE(r.err.find("--cc: \"9\" is not a compute capability MAJOR.MINOR; write e.g. 8.0 or 9.0"), std::string::npos)
      << r.err;
}

TEST_F(ImportCli, KnownGpuNameIsEnoughAndTheLineSaysSo) {
  const std::string t4 = write("t4.json", gpu_test_results());
  const Run r = ktune({"--t4", t4, "--into", into(), "--kernel", "k", "--gpu", "NVIDIA H200", "--key", "M=64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "imported 2 configs (1 timed, 1 failed) of k on NVIDIA H200 (compute capability 9.0, 132 SMs, "
            "memory not known; compute capability and SM count from ktune's table of known GPUs), key M=64 "
            "into " +
                into() + "/NVIDIA_H200.json\n");
  const json gpu = recorded_gpu("NVIDIA_H200.json");
  EXPECT_EQ(gpu["cc_major"], 9);
  EXPECT_EQ(gpu["cc_minor"], 0);
  EXPECT_EQ(gpu["sm_count"], 132);
  EXPECT_FALSE(gpu.contains("memory_bytes"));  // not known
}

TEST_F(ImportCli, WrittenFingerprintHasTheIdentityFromOptionsAndMetadata) {
  const std::string t4 = write("t4.json", gpu_test_results());
  const std::string meta = write("t4_metadata.json", kernel_tuner_metadata(smi_gpu("NVIDIA A100-PCIE-40GB")));
  Run r = ktune({"--t4", t4, "--t4-metadata", meta, "--into", into(), "--kernel", "k"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("on NVIDIA A100-PCIE-40GB (compute capability 8.0, 108 SMs, 40.0 GiB; name and memory from "
                       "the metadata; compute capability and SM count from ktune's table of known GPUs)"),
            std::string::npos)
      << r.out;
  json gpu = recorded_gpu("NVIDIA_A100_PCIE_40GB.json");
  EXPECT_EQ(gpu["cc_major"], 8);
  EXPECT_EQ(gpu["sm_count"], 108);
  EXPECT_EQ(gpu["memory_bytes"], 40960ull << 20);

  // Options over the metadata, with --json.
  fs::remove_all(into());
  r = ktune({"--t4", t4, "--t4-metadata", meta, "--into", into(), "--kernel", "k", "--cc", "8.6", "--sm-count", "46",
             "--memory-gib", "24", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["gpu"], "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(summary["gpu_identity"],
            json::parse(R"({"name": "NVIDIA A100-PCIE-40GB", "compute_capability": "8.6", "sm_count": 46,
                            "memory_bytes": 25769803776,
                            "from": {"name": "metadata", "compute_capability": "option", "sm_count": "option",
                                     "memory_bytes": "option"}})"));
  gpu = recorded_gpu("NVIDIA_A100_PCIE_40GB.json");
  EXPECT_EQ(gpu["cc_major"], 8);
  EXPECT_EQ(gpu["cc_minor"], 6);
  EXPECT_EQ(gpu["sm_count"], 46);
  EXPECT_EQ(gpu["memory_bytes"], 24ull << 30);
}

}  // namespace

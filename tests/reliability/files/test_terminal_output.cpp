// Text read from files never reaches the terminal raw: a GPU name, a key, a config's value
// names or a Kernel Tuner cache's device name holding escape sequences, CR, newlines, C1
// controls or bytes that are not UTF-8 is printed escaped by every command that shows it
// (show, report, export, simulate, import, the bake line of every build), so no file can
// clear the screen or forge a line of build output.
#include <gtest/gtest.h>

#include "checks.hpp"
#include "kernel_dir.hpp"
#include "ktune/db.hpp"
#include "ktune/fingerprint.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::read;
using test_support::write;

// Each a way to act on a terminal or fake a line. Valid UTF-8 only where JSON needs it.
const std::vector<std::string> kControls = {
    "\x1b[2J\x1b[H",                       // clear the screen
    "\r\nktune: FORGED: baked nothing\n",  // a fake line of build output
    "\x07\x08\x08\x08",                    // bell, backspaces
    "\xc2\x9b"
    "31m",               // C1 CSI, one character
    "\x1b]0;title\x07",  // OSC: set the window title
    "\x7f\x0b\x0c",      // DEL, VT, FF
};

// Output a terminal shows as it is: every line printable, UTF-8, no C0/C1 control but the
// newline, and no line that was forged.
std::string terminal_problem(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return "control byte " + std::to_string(c) + " at " + std::to_string(i);
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0) return "a C1 control";
    if (c >= 0xf8 || c == 0xc0 || c == 0xc1 || (c >= 0x80 && c < 0xc0 && i == 0)) return "a byte that is not UTF-8";
  }
  if (text.find("\nktune: FORGED") != std::string::npos || text.rfind("ktune: FORGED", 0) == 0) return "a forged line";
  return "";
}

void expect_clean(const ToolRun& run, const std::string& what) {
  expect_no_crash(run);
  EXPECT_EQ(terminal_problem(run.out), "") << what << "\n" << run.command << "\n" << run.out;
  EXPECT_EQ(terminal_problem(run.err), "") << what << "\n" << run.command << "\n" << run.err;
}

Measurement measured(double ms) {
  Measurement m;
  m.samples_ms = {ms, ms, ms};
  m.median_ms = ms;
  return m;
}

class TerminalOutput : public testing::TestWithParam<std::size_t> {};

// A DB whose GPU name, key and value names carry the control text: shown by show, report,
// export, simulate and the bake.
TEST_P(TerminalOutput, DbTextIsEscapedByEveryCommand) {
  const std::string hostile = kControls[GetParam()];
  KernelDir k;
  Fingerprint fp = Fingerprint::from_json(json::parse(read(k.db()))["fingerprints"].begin().value()["fingerprint"]);
  fp.gpu.name = "NVIDIA H200" + hostile;  // a DB is JSON: UTF-8 (bytes that are not: TerminalText.*)
  const fs::path db = k.db_dir() / "NVIDIA_H200.json";
  fs::remove(db);
  {
    Db d(db, "k");
    const json values = {{"TM", 2}, {"TN", 8}};
    d.record(fp, "M=3,N=4", config_id_of(values), values, measured(0.5));
    d.record(fp, "M=1,N=2", k.default_id(), {{"TM", 1}, {"TN", 4}}, measured(0.7));
    const json odd = {{"TM" + hostile, 1}};  // a value name no space has: left out by the bake
    d.record(fp, "M=3,N=4", config_id_of(odd), odd, measured(0.1));
    d.record(fp, "M=3" + hostile, k.default_id(), {{"TM", 1}, {"TN", 4}}, measured(0.2));
  }
  expect_clean(k.ktune({"show", "--top", "5", db.string()}), "show");
  expect_clean(k.ktune({"report", "--out", (k.root() / "report").string(), "--gnuplot", "/nonexistent", db.string()}),
               "report");
  const std::string report = read(k.root() / "report" / "report.md");
  EXPECT_EQ(terminal_problem(report), "") << report;
  expect_clean(k.ktune({"export", "--db", db.string(), "--key", "M=3,N=4", "--format", "t4", "--out",
                        (k.root() / "t4.json").string()}),
               "export");
  expect_clean(k.ktune({"simulate", "--db", db.string(), "--key", "M=3,N=4", "--budget", "2", "--seed", "1"}),
               "simulate");
  const ToolRun bake = k.bake();
  expect_clean(bake, "bake");
  EXPECT_NE(bake.out.find("ktune: k: baked NVIDIA H200"), std::string::npos) << bake.out;
}

// A Kernel Tuner cache's device name: shown by simulate and export, and by import's line.
TEST_P(TerminalOutput, CacheAndImportTextIsEscaped) {
  const std::string hostile = kControls[GetParam()];
  KernelDir k;
  json cache = {{"device_name", "Tiny GPU" + hostile},
                {"kernel_name", "tiny" + hostile},
                {"problem_size", {64}},
                {"tune_params_keys", {"A"}},
                {"tune_params", {{"A", {1, 2}}}},
                {"objective", "time"},
                {"cache", {{"1", {{"A", 1}, {"time", 0.5}}}, {"2", {{"A", 2}, {"time", 0.7}}}}}};
  const fs::path file = k.root() / "cache.json";
  write(file, cache.dump(-1, ' ', false, json::error_handler_t::replace));
  expect_clean(k.ktune({"simulate", "--cache", file.string(), "--budget", "2", "--seed", "1"}), "simulate --cache");
  expect_clean(
      k.ktune({"export", "--cache", file.string(), "--format", "t4", "--out", (k.root() / "t4.json").string()}),
      "export --cache");
  expect_clean(k.ktune({"import", "--t4", (k.root() / "t4.json").string(), "--into", (k.root() / "imported").string(),
                        "--kernel", "k", "--gpu", "NVIDIA H200" + hostile, "--key", "N=64"}),
               "import");
}

INSTANTIATE_TEST_SUITE_P(Controls, TerminalOutput, testing::Range<std::size_t>(0, kControls.size()));

// An error message quoting its input is one clean, short line, however long the input.
TEST(TerminalOutputErrors, MessagesQuotingInputAreOneShortLine) {
  KernelDir k;
  const std::string junk = std::string(100000, 'x') + "\x1b[2J\r\nktune: FORGED";
  const fs::path source = k.root() / "src" / "k.cu";
  auto plan = [&](const std::string& param, const std::string& key) {
    return k.ktune({"plan", "--kernel", "k", "--source", source.string(), "--out-dir", (k.root() / "p").string(),
                    "--param", param, "--param", "TN=4,8", "--key", key, "--entry", "k_entry", "--arch", "90", "--nvcc",
                    "/usr/local/cuda/bin/nvcc"});
  };
  for (const ToolRun& run : {plan("TM=" + junk, "M=1 N=2"), plan(junk + "=1,2", "M=1 N=2"), plan("TM=1,2", "M=" + junk),
                             plan("TM=1,2", "M=1 " + junk)}) {
    EXPECT_EQ(run.exit_code, 1) << run.err.substr(0, 400);
    EXPECT_EQ(terminal_problem(run.err), "") << run.err.substr(0, 400);
    EXPECT_LT(run.err.size(), 400u) << run.err.substr(0, 400);
    EXPECT_EQ(message_problem(run.err), "") << run.err.substr(0, 400);
  }
}

}  // namespace
}  // namespace ktune::file_faults

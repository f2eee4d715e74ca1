// A damaged or hostile manifest.json: `ktune cubins`, `ktune bake` and the tuner's reader
// (Manifest::from_json) refuse it with one line naming the file, or, for odd text in
// fields that may hold anything, go on without crashing and without that text reaching
// generated code as code. The manifest is never rewritten.
#include <gtest/gtest.h>

#include "checks.hpp"
#include "fault_matrix.hpp"
#include "kernel_dir.hpp"
#include "ktune/error.hpp"
#include "ktune/manifest.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;
using test_support::read;
using test_support::write;

Shape manifest_shape() {
  Shape s;
  s.schema = "/schema";
  s.version = "/schema_version";
  s.future_version = 3;
  s.required = {"/schema",       "/schema_version",    "/kernel",
                "/source",       "/compile",           "/compile/nvcc",
                "/compile/arch", "/compile/flags",     "/compile/include_dirs",
                "/parameters",   "/parameters/0/name", "/parameters/0/values",
                "/constraints",  "/default",           "/default/TM",
                "/default_id",   "/product",           "/valid"};
  s.typed = {"/kernel",
             "/entry",
             "/source",
             "/compile",
             "/compile/nvcc",
             "/compile/arch",
             "/compile/flags",
             "/compile/flags/0",
             "/compile/include_dirs",
             "/compile/launcher",
             "/build",
             "/parameters",
             "/parameters/0",
             "/parameters/0/name",
             "/parameters/0/values",
             "/constraints",
             "/constraints/0",
             "/default",
             "/default_id",
             "/valid",
             "/max_points",
             "/defines",
             "/keys",
             "/keys/0",
             "/key_dims",
             "/key_dims/0"};
  s.integers = {"/parameters/0/values/0", "/default/TM", "/product", "/valid", "/max_points", "/keys/0/M"};
  s.names = {"/kernel", "/entry", "/parameters/0/name", "/default_id", "/build"};
  s.free_text = {"/source", "/compile/nvcc", "/compile/arch", "/compile/flags/0", "/constraints/0"};
  return s;
}

class ManifestFaults : public testing::TestWithParam<Fault> {};

TEST_P(ManifestFaults, RefusedOnOneLineOrHarmless) {
  const Fault& fault = GetParam();
  KernelDir k;
  const std::string text = fault.make(k.manifest_doc());
  write(k.manifest(), text);
  const std::string path = k.manifest().string();

  // The tuner's reader.
  std::string error;
  bool accepted = false;
  try {
    Manifest::from_json(read_json_file(k.manifest()), path);
    accepted = true;
  } catch (const Error& e) {
    error = std::string(e.what()) + "\n";
  }
  const ToolRun cubins = k.cubins();
  const ToolRun bake = k.bake();

  if (fault.expect == Expect::Refused) {
    EXPECT_FALSE(accepted);
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_EQ(message_problem(error), "") << error.substr(0, 2000);
    expect_refusal(cubins, path);
    expect_refusal(bake, path);
    EXPECT_FALSE(fs::exists(k.generated()));
  } else {
    expect_no_crash(cubins);
    expect_no_crash(bake);
    if (bake.exit_code == 0) EXPECT_EQ(injection_problem(read(k.generated())), "");
  }
  EXPECT_EQ(read(k.manifest()), text) << "the manifest was rewritten";
}

INSTANTIATE_TEST_SUITE_P(Manifest, ManifestFaults, testing::ValuesIn(faults_of(manifest_shape())),
                         [](const testing::TestParamInfo<Fault>& info) { return info.param.name; });

// The same kernel directory with nothing damaged: the tools accept it and the bake uses
// the DB (what the faults above are measured against).
TEST(ManifestFaultsBaseline, ValidFilesAreAccepted) {
  KernelDir k;
  const ToolRun cubins = k.cubins();
  EXPECT_EQ(cubins.exit_code, 0) << cubins.err;
  EXPECT_NE(cubins.out.find("4 configs, 4 compiled"), std::string::npos) << cubins.out;
  const ToolRun bake = k.bake();
  ASSERT_EQ(bake.exit_code, 0) << bake.err;
  EXPECT_NE(bake.out.find("baked NVIDIA H200 (2 keys"), std::string::npos) << bake.out;
  EXPECT_EQ(injection_problem(read(k.generated())), "");
}

// A manifest written by hand: a DEFAULT id that is a path is never a file name, and a
// count or DEFAULT id that its space does not give is refused (the configs are enumerated
// from the space, never read from the file).
TEST(ManifestFaultsBaseline, IdsAndCountsThatDisagreeWithTheSpaceAreRefused) {
  KernelDir k;
  for (const std::string& id :
       std::vector<std::string>{"../../../etc/passwd", "a/b", "", "x y", std::string("a\0b", 3)}) {
    nlohmann::json doc = k.manifest_doc();
    doc["default_id"] = id;
    write(k.manifest(), text_of(doc));
    expect_refusal(k.cubins(), k.manifest().string() + ": \"default_id\"");
  }
  nlohmann::json doc = k.manifest_doc();
  doc["valid"] = 5;
  write(k.manifest(), text_of(doc));
  expect_refusal(k.cubins(), "the space enumerates to 4 configs, not the 5 of \"valid\"");
  doc = k.manifest_doc();
  doc["default_id"] = "0123456789abcdef";
  write(k.manifest(), text_of(doc));
  expect_refusal(k.bake(), "\"default_id\" \"0123456789abcdef\" is not the id of \"default\" among its configs");
  doc = k.manifest_doc();
  doc["default"]["TM"] = 3;  // not among TM's values
  write(k.manifest(), text_of(doc));
  expect_refusal(k.bake(), "is not the id of \"default\" among its configs");
}

}  // namespace
}  // namespace ktune::file_faults

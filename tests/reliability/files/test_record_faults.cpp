// A damaged or hostile compile record (records/<id>.json, written by `ktune compile`):
// `ktune cubins`, `ktune bake` and the tuner's reader (CompileRecord::from_json) refuse it
// with one line naming the record and the fix (delete it, build again), never trusting it.
#include <gtest/gtest.h>

#include "checks.hpp"
#include "fault_matrix.hpp"
#include "kernel_dir.hpp"
#include "ktune/compile_record.hpp"
#include "ktune/error.hpp"
#include "ktune/manifest.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;
using test_support::read;
using test_support::write;

Shape record_shape() {
  Shape s;
  s.schema = "/schema";
  s.version = "/schema_version";
  s.future_version = 2;
  s.required = {"/schema", "/schema_version", "/status", "/exit_code", "/wall_s", "/cpu_s", "/log"};
  s.typed = {"/status", "/exit_code", "/wall_s", "/cpu_s", "/log", "/cubin"};
  s.integers = {"/exit_code"};
  s.reals = {"/wall_s", "/cpu_s"};
  s.names = {"/status"};
  s.free_text = {"/log", "/cubin"};
  return s;
}

class RecordFaults : public testing::TestWithParam<Fault> {};

TEST_P(RecordFaults, RefusedOnOneLineOrHarmless) {
  const Fault& fault = GetParam();
  KernelDir k;
  const fs::path record = k.record(k.default_id());
  const std::string text = fault.make(read_json_file(record));
  write(record, text);

  std::string error;
  bool accepted = false;
  try {
    CompileRecord::read(record);
    accepted = true;
  } catch (const Error& e) {
    error = std::string(e.what()) + "\n";
  }
  const ToolRun cubins = k.cubins();
  const ToolRun bake = k.bake();
  if (fault.expect == Expect::Refused) {
    EXPECT_FALSE(accepted);
    EXPECT_NE(error.find(record.string()), std::string::npos) << error;
    EXPECT_EQ(message_problem(error), "") << error.substr(0, 2000);
    expect_refusal(cubins, record.string());
    expect_refusal(bake, record.string());
    EXPECT_NE(cubins.err.find("delete it and build again"), std::string::npos) << cubins.err;
    EXPECT_NE(bake.err.find("delete it and build again"), std::string::npos) << bake.err;
    EXPECT_FALSE(fs::exists(k.generated()));
  } else {
    expect_no_crash(cubins);
    expect_no_crash(bake);
  }
  EXPECT_EQ(read(record), text) << "the record was rewritten";
}

INSTANTIATE_TEST_SUITE_P(CompileRecord, RecordFaults, testing::ValuesIn(faults_of(record_shape())),
                         [](const testing::TestParamInfo<Fault>& info) { return info.param.name; });

TEST(RecordFaultsBaseline, UnknownStatusAndExitCodesAreRefused) {
  KernelDir k;
  const fs::path record = k.record(k.default_id());
  nlohmann::json good = read_json_file(record);
  for (const auto& [field, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"status", "okay"}, {"status", "OK"}, {"exit_code", 256}, {"exit_code", -1}, {"wall_s", 1e300}}) {
    nlohmann::json doc = good;
    doc[field] = value;
    write(record, text_of(doc));
    SCOPED_TRACE(field + " = " + value.dump());
    expect_refusal(k.cubins(), record.string() + ": \"" + field + "\"");
  }
}

}  // namespace
}  // namespace ktune::file_faults

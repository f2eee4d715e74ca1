// A command-line value that no input can make right is a bad command line: exit 2 when the
// command line is parsed (before anything is compiled or read), with one message that quotes
// the argument as typed, never a converted number such as the largest double in full.
#include <gtest/gtest.h>

#include "checks.hpp"
#include "kernel_dir.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;

struct BadValue {
  std::string name;
  std::vector<std::string> args;  // after the subcommand's required ones
  std::string option, typed;      // the message names both
};

std::ostream& operator<<(std::ostream& o, const BadValue& b) { return o << b.name; }

class CommandLineValues : public testing::TestWithParam<BadValue> {};

// `ktune tune --t1`: the spec need not be valid; the bad value is refused first.
TEST_P(CommandLineValues, TuneRefusesWhenParsed) {
  const BadValue& bad = GetParam();
  KernelDir k;
  const fs::path out = k.root() / "out";
  std::vector<std::string> args = {"tune", "--t1", k.manifest().string(), "--out", out.string()};
  args.insert(args.end(), bad.args.begin(), bad.args.end());
  const ToolRun run = k.ktune(args);
  EXPECT_EQ(run.exit_code, 2) << run.command << "\n" << run.err;
  EXPECT_EQ(run.signal, 0);
  EXPECT_NE(run.err.find(bad.option), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("\"" + bad.typed + "\""), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("17976931348623157"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(out)) << "refused after work began";
}

INSTANTIATE_TEST_SUITE_P(
    Tune, CommandLineValues,
    testing::Values(BadValue{"atol_nan", {"--atol", "nan"}, "--atol", "nan"},
                    BadValue{"atol_inf", {"--atol", "inf"}, "--atol", "inf"},
                    BadValue{"atol_negative", {"--atol", "-1e-5"}, "--atol", "-1e-5"},
                    BadValue{"rtol_nan", {"--rtol", "NaN"}, "--rtol", "NaN"},
                    BadValue{"rtol_too_large", {"--rtol", "1e400"}, "--rtol", "1e400"},
                    BadValue{"seed_negative", {"--seed", "-1"}, "--seed", "-1"},
                    BadValue{"seed_fraction", {"--seed", "1.5"}, "--seed", "1.5"},
                    BadValue{"seed_too_large", {"--seed", "18446744073709551616"}, "--seed", "18446744073709551616"},
                    BadValue{"gpus_letters", {"--gpus", "a,b"}, "--gpus", "a,b"},
                    BadValue{"gpus_twice", {"--gpus", "0,0"}, "--gpus", "0,0"},
                    BadValue{"gpus_negative", {"--gpus", "-1"}, "--gpus", "-1"},
                    BadValue{"gpus_empty_item", {"--gpus", "0,,1"}, "--gpus", "0,,1"},
                    BadValue{"arch_letter", {"--arch", "9x"}, "--arch", "9x"},
                    BadValue{"arch_prefixed", {"--arch", "sm_90"}, "--arch", "sm_90"},
                    BadValue{"arch_one_digit", {"--arch", "9"}, "--arch", "9"},
                    BadValue{"seconds_too_large", {"--seconds", "1e309"}, "--seconds", "1e309"},
                    BadValue{"seconds_nan", {"--seconds", "nan"}, "--seconds", "nan"},
                    BadValue{"seconds_zero", {"--seconds", "0"}, "--seconds", "0"},
                    BadValue{"budget_too_large", {"--budget", "1e400"}, "--budget", "1e400"}),
    [](const testing::TestParamInfo<BadValue>& info) { return info.param.name; });

// Other subcommands: the same rule, exit 2 with the argument as typed.
TEST(CommandLineValuesOther, EverySubcommandRefusesWithExit2) {
  KernelDir k;
  const std::string db = k.db().string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"simulate", "--db", db, "--key", "M=3,N=4", "--budget", "2", "--seed", "-1"}, "\"-1\""},
      {{"simulate", "--db", db, "--key", "M=3,N=4", "--budget", "2", "--seed", "1e3"}, "\"1e3\""},
      {{"simulate", "--db", db, "--key", "M=3,N=4", "--budget", "0", "--seed", "1"}, "\"0\""},
      {{"simulate", "--db", db, "--key", "M=3,N=4", "--budget", "1e400", "--seed", "1"}, "\"1e400\""},
      {{"simulate", "--db", db, "--key", "M=3,N=4", "--budget", "2", "--seed", "1", "--strategy", "nope"}, "\"nope\""},
      {{"export", "--db", db, "--key", "M=3,N=4", "--format", "csv", "--out", (k.root() / "x").string()}, "--format"},
      {{"show", "--key", "junk", db}, "\"junk\""},
      {{"show", "--key", "M=abc", db}, "\"abc\""},
      {{"space", k.manifest().string(), "--max-points", "1e400"}, "\"1e400\""},
      {{"space", k.manifest().string(), "--max-points", "-1"}, "\"-1\""},
      {{"tune", "--t1", k.manifest().string(), "--max-configs", "-1"}, "\"-1\""},
      {{"tune", "--t1", k.manifest().string(), "--max-points", "0"}, "\"0\""},
      {{"show", "--top", "0", db}, "--top"},
      {{"show", "--top", "-3", db}, "--top"},
      {{"bake", "--manifest", k.manifest().string(), "--out-dir", (k.root() / "b").string(), "--jobs", "0"}, "--jobs"},
  };
  for (const auto& [args, names] : cases) {
    const ToolRun run = k.ktune(args);
    EXPECT_EQ(run.exit_code, 2) << run.command << "\n" << run.err;
    EXPECT_NE(run.err.find(names), std::string::npos) << run.command << "\n" << run.err;
    EXPECT_EQ(run.err.find("17976931348623157"), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace ktune::file_faults

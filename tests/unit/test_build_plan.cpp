#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include <cctype>
#include <map>
#include <sstream>

#include "error_of.hpp"
#include "ktune/build_plan.hpp"
#include "ktune/text.hpp"
#include "ktune/config_id.hpp"

namespace {

ktune::PlanRequest sgemm_request() {
  ktune::PlanRequest r;
  r.kernel = "sgemm";
  r.source = "/src/sgemm.cu";
  r.params = {"TM=32,64,128,256", "TN=32,64,128,256", "TK=8,16,32", "OCC=1,2,4"};
  r.constraints = {"TM * TN <= 16384", "32 <= TM * TK <= 8192"};
  r.default_text = "TM=64 TN=64 TK=16 OCC=1";
  r.compile = {"nvcc", "90", {"-O3"}, {}};
  return r;
}

std::string plan_error(const ktune::PlanRequest& r) {
  try {
    ktune::make_plan(r);
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(BuildPlan, SgemmExample) {
  auto plan = ktune::make_plan(sgemm_request());
  const auto& m = plan.manifest;
  EXPECT_EQ(m.product, 144u);
  // TM*TN<=16384 keeps 13 of 16 (TM,TN) pairs; 32<=TM*TK<=8192 holds for every (TM,TK)
  // here (256 to 8192), so 13 * 3 TK * 3 OCC = 117 (Python's itertools count agrees).
  EXPECT_EQ(m.configs.size(), 117u);
  EXPECT_FALSE(plan.default_chosen);
  EXPECT_EQ(m.default_id,
            ktune::config_id(std::vector<std::string>{"TM", "TN", "TK", "OCC"}, std::vector<int64_t>{64, 64, 16, 1}));
}

TEST(BuildPlan, ManifestRoundTrip) {
  auto m = ktune::make_plan(sgemm_request()).manifest;
  auto back = ktune::Manifest::from_json(m.to_json(), "m");
  EXPECT_EQ(back.to_json(), m.to_json());
  auto doc = m.to_json();
  // A definition, not a list: the count is written, the configs are enumerated again.
  EXPECT_EQ(doc["valid"], 117u);
  EXPECT_FALSE(doc.contains("configs"));
  ASSERT_EQ(back.configs.size(), 117u);
  for (std::size_t i = 0; i < back.configs.size(); ++i) EXPECT_EQ(back.configs[i].id, m.configs[i].id);
  EXPECT_EQ(m.configs[0].cubin(), "cubins/" + m.configs[0].id + ".cubin");
  auto fewer = m.to_json();
  fewer["valid"] = 116;
  EXPECT_THROW(ktune::Manifest::from_json(fewer, "m"), ktune::Error);
  doc["schema_version"] = 99;
  EXPECT_THROW(ktune::Manifest::from_json(doc, "m"), ktune::Error);
}

TEST(BuildPlan, CmakeEdgesAreOneLinePerConfig) {
  auto r = sgemm_request();
  r.params.push_back("maxnreg=0,128");
  r.default_text += " maxnreg=0";
  auto m = ktune::make_plan(r).manifest;
  ASSERT_FALSE(m.on_demand);
  std::string text = ktune::cmake_edges(m, "/b/k", "/bin/ktune");
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, m.configs.size() + 4);  // + comment, DEFAULT id, on-demand flag, PTX command
  EXPECT_NE(text.find("set(_ktune_default_id " + m.default_id + ")\n"), std::string::npos);
  EXPECT_NE(text.find("set(_ktune_on_demand FALSE)\n"), std::string::npos);
  EXPECT_NE(text.find(";-DTM=32;-DTN=32;-DTK=8;-DOCC=1;-Dmaxnreg=128;-maxrregcount=128;-MD;"), std::string::npos);
  EXPECT_NE(text.find(";-DTM=32;-DTN=32;-DTK=8;-DOCC=1;-Dmaxnreg=0;-MD;"), std::string::npos);
  EXPECT_NE(text.find("\"/bin/ktune;compile;--record;/b/k/records/"), std::string::npos);
  EXPECT_NE(text.find("set(_ktune_default_ptx_command \"nvcc;-ptx;-arch=compute_90;-O3;"), std::string::npos);
}

TEST(BuildPlan, AboveTheEagerLimitOnlyTheDefaultIsAnEdge) {
  auto r = sgemm_request();
  r.eager_limit = 117;
  EXPECT_FALSE(ktune::make_plan(r).manifest.on_demand);
  r.eager_limit = 116;
  auto m = ktune::make_plan(r).manifest;
  EXPECT_TRUE(m.on_demand);
  EXPECT_TRUE(ktune::Manifest::from_json(m.to_json(), "m").on_demand);
  std::string text = ktune::cmake_edges(m, "/b/k", "/bin/ktune");
  EXPECT_NE(text.find("set(_ktune_on_demand TRUE)\n"), std::string::npos);
  // The DEFAULT's edge alone: the tuner and the bake compile the rest.
  EXPECT_NE(text.find("_ktune_cubin(" + m.default_id + " "), std::string::npos);
  EXPECT_EQ(text.find("_ktune_cubin("), text.rfind("_ktune_cubin("));
}

// The build's edge (`ktune compile ... -- <nvcc command>`) and the tuner's compile pool run
// one compiler command: the two ways of building a config cannot drift apart.
TEST(BuildPlan, CompileJobIsTheCubinCommandsCompiler) {
  auto r = sgemm_request();
  r.compile.flags = {"-O3", "-DNAME=\"a b\"", "-Xptxas=-v"};
  r.compile.launcher = {"ccache"};
  r.compile.include_dirs = {"/src/my include"};
  auto m = ktune::make_plan(r).manifest;
  const std::string dir = "/b/k$1";
  const auto c = m.configs[3];
  const auto job = ktune::compile_job(m, c, dir);
  const auto command = ktune::cubin_command(m, c, dir, "/bin/ktune");
  const auto dashes = std::find(command.begin(), command.end(), "--");
  ASSERT_NE(dashes, command.end());
  EXPECT_EQ(std::vector<std::string>(dashes + 1, command.end()), job.command);
  EXPECT_EQ(job.record, std::filesystem::path(dir) / c.record());
  EXPECT_EQ(job.cubin, std::filesystem::path(dir) / c.cubin());
  EXPECT_EQ(job.command[0], "ccache");
  EXPECT_EQ(job.command[1], "nvcc");
  EXPECT_NE(std::find(job.command.begin(), job.command.end(), "-DNAME=\"a b\""), job.command.end());
}

// ccache caches a command it sees as a compile (-c): with a launcher, the cubin and PTX
// commands carry -c after their mode; without one they stay as they were.
TEST(BuildPlan, ALauncherGetsCommandsWithDashC) {
  auto r = sgemm_request();
  auto plain = ktune::make_plan(r).manifest;
  r.compile.launcher = {"ccache"};
  auto cached = ktune::make_plan(r).manifest;
  const auto c = plain.configs[0];
  const auto with = ktune::compile_job(cached, c, "/b").command;
  const auto without = ktune::compile_job(plain, c, "/b").command;
  ASSERT_GE(with.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(with.begin(), with.begin() + 4),
            (std::vector<std::string>{"ccache", "nvcc", "-cubin", "-c"}));
  EXPECT_EQ(std::count(without.begin(), without.end(), "-c"), 0);
  const auto ptx = ktune::default_ptx_command(cached, "/b");
  EXPECT_EQ(std::vector<std::string>(ptx.begin(), ptx.begin() + 4),
            (std::vector<std::string>{"ccache", "nvcc", "-ptx", "-c"}));
}

TEST(BuildPlan, ShellQuote) {
  EXPECT_EQ(ktune::shell_quote("-DTM=64"), "-DTM=64");
  EXPECT_EQ(ktune::shell_quote("/a b"), "'/a b'");
  EXPECT_EQ(ktune::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(ktune::shell_quote(""), "''");
  EXPECT_EQ(ktune::shell_quote("$HOME"), "'$HOME'");
}

TEST(BuildPlan, CommandsRefuseLineBreaksAndSemicolons) {
  auto r = sgemm_request();
  r.compile.flags = {"-DX=1\nrm -rf /"};
  auto m = ktune::make_plan(r).manifest;
  EXPECT_THROW(ktune::cmake_edges(m, "/b", "/bin/ktune"), ktune::Error);
  EXPECT_THROW(ktune::compile_job(m, m.configs[0], "/b"), ktune::Error);
  r.compile.flags = {"-DX=1;2"};
  m = ktune::make_plan(r).manifest;
  EXPECT_THROW(ktune::cmake_edges(m, "/b", "/bin/ktune"), ktune::Error);
}

TEST(BuildPlan, DefaultChosenWhenAbsent) {
  auto r = sgemm_request();
  r.default_text.clear();
  auto plan = ktune::make_plan(r);
  EXPECT_TRUE(plan.default_chosen);
  EXPECT_EQ(plan.manifest.default_id, plan.manifest.configs[0].id);
}

TEST(BuildPlan, ErrorsNameTheArgument) {
  auto r = sgemm_request();
  r.params[1] = "TN=";
  EXPECT_NE(plan_error(r).find("PARAMS: parameter 'TN' has no values"), std::string::npos);

  r = sgemm_request();
  r.params.push_back("TM=8");
  EXPECT_NE(plan_error(r).find("PARAMS: parameter 'TM' is declared twice"), std::string::npos);

  r = sgemm_request();
  r.constraints.push_back("TM * * TN");
  EXPECT_NE(plan_error(r).find("WHERE: constraint 3"), std::string::npos) << plan_error(r);

  r = sgemm_request();
  r.default_text = "TM=64 TN=64 TK=16";
  EXPECT_NE(plan_error(r).find("gives no value for OCC"), std::string::npos) << plan_error(r);

  r = sgemm_request();
  r.default_text = "TM=256 TN=256 TK=16 OCC=1";
  EXPECT_NE(plan_error(r).find("violates constraint 1"), std::string::npos) << plan_error(r);

  r = sgemm_request();
  r.default_text = "TM=48 TN=64 TK=16 OCC=1";
  EXPECT_NE(plan_error(r).find("not among the values of TM"), std::string::npos);

  r = sgemm_request();
  r.constraints.push_back("TM > 1000");
  std::string empty = plan_error(r);
  EXPECT_NE(empty.find("the space is empty"), std::string::npos) << empty;
  EXPECT_NE(empty.find("constraint 3 \"TM > 1000\" alone excludes 144 of them"), std::string::npos) << empty;

  // MAX_CONFIGS limits what is measured whole: exhaustive search of more is refused, no
  // strategy gets the default one within a budget, and either way the space is counted.
  r = sgemm_request();
  r.max_configs = 100;
  r.tuned = true;
  r.strategy = "exhaustive";
  EXPECT_NE(plan_error(r).find("MAX_CONFIGS: exhaustive search of 117 valid configs"), std::string::npos)
      << plan_error(r);
  r.budget = "50";
  EXPECT_EQ(plan_error(r), "no error");
  r.strategy.clear();
  r.budget.clear();
  const auto plan = ktune::make_plan(r);
  EXPECT_EQ(plan.search.strategy, "default");
  EXPECT_EQ(plan.search.evaluations, std::optional<std::size_t>(117));
  EXPECT_NE(plan.search.why.find("more than the 100 measured whole"), std::string::npos) << plan.search.why;
  EXPECT_TRUE(plan.manifest.on_demand) << "a space larger than MAX_CONFIGS is never compiled whole";
  EXPECT_EQ(plan.manifest.configs.size(), 117u);
}

// FLAGS (`ktune plan --flag`) follow the one rule of nvcc_flags.hpp, named as CMake users
// wrote them; the manifest's flags are checked again where the tuner and the bake read them.
TEST(BuildPlan, FlagsFollowTheNvccFlagRule) {
  using ktune::test_support::error_of;
  auto refused = [](std::vector<std::string> flags) {
    auto r = sgemm_request();
    r.compile.flags = std::move(flags);
    return plan_error(r);
  };
  EXPECT_EQ(refused({"-O3", "-lineinfo", "-DTMX=1"}), "no error");
  EXPECT_EQ(refused({"-O2", "-arch=sm_80"}),
            "FLAGS '-arch=sm_80' sets the architecture, which ktune sets for every cubin; use ARCH (this kernel) "
            "or -DKTUNE_CUDA_ARCH (the project) instead");
  EXPECT_EQ(refused({"-ccbin", "/tmp/evil.sh"}),
            "FLAGS '-ccbin' selects the host compiler, and no flag may choose which program a compile runs; drop it "
            "(nvcc's host compiler is chosen by the environment variable NVCC_CCBIN)");
  EXPECT_EQ(refused({"-o", "other.cubin"}),
            "FLAGS '-o' sets what nvcc writes or where, which ktune sets for every config (a cubin and its "
            "dependency file); drop it");
  EXPECT_EQ(refused({"-D", "TK=4"}),
            "FLAGS '-D' sets the macro of parameter TK, which ktune sets to each config's value; drop it or rename "
            "the parameter");
  EXPECT_NE(refused({"-O2", ""}).find("FLAGS '' is empty"), std::string::npos);
  EXPECT_NE(refused({"$<$<CONFIG:Debug>:-G>"}).find("FLAGS '$<$<CONFIG:Debug>:-G>' is a generator expression"),
            std::string::npos);

  auto doc = ktune::make_plan(sgemm_request()).manifest.to_json();
  doc["compile"]["flags"] = {"-O3", "-DOCC=2"};
  EXPECT_EQ(error_of([&] { ktune::Manifest::from_json(doc, "m.json"); }),
            "m.json: compile.flags[1] \"-DOCC=2\" sets the macro of parameter OCC, which ktune sets to each config's "
            "value; drop it or rename the parameter");
  doc["compile"]["flags"] = {"--gpu-architecture", "sm_80"};
  EXPECT_EQ(error_of([&] { ktune::Manifest::from_json(doc, "m.json"); }),
            "m.json: compile.flags[0] \"--gpu-architecture\" sets the architecture, which ktune sets for every "
            "cubin; reconfigure the build to regenerate the manifest");
}

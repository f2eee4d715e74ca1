#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ktune/build_plan.hpp"
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
            ktune::config_id(std::vector<std::string>{"TM", "TN", "TK", "OCC"},
                             std::vector<int64_t>{64, 64, 16, 1}));
}

TEST(BuildPlan, ManifestRoundTrip) {
  auto m = ktune::make_plan(sgemm_request()).manifest;
  auto back = ktune::Manifest::from_json(m.to_json(), "m");
  EXPECT_EQ(back.to_json(), m.to_json());
  auto doc = m.to_json();
  EXPECT_EQ(doc["configs"][0]["cubin"], "cubins/" + m.configs[0].id + ".cubin");
  EXPECT_EQ(doc["configs"][0]["log"], "logs/" + m.configs[0].id + ".log");
  doc["schema_version"] = 99;
  EXPECT_THROW(ktune::Manifest::from_json(doc, "m"), ktune::Error);
}

TEST(BuildPlan, CmakeEdgesAreOneLinePerConfig) {
  auto r = sgemm_request();
  r.params.push_back("maxnreg=0,128");
  r.default_text += " maxnreg=0";
  auto m = ktune::make_plan(r).manifest;
  std::string text = ktune::cmake_edges(m);
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, m.configs.size() + 2);  // + the header comment and the DEFAULT's id
  EXPECT_NE(text.find("set(_ktune_default_id " + m.default_id + ")\n"), std::string::npos);
  EXPECT_NE(text.find("\"-DTM=32;-DTN=32;-DTK=8;-DOCC=1;-Dmaxnreg=128;-maxrregcount=128\""),
            std::string::npos);
  EXPECT_NE(text.find("\"-DTM=32;-DTN=32;-DTK=8;-DOCC=1;-Dmaxnreg=0\")"), std::string::npos);
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
  EXPECT_NE(empty.find("constraint 3 \"TM > 1000\" alone excludes 144 of them"), std::string::npos)
      << empty;

  r = sgemm_request();
  r.max_configs = 100;
  EXPECT_NE(plan_error(r).find("MAX_CONFIGS: the space has more than 100 valid configs"),
            std::string::npos);
}

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ktune/manifest.hpp"
#include "ktune/t1_spec.hpp"

namespace {

std::filesystem::path hub(const char* file) { return std::filesystem::path(KTUNE_BENCHMARK_HUB) / file; }

#define REQUIRE_HUB(file)                                                    \
  if (!std::filesystem::exists(hub(file)))                                   \
    GTEST_SKIP() << "SKIPPED: benchmark_hub data not found at " << hub(file) \
                 << " (it lives in ../shared beside the checkout)";

}  // namespace

TEST(T1Spec, ConvolutionCountsExactly) {
  REQUIRE_HUB("convolution_milo.T1.json");
  auto spec = ktune::read_t1_spec(ktune::read_json_file(hub("convolution_milo.T1.json")), "conv");
  EXPECT_EQ(spec.name, "convolution_milo");
  EXPECT_EQ(spec.parameters.size(), 10u);
  EXPECT_EQ(spec.constraints.size(), 4u);
  auto space = spec.space();
  EXPECT_EQ(space.product(), 10240u);
  EXPECT_EQ(space.enumerate().size(), 4362u);
  EXPECT_NO_THROW(ktune::resolve_default(spec, space));
}

TEST(T1Spec, DedispersionCountsExactly) {
  REQUIRE_HUB("dedispersion_milo.T1.json");
  auto spec = ktune::read_t1_spec(ktune::read_json_file(hub("dedispersion_milo.T1.json")), "dd");
  auto space = spec.space();
  EXPECT_EQ(space.product(), 22272u);
  EXPECT_EQ(space.enumerate().size(), 11130u);
}

TEST(T1Spec, ValueFormsAndErrors) {
  using nlohmann::json;
  auto doc = [](json values, std::string type = "int") {
    return json{
        {"ConfigurationSpace",
         {{"TuningParameters", {{{"Name", "a"}, {"Type", type}, {"Values", values}}}}, {"Conditions", json::array()}}}};
  };
  auto values = [&](json v) { return ktune::read_t1_spec(doc(v), "t").parameters[0].values; };
  EXPECT_EQ(values("[2**i for i in range(0, 4)]"), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(values("[1, 2] + list(range(4, 9, 4))"), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(values(json::array({3, 5})), (std::vector<int64_t>{3, 5}));
  EXPECT_THROW(values("sorted([1, 2])"), ktune::Error);
  EXPECT_THROW(ktune::read_t1_spec(doc("[1]", "float"), "t"), ktune::Error);
  EXPECT_THROW(ktune::read_t1_spec(json{{"ConfigurationSpace", json::object()}}, "t"), ktune::Error);
  try {
    values("[1, 'x']");
    FAIL();
  } catch (const ktune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("TuningParameters[0] (a).Values"), std::string::npos) << e.what();
  }
}

// One rule with PARAMS (check_distinct_values): a repeated value is refused, naming the
// parameter's field and the value, in every form a T1 list can take.
TEST(T1Spec, DuplicateValuesAreRefused) {
  using nlohmann::json;
  auto message = [](json values) {
    json doc{{"ConfigurationSpace",
              {{"TuningParameters", {{{"Name", "a"}, {"Values", "[1]"}}, {{"Name", "b"}, {"Values", values}}}}}}};
    try {
      ktune::read_t1_spec(doc, "t.json");
    } catch (const ktune::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string field = "t.json: TuningParameters[1] (b).Values lists the value ";
  EXPECT_EQ(message("[128, 128]"), field + "128 twice; list each value once");
  EXPECT_EQ(message("[1, 2] + [1, 2]"), field + "1 twice; list each value once");
  EXPECT_EQ(message("[2**i for i in range(3)] + [4]"), field + "4 twice; list each value once");
  EXPECT_EQ(message("list(range(0, 4)) + list(range(3, 5))"), field + "3 twice; list each value once");
  EXPECT_EQ(message(json::array({8, 16, 8})), field + "8 twice; list each value once");
  EXPECT_EQ(message("[1, 2, 3]"), "no error");
}

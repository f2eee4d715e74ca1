#include <gtest/gtest.h>

#include "ktune/error.hpp"
#include "ktune/parameter.hpp"

using ktune::Error;
using ktune::parse_assignments;
using ktune::parse_parameter;
using V = std::vector<int64_t>;

TEST(Parameter, ValueList) {
  auto p = parse_parameter("TM=32,64, 128 ,256");
  EXPECT_EQ(p.name, "TM");
  EXPECT_EQ(p.values, (V{32, 64, 128, 256}));
}

TEST(Parameter, RangesAndPowersOfTwo) {
  EXPECT_EQ(parse_parameter("A=1..4").values, (V{1, 2, 3, 4}));
  EXPECT_EQ(parse_parameter("A=16..64:16").values, (V{16, 32, 48, 64}));
  EXPECT_EQ(parse_parameter("A=16..70:16").values, (V{16, 32, 48, 64}));
  EXPECT_EQ(parse_parameter("A=pow2(16..256)").values, (V{16, 32, 64, 128, 256}));
  EXPECT_EQ(parse_parameter("A=pow2(3..20)").values, (V{4, 8, 16}));
  EXPECT_EQ(parse_parameter("A=1,pow2(4..8),-3..-1,0x20").values, (V{1, 4, 8, -3, -2, -1, 32}));
}

TEST(Parameter, ErrorsNameTheProblem) {
  auto message = [](const char* spec) {
    try {
      parse_parameter(spec);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("TM").find("expected NAME=VALUES"), std::string::npos);
  EXPECT_NE(message("TM=").find("has no values"), std::string::npos);
  EXPECT_NE(message("TM=32,abc").find("'abc' is not an integer"), std::string::npos);
  EXPECT_NE(message("TM=1.5").find("is not an integer"), std::string::npos);
  EXPECT_NE(message("TM=32,,64").find("empty value"), std::string::npos);
  EXPECT_NE(message("TM=8..4").find("is empty"), std::string::npos);
  EXPECT_NE(message("TM=4..8:0").find("step must be positive"), std::string::npos);
  EXPECT_NE(message("TM=pow2(0..8)").find("start at 1"), std::string::npos);
  EXPECT_NE(message("TM=32,64,32").find("lists the value 32 twice"), std::string::npos);
  EXPECT_NE(message("9TM=1").find("parameter '9TM=1': '9TM' is not a valid name"), std::string::npos);
  EXPECT_NE(message("and=1").find("word of the constraint language"), std::string::npos);
  EXPECT_NE(message("TM=99999999999999999999").find("not an integer"), std::string::npos);
  EXPECT_NE(message("TM=1..100000000").find("more than"), std::string::npos);
}

TEST(Parameter, Assignments) {
  auto a = parse_assignments("TM=64 TN=32,TK=-8");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0], (ktune::Assignment{"TM", 64}));
  EXPECT_EQ(a[2], (ktune::Assignment{"TK", -8}));
  EXPECT_THROW(parse_assignments("TM=64 TM=32"), Error);
  EXPECT_THROW(parse_assignments("TM"), Error);
  EXPECT_THROW(parse_assignments("TM=x"), Error);
}

// The guard every file reader parses through (tuner/src/db/untrusted_json.hpp).
#include <gtest/gtest.h>

#include <string>

#include "base/untrusted_json.hpp"

namespace {

namespace uj = ktune::untrusted_json;
using nlohmann::json;

TEST(UntrustedJson, DepthCountsBracketsOutsideStringsOnly) {
  EXPECT_FALSE(uj::nests_deeper_than("{\"a\": [[1]]}", 3));
  EXPECT_TRUE(uj::nests_deeper_than("{\"a\": [[[1]]]}", 3));
  // Brackets in strings, escaped quotes included, are text.
  EXPECT_FALSE(uj::nests_deeper_than("[\"[[[[\\\"[[[[\", \"]]]]\"]", 1));
  EXPECT_FALSE(uj::nests_deeper_than("\"\\\\\" ", 0));
  EXPECT_TRUE(uj::nests_deeper_than("[\"\\\\\", [1]]", 1));
  // Unbalanced closers never make the count wrap.
  EXPECT_FALSE(uj::nests_deeper_than("]]]]]]]]]]]]][", 1));
  EXPECT_TRUE(uj::nests_deeper_than(std::string(100000, '['), uj::kMaxDepth));
}

TEST(UntrustedJson, ReasonsQuoteNoneOfTheBytes) {
  json doc;
  EXPECT_EQ(uj::parse("{\"a\": [1, 2]}", doc), "");
  EXPECT_EQ(doc["a"][1], 2);
  EXPECT_NE(uj::parse("", doc).find("empty"), std::string::npos);
  EXPECT_NE(uj::parse("{\"a\": ", doc).find("ends early"), std::string::npos);
  EXPECT_NE(uj::parse(std::string(100, '[') + std::string(100, ']'), doc).find("64 levels"), std::string::npos);
  const std::string hostile = "{\"a\": \"\xff\n\x1b[31m PWNED";
  const std::string why = uj::parse(hostile, doc);
  EXPECT_NE(why.find("syntax error at byte"), std::string::npos) << why;
  EXPECT_EQ(why.find("PWNED"), std::string::npos) << why;
  for (unsigned char c : why) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
  EXPECT_NE(uj::parse("[1e400]", doc).find("number overflow"), std::string::npos);
  EXPECT_NE(uj::parse("[NaN]", doc).find("syntax error"), std::string::npos);
  nlohmann::ordered_json ordered;
  EXPECT_EQ(uj::parse("{\"b\": 1, \"a\": 2}", ordered), "");
  EXPECT_EQ(ordered.begin().key(), "b");
}

TEST(UntrustedJson, PrintableCutsAndReplaces) {
  EXPECT_EQ(uj::printable("abc"), "abc");
  EXPECT_EQ(uj::printable("a\nb\xff", 10), "a?b?");
  EXPECT_EQ(uj::printable(std::string(50, 'x'), 40), std::string(37, 'x') + "...");
  EXPECT_EQ(uj::printable(std::string(40, 'x'), 40), std::string(40, 'x'));
}

}  // namespace

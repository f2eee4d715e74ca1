// Key, key_id and parse_key (ktune/key.hpp): the one type, canonical text and parser of a
// problem key, for every --key and every key a DB or a bake reads.
#include <gtest/gtest.h>

#include <string>

#include "error_of.hpp"
#include "ktune/error.hpp"
#include "ktune/key.hpp"

namespace {

using ktune::Key;
using ktune::key_id;
using ktune::KeyText;
using ktune::parse_key;
using ktune::test_support::error_of;

std::string typed_error(const std::string& text) {
  return error_of([&] { parse_key(text); });
}

}  // namespace

TEST(Key, CanonicalTextSortsNamesAndSeparatesWithCommas) {
  EXPECT_EQ(key_id({{"N", 4096}, {"M", 1024}, {"K", 512}}), "K=512,M=1024,N=4096");
  EXPECT_EQ(key_id({{"seq", -1}}), "seq=-1");
  EXPECT_EQ(key_id({}), "");
}

// One key syntax for every subcommand's --key (docs/cli.md, "Inputs"): spaces or commas,
// any order, to the canonical form.
TEST(Key, TypedTextTakesSpacesCommasAndAnyOrder) {
  EXPECT_EQ(key_id(parse_key("M=4096 N=4096 K=4096")), "K=4096,M=4096,N=4096");
  EXPECT_EQ(key_id(parse_key("K=4096,M=4096,N=4096")), "K=4096,M=4096,N=4096");
  EXPECT_EQ(key_id(parse_key(" N=-1,  M=2 ")), "M=2,N=-1");
  EXPECT_EQ(key_id(parse_key("REF=0, N=1000,")), "N=1000,REF=0");
  EXPECT_EQ(parse_key("N=2 M=-1"), (Key{{"M", -1}, {"N", 2}}));
}

TEST(Key, TypedTextRefusesEachMistakeByName) {
  EXPECT_EQ(typed_error("M4096"), "\"M4096\" is not NAME=VALUE; write e.g. --key \"M=4096 N=4096\"");
  EXPECT_EQ(typed_error("M=1 =8"), "\"=8\" is not NAME=VALUE; write e.g. --key \"M=4096 N=4096\"");
  EXPECT_EQ(typed_error("M=4k"), "\"4k\" in \"M=4k\" is not an integer");
  EXPECT_EQ(typed_error("M="), "\"\" in \"M=\" is not an integer");
  EXPECT_EQ(typed_error("M=1.5"), "\"1.5\" in \"M=1.5\" is not an integer");
  EXPECT_EQ(typed_error("M=99999999999999999999"),
            "\"99999999999999999999\" in \"M=99999999999999999999\" is not an integer");
  EXPECT_EQ(typed_error("M=1 M=2"), "\"M=1 M=2\" names \"M\" twice");
  EXPECT_EQ(typed_error(""), "\"\" is not a key; write e.g. --key \"M=4096 N=4096\"");
  EXPECT_EQ(typed_error(" , "), "\" , \" is not a key; write e.g. --key \"M=4096 N=4096\"");
}

TEST(Key, TypedTextIsQuotedShortAndPrintable) {
  const std::string said = typed_error(std::string(1000, 'A'));
  EXPECT_LT(said.size(), 200u) << said;
  EXPECT_NE(said.find("is not NAME=VALUE"), std::string::npos) << said;
  EXPECT_EQ(typed_error("M=\x1b[31m").find('\x1b'), std::string::npos);
}

// As key_id writes a key (a DB's keys): single commas, no empty item, no blank after a value;
// "" is the key of no dimension.
TEST(Key, WrittenTextIsCommaSeparatedAndMayBeEmpty) {
  EXPECT_EQ(parse_key("N=2,M=-1", KeyText::Written), (Key{{"M", -1}, {"N", 2}}));
  EXPECT_TRUE(parse_key("", KeyText::Written).empty());
  for (const Key& key : {Key{{"M", 4096}}, Key{{"K", 1}, {"M", -2}, {"N", 3}}})
    EXPECT_EQ(parse_key(key_id(key), KeyText::Written), key) << key_id(key);
}

TEST(Key, WrittenTextRefusesBlanksAndEmptyItems) {
  for (const char* bad : {"M", "=1", "M=", "M=1,", ",M=1", "M=1,,N=2", "M=1 N=2", "M=1 ,N=2", "M=1x", "M=1,M=2", " "})
    EXPECT_THROW(parse_key(bad, KeyText::Written), ktune::Error) << bad;
  EXPECT_EQ(error_of([] { parse_key("M=1,M=2", KeyText::Written); }), "\"M=1,M=2\" names \"M\" twice");
}

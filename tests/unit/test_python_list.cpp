// The Python list forms of T1 `Values` strings; expected lists checked with python3.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/python_list.hpp"

namespace ktune {
namespace {

using List = std::vector<int64_t>;

testing::AssertionResult Fails(std::string_view text, std::vector<std::string> words) {
  try {
    List got = evaluate_python_list(text);
    return testing::AssertionFailure() << "'" << text << "' gave " << got.size() << " values";
  } catch (const Error& e) {
    std::string message = e.what();
    for (const std::string& w : words) {
      if (message.find(w) == std::string::npos) {
        return testing::AssertionFailure() << "'" << text << "': message '" << message << "' lacks '" << w << "'";
      }
    }
    return testing::AssertionSuccess();
  }
}

TEST(PythonList, LiteralLists) {
  EXPECT_EQ(evaluate_python_list("[16, 32, 48, 64]"), (List{16, 32, 48, 64}));
  EXPECT_EQ(evaluate_python_list("[2*8, 32]"), (List{16, 32}));
  EXPECT_EQ(evaluate_python_list("[1, 2,]"), (List{1, 2}));
  EXPECT_EQ(evaluate_python_list("[]"), List{});
  EXPECT_EQ(evaluate_python_list("[ ]"), List{});
  EXPECT_EQ(evaluate_python_list("[-1, 0x10, 2**10, 7 // 2, -7 % 3]"), (List{-1, 16, 1024, 3, 2}));
  EXPECT_EQ(evaluate_python_list("  [ 1 ,\n 2 ]  "), (List{1, 2}));
  EXPECT_EQ(evaluate_python_list("[True, False]"), (List{1, 0}));
  EXPECT_EQ(evaluate_python_list("[8, 8]"), (List{8, 8}));  // duplicates are kept
}

TEST(PythonList, Ranges) {
  EXPECT_EQ(evaluate_python_list("list(range(1, 33, 1))").size(), 32u);
  EXPECT_EQ(evaluate_python_list("list(range(1, 33, 1))").back(), 32);
  EXPECT_EQ(evaluate_python_list("list(range(16, 257, 16))"),
            (List{16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256}));
  EXPECT_EQ(evaluate_python_list("range(5)"), (List{0, 1, 2, 3, 4}));
  EXPECT_EQ(evaluate_python_list("range(2, 5)"), (List{2, 3, 4}));
  EXPECT_EQ(evaluate_python_list("list(range(10, 0, -3))"), (List{10, 7, 4, 1}));
  EXPECT_EQ(evaluate_python_list("list(range(0, -10, -4))"), (List{0, -4, -8}));
  EXPECT_EQ(evaluate_python_list("range(0, 10, -1)"), List{});
  EXPECT_EQ(evaluate_python_list("range(5, 5)"), List{});
  EXPECT_EQ(evaluate_python_list("list(range(-5))"), List{});
  EXPECT_EQ(evaluate_python_list("range(1, 10, 4)"), (List{1, 5, 9}));
  EXPECT_EQ(evaluate_python_list("range(2**3)").size(), 8u);
  EXPECT_EQ(evaluate_python_list("range(5,)"), (List{0, 1, 2, 3, 4}));
  // At the ends of int64: no overflow in the length or the values.
  EXPECT_EQ(evaluate_python_list("range(9223372036854775807, 9223372036854775804, -1)"),
            (List{INT64_MAX, INT64_MAX - 1, INT64_MAX - 2}));
  EXPECT_EQ(evaluate_python_list("range(-9223372036854775807 - 1, 0, 9223372036854775807)"), (List{INT64_MIN, -1}));
}

TEST(PythonList, Comprehensions) {
  EXPECT_EQ(evaluate_python_list("[2**i for i in range(0, 6)]"), (List{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(evaluate_python_list("[x for x in range(10) if x % 3 == 0]"), (List{0, 3, 6, 9}));
  EXPECT_EQ(evaluate_python_list("[x for x in range(20) if x % 2 == 0 if x % 3 == 0]"), (List{0, 6, 12, 18}));
  EXPECT_EQ(evaluate_python_list("[x if x < 3 else -x for x in range(5)]"), (List{0, 1, 2, -3, -4}));
  EXPECT_EQ(evaluate_python_list("[i // 2 for i in range(-3, 3)]"), (List{-2, -1, -1, 0, 0, 1}));
  EXPECT_EQ(evaluate_python_list("[32 * k for k in list(range(1, 4))]"), (List{32, 64, 96}));
  EXPECT_EQ(evaluate_python_list("[x * 2 for x in [1, 2, 3]]"), (List{2, 4, 6}));
  EXPECT_EQ(evaluate_python_list("[1 for _ in range(3)]"), (List{1, 1, 1}));
  EXPECT_EQ(evaluate_python_list("[x for x in range(4) if False]"), List{});
}

TEST(PythonList, Concatenation) {
  EXPECT_EQ(evaluate_python_list("[1, 2] + list(range(4, 9, 4))"), (List{1, 2, 4, 8}));
  EXPECT_EQ(evaluate_python_list("list(range(2)) + [5] + [2**i for i in range(3) if i]"), (List{0, 1, 5, 2, 4}));
  EXPECT_EQ(evaluate_python_list("range(2) + range(2)"), (List{0, 1, 0, 1}));
  EXPECT_EQ(evaluate_python_list("list([1, 2] + [3])"), (List{1, 2, 3}));
}

TEST(PythonList, NonIntegersAreRejected) {
  EXPECT_TRUE(Fails("[1.5]", {"ktune parameters are integers", "1.5"}));
  EXPECT_TRUE(Fails("[1, 4/2]", {"integers", "'4/2' is the float 2.0"}));
  EXPECT_TRUE(Fails("[\"a\", \"b\"]", {"integers", "\"a\" is a string"}));
  EXPECT_TRUE(Fails("['fast', 'slow']", {"integers", "'fast' is a string"}));
  EXPECT_TRUE(Fails("[i / 2 for i in range(3)]", {"integers", "for i = 0"}));
  EXPECT_TRUE(Fails("range(1.5)", {"integers", "range() argument"}));
}

TEST(PythonList, OtherFormsAreRejectedWithTheAcceptedOnes) {
  // Every message names the text and lists the accepted forms.
  EXPECT_TRUE(Fails("1, 2, 4", {"'1, 2, 4'", "accepted forms", "expected '['"}));
  EXPECT_TRUE(Fails("", {"empty", "accepted forms"}));
  EXPECT_TRUE(Fails("[1, 2", {"'[' is never closed"}));
  EXPECT_TRUE(Fails("[1, 2)", {"closed by ')'"}));
  EXPECT_TRUE(Fails("[1, 2]]", {"unmatched ']'"}));
  EXPECT_TRUE(Fails("[1,,2]", {"empty element"}));
  EXPECT_TRUE(Fails("[1, 2] - [3]", {"expected '+'"}));
  EXPECT_TRUE(Fails("[1] +", {"after '+'"}));
  EXPECT_TRUE(Fails("tuple(range(3))", {"expected '['", "'tuple'"}));
  EXPECT_TRUE(Fails("{1, 2}", {"unexpected character '{'"}));
  EXPECT_TRUE(Fails("[[1, 2]]", {"'[[1, 2]]'", "accepted forms"}));
  EXPECT_TRUE(Fails("range()", {"1 to 3 arguments, not 0"}));
  EXPECT_TRUE(Fails("range(1, 2, 3, 4)", {"1 to 3 arguments, not 4"}));
  EXPECT_TRUE(Fails("range(1, 2, 0)", {"step must not be zero", "column 13"}));
  EXPECT_TRUE(Fails("list()", {"list() needs"}));
  EXPECT_TRUE(Fails("range(10**9)", {"more than the limit"}));
  EXPECT_TRUE(Fails("[1/0]", {"division by zero"}));
  EXPECT_TRUE(Fails("[x for x in range(3) for y in range(2)]", {"only one 'for'"}));
  EXPECT_TRUE(Fails("[for x in range(3)]", {"before 'for'"}));
  EXPECT_TRUE(Fails("[x for in range(3)]", {"loop variable"}));
  EXPECT_TRUE(Fails("[x for x range(3)]", {"expected 'in'"}));
  EXPECT_TRUE(Fails("[x for x in range(3) if]", {"'if' needs a condition"}));
  // Element errors come from the expression parser, at the column in the whole text.
  EXPECT_TRUE(Fails("[y for x in range(3)]", {"unknown parameter 'y' (did you mean 'x'?)", "column 2"}));
  EXPECT_TRUE(Fails("[1, 2 +]", {"ends too early", "column 8"}));
  EXPECT_TRUE(Fails("[n]", {"unknown parameter 'n'"}));
}

}  // namespace
}  // namespace ktune

// Constraint expressions against Python 3: every expected value below was worked out by
// hand and checked with python3; the differential test at the end asks python3 itself.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "ktune/expression.hpp"

namespace ktune {
namespace {

using testing::AssertionFailure;
using testing::AssertionResult;
using testing::AssertionSuccess;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

const std::vector<std::string> kAbc = {"a", "b", "c"};

Value Eval(std::string_view text, std::vector<int64_t> abc = {0, 0, 0}) {
  return Expression::parse(text, kAbc).evaluate(abc);
}

AssertionResult IsInt(std::string_view text, int64_t expected, std::vector<int64_t> abc = {0, 0, 0}) {
  Value v;
  try {
    v = Eval(text, abc);
  } catch (const std::exception& e) {
    return AssertionFailure() << "'" << text << "' threw: " << e.what();
  }
  if (!v.is_int()) {
    return AssertionFailure() << "'" << text << "' gave the float " << v.f << ", expected int " << expected;
  }
  if (v.i != expected) {
    return AssertionFailure() << "'" << text << "' gave " << v.i << ", expected " << expected;
  }
  return AssertionSuccess();
}

// Exact: same bits, so -0.0 differs from 0.0; NaN matches NaN.
AssertionResult IsFloat(std::string_view text, double expected, std::vector<int64_t> abc = {0, 0, 0}) {
  Value v;
  try {
    v = Eval(text, abc);
  } catch (const std::exception& e) {
    return AssertionFailure() << "'" << text << "' threw: " << e.what();
  }
  if (v.is_int()) {
    return AssertionFailure() << "'" << text << "' gave the int " << v.i << ", expected float " << expected;
  }
  bool same =
      (std::isnan(v.f) && std::isnan(expected)) || std::bit_cast<uint64_t>(v.f) == std::bit_cast<uint64_t>(expected);
  if (!same) {
    return AssertionFailure() << "'" << text << "' gave " << std::hexfloat << v.f << ", expected " << expected;
  }
  return AssertionSuccess();
}

AssertionResult ParseFails(std::string_view text, std::size_t column, std::string_view words,
                           std::span<const std::string> names = kAbc) {
  try {
    Expression::parse(text, names);
  } catch (const ParseError& e) {
    std::string message = e.what();
    if (e.column() != column) {
      return AssertionFailure() << "'" << text << "': column " << e.column() << ", expected " << column << " ("
                                << message << ")";
    }
    if (message.find(words) == std::string::npos) {
      return AssertionFailure() << "'" << text << "': message '" << message << "' lacks '" << words << "'";
    }
    return AssertionSuccess();
  }
  return AssertionFailure() << "'" << text << "' parsed";
}

AssertionResult EvalFails(std::string_view text, std::string_view words, std::vector<int64_t> abc = {0, 0, 0}) {
  Expression e = Expression::parse(text, kAbc);
  try {
    Value v = e.evaluate(abc);
    return AssertionFailure() << "'" << text << "' gave " << (v.is_int() ? v.i : v.f);
  } catch (const EvalError& error) {
    std::string message = error.what();
    if (message.find(words) == std::string::npos) {
      return AssertionFailure() << "'" << text << "': message '" << message << "' lacks '" << words << "'";
    }
    return AssertionSuccess();
  }
}

TEST(Expression, Literals) {
  EXPECT_TRUE(IsInt("42", 42));
  EXPECT_TRUE(IsInt("0x1F", 31));
  EXPECT_TRUE(IsInt("0X10", 16));
  EXPECT_TRUE(IsInt("0o17", 15));
  EXPECT_TRUE(IsInt("0b101", 5));
  EXPECT_TRUE(IsInt("1_000", 1000));
  EXPECT_TRUE(IsInt("00", 0));
  EXPECT_TRUE(IsInt("9223372036854775807", kMax));
  EXPECT_TRUE(IsFloat("1.5", 1.5));
  EXPECT_TRUE(IsFloat(".5", 0.5));
  EXPECT_TRUE(IsFloat("1.", 1.0));
  EXPECT_TRUE(IsFloat("1e3", 1000.0));
  EXPECT_TRUE(IsFloat("2.5E-1", 0.25));
  EXPECT_TRUE(IsFloat("1e309", HUGE_VAL));  // Python: inf
  EXPECT_TRUE(IsInt("True + true", 2));
  EXPECT_TRUE(IsInt("False + false", 0));
}

TEST(Expression, ArithmeticPrecedence) {
  EXPECT_TRUE(IsInt("1 + 2 * 3", 7));
  EXPECT_TRUE(IsInt("(1 + 2) * 3", 9));
  EXPECT_TRUE(IsInt("10 - 4 - 3", 3));
  EXPECT_TRUE(IsInt("2 * 3 % 4", 2));  // (2*3) % 4
  EXPECT_TRUE(IsInt("100 // 10 // 3", 3));
  EXPECT_TRUE(IsInt("2 + 3 << 1", 10));            // (2+3) << 1
  EXPECT_TRUE(IsInt("1 << 2 + 1", 8));             // 1 << 3
  EXPECT_TRUE(IsInt("6 & 3 | 8", 10));             // (6&3) | 8 = 2 | 8
  EXPECT_TRUE(IsInt("1 | 6 & 3", 3));              // 1 | 2
  EXPECT_TRUE(IsInt("5 ^ 1 & 3", 4));              // 5 ^ (1&3)
  EXPECT_TRUE(IsInt("1 | 2 ^ 3", 1));              // 1 | (2^3)
  EXPECT_TRUE(IsInt("3 ^ 1 | 4", 6));              // (3^1) | 4
  EXPECT_TRUE(IsInt("a & 1 == 0", 1, {4, 0, 0}));  // Python: (a & 1) == 0; C differs
  EXPECT_TRUE(IsInt("a & 1 == 0", 0, {5, 0, 0}));
  EXPECT_TRUE(IsInt("1 + 2 == 3", 1));
  EXPECT_TRUE(IsInt("~1 + 1", -1));  // (~1) + 1
  EXPECT_TRUE(IsInt("- - 3", 3));
  EXPECT_TRUE(IsInt("--3", 3));
  EXPECT_TRUE(IsInt("2 * -3", -6));
  EXPECT_TRUE(IsInt("+a", -2, {-2, 0, 0}));
  EXPECT_TRUE(IsInt("a*b-c", 13, {3, 5, 2}));
  EXPECT_TRUE(IsInt("a-b*c", -7, {3, 5, 2}));
}

TEST(Expression, Power) {
  EXPECT_TRUE(IsInt("-2**2", -4));  // -(2**2)
  EXPECT_TRUE(IsInt("(-2)**2", 4));
  EXPECT_TRUE(IsFloat("2**-1", 0.5));
  EXPECT_TRUE(IsInt("2**3**2", 512));  // right-associative
  EXPECT_TRUE(IsInt("-a**2", -9, {3, 0, 0}));
  EXPECT_TRUE(IsInt("2 * 3 ** 2", 18));
  EXPECT_TRUE(IsInt("2 ** 10", 1024));
  EXPECT_TRUE(IsInt("0 ** 0", 1));
  EXPECT_TRUE(IsInt("(-3) ** 3", -27));
  EXPECT_TRUE(IsInt("2 ** 62", int64_t{1} << 62));
  EXPECT_TRUE(IsInt("(-2) ** 63", kMin));
  EXPECT_TRUE(IsFloat("2 ** 63", 9223372036854775808.0));  // overflow: nearest float
  EXPECT_TRUE(IsFloat("2 ** 64", 18446744073709551616.0));
  EXPECT_TRUE(IsFloat("10 ** -2", 0.01));
  EXPECT_TRUE(IsFloat("(-2) ** -1", -0.5));
  EXPECT_TRUE(IsFloat("2 ** 0.5", std::sqrt(2.0)));
  EXPECT_TRUE(IsFloat("4 ** 0.5", 2.0));
  EXPECT_TRUE(IsFloat("2.0 ** 2", 4.0));
  EXPECT_TRUE(IsFloat("(-8.0) ** 3", -512.0));
  EXPECT_TRUE(IsFloat("0.0 ** 0", 1.0));
  EXPECT_TRUE(IsInt("a ** b", 81, {3, 4, 0}));
  EXPECT_TRUE(IsFloat("a ** b", 1.0 / 9.0, {3, -2, 0}));
  EXPECT_TRUE(EvalFails("0 ** -1", "division by zero"));
  EXPECT_TRUE(EvalFails("0.0 ** -2.5", "division by zero"));
  EXPECT_TRUE(EvalFails("(-8) ** (1/3)", "complex"));  // Python gives a complex number
  EXPECT_TRUE(EvalFails("10.0 ** 400", "overflow"));   // Python: OverflowError
}

TEST(Expression, FloorDivisionAndModuloFollowPython) {
  EXPECT_TRUE(IsInt("7 // 2", 3));
  EXPECT_TRUE(IsInt("-7 // 2", -4));
  EXPECT_TRUE(IsInt("7 // -2", -4));
  EXPECT_TRUE(IsInt("-7 // -2", 3));
  EXPECT_TRUE(IsInt("-8 // 2", -4));
  EXPECT_TRUE(IsInt("7 % 3", 1));
  EXPECT_TRUE(IsInt("-7 % 3", 2));
  EXPECT_TRUE(IsInt("7 % -3", -2));
  EXPECT_TRUE(IsInt("-7 % -3", -1));
  EXPECT_TRUE(IsInt("-6 % 3", 0));
  // The same through variables: the evaluator's fast and slow paths.
  EXPECT_TRUE(IsInt("a // b", -4, {-7, 2, 0}));
  EXPECT_TRUE(IsInt("a // b", -4, {7, -2, 0}));
  EXPECT_TRUE(IsInt("a % b", 2, {-7, 3, 0}));
  EXPECT_TRUE(IsInt("a % b", -2, {7, -3, 0}));
  EXPECT_TRUE(IsInt("a % b", 0, {kMin, -1, 0}));
  EXPECT_TRUE(IsFloat("a // b", 9223372036854775808.0, {kMin, -1, 0}));  // 2**63
  EXPECT_TRUE(IsInt("a // b", 7, {-7, -1, 0}));
  EXPECT_TRUE(IsFloat("7.5 % -2", -0.5));
  EXPECT_TRUE(IsFloat("-7.5 % 2", 0.5));
  EXPECT_TRUE(IsFloat("7.5 % 2", 1.5));
  EXPECT_TRUE(IsFloat("6.0 % -3", -0.0));  // zero takes the divisor's sign
  EXPECT_TRUE(IsFloat("-6.0 % 3", 0.0));
  EXPECT_TRUE(IsFloat("7.5 // 2", 3.0));
  EXPECT_TRUE(IsFloat("-7.5 // 2", -4.0));
  EXPECT_TRUE(IsFloat("7 // 2.0", 3.0));
  EXPECT_TRUE(IsFloat("-0.5 // 1", -1.0));
  EXPECT_TRUE(IsFloat("0.0 // -3", -0.0));
  EXPECT_TRUE(IsFloat("1 // 0.1", 9.0));  // Python: 9.0 (0.1 is a bit above 1/10)
  EXPECT_TRUE(IsFloat("1 % 0.1", 0.09999999999999995));
}

TEST(Expression, TrueDivision) {
  EXPECT_TRUE(IsFloat("7 / 2", 3.5));
  EXPECT_TRUE(IsFloat("-7 / 2", -3.5));
  EXPECT_TRUE(IsFloat("6 / 3", 2.0));
  EXPECT_TRUE(IsFloat("1 / 3", 1.0 / 3.0));
  EXPECT_TRUE(IsFloat("0 / -5", -0.0));
  EXPECT_TRUE(IsFloat("a / b", 2.5, {5, 2, 0}));
  // Above 2**53 Python rounds the exact quotient once; double(x) / double(y) would give
  // 5918289650760.402.
  EXPECT_TRUE(IsFloat("5258986265376043509 / 888599", 5918289650760.403));
  EXPECT_TRUE(IsFloat("-5258986265376043509 / 888599", -5918289650760.403));
}

TEST(Expression, DivisionByZero) {
  EXPECT_TRUE(EvalFails("a / b", "division by zero", {1, 0, 0}));
  EXPECT_TRUE(EvalFails("a // b", "division by zero", {1, 0, 0}));
  EXPECT_TRUE(EvalFails("a % b", "division by zero", {1, 0, 0}));
  EXPECT_TRUE(EvalFails("1.5 / 0.0", "division by zero"));
  EXPECT_TRUE(EvalFails("1.5 % 0", "division by zero"));
  EXPECT_TRUE(EvalFails("1 // 0.0", "division by zero"));
  // The message names the expression, the column and the values.
  EXPECT_TRUE(EvalFails("a % b", "division by zero in 'a % b' at column 3: 7 % 0", {7, 0, 0}));
  // A constant that fails is not folded at parse time; it fails when (if) evaluated.
  EXPECT_TRUE(EvalFails("a + 1 / 0", "division by zero"));
}

TEST(Expression, ComparisonsChain) {
  EXPECT_TRUE(IsInt("1 < 2 < 3", 1));
  EXPECT_TRUE(IsInt("1 < 3 < 2", 0));
  EXPECT_TRUE(IsInt("3 > 2 > 1", 1));
  EXPECT_TRUE(IsInt("1 < 2 > 0", 1));  // 1 < 2 and 2 > 0
  EXPECT_TRUE(IsInt("(1 < 2) < 3", 1));
  EXPECT_TRUE(IsInt("3 > 2 == 1", 0));  // 3 > 2 and 2 == 1; C would say 1
  EXPECT_TRUE(IsInt("(3 > 2) == 1", 1));
  EXPECT_TRUE(IsInt("2 == 2 != 3", 1));
  EXPECT_TRUE(IsInt("1 < 2 < 3 < 4", 1));
  EXPECT_TRUE(IsInt("1 < 2 < 3 < 3", 0));
  EXPECT_TRUE(IsInt("a < b < c", 1, {1, 2, 3}));
  EXPECT_TRUE(IsInt("a < b < c", 0, {1, 2, 2}));
  EXPECT_TRUE(IsInt("a < b <= c", 1, {1, 2, 2}));
  EXPECT_TRUE(IsInt("0 < a < 10", 0, {-1, 0, 0}));
  // A failed link stops the chain: the division is never evaluated.
  EXPECT_TRUE(IsInt("1 > 2 < 1 / 0", 0));
  EXPECT_TRUE(IsInt("a >= b", 1, {5, 5, 0}));
  EXPECT_TRUE(IsInt("a != b", 0, {5, 5, 0}));
}

TEST(Expression, MixedIntFloatComparisonIsExact) {
  EXPECT_TRUE(IsInt("1 == 1.0", 1));
  EXPECT_TRUE(IsInt("0.1 + 0.2 == 0.3", 0));
  EXPECT_TRUE(IsInt("2**53 + 1 > 2.0**53", 1));  // a double conversion would say False
  EXPECT_TRUE(IsInt("9007199254740993 == 9007199254740992.0", 0));
  EXPECT_TRUE(IsInt("9007199254740992 == 9007199254740992.0", 1));
  EXPECT_TRUE(IsInt("9223372036854775807 < 9223372036854775808.0", 1));
  EXPECT_TRUE(IsInt("9223372036854775807 == 9223372036854775807.0", 0));  // that is 2**63
  EXPECT_TRUE(IsInt("a == -9223372036854775808.0", 1, {kMin, 0, 0}));
  EXPECT_TRUE(IsInt("a > -1e300", 1, {kMin, 0, 0}));
  EXPECT_TRUE(IsInt("a < 2.5", 1, {2, 0, 0}));
  EXPECT_TRUE(IsInt("a < -2.5", 1, {-3, 0, 0}));
  EXPECT_TRUE(IsInt("a > -2.5", 1, {-2, 0, 0}));
  EXPECT_TRUE(IsInt("2.5 > a", 1, {2, 0, 0}));
  EXPECT_TRUE(IsInt("1e309 > a", 1, {kMax, 0, 0}));
  // NaN (inf - inf) is unordered and unequal to everything, itself included.
  EXPECT_TRUE(IsInt("1e309 - 1e309 != 1e309 - 1e309", 1));
  EXPECT_TRUE(IsInt("1e309 - 1e309 == 1e309 - 1e309", 0));
  EXPECT_TRUE(IsInt("a < 1e309 - 1e309", 0, {1, 0, 0}));
  EXPECT_TRUE(IsInt("a >= 1e309 - 1e309", 0, {1, 0, 0}));
}

TEST(Expression, AndOrReturnTheDecidingOperand) {
  EXPECT_TRUE(IsInt("a and b", 5, {3, 5, 0}));
  EXPECT_TRUE(IsInt("a and b", 0, {0, 5, 0}));
  EXPECT_TRUE(IsInt("a or b", 5, {0, 5, 0}));
  EXPECT_TRUE(IsInt("a or b", 3, {3, 5, 0}));
  EXPECT_TRUE(IsInt("0.0 or 2", 2));
  EXPECT_TRUE(IsInt("2.5 and 0", 0));
  EXPECT_TRUE(IsFloat("0.0 and 5", 0.0));
  EXPECT_TRUE(IsFloat("a or 2.5", 2.5));
  EXPECT_TRUE(IsInt("1 or 0 and 0", 1));  // 1 or (0 and 0)
  EXPECT_TRUE(IsInt("0 and 1 or 2", 2));  // (0 and 1) or 2
  EXPECT_TRUE(IsInt("1 or 1 / 0", 1));    // short circuit: no division
  EXPECT_TRUE(IsInt("0 and 1 / 0", 0));
}

TEST(Expression, CLogicalOperatorsReturnZeroOrOne) {
  EXPECT_TRUE(IsInt("a && b", 1, {3, 5, 0}));
  EXPECT_TRUE(IsInt("a && b", 0, {3, 0, 0}));
  EXPECT_TRUE(IsInt("a || b", 1, {0, 5, 0}));
  EXPECT_TRUE(IsInt("a || b", 0, {0, 0, 0}));
  EXPECT_TRUE(IsInt("2.5 && 3", 1));
  EXPECT_TRUE(IsInt("0 || 0.0", 0));
  EXPECT_TRUE(IsInt("!a", 1, {0, 0, 0}));
  EXPECT_TRUE(IsInt("!a", 0, {7, 0, 0}));
  EXPECT_TRUE(IsInt("!0.5", 0));
  EXPECT_TRUE(IsInt("not 0.0", 1));
  EXPECT_TRUE(IsInt("a || b && c", 1, {1, 0, 0}));  // a || (b && c)
  EXPECT_TRUE(IsInt("1 || 1 / 0", 1));
  EXPECT_TRUE(IsInt("0 && 1 / 0", 0));
  EXPECT_TRUE(IsInt("a and b || c", 1, {2, 0, 4}));  // (a and b) || c
}

TEST(Expression, NotIsLooseBangIsTight) {
  // Python's `not` applies to the whole comparison; C's `!` to the operand next to it.
  EXPECT_TRUE(IsInt("not a == b", 1, {2, 1, 0}));   // not (2 == 1)
  EXPECT_TRUE(IsInt("!a == b", 0, {2, 1, 0}));      // (!2) == 1
  EXPECT_TRUE(IsInt("!a + 1", 2, {0, 0, 0}));       // (!0) + 1
  EXPECT_TRUE(IsInt("not a + 1", 1, {-1, 0, 0}));   // not (-1 + 1)
  EXPECT_TRUE(IsInt("not a and b", 7, {0, 7, 0}));  // (not a) and b
  EXPECT_TRUE(IsInt("not not a", 1, {9, 0, 0}));
  EXPECT_TRUE(IsInt("!!a", 1, {9, 0, 0}));
  EXPECT_TRUE(IsInt("!a**2", 0, {3, 0, 0}));  // !(a**2)
  EXPECT_TRUE(IsInt("a == !b", 1, {1, 0, 0}));
}

TEST(Expression, Ternaries) {
  EXPECT_TRUE(IsInt("1 if a else 2", 2, {0, 0, 0}));
  EXPECT_TRUE(IsInt("1 if a else 2", 1, {5, 0, 0}));
  EXPECT_TRUE(IsInt("a ? 10 : 20", 10, {5, 0, 0}));
  EXPECT_TRUE(IsInt("a ? 10 : 20", 20, {0, 0, 0}));
  EXPECT_TRUE(IsInt("1 if a else 2 if b else 3", 3, {0, 0, 0}));
  EXPECT_TRUE(IsInt("1 if a else 2 if b else 3", 2, {0, 1, 0}));
  EXPECT_TRUE(IsInt("a ? 1 : b ? 2 : 3", 2, {0, 1, 0}));
  EXPECT_TRUE(IsInt("a ? b ? 1 : 2 : 3", 2, {1, 0, 0}));
  EXPECT_TRUE(IsInt("1 + 1 if 0 else 5", 5));  // the ternary is loosest
  EXPECT_TRUE(IsInt("a or b ? 1 : 2", 1, {0, 3, 0}));
  EXPECT_TRUE(IsInt("a < b ? a : b", 2, {4, 2, 0}));
  EXPECT_TRUE(IsFloat("0.5 if 1 else 2", 0.5));
  EXPECT_TRUE(IsInt("1 if 1 else 1 / 0", 1));  // the other branch is not evaluated
  EXPECT_TRUE(IsInt("(1 if a else 2) * 10", 20));
}

TEST(Expression, Functions) {
  EXPECT_TRUE(IsInt("min(3, 1, 2)", 1));
  EXPECT_TRUE(IsInt("max(3, 1, 2)", 3));
  EXPECT_TRUE(IsInt("min(a, b)", -4, {-4, 2, 0}));
  EXPECT_TRUE(IsInt("max(a, b, c,)", 9, {-4, 2, 9}));
  EXPECT_TRUE(IsInt("max(1, 1.0)", 1));  // equal: the first one wins
  EXPECT_TRUE(IsFloat("max(1.0, 1)", 1.0));
  EXPECT_TRUE(IsFloat("max(2, 2.5)", 2.5));
  EXPECT_TRUE(IsInt("min(2, 2.5)", 2));
  EXPECT_TRUE(IsInt("abs(-3)", 3));
  EXPECT_TRUE(IsFloat("abs(-2.5)", 2.5));
  EXPECT_TRUE(IsInt("abs(a)", 7, {-7, 0, 0}));
  EXPECT_TRUE(IsInt("min(1, 2) + max(3, 4) * abs(-1)", 5));
  EXPECT_TRUE(IsInt("max(a if b else 1, c)", 1, {5, 0, 0}));
}

TEST(Expression, IntegerOverflowTurnsIntoFloat) {
  EXPECT_TRUE(IsFloat("9223372036854775807 + 1", 9223372036854775808.0));
  EXPECT_TRUE(IsFloat("-9223372036854775807 - 2", -9223372036854775808.0));
  EXPECT_TRUE(IsInt("-9223372036854775807 - 1", kMin));
  EXPECT_TRUE(IsFloat("a * a", 18446744073709551616.0, {int64_t{1} << 32, 0, 0}));
  EXPECT_TRUE(IsInt("a * b", int64_t{1} << 62, {int64_t{1} << 31, int64_t{1} << 31, 0}));
  EXPECT_TRUE(IsFloat("-a", 9223372036854775808.0, {kMin, 0, 0}));
  EXPECT_TRUE(IsFloat("abs(a)", 9223372036854775808.0, {kMin, 0, 0}));
  EXPECT_TRUE(IsFloat("a + b", 18446744073709551614.0, {kMax, kMax, 0}));
  EXPECT_TRUE(IsFloat("1 << 63", 9223372036854775808.0));
  EXPECT_TRUE(IsFloat("3 << 70", 3541774862152233910272.0));
  EXPECT_TRUE(IsInt("1 << 62", int64_t{1} << 62));
  EXPECT_TRUE(IsInt("-1 << 63", kMin));
}

TEST(Expression, BitwiseNeedsIntegers) {
  EXPECT_TRUE(IsInt("-9 >> 1", -5));  // arithmetic: floors
  EXPECT_TRUE(IsInt("-1 >> 100", -1));
  EXPECT_TRUE(IsInt("5 >> 64", 0));
  EXPECT_TRUE(IsInt("~5", -6));
  EXPECT_TRUE(IsInt("~-1", 0));
  EXPECT_TRUE(IsInt("a ^ b", 6, {5, 3, 0}));
  EXPECT_TRUE(IsInt("a | b", 7, {5, 3, 0}));
  EXPECT_TRUE(IsInt("a & b", 1, {5, 3, 0}));
  EXPECT_TRUE(IsInt("a << b", 40, {5, 3, 0}));
  EXPECT_TRUE(IsInt("True & 1", 1));
  EXPECT_TRUE(EvalFails("1.5 & 1", "operator '&' needs integers"));
  EXPECT_TRUE(EvalFails("a | 2.0", "operator '|'"));
  EXPECT_TRUE(EvalFails("a ^ 0.5", "operator '^'"));
  EXPECT_TRUE(EvalFails("1 << 1.0", "operator '<<'"));
  EXPECT_TRUE(EvalFails("~1.5", "operator '~'"));
  EXPECT_TRUE(EvalFails("1 << a", "negative shift count", {-1, 0, 0}));
  EXPECT_TRUE(EvalFails("1 >> a", "negative shift count", {-1, 0, 0}));
}

TEST(Expression, ParseErrorsPointAtTheToken) {
  EXPECT_TRUE(ParseFails("a = b", 3, "use '==' for comparison"));
  EXPECT_TRUE(ParseFails("a <= = b", 6, "use '=='"));
  EXPECT_TRUE(ParseFails("a => b", 3, "write '>='"));
  EXPECT_TRUE(ParseFails("a +", 4, "ends too early"));
  EXPECT_TRUE(ParseFails("a + * b", 5, "found '*'"));
  EXPECT_TRUE(ParseFails("(a + b", 7, "missing ')' to close the '(' at column 1"));
  EXPECT_TRUE(ParseFails("(a + b c", 8, "expected ')'"));
  EXPECT_TRUE(ParseFails("a)", 2, "unmatched ')'"));
  EXPECT_TRUE(ParseFails("a b", 3, "after a complete expression"));
  EXPECT_TRUE(ParseFails("1 if a", 7, "'else'"));
  EXPECT_TRUE(ParseFails("1 if a then 2", 8, "expected 'else'"));
  EXPECT_TRUE(ParseFails("a ? b", 6, "':'"));
  EXPECT_TRUE(ParseFails("a else b", 3, "'else' without 'if'"));
  EXPECT_TRUE(ParseFails("", 1, "empty expression"));
  EXPECT_TRUE(ParseFails("   ", 1, "empty expression"));
  EXPECT_TRUE(ParseFails("a == not b", 6, "'not' cannot appear here"));
  EXPECT_TRUE(ParseFails("foo(1)", 1, "unknown function 'foo'"));
  EXPECT_TRUE(ParseFails("a + mx(1, 2)", 5, "did you mean 'max'?"));
  EXPECT_TRUE(ParseFails("a(1)", 1, "'a' is a parameter, not a function"));
  EXPECT_TRUE(ParseFails("max(a)", 1, "at least two arguments (1 given)"));
  EXPECT_TRUE(ParseFails("1 + min()", 5, "at least two arguments (0 given)"));
  EXPECT_TRUE(ParseFails("abs(a, b)", 1, "exactly one argument (2 given)"));
  EXPECT_TRUE(ParseFails("max(a b)", 7, "expected ',' or ')'"));
  EXPECT_TRUE(ParseFails("max(a, b", 9, "missing ')'"));
  EXPECT_TRUE(ParseFails("a @ b", 3, "unexpected character '@'"));
  EXPECT_TRUE(ParseFails("1.5f", 1, "invalid number '1.5f'"));
  EXPECT_TRUE(ParseFails("a + 1024u", 5, "invalid number '1024u'"));
  EXPECT_TRUE(ParseFails("0123", 1, "leading zeros"));
  EXPECT_TRUE(ParseFails("1e", 1, "exponent"));
  EXPECT_TRUE(ParseFails("0x", 1, "hexadecimal digits"));
  EXPECT_TRUE(ParseFails("a < 99999999999999999999", 5, "does not fit in 64 bits"));
  EXPECT_TRUE(ParseFails("a == \"x\"", 6, "strings"));
  EXPECT_TRUE(ParseFails("a == 'x", 6, "unterminated string"));
  EXPECT_TRUE(ParseFails("a for b", 3, "after a complete expression"));
  EXPECT_TRUE(ParseFails("a < b <", 8, "ends too early"));
}

TEST(Expression, UnknownNamesSuggestTheClosest) {
  const std::vector<std::string> names = {"TK", "block_size_x", "block_size_y"};
  EXPECT_TRUE(ParseFails("TQ * 2", 1, "unknown parameter 'TQ' (did you mean 'TK'?)", names));
  EXPECT_TRUE(ParseFails("TK * block_sizex", 6, "did you mean 'block_size_x'?", names));
  EXPECT_TRUE(ParseFails("BLOCK_SIZE_Y > 1", 1, "did you mean 'block_size_y'?", names));
  EXPECT_TRUE(ParseFails("1 + zzz", 5,
                         "unknown parameter 'zzz' (the parameters are: TK, block_size_x, "
                         "block_size_y)",
                         names));
  EXPECT_TRUE(ParseFails("x > 1", 1, "no parameters are defined", {}));
}

TEST(Expression, SlotsAndText) {
  Expression e = Expression::parse("c + a * a > 12 * 1024", kAbc);
  EXPECT_EQ(e.slots(), (std::vector<int>{0, 2}));
  EXPECT_EQ(e.text(), "c + a * a > 12 * 1024");
  EXPECT_TRUE(Expression::parse("2 * 3 == 6", kAbc).slots().empty());
  // Slots read only on one branch still count: the expression reads them.
  EXPECT_EQ(Expression::parse("b if 0 else c", kAbc).slots(), (std::vector<int>{1, 2}));
  // Later slots need not be bound when the expression does not read them.
  const int64_t just_a[] = {32};
  EXPECT_TRUE(Expression::parse("a % 32 == 0", kAbc).holds(just_a));
  EXPECT_THROW(Expression::parse("c > 0", kAbc).evaluate(just_a), EvalError);
}

TEST(Expression, DeepAndLongExpressions) {
  // Deep enough to need more stack cells than the evaluator keeps locally.
  std::string nested = "-a";
  for (int k = 0; k < 99; ++k) nested = "-a + (" + nested + ")";
  EXPECT_TRUE(IsInt(nested, -200, {2, 0, 0}));
  nested = "a";
  for (int k = 0; k < 99; ++k) nested = "a * 1 + (" + nested + ")";
  EXPECT_TRUE(IsInt(nested, 200, {2, 0, 0}));
  std::string sum = "a";
  for (int k = 0; k < 499; ++k) sum += " + a";
  EXPECT_TRUE(IsInt(sum, 500, {1, 0, 0}));
  // Limits give errors, not stack overflows.
  EXPECT_THROW(Expression::parse(std::string(5000, '(') + "1" + std::string(5000, ')'), kAbc), ParseError);
  std::string too_long = "a";
  for (int k = 0; k < 5000; ++k) too_long += "+a";
  EXPECT_THROW(Expression::parse(too_long, kAbc), ParseError);
  EXPECT_THROW(Expression::parse(std::string(5000, '-') + "1", kAbc), ParseError);
}

TEST(Expression, CaretAt) {
  EXPECT_EQ(caret_at("a = b", 3), "a = b\n  ^");
  EXPECT_EQ(caret_at("a +", 4), "a +\n   ^");
  EXPECT_EQ(caret_at("a\tb", 3), "a b\n  ^");
  EXPECT_EQ(caret_at("ab", 99), "ab\n  ^");
}

// ---- The constraints of the two T1 files, on hand-worked points ----------------------

class T1Constraints : public testing::Test {
 protected:
  struct Point {
    int64_t block_size_x, block_size_y, tile_size_x, tile_size_y, tile_stride_x, tile_stride_y, use_padding, use_shmem,
        filter_width, filter_height;
  };

  bool Holds(std::string_view constraint, const Point& p) {
    static const std::vector<std::string> names = {"block_size_x",  "block_size_y",  "tile_size_x", "tile_size_y",
                                                   "tile_stride_x", "tile_stride_y", "use_padding", "use_shmem",
                                                   "filter_width",  "filter_height"};
    const int64_t values[] = {p.block_size_x,  p.block_size_y, p.tile_size_x, p.tile_size_y,  p.tile_stride_x,
                              p.tile_stride_y, p.use_padding,  p.use_shmem,   p.filter_width, p.filter_height};
    Value v = Expression::parse(constraint, names).evaluate(values);
    EXPECT_TRUE(v.is_int()) << constraint;
    return v.truthy();
  }

  // bx, by, tx, ty, sx, sy, pad, shmem, fw, fh
  Point p0{32, 8, 1, 1, 0, 0, 0, 0, 17, 17};
  Point p1{48, 16, 2, 4, 1, 1, 1, 1, 17, 17};
  Point p2{64, 32, 1, 2, 1, 0, 1, 0, 15, 15};
  Point p3{16, 1, 8, 1, 0, 1, 0, 1, 3, 3};
  Point p4{128, 8, 4, 8, 1, 1, 1, 1, 17, 17};
  Point p5{32, 33, 2, 2, 0, 0, 1, 1, 1, 1};
};

TEST_F(T1Constraints, PaddingOnlyForUnalignedBlocks) {
  const char* c = "use_padding==0 or block_size_x % 32 != 0";
  EXPECT_TRUE(Holds(c, p0));   // no padding
  EXPECT_TRUE(Holds(c, p1));   // padding, 48 % 32 = 16
  EXPECT_FALSE(Holds(c, p2));  // padding, 64 % 32 = 0
  EXPECT_FALSE(Holds(c, p4));  // padding, 128 % 32 = 0
  EXPECT_FALSE(Holds(c, p5));  // padding, 32 % 32 = 0
}

TEST_F(T1Constraints, ThreadsPerBlock) {
  const char* c = "block_size_x*block_size_y<=1024";
  EXPECT_TRUE(Holds(c, p0));   // 256
  EXPECT_TRUE(Holds(c, p1));   // 768
  EXPECT_FALSE(Holds(c, p2));  // 2048
  EXPECT_TRUE(Holds(c, p4));   // 1024, the boundary
  EXPECT_FALSE(Holds(c, p5));  // 1056
}

TEST_F(T1Constraints, PaddingNeedsSharedMemory) {
  const char* c = "use_padding==0 or use_shmem != 0";
  EXPECT_TRUE(Holds(c, p0));   // no padding
  EXPECT_TRUE(Holds(c, p1));   // padding with shmem
  EXPECT_FALSE(Holds(c, p2));  // padding without shmem
  EXPECT_TRUE(Holds(c, p3));   // no padding, shmem
}

TEST_F(T1Constraints, SharedMemoryFits) {
  const char* c =
      "use_shmem == 0 or (((block_size_x*tile_size_x+(filter_width-1)))*"
      "((block_size_y*tile_size_y+(filter_height-1)))) < 12*1024";
  EXPECT_TRUE(Holds(c, p0));   // no shmem
  EXPECT_TRUE(Holds(c, p1));   // (96+16) * (64+16) = 8960 < 12288
  EXPECT_TRUE(Holds(c, p2));   // no shmem (the tile would be 6084 anyway)
  EXPECT_TRUE(Holds(c, p3));   // (128+2) * (1+2) = 390
  EXPECT_FALSE(Holds(c, p4));  // (512+16) * (64+16) = 42240
  Point edge{16, 32, 8, 3, 0, 0, 0, 1, 1, 1};
  EXPECT_FALSE(Holds(c, edge));  // 128 * 96 = 12288: not strictly less
  edge.filter_height = 0;
  EXPECT_TRUE(Holds(c, edge));  // 128 * 95 = 12160
}

TEST_F(T1Constraints, ChainedThreadRange) {
  const char* c = "32 <= block_size_x * block_size_y <= 1024";
  EXPECT_TRUE(Holds(c, p0));   // 256
  EXPECT_FALSE(Holds(c, p2));  // 2048
  EXPECT_FALSE(Holds(c, p3));  // 16
  EXPECT_TRUE(Holds(c, p4));   // 1024
  Point q = p0;
  q.block_size_x = 32, q.block_size_y = 1;
  EXPECT_TRUE(Holds(c, q));  // 32, the lower boundary
  q.block_size_x = 31;
  EXPECT_FALSE(Holds(c, q));
  q.block_size_x = 1025;
  EXPECT_FALSE(Holds(c, q));
}

TEST_F(T1Constraints, TileStrides) {
  const char* cx = "tile_size_x > 1 or tile_stride_x == 0";
  const char* cy = "tile_size_y > 1 or tile_stride_y == 0";
  EXPECT_TRUE(Holds(cx, p0));   // tile 1, stride 0
  EXPECT_TRUE(Holds(cx, p1));   // tile 2
  EXPECT_FALSE(Holds(cx, p2));  // tile 1, stride 1
  EXPECT_TRUE(Holds(cy, p0));
  EXPECT_TRUE(Holds(cy, p2));   // tile 2
  EXPECT_FALSE(Holds(cy, p3));  // tile 1, stride 1
  EXPECT_TRUE(Holds(cy, p4));   // tile 8
}

// ---- Differential test against python3 -----------------------------------------------

// Random expressions in two spellings: ours (which may use && || ! ?: and true/false)
// and a Python one that means the same. Python operators are written identically in
// both, with random parentheses, so that Python's parser checks our precedence; the C
// forms are always parenthesized and translated.
class ExpressionGenerator {
 public:
  struct Text {
    std::string ours, python;
  };

  explicit ExpressionGenerator(uint64_t seed) : rng_(seed) {}

  Text expression(int depth) {
    if (depth == 0 || pick(5) == 0) return leaf();
    switch (pick(15)) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4: {
        static const char* ops[] = {"+", "-",  "*", "/",  "//", "%",  "&",   "|", "^",
                                    "<", "<=", ">", ">=", "==", "!=", "and", "or"};
        return join(operand(depth), ops[pick(std::size(ops))], operand(depth));
      }
      case 5: {  // small integer exponents: no huge ints, no complex numbers
        static const char* exponents[] = {"0", "1", "2", "3", "-1", "-2"};
        return join(operand(depth), "**", literal(exponents[pick(std::size(exponents))]));
      }
      case 6: {
        static const char* counts[] = {"0", "1", "3", "7", "62", "63", "64", "70", "-1"};
        return join(operand(depth), pick(2) ? "<<" : ">>", literal(counts[pick(std::size(counts))]));
      }
      case 7: {
        static const char* ops[] = {"-", "+", "~", "not "};
        std::string op = ops[pick(std::size(ops))];
        Text x = operand(depth);
        return {op + x.ours, op + x.python};
      }
      case 8: {
        Text x = expression(depth - 1), c = expression(depth - 1), y = expression(depth - 1);
        return {x.ours + " if " + c.ours + " else " + y.ours, x.python + " if " + c.python + " else " + y.python};
      }
      case 9: {
        const char* f = pick(3) == 0 ? "abs" : pick(2) ? "min" : "max";
        int n = f[0] == 'a' ? 1 : 2 + pick(2);
        Text t{std::string(f) + "(", std::string(f) + "("};
        for (int k = 0; k < n; ++k) {
          Text arg = expression(depth - 1);
          t.ours += (k ? ", " : "") + arg.ours;
          t.python += (k ? ", " : "") + arg.python;
        }
        return {t.ours + ")", t.python + ")"};
      }
      case 10:
      case 11: {
        Text x = expression(depth - 1), y = expression(depth - 1);
        bool is_and = pick(2);
        return {"((" + x.ours + ") " + (is_and ? "&&" : "||") + " (" + y.ours + "))",
                "(int(bool(" + x.python + ") " + (is_and ? "and" : "or") + " bool(" + y.python + ")))"};
      }
      case 12: {
        Text x = expression(depth - 1);
        return {"(!(" + x.ours + "))", "(int(not (" + x.python + ")))"};
      }
      case 13: {
        Text c = expression(depth - 1), x = expression(depth - 1), y = expression(depth - 1);
        return {"((" + c.ours + ") ? (" + x.ours + ") : (" + y.ours + "))",
                "((" + x.python + ") if (" + c.python + ") else (" + y.python + "))"};
      }
      default: {  // a chain of three
        static const char* ops[] = {"<", "<=", ">", ">=", "==", "!="};
        Text x = join(operand(depth), ops[pick(6)], operand(depth));
        Text y = operand(depth);
        const char* op = ops[pick(6)];
        return {x.ours + " " + op + " " + y.ours, x.python + " " + op + " " + y.python};
      }
    }
  }

  std::vector<int64_t> point() {
    static const int64_t pool[] = {0, 1, -1, 2, -2, 3, 5, -7, 8, 13, -32, 100, 1024, -100000};
    return {pool[pick(std::size(pool))], pool[pick(std::size(pool))], pool[pick(std::size(pool))]};
  }

 private:
  // Not std::uniform_int_distribution: its output differs between standard libraries.
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }

  static Text literal(const std::string& s) { return {s, s}; }

  Text leaf() {
    switch (pick(8)) {
      case 0:
      case 1:
      case 2:
      case 3: {
        std::string v(1, "abc"[pick(3)]);
        return {v, v};
      }
      case 4:
        return literal(std::to_string(pick(10)));
      case 5: {
        static const char* ints[] = {"12", "32", "100", "1024", "0x10", "255"};
        return literal(ints[pick(std::size(ints))]);
      }
      case 6: {
        static const char* floats[] = {"0.5", "2.5", "1e3", "0.25", "3.0", "0.0", "1.5"};
        return literal(floats[pick(std::size(floats))]);
      }
      default:
        return pick(2) ? Text{pick(2) ? "true" : "True", "True"} : Text{pick(2) ? "false" : "False", "False"};
    }
  }

  // Operands of Python operators: parenthesized two times in three.
  Text operand(int depth) {
    Text t = expression(depth - 1);
    if (pick(3) == 0) return t;
    return {"(" + t.ours + ")", "(" + t.python + ")"};
  }

  static Text join(const Text& x, const std::string& op, const Text& y) {
    return {x.ours + " " + op + " " + y.ours, x.python + " " + op + " " + y.python};
  }

  std::mt19937_64 rng_;
};

// Reads one expression and its points per line; writes one result per point:
// I <int> | F <float repr> | Z (ZeroDivisionError) | E (other error) | O (an int
// outside 64 bits along the way: no comparison) | S (syntax error, once per line).
constexpr const char* kPythonEvaluator = R"PY(
import ast, sys
LO, HI = -2**63, 2**63
class Outside(Exception): pass
def _c(v):
    if type(v) is int and not (LO <= v < HI): raise Outside()
    return v
class Wrap(ast.NodeTransformer):
    def visit(self, node):
        node = self.generic_visit(node)
        if isinstance(node, ast.expr):
            return ast.Call(func=ast.Name(id='_c', ctx=ast.Load()), args=[node], keywords=[])
        return node
env = {'_c': _c, 'min': min, 'max': max, 'abs': abs, 'int': int, 'bool': bool,
       '__builtins__': {}}
for line in sys.stdin:
    text, points = line.rstrip('\n').split('\t')
    try:
        tree = Wrap().visit(ast.parse(text, mode='eval'))
        code = compile(ast.fix_missing_locations(tree), '<e>', 'eval')
    except SyntaxError:
        print('S'); continue
    out = []
    for p in points.split(';'):
        a, b, c = (int(x) for x in p.split(','))
        try:
            v = eval(code, env, {'a': a, 'b': b, 'c': c})
            if isinstance(v, bool): v = int(v)
            out.append('I %d' % v if type(v) is int else
                       'F ' + repr(v) if type(v) is float else 'E')
        except Outside: out.append('O')
        except ZeroDivisionError: out.append('Z')
        except Exception: out.append('E')
    print('\t'.join(out))
)PY";

TEST(ExpressionDifferential, MatchesPython3) {
  if (std::system("python3 -c pass > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "SKIPPED: python3 is not on PATH: the differential test against Python is skipped";
  }
  constexpr int kExpressions = 2000, kPoints = 4;
  ExpressionGenerator generator(20240607);
  std::vector<ExpressionGenerator::Text> texts;
  std::vector<std::vector<std::vector<int64_t>>> points;
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ktune_expr_diff_" + std::to_string(static_cast<long>(::getpid())));
  fs::create_directories(dir);
  {
    std::ofstream script(dir / "eval.py");
    script << kPythonEvaluator;
    std::ofstream input(dir / "input.txt");
    for (int k = 0; k < kExpressions; ++k) {
      texts.push_back(generator.expression(4));
      points.emplace_back();
      input << texts.back().python << '\t';
      for (int j = 0; j < kPoints; ++j) {
        points.back().push_back(generator.point());
        const auto& p = points.back().back();
        input << (j ? ";" : "") << p[0] << ',' << p[1] << ',' << p[2];
      }
      input << '\n';
    }
  }
  std::string command = "python3 '" + (dir / "eval.py").string() + "' < '" + (dir / "input.txt").string() + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  ASSERT_EQ(::pclose(pipe), 0) << "python3 failed";
  fs::remove_all(dir);

  std::istringstream lines(output);
  int compared = 0, outside = 0, syntax = 0, failures = 0;
  std::map<char, int> kinds;  // I F Z E: what the comparisons covered
  for (int k = 0; k < kExpressions; ++k) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << "python3 gave too few lines";
    const std::string& ours = texts[k].ours;
    std::optional<Expression> e;
    std::string parse_error;
    try {
      e = Expression::parse(ours, kAbc);
    } catch (const ParseError& error) {
      parse_error = error.what();
    }
    if (line == "S") {
      ++syntax;
      EXPECT_FALSE(e.has_value()) << "Python rejects '" << texts[k].python << "', we accept '" << ours << "'";
      continue;
    }
    if (!e) {
      ADD_FAILURE() << "Python accepts '" << texts[k].python << "', we reject '" << ours << "': " << parse_error;
      ++failures;
      continue;
    }
    std::istringstream results(line);
    for (int j = 0; j < kPoints; ++j) {
      std::string result;
      ASSERT_TRUE(std::getline(results, result, '\t'));
      const auto& p = points[k][j];
      if (result == "O") {
        ++outside;
        continue;
      }
      ++compared;
      ++kinds[result[0]];
      std::string got;
      try {
        Value v = e->evaluate(p);
        if (v.is_int()) {
          got = "I " + std::to_string(v.i);
        } else {
          // Compare bits: parse Python's repr (which round-trips) and ours alike.
          double expected = result[0] == 'F' ? std::strtod(result.c_str() + 2, nullptr) : 0;
          bool same = result[0] == 'F' && ((std::isnan(v.f) && std::isnan(expected)) ||
                                           std::bit_cast<uint64_t>(v.f) == std::bit_cast<uint64_t>(expected));
          got = same ? result : "F " + std::to_string(v.f);
        }
      } catch (const EvalError& error) {
        bool division = std::string(error.what()).find("division by zero") != std::string::npos;
        got = division ? "Z" : "E";
      }
      if (got != result) {
        ++failures;
        ADD_FAILURE() << "'" << ours << "' at a=" << p[0] << " b=" << p[1] << " c=" << p[2] << ": Python ("
                      << texts[k].python << ") gives " << result << ", we give " << got;
      }
      if (failures > 20) FAIL() << "too many differences";
    }
  }
  // Guard against a generator that degenerates into errors or skips.
  EXPECT_GT(compared, kExpressions * kPoints * 3 / 4);
  EXPECT_GT(kinds['F'], compared / 20);
  EXPECT_GT(kinds['Z'], 0);
  EXPECT_GT(kinds['E'], 0);
  std::printf(
      "[ differential ] %d results compared (%d int, %d float, %d division by zero, "
      "%d other errors), %d skipped (int beyond 64 bits), %d syntax errors agreed\n",
      compared, kinds['I'], kinds['F'], kinds['Z'], kinds['E'], outside, syntax);
}

}  // namespace
}  // namespace ktune

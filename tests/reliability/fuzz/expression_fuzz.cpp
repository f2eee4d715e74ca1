// Fuzz target: constraint expressions (Expression::parse and evaluate). The input is one
// expression over the names a, b, c, TM and TN. It must parse or throw ParseError with a
// column inside the text, then evaluate or throw EvalError for every row of values below.
// Differential check: the same expression with each name replaced by its value as a
// literal is folded to a constant at parse time; folding and the interpreter must agree,
// value, type and error alike.
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "ktune/expression.hpp"

namespace {

using ktune::EvalError;
using ktune::Expression;
using ktune::ParseError;
using ktune::Value;

const std::vector<std::string> kNames = {"a", "b", "c", "TM", "TN"};
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
// Ordinary tile sizes, zeros and signs (division and modulo), and the ends of int64
// (overflow into floats, negation of the minimum).
constexpr std::array<std::array<int64_t, 5>, 6> kRows = {{
    {0, 0, 0, 0, 0},
    {1, 2, 3, 64, 128},
    {-7, 3, -2, 16, 8},
    {5, -3, 0, 256, 1},
    {kMin, kMax, -1, 1, 0},
    {kMax, kMin, 62, 63, 64},
}};

bool same(const Value& x, const Value& y) {
  if (x.kind != y.kind) return false;
  if (x.is_int()) return x.i == y.i;
  if (x.f != x.f && y.f != y.f) return true;  // NaN, whatever its payload
  return std::bit_cast<uint64_t>(x.f) == std::bit_cast<uint64_t>(y.f);
}

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

// The value as a literal the lexer reads back exactly (it has no literal for int64's
// minimum, so that one is written as an expression).
std::string literal(int64_t v) {
  if (v == kMin) return "(-9223372036854775807-1)";
  return "(" + std::to_string(v) + ")";
}

// `text` with every name of kNames outside numbers and strings replaced by its value.
std::string substitute(std::string_view text, const std::array<int64_t, 5>& row) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c >= '0' && c <= '9') {  // a number, with any suffix the lexer may reject
      std::size_t j = i;
      while (j < text.size() && (is_name_char(text[j]) || text[j] == '.')) ++j;
      out.append(text.substr(i, j - i));
      i = j;
    } else if (c == '"' || c == '\'') {  // as the lexer skips a string
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != c) j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      out.append(text.substr(i, j - i));
      i = j;
    } else if (is_name_start(c)) {
      std::size_t j = i;
      while (j < text.size() && is_name_char(text[j])) ++j;
      std::string_view word = text.substr(i, j - i);
      std::size_t k = 0;
      while (k < kNames.size() && kNames[k] != word) ++k;
      out += k < kNames.size() ? literal(row[k]) : std::string(word);
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::optional<Value> evaluate(const Expression& e, std::span<const int64_t> row) {
  try {
    return e.evaluate(row);
  } catch (const EvalError&) {
    return std::nullopt;
  }
}

void check_expression(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<Expression> e;
  try {
    e = Expression::parse(text, kNames);
  } catch (const ParseError& err) {
    KTUNE_FUZZ_CHECK(err.column() >= 1 && err.column() <= size + 1);
    KTUNE_FUZZ_CHECK(std::strlen(err.what()) > 0);
    (void)ktune::caret_at(text, err.column());
    return;
  }
  KTUNE_FUZZ_CHECK(e->text() == text);
  const std::vector<int>& slots = e->slots();
  for (std::size_t k = 0; k < slots.size(); ++k) {
    KTUNE_FUZZ_CHECK(slots[k] >= 0 && slots[k] < static_cast<int>(kNames.size()));
    KTUNE_FUZZ_CHECK(k == 0 || slots[k - 1] < slots[k]);
  }
  // Too few values is an error, never a read past the end.
  if (!slots.empty()) {
    const std::vector<int64_t> short_row(static_cast<std::size_t>(slots.back()), 1);
    KTUNE_FUZZ_CHECK(!evaluate(*e, short_row));
  }

  for (const auto& row : kRows) {
    const std::optional<Value> got = evaluate(*e, row);
    std::optional<Expression> folded;
    try {
      folded = Expression::parse(substitute(text, row), kNames);
    } catch (const ParseError& err) {
      // The literals add a level of parentheses and up to two of tree height, which may
      // cross the parser's limits; nothing else may fail.
      const std::string_view why = err.what();
      KTUNE_FUZZ_CHECK(why.find("nests more than") != std::string_view::npos ||
                       why.find("longer or deeper than") != std::string_view::npos);
      continue;
    }
    KTUNE_FUZZ_CHECK(folded->slots().empty());
    const std::optional<Value> want = evaluate(*folded, {});
    KTUNE_FUZZ_CHECK(got.has_value() == want.has_value());
    if (got) KTUNE_FUZZ_CHECK(same(*got, *want));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  ktune::fuzz::on_small_stack([=] { check_expression(data, size); });
  return 0;
}

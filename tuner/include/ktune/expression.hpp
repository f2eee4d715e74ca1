#pragma once
// Constraint expressions: C and Python syntax, Python semantics.
//
// Values are Python's int (64-bit here) or float. `/` is true division, `//` floors,
// `%` takes the sign of the divisor, `**` of ints stays an int unless the exponent is
// negative. `and`/`or` return an operand as in Python; `&&`/`||`/`!` return 0 or 1 as in
// C. Comparisons chain (`32 <= a * b <= 1024`). Bitwise operators use Python precedence.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ktune/error.hpp"

namespace ktune {

struct Value {
  enum class Kind { Int, Float };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double f = 0.0;

  static Value of(int64_t v) { return Value{Kind::Int, v, 0.0}; }
  static Value of(double v) { return Value{Kind::Float, 0, v}; }
  bool is_int() const { return kind == Kind::Int; }
  bool truthy() const { return is_int() ? i != 0 : f != 0.0; }
  double as_double() const { return is_int() ? static_cast<double>(i) : f; }
};

// A text that does not parse; `column` is 1-based and points at the offending token.
class ParseError : public Error {
 public:
  ParseError(const std::string& message, std::size_t column) : Error(message), column_(column) {}
  std::size_t column() const { return column_; }

 private:
  std::size_t column_;
};

// Evaluation failed: division by zero, a float where an int is needed, ...
class EvalError : public Error {
 public:
  using Error::Error;
};

class Expression {
 public:
  // `names[k]` is the variable bound to slot k at evaluation. An identifier that is not
  // in `names` is a ParseError at its column, suggesting the closest name.
  static Expression parse(std::string_view text, std::span<const std::string> names);

  // `slots[k]` is the value of names[k]. Throws EvalError.
  Value evaluate(std::span<const int64_t> slots) const;
  bool holds(std::span<const int64_t> slots) const { return evaluate(slots).truthy(); }

  // The distinct slots the expression reads, ascending.
  const std::vector<int>& slots() const { return slots_; }
  const std::string& text() const { return text_; }

  struct Program;  // compiled form, private to the implementation

 private:
  std::shared_ptr<const Program> program_;
  std::vector<int> slots_;
  std::string text_;
};

// "line\n    ^" under `text`, for error messages that point at a column.
std::string caret_at(std::string_view text, std::size_t column);

}  // namespace ktune

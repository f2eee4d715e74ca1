// Evaluation of compiled expressions with Python 3 semantics on int64/double.
//
// Python ints are unbounded; here they are 64-bit, and a result that does not fit (in
// + - * ** << unary minus, abs, //) turns into a float, as if the exact value had been
// converted with float(), rather than wrapping around. Everything else (floor division,
// sign of %, true division, mixed int/float comparison, float ** rules) matches Python.
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ktune/text.hpp"
#include "space/expression_program.hpp"

namespace ktune {
namespace expr {
namespace {

constexpr int kLocalDepth = 32;
constexpr double kTwo63 = 9223372036854775808.0;  // 2**63
constexpr int64_t kMinInt = std::numeric_limits<int64_t>::min();

inline Cell int_cell(int64_t v) {
  Cell c;
  c.i = v;
  c.is_float = false;
  return c;
}
inline Cell float_cell(double v) {
  Cell c;
  c.f = v;
  c.is_float = true;
  return c;
}
inline double as_double(Cell c) { return c.is_float ? c.f : static_cast<double>(c.i); }
inline bool truthy(Cell c) { return c.is_float ? c.f != 0.0 : c.i != 0; }
inline bool is_zero(Cell c) { return c.is_float ? c.f == 0.0 : c.i == 0; }

// Python's repr for the numbers in error messages: 2.0 rather than 2.
std::string repr(Cell c) {
  if (!c.is_float) return std::to_string(c.i);
  if (std::isnan(c.f)) return "nan";
  if (std::isinf(c.f)) return c.f > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, c.f);
  std::string s(buf, end);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

const char* symbol(Op op) {
  switch (op) {
    case Op::Neg:
      return "-";
    case Op::Invert:
      return "~";
    case Op::Add:
      return "+";
    case Op::Sub:
      return "-";
    case Op::Mul:
      return "*";
    case Op::Div:
      return "/";
    case Op::FloorDiv:
      return "//";
    case Op::Mod:
      return "%";
    case Op::Pow:
      return "**";
    case Op::BitAnd:
      return "&";
    case Op::BitOr:
      return "|";
    case Op::BitXor:
      return "^";
    case Op::Shl:
      return "<<";
    case Op::Shr:
      return ">>";
    default:
      return "?";
  }
}

[[noreturn]] [[gnu::cold]] void fail(const Program& p, int column, const std::string& what, const std::string& detail) {
  throw EvalError(what + " in '" + terminal_text(p.text, 200) + "' at column " + std::to_string(column) + ": " +
                  detail);
}

[[noreturn]] [[gnu::cold]] void fail_binary(const Program& p, int column, const char* what, Op op, Cell x, Cell y,
                                            const char* why = "") {
  // Parenthesize negative operands: "-8 ** 0.5" would read as -(8 ** 0.5).
  auto shown = [](Cell c) {
    bool negative = c.is_float ? c.f < 0 : c.i < 0;
    return negative ? "(" + repr(c) + ")" : repr(c);
  };
  fail(p, column, what, shown(x) + " " + symbol(op) + " " + shown(y) + why);
}

// Three-way comparison with Python's exact int/float rule; 2 means unordered (NaN).
int compare_int_float(int64_t i, double f) {
  if (std::isnan(f)) return 2;
  if (f >= kTwo63) return -1;
  if (f < -kTwo63) return 1;
  double floor_f = std::floor(f);
  int64_t floor_i = static_cast<int64_t>(floor_f);  // exact: within [-2**63, 2**63)
  if (i != floor_i) return i < floor_i ? -1 : 1;
  return f > floor_f ? -1 : 0;
}

int compare(Cell x, Cell y) {
  if (!x.is_float && !y.is_float) return (x.i > y.i) - (x.i < y.i);
  if (x.is_float && y.is_float) {
    if (std::isnan(x.f) || std::isnan(y.f)) return 2;
    return (x.f > y.f) - (x.f < y.f);
  }
  if (!x.is_float) return compare_int_float(x.i, y.f);
  int c = compare_int_float(y.i, x.f);
  return c == 2 ? 2 : -c;
}

inline bool test(Op cmp, int c) {
  switch (cmp) {
    case Op::Lt:
      return c == -1;
    case Op::Le:
      return c == -1 || c == 0;
    case Op::Gt:
      return c == 1;
    case Op::Ge:
      return c == 1 || c == 0;
    case Op::Eq:
      return c == 0;
    default:
      return c != 0;  // Ne: NaN compares unequal to everything
  }
}

// int / int, correctly rounded as Python does it (double(x) / double(y) rounds twice
// when an operand exceeds 2**53).
double true_divide(int64_t x, int64_t y) {
  constexpr uint64_t kExact = uint64_t{1} << 53;
  uint64_t ux = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
  uint64_t uy = y < 0 ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y);
  if (ux <= kExact && uy <= kExact) return static_cast<double>(x) / static_cast<double>(y);
  // Scale so that the integer quotient has 55 or 56 bits, fold the remainder into a
  // sticky low bit, and let the conversion to double do the single rounding.
  int shift = 55 - (std::bit_width(ux) - std::bit_width(uy));
  unsigned __int128 num = ux, den = uy;
  if (shift >= 0) {
    num <<= shift;
  } else {
    den <<= -shift;
  }
  unsigned __int128 q = num / den;
  if (num % den != 0) q |= 1;
  double result = std::ldexp(static_cast<double>(static_cast<uint64_t>(q)), -shift);
  return (x < 0) != (y < 0) ? -result : result;
}

// Python's float divmod: the remainder takes the divisor's sign and the quotient is
// the floor, computed so that q * y + r reproduces x as closely as floats allow.
void float_divmod(double x, double y, double* quotient, double* remainder) {
  double mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0.0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, x / y);
  }
  *quotient = floordiv;
  *remainder = mod;
}

Cell float_power(const Program& p, int column, Cell x, Cell y) {
  double a = as_double(x), b = as_double(y);
  if (b == 0.0) return float_cell(1.0);  // even nan ** 0
  if (a == 0.0 && b < 0.0) {
    fail_binary(p, column, "division by zero", Op::Pow, x, y, " (0 cannot be raised to a negative power)");
  }
  if (a < 0.0 && std::isfinite(a) && std::isfinite(b) && b != std::floor(b)) {
    fail_binary(p, column, "complex result", Op::Pow, x, y,
                " (a negative number to a fractional power is complex in Python)");
  }
  double r = std::pow(a, b);
  if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) {
    fail_binary(p, column, "float overflow", Op::Pow, x, y, " is too large for a float");
  }
  return float_cell(r);
}

Cell power(const Program& p, int column, Cell x, Cell y) {
  if (x.is_float || y.is_float || y.i < 0) return float_power(p, column, x, y);
  int64_t result = 1, base = x.i;
  bool overflow = false;
  for (int64_t e = y.i;;) {
    if ((e & 1) && __builtin_mul_overflow(result, base, &result)) {
      overflow = true;
      break;
    }
    e >>= 1;
    if (e == 0) break;
    if (__builtin_mul_overflow(base, base, &base)) {  // |base| >= 2, more factors to come
      overflow = true;
      break;
    }
  }
  if (!overflow) return int_cell(result);
  // Overflow: Python would give a big int; we give the nearest float (may be inf).
  return float_cell(std::pow(static_cast<double>(x.i), static_cast<double>(y.i)));
}

[[gnu::noinline]] Cell binary(const Program& p, Op op, int column, Cell x, Cell y) {
  bool ints = !x.is_float && !y.is_float;
  int64_t r;
  switch (op) {
    case Op::Add:
      if (ints && !__builtin_add_overflow(x.i, y.i, &r)) return int_cell(r);
      return float_cell(as_double(x) + as_double(y));
    case Op::Sub:
      if (ints && !__builtin_sub_overflow(x.i, y.i, &r)) return int_cell(r);
      return float_cell(as_double(x) - as_double(y));
    case Op::Mul:
      if (ints && !__builtin_mul_overflow(x.i, y.i, &r)) return int_cell(r);
      return float_cell(as_double(x) * as_double(y));
    case Op::Div:
      if (is_zero(y)) fail_binary(p, column, "division by zero", op, x, y);
      if (ints) return float_cell(true_divide(x.i, y.i));
      return float_cell(as_double(x) / as_double(y));
    case Op::FloorDiv:
    case Op::Mod: {
      if (is_zero(y)) fail_binary(p, column, "division by zero", op, x, y);
      if (ints) {
        if (y.i == -1) {  // the one case where int64 / overflows: kMinInt / -1
          if (op == Op::Mod) return int_cell(0);
          if (x.i == kMinInt) return float_cell(kTwo63);
          return int_cell(-x.i);
        }
        int64_t q = x.i / y.i, m = x.i % y.i;
        if (m != 0 && ((m < 0) != (y.i < 0))) {
          q -= 1;
          m += y.i;
        }
        return int_cell(op == Op::Mod ? m : q);
      }
      double q, m;
      float_divmod(as_double(x), as_double(y), &q, &m);
      return float_cell(op == Op::Mod ? m : q);
    }
    case Op::Pow:
      return power(p, column, x, y);
    case Op::BitAnd:
    case Op::BitOr:
    case Op::BitXor:
    case Op::Shl:
    case Op::Shr:
      if (!ints) {
        fail(p, column, std::string("operator '") + symbol(op) + "' needs integers",
             repr(x) + " " + symbol(op) + " " + repr(y) + " has a float operand");
      }
      if (op == Op::BitAnd) return int_cell(x.i & y.i);
      if (op == Op::BitOr) return int_cell(x.i | y.i);
      if (op == Op::BitXor) return int_cell(x.i ^ y.i);
      if (y.i < 0) fail_binary(p, column, "negative shift count", op, x, y);
      if (op == Op::Shr) return int_cell(y.i >= 64 ? (x.i < 0 ? -1 : 0) : x.i >> y.i);
      if (x.i == 0) return int_cell(0);
      if (y.i < 63 && !__builtin_mul_overflow(x.i, int64_t{1} << y.i, &r)) return int_cell(r);
      if (y.i == 63 && x.i == -1) return int_cell(kMinInt);
      // Overflow turns into a float, as for *; huge counts give inf.
      return float_cell(std::ldexp(static_cast<double>(x.i), static_cast<int>(y.i > 100000 ? 100000 : y.i)));
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne:
      return int_cell(test(op, compare(x, y)));
    case Op::Min2:  // Python keeps the first of equal values
      return compare(y, x) == -1 ? y : x;
    case Op::Max2:
      return compare(y, x) == 1 ? y : x;
    default:
      fail(p, column, "internal error", "unknown binary operator");
  }
}

[[gnu::noinline]] Cell unary(const Program& p, Op op, int column, Cell x) {
  switch (op) {
    case Op::Neg:
      if (x.is_float) return float_cell(-x.f);
      return x.i == kMinInt ? float_cell(kTwo63) : int_cell(-x.i);
    case Op::Abs:
      if (x.is_float) return float_cell(std::fabs(x.f));
      if (x.i == kMinInt) return float_cell(kTwo63);
      return int_cell(x.i < 0 ? -x.i : x.i);
    case Op::Invert:
      if (x.is_float) {
        fail(p, column, "operator '~' needs an integer", "~" + repr(x) + " is a float");
      }
      return int_cell(~x.i);
    default:
      fail(p, column, "internal error", "unknown unary operator");
  }
}

[[noreturn]] [[gnu::cold]] void too_few_slots(const Program& p, std::size_t given) {
  throw EvalError("expression '" + terminal_text(p.text, 200) + "' reads slot " + std::to_string(p.max_slot) +
                  " but only " + std::to_string(given) + " values were given");
}

}  // namespace

// The stack of one evaluation: on the C++ stack when the program fits, else one buffer per
// thread (deep expressions are rare; no allocation per evaluation).
[[gnu::always_inline]] inline Cell* eval_stack(const Program& p, Cell* local) {
  if (p.max_depth <= kLocalDepth) return local;
  thread_local std::vector<Cell> deep;
  if (deep.size() < static_cast<std::size_t>(p.max_depth)) deep.resize(p.max_depth);
  return deep.data();
}

// The int-int fast path of binary operator `op`: false when it overflows or needs Python's
// slower rules (a modulus not above 0), and binary() decides. A template, so that each case
// of the dispatch loop holds its own operation, with no second switch.
template <Op op>
[[gnu::always_inline]] inline bool int_binary(int64_t x, int64_t y, int64_t& r) {
  if constexpr (op == Op::Div || op == Op::Pow || op == Op::Shl || op == Op::Shr || op == Op::Min2 || op == Op::Max2)
    return false;  // float results, Python's shift rules, the first of equal values: binary() alone
  if constexpr (op == Op::Add) return !__builtin_add_overflow(x, y, &r);
  if constexpr (op == Op::Sub) return !__builtin_sub_overflow(x, y, &r);
  if constexpr (op == Op::Mul) return !__builtin_mul_overflow(x, y, &r);
  if constexpr (op == Op::Lt) r = x < y;
  if constexpr (op == Op::Le) r = x <= y;
  if constexpr (op == Op::Gt) r = x > y;
  if constexpr (op == Op::Ge) r = x >= y;
  if constexpr (op == Op::Eq) r = x == y;
  if constexpr (op == Op::Ne) r = x != y;
  if constexpr (op == Op::BitAnd) r = x & y;
  if constexpr (op == Op::BitOr) r = x | y;
  if constexpr (op == Op::BitXor) r = x ^ y;
  if constexpr (op == Op::Mod || op == Op::FloorDiv) {
    if (y <= 0) return false;
    const int64_t m = x % y;
    r = op == Op::Mod ? (m < 0 ? m + y : m) : x / y - (m < 0);
  }
  return true;
}

// The jump `op`: where the program goes on (pc) and what the stack keeps.
template <Op op>
[[gnu::always_inline]] inline void jump(const Instr& in, Cell*& sp, const Instr*& pc, const Instr* code) {
  if constexpr (op == Op::Jump) {
    pc = code + in.a;
  } else if constexpr (op == Op::JumpIfFalsePop) {  // pops the condition
    --sp;
    if (!truthy(*sp)) pc = code + in.a;
  } else if constexpr (op == Op::JumpIfFalseKeep || op == Op::JumpIfTrueKeep) {  // keeps it when jumping
    if (truthy(sp[-1]) == (op == Op::JumpIfTrueKeep))
      pc = code + in.a;
    else
      --sp;
  } else {  // AndC, OrC: `and` / `or` in a condition, whose value is 0 / 1 when it jumps
    constexpr bool jump_on = op == Op::OrC;
    if (truthy(sp[-1]) == jump_on) {
      sp[-1] = int_cell(jump_on);
      pc = code + in.a;
    } else {
      --sp;
    }
  }
}

// The dispatch loop's cases.
// Fetches y (popped, or inline) and makes x the top cell (pushing an inline lhs); the
// result replaces x.
#define KTUNE_OPERANDS                                                                                      \
  const Cell y = in.rhs == Src::Stack ? *--sp : in.rhs == Src::Imm ? int_cell(in.y) : int_cell(vars[in.y]); \
  if (in.lhs != Src::Stack) {                                                                               \
    *sp++ = in.lhs == Src::Imm ? int_cell(in.x) : int_cell(vars[in.x]);                                     \
  }                                                                                                         \
  Cell& x = sp[-1];
// One binary operator: its int-int fast path, else binary().
#define KTUNE_BINARY(OP)                                                            \
  case Op::OP: {                                                                    \
    KTUNE_OPERANDS                                                                  \
    if (int64_t r; !x.is_float && !y.is_float && int_binary<Op::OP>(x.i, y.i, r)) { \
      x.i = r;                                                                      \
      break;                                                                        \
    }                                                                               \
    x = binary(p, Op::OP, in.a, x, y);                                              \
    break;                                                                          \
  }
// One jump.
#define KTUNE_JUMP(OP)              \
  case Op::OP:                      \
    jump<Op::OP>(in, sp, pc, code); \
    break;

// The interpreter's dispatch loop: one case per instruction, the work in the always-inlined
// templates above, so that sp and pc stay in registers and no case dispatches again.
Value run(const Program& p, std::span<const int64_t> slots) {
  if (p.max_slot >= static_cast<int>(slots.size())) too_few_slots(p, slots.size());
  Cell local[kLocalDepth];
  Cell* const stack = eval_stack(p, local);
  Cell* sp = stack;  // one past the top
  const int64_t* vars = slots.data();
  const Instr* code = p.code.data();
  const Instr* pc = code;
  while (true) {
#ifdef KTUNE_EXPR_CHECK_DEPTH  // tests: the compiler's max_depth must bound the stack
    if (sp - stack > p.max_depth) throw EvalError("internal error: stack deeper than planned");
#endif
    const Instr& in = *pc++;
    switch (in.op) {
      case Op::PushInt:
        *sp++ = int_cell(in.y);
        break;
      case Op::PushFloat:
        *sp++ = float_cell(std::bit_cast<double>(in.y));
        break;
      case Op::Load:
        *sp++ = int_cell(vars[in.a]);
        break;
      case Op::Pos:
        break;
      case Op::Not:
        sp[-1] = int_cell(!truthy(sp[-1]));
        break;
      case Op::ToBool:
        sp[-1] = int_cell(truthy(sp[-1]));
        break;
      case Op::Neg:
      case Op::Invert:
      case Op::Abs:
        sp[-1] = unary(p, in.op, in.a, sp[-1]);
        break;
        KTUNE_BINARY(Add)
        KTUNE_BINARY(Sub)
        KTUNE_BINARY(Mul)
        KTUNE_BINARY(Lt)
        KTUNE_BINARY(Le)
        KTUNE_BINARY(Gt)
        KTUNE_BINARY(Ge)
        KTUNE_BINARY(Eq)
        KTUNE_BINARY(Ne)
        KTUNE_BINARY(BitAnd)
        KTUNE_BINARY(BitOr)
        KTUNE_BINARY(BitXor)
        KTUNE_BINARY(Mod)
        KTUNE_BINARY(FloorDiv)
        KTUNE_BINARY(Div)
        KTUNE_BINARY(Pow)
        KTUNE_BINARY(Shl)
        KTUNE_BINARY(Shr)
        KTUNE_BINARY(Min2)
        KTUNE_BINARY(Max2)
      case Op::ChainCmp: {
        KTUNE_OPERANDS
        if (test(in.cmp, compare(x, y))) {
          x = y;
        } else {
          x = int_cell(0);
          pc = code + in.a;
        }
        break;
      }
        KTUNE_JUMP(Jump)
        KTUNE_JUMP(JumpIfFalsePop)
        KTUNE_JUMP(JumpIfFalseKeep)
        KTUNE_JUMP(JumpIfTrueKeep)
        KTUNE_JUMP(AndC)
        KTUNE_JUMP(OrC)
      case Op::Return: {
        const Cell c = sp[-1];
        return c.is_float ? Value::of(c.f) : Value::of(c.i);
      }
    }
  }
}
#undef KTUNE_JUMP
#undef KTUNE_BINARY
#undef KTUNE_OPERANDS

}  // namespace expr

Value Expression::evaluate(std::span<const int64_t> slots) const {
  if (!program_) throw EvalError("evaluating an empty Expression: build it with parse()");
  return expr::run(*program_, slots);
}

std::string caret_at(std::string_view text, std::size_t column) {
  // Tabs and newlines would misplace the caret: show them as spaces.
  std::string line(text);
  for (char& c : line) {
    if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') c = ' ';
  }
  std::size_t col = column < 1 ? 1 : (column > text.size() + 1 ? text.size() + 1 : column);
  return line + "\n" + std::string(col - 1, ' ') + "^";
}

}  // namespace ktune

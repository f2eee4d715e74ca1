// Reads the Python list forms of T1 `Values` strings (see ktune/python_list.hpp). The
// structure (brackets, commas, for/in/if, range, +) is read here from the expression
// lexer's tokens; every element, range argument and filter is an Expression, so numbers
// and operators mean exactly what they mean in constraints.
#include "ktune/python_list.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/expression.hpp"
#include "space/expression_lexer.hpp"

namespace ktune {
namespace {

using expr::Tok;
using expr::Token;

// A parameter with more values than this is a typo (range(10**9)), not a search space.
constexpr int64_t kMaxValues = int64_t{1} << 24;

constexpr const char* kAcceptedForms =
    "accepted forms: [1, 2, 4]; list(range(16, 257, 16)) or range(...) with 1 to 3 "
    "arguments; [2**i for i in range(0, 6)] with an optional 'if COND'; and '+' between "
    "them";

struct Span {
  std::size_t begin, end;  // token indices, end exclusive
  bool empty() const { return begin == end; }
};

class ListReader {
 public:
  explicit ListReader(std::string_view text) : text_(text) {}

  std::vector<int64_t> read() {
    try {
      tokens_ = expr::tokenize(text_);
    } catch (const ParseError& e) {
      fail(e.column(), e.what());
    }
    if (tokens_.size() == 1) fail(1, "the text is empty");
    match_brackets();
    return concatenation({0, tokens_.size() - 1});
  }

 private:
  [[noreturn]] void fail(std::size_t column, const std::string& why) const {
    throw Error("parameter values '" + std::string(text_) + "' are not a supported Python list: " + why + " (column " +
                std::to_string(column) + ")\n" + caret_at(text_, column) + "\n" + kAcceptedForms);
  }

  [[noreturn]] void fail_value(Span s, const std::string& why) const {
    throw Error("parameter values '" + std::string(text_) +
                "': ktune parameters are integers, "
                "but " +
                why + "\n" + caret_at(text_, column(s.begin)));
  }

  std::size_t column(std::size_t token) const { return tokens_[token].column; }
  Tok kind(std::size_t token) const { return tokens_[token].kind; }
  bool is_name(std::size_t token, std::string_view word) const {
    return kind(token) == Tok::Name && tokens_[token].text == word;
  }

  std::string_view source(Span s) const {
    std::size_t from = column(s.begin) - 1;
    const Token& last = tokens_[s.end - 1];
    return text_.substr(from, last.column - 1 + last.text.size() - from);
  }

  // match_[i] is the index of the bracket closing the one opened at token i.
  void match_brackets() {
    match_.assign(tokens_.size(), 0);
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      Tok k = kind(i);
      if (k == Tok::LParen || k == Tok::LBracket) {
        open.push_back(i);
      } else if (k == Tok::RParen || k == Tok::RBracket) {
        if (open.empty()) fail(column(i), "unmatched '" + std::string(tokens_[i].text) + "'");
        std::size_t o = open.back();
        open.pop_back();
        if ((kind(o) == Tok::LParen) != (k == Tok::RParen)) {
          fail(column(i), "'" + std::string(tokens_[o].text) + "' at column " + std::to_string(column(o)) +
                              " is closed by '" + std::string(tokens_[i].text) + "'");
        }
        match_[o] = i;
      }
    }
    if (!open.empty()) {
      std::size_t o = open.back();
      fail(column(o), "'" + std::string(tokens_[o].text) + "' is never closed");
    }
  }

  // The first token of `kind` in `s` outside nested brackets, or s.end.
  std::size_t find_top(Span s, Tok wanted) const {
    for (std::size_t i = s.begin; i < s.end; ++i) {
      if (kind(i) == wanted) return i;
      if (kind(i) == Tok::LParen || kind(i) == Tok::LBracket) i = match_[i];
    }
    return s.end;
  }

  std::vector<Span> split_top(Span s, Tok separator) const {
    std::vector<Span> parts;
    std::size_t start = s.begin;
    while (true) {
      std::size_t at = find_top({start, s.end}, separator);
      parts.push_back({start, at});
      if (at == s.end) break;
      start = at + 1;
    }
    return parts;
  }

  // term ('+' term)*
  std::vector<int64_t> concatenation(Span s) {
    std::vector<int64_t> out;
    std::size_t i = s.begin;
    while (true) {
      if (i >= s.end) {
        fail(column(i), std::string("expected a list, range(...) or list(...)") + (i > s.begin ? " after '+'" : ""));
      }
      std::size_t next = term_end(i);
      std::vector<int64_t> part = term({i, next});
      out.insert(out.end(), part.begin(), part.end());
      if (static_cast<int64_t>(out.size()) > kMaxValues) {
        fail(column(s.begin), "more than " + std::to_string(kMaxValues) + " values");
      }
      if (next >= s.end) break;
      if (kind(next) != Tok::Plus) {
        fail(column(next), "expected '+' or the end after a list, found " + expr::describe(tokens_[next]));
      }
      i = next + 1;
    }
    return out;
  }

  std::size_t term_end(std::size_t i) const {
    if (kind(i) == Tok::LBracket) return match_[i] + 1;
    if ((is_name(i, "list") || is_name(i, "range")) && kind(i + 1) == Tok::LParen) {
      return match_[i + 1] + 1;
    }
    fail(column(i), "expected '[', 'range(' or 'list(', found " + expr::describe(tokens_[i]));
  }

  std::vector<int64_t> term(Span s) {
    if (kind(s.begin) == Tok::LBracket) return display({s.begin + 1, s.end - 1});
    Span inside{s.begin + 2, s.end - 1};
    if (is_name(s.begin, "range")) return range(s.begin, inside);
    if (inside.empty()) fail(column(s.begin), "list() needs a range(...) or a list inside");
    return concatenation(inside);  // list(range(...)), list([...])
  }

  // Inside [ ]: empty, comma-separated elements, or a comprehension.
  std::vector<int64_t> display(Span s) {
    std::vector<int64_t> out;
    if (s.empty()) return out;
    std::size_t for_token = find_top(s, Tok::KwFor);
    if (for_token != s.end) return comprehension(s, for_token);
    std::vector<Span> items = split_top(s, Tok::Comma);
    if (items.size() > 1 && items.back().empty()) items.pop_back();  // [1, 2,]
    for (const Span& item : items) {
      if (item.empty()) fail(column(item.begin), "empty element between commas");
      out.push_back(integer(item, nullptr, {}, "element"));
    }
    return out;
  }

  std::vector<int64_t> comprehension(Span s, std::size_t for_token) {
    Span element{s.begin, for_token};
    if (element.empty()) fail(column(for_token), "a value must come before 'for'");
    std::size_t name = for_token + 1;
    if (name >= s.end || kind(name) != Tok::Name) {
      fail(column(name), "expected a loop variable after 'for', found " + expr::describe(tokens_[name]));
    }
    if (name + 1 >= s.end || kind(name + 1) != Tok::KwIn) {
      fail(column(name + 1), "expected 'in' after 'for " + std::string(tokens_[name].text) + "', found " +
                                 expr::describe(tokens_[name + 1]));
    }
    Span rest{name + 2, s.end};
    if (find_top(rest, Tok::KwFor) != rest.end) {
      fail(column(find_top(rest, Tok::KwFor)), "only one 'for' is supported");
    }
    std::vector<Span> parts = split_top(rest, Tok::KwIf);  // iterable, then the filters
    std::vector<int64_t> iterable = concatenation(parts[0]);

    const std::string names[] = {std::string(tokens_[name].text)};
    loop_variable_ = names[0];
    std::vector<Expression> filters;
    for (std::size_t k = 1; k < parts.size(); ++k) {
      if (parts[k].empty()) fail(column(parts[k].begin - 1), "'if' needs a condition");
      filters.push_back(expression(parts[k], names));
    }
    Expression value = expression(element, names);
    std::vector<int64_t> out;
    for (int64_t v : iterable) {
      const int64_t slot[] = {v};
      bool keep = true;
      for (std::size_t k = 0; k < filters.size() && keep; ++k) {
        keep = evaluate(filters[k], parts[k + 1], slot).truthy();
      }
      if (keep) out.push_back(integer(element, &value, slot, "element"));
    }
    return out;
  }

  std::vector<int64_t> range(std::size_t name, Span args) {
    std::vector<Span> parts = split_top(args, Tok::Comma);
    if (parts.size() > 1 && parts.back().empty()) parts.pop_back();  // range(5,)
    if (args.empty() || parts.size() > 3) {
      fail(column(name), "range() takes 1 to 3 arguments, not " + std::to_string(args.empty() ? 0 : parts.size()));
    }
    int64_t a[3] = {0, 0, 1};
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (parts[k].empty()) fail(column(name), "empty range() argument");
      a[k] = integer(parts[k], nullptr, {}, "range() argument");
    }
    int64_t start = parts.size() == 1 ? 0 : a[0];
    int64_t stop = parts.size() == 1 ? a[0] : a[1];
    int64_t step = parts.size() == 3 ? a[2] : 1;
    if (step == 0) fail(column(parts[2].begin), "range() step must not be zero");
    // Python's len(range(start, stop, step)), in 128 bits so that no difference overflows.
    __int128 span = step > 0 ? static_cast<__int128>(stop) - start : static_cast<__int128>(start) - stop;
    __int128 magnitude = step > 0 ? step : -static_cast<__int128>(step);
    __int128 count = span <= 0 ? 0 : (span - 1) / magnitude + 1;
    if (count > kMaxValues) {
      fail(column(name), "range() gives " +
                             std::to_string(static_cast<long long>(count > INT64_MAX ? INT64_MAX : count)) +
                             " values, more than the limit of " + std::to_string(kMaxValues));
    }
    std::vector<int64_t> out;
    out.reserve(static_cast<std::size_t>(count));
    for (__int128 k = 0; k < count; ++k) out.push_back(static_cast<int64_t>(start + k * step));
    return out;
  }

  Expression expression(Span s, std::span<const std::string> names) const {
    for (std::size_t i = s.begin; i < s.end; ++i) {
      if (kind(i) == Tok::String) {
        fail_value({i, i + 1}, std::string(tokens_[i].text) + " is a string");
      }
    }
    try {
      return Expression::parse(source(s), names);
    } catch (const ParseError& e) {
      fail(column(s.begin) - 1 + e.column(), e.what());
    }
  }

  Value evaluate(const Expression& e, Span s, std::span<const int64_t> slots) const {
    try {
      return e.evaluate(slots);
    } catch (const EvalError& error) {
      fail(column(s.begin), error.what());
    }
  }

  // The value of `s` (parsed here unless `parsed` is given), which must be an integer.
  int64_t integer(Span s, const Expression* parsed, std::span<const int64_t> slots, const char* what) const {
    Value v = parsed ? evaluate(*parsed, s, slots) : evaluate(expression(s, {}), s, slots);
    if (!v.is_int()) {
      std::string why = std::string(what) + " '" + std::string(source(s)) + "' is the float " + format_float(v.f);
      if (!slots.empty()) why += " for " + loop_variable_ + " = " + std::to_string(slots[0]);
      fail_value(s, why);
    }
    return v.i;
  }

  // Python's repr: shortest round-trip digits, and 2.0 rather than 2.
  static std::string format_float(double f) {
    if (std::isnan(f)) return "nan";
    if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
    std::string s(buf, end);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  }

  std::string_view text_;
  std::string loop_variable_;
  std::vector<Token> tokens_;
  std::vector<std::size_t> match_;
};

}  // namespace

std::vector<int64_t> evaluate_python_list(std::string_view text) { return ListReader(text).read(); }

}  // namespace ktune

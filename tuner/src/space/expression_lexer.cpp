#include "space/expression_lexer.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ktune/expression.hpp"

namespace ktune::expr {
namespace {

// Explicit ranges rather than <cctype>: the result must not depend on the locale.
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_octal_digit(char c) { return c >= '0' && c <= '7'; }
bool is_binary_digit(char c) { return c == '0' || c == '1'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

struct Keyword {
  std::string_view word;
  Tok kind;
  int64_t value;
};
constexpr Keyword kKeywords[] = {
    {"and", Tok::KwAnd, 0},   {"or", Tok::KwOr, 0},   {"not", Tok::KwNot, 0}, {"if", Tok::KwIf, 0},
    {"else", Tok::KwElse, 0}, {"for", Tok::KwFor, 0}, {"in", Tok::KwIn, 0},   {"True", Tok::Int, 1},
    {"False", Tok::Int, 0},   {"true", Tok::Int, 1},  {"false", Tok::Int, 0},
};

struct Punct {
  std::string_view text;
  Tok kind;
};
// Two-character operators first: the lexer takes the longest match.
constexpr Punct kPuncts[] = {
    {"**", Tok::StarStar}, {"//", Tok::SlashSlash}, {"<<", Tok::Shl},     {">>", Tok::Shr},     {"<=", Tok::Le},
    {">=", Tok::Ge},       {"==", Tok::EqEq},       {"!=", Tok::Ne},      {"&&", Tok::AmpAmp},  {"||", Tok::PipePipe},
    {"(", Tok::LParen},    {")", Tok::RParen},      {"[", Tok::LBracket}, {"]", Tok::RBracket}, {",", Tok::Comma},
    {"?", Tok::Question},  {":", Tok::Colon},       {"+", Tok::Plus},     {"-", Tok::Minus},    {"*", Tok::Star},
    {"/", Tok::Slash},     {"%", Tok::Percent},     {"~", Tok::Tilde},    {"!", Tok::Bang},     {"&", Tok::Amp},
    {"|", Tok::Pipe},      {"^", Tok::Caret},       {"<", Tok::Lt},       {">", Tok::Gt},       {"=", Tok::Assign},
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> run() {
    while (true) {
      while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
      if (pos_ == text_.size()) break;
      char c = text_[pos_];
      if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
        number();
      } else if (is_name_start(c)) {
        name();
      } else if (c == '"' || c == '\'') {
        string();
      } else {
        punct();
      }
    }
    Token end;
    end.column = text_.size() + 1;
    end.text = text_.substr(text_.size());
    tokens_.push_back(end);
    return std::move(tokens_);
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

  [[noreturn]] void fail(std::size_t at, const std::string& message) const { throw ParseError(message, at + 1); }

  void push(Tok kind, std::size_t start) {
    Token t;
    t.kind = kind;
    t.column = start + 1;
    t.text = text_.substr(start, pos_ - start);
    tokens_.push_back(t);
  }

  // A run of digits that may hold single underscores between digits (Python's 1_000).
  template <typename IsDigit>
  std::string digits(IsDigit is_digit_of_base) {
    std::string out;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (is_digit_of_base(c)) {
        out += c;
        ++pos_;
      } else if (c == '_' && !out.empty() && pos_ + 1 < text_.size() && is_digit_of_base(text_[pos_ + 1])) {
        ++pos_;
      } else {
        break;
      }
    }
    return out;
  }

  // C suffixes such as 1024u or 1.0f, and things like 12ab, are not numbers here.
  void reject_suffix(std::size_t start) {
    if (pos_ < text_.size() && (is_name_char(text_[pos_]) || text_[pos_] == '.')) {
      std::size_t end = pos_;
      while (end < text_.size() && (is_name_char(text_[end]) || text_[end] == '.')) ++end;
      fail(start, "invalid number '" + std::string(text_.substr(start, end - start)) +
                      "': write a plain integer (123, 0x7b) or float (1.5, 1e3) "
                      "without a suffix");
    }
  }

  void number() {
    std::size_t start = pos_;
    char second = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
    if (text_[pos_] == '0' && std::string_view("xXoObB").find(second) != std::string_view::npos && second != '\0') {
      based_integer(start, second);
      return;
    }
    std::string literal = digits(is_digit);
    bool is_float = false;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      literal += '.';
      literal += digits(is_digit);
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      literal += 'e';
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        literal += text_[pos_++];
      }
      std::string exponent = digits(is_digit);
      if (exponent.empty()) {
        fail(start, "invalid number '" + std::string(text_.substr(start, pos_ - start)) +
                        "': the exponent needs digits, as in 1e3");
      }
      literal += exponent;
      is_float = true;
    }
    reject_suffix(start);
    if (is_float) {
      // strtod rather than from_chars: it gives inf/0 for out-of-range values, as Python.
      push(Tok::Float, start);
      tokens_.back().float_value = std::strtod(literal.c_str(), nullptr);
      return;
    }
    if (literal.size() > 1 && literal[0] == '0' && literal.find_first_not_of('0') != std::string::npos) {
      fail(start, "invalid number '" + std::string(text_.substr(start, pos_ - start)) +
                      "': leading zeros are not allowed (C would read it as octal, Python "
                      "refuses it); write 0o" +
                      literal.substr(1) + " for octal");
    }
    push(Tok::Int, start);
    tokens_.back().int_value = to_int(literal, 10, start);
  }

  void based_integer(std::size_t start, char prefix) {
    pos_ += 2;
    int base = 16;
    bool (*is_base_digit)(char) = is_hex_digit;
    const char* name = "hexadecimal";
    if (prefix == 'o' || prefix == 'O') {
      base = 8, is_base_digit = is_octal_digit, name = "octal";
    } else if (prefix == 'b' || prefix == 'B') {
      base = 2, is_base_digit = is_binary_digit, name = "binary";
    }
    // Python allows one underscore right after the prefix (0x_ff).
    if (pos_ + 1 < text_.size() && text_[pos_] == '_' && is_base_digit(text_[pos_ + 1])) ++pos_;
    std::string literal = digits(is_base_digit);
    if (literal.empty()) {
      reject_suffix(start);
      fail(start, "invalid number '" + std::string(text_.substr(start, pos_ - start)) + "': " + name +
                      " digits must follow the prefix");
    }
    reject_suffix(start);
    push(Tok::Int, start);
    tokens_.back().int_value = to_int(literal, base, start);
  }

  int64_t to_int(const std::string& digits, int base, std::size_t start) {
    int64_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      fail(start, "integer '" + std::string(text_.substr(start, pos_ - start)) +
                      "' does not fit in 64 bits (the largest is 9223372036854775807)");
    }
    return value;
  }

  void name() {
    std::size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    for (const Keyword& k : kKeywords) {
      if (k.word == word) {
        push(k.kind, start);
        tokens_.back().int_value = k.value;
        return;
      }
    }
    push(Tok::Name, start);
  }

  void string() {
    std::size_t start = pos_;
    char quote = text_[pos_++];
    while (pos_ < text_.size() && text_[pos_] != quote) {
      pos_ += text_[pos_] == '\\' ? 2 : 1;
    }
    if (pos_ >= text_.size()) {
      fail(start, std::string("unterminated string: add the closing ") + quote);
    }
    ++pos_;
    push(Tok::String, start);
  }

  void punct() {
    std::string_view rest = text_.substr(pos_);
    for (const Punct& p : kPuncts) {
      if (rest.starts_with(p.text)) {
        std::size_t start = pos_;
        pos_ += p.text.size();
        push(p.kind, start);
        return;
      }
    }
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c < 0x20 || c >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", c);
      fail(pos_, std::string("unexpected byte ") + hex + ": expressions are plain ASCII");
    }
    fail(pos_, std::string("unexpected character '") + text_[pos_] + "'");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text) { return Lexer(text).run(); }

std::string describe(const Token& token) {
  if (token.kind == Tok::End) return "the end of the expression";
  return "'" + std::string(token.text) + "'";
}

bool is_reserved_word(std::string_view word) {
  for (const Keyword& k : kKeywords) {
    if (k.word == word) return true;
  }
  return false;
}

}  // namespace ktune::expr

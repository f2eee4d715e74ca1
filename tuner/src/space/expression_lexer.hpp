#pragma once
// Tokens of the constraint language. The expression parser and the Python list reader
// (python_list.cpp) share this lexer, so both accept the same numbers and names.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::expr {

enum class Tok : uint8_t {
  End,
  Int,     // 12, 0x1f, 0o17, 0b101, 1_000, and True/False/true/false (1/0)
  Float,   // 1.5, 1., .5, 1e3
  Name,    // identifier that is not a keyword
  String,  // "..." or '...': never valid in an expression, lexed to name it in errors
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Question,
  Colon,
  Plus,
  Minus,
  Star,
  Slash,
  SlashSlash,
  Percent,
  StarStar,
  Tilde,
  Bang,
  Amp,
  Pipe,
  Caret,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
  AmpAmp,
  PipePipe,
  Assign,  // a lone '=': lexed so that the parser can say "use '=='"
  KwAnd,
  KwOr,
  KwNot,
  KwIf,
  KwElse,
  KwFor,
  KwIn,
};

struct Token {
  Tok kind = Tok::End;
  std::size_t column = 0;  // 1-based byte offset of the token's first character
  std::string_view text;   // the token's characters, a view into the lexed text
  int64_t int_value = 0;   // Tok::Int
  double float_value = 0;  // Tok::Float
};

// The tokens of `text`, ending with one Tok::End at column text.size() + 1.
// Throws ParseError at the column of a character or number that cannot be read.
std::vector<Token> tokenize(std::string_view text);

// "'+'" for error messages, or "the end of the expression" for Tok::End.
std::string describe(const Token& token);

// Words that the constraint language reserves (and, or, not, if, else, for, in, True,
// False, true, false); they cannot name a parameter.
bool is_reserved_word(std::string_view word);

}  // namespace ktune::expr

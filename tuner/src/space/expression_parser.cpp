// Recursive-descent parser for constraint expressions, with Python's precedence:
//   x if c else y, c ? x : y   <   or ||   <   and &&   <   not   <   comparisons (chained)
//   <   |   <   ^   <   &   <   << >>   <   + -   <   * / // %   <   unary - + ~ !   <   **
// The tree is folded (constant subtrees evaluated once) and compiled to the bytecode of
// expression_program.hpp.
#include <algorithm>
#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "ktune/expression.hpp"
#include "space/expression_lexer.hpp"
#include "space/expression_program.hpp"

namespace ktune {
namespace {

using expr::Cell;
using expr::Instr;
using expr::Op;
using expr::Tok;
using expr::Token;

constexpr int kMaxNesting = 200;  // parentheses and prefix operators inside each other
constexpr int kMaxHeight = 1000;  // tree height (a+a+...+a); bounds the compiler's recursion

enum class Kind : uint8_t { Const, Slot, Unary, Binary, Chain, AndPy, OrPy, AndC, OrC, Ternary, Call };

struct Node {
  Kind kind = Kind::Const;
  Op op = Op::Return;  // Unary, Binary, Call (Abs, Min2, Max2)
  int column = 0;
  Cell value{};           // Const
  int slot = -1;          // Slot
  std::vector<int> kids;  // Ternary: condition, value if true, value if false
  std::vector<Op> cmps;   // Chain: cmps[k] sits between kids[k] and kids[k + 1]
  int height = 1;
  bool constant = true;  // reads no slot
};

Cell int_cell(int64_t v) {
  Cell c;
  c.i = v;
  c.is_float = false;
  return c;
}

Cell float_cell(double v) {
  Cell c;
  c.f = v;
  c.is_float = true;
  return c;
}

// Optimal string alignment distance (Levenshtein plus swapped neighbours).
int edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

bool iequals(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) { return lower(x) == lower(y); });
}

// The candidate closest to `word`, or "" when none is close enough to be a likely typo.
std::string closest(std::string_view word, std::span<const std::string> candidates) {
  std::string best;
  int best_distance = 0;
  for (const std::string& c : candidates) {
    int d = iequals(word, c) ? 0 : edit_distance(word, c);
    int limit = std::max<int>(1, static_cast<int>(std::max(word.size(), c.size())) / 3);
    if (d <= limit && (best.empty() || d < best_distance)) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string join(std::span<const std::string> words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

bool is_comparison(Tok t) {
  return t == Tok::Lt || t == Tok::Le || t == Tok::Gt || t == Tok::Ge || t == Tok::EqEq || t == Tok::Ne;
}

Op comparison_op(Tok t) {
  switch (t) {
    case Tok::Lt:
      return Op::Lt;
    case Tok::Le:
      return Op::Le;
    case Tok::Gt:
      return Op::Gt;
    case Tok::Ge:
      return Op::Ge;
    case Tok::EqEq:
      return Op::Eq;
    default:
      return Op::Ne;
  }
}

// Binary operators from |, the loosest, to * / // %, the tightest.
constexpr int kBinaryLevels = 6;
Op binary_op(int level, Tok t) {
  switch (level) {
    case 0:
      return t == Tok::Pipe ? Op::BitOr : Op::Return;
    case 1:
      return t == Tok::Caret ? Op::BitXor : Op::Return;
    case 2:
      return t == Tok::Amp ? Op::BitAnd : Op::Return;
    case 3:
      return t == Tok::Shl ? Op::Shl : t == Tok::Shr ? Op::Shr : Op::Return;
    case 4:
      return t == Tok::Plus ? Op::Add : t == Tok::Minus ? Op::Sub : Op::Return;
    default:
      switch (t) {
        case Tok::Star:
          return Op::Mul;
        case Tok::Slash:
          return Op::Div;
        case Tok::SlashSlash:
          return Op::FloorDiv;
        case Tok::Percent:
          return Op::Mod;
        default:
          return Op::Return;
      }
  }
}

const std::string kFunctions[] = {"min", "max", "abs"};

class Parser {
 public:
  Parser(std::string_view text, std::span<const std::string> names) : tokens_(expr::tokenize(text)), names_(names) {}

  std::vector<Node> nodes;

  int parse() {
    if (at(Tok::End)) {
      throw ParseError("empty expression: write a condition such as 'TM * TN <= 1024'", 1);
    }
    int root = expression();
    if (!at(Tok::End)) trailing();
    return root;
  }

 private:
  // Counts nesting so that "((((...))))" fails cleanly instead of exhausting the stack.
  class Nest {
   public:
    explicit Nest(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNesting) {
        p_.fail(p_.cur(), "expression nests more than " + std::to_string(kMaxNesting) + " levels deep; simplify it");
      }
    }
    ~Nest() { --p_.depth_; }

   private:
    Parser& p_;
  };

  const Token& cur() const { return tokens_[pos_]; }
  bool at(Tok kind) const { return cur().kind == kind; }
  const Token& advance() {
    const Token& t = tokens_[pos_];
    if (t.kind != Tok::End) ++pos_;
    return t;
  }

  [[noreturn]] void fail(const Token& at, const std::string& message) const { throw ParseError(message, at.column); }

  static std::string col(const Token& t) { return "column " + std::to_string(t.column); }

  // Errors for tokens that can only be mistakes, wherever they appear.
  void reject_mistakes() const {
    const Token& t = cur();
    if (t.kind == Tok::Assign) {
      const Token& next = tokens_[pos_ + 1];
      if ((next.kind == Tok::Gt || next.kind == Tok::Lt) && next.column == t.column + 1) {
        fail(t, "'=" + std::string(next.text) + "' is not an operator; write '" + std::string(next.text) + "='");
      }
      fail(t, "'=' is assignment; use '==' for comparison");
    }
    if (t.kind == Tok::String) {
      fail(t, "strings such as " + std::string(t.text) + " are not supported; constraints work on integer parameters");
    }
  }

  [[noreturn]] void unexpected(const std::string& expected) const {
    reject_mistakes();
    const Token& t = cur();
    if (t.kind == Tok::End) {
      std::string after = pos_ > 0 ? " after " + expr::describe(tokens_[pos_ - 1]) : "";
      fail(t, "the expression ends too early: expected " + expected + after);
    }
    fail(t, "expected " + expected + ", found " + expr::describe(t));
  }

  [[noreturn]] void trailing() const {
    reject_mistakes();
    const Token& t = cur();
    if (t.kind == Tok::RParen) fail(t, "unmatched ')'");
    if (t.kind == Tok::KwElse) fail(t, "'else' without 'if': write 'x if cond else y'");
    if (t.kind == Tok::Colon) fail(t, "':' without '?': write 'cond ? x : y'");
    fail(t, "unexpected " + expr::describe(t) + " after a complete expression: expected an operator or the end");
  }

  int add(Node n) {
    n.constant = n.kind != Kind::Slot;
    for (int k : n.kids) {
      n.height = std::max(n.height, nodes[k].height + 1);
      n.constant = n.constant && nodes[k].constant;
    }
    if (n.height > kMaxHeight) {
      throw ParseError("expression is longer or deeper than " + std::to_string(kMaxHeight) +
                           " levels; split it into several constraints",
                       static_cast<std::size_t>(n.column));
    }
    nodes.push_back(std::move(n));
    return static_cast<int>(nodes.size()) - 1;
  }

  int make(Kind kind, Op op, const Token& at, std::vector<int> kids) {
    Node n;
    n.kind = kind;
    n.op = op;
    n.column = static_cast<int>(at.column);
    n.kids = std::move(kids);
    return add(std::move(n));
  }

  int expression() {
    Nest nest(*this);
    int body = disjunction();
    if (at(Tok::KwIf)) {
      const Token& if_token = advance();
      int condition = disjunction();
      if (!at(Tok::KwElse)) {
        reject_mistakes();
        fail(cur(), "expected 'else' to complete the 'if' at " + col(if_token) + ", found " + expr::describe(cur()) +
                        ": write 'x if cond else y'");
      }
      advance();
      int other = expression();
      return make(Kind::Ternary, Op::Return, if_token, {condition, body, other});
    }
    if (at(Tok::Question)) {
      const Token& question = advance();
      int then = expression();
      if (!at(Tok::Colon)) {
        reject_mistakes();
        fail(cur(), "expected ':' to complete the '?' at " + col(question) + ", found " + expr::describe(cur()) +
                        ": write 'cond ? x : y'");
      }
      advance();
      int other = expression();
      return make(Kind::Ternary, Op::Return, question, {body, then, other});
    }
    return body;
  }

  int disjunction() {
    int left = conjunction();
    while (at(Tok::KwOr) || at(Tok::PipePipe)) {
      const Token& op = advance();
      int right = conjunction();
      left = make(op.kind == Tok::KwOr ? Kind::OrPy : Kind::OrC, Op::Return, op, {left, right});
    }
    return left;
  }

  int conjunction() {
    int left = inversion();
    while (at(Tok::KwAnd) || at(Tok::AmpAmp)) {
      const Token& op = advance();
      int right = inversion();
      left = make(op.kind == Tok::KwAnd ? Kind::AndPy : Kind::AndC, Op::Return, op, {left, right});
    }
    return left;
  }

  int inversion() {
    if (!at(Tok::KwNot)) return comparison();
    Nest nest(*this);
    const Token& op = advance();
    int operand = inversion();
    return make(Kind::Unary, Op::Not, op, {operand});
  }

  int comparison() {
    int first = binary(0);
    if (!is_comparison(cur().kind)) return first;
    const Token& first_op = cur();
    std::vector<int> operands{first};
    std::vector<Op> ops;
    while (is_comparison(cur().kind)) {
      ops.push_back(comparison_op(advance().kind));
      operands.push_back(binary(0));
    }
    if (ops.size() == 1) return make(Kind::Binary, ops[0], first_op, operands);
    Node chain;
    chain.kind = Kind::Chain;
    chain.column = static_cast<int>(first_op.column);
    chain.kids = std::move(operands);
    chain.cmps = std::move(ops);
    return add(std::move(chain));
  }

  int binary(int level) {
    if (level == kBinaryLevels) return factor();
    int left = binary(level + 1);
    for (Op op = binary_op(level, cur().kind); op != Op::Return; op = binary_op(level, cur().kind)) {
      const Token& token = advance();
      int right = binary(level + 1);
      left = make(Kind::Binary, op, token, {left, right});
    }
    return left;
  }

  int factor() {
    Op op = Op::Return;
    switch (cur().kind) {
      case Tok::Minus:
        op = Op::Neg;
        break;
      case Tok::Plus:
        op = Op::Pos;
        break;
      case Tok::Tilde:
        op = Op::Invert;
        break;
      case Tok::Bang:
        op = Op::Not;
        break;  // C's !, as tight as unary minus
      default:
        return power();
    }
    Nest nest(*this);
    const Token& token = advance();
    int operand = factor();
    return make(Kind::Unary, op, token, {operand});
  }

  int power() {
    int base = primary();
    if (!at(Tok::StarStar)) return base;
    Nest nest(*this);
    const Token& token = advance();
    int exponent = factor();  // right-associative, and 2 ** -1 is allowed
    return make(Kind::Binary, Op::Pow, token, {base, exponent});
  }

  int primary() {
    const Token& t = cur();
    switch (t.kind) {
      case Tok::Int:
        advance();
        return constant(int_cell(t.int_value), t);
      case Tok::Float:
        advance();
        return constant(float_cell(t.float_value), t);
      case Tok::Name:
        advance();
        return at(Tok::LParen) ? call(t) : variable(t);
      case Tok::LParen: {
        advance();
        int inner = expression();
        if (!at(Tok::RParen)) {
          reject_mistakes();
          if (at(Tok::End)) fail(cur(), "missing ')' to close the '(' at " + col(t));
          fail(cur(), "expected ')' to close the '(' at " + col(t) + ", found " + expr::describe(cur()));
        }
        advance();
        return inner;
      }
      case Tok::KwNot:
        fail(t,
             "'not' cannot appear here: in Python it binds loosely ('not a == b' means "
             "'not (a == b)'); write '(not x)' or '!x'");
      default:
        unexpected("a number, a parameter or '('");
    }
  }

  int constant(Cell value, const Token& t) {
    Node n;
    n.kind = Kind::Const;
    n.value = value;
    n.column = static_cast<int>(t.column);
    return add(std::move(n));
  }

  int find_name(std::string_view word) const {
    for (std::size_t k = 0; k < names_.size(); ++k) {
      if (names_[k] == word) return static_cast<int>(k);
    }
    return -1;
  }

  int variable(const Token& t) {
    int slot = find_name(t.text);
    if (slot < 0) {
      std::string message = "unknown parameter '" + std::string(t.text) + "'";
      std::string guess = closest(t.text, names_);
      if (!guess.empty()) {
        message += " (did you mean '" + guess + "'?)";
      } else if (names_.empty()) {
        message += " (no parameters are defined)";
      } else {
        message += " (the parameters are: " + join(names_) + ")";
      }
      fail(t, message);
    }
    Node n;
    n.kind = Kind::Slot;
    n.slot = slot;
    n.column = static_cast<int>(t.column);
    return add(std::move(n));
  }

  int call(const Token& name) {
    Op op = name.text == "min" ? Op::Min2 : name.text == "max" ? Op::Max2 : name.text == "abs" ? Op::Abs : Op::Return;
    if (op == Op::Return) {
      if (find_name(name.text) >= 0) {
        fail(name, "'" + std::string(name.text) +
                       "' is a parameter, not a function; "
                       "write '" +
                       std::string(name.text) + " * (...)' to multiply");
      }
      std::string guess = closest(name.text, kFunctions);
      fail(name, "unknown function '" + std::string(name.text) + "'" +
                     (guess.empty() ? "" : " (did you mean '" + guess + "'?)") +
                     "; the functions are min, max and abs");
    }
    Nest nest(*this);
    advance();  // '('
    std::vector<int> args;
    while (!at(Tok::RParen)) {
      args.push_back(expression());
      if (at(Tok::Comma)) {
        advance();
      } else if (!at(Tok::RParen)) {
        reject_mistakes();
        if (at(Tok::End)) {
          fail(cur(), "missing ')' to close the call of " + std::string(name.text) + "() at " + col(name));
        }
        fail(cur(),
             "expected ',' or ')' in the call of " + std::string(name.text) + "(), found " + expr::describe(cur()));
      }
    }
    advance();  // ')'
    std::string given = " (" + std::to_string(args.size()) + " given)";
    if (op == Op::Abs && args.size() != 1) {
      fail(name, "abs() takes exactly one argument" + given);
    }
    if (op != Op::Abs && args.size() < 2) {
      fail(name, std::string(name.text) + "() needs at least two arguments" + given);
    }
    return make(Kind::Call, op, name, std::move(args));
  }

  std::vector<Token> tokens_;
  std::span<const std::string> names_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

// Emits bytecode for a tree; every subtree leaves exactly one cell on the stack.
class Compiler {
 public:
  Compiler(const std::vector<Node>& nodes, expr::Program& program)
      : nodes_(nodes), code_(program.code), program_(program) {}

  void compile(int root) {
    code_.clear();
    emit(root);
    push(Op::Return);
    program_.max_depth = need(root);
  }

 private:
  std::size_t push(Op op, int32_t a = 0, int64_t y = 0) {
    Instr in;
    in.op = op;
    in.a = a;
    in.y = y;
    code_.push_back(in);
    return code_.size() - 1;
  }

  void land(std::size_t jump) { code_[jump].a = static_cast<int32_t>(code_.size()); }

  // An int constant or a slot travels inside the instruction that uses it.
  bool is_leaf(int id) const {
    const Node& n = nodes_[id];
    return n.kind == Kind::Slot || (n.kind == Kind::Const && !n.value.is_float);
  }

  static void set_leaf(const Node& n, expr::Src& src, int64_t& payload) {
    src = n.kind == Kind::Slot ? expr::Src::Slot : expr::Src::Imm;
    payload = n.kind == Kind::Slot ? n.slot : n.value.i;
  }

  // x op y with either operand inline when it is a leaf; `left < 0` means x is already
  // on the stack (the running value of min/max).
  std::size_t binary(Op op, int32_t a, int left, int right) {
    bool left_inline = left >= 0 && is_leaf(left);
    if (left >= 0 && !left_inline) emit(left);
    bool right_inline = is_leaf(right);
    if (!right_inline) emit(right);
    Instr in;
    in.op = op;
    in.a = a;
    if (left_inline) set_leaf(nodes_[left], in.lhs, in.x);
    if (right_inline) set_leaf(nodes_[right], in.rhs, in.y);
    code_.push_back(in);
    return code_.size() - 1;
  }

  void emit(int id) {
    const Node& n = nodes_[id];
    const std::vector<int>& k = n.kids;
    switch (n.kind) {
      case Kind::Const:
        if (n.value.is_float) {
          push(Op::PushFloat, 0, std::bit_cast<int64_t>(n.value.f));
        } else {
          push(Op::PushInt, 0, n.value.i);
        }
        break;
      case Kind::Slot:
        push(Op::Load, n.slot);
        break;
      case Kind::Unary:
        emit(k[0]);
        push(n.op, n.column);
        break;
      case Kind::Binary:
        binary(n.op, n.column, k[0], k[1]);
        break;
      case Kind::Call:
        if (n.op == Op::Abs) {
          emit(k[0]);
          push(Op::Abs, n.column);
          break;
        }
        binary(n.op, n.column, k[0], k[1]);
        for (std::size_t j = 2; j < k.size(); ++j) binary(n.op, n.column, -1, k[j]);
        break;
      case Kind::Chain: {
        // a < b < c: b is evaluated once and stays on the stack for the next link.
        std::vector<std::size_t> exits;
        for (std::size_t j = 0; j + 1 < k.size(); ++j) {
          std::size_t link = j + 2 < k.size() ? binary(Op::ChainCmp, 0, j == 0 ? k[0] : -1, k[j + 1])
                                              : binary(n.cmps[j], n.column, j == 0 ? k[0] : -1, k[j + 1]);
          if (j + 2 < k.size()) {
            code_[link].cmp = n.cmps[j];
            exits.push_back(link);
          }
        }
        for (std::size_t e : exits) land(e);
        break;
      }
      case Kind::AndPy:
      case Kind::OrPy: {
        emit(k[0]);
        std::size_t jump = push(n.kind == Kind::AndPy ? Op::JumpIfFalseKeep : Op::JumpIfTrueKeep);
        emit(k[1]);
        land(jump);
        break;
      }
      case Kind::AndC:
      case Kind::OrC: {
        emit(k[0]);
        std::size_t jump = push(n.kind == Kind::AndC ? Op::AndC : Op::OrC);
        emit(k[1]);
        push(Op::ToBool);
        land(jump);
        break;
      }
      case Kind::Ternary: {
        emit(k[0]);
        std::size_t to_else = push(Op::JumpIfFalsePop);
        emit(k[1]);
        std::size_t to_end = push(Op::Jump);
        land(to_else);
        emit(k[2]);
        land(to_end);
        break;
      }
    }
  }

  // Stack cells needed to evaluate a subtree from an empty stack.
  int need(int id) const {
    const Node& n = nodes_[id];
    const std::vector<int>& k = n.kids;
    switch (n.kind) {
      case Kind::Const:
      case Kind::Slot:
        return 1;
      case Kind::Binary:
        return need_binary(k[0], k[1]);
      case Kind::Call:
      case Kind::Chain: {
        if (k.size() == 1) return need(k[0]);  // abs
        int most = need_binary(k[0], k[1]);
        for (std::size_t j = 2; j < k.size(); ++j) most = std::max(most, need_binary(-1, k[j]));
        return most;
      }
      default: {  // unary, and/or, ternaries: the stack holds one value at a time
        int most = 1;
        for (int kid : k) most = std::max(most, need(kid));
        return most;
      }
    }
  }

  // Cells for binary(): `left < 0` is a value already on the stack.
  int need_binary(int left, int right) const {
    bool left_inline = left >= 0 && is_leaf(left);
    int below = left_inline ? 0 : 1;  // cells held while the right operand is evaluated
    int most = left >= 0 && !left_inline ? need(left) : 1;
    if (!is_leaf(right)) most = std::max(most, below + need(right));
    return most;
  }

  const std::vector<Node>& nodes_;
  std::vector<Instr>& code_;
  expr::Program& program_;
};

// Replaces constant subtrees (12*1024) by their value. A subtree that fails (1/0) is kept,
// so that the error surfaces at evaluation as it would in Python.
void fold(std::vector<Node>& nodes, int id, std::string_view text) {
  Node& n = nodes[id];
  if (n.kind == Kind::Const) return;
  if (n.constant) {
    expr::Program scratch;
    scratch.text = text;
    Compiler(nodes, scratch).compile(id);
    try {
      Value v = expr::run(scratch, {});
      n.value = v.is_int() ? int_cell(v.i) : float_cell(v.f);
      n.kind = Kind::Const;
      n.kids.clear();
      n.cmps.clear();
      return;
    } catch (const EvalError&) {
      // fall through: fold what can be folded below
    }
  }
  std::vector<int> kids = n.kids;  // `n` may not be touched while children change
  for (int k : kids) fold(nodes, k, text);
}

void collect_slots(const std::vector<Node>& nodes, int id, std::vector<int>& out) {
  const Node& n = nodes[id];
  if (n.kind == Kind::Slot) out.push_back(n.slot);
  for (int k : n.kids) collect_slots(nodes, k, out);
}

}  // namespace

Expression Expression::parse(std::string_view text, std::span<const std::string> names) {
  Parser parser(text, names);
  int root = parser.parse();
  fold(parser.nodes, root, text);

  auto program = std::make_shared<Program>();
  program->text = std::string(text);
  Compiler(parser.nodes, *program).compile(root);

  Expression e;
  collect_slots(parser.nodes, root, e.slots_);
  std::sort(e.slots_.begin(), e.slots_.end());
  e.slots_.erase(std::unique(e.slots_.begin(), e.slots_.end()), e.slots_.end());
  program->max_slot = e.slots_.empty() ? -1 : e.slots_.back();
  e.program_ = std::move(program);
  e.text_ = std::string(text);
  return e;
}

}  // namespace ktune

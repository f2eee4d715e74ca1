#pragma once
// The compiled form of an Expression: bytecode for a small stack machine. The parser
// (expression_parser.cpp) writes it, the evaluator (expression_eval.cpp) runs it.
//
// Constraints are evaluated millions of times while a space is enumerated, so the code
// is a flat array of 24-byte instructions whose leaf operands are inline, the stack is a
// local array of 16-byte cells, and the int-int case of each operator is handled inline.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ktune/expression.hpp"

namespace ktune::expr {

// A value on the stack. Trivial on purpose: the evaluator's stack is left uninitialized.
struct Cell {
  union {
    int64_t i;
    double f;
  };
  bool is_float;
};

enum class Op : uint8_t {
  PushInt,    // y: the value
  PushFloat,  // y: the bits of the double
  Load,       // a: slot
  // Unary, on the top cell. a: column of the operator, for error messages.
  Neg,
  Pos,
  Invert,
  Not,
  ToBool,
  Abs,
  // Binary: x op y, operands as `lhs`/`rhs` say. a: column of the operator.
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  Min2,
  Max2,      // min(x, y) / max(x, y) with Python's tie rule (the first wins)
  ChainCmp,  // a link of a chain, cmp: Lt..Ne; leaves y if x cmp y, else 0 and jumps to a
  // Control. a: target instruction index.
  Jump,
  JumpIfFalsePop,   // pop; jump when it was falsy (ternaries)
  JumpIfFalseKeep,  // Python `and`: falsy top stays and jumps; else pop
  JumpIfTrueKeep,   // Python `or`
  AndC,             // C `&&`: falsy top becomes 0 and jumps; else pop
  OrC,              // C `||`: truthy top becomes 1 and jumps; else pop
  Return,
};

// Where a binary operand comes from. Leaves are folded into the operator's instruction
// (a*b<=1024 is two instructions, not five): fewer dispatches per evaluation.
enum class Src : uint8_t {
  Stack,  // rhs: popped; lhs: the cell below (or the top when rhs is not on the stack)
  Imm,    // an int constant in x (lhs) or y (rhs)
  Slot,   // slot number in x (lhs) or y (rhs)
};

struct Instr {
  Op op = Op::Return;
  Op cmp = Op::Return;  // ChainCmp only
  Src lhs = Src::Stack;
  Src rhs = Src::Stack;
  int32_t a = 0;
  int64_t x = 0;
  int64_t y = 0;
};

struct Program {
  std::vector<Instr> code;
  int max_depth = 0;  // most cells the stack holds at once
  int max_slot = -1;  // highest slot read; -1 when none
  std::string text;   // the source, for error messages
};

// Runs `program` with slot k bound to slots[k]. Throws EvalError.
Value run(const Program& program, std::span<const int64_t> slots);

}  // namespace ktune::expr

namespace ktune {
struct Expression::Program : expr::Program {};
}  // namespace ktune

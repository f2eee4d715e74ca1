#include "ktune/parameter.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <set>

#include "ktune/error.hpp"
#include "ktune/text.hpp"
#include "space/expression_lexer.hpp"

namespace ktune {

namespace {

// Input quoted in a message: a PARAMS or KEYS entry may be megabytes long or hold control bytes.
std::string excerpt(std::string_view text) { return terminal_text(text, 80); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Values larger than this cannot be a sensible tile size, block size or count; keeping
// them bounded also keeps every product and range in 64-bit arithmetic.
constexpr int64_t kMaxMagnitude = int64_t{1} << 40;
constexpr std::size_t kMaxValuesPerParameter = 1 << 16;

void push_value(std::vector<int64_t>& values, int64_t v, std::string_view spec) {
  if (values.size() >= kMaxValuesPerParameter)
    throw Error("parameter '" + excerpt(spec) + "': more than " + std::to_string(kMaxValuesPerParameter) +
                " values; use a coarser step");
  values.push_back(v);
}

// "a..b" or "a..b:s" → appended values.
void expand_range(std::string_view item, std::string_view spec, bool powers_of_two, std::vector<int64_t>& out) {
  auto dots = item.find("..");
  auto colon = item.find(':');
  std::string what = "parameter '" + excerpt(spec) + "'";
  int64_t lo = parse_integer(trim(item.substr(0, dots)), what);
  int64_t hi = parse_integer(
      trim(item.substr(dots + 2, colon == std::string_view::npos ? std::string_view::npos : colon - dots - 2)), what);
  int64_t step = 1;
  if (colon != std::string_view::npos) {
    if (powers_of_two)
      throw Error(what + ": pow2(" + excerpt(item) + ") takes no step; write pow2(" + std::to_string(lo) + ".." +
                  std::to_string(hi) + ")");
    step = parse_integer(trim(item.substr(colon + 1)), what);
    if (step <= 0) throw Error(what + ": range step must be positive, got " + std::to_string(step));
  }
  if (lo > hi)
    throw Error(what + ": range " + excerpt(item) + " is empty (start " + std::to_string(lo) + " > end " +
                std::to_string(hi) + "); write " + std::to_string(hi) + ".." + std::to_string(lo));
  if (powers_of_two) {
    if (lo <= 0) throw Error(what + ": pow2 range must start at 1 or more, got " + std::to_string(lo));
    for (int64_t v = 1; v <= hi; v *= 2)
      if (v >= lo) push_value(out, v, spec);
    return;
  }
  for (int64_t v = lo; v <= hi; v += step) push_value(out, v, spec);
}

}  // namespace

int64_t parse_integer(std::string_view text, std::string_view what) {
  std::string_view digits = trim(text);
  bool negative = !digits.empty() && digits.front() == '-';
  if (negative || (!digits.empty() && digits.front() == '+')) digits.remove_prefix(1);
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    throw Error(std::string(what) + ": '" + excerpt(trim(text)) +
                "' is not an integer (parameters and key dimensions take integers)");
  if (magnitude > static_cast<uint64_t>(kMaxMagnitude))
    throw Error(std::string(what) + ": value " + excerpt(trim(text)) + " is out of range (at most 2^40 in magnitude)");
  return negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
}

void check_parameter_name(std::string_view name, std::string_view what) {
  // The language's keywords, and its function names: a parameter called `min` would
  // read as a call in every constraint that uses it. Key dimensions are checked here too:
  // `what` says which kind of name it is, the message does not guess.
  static const std::set<std::string_view> functions = {"min", "max", "abs", "range", "list"};
  if (!is_c_identifier(name))
    throw Error(std::string(what) + ": '" + terminal_text(name, 60) +
                "' is not a valid name; use a C identifier such as TILE_M");
  if (expr::is_reserved_word(name) || functions.count(name))
    throw Error(std::string(what) + ": '" + std::string(name) + "' is a word of the constraint language; rename it");
}

Parameter parse_parameter(std::string_view spec) {
  auto eq = spec.find('=');
  if (eq == std::string_view::npos)
    throw Error("parameter '" + excerpt(spec) + "': expected NAME=VALUES, e.g. \"TM=32,64,128\" or \"TM=16..256:16\"");
  Parameter p;
  p.name = std::string(trim(spec.substr(0, eq)));
  check_parameter_name(p.name, "parameter '" + excerpt(spec) + "'");

  std::string_view rest = trim(spec.substr(eq + 1));
  if (rest.empty()) throw Error("parameter '" + p.name + "' has no values; list some, e.g. \"" + p.name + "=32,64\"");
  while (true) {
    auto comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    if (item.empty()) throw Error("parameter '" + excerpt(spec) + "': empty value between commas");
    bool pow2 = item.starts_with("pow2(") && item.ends_with(")");
    if (pow2) {
      std::string_view inner = item.substr(5, item.size() - 6);
      if (inner.find("..") == std::string_view::npos)
        throw Error("parameter '" + excerpt(spec) + "': pow2 takes a range, e.g. pow2(16..256)");
      expand_range(inner, spec, true, p.values);
    } else if (item.find("..") != std::string_view::npos) {
      expand_range(item, spec, false, p.values);
    } else {
      push_value(p.values, parse_integer(item, "parameter '" + excerpt(spec) + "'"), spec);
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (p.values.empty()) throw Error("parameter '" + excerpt(spec) + "' has no values: its ranges are empty");
  check_distinct_values(p.values, "parameter '" + p.name + "'");
  return p;
}

void check_distinct_values(std::span<const int64_t> values, std::string_view what) {
  std::set<int64_t> seen;
  for (int64_t v : values)
    if (!seen.insert(v).second)
      throw Error(std::string(what) + " lists the value " + std::to_string(v) + " twice; list each value once");
}

std::vector<Assignment> parse_assignments(std::string_view text) {
  std::vector<Assignment> out;
  std::string_view rest = trim(text);
  while (!rest.empty()) {
    auto end = rest.find_first_of(" \t,;");
    std::string_view pair = rest.substr(0, end);
    auto eq = pair.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == pair.size())
      throw Error("'" + excerpt(pair) + "' in \"" + excerpt(text) + "\" is not NAME=VALUE; write e.g. \"TM=64 TN=64\"");
    std::string name(pair.substr(0, eq));
    for (const auto& [seen, _] : out)
      if (seen == name) throw Error("'" + excerpt(name) + "' is given twice in \"" + excerpt(text) + "\"");
    out.emplace_back(name, parse_integer(pair.substr(eq + 1), "'" + excerpt(pair) + "'"));
    if (end == std::string_view::npos) break;
    rest = trim(rest.substr(end));
    while (!rest.empty() && (rest.front() == ',' || rest.front() == ';')) rest = trim(rest.substr(1));
  }
  return out;
}

}  // namespace ktune

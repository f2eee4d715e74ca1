// Sizes, blocks, grids and macros of a T1 kernel, computed as Kernel Tuner computes them
// (kernel_tuner/util.py: get_thread_block_dimensions, get_grid_dimensions,
// prepare_kernel_string; interface.py: tune_kernel_T1), with ktune's expression engine
// standing in for Python's eval.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "ktune/t1_kernel.hpp"
#include "ktune/text.hpp"

namespace ktune {
namespace {

// Helpers of this file, in their own namespace: unity builds merge it with others.
namespace t1_geometry {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// max(p) or min(p) of a parameter p at text[after_name] (just past "max"/"min"): its
// value and where the call ends; nullopt for anything else (max of numbers stays as it is).
std::optional<std::pair<int64_t, std::size_t>> fold_min_max(const std::string& text, const std::string& ident,
                                                            std::size_t after_name, const SpaceSpec& space) {
  if (ident != "max" && ident != "min") return std::nullopt;
  auto skip_space = [&](std::size_t j) {
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    return j;
  };
  const std::size_t open = skip_space(after_name);
  if (open >= text.size() || text[open] != '(') return std::nullopt;
  const std::size_t a = skip_space(open + 1);
  std::size_t b = a;
  while (b < text.size() && ident_char(text[b])) ++b;
  const std::size_t close = skip_space(b);
  if (b == a || close >= text.size() || text[close] != ')') return std::nullopt;
  const std::string name = text.substr(a, b - a);
  for (const auto& p : space.parameters)
    if (p.name == name && !p.values.empty()) {
      const auto [lo, hi] = std::minmax_element(p.values.begin(), p.values.end());
      return std::make_pair(ident == "max" ? *hi : *lo, close + 1);
    }
  return std::nullopt;
}

// In a Size, Kernel Tuner evaluates the text with ProblemSize bound to the problem size (a
// list) and each parameter bound to its list of values: ProblemSize[i], max(p) and min(p)
// become numbers here, before the expression engine (which has no lists) reads the rest.
std::string resolve_lists(const std::string& text, const SpaceSpec& space, std::span<const int64_t> ps,
                          const std::string& where) {
  auto bad = [&](const std::string& why) { return Error(where + " \"" + text + "\": " + why); };
  auto skip_space = [&](std::size_t j) {
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    return j;
  };
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {  // a number, with any suffix (1e3, 0x10)
      std::size_t j = i;
      while (j < text.size() && (ident_char(text[j]) || text[j] == '.')) ++j;
      out += text.substr(i, j - i);
      i = j;
      continue;
    }
    if (!ident_start(c)) {
      out += c;
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    const std::string ident = text.substr(i, j - i);
    if (ident == "ProblemSize") {
      std::size_t k = skip_space(j);
      if (k >= text.size() || text[k] != '[') throw bad("ProblemSize is a list; index it, e.g. ProblemSize[0]");
      k = skip_space(k + 1);
      const std::size_t start = k;
      while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])) && k - start < 3) ++k;
      const std::size_t end = skip_space(k);
      if (k == start || end >= text.size() || text[end] != ']')
        throw bad("index ProblemSize with 0, 1 or 2, e.g. ProblemSize[0]");
      const std::size_t index = std::stoul(text.substr(start, k - start));
      if (index >= ps.size())
        throw bad("ProblemSize[" + std::to_string(index) + "] is beyond the problem size, which has " +
                  std::to_string(ps.size()) + " dimension" + (ps.size() == 1 ? "" : "s"));
      out += "(" + std::to_string(ps[index]) + ")";
      i = end + 1;
      continue;
    }
    if (auto folded = fold_min_max(text, ident, j, space)) {
      out += "(" + std::to_string(folded->first) + ")";
      i = folded->second;
      continue;
    }
    out += ident;
    i = j;
  }
  return out;
}

}  // namespace t1_geometry
}  // namespace

int64_t t1_elements(const std::string& size, const SpaceSpec& space, std::span<const int64_t> problem_size,
                    const std::string& where) {
  using namespace t1_geometry;
  const std::string resolved = resolve_lists(size, space, problem_size, where);
  std::vector<std::string> names;
  for (const auto& p : space.parameters) names.push_back(p.name);
  Value v;
  try {
    const Expression e = Expression::parse(resolved, names);
    if (!e.slots().empty()) {
      const std::string& p = names[e.slots().front()];
      throw Error(where + " \"" + size + "\": " + p + " stands for the list of " + p +
                  "'s values here, as in Kernel Tuner; write max(" + p + ") or min(" + p + ")");
    }
    const std::vector<int64_t> none(names.size(), 0);
    v = e.evaluate(none);
  } catch (const ParseError& e) {
    throw Error(where + " \"" + size + "\": " + e.what());
  } catch (const EvalError& e) {
    throw Error(where + " \"" + size + "\": " + e.what());
  }
  double elements = v.is_int() ? static_cast<double>(v.i) : std::trunc(v.f);  // Kernel Tuner: int(eval(Size))
  if (!(elements >= 1))
    throw Error(where + " \"" + size + "\" gives " + (v.is_int() ? std::to_string(v.i) : std::to_string(v.f)) +
                " elements; an array needs at least 1");
  if (elements > 1e12)
    throw Error(where + " \"" + size + "\" gives " + std::to_string(elements) + " elements; more than any GPU holds");
  return v.is_int() ? v.i : static_cast<int64_t>(elements);
}

T1Geometry::T1Geometry(const T1Kernel& kernel, std::vector<std::string> names, std::string origin)
    : names_(std::move(names)), origin_(std::move(origin)) {
  for (const auto& n : names_)
    for (const char* reserved : {"grid_size_x", "grid_size_y", "grid_size_z", "kernel_tuner"})
      if (n == reserved)
        throw Error(origin_ + ": ConfigurationSpace.TuningParameters: a parameter named " + n +
                    " is not allowed, as in Kernel Tuner, which defines that macro itself; rename it");
  for (int d = 0; d < 3; ++d) {
    auto it = std::find(names_.begin(), names_.end(), kT1BlockNames[d]);
    if (it != names_.end()) block_slot_[d] = static_cast<int>(it - names_.begin());
  }
  const char* axes = "XYZ";
  auto parse = [&](const std::string& text, const std::string& field) {
    try {
      return Expression::parse(text, names_);
    } catch (const ParseError& e) {
      throw Error(origin_ + ": KernelSpecification." + field + " \"" + text + "\": " + e.what());
    }
  };
  for (int d = 0; d < 3; ++d) {
    if (kernel.grid_div[d]) {
      std::vector<Expression> exprs;
      for (std::size_t i = 0; i < kernel.grid_div[d]->size(); ++i)
        exprs.push_back(
            parse((*kernel.grid_div[d])[i], std::string("GridDiv") + axes[d] + "[" + std::to_string(i) + "]"));
      grid_div_[d] = std::move(exprs);
    }
    if (!kernel.local_size[d].empty())
      local_size_[d] = parse(kernel.local_size[d], std::string("LocalSize.") + axes[d]);
  }
}

std::string T1Geometry::describe(std::span<const int64_t> values) const { return assignments_text(names_, values); }

namespace {
namespace t1_geometry {

// An expression's value as Kernel Tuner's int(eval(...)) has it: a float truncated.
int64_t truncated(const Expression& e, std::span<const int64_t> values, const std::string& where) {
  Value v;
  try {
    v = e.evaluate(values);
  } catch (const EvalError& err) {
    throw Error(where + ": " + err.what());
  }
  if (v.is_int()) return v.i;
  if (!std::isfinite(v.f) || std::fabs(v.f) > 9.0e18) throw Error(where + " is " + std::to_string(v.f));
  return static_cast<int64_t>(std::trunc(v.f));
}

}  // namespace t1_geometry
}  // namespace

T1Geometry::Dims T1Geometry::block(std::span<const int64_t> values) const {
  Dims b{256, 1, 1};  // Kernel Tuner's defaults without a block_size_* parameter
  for (int d = 0; d < 3; ++d)
    if (block_slot_[d] >= 0) b[d] = values[block_slot_[d]];
  return b;
}

T1Geometry::Dims T1Geometry::divisors(std::span<const int64_t> values) const {
  const char* axes = "XYZ";
  Dims div{1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    const std::string field = origin_ + ": KernelSpecification.GridDiv" + axes[d];
    if (!grid_div_[d]) {
      if (block_slot_[d] >= 0) div[d] = values[block_slot_[d]];
    } else {
      int64_t product = 1;
      for (std::size_t i = 0; i < grid_div_[d]->size(); ++i) {
        const Expression& e = (*grid_div_[d])[i];
        const int64_t f = t1_geometry::truncated(
            e, values, field + "[" + std::to_string(i) + "] \"" + e.text() + "\" for " + describe(values));
        if (__builtin_mul_overflow(product, f, &product)) throw Error(field + " overflows for " + describe(values));
      }
      div[d] = product;
    }
    if (div[d] < 1)
      throw Error(field + " gives the divisor " + std::to_string(div[d]) + " for " + describe(values) +
                  (grid_div_[d] ? "" : " (the default: " + std::string(kT1BlockNames[d]) + ")") +
                  "; the grid is ceil(ProblemSize / divisor), so every divisor must be a positive integer");
  }
  return div;
}

T1Geometry::Dims T1Geometry::grid(std::span<const int64_t> values, std::span<const int64_t> problem_size) const {
  const Dims div = divisors(values);
  Dims g{1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    const int64_t n = d < static_cast<int>(problem_size.size()) ? problem_size[d] : 1;
    g[d] = n / div[d] + (n % div[d] != 0);  // ceil(n / div), as Kernel Tuner's np.ceil(float / float)
  }
  return g;
}

void T1Geometry::check_local_size(std::span<const int64_t> values) const {
  const char* axes = "XYZ";
  const Dims b = block(values);
  for (int d = 0; d < 3; ++d) {
    if (!local_size_[d]) continue;
    const std::string field =
        origin_ + ": KernelSpecification.LocalSize." + axes[d] + " \"" + local_size_[d]->text() + "\"";
    const int64_t v = t1_geometry::truncated(*local_size_[d], values, field + " for " + describe(values));
    if (v == b[d]) continue;
    const std::string fix = block_slot_[d] >= 0 ? std::string("make it \"") + kT1BlockNames[d] + "\""
                                                : std::string("add a parameter ") + kT1BlockNames[d] +
                                                      " or make it \"" + std::to_string(b[d]) + "\"";
    throw Error(field + " is " + std::to_string(v) + " for " + describe(values) + ", but Kernel Tuner launches " +
                std::to_string(b[d]) + " threads there (" +
                (block_slot_[d] >= 0 ? std::string("the parameter ") + kT1BlockNames[d]
                                     : std::string("its default without a parameter ") + kT1BlockNames[d]) +
                "), and so does ktune; " + fix);
  }
}

std::vector<std::pair<std::string, int64_t>> T1Geometry::macros(std::span<const int64_t> values,
                                                                std::span<const int64_t> problem_size,
                                                                bool with_grid) const {
  std::vector<std::pair<std::string, int64_t>> out;
  if (with_grid) {
    const Dims g = grid(values, problem_size);
    for (int d = 0; d < 3; ++d) out.emplace_back(kT1GridNames[d], g[d]);
  }
  const Dims b = block(values);
  for (int d = 0; d < 3; ++d)
    if (block_slot_[d] < 0) out.emplace_back(kT1BlockNames[d], b[d]);  // parameters follow with theirs
  for (std::size_t k = 0; k < names_.size(); ++k) out.emplace_back(names_[k], values[k]);
  out.emplace_back("kernel_tuner", 1);
  return out;
}

}  // namespace ktune

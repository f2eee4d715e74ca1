// Reading a T1 spec's KernelSpecification (and its Search and Budget): every field is
// either used, ignored for a stated reason (docs/t1.md), or refused with the fix.
#include "ktune/t1_kernel.hpp"

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ktune/text.hpp"

namespace ktune {
namespace {

using nlohmann::json;

// Helpers of the reader, in their own namespace: unity builds merge this file with others.
namespace t1_kernel_json {

struct Where {
  std::string origin;
  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw Error(origin + ": " + field + " " + why);
  }
};

std::string text(const json& v, const Where& w, const std::string& field) {
  if (!v.is_string()) w.fail(field, "must be a string, not " + json_excerpt(v));
  return v.get<std::string>();
}

// An integer written as a JSON integer or as a float with no fraction (40.0).
std::optional<int64_t> whole(const json& v) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) return std::nullopt;
    return v.get<int64_t>();
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

// An expression field: a string, or an integer (written as its text).
std::string expression(const json& v, const Where& w, const std::string& field) {
  if (v.is_string()) {
    if (v.get<std::string>().find_first_not_of(" \t") == std::string::npos)
      w.fail(field, "is empty; give an expression, e.g. \"block_size_x\"");
    return v.get<std::string>();
  }
  if (auto n = whole(v)) return std::to_string(*n);
  w.fail(field, "must be an expression (a string) or an integer, not " + json_excerpt(v));
}

const std::map<std::string, T1Type>& types() {
  static const std::map<std::string, T1Type> t = {
      {"bool", T1Type::Bool},     {"int8", T1Type::Int8},   {"uint8", T1Type::UInt8},   {"int16", T1Type::Int16},
      {"uint16", T1Type::UInt16}, {"int32", T1Type::Int32}, {"uint32", T1Type::UInt32}, {"int64", T1Type::Int64},
      {"uint64", T1Type::UInt64}, {"half", T1Type::Half},   {"float", T1Type::Float},   {"double", T1Type::Double}};
  return t;
}

// Type: one of the scalar types (vector types are refused with the way round them); returns
// it as written.
std::string read_type(const json& a, const Where& w, const std::string& field, T1Argument& arg) {
  if (!a.contains("Type")) w.fail(field, "has no \"Type\"; give the element type, e.g. \"Type\": \"float\"");
  const std::string type = text(a["Type"], w, field + ".Type");
  auto it = types().find(type);
  if (it == types().end()) {
    std::string fix = "use one of bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, half, float, double";
    if (type.size() > 1 && std::isdigit(static_cast<unsigned char>(type.back())))
      fix =
          "vector types are not supported: declare the argument as its element type (e.g. \"float\" for "
          "\"float4\") with Size multiplied by the width, and cast in the kernel";
    w.fail(field + ".Type", "\"" + type + "\" is not supported; " + fix);
  }
  arg.type = it->second;
  return type;
}

void check_type_size(const json& a, const Where& w, const std::string& field, const std::string& type,
                     const T1Argument& arg) {
  if (a.contains("TypeSize") && !a["TypeSize"].is_null() &&
      whole(a["TypeSize"]) != static_cast<int64_t>(size_of(arg.type)))
    w.fail(field + ".TypeSize", json_excerpt(a["TypeSize"]) + " is not the size of " + type + " (" +
                                    std::to_string(size_of(arg.type)) + " bytes); custom types are not supported");
}

// MemoryType (a device array or a value) and MemType (global or __constant__ memory).
void read_memory(const json& a, const Where& w, const std::string& field, T1Argument& arg) {
  if (!a.contains("MemoryType"))
    w.fail(field, "has no \"MemoryType\"; give \"Vector\" (a device array) or \"Scalar\" (a value)");
  const std::string memory = text(a["MemoryType"], w, field + ".MemoryType");
  if (memory == "Vector") {
    arg.vector = true;
  } else if (memory == "Scalar") {
    arg.vector = false;
  } else if (memory == "Symbol") {
    w.fail(field + ".MemoryType",
           "\"Symbol\" is not supported; make it a \"Vector\" with \"MemType\": \"Constant\", "
           "which ktune copies to the __constant__ variable of the argument's Name");
  } else {
    w.fail(field + ".MemoryType", "\"" + memory + "\" is not supported; use \"Vector\" or \"Scalar\"");
  }
  if (a.contains("MemType")) {
    const std::string mem = text(a["MemType"], w, field + ".MemType");
    if (mem == "Constant")
      arg.constant = true;
    else if (mem != "Global")
      w.fail(field + ".MemType", "\"" + mem +
                                     "\" is not supported; use \"Constant\" (copied to the "
                                     "__constant__ variable named like the argument) or leave it out");
  }
  if (arg.constant && !is_c_identifier(arg.name))
    w.fail(field + ".Name",
           "must name the kernel's __constant__ variable (a C identifier) for \"MemType\": \"Constant\"");
  if (arg.type == T1Type::Bool && arg.vector)
    w.fail(field + ".Type", "\"bool\" vectors are not supported; use \"uint8\" (one byte an element)");
}

double fill_value(const json& a, const Where& w, const std::string& field, const std::string& type,
                  const T1Argument& arg) {
  if (!a.contains("FillValue") || !a["FillValue"].is_number())
    w.fail(field + ".FillValue", a.contains("FillValue") ? "must be a number, not " + json_excerpt(a["FillValue"])
                                                         : "is missing; give the value, e.g. \"FillValue\": 0");
  const double v = a["FillValue"].get<double>();
  if (!is_floating(arg.type) && !whole(a["FillValue"]))
    w.fail(field + ".FillValue", json_excerpt(a["FillValue"]) + " is not an integer, but Type is " + type);
  return v;
}

// A vector's Size and fill (Constant or Random); a scalar's value.
void read_contents(const json& a, const Where& w, const std::string& field, const std::string& type, T1Argument& arg) {
  if (!arg.vector) {
    arg.value = fill_value(a, w, field, type, arg);
    if (arg.type == T1Type::Bool && arg.value != 0 && arg.value != 1)
      w.fail(field + ".FillValue", "must be 0 or 1 for Type bool");
    return;
  }
  if (!a.contains("Size"))
    w.fail(field, "has no \"Size\"; give the element count, e.g. \"ProblemSize[0]*ProblemSize[1]\"");
  arg.size = expression(a["Size"], w, field + ".Size");
  if (!a.contains("FillType")) w.fail(field, "has no \"FillType\"; give \"Constant\" (with FillValue) or \"Random\"");
  const std::string fill = text(a["FillType"], w, field + ".FillType");
  if (fill == "Constant") {
    arg.fill = T1Argument::Fill::Constant;
    arg.value = fill_value(a, w, field, type, arg);
  } else if (fill == "Random") {
    arg.fill = T1Argument::Fill::Random;
  } else {
    w.fail(field + ".FillType", "\"" + fill +
                                    "\" is not supported; use \"Constant\" (every element FillValue) "
                                    "or \"Random\" (uniform values, seeded by RandomSeed)");
  }
}

T1Argument read_argument(const json& a, std::size_t index, const Where& w) {
  std::string field = "KernelSpecification.Arguments[" + std::to_string(index) + "]";
  if (!a.is_object()) w.fail(field, "must be an object with Type, MemoryType, ...");
  T1Argument arg;
  arg.name = "argument " + std::to_string(index);
  if (a.contains("Name")) {
    arg.name = text(a["Name"], w, field + ".Name");
    field += " (" + arg.name + ")";
  }
  const std::string type = read_type(a, w, field, arg);
  read_memory(a, w, field, arg);
  check_type_size(a, w, field, type, arg);
  read_contents(a, w, field, type, arg);
  arg.seed = index + 1;
  if (a.contains("RandomSeed")) {
    auto seed = whole(a["RandomSeed"]);
    if (!seed || *seed < 0)
      w.fail(field + ".RandomSeed", "must be a non-negative integer, not " + json_excerpt(a["RandomSeed"]));
    arg.seed = static_cast<uint64_t>(*seed);
  }
  if (a.contains("AccessType")) {
    const std::string access = text(a["AccessType"], w, field + ".AccessType");
    if (access != "ReadOnly" && access != "WriteOnly" && access != "ReadWrite")
      w.fail(field + ".AccessType", "\"" + access + "\" is not one of ReadOnly, WriteOnly, ReadWrite");
    arg.output = access != "ReadOnly";  // a default; "Output" below decides where given
  }
  return arg;
}

std::string percent_text(double fraction) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(6) << fraction * 100;
  std::string t = s.str();
  t.erase(t.find_last_not_of('0') + 1);
  if (t.back() == '.') t.pop_back();
  return t + "%";
}

// Kernel Tuner's strategy names and ktune's for the same idea; other names pass through
// (ktune's own, or an error where the strategy is made).
std::string strategy_for(const std::string& name) {
  static const std::map<std::string, std::string> kt = {
      {"brute_force", "exhaustive"},    {"random_sample", "random"},
      {"genetic_algorithm", "genetic"}, {"simulated_annealing", "annealing"},
      {"bayes_opt", "bayes"},           {"mls", "local"},
      {"greedy_mls", "local"},          {"ordered_greedy_mls", "local"}};
  auto it = kt.find(name);
  return it == kt.end() ? name : it->second;
}

}  // namespace t1_kernel_json
}  // namespace

const char* to_string(T1Type t) {
  switch (t) {
    case T1Type::Bool:
      return "bool";
    case T1Type::Int8:
      return "int8";
    case T1Type::UInt8:
      return "uint8";
    case T1Type::Int16:
      return "int16";
    case T1Type::UInt16:
      return "uint16";
    case T1Type::Int32:
      return "int32";
    case T1Type::UInt32:
      return "uint32";
    case T1Type::Int64:
      return "int64";
    case T1Type::UInt64:
      return "uint64";
    case T1Type::Half:
      return "half";
    case T1Type::Float:
      return "float";
    case T1Type::Double:
      return "double";
  }
  return "?";
}

std::size_t size_of(T1Type t) {
  switch (t) {
    case T1Type::Bool:
    case T1Type::Int8:
    case T1Type::UInt8:
      return 1;
    case T1Type::Int16:
    case T1Type::UInt16:
    case T1Type::Half:
      return 2;
    case T1Type::Int32:
    case T1Type::UInt32:
    case T1Type::Float:
      return 4;
    case T1Type::Int64:
    case T1Type::UInt64:
    case T1Type::Double:
      return 8;
  }
  return 0;
}

bool is_floating(T1Type t) { return t == T1Type::Half || t == T1Type::Float || t == T1Type::Double; }

void check_t1_language(const json& doc, std::string_view origin) {
  using namespace t1_kernel_json;
  const Where w{std::string(origin)};
  if (!doc.is_object() || !doc.contains("KernelSpecification") || !doc["KernelSpecification"].is_object()) return;
  const json& ks = doc["KernelSpecification"];
  if (!ks.contains("Language")) w.fail("KernelSpecification", "has no \"Language\"; add \"Language\": \"CUDA\"");
  const std::string language = text(ks["Language"], w, "KernelSpecification.Language");
  if (language != "CUDA")
    w.fail("KernelSpecification.Language", json_excerpt(ks["Language"]) +
                                               " is not supported: ktune tunes CUDA kernels, compiled with nvcc "
                                               "(Kernel Tuner also runs OpenCL, HIP and C; tune those with it)");
}

namespace {
namespace t1_kernel_json {

void read_compiler_options(const json& ks, const Where& w, T1Kernel& k) {
  if (ks.contains("CompilerOptions") && !ks["CompilerOptions"].is_null()) {
    const json& opts = ks["CompilerOptions"];
    if (!opts.is_array()) w.fail("KernelSpecification.CompilerOptions", "must be a list of nvcc flags");
    for (std::size_t i = 0; i < opts.size(); ++i) {
      std::string flag = text(opts[i], w, "KernelSpecification.CompilerOptions[" + std::to_string(i) + "]");
      if (flag.find_first_of("\n\r") != std::string::npos)
        w.fail("KernelSpecification.CompilerOptions[" + std::to_string(i) + "]", "contains a line break");
      k.compiler_options.push_back(std::move(flag));
    }
  }
}

void read_problem_size(const json& ks, const Where& w, T1Kernel& k) {
  if (ks.contains("ProblemSize") && !ks["ProblemSize"].is_null()) {
    const json& ps = ks["ProblemSize"];
    const json list = ps.is_array() ? ps : json::array({ps});
    if (list.empty() || list.size() > 3) w.fail("KernelSpecification.ProblemSize", "must hold 1 to 3 sizes (x, y, z)");
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto v = whole(list[i]);
      if (!v || *v < 1)
        w.fail("KernelSpecification.ProblemSize[" + std::to_string(i) + "]",
               json_excerpt(list[i]) +
                   " is not supported; ktune tunes for integer problem sizes (each a key): "
                   "give positive integers, or pass --problem-size");
      k.problem_size.push_back(*v);
    }
  }
}

// GridDivX/Y/Z, LocalSize and SharedMemory: how each config is launched.
void read_launch_geometry(const json& ks, const Where& w, T1Kernel& k) {
  const char* axes[3] = {"X", "Y", "Z"};
  for (int d = 0; d < 3; ++d) {
    const std::string key = std::string("GridDiv") + axes[d];
    if (!ks.contains(key) || ks[key].is_null()) continue;
    const json& div = ks[key];
    if (!div.is_array()) w.fail("KernelSpecification." + key, "must be a list of expressions, e.g. [\"block_size_x\"]");
    if (div.empty()) continue;  // Kernel Tuner's T1 reader: an empty list is the default
    std::vector<std::string> exprs;
    for (std::size_t i = 0; i < div.size(); ++i)
      exprs.push_back(expression(div[i], w, "KernelSpecification." + key + "[" + std::to_string(i) + "]"));
    k.grid_div[d] = std::move(exprs);
  }
  if (ks.contains("LocalSize") && !ks["LocalSize"].is_null()) {
    const json& ls = ks["LocalSize"];
    if (!ls.is_object())
      w.fail("KernelSpecification.LocalSize", "must be an object {\"X\": ..., \"Y\": ..., \"Z\": ...}");
    for (int d = 0; d < 3; ++d)
      if (ls.contains(axes[d]) && !ls[axes[d]].is_null())
        k.local_size[d] = expression(ls[axes[d]], w, std::string("KernelSpecification.LocalSize.") + axes[d]);
  }
  if (ks.contains("SharedMemory") && !ks["SharedMemory"].is_null()) {
    auto v = whole(ks["SharedMemory"]);
    if (!v || *v < 0 || *v > (int64_t{1} << 30))
      w.fail("KernelSpecification.SharedMemory",
             "must be a number of bytes (dynamic shared memory a block), not " + json_excerpt(ks["SharedMemory"]));
    k.shared_memory = static_cast<uint32_t>(*v);
  }
}

// Fields Kernel Tuner reads that ktune does not: refused by name, with what to do instead.
void refuse_unsupported(const json& ks, const Where& w) {
  if (ks.contains("Stream") && !ks["Stream"].is_null())
    w.fail("KernelSpecification.Stream", "is not supported: ktune launches on its own stream; set it to null");
  if (ks.contains("SimulationInput") && !ks["SimulationInput"].is_null())
    w.fail("KernelSpecification.SimulationInput",
           "is not supported by `ktune tune`, which measures on the GPU; "
           "replay a recording with `ktune simulate --cache FILE`");
  if (ks.contains("ReferenceArguments") && !ks["ReferenceArguments"].is_null())
    w.fail("KernelSpecification.ReferenceArguments",
           "is not supported: ktune checks every config against the "
           "Default config's outputs; remove it");
  if (ks.contains("GlobalSizeType") && ks["GlobalSizeType"].is_string() && ks["GlobalSizeType"] != "CUDA" &&
      ks["GlobalSizeType"] != "OpenCL")
    w.fail("KernelSpecification.GlobalSizeType",
           "\"" + ks["GlobalSizeType"].get<std::string>() + "\" is not supported; use \"CUDA\"");
}

// The arguments in order; the outputs those marked "Output": 1, else the vectors written.
void read_arguments(const json& ks, const Where& w, T1Kernel& k) {
  if (!ks.contains("Arguments"))
    w.fail("KernelSpecification", "has no \"Arguments\"; list the kernel's parameters in order");
  const json& args = ks["Arguments"];
  if (!args.is_array()) w.fail("KernelSpecification.Arguments", "must be a list");
  bool any_output_field = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    k.arguments.push_back(read_argument(args[i], i, w));
    if (args[i].contains("Output") && !args[i]["Output"].is_null()) {
      const json& o = args[i]["Output"];
      auto v = o.is_boolean() ? std::optional<int64_t>(o.get<bool>()) : whole(o);
      if (!v || (*v != 0 && *v != 1))
        w.fail("KernelSpecification.Arguments[" + std::to_string(i) + "].Output",
               "must be 0 or 1, not " + json_excerpt(o));
      any_output_field = true;
    }
  }
  // Outputs: those marked "Output": 1; where no argument says, the vectors that are written.
  for (std::size_t i = 0; i < args.size(); ++i) {
    T1Argument& a = k.arguments[i];
    if (any_output_field) {
      const json& o = args[i].contains("Output") ? args[i]["Output"] : json(nullptr);
      a.output = !o.is_null() && (o.is_boolean() ? o.get<bool>() : whole(o).value_or(0) == 1);
    }
    const std::string field = "KernelSpecification.Arguments[" + std::to_string(i) + "] (" + a.name + ")";
    if (a.output && !a.vector)
      w.fail(field + ".Output", "marks a Scalar; only Vector arguments are outputs (remove \"Output\")");
    if (a.output && a.constant)
      w.fail(field + ".Output", "marks an argument in constant memory, which a kernel cannot write");
  }
  bool any_output = false;
  for (const auto& a : k.arguments) any_output |= a.output;
  if (!any_output)
    w.fail("KernelSpecification.Arguments",
           "has no output to check: mark the array the kernel writes with "
           "\"Output\": 1 (every config is compared with the Default config on it)");
}

// Search and Budget: the spec's strategy and budget, when it names them.
void read_search(const json& doc, const Where& w, T1Kernel& k) {
  if (doc.contains("Search") && !doc["Search"].is_null()) {
    const json& s = doc["Search"];
    if (!s.is_object() || !s.contains("Name")) w.fail("Search", "must be an object with a \"Name\"");
    k.strategy = strategy_for(text(s["Name"], w, "Search.Name"));
  }
  if (doc.contains("Budget") && !doc["Budget"].is_null()) {
    const json& budgets = doc["Budget"];
    if (!budgets.is_array()) w.fail("Budget", "must be a list of {\"Type\", \"BudgetValue\"}");
    for (std::size_t i = 0; i < budgets.size(); ++i) {
      const std::string field = "Budget[" + std::to_string(i) + "]";
      const json& b = budgets[i];
      if (!b.is_object() || !b.contains("Type") || !b.contains("BudgetValue") || !b["BudgetValue"].is_number())
        w.fail(field, "must be {\"Type\": ..., \"BudgetValue\": <number>}");
      const std::string type = text(b["Type"], w, field + ".Type");
      const double value = b["BudgetValue"].get<double>();
      if (!(value > 0)) w.fail(field + ".BudgetValue", "must be positive");
      if (type == "ConfigurationCount") {
        auto n = whole(b["BudgetValue"]);
        if (!n) w.fail(field + ".BudgetValue", "must be a whole number of configurations");
        k.budget = std::to_string(*n);
      } else if (type == "ConfigurationFraction") {
        if (value > 1) w.fail(field + ".BudgetValue", "must be a fraction of the space, in (0, 1]");
        k.budget = percent_text(value);
      } else if (type == "TuningDuration") {
        k.budget_seconds = value;
      } else {
        w.fail(field + ".Type",
               "\"" + type + "\" is not one of ConfigurationCount, ConfigurationFraction, TuningDuration");
      }
    }
  }
}

}  // namespace t1_kernel_json
}  // namespace

T1Kernel read_t1_kernel(const json& doc, std::string_view origin) {
  using namespace t1_kernel_json;
  const Where w{std::string(origin)};
  if (!doc.is_object() || !doc.contains("KernelSpecification"))
    w.fail("the spec",
           "has no \"KernelSpecification\"; `ktune tune --t1` needs the kernel's name, file and "
           "arguments (T1 format, docs/t1.md)");
  const json& ks = doc["KernelSpecification"];
  if (!ks.is_object()) w.fail("KernelSpecification", "must be an object");
  T1Kernel k;

  check_t1_language(doc, origin);

  if (!ks.contains("KernelName")) w.fail("KernelSpecification", "has no \"KernelName\"; name the __global__ function");
  k.kernel_name = text(ks["KernelName"], w, "KernelSpecification.KernelName");
  if (!is_c_identifier(k.kernel_name))
    w.fail("KernelSpecification.KernelName",
           "\"" + k.kernel_name +
               "\" is not a C identifier; name the __global__ "
               "function (templates and parameter-dependent names are not supported)");
  if (ks.contains("KernelFile")) k.kernel_file = text(ks["KernelFile"], w, "KernelSpecification.KernelFile");
  read_compiler_options(ks, w, k);
  read_problem_size(ks, w, k);
  read_launch_geometry(ks, w, k);
  refuse_unsupported(ks, w);
  read_arguments(ks, w, k);
  read_search(doc, w, k);
  return k;
}

}  // namespace ktune

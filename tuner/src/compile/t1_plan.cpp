// `ktune tune --t1`'s preparation: the spec read and checked whole, then the wrapper
// source, the manifest (every valid config with Kernel Tuner's macros) and the on-demand
// Ninja file written, so that compiling and tuning are the ktune_add_kernel() machinery.
#include "ktune/t1_plan.hpp"

#include <algorithm>
#include <memory>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ktune/build_plan.hpp"
#include "ktune/config_id.hpp"
#include "ktune/files.hpp"
#include "ktune/fnv1a.hpp"
#include "ktune/key.hpp"
#include "ktune/nvcc_flags.hpp"
#include "ktune/t1_spec.hpp"
#include "ktune/text.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Helpers of the T1 plan, in their own namespace: unity builds merge this file with others.
namespace t1_plan {

// Where Kernel Tuner looks for KernelFile: as given, beside the spec, beside its directory.
std::string find_kernel_file(const T1PlanRequest& r, const T1Kernel& k) {
  const std::string origin = r.spec.string();
  if (!r.source.empty()) {
    if (!fs::is_regular_file(r.source))
      throw Error("--source " + r.source + ": no such file; give the kernel's .cu file");
    return fs::absolute(r.source).lexically_normal().string();
  }
  if (k.kernel_file.empty())
    throw Error(origin + ": KernelSpecification has no \"KernelFile\"; add it or pass --source KERNEL.cu");
  const fs::path given = k.kernel_file;
  std::vector<fs::path> candidates = {given};
  if (given.is_relative()) {
    candidates.push_back(r.spec.parent_path() / given);
    candidates.push_back(r.spec.parent_path().parent_path() / given);
  }
  std::string looked;
  for (const auto& c : candidates) {
    if (fs::is_regular_file(c)) return fs::absolute(c).lexically_normal().string();
    looked += (looked.empty() ? "" : ", ") + c.string();
  }
  throw Error(origin + ": KernelSpecification.KernelFile \"" + k.kernel_file + "\" not found (looked at " + looked +
              "); fix the path or pass --source KERNEL.cu");
}

// The spec's digest in the wrapper, so that a changed KernelSpecification (its arguments,
// grid divisors, options) is a new kernel version in the DB's fingerprint.
std::string digest(const std::string& text) {
  Fnv1a h;
  h.bytes(text.data(), text.size());
  return h.hex();
}

// C++ source without its comments (string literals kept as they are), for the extern "C" test.
std::string without_comments(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"' || text[i] == '\'') {  // a literal: copied through its closing quote
      const char quote = text[i];
      out += text[i];
      for (++i; i < text.size() && text[i] != quote && text[i] != '\n'; ++i) {
        out += text[i];
        if (text[i] == '\\' && i + 1 < text.size()) out += text[++i];
      }
      if (i < text.size()) out += text[i];
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 1;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string wrapper_source(const T1PlanRequest& r, const T1Plan& p, const json& doc) {
  json spec_part = doc["KernelSpecification"];
  spec_part.erase("ProblemSize");  // the problem size is the key, not the kernel's version
  json settings = {{"kernel", spec_part},
                   {"atol", r.atol ? json(*r.atol) : json(nullptr)},
                   {"rtol", r.rtol ? json(*r.rtol) : json(nullptr)}};
  const std::string kernel_text = read_file(p.source);
  std::string out = "// Written by `ktune tune --t1` from " + r.spec.filename().string() +
                    ": the kernel as Kernel Tuner compiles it.\n"
                    "// spec digest " +
                    digest(settings.dump()) + "\n";
  // Kernel Tuner writes `constexpr int name = value;` for these: `#pragma unroll` does not
  // expand macros. Its value 0 removes the pragma; nvcc ignores `#pragma unroll 0`, with a warning.
  for (const auto& param : p.space.parameters)
    if (param.name.find("loop_unroll_factor") != std::string::npos)
      out += "#ifdef " + param.name + "\nconstexpr int ktune_t1_" + param.name + " = " + param.name + ";\n#undef " +
             param.name + "\nconstexpr int " + param.name + " = ktune_t1_" + param.name + ";\n#endif\n";
  // As Kernel Tuner decides, but comments do not count.
  const bool wrap = without_comments(kernel_text).find("extern \"C\"") == std::string::npos;
  const std::string include = "#include \"" + fs::path(p.source).filename().string() + "\"\n";
  out += wrap ? "extern \"C\" {\n" + include + "}\n" : include;
  return out;
}

}  // namespace t1_plan
}  // namespace

Key t1_key(std::span<const int64_t> problem_size) {
  static const char* dims[3] = {"X", "Y", "Z"};
  Key key;
  for (std::size_t d = 0; d < problem_size.size() && d < 3; ++d) key[dims[d]] = problem_size[d];
  return key;
}

std::vector<int64_t> t1_problem_size(const Key& key) {
  static const char* dims[3] = {"X", "Y", "Z"};
  std::vector<int64_t> ps;
  for (const char* d : dims) {
    auto it = key.find(d);
    if (it == key.end()) break;
    ps.push_back(it->second);
  }
  if (ps.empty() || ps.size() != key.size())
    throw Error("a T1 key has the dimensions X, Y and Z of the problem size, not " + key_id(key));
  return ps;
}

std::string t1_size_text(const Key& key) {
  std::string s;
  for (int64_t v : t1_problem_size(key)) s += (s.empty() ? "" : "x") + std::to_string(v);
  return s;
}

std::vector<int64_t> parse_problem_size(const std::string& text, const std::string& what) {
  std::vector<int64_t> ps;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    int64_t v = 0;
    try {
      v = parse_integer(item, what);
    } catch (const Error&) {
      v = 0;
    }
    if (v < 1)
      throw Error(what + " \"" + text + "\": \"" + item + "\" is not a positive integer; write e.g. 4096,4096");
    ps.push_back(v);
  }
  if (ps.empty() || ps.size() > 3) throw Error(what + " \"" + text + "\": give 1 to 3 sizes (x, y, z), e.g. 4096,4096");
  return ps;
}

namespace {
namespace t1_plan {

// The parameters' names, each a macro of the kernel: C identifiers, none of Kernel Tuner's.
std::vector<std::string> parameter_names(const T1Plan& p, const std::string& origin) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < p.space.parameters.size(); ++i) {
    const std::string& n = p.space.parameters[i].name;
    const std::string field =
        origin + ": ConfigurationSpace.TuningParameters[" + std::to_string(i) + "].Name \"" + n + "\"";
    if (!is_c_identifier(n))
      throw Error(field + " is not a C identifier; parameters reach the kernel as macros (-D" + n +
                  "=...), so rename it");
    for (const char* reserved : {"grid_size_x", "grid_size_y", "grid_size_z", "kernel_tuner"})
      if (n == reserved)
        throw Error(field + " is not allowed, as in Kernel Tuner, which defines that macro itself; rename it");
    names.push_back(n);
  }
  return names;
}

// CompilerOptions, then --flag: one rule with ktune_add_kernel's FLAGS. Kernel Tuner's own
// macros are ktune's to define as well.
void check_flags(const T1PlanRequest& r, const T1Plan& p, const std::vector<std::string>& names,
                 const std::string& origin) {
  std::vector<std::string> flags = p.kernel.compiler_options;
  flags.insert(flags.end(), r.compile.flags.begin(), r.compile.flags.end());
  NvccFlagRules flag_rules{names, {}, "drop it and pass --arch to `ktune tune --t1`"};
  for (const auto* names_of : {&kT1BlockNames, &kT1GridNames})
    flag_rules.macros.insert(flag_rules.macros.end(), names_of->begin(), names_of->end());
  flag_rules.macros.push_back("kernel_tuner");
  const std::size_t from_spec = p.kernel.compiler_options.size();
  check_nvcc_flags(flags, flag_rules, [&](std::size_t i) {
    const std::string flag = "'" + terminal_text(flags[i]) + "'";
    return i < from_spec ? origin + ": KernelSpecification.CompilerOptions[" + std::to_string(i) + "] " + flag
                         : "--flag " + flag;
  });
}

// Problem sizes (the request's, else the spec's): the keys, each argument's size checked.
void read_problem_sizes(const T1PlanRequest& r, const std::string& origin, T1Plan& p) {
  p.problem_sizes = r.problem_sizes;
  if (p.problem_sizes.empty()) {
    if (p.kernel.problem_size.empty())
      throw Error(origin + ": KernelSpecification has no \"ProblemSize\"; add it or pass --problem-size 4096,4096");
    p.problem_sizes.push_back(p.kernel.problem_size);
  }
  for (const auto& ps : p.problem_sizes) {
    if (ps.size() != p.problem_sizes.front().size())
      throw Error("--problem-size: every problem size needs the same number of dimensions (" +
                  std::to_string(p.problem_sizes.front().size()) + ", as the first), each is a key of one DB");
    auto key = t1_key(ps);
    if (std::find(p.keys.begin(), p.keys.end(), key) != p.keys.end())
      throw Error("--problem-size " + key_id(key) + " is given twice");
    p.keys.push_back(std::move(key));
  }
  for (const auto& ps : p.problem_sizes)
    for (std::size_t i = 0; i < p.kernel.arguments.size(); ++i) {
      const T1Argument& a = p.kernel.arguments[i];
      if (a.vector)
        t1_elements(a.size, p.space, ps,
                    origin + ": KernelSpecification.Arguments[" + std::to_string(i) + "] (" + a.name +
                        ").Size, for the problem size " + key_id(t1_key(ps)));
    }
}

// The whole space is counted: only what is compiled whole is limited (tune_command).
Enumeration valid_configs(const Space& space, const T1PlanRequest& r, const std::string& origin) {
  Enumeration valid;
  try {
    valid = space.enumerate(kMaxValidConfigs, r.max_points);
  } catch (const EvalError& e) {
    throw Error(origin + ": ConfigurationSpace.Conditions: " + e.what() + division_hint(e.what()));
  }
  if (valid.truncated)
    throw Error(origin + ": ConfigurationSpace: " + too_many_valid_text(space.product()) +
                "; narrow the parameters' Values or add Conditions");
  if (valid.gave_up)
    throw Error(origin + ": ConfigurationSpace: " + gave_up_text(space, r.max_points) +
                ". Narrow the parameters' Values, split Conditions so that each names fewer parameters, or raise "
                "--max-points");
  if (valid.size() == 0)
    throw Error(origin + ": the space is empty: none of its " + with_thousands(space.product()) +
                " points satisfies every condition; loosen ConfigurationSpace.Conditions");
  return valid;
}

// The reference every config's outputs are checked against: the Default's values, inside
// the space or not (Kernel Tuner runs such specs too); else the first valid config. Returns
// the manifest's DEFAULT (proposed first, the baseline), which must be a config of the space.
std::vector<int64_t> choose_reference(const Space& space, const Enumeration& valid, T1Plan& p) {
  const std::vector<int64_t> first_valid = valid.row(0);
  std::vector<int64_t> default_values = first_valid;
  p.reference = first_valid;
  if (!p.space.default_problem.empty()) {
    p.reference_why = "the Default is not usable (" + p.space.default_problem + ")";
  } else if (p.space.default_config.empty()) {
    p.reference_why = "the spec has no Default";
  } else {
    std::vector<int64_t> given;
    for (const auto& [name, value] : p.space.default_config) given.push_back(value);  // declaration order
    p.reference = given;
    p.default_from_spec = true;
    try {
      default_values = resolve_default(p.space, space);
    } catch (const Error& e) {
      p.default_outside = std::string(e.what()).replace(0, 7, "the Default");  // "DEFAULT ..." -> "the Default ..."
    }
  }
  return default_values;
}

// Each config's launch (and the reference's) checked now, before any compile.
void check_launches(const T1Geometry& geometry, const Enumeration& valid, T1Plan& p) {
  const std::string kernel_text = read_file(p.source);
  p.grid_macros = without_comments(kernel_text).find("grid_size_") != std::string::npos;
  if (p.grid_macros && p.problem_sizes.size() > 1)
    throw Error(p.source +
                " names grid_size_x/y/z, which Kernel Tuner defines from the problem size, so each "
                "problem size needs its own cubins: tune one --problem-size per --out directory (or use gridDim "
                "in the kernel)");
  geometry.check_local_size(p.reference);
  geometry.divisors(p.reference);
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const auto row = valid.row(i);
    geometry.check_local_size(row);
    geometry.divisors(row);
  }
}

void fill_manifest(const T1PlanRequest& r, const Space& space, const std::vector<std::string>& names,
                   const std::vector<int64_t>& default_values, const std::vector<int64_t>& first_valid,
                   const T1Geometry& geometry, T1Plan& p) {
  Manifest& m = p.manifest;
  m.kernel = p.kernel.kernel_name;
  m.entry = p.kernel.kernel_name;
  m.compile = r.compile;
  m.compile.flags = p.kernel.compiler_options;
  m.compile.flags.insert(m.compile.flags.end(), r.compile.flags.begin(), r.compile.flags.end());
  m.compile.include_dirs = {fs::path(p.source).parent_path().string()};
  m.on_demand = true;
  m.spec = p.space;
  m.spec.default_config.clear();
  for (std::size_t k = 0; k < names.size(); ++k) m.spec.default_config.emplace_back(names[k], default_values[k]);
  m.product = space.product();
  m.max_points = r.max_points;
  m.default_id = config_id(names, default_values);
  for (const auto& key : p.keys) {
    std::vector<Assignment> k;
    for (const auto& d : {"X", "Y", "Z"})
      if (key.count(d)) k.emplace_back(d, key.at(d));
    m.keys.push_back(std::move(k));
  }
  // Kernel Tuner's macros besides the parameters: the same for every config, except the
  // grid sizes, which the manifest computes per config from the spec.
  const std::set<std::string> parameter_names(names.begin(), names.end());
  if (p.grid_macros) {
    m.t1_spec = fs::absolute(r.spec).lexically_normal().string();
    m.t1_problem_size = p.problem_sizes.front();
  } else {
    for (auto& [name, value] : geometry.macros(first_valid, p.problem_sizes.front(), false))
      if (!parameter_names.count(name)) m.defines.emplace_back(std::move(name), value);
  }
  m.enumerate_configs();
  p.space.default_config = m.spec.default_config;
}

// The kernel directory, the wrapper source, the manifest and the run file.
void write_plan_files(const T1PlanRequest& r, const json& doc, T1Plan& p) {
  Manifest& m = p.manifest;
  p.kernel_dir = fs::absolute(r.out / "kernel").lexically_normal();
  p.manifest_path = p.kernel_dir / "manifest.json";
  p.run_file = fs::absolute(r.out / "t1_run.json").lexically_normal();
  p.db_dir = fs::absolute(r.out / "db").lexically_normal();
  for (const char* sub : {"cubins", "logs", "records", "deps"}) fs::create_directories(p.kernel_dir / sub);
  const fs::path wrapper = p.kernel_dir / (m.kernel + ".t1.cu");
  m.source = wrapper.string();
  write_file_if_changed(wrapper, wrapper_source(r, p, doc));
  write_file_if_changed(p.manifest_path, m.to_json().dump(1) + "\n");
  T1Run run{fs::absolute(r.spec).lexically_normal().string(),
            p.manifest_path.string(),
            r.atol,
            r.rtol,
            r.save_arguments.empty() ? "" : fs::absolute(r.save_arguments).lexically_normal().string(),
            p.reference};
  write_file_if_changed(p.run_file, run.to_json().dump(1) + "\n");
}

}  // namespace t1_plan
}  // namespace

T1Plan plan_t1(const T1PlanRequest& r) {
  using namespace t1_plan;
  const std::string origin = r.spec.string();
  const json doc = read_json_file(r.spec);
  if (!is_t1_spec(doc))
    throw Error(origin + ": not a T1 spec (no \"ConfigurationSpace\"); see docs/t1.md for the format");
  T1Plan p;
  check_t1_language(doc, origin);  // a kernel in another language is refused before anything else
  p.space = read_t1_spec(doc, origin);
  p.kernel = read_t1_kernel(doc, origin);
  if (p.space.name.empty()) p.space.name = p.kernel.kernel_name;
  const std::vector<std::string> names = parameter_names(p, origin);
  check_flags(r, p, names, origin);
  p.source = find_kernel_file(r, p.kernel);
  read_problem_sizes(r, origin, p);

  const Space space = [&] {
    try {
      return p.space.space();
    } catch (const Error& e) {
      throw Error(origin + ": ConfigurationSpace: " + e.what());
    }
  }();
  const Enumeration valid = valid_configs(space, r, origin);
  const std::vector<int64_t> default_values = choose_reference(space, valid, p);
  const T1Geometry geometry(p.kernel, names, origin);
  check_launches(geometry, valid, p);
  fill_manifest(r, space, names, default_values, valid.row(0), geometry, p);
  write_plan_files(r, doc, p);
  return p;
}

ConfigDefines t1_grid_defines(const std::string& t1_spec, const SpaceSpec& spec,
                              const std::vector<int64_t>& problem_size) {
  const json doc = read_json_file(t1_spec);
  std::vector<std::string> names;
  for (const auto& p : spec.parameters) names.push_back(p.name);
  auto geometry = std::make_shared<const T1Geometry>(read_t1_kernel(doc, t1_spec), names, t1_spec);
  const std::set<std::string> parameters(names.begin(), names.end());
  return [geometry, problem_size, parameters](std::span<const int64_t> values) {
    std::vector<std::pair<std::string, int64_t>> out;
    for (auto& [name, value] : geometry->macros(values, problem_size, true))
      if (!parameters.count(name)) out.emplace_back(std::move(name), value);
    return out;
  };
}

json T1Run::to_json() const {
  return {{"schema", "ktune.t1_run"},
          {"spec", spec},
          {"manifest", manifest},
          {"atol", atol ? json(*atol) : json(nullptr)},
          {"rtol", rtol ? json(*rtol) : json(nullptr)},
          {"save_arguments", save_arguments},
          {"reference", reference}};
}

T1Run T1Run::from_json(const json& doc, const std::string& origin) {
  auto bad = [&](const std::string& why) {
    return Error(origin + ": " + why + "; run `ktune tune --t1` again to rewrite it");
  };
  if (!doc.is_object() || doc.value("schema", "") != "ktune.t1_run") throw bad("not a ktune T1 run file");
  T1Run run;
  for (auto [field, target] : {std::pair{"spec", &run.spec}, std::pair{"manifest", &run.manifest}}) {
    if (!doc.contains(field) || !doc[field].is_string()) throw bad(std::string("\"") + field + "\" is not a path");
    *target = doc[field].get<std::string>();
  }
  if (doc.contains("save_arguments")) {
    if (!doc["save_arguments"].is_string()) throw bad("\"save_arguments\" is not a path");
    run.save_arguments = doc["save_arguments"].get<std::string>();
  }
  if (doc.contains("reference")) {
    const json& ref = doc["reference"];
    if (!ref.is_array()) throw bad("\"reference\" is not a list of integers");
    for (const json& v : ref) {
      if (!v.is_number_integer()) throw bad("\"reference\" is not a list of integers");
      run.reference.push_back(v.get<int64_t>());
    }
  }
  for (auto [field, target] : {std::pair{"atol", &run.atol}, std::pair{"rtol", &run.rtol}}) {
    if (!doc.contains(field) || doc[field].is_null()) continue;
    if (!doc[field].is_number() || doc[field].get<double>() < 0)
      throw bad(std::string("\"") + field + "\" is not a non-negative number");
    *target = doc[field].get<double>();
  }
  return run;
}

}  // namespace ktune

#include "ktune/build_plan.hpp"

#include <algorithm>

#include "ktune/baked_names.hpp"
#include "ktune/config_id.hpp"
#include "ktune/nvcc_flags.hpp"
#include "ktune/parameter.hpp"
#include "ktune/cuda_arch.hpp"
#include "ktune/search_choice.hpp"
#include "ktune/text.hpp"

namespace ktune {

std::string division_hint(const std::string& what) {
  return what.find("division") != std::string::npos || what.find("modulo") != std::string::npos
             ? "; guard the division, e.g. \"B != 0 and A % B == 0\""
             : "";
}

namespace {

Space build_space(const PlanRequest& r, std::vector<Parameter>& params) {
  if (r.params.empty()) throw Error("PARAMS: no parameters; declare at least one, e.g. PARAMS \"TM=32,64,128\"");
  for (const auto& text : r.params) {
    try {
      params.push_back(parse_parameter(text));
    } catch (const Error& e) {
      throw Error(std::string("PARAMS: ") + e.what());
    }
  }
  for (std::size_t a = 0; a < params.size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      if (params[a].name == params[b].name)
        throw Error("PARAMS: parameter '" + params[a].name + "' is declared twice; merge its values into one entry");
  try {
    return Space(params, r.constraints);
  } catch (const ParseError& e) {
    throw Error(std::string("WHERE: ") + e.what());
  }
}

}  // namespace

std::vector<std::string> hint_flags(const std::vector<Parameter>& params, const std::vector<int64_t>& values) {
  std::vector<std::string> flags;
  for (std::size_t k = 0; k < params.size(); ++k)
    if (params[k].name == "maxnreg" && values[k] > 0) flags.push_back("-maxrregcount=" + std::to_string(values[k]));
  return flags;
}

std::string points_text(uint64_t product) {
  return product == UINT64_MAX ? "more than " + with_thousands(UINT64_MAX - 1) : with_thousands(product);
}

std::string too_many_valid_text(uint64_t product) {
  return "the space has more than " + with_thousands(kMaxValidConfigs) + " valid configs (of " + points_text(product) +
         " points), the most ktune plans and searches (it keeps 8 bytes a valid config)";
}

std::string gave_up_text(const Space& space, uint64_t max_points) {
  // Name the constraint that binds latest: the one whose own parameters span the most points.
  std::string why;
  uint64_t widest = 0;
  for (std::size_t c = 0; c < space.constraints().size(); ++c) {
    uint64_t own = 1;
    std::string names;
    for (int slot : space.constraints()[c].slots()) {
      const uint64_t n = space.parameters()[slot].values.size();
      own = own > UINT64_MAX / n ? UINT64_MAX : own * n;
      names += (names.empty() ? "" : ", ") + space.names()[slot];
    }
    if (own > widest) {
      widest = own;
      why = ": constraint " + std::to_string(c + 1) + " \"" + space.constraints()[c].text() +
            "\" is checked only once " + names + " are all bound";
    }
  }
  return "the space has " + points_text(space.product()) + " points and the constraints prune too few of them" + why +
         "; more than " + with_thousands(max_points) + " points were visited before the enumeration ended";
}

namespace {
namespace make_plan_steps {

// The architectures: compile.arch among the listed ones, each a CUDA architecture.
CompileSettings checked_compile(const PlanRequest& r) {
  CompileSettings c = r.compile;
  // One architecture unless told more: the list is compile.arch alone, its PTX for it too.
  if (c.archs.empty()) c.archs = {c.arch};
  if (std::find(c.archs.begin(), c.archs.end(), c.arch) == c.archs.end())
    throw Error("--arch " + c.arch + " is not among --archs; the architecture tuned is one of those baked");
  for (const auto& a : c.archs)
    if (!parse_cuda_arch(a))
      throw Error("--archs: '" + terminal_text(a, 40) + "' is not a CUDA architecture like 90 or 90a");
  if (!parse_cuda_arch(c.arch))
    throw Error("--arch: '" + terminal_text(c.arch, 40) + "' is not a CUDA architecture like 90 or 90a");
  c.ptx_arch = r.ptx_arch;
  if (!c.ptx_target().empty() && !parse_cuda_arch(c.ptx_target()))
    throw Error("--ptx-arch: '" + terminal_text(c.ptx_target(), 40) + "' is not a CUDA architecture like 90 or 90a");
  return c;
}

// The whole space is counted: MAX_CONFIGS limits only what is compiled and measured whole.
// An empty space names the constraint that excludes the most on its own: the one to loosen.
Enumeration valid_configs(const PlanRequest& r, const Space& space, Plan& plan) {
  Enumeration valid;
  try {
    valid = space.enumerate(kMaxValidConfigs, r.max_points);
  } catch (const EvalError& e) {
    throw Error(std::string("WHERE: ") + e.what() + division_hint(e.what()));
  }
  if (valid.truncated)
    throw Error("PARAMS: " + too_many_valid_text(space.product()) + "; narrow PARAMS or add WHERE constraints");
  if (valid.gave_up)
    throw Error("WHERE: " + gave_up_text(space, r.max_points) +
                ". Narrow PARAMS, split constraints so that each names fewer parameters (each is checked as soon as "
                "its own are bound), or raise -DKTUNE_MAX_POINTS=N");
  plan.rejected_by = valid.rejected_by;
  if (valid.size() == 0) {
    std::string why;
    uint64_t most = 0;
    for (std::size_t c = 0; c < r.constraints.size(); ++c) {
      uint64_t excluded = space.points_excluded_by(c).value_or(plan.rejected_by[c]);
      if (why.empty() || excluded > most) {
        most = excluded;
        why = "; constraint " + std::to_string(c + 1) + " \"" + r.constraints[c] + "\" alone excludes " +
              with_thousands(excluded) + " of them";
      }
    }
    throw Error("WHERE: the space is empty: none of its " + points_text(space.product()) +
                " points satisfies every constraint" + why + ". Loosen the constraints or widen the parameters.");
  }
  return valid;
}

// The DEFAULT: as given (a config of the space), else the first valid config.
void choose_default(const PlanRequest& r, const Space& space, const Enumeration& valid, Plan& plan) {
  Manifest& m = plan.manifest;
  const auto& names = space.names();
  if (!r.default_text.empty()) {
    try {
      m.spec.default_config = parse_assignments(r.default_text);
      std::vector<int64_t> values = resolve_default(m.spec, space);
      m.default_id = config_id(names, values);
    } catch (const Error& e) {
      throw Error(std::string("DEFAULT \"") + r.default_text + "\": " + e.what());
    }
  } else {
    plan.default_chosen = true;
    const auto first = valid.row(0);
    for (std::size_t k = 0; k < names.size(); ++k) m.spec.default_config.emplace_back(names[k], first[k]);
    m.default_id = config_id(names, first);
  }
}

// KEYS: each a set of dimension values, every key naming the same dimensions, none twice;
// stored in the order key 1 declares its dimensions (the generated Key struct's fields).
std::vector<std::vector<Assignment>> read_keys(const PlanRequest& r) {
  std::vector<std::vector<Assignment>> keys;
  for (std::size_t i = 0; i < r.keys.size(); ++i) {
    std::vector<Assignment> key;
    try {
      key = parse_assignments(r.keys[i]);
    } catch (const Error& e) {
      throw Error("KEYS: key " + std::to_string(i + 1) + ": " + e.what());
    }
    if (key.empty()) throw Error("KEYS: key " + std::to_string(i + 1) + " is empty; write e.g. \"N=4096\"");
    for (const auto& [name, value] : key) {
      check_parameter_name(name, "KEYS: key " + std::to_string(i + 1));
      if (std::string why = unbakeable_name(name, true); !why.empty())
        throw Error("KEYS: key " + std::to_string(i + 1) + ": dimension '" + name + "' " + why +
                    ", so the generated header cannot name it; rename the dimension");
    }
    // Compared sorted; stored in the order key 1 declares its dimensions (the order of
    // the generated Key struct's fields).
    auto sorted = [](std::vector<Assignment> k) {
      std::sort(k.begin(), k.end());
      return k;
    };
    auto same_names = [](const std::vector<Assignment>& a, const std::vector<Assignment>& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                        [](const Assignment& x, const Assignment& y) { return x.first == y.first; });
    };
    if (!keys.empty() && !same_names(sorted(key), sorted(keys[0])))
      throw Error("KEYS: key " + std::to_string(i + 1) + " \"" + r.keys[i] + "\" names other dimensions than key 1 \"" +
                  r.keys[0] + "\"; every key gives a value for the same dimensions");
    for (const auto& earlier : keys)
      if (sorted(earlier) == sorted(key))
        throw Error("KEYS: key " + std::to_string(i + 1) + " \"" + r.keys[i] + "\" is listed twice");
    if (!keys.empty()) {
      std::vector<Assignment> ordered;
      for (const auto& [name, v] : keys[0])
        for (const auto& a : key)
          if (a.first == name) ordered.push_back(a);
      key = std::move(ordered);
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace make_plan_steps
}  // namespace

Plan make_plan(const PlanRequest& r) {
  using namespace make_plan_steps;
  Plan plan;
  Manifest& m = plan.manifest;
  m.kernel = r.kernel;
  m.source = r.source;
  m.entry = r.entry.empty() ? r.kernel : r.entry;
  if (!is_c_identifier(m.entry))
    throw Error("ENTRY: '" + m.entry + "' is not a C identifier; name the kernel's extern \"C\" function");
  m.compile = checked_compile(r);
  m.spec.name = r.kernel;
  Space space = build_space(r, m.spec.parameters);
  for (const auto& p : m.spec.parameters)
    if (std::string why = unbakeable_name(p.name, false); !why.empty())
      throw Error("PARAMS: parameter '" + p.name + "' " + why +
                  ", so the generated header cannot name it; rename the parameter");
  NvccFlagRules flag_rules{{}, {}, "use ARCH (this kernel) or -DKTUNE_CUDA_ARCH (the project) instead"};
  for (const auto& p : m.spec.parameters) flag_rules.parameters.push_back(p.name);
  check_nvcc_flags(r.compile.flags, flag_rules,
                   [&](std::size_t i) { return "FLAGS '" + terminal_text(r.compile.flags[i]) + "'"; });
  m.spec.constraints = r.constraints;
  m.product = space.product();
  Enumeration valid = valid_configs(r, space, plan);
  choose_default(r, space, valid, plan);
  m.keys = read_keys(r);
  if (r.tuned)
    plan.search = choose_search(r.strategy, r.budget, r.seconds, valid.size(), r.max_configs, {"STRATEGY", "BUDGET"});
  // A space larger than what is measured whole is never compiled whole either.
  m.on_demand = valid.size() > r.eager_limit || valid.size() > r.max_configs;
  m.max_points = r.max_points;
  m.configs = ManifestConfigs(space.names(), std::move(valid));
  return plan;
}

namespace {

namespace fs = std::filesystem;

void check_no_newline(const std::string& arg) {
  if (arg.find_first_of("\n\r") != std::string::npos)
    throw Error("compiler argument \"" + arg.substr(0, 60) +
                "\" contains a line break; build commands cannot carry it");
}

// launcher, nvcc and what every config shares: what follows the wrapper's "--".
std::vector<std::string> nvcc_prefix(const Manifest& m, const std::string& mode, const std::string& arch) {
  std::vector<std::string> out = m.compile.launcher;
  out.push_back(m.compile.nvcc);
  out.push_back(mode);
  // A compiler cache (ccache) caches only what it sees as a compile, a command with -c; nvcc
  // takes "-cubin -c" and "-ptx -c" as -cubin and -ptx and writes the same file.
  if (!m.compile.launcher.empty()) out.push_back("-c");
  out.push_back(arch);
  out.insert(out.end(), m.compile.flags.begin(), m.compile.flags.end());
  for (const auto& dir : m.compile.include_dirs) out.push_back("-I" + dir);
  return out;
}

std::vector<std::string> config_flags(const Manifest& m, const ManifestConfig& c) {
  const auto& params = m.spec.parameters;
  std::vector<std::string> out;
  for (std::size_t k = 0; k < params.size(); ++k)
    out.push_back("-D" + params[k].name + "=" + std::to_string(c.values[k]));
  for (const auto& [name, value] : c.defines) out.push_back("-D" + name + "=" + std::to_string(value));
  for (const auto& flag : hint_flags(params, c.values)) out.push_back(flag);
  return out;
}

ManifestConfig default_config(const Manifest& m) {
  const std::size_t d = m.default_index();
  if (d == m.configs.size()) throw Error(m.kernel + ": the DEFAULT config " + m.default_id + " is not in the space");
  return m.configs[d];
}

// A CMake quoted argument holding `args` as a list.
std::string cmake_list(const std::vector<std::string>& args) {
  std::string out = "\"";
  for (std::size_t i = 0; i < args.size(); ++i) {
    check_no_newline(args[i]);
    if (args[i].find(';') != std::string::npos)
      throw Error("compiler argument \"" + args[i] + "\" contains ';', which CMake reads as a list separator");
    if (i) out += ';';
    for (char ch : args[i]) {
      if (ch == '\\' || ch == '"' || ch == '$') out += '\\';
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace

CompileJob compile_job(const Manifest& m, const ManifestConfig& c, const fs::path& dir) {
  CompileJob job{dir / c.record(),    dir / c.log(), dir / c.cubin(), dir / c.depfile(), m.source, {},
                 m.describe(c.values)};
  job.command = nvcc_prefix(m, "-cubin", "-arch=sm_" + m.compile.arch);
  for (auto& a : config_flags(m, c)) job.command.push_back(std::move(a));
  for (const auto& a : {std::string("-MD"), std::string("-MF"), job.depfile.string(), std::string("-MT"),
                        job.record.string(), std::string("-o"), job.cubin.string(), m.source})
    job.command.push_back(a);
  for (const auto& a : job.command) check_no_newline(a);
  return job;
}

std::vector<std::string> cubin_command(const Manifest& m, const ManifestConfig& c, const fs::path& dir,
                                       const std::string& tool) {
  const CompileJob job = compile_job(m, c, dir);
  std::vector<std::string> out = {
      tool,       "compile",          "--record",  job.record.string(),  "--log",    job.log.string(),
      "--cubin",  job.cubin.string(), "--depfile", job.depfile.string(), "--source", m.source,
      "--config", job.config,         "--"};
  out.insert(out.end(), job.command.begin(), job.command.end());
  return out;
}

std::vector<std::string> default_ptx_command(const Manifest& m, const fs::path& dir) {
  // PTX for the virtual architecture: "90" -> compute_90; "90a" keeps its suffix, whose
  // features the kernel may use.
  const std::string ptx = (dir / "default.ptx").string(), depfile = (dir / "deps" / "default_ptx.d").string();
  const std::string arch = m.compile.ptx_target().empty() ? m.compile.arch : m.compile.ptx_target();
  std::vector<std::string> out = nvcc_prefix(m, "-ptx", "-arch=compute_" + arch);
  for (auto& a : config_flags(m, default_config(m))) out.push_back(std::move(a));
  for (const auto& a :
       {std::string("-MD"), std::string("-MF"), depfile, std::string("-MT"), ptx, std::string("-o"), ptx, m.source})
    out.push_back(a);
  return out;
}

namespace {
// _ktune_cubin(<id> "<values>" "<command>"): the values name the build step.
std::string cubin_line(const Manifest& m, const ManifestConfig& c, const fs::path& dir, const std::string& tool) {
  return "_ktune_cubin(" + c.id + " " + cmake_list({m.describe(c.values)}) + " " +
         cmake_list(cubin_command(m, c, dir, tool)) + ")\n";
}
}  // namespace

std::string cmake_edges(const Manifest& m, const fs::path& dir, const std::string& tool) {
  std::string out =
      "# Written by `ktune plan` for kernel " + m.kernel + ". Data only; the logic is in cmake/ktune.cmake.\n";
  out += "set(_ktune_default_id " + m.default_id + ")\n";
  out += std::string("set(_ktune_on_demand ") + (m.on_demand ? "TRUE" : "FALSE") + ")\n";
  out += "set(_ktune_default_ptx_command " + cmake_list(default_ptx_command(m, dir)) + ")\n";
  if (m.on_demand) {  // the DEFAULT alone; the tuner and the bake compile what they need
    const ManifestConfig d = default_config(m);
    return out + cubin_line(m, d, dir, tool);
  }
  for (const auto& c : m.configs) out += cubin_line(m, c, dir, tool);
  return out;
}

}  // namespace ktune

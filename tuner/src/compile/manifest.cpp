#include "ktune/manifest.hpp"

#include "ktune/cuda_arch.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <nlohmann/json.hpp>

#include "base/untrusted_json.hpp"
#include "ktune/config_id.hpp"
#include "ktune/nvcc_flags.hpp"
#include "ktune/t1_kernel.hpp"
#include "ktune/text.hpp"

namespace ktune {

using nlohmann::json;

namespace {

// Helpers of from_json, in their own namespace: unity builds merge this file with others.
namespace manifest_json {

// Names from a hostile file can be megabytes long; messages stay one short line.
std::string shown(const std::string& s) { return untrusted_json::quoted(s); }

const json& member(const json& obj, const char* key, const std::string& origin, const char* where) {
  if (!obj.is_object()) throw Error(origin + ": " + where + " is not an object");
  auto it = obj.find(key);
  if (it == obj.end()) throw Error(origin + ": " + where + " has no \"" + key + "\"");
  return *it;
}

[[noreturn]] void wrong_type(const json& v, const std::string& origin, const std::string& what, const char* expected) {
  throw Error(origin + ": " + what + " must be " + expected + ", not " + json_excerpt(v) +
              "; reconfigure the build to regenerate the manifest");
}

std::string text(const json& v, const std::string& origin, const std::string& what) {
  if (!v.is_string()) wrong_type(v, origin, what, "a string");
  return v.get<std::string>();
}

// json's get<int64_t>() would take 1.5, true or 2^64 - 1 and convert them silently.
int64_t integer(const json& v, const std::string& origin, const std::string& what) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)))
    wrong_type(v, origin, what, "an integer");
  return v.get<int64_t>();
}

std::vector<std::string> texts(const json& v, const std::string& origin, const std::string& what) {
  if (!v.is_array()) wrong_type(v, origin, what, "a list of strings");
  std::vector<std::string> out;
  for (const json& x : v) out.push_back(text(x, origin, what + " entry"));
  return out;
}

// Names become file names, macros and C++ fields: anything else is a damaged manifest.
bool is_name(const std::string& s) { return s.size() <= 200 && is_c_identifier(s); }

std::string identifier(const json& v, const std::string& origin, const std::string& what) {
  const std::string s = text(v, origin, what);
  if (!is_name(s))
    throw Error(origin + ": " + what + " " + shown(s) +
                " is not a C identifier (of at most 200 characters); reconfigure the build to "
                "regenerate the manifest");
  return s;
}

// A config id names files (cubins/<id>.cubin): never a path, never empty.
bool safe_file_stem(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

}  // namespace manifest_json
}  // namespace

bool is_manifest(const json& doc) {
  if (!doc.is_object()) return false;
  auto schema = doc.find("schema");
  return schema != doc.end() && schema->is_string() && *schema == "ktune.manifest";
}

json Manifest::to_json() const {
  json doc;
  doc["schema"] = "ktune.manifest";
  doc["schema_version"] = kSchemaVersion;
  doc["kernel"] = kernel;
  doc["source"] = source;
  doc["entry"] = entry;
  doc["compile"] = {{"nvcc", compile.nvcc},
                    {"arch", compile.arch},
                    {"archs", compile.archs.empty() ? std::vector<std::string>{compile.arch} : compile.archs},
                    {"ptx_arch", compile.ptx_target()},
                    {"flags", compile.flags},
                    {"include_dirs", compile.include_dirs},
                    {"launcher", compile.launcher}};
  doc["build"] = on_demand ? "on-demand" : "eager";
  json params = json::array();
  for (const auto& p : spec.parameters) params.push_back({{"name", p.name}, {"values", p.values}});
  doc["parameters"] = params;
  doc["constraints"] = spec.constraints;
  json def = json::object();
  for (const auto& [name, value] : spec.default_config) def[name] = value;
  doc["default"] = def;
  doc["default_id"] = default_id;
  doc["product"] = product;
  doc["valid"] = configs.size();
  doc["max_points"] = max_points;
  json def_macros = json::object();
  for (const auto& [name, value] : defines) def_macros[name] = value;
  doc["defines"] = def_macros;
  if (!t1_spec.empty()) doc["t1_grid"] = {{"spec", t1_spec}, {"problem_size", t1_problem_size}};
  json keys_json = json::array();
  for (const auto& key : keys) {
    json k = json::object();
    for (const auto& [name, value] : key) k[name] = value;
    keys_json.push_back(k);
  }
  doc["keys"] = keys_json;
  // JSON objects lose their order; the dimensions' declared order is kept here.
  json dims = json::array();
  if (!keys.empty())
    for (const auto& [name, value] : keys.front()) dims.push_back(name);
  doc["key_dims"] = dims;
  return doc;
}

namespace {
namespace manifest_json {

const char* const kRegenerate = "; reconfigure the build to regenerate the manifest";

uint64_t count(const json& v, const std::string& origin, const std::string& what) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    wrong_type(v, origin, what, "a non-negative integer");
  return v.get<uint64_t>();
}

void read_identity(const json& doc, const std::string& origin, Manifest& m) {
  if (!is_manifest(doc)) throw Error(origin + ": not a ktune manifest (no \"schema\": \"ktune.manifest\")");
  const int64_t version = integer(member(doc, "schema_version", origin, "the manifest"), origin, "\"schema_version\"");
  if (version != Manifest::kSchemaVersion)
    throw Error(origin + ": manifest schema version " + std::to_string(version) + " is not the version " +
                std::to_string(Manifest::kSchemaVersion) + " this ktune reads; reconfigure the build to regenerate it");
  m.kernel = identifier(member(doc, "kernel", origin, "the manifest"), origin, "the kernel name");
  m.source = text(member(doc, "source", origin, "the manifest"), origin, "\"source\"");
  m.entry = m.kernel;
  if (doc.contains("entry")) {
    m.entry = text(doc["entry"], origin, "\"entry\"");
    if (!m.entry.empty() && !is_name(m.entry))
      throw Error(origin + ": the kernel entry " + shown(m.entry) + " is not a C identifier" + kRegenerate);
  }
  if (doc.contains("build")) {
    const std::string build = text(doc["build"], origin, "\"build\"");
    if (build != "eager" && build != "on-demand")
      throw Error(origin + ": \"build\" is " + shown(build) + ", not \"eager\" or \"on-demand\"");
    m.on_demand = build == "on-demand";
  }
}

CompileSettings read_compile(const json& doc, const std::string& origin) {
  const json& compile = member(doc, "compile", origin, "the manifest");
  CompileSettings c;
  c.nvcc = text(member(compile, "nvcc", origin, "compile"), origin, "compile.nvcc");
  c.arch = text(member(compile, "arch", origin, "compile"), origin, "compile.arch");
  // A manifest of one architecture may leave out the list and the PTX's: both are `arch`.
  c.archs =
      compile.contains("archs") ? texts(compile["archs"], origin, "compile.archs") : std::vector<std::string>{c.arch};
  if (compile.contains("ptx_arch")) c.ptx_arch = text(compile["ptx_arch"], origin, "compile.ptx_arch");
  for (const auto& a : c.archs)
    if (!parse_cuda_arch(a))
      throw Error(origin + ": compile.archs holds " + shown(a) + ", not a CUDA architecture like 90 or 90a");
  if (std::find(c.archs.begin(), c.archs.end(), c.arch) == c.archs.end())
    throw Error(origin + ": compile.arch " + shown(c.arch) + " is not among compile.archs" + kRegenerate);
  if (!c.ptx_target().empty() && !parse_cuda_arch(c.ptx_target()))
    throw Error(origin + ": compile.ptx_arch " + shown(c.ptx_target()) + " is not a CUDA architecture");
  c.flags = texts(member(compile, "flags", origin, "compile"), origin, "compile.flags");
  c.include_dirs = texts(member(compile, "include_dirs", origin, "compile"), origin, "compile.include_dirs");
  if (compile.contains("launcher")) c.launcher = texts(compile["launcher"], origin, "compile.launcher");
  return c;
}

// Parameters, constraints, the DEFAULT and the macros every config defines.
void read_space(const json& doc, const std::string& origin, Manifest& m) {
  m.spec.name = m.kernel;
  const json& params = member(doc, "parameters", origin, "the manifest");
  if (!params.is_array()) wrong_type(params, origin, "\"parameters\"", "a list");
  std::set<std::string> names;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string where = "parameters[" + std::to_string(i) + "]";
    Parameter p{identifier(member(params[i], "name", origin, where.c_str()), origin, where + ".name"), {}};
    if (!names.insert(p.name).second) throw Error(origin + ": parameter " + shown(p.name) + " is listed twice");
    const json& values = member(params[i], "values", origin, where.c_str());
    if (!values.is_array() || values.empty())
      wrong_type(values, origin, where + ".values", "a non-empty list of integers");
    for (const json& v : values) p.values.push_back(integer(v, origin, where + ".values entry"));
    m.spec.parameters.push_back(std::move(p));
  }
  m.spec.constraints = texts(member(doc, "constraints", origin, "the manifest"), origin, "\"constraints\"");
  const json& def = member(doc, "default", origin, "the manifest");
  if (!def.is_object()) wrong_type(def, origin, "\"default\"", "an object");
  for (const auto& p : m.spec.parameters) {
    if (!def.contains(p.name)) throw Error(origin + ": \"default\" lacks an integer for " + p.name);
    m.spec.default_config.emplace_back(p.name, integer(def[p.name], origin, "default." + p.name));
  }
  m.default_id = text(member(doc, "default_id", origin, "the manifest"), origin, "\"default_id\"");
  if (!safe_file_stem(m.default_id))
    throw Error(origin + ": \"default_id\" " + shown(m.default_id) +
                " is not a config id (letters, digits, '_' and '-')" + kRegenerate);
  m.product = count(member(doc, "product", origin, "the manifest"), origin, "\"product\"");
  if (doc.contains("max_points")) {
    const json& mp = doc["max_points"];
    if (!mp.is_number_unsigned() || mp.get<uint64_t>() == 0)
      wrong_type(mp, origin, "\"max_points\"", "a positive integer");
    m.max_points = mp.get<uint64_t>();
  }
  if (doc.contains("defines")) {
    const json& defines = doc["defines"];
    if (!defines.is_object()) wrong_type(defines, origin, "\"defines\"", "an object");
    for (const auto& [name, value] : defines.items()) {
      if (!is_name(name) || names.count(name))
        throw Error(origin + ": \"defines\": " + shown(name) + " is not a C identifier or is a parameter" +
                    kRegenerate);
      m.defines.emplace_back(name, integer(value, origin, "defines." + name));
    }
  }
  if (doc.contains("t1_grid")) {
    const json& grid = doc["t1_grid"];
    m.t1_spec = text(member(grid, "spec", origin, "\"t1_grid\""), origin, "t1_grid.spec");
    const json& ps = member(grid, "problem_size", origin, "\"t1_grid\"");
    if (!ps.is_array() || ps.empty() || ps.size() > 3)
      wrong_type(ps, origin, "t1_grid.problem_size", "a list of 1 to 3 integers");
    for (const json& v : ps) m.t1_problem_size.push_back(integer(v, origin, "t1_grid.problem_size entry"));
  }
}

// The flags the plan checked, checked again: the tuner and the bake compile from this file.
void check_flags(const std::string& origin, const Manifest& m) {
  NvccFlagRules flag_rules{{}, {}, "reconfigure the build to regenerate the manifest"};
  for (const auto& p : m.spec.parameters) flag_rules.parameters.push_back(p.name);
  for (const auto& d : m.defines) flag_rules.macros.push_back(d.first);
  if (!m.t1_spec.empty()) flag_rules.macros.insert(flag_rules.macros.end(), kT1GridNames.begin(), kT1GridNames.end());
  check_nvcc_flags(m.compile.flags, flag_rules, [&](std::size_t i) {
    return origin + ": compile.flags[" + std::to_string(i) + "] " + shown(m.compile.flags[i]);
  });
}

// The configs: the space enumerated again, which must give what the plan found, the
// DEFAULT among them (every reader falls back on it).
void enumerate_again(const json& doc, const std::string& origin, Manifest& m) {
  const uint64_t valid = count(member(doc, "valid", origin, "the manifest"), origin, "\"valid\"");
  try {
    m.enumerate_configs();
  } catch (const Error& e) {
    // The constraints' text comes from the file: one line, of a bounded length.
    throw Error(origin + ": " + untrusted_json::printable(e.what(), 300) + kRegenerate);
  }
  if (m.configs.size() != valid)
    throw Error(origin + ": the space enumerates to " + std::to_string(m.configs.size()) + " configs, not the " +
                std::to_string(valid) + " of \"valid\"" + kRegenerate);
  const std::size_t d = m.default_index();
  if (d == m.configs.size() || m.configs[d].id != m.default_id)
    throw Error(origin + ": \"default_id\" " + shown(m.default_id) + " is not the id of \"default\" among its configs" +
                kRegenerate);
}

// KEYS, each in the order of "key_dims" when the manifest gives it.
std::vector<std::vector<Assignment>> read_keys(const json& doc, const std::string& origin) {
  std::vector<std::vector<Assignment>> keys;
  if (!doc.contains("keys")) return keys;
  const json& list = doc["keys"];
  if (!list.is_array()) wrong_type(list, origin, "\"keys\"", "a list");
  for (const auto& k : list) {
    if (!k.is_object()) throw Error(origin + ": each of \"keys\" must be an object");
    std::vector<Assignment> key;
    for (const auto& [name, value] : k.items()) {
      if (!is_name(name))
        throw Error(origin + ": key dimension " + shown(name) + " is not a C identifier" + kRegenerate);
      key.emplace_back(name, integer(value, origin, "key dimension " + name));
    }
    keys.push_back(std::move(key));
  }
  if (doc.contains("key_dims") && !keys.empty()) {
    const std::vector<std::string> dims = texts(doc["key_dims"], origin, "\"key_dims\"");
    for (auto& key : keys) {
      std::vector<Assignment> ordered;
      for (const auto& d : dims)
        for (const auto& a : key)
          if (a.first == d) ordered.push_back(a);
      if (ordered.size() != key.size() || ordered.size() != dims.size())
        throw Error(origin + ": a key's dimensions are not \"key_dims\"");
      key = std::move(ordered);
    }
  }
  return keys;
}

}  // namespace manifest_json
}  // namespace

Manifest Manifest::from_json(const json& doc, const std::string& origin) {
  using namespace manifest_json;
  Manifest m;
  read_identity(doc, origin, m);
  m.compile = read_compile(doc, origin);
  read_space(doc, origin, m);
  check_flags(origin, m);
  enumerate_again(doc, origin, m);
  m.keys = read_keys(doc, origin);
  return m;
}

ManifestConfigs::ManifestConfigs(std::vector<std::string> names, Enumeration valid, ConfigDefines defines)
    : names_(std::move(names)), valid_(std::move(valid)), defines_(std::move(defines)) {}

ManifestConfig ManifestConfigs::make(std::vector<int64_t> values) const {
  ManifestConfig c;
  c.values = std::move(values);
  c.id = config_id(names_, c.values);
  if (defines_) c.defines = defines_(c.values);
  return c;
}

std::optional<std::size_t> ManifestConfigs::find_id(const std::string& id) const {
  auto value_of = [](const std::string& hex) -> std::optional<uint64_t> {
    if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
    return std::stoull(hex, nullptr, 16);
  };
  if (!by_id_) {
    auto index = std::make_shared<std::unordered_map<uint64_t, uint32_t>>();
    index->reserve(size());
    for (std::size_t i = 0; i < size(); ++i)
      index->emplace(*value_of(config_id(names_, valid_.row(i))), static_cast<uint32_t>(i));
    by_id_ = std::move(index);
  }
  const auto v = value_of(id);
  if (!v) return std::nullopt;
  auto it = by_id_->find(*v);
  if (it == by_id_->end()) return std::nullopt;
  return it->second;
}

void Manifest::enumerate_configs() {
  const Space space(spec.parameters, spec.constraints);
  Enumeration valid;
  try {
    valid = space.enumerate(kMaxValidConfigs, max_points);
  } catch (const EvalError& e) {
    throw Error(std::string("the constraints fail: ") + e.what());
  }
  if (valid.gave_up) throw Error("the space's enumeration gave up after " + std::to_string(max_points) + " points");
  if (valid.truncated) throw Error("the space has more than " + std::to_string(kMaxValidConfigs) + " valid configs");
  ConfigDefines config_defines;
  if (!t1_spec.empty()) {
    config_defines = t1_grid_defines(t1_spec, spec, t1_problem_size);
  } else if (!defines.empty()) {
    config_defines = [fixed = defines](std::span<const int64_t>) { return fixed; };
  }
  configs = ManifestConfigs(space.names(), std::move(valid), std::move(config_defines));
}

std::size_t Manifest::default_index() const {
  std::vector<int64_t> values;
  for (const auto& p : spec.parameters) {
    auto it = std::find_if(spec.default_config.begin(), spec.default_config.end(),
                           [&](const Assignment& a) { return a.first == p.name; });
    if (it == spec.default_config.end()) return configs.size();
    values.push_back(it->second);
  }
  return configs.find(values).value_or(configs.size());
}

std::string Manifest::describe(std::span<const int64_t> values) const {
  // Its own loop, not assignments_text: the names live in the parameters, and the tune loop
  // calls this for every config it compiles and measures, so no list is built per call.
  std::string out;
  for (std::size_t k = 0; k < values.size() && k < spec.parameters.size(); ++k)
    out += (k ? " " : "") + spec.parameters[k].name + "=" + std::to_string(values[k]);
  return out;
}

std::filesystem::path arch_kernel_dir(const Manifest& m, const std::filesystem::path& kernel_dir,
                                      const std::string& arch) {
  return arch == m.compile.arch ? kernel_dir : kernel_dir / ("sm_" + arch);
}

Manifest for_arch(const Manifest& m, const std::string& arch) {
  Manifest out = m;
  out.compile.arch = arch;
  return out;
}

}  // namespace ktune

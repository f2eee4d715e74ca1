#include "ktune/manifest.hpp"

#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

namespace ktune {

using nlohmann::json;

namespace {

json values_object(const std::vector<Parameter>& params, const std::vector<int64_t>& values) {
  json obj = json::object();
  for (std::size_t k = 0; k < params.size(); ++k) obj[params[k].name] = values[k];
  return obj;
}

template <typename T>
T field(const json& obj, const char* key, const std::string& origin, const char* where) {
  if (!obj.is_object() || !obj.contains(key))
    throw Error(origin + ": " + where + " has no \"" + key + "\"");
  try {
    return obj.at(key).get<T>();
  } catch (const json::exception&) {
    throw Error(origin + ": " + where + "." + key + " has the wrong type (" +
                obj.at(key).dump().substr(0, 60) + ")");
  }
}

}  // namespace

bool is_manifest(const json& doc) {
  return doc.is_object() && doc.value("schema", "") == "ktune.manifest";
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
  json configs = json::array();
  for (const auto& c : this->configs)
    configs.push_back({{"id", c.id},
                       {"values", values_object(spec.parameters, c.values)},
                       {"cubin", c.cubin()},
                       {"log", c.log()},
                       {"record", c.record()}});
  doc["configs"] = configs;
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

Manifest Manifest::from_json(const json& doc, const std::string& origin) {
  if (!is_manifest(doc))
    throw Error(origin + ": not a ktune manifest (no \"schema\": \"ktune.manifest\")");
  int version = field<int>(doc, "schema_version", origin, "the manifest");
  if (version != kSchemaVersion)
    throw Error(origin + ": manifest schema version " + std::to_string(version) +
                " is not the version " + std::to_string(kSchemaVersion) +
                " this ktune reads; reconfigure the build to regenerate it");
  Manifest m;
  m.kernel = field<std::string>(doc, "kernel", origin, "the manifest");
  m.source = field<std::string>(doc, "source", origin, "the manifest");
  m.entry = doc.contains("entry") ? field<std::string>(doc, "entry", origin, "the manifest") : m.kernel;
  const json& compile = doc.contains("compile") ? doc["compile"] : json::object();
  m.compile.nvcc = field<std::string>(compile, "nvcc", origin, "compile");
  m.compile.arch = field<std::string>(compile, "arch", origin, "compile");
  m.compile.flags = field<std::vector<std::string>>(compile, "flags", origin, "compile");
  m.compile.include_dirs = field<std::vector<std::string>>(compile, "include_dirs", origin, "compile");
  if (compile.contains("launcher"))
    m.compile.launcher = field<std::vector<std::string>>(compile, "launcher", origin, "compile");
  if (doc.contains("build")) {
    const auto build = field<std::string>(doc, "build", origin, "the manifest");
    if (build != "eager" && build != "on-demand")
      throw Error(origin + ": \"build\" is \"" + build + "\", not \"eager\" or \"on-demand\"");
    m.on_demand = build == "on-demand";
  }
  m.spec.name = m.kernel;
  const json params = field<json>(doc, "parameters", origin, "the manifest");
  if (!params.is_array()) throw Error(origin + ": \"parameters\" must be a list");
  for (const auto& p : params)
    m.spec.parameters.push_back({field<std::string>(p, "name", origin, "a parameter"),
                                 field<std::vector<int64_t>>(p, "values", origin, "a parameter")});
  m.spec.constraints = field<std::vector<std::string>>(doc, "constraints", origin, "the manifest");
  const json def = field<json>(doc, "default", origin, "the manifest");
  if (!def.is_object()) throw Error(origin + ": \"default\" must be an object");
  for (const auto& p : m.spec.parameters) {
    if (!def.contains(p.name) || !def[p.name].is_number_integer())
      throw Error(origin + ": \"default\" lacks an integer for " + p.name);
    m.spec.default_config.emplace_back(p.name, def[p.name].get<int64_t>());
  }
  m.default_id = field<std::string>(doc, "default_id", origin, "the manifest");
  m.product = field<uint64_t>(doc, "product", origin, "the manifest");
  const json configs = field<json>(doc, "configs", origin, "the manifest");
  if (!configs.is_array()) throw Error(origin + ": \"configs\" must be a list");
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const json& c = configs[i];
    ManifestConfig config;
    config.id = field<std::string>(c, "id", origin, "a config");
    const json values = field<json>(c, "values", origin, "a config");
    for (const auto& p : m.spec.parameters) {
      if (!values.is_object() || !values.contains(p.name) || !values[p.name].is_number_integer())
        throw Error(origin + ": configs[" + std::to_string(i) + "] lacks an integer for " + p.name);
      config.values.push_back(values[p.name].get<int64_t>());
    }
    m.configs.push_back(std::move(config));
  }
  if (doc.contains("keys")) {
    if (!doc["keys"].is_array()) throw Error(origin + ": \"keys\" must be a list");
    for (const auto& k : doc["keys"]) {
      if (!k.is_object()) throw Error(origin + ": each of \"keys\" must be an object");
      std::vector<Assignment> key;
      for (const auto& [name, value] : k.items()) {
        if (!value.is_number_integer())
          throw Error(origin + ": key dimension " + name + " must be an integer");
        key.emplace_back(name, value.get<int64_t>());
      }
      m.keys.push_back(std::move(key));
    }
  }
  if (doc.contains("key_dims") && !m.keys.empty()) {
    if (!doc["key_dims"].is_array()) throw Error(origin + ": \"key_dims\" must be a list");
    std::vector<std::string> dims;
    for (const auto& d : doc["key_dims"]) {
      if (!d.is_string()) throw Error(origin + ": \"key_dims\" must list names");
      dims.push_back(d.get<std::string>());
    }
    for (auto& key : m.keys) {
      std::vector<Assignment> ordered;
      for (const auto& d : dims)
        for (const auto& a : key)
          if (a.first == d) ordered.push_back(a);
      if (ordered.size() != key.size() || ordered.size() != dims.size())
        throw Error(origin + ": a key's dimensions are not \"key_dims\"");
      key = std::move(ordered);
    }
  }
  return m;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open for reading");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

json read_json_file(const std::filesystem::path& path) {
  const std::string text = read_file(path);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(path.string() + ": not valid JSON (" + e.what() + ")");
  }
}

bool write_file_if_changed(const std::filesystem::path& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream old;
      old << in.rdbuf();
      if (old.str() == text) return false;
    }
  }
  write_file_atomic(path, text);
  return true;
}

void write_file_atomic(const std::filesystem::path& path, const std::string& text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw Error(path.string() + ": cannot write (disk full or directory not writable?)");
    }
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace ktune

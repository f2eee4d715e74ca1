#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <sstream>

#include "ktune/bake.hpp"
#include "ktune/error.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case",
    "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const",
    "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await", "co_return",
    "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
    "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int",
    "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
    "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    "final", "override", "import", "module"};

void require_identifier(const std::string& s, const std::string& what) {
  if (!is_cpp_identifier(s))
    throw Error("ktune bake: " + what + " " + cpp_string_literal(s.substr(0, 60)) +
                " is not a C++ identifier ([A-Za-z_][A-Za-z0-9_]*, not a keyword); rename it");
}

// Names the generated header declares beside the fields: a field of the same name would not
// compile (Config::of, Key::values(), the int64_t of every field; Config names its own type).
void require_free(const std::string& s, const std::string& what, std::initializer_list<const char*> taken) {
  for (const char* t : taken)
    if (s == t)
      throw Error("ktune bake: " + what + " " + cpp_string_literal(s) +
                  " clashes with a name of the generated header; rename it");
}

bool is_config_id(const std::string& s) {
  if (s.size() != 16) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string read_cubin(const fs::path& path) {
  try {
    return read_file(path);
  } catch (const Error& e) {
    throw Error(std::string("ktune bake: ") + e.what() + "; build the kernel's cubins first");
  }
}

// An array initialiser of `bytes`, 24 a line.
void write_bytes(std::ostringstream& out, const std::string& name, const std::string& bytes, bool nul) {
  out << "alignas(8) const unsigned char " << name << "[] = {";
  char hex[16];
  std::size_t n = 0;
  auto put = [&](unsigned char b) {
    std::snprintf(hex, sizeof hex, "%s0x%02x", n % 24 ? "," : (n ? ",\n  " : "\n  "), b);
    out << hex;
    ++n;
  };
  for (unsigned char b : bytes) put(b);
  if (nul) put(0);
  out << "};\n";
}

// The literal of `x`: -9223372036854775808LL would be the negation of a constant too large
// for long long, which compilers warn about or refuse.
std::string int_literal(int64_t x) {
  if (x == INT64_MIN) return "(-9223372036854775807LL - 1)";
  return std::to_string(x) + "LL";
}

std::string int_list(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ", ") + int_literal(x);
  return s;
}

std::string parse_arch(const std::string& arch, int& major, int& minor, bool& specific) {
  std::string digits = arch;
  specific = !digits.empty() && (digits.back() == 'a' || digits.back() == 'f');
  if (specific) digits.pop_back();
  if (digits.size() < 2 || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos)
    throw Error("ktune bake: the manifest's architecture " + cpp_string_literal(arch.substr(0, 40)) +
                " is not like 90 or 90a");
  major = std::stoi(digits.substr(0, digits.size() - 1));
  minor = digits.back() - '0';
  return digits;
}

}  // namespace

bool is_cpp_identifier(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  for (const char* k : kKeywords)
    if (s == k) return false;
  return true;
}

std::string cpp_string_literal(const std::string& s) {
  std::string out = "\"";
  char buf[8];
  for (unsigned char c : s) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::string_view(" _-.,:;/()[]=+#@").find(static_cast<char>(c)) != std::string_view::npos;
    if (plain) {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "\\%03o", c);  // three digits: never runs into what follows
      out += buf;
    }
  }
  return out + "\"";
}

BakeSources emit_bake(const BakePlan& plan, const Manifest& m, const fs::path& cubin_dir,
                      const std::string& default_ptx) {
  require_identifier(m.kernel, "the kernel name");
  require_identifier(m.entry, "the kernel entry");
  std::vector<std::string> params;
  for (const auto& p : m.spec.parameters) {
    require_identifier(p.name, "parameter");
    require_free(p.name, "parameter", {"of", "Config", "int64_t"});
    params.push_back(p.name);
  }
  for (const auto& d : plan.key_dims) {
    require_identifier(d, "key dimension");
    require_free(d, "key dimension", {"values", "int64_t"});
  }
  int cubin_major = 0, cubin_minor = 0;
  bool specific = false;
  parse_arch(m.compile.arch, cubin_major, cubin_minor, specific);

  // The configs to embed: the DEFAULT, every table's winners and common best.
  std::map<std::string, const ManifestConfig*> by_id;
  for (const auto& c : m.configs) by_id[c.id] = &c;
  std::vector<std::string> order{m.default_id};
  std::map<std::string, int> index{{m.default_id, 0}};
  auto add = [&](const std::string& id) {
    if (!is_config_id(id) || !by_id.count(id))
      throw Error("ktune bake: config id " + cpp_string_literal(id.substr(0, 40)) + " is not in the manifest");
    if (index.emplace(id, static_cast<int>(order.size())).second) order.push_back(id);
    return index.at(id);
  };
  if (!by_id.count(m.default_id)) throw Error("ktune bake: the manifest's DEFAULT config is not among its configs");
  for (const auto& t : plan.tables) {
    for (const auto& e : t.entries) add(e.config_id);
    if (!t.common_best.empty()) add(t.common_best);
  }

  const std::string ns = "ktune_" + m.kernel;
  std::ostringstream h;
  h << "// Generated by `ktune bake` for kernel " << m.kernel << ": data only, do not edit.\n"
    << "// Include it and call " << ns << "::launch(key, launch_template).\n"
    << "#pragma once\n#include <array>\n#include <cstdint>\n\n#include <ktune/dispatcher.hpp>\n\n"
    << "namespace " << ns << " {\n\n// One field per parameter of the space.\nstruct Config {\n";
  for (const auto& p : params) h << "  int64_t " << p << ";\n";
  h << "  static Config of(const ktune::Config& c) { return {";
  for (std::size_t i = 0; i < params.size(); ++i) h << (i ? ", " : "") << "c.values()[" << i << "]";
  h << "}; }\n};\n\n// One field per key dimension, in the order KEYS declares them.\nstruct Key {\n";
  for (const auto& d : plan.key_dims) h << "  int64_t " << d << ";\n";
  h << "  std::array<int64_t, " << plan.key_dims.size() << "> values() const { return {";
  for (std::size_t i = 0; i < plan.key_dims.size(); ++i) h << (i ? ", " : "") << plan.key_dims[i];
  h << "}; }\n};\n\nextern const ktune::BakedKernel baked;\nktune::Dispatcher& dispatcher();\n\n"
    << "// Launches the config chosen for this GPU and key; `launch_template` takes a\n"
    << "// const ktune::Config& or a const " << ns << "::Config&.\n"
    << "template <typename F>\nvoid launch(const Key& key, F&& launch_template, CUstream stream = nullptr) {\n"
    << "  ktune::launch_typed<Config>(dispatcher(), key.values(), launch_template, stream);\n}\n"
    << "inline ktune::Choice choice(const Key& key) { return dispatcher().choice(key.values()); }\n\n"
    << "}  // namespace " << ns << "\n";

  std::ostringstream s;
  s << "// Generated by `ktune bake` for kernel " << m.kernel << ": data only, do not edit.\n"
    << "#include \"ktune_" << m.kernel << ".hpp\"\n\nnamespace " << ns << " {\nnamespace {\n\n";
  s << "const char* const parameters[] = {";
  for (std::size_t i = 0; i < params.size(); ++i) s << (i ? ", " : "") << cpp_string_literal(params[i]);
  s << (params.empty() ? "nullptr" : "") << "};\n";
  s << "const char* const key_dims[] = {";
  for (std::size_t i = 0; i < plan.key_dims.size(); ++i) s << (i ? ", " : "") << cpp_string_literal(plan.key_dims[i]);
  s << (plan.key_dims.empty() ? "nullptr" : "") << "};\n\n";

  for (std::size_t i = 0; i < order.size(); ++i) {
    const ManifestConfig& c = *by_id.at(order[i]);
    s << "const int64_t values_" << i << "[] = {" << int_list(c.values) << (c.values.empty() ? "0" : "") << "};\n";
    write_bytes(s, "cubin_" + std::to_string(i), read_cubin(cubin_dir / (c.id + ".cubin")), false);
    if (i == 0 && !default_ptx.empty()) write_bytes(s, "ptx_0", default_ptx, true);
  }
  s << "\nconst ktune::BakedConfig configs[] = {\n";
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ManifestConfig& c = *by_id.at(order[i]);
    s << "  {" << cpp_string_literal(c.id) << ", {values_" << i << ", " << c.values.size() << "}, {cubin_" << i
      << ", sizeof cubin_" << i << "}, " << (i == 0 && !default_ptx.empty() ? "{ptx_0, sizeof ptx_0}" : "{}") << "},\n";
  }
  s << "};\n\n";
  for (std::size_t g = 0; g < plan.tables.size(); ++g) {
    const BakeTable& t = plan.tables[g];
    for (std::size_t e = 0; e < t.entries.size(); ++e)
      if (!t.entries[e].key.empty())
        s << "const int64_t key_" << g << "_" << e << "[] = {" << int_list(t.entries[e].key) << "};\n";
    s << "const ktune::BakedEntry entries_" << g << "[] = {\n";
    for (std::size_t e = 0; e < t.entries.size(); ++e) {
      const double ms = std::isfinite(t.entries[e].best_ms) ? t.entries[e].best_ms : 0.0;
      char num[40];
      std::snprintf(num, sizeof num, "%.9g", ms);
      const std::string key = t.entries[e].key.empty() ? "{}" : "key_" + std::to_string(g) + "_" + std::to_string(e);
      s << "  {" << key << ", " << add(t.entries[e].config_id) << ", " << num << "},\n";
    }
    s << "};\n";
  }
  s << "const ktune::BakedGpu gpus[] = {\n";
  for (std::size_t g = 0; g < plan.tables.size(); ++g) {
    const BakeTable& t = plan.tables[g];
    auto small = [](int v) { return v >= 0 && v < 100000 ? v : 0; };
    s << "  {" << cpp_string_literal(t.gpu.name) << ", " << small(t.gpu.cc_major) << ", " << small(t.gpu.cc_minor)
      << ", " << small(t.gpu.sm_count) << ", " << cpp_string_literal(t.source) << ", entries_" << g << ", "
      << (t.common_best.empty() ? 0 : add(t.common_best)) << "},\n";
  }
  s << (plan.tables.empty() ? "  {\"\", 0, 0, 0, \"\", {}, 0},\n" : "") << "};\n";
  std::vector<int64_t> declared;
  for (const auto& key : m.keys)
    for (const auto& [name, value] : key) declared.push_back(value);
  s << "const int64_t declared_keys[] = {" << int_list(declared) << (declared.empty() ? "0" : "") << "};\n\n"
    << "}  // namespace\n\n";
  s << "extern const ktune::BakedKernel baked = {\n  " << cpp_string_literal(m.kernel) << ", "
    << cpp_string_literal(m.entry) << ",\n  {parameters, " << params.size() << "}, {key_dims, "
    << plan.key_dims.size() << "},\n  configs, {gpus, " << plan.tables.size() << "}, 0,\n  {" << cubin_major
    << ", " << cubin_minor << ", " << (specific ? "true" : "false") << "}, {" << cubin_major << ", " << cubin_minor
    << ", " << (specific ? "true" : "false") << "},\n  " << cpp_string_literal(plan.note) << ",\n  {declared_keys, "
    << declared.size() << "}};\n\n"
    << "ktune::Dispatcher& dispatcher() {\n  static ktune::Dispatcher d(baked);\n  return d;\n}\n\n}  // namespace "
    << ns << "\n";
  return {h.str(), s.str()};
}

}  // namespace ktune

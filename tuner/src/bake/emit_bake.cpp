#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "ktune/emit_bake.hpp"
#include "ktune/baked_names.hpp"
#include "ktune/cuda_arch.hpp"
#include "ktune/error.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

void require_identifier(const std::string& s, const std::string& what) {
  if (!is_cpp_identifier(s))
    throw Error("ktune bake: " + what + " " + cpp_string_literal(s.substr(0, 60)) +
                " is not a C++ identifier ([A-Za-z_][A-Za-z0-9_]*, not a keyword); rename it");
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

BakedArch parsed_arch(const std::string& arch) {
  const auto a = parse_cuda_arch(arch);
  if (!a)
    throw Error("ktune bake: the manifest's architecture " + cpp_string_literal(arch.substr(0, 40)) +
                " is not like 90 or 90a");
  return *a;
}

std::string arch_literal(const BakedArch& a) {
  return "{" + std::to_string(a.major) + ", " + std::to_string(a.minor) + ", " + (a.arch_specific ? "true" : "false") +
         "}";
}

std::string kib(std::size_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

}  // namespace

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

namespace {

// Every name that becomes a C++ identifier in the generated code, checked before anything
// is written. Returns the parameters' names.
std::vector<std::string> bakeable_names(const BakePlan& plan, const Manifest& m) {
  require_identifier(m.kernel, "the kernel name");
  require_identifier(m.entry, "the kernel entry");
  auto require_bakeable = [](const std::string& name, const std::string& what, bool key_dimension) {
    const std::string why = unbakeable_name(name, key_dimension);
    if (!why.empty())
      throw Error("ktune bake: " + what + " " + cpp_string_literal(name.substr(0, 60)) + " " + why + "; rename it");
  };
  std::vector<std::string> params;
  for (const auto& p : m.spec.parameters) {
    require_bakeable(p.name, "parameter", false);
    params.push_back(p.name);
  }
  for (const auto& d : plan.key_dims) require_bakeable(d, "key dimension", true);
  return params;
}

// The configs to embed, each with the architectures it is embedded for: the DEFAULT (index
// 0) for every listed one, each table's winners and common best for the table's.
struct EmbeddedConfigs {
  std::vector<std::string> order;            // config ids, by index
  std::map<std::string, int> index;          // id -> index
  std::vector<std::set<std::string>> archs;  // by index
};

EmbeddedConfigs embedded_configs(const BakePlan& plan, const Manifest& m, const std::vector<std::string>& arch_names) {
  if (!m.configs.find_id(m.default_id))
    throw Error("ktune bake: the manifest's DEFAULT config is not among its configs");
  EmbeddedConfigs e{{m.default_id}, {{m.default_id, 0}}, {std::set<std::string>(arch_names.begin(), arch_names.end())}};
  auto add = [&](const std::string& id, const std::string& arch) {
    if (!is_config_id(id) || !m.configs.find_id(id))
      throw Error("ktune bake: config id " + cpp_string_literal(id.substr(0, 40)) + " is not in the manifest");
    if (e.index.emplace(id, static_cast<int>(e.order.size())).second) {
      e.order.push_back(id);
      e.archs.emplace_back();
    }
    if (std::find(arch_names.begin(), arch_names.end(), arch) == arch_names.end())
      throw Error("ktune bake: a table of architecture " + cpp_string_literal(arch.substr(0, 40)) +
                  ", which the manifest does not list");
    e.archs[static_cast<std::size_t>(e.index.at(id))].insert(arch);
  };
  for (const auto& t : plan.tables) {
    const std::string& arch = t.arch.empty() ? m.compile.arch : t.arch;
    for (const auto& entry : t.entries) add(entry.config_id, arch);
    if (!t.common_best.empty()) add(t.common_best, arch);
  }
  return e;
}

// ktune_<kernel>.hpp: the typed Config and Key, and launch().
std::string header_text(const Manifest& m, const std::vector<std::string>& params,
                        const std::vector<std::string>& key_dims) {
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
  for (const auto& d : key_dims) h << "  int64_t " << d << ";\n";
  h << "  std::array<int64_t, " << key_dims.size() << "> values() const { return {";
  for (std::size_t i = 0; i < key_dims.size(); ++i) h << (i ? ", " : "") << key_dims[i];
  h << "}; }\n};\n\nextern const ktune::BakedKernel baked;\nktune::Dispatcher& dispatcher();\n\n"
    << "// Launches the config chosen for this GPU and key; `launch_template` takes a\n"
    << "// const ktune::Config& or a const " << ns << "::Config&.\n"
    << "template <typename F>\nvoid launch(const Key& key, F&& launch_template, CUstream stream = nullptr) {\n"
    << "  ktune::launch_typed<Config>(dispatcher(), key.values(), launch_template, stream);\n}\n"
    << "inline ktune::Choice choice(const Key& key) { return dispatcher().choice(key.values()); }\n\n"
    << "}  // namespace " << ns << "\n";
  return h.str();
}

std::string name_list(const std::vector<std::string>& names) {
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + cpp_string_literal(names[i]);
  return names.empty() ? "nullptr" : list;
}

// Each embedded config's values and images (a cubin per architecture, the DEFAULT's PTX),
// then the configs[] and cubin_archs[] tables. Counts the bytes into `out`.
void emit_configs(std::ostringstream& s, const Manifest& m, const EmbeddedConfigs& e,
                  const std::vector<std::string>& arch_names, const fs::path& cubin_dir, const std::string& default_ptx,
                  BakeSources& out) {
  const fs::path kernel_dir = cubin_dir.parent_path();
  for (std::size_t i = 0; i < e.order.size(); ++i) {
    const ManifestConfig c = m.configs[*m.configs.find_id(e.order[i])];
    s << "const int64_t values_" << i << "[] = {" << int_list(c.values) << (c.values.empty() ? "0" : "") << "};\n";
    std::vector<std::pair<std::string, std::string>> images;  // (arch, array name)
    for (const auto& a : arch_names) {
      if (!e.archs[i].count(a)) continue;
      const fs::path dir = a == m.compile.arch ? cubin_dir : arch_kernel_dir(m, kernel_dir, a) / "cubins";
      const std::string bytes = read_cubin(dir / (c.id + ".cubin"));
      images.emplace_back(a, "cubin_" + std::to_string(i) + "_" + std::to_string(images.size()));
      write_bytes(s, images.back().second, bytes, false);
      out.sizes[a].cubins += 1;
      out.sizes[a].bytes += bytes.size();
    }
    s << "const ktune::BakedCubin cubins_" << i << "[] = {\n";
    for (const auto& [a, name] : images)
      s << "  {" << arch_literal(parsed_arch(a)) << ", {" << name << ", sizeof " << name << "}},\n";
    s << "};\n";
    if (i == 0 && !default_ptx.empty()) {
      write_bytes(s, "ptx_0", default_ptx, true);
      out.ptx_bytes = default_ptx.size() + 1;
    }
  }
  s << "\nconst ktune::BakedConfig configs[] = {\n";
  for (std::size_t i = 0; i < e.order.size(); ++i) {
    const ManifestConfig c = m.configs[*m.configs.find_id(e.order[i])];
    s << "  {" << cpp_string_literal(c.id) << ", {values_" << i << ", " << c.values.size() << "}, cubins_" << i << ", "
      << (i == 0 && !default_ptx.empty() ? "{ptx_0, sizeof ptx_0}" : "{}") << "},\n";
  }
  s << "};\n";
  s << "const ktune::BakedArch cubin_archs[] = {";
  for (std::size_t a = 0; a < arch_names.size(); ++a) s << (a ? ", " : "") << arch_literal(parsed_arch(arch_names[a]));
  s << "};\n\n";
}

// Per table: its entries (key, config index, time), then the gpus[] table naming them.
void emit_tables(std::ostringstream& s, const BakePlan& plan, const EmbeddedConfigs& e) {
  for (std::size_t g = 0; g < plan.tables.size(); ++g) {
    const BakeTable& t = plan.tables[g];
    for (std::size_t i = 0; i < t.entries.size(); ++i)
      if (!t.entries[i].key.empty())
        s << "const int64_t key_" << g << "_" << i << "[] = {" << int_list(t.entries[i].key) << "};\n";
    s << "const ktune::BakedEntry entries_" << g << "[] = {\n";
    for (std::size_t i = 0; i < t.entries.size(); ++i) {
      const double ms = std::isfinite(t.entries[i].best_ms) ? t.entries[i].best_ms : 0.0;
      char num[40];
      std::snprintf(num, sizeof num, "%.9g", ms);
      const std::string key = t.entries[i].key.empty() ? "{}" : "key_" + std::to_string(g) + "_" + std::to_string(i);
      s << "  {" << key << ", " << e.index.at(t.entries[i].config_id) << ", " << num << "},\n";
    }
    s << "};\n";
  }
  s << "const ktune::BakedGpu gpus[] = {\n";
  for (std::size_t g = 0; g < plan.tables.size(); ++g) {
    const BakeTable& t = plan.tables[g];
    auto small = [](int v) { return v >= 0 && v < 100000 ? v : 0; };
    s << "  {" << cpp_string_literal(t.gpu.name) << ", " << small(t.gpu.cc_major) << ", " << small(t.gpu.cc_minor)
      << ", " << small(t.gpu.sm_count) << ", " << t.gpu.memory_bytes << "ULL, " << cpp_string_literal(t.source)
      << ", entries_" << g << ", " << (t.common_best.empty() ? 0 : e.index.at(t.common_best)) << "},\n";
  }
  s << (plan.tables.empty() ? "  {\"\", 0, 0, 0, 0, \"\", {}, 0},\n" : "") << "};\n";
}

}  // namespace

BakeSources emit_bake(const BakePlan& plan, const Manifest& m, const fs::path& cubin_dir,
                      const std::string& default_ptx_text) {
  // Every listed architecture "-real": the build asked for no PTX.
  const std::string default_ptx = m.compile.ptx_target().empty() ? std::string() : default_ptx_text;
  const std::vector<std::string> params = bakeable_names(plan, m);
  const std::vector<std::string> arch_names = m.compile.listed_archs();
  for (const auto& a : arch_names) parsed_arch(a);  // each listed name is an architecture
  const BakedArch ptx_arch = default_ptx.empty() ? BakedArch{} : parsed_arch(m.compile.ptx_target());
  const EmbeddedConfigs embedded = embedded_configs(plan, m, arch_names);

  BakeSources out;
  out.header = header_text(m, params, plan.key_dims);
  const std::string ns = "ktune_" + m.kernel;
  std::ostringstream s;
  s << "// Generated by `ktune bake` for kernel " << m.kernel << ": data only, do not edit.\n"
    << "#include \"ktune_" << m.kernel << ".hpp\"\n\nnamespace " << ns << " {\nnamespace {\n\n";
  s << "const char* const parameters[] = {" << name_list(params) << "};\n";
  s << "const char* const key_dims[] = {" << name_list(plan.key_dims) << "};\n\n";
  emit_configs(s, m, embedded, arch_names, cubin_dir, default_ptx, out);
  emit_tables(s, plan, embedded);
  std::vector<int64_t> declared;
  for (const auto& key : m.keys)
    for (const auto& [name, value] : key) declared.push_back(value);
  s << "const int64_t declared_keys[] = {" << int_list(declared) << (declared.empty() ? "0" : "") << "};\n\n"
    << "}  // namespace\n\n";
  s << "extern const ktune::BakedKernel baked = {\n  " << cpp_string_literal(m.kernel) << ", "
    << cpp_string_literal(m.entry) << ",\n  {parameters, " << params.size() << "}, {key_dims, " << plan.key_dims.size()
    << "},\n  configs, {gpus, " << plan.tables.size() << "}, 0,\n  cubin_archs, " << arch_literal(ptx_arch) << ",\n  "
    << cpp_string_literal(plan.note) << ",\n  {declared_keys, " << declared.size() << "}};\n\n"
    << "ktune::Dispatcher& dispatcher() {\n  static ktune::Dispatcher d(baked);\n  return d;\n}\n\n}  // namespace "
    << ns << "\n";
  out.source = s.str();
  return out;
}

std::string BakeSources::size_line() const {
  std::string line;
  for (const auto& [arch, size] : sizes)
    line += (line.empty() ? "" : "; ") + std::string("sm_") + arch + ": " + std::to_string(size.cubins) +
            (size.cubins == 1 ? " cubin, " : " cubins, ") + kib(size.bytes);
  if (ptx_bytes) line += (line.empty() ? "" : "; ") + std::string("PTX ") + kib(ptx_bytes);
  return line;
}

}  // namespace ktune

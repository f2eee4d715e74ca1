#include "ktune/launch_check.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/key.hpp"
#include "ktune/manifest.hpp"
#include "ktune/text.hpp"

namespace ktune {

namespace {

std::size_t ptx_type_bytes(std::string_view type) {
  static const std::map<std::string_view, std::size_t> sizes = {
      {".u8", 1},    {".s8", 1},   {".b8", 1},  {".u16", 2}, {".s16", 2}, {".b16", 2},
      {".f16", 2},   {".bf16", 2}, {".u32", 4}, {".s32", 4}, {".b32", 4}, {".f32", 4},
      {".f16x2", 4}, {".u64", 8},  {".s64", 8}, {".b64", 8}, {".f64", 8}};
  auto it = sizes.find(type);
  return it == sizes.end() ? 0 : it->second;
}

// ".param .align 4 .b8 k_param_2[12]" -> 12; ".param .u64 .ptr .global .align 1 k_param_0" -> 8.
std::size_t ptx_param_bytes(const std::string& decl) {
  std::istringstream in(decl);
  std::size_t type = 0, count = 1;
  for (std::string token; in >> token;) {
    if (!type) {
      type = ptx_type_bytes(token);
      continue;
    }
    if (auto open = token.find('['); open != std::string::npos) count = std::stoull(token.substr(open + 1));
  }
  return type * count;
}

}  // namespace

std::optional<std::vector<std::size_t>> ptx_param_sizes(std::string_view ptx, std::string_view entry) {
  for (std::size_t at = ptx.find(".entry"); at != std::string_view::npos; at = ptx.find(".entry", at + 6)) {
    std::size_t name = ptx.find_first_not_of(" \t\r\n", at + 6);
    if (name == std::string_view::npos || ptx.compare(name, entry.size(), entry) != 0) continue;
    const std::size_t open = ptx.find_first_not_of(" \t\r\n", name + entry.size());
    if (open == std::string_view::npos || ptx[open] != '(') continue;  // a longer name
    const std::size_t close = ptx.find(')', open);
    if (close == std::string_view::npos) return std::nullopt;
    std::vector<std::size_t> sizes;
    std::string_view list = ptx.substr(open + 1, close - open - 1);
    while (!list.empty()) {
      const std::size_t comma = list.find(',');
      const std::string decl(list.substr(0, comma));
      if (decl.find(".param") != std::string::npos) sizes.push_back(ptx_param_bytes(decl));
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    return sizes;
  }
  return std::nullopt;
}

std::vector<std::string> launch_problems(const Launch& l, const std::optional<std::vector<std::size_t>>& params) {
  std::vector<std::string> out;
  auto dims = [](const Dim3& d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
  };
  if (l.block.x == 0 || l.block.y == 0 || l.block.z == 0 || l.block.x > 1024 || l.block.y > 1024 || l.block.z > 64 ||
      l.block.count() > 1024)
    out.push_back("block " + dims(l.block) +
                  " is not a CUDA block: each size at least 1, x and y at most 1024, "
                  "z at most 64, at most 1024 threads");
  if (l.grid.x == 0 || l.grid.y == 0 || l.grid.z == 0 || l.grid.x > 2147483647u || l.grid.y > 65535 || l.grid.z > 65535)
    out.push_back("grid " + dims(l.grid) +
                  " is not a CUDA grid: each size at least 1, x at most 2^31-1, "
                  "y and z at most 65535");
  constexpr uint32_t kMostSharedBytes = 227 * 1024;  // sm_90's opt-in maximum, the largest of any GPU so far
  if (l.shared_bytes > kMostSharedBytes)
    out.push_back(std::to_string(l.shared_bytes) +
                  " bytes of dynamic shared memory: more than any GPU has for a "
                  "block (" +
                  std::to_string(kMostSharedBytes) + ")");
  if (params) {
    if (l.args.count() != params->size()) {
      out.push_back(std::to_string(l.args.count()) + " kernel arguments, but the kernel takes " +
                    std::to_string(params->size()));
    } else {
      for (std::size_t k = 0; k < params->size(); ++k)
        if (l.args.size(k) != (*params)[k])
          out.push_back("argument " + std::to_string(k + 1) + " is " + std::to_string(l.args.size(k)) +
                        " bytes, but the kernel's parameter " + std::to_string(k + 1) + " is " +
                        std::to_string((*params)[k]) + " (an int where the kernel takes a long, or the reverse?)");
    }
  }
  return out;
}

namespace {

// Runs the user's harness with no GPU: buffers get distinct made-up device addresses that
// nothing dereferences; no values, no references.
class HostHarness : public Harness {
 public:
  explicit HostHarness(Key key) : Harness(std::move(key)) { checking_only_ = true; }

 protected:
  void upload(Slot& s) override { s.device = next_ += 0x1000000; }
  void compute_on_device(Slot&, const std::function<void(CUdeviceptr, CUstream)>&) override {}

 private:
  CUdeviceptr next_ = 0x7f0000000000;
};

// The configs to evaluate per key: the DEFAULT everywhere, each table's common best
// everywhere, each entry's config for its key.
std::map<Key, std::set<std::size_t>> launches_to_check(const Manifest& m, const std::string& bake_json) {
  std::map<Key, std::set<std::size_t>> todo;
  std::set<std::size_t> everywhere = {m.default_index()};
  for (const auto& declared : m.keys) todo[Key(declared.begin(), declared.end())];
  if (!bake_json.empty()) {
    const nlohmann::json bake = read_json_file(bake_json);
    const auto dims = bake.at("key_dims").get<std::vector<std::string>>();
    auto index_of = [&](const std::string& id) {
      auto i = m.configs.find_id(id);
      if (!i) throw Error(bake_json + ": config " + id + " is not in the space of " + m.kernel + "; build again");
      return *i;
    };
    for (const auto& table : bake.at("tables")) {
      if (table.contains("common_best") && table["common_best"].is_string())
        everywhere.insert(index_of(table["common_best"].get<std::string>()));
      for (const auto& e : table.at("entries")) {
        const auto values = e.at("key").get<std::vector<int64_t>>();
        Key k;
        for (std::size_t d = 0; d < dims.size() && d < values.size(); ++d) k[dims[d]] = values[d];
        todo[k].insert(index_of(e.at("config").get<std::string>()));
      }
    }
  }
  if (todo.empty()) throw Error(m.kernel + ": no keys to check the launch template with: declare KEYS");
  for (auto& [k, configs] : todo) configs.insert(everywhere.begin(), everywhere.end());
  return todo;
}

}  // namespace

std::string check_launches(const LaunchCheckRequest& r, void (*harness)(Harness&)) {
  const Manifest m = Manifest::from_json(read_json_file(r.manifest), r.manifest);
  std::optional<std::vector<std::size_t>> params;
  if (!r.ptx.empty()) params = ptx_param_sizes(read_file(r.ptx), m.entry);
  std::vector<std::string> names;
  for (const auto& p : m.spec.parameters) names.push_back(p.name);
  const std::size_t default_index = m.default_index();
  std::vector<std::string> problems;
  std::size_t launches = 0;
  const auto todo = launches_to_check(m, r.bake_json);
  for (const auto& [key, configs] : todo) {
    const std::string where = "key " + key_id(key);
    HostHarness h(key);
    try {
      harness(h);
      if (!h.launch_template()) throw Error("the harness gave no launch template; call h.launch(...) in ktune_harness");
    } catch (const std::exception& e) {
      problems.push_back(where + ": the harness: " + e.what());
      continue;
    }
    for (std::size_t index : configs) {
      const ManifestConfig c = m.configs[index];
      const std::string config = "config " + m.describe(c.values) + (index == default_index ? " (the DEFAULT)" : "");
      ++launches;
      try {
        for (const auto& p : launch_problems(h.launch_template()(Config(names, c.values, c.id)), params))
          problems.push_back(where + ", " + config + ": " + p);
      } catch (const std::exception& e) {
        problems.push_back(where + ", " + config + ": the launch template: " + e.what());
      }
    }
  }
  if (!problems.empty()) {
    std::string text = m.kernel + ": the launch template fails on the host (" + std::to_string(problems.size()) +
                       " problem" + (problems.size() > 1 ? "s" : "") + "):";
    for (std::size_t i = 0; i < problems.size() && i < 10; ++i) text += "\n  " + terminal_text(problems[i], 400);
    if (problems.size() > 10) text += "\n  ... and " + std::to_string(problems.size() - 10) + " more";
    throw Error(text);
  }
  return m.kernel + ": launch template checked on the host: " + std::to_string(todo.size()) + " key" +
         (todo.size() > 1 ? "s" : "") + ", " + std::to_string(launches) + (launches > 1 ? " launches" : " launch") +
         " (the DEFAULT and the baked configs); " +
         (params ? "arguments match the kernel's " + std::to_string(params->size()) + " parameters"
                 : std::string("the kernel's parameters not found in the PTX, arguments not checked"));
}

}  // namespace ktune

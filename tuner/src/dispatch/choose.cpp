#include "ktune/choose.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "ktune/error.hpp"

namespace ktune {

const char* to_string(Rule r) {
  switch (r) {
    case Rule::Exact: return "exact";
    case Rule::NearestKey: return "nearest-key";
    case Rule::SameArch: return "same-arch";
    case Rule::CommonBest: return "common-best";
    case Rule::Default: return "default";
    case Rule::Online: return "online";
  }
  return "?";
}

const char* to_string(ImageKind k) { return k == ImageKind::Cubin ? "cubin" : "ptx"; }

std::string Choice::describe() const {
  std::string s = to_string(rule);
  if (table) s += std::string(" on ") + table->name;
  return s + " (" + to_string(image) + ")";
}

double key_distance(std::span<const int64_t> a, std::span<const int64_t> b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::log(static_cast<double>(std::max<int64_t>(a[i], 1))) -
                     std::log(static_cast<double>(std::max<int64_t>(b[i], 1)));
    sum += d * d;
  }
  return std::sqrt(sum);
}

bool cubin_runs_on(const BakedArch& arch, int cc_major, int cc_minor) {
  if (arch.major == 0 || cc_major != arch.major) return false;
  return arch.arch_specific ? cc_minor == arch.minor : cc_minor >= arch.minor;
}

bool ptx_runs_on(const BakedArch& arch, int cc_major, int cc_minor) {
  if (arch.major == 0) return false;
  if (arch.arch_specific) return cc_major == arch.major && cc_minor == arch.minor;
  return cc_major > arch.major || (cc_major == arch.major && cc_minor >= arch.minor);
}

std::optional<ImageKind> runnable_image(const BakedKernel& k, int32_t index, const GpuInfo& gpu,
                                        const ChooseOptions& options) {
  const BakedConfig& bc = k.configs[static_cast<std::size_t>(index)];
  if (options.use_cubins && !bc.cubin.empty() && cubin_runs_on(k.cubin_arch, gpu.cc_major, gpu.cc_minor))
    return ImageKind::Cubin;
  if (!bc.ptx.empty() && ptx_runs_on(k.ptx_arch, gpu.cc_major, gpu.cc_minor)) return ImageKind::Ptx;
  return std::nullopt;
}

namespace {

struct Nearest {
  const BakedEntry* entry = nullptr;
  double distance = std::numeric_limits<double>::infinity();
  bool exact = false;
};

Nearest nearest_entry(const BakedGpu& g, std::span<const int64_t> key) {
  Nearest n;
  for (const BakedEntry& e : g.entries) {
    const bool same = std::equal(e.key.begin(), e.key.end(), key.begin(), key.end());
    const double d = same ? 0.0 : key_distance(e.key, key);
    if (same || d < n.distance) n = {&e, d, same};
    if (same) break;
  }
  return n;
}

}  // namespace

Choice choose(const BakedKernel& k, const GpuInfo& gpu, std::span<const int64_t> key,
              const ChooseOptions& options) {
  if (key.size() != k.key_dims.size()) {
    std::string dims;
    for (const char* d : k.key_dims) dims += (dims.empty() ? "" : ", ") + std::string(d);
    throw Error(std::string(k.name) + ": a key of " + std::to_string(key.size()) +
                " values, but its keys have " + std::to_string(k.key_dims.size()) + " (" + dims + ")");
  }
  const auto config_count = static_cast<int32_t>(k.configs.size());
  auto valid = [&](int32_t i) { return i >= 0 && i < config_count; };
  if (!valid(k.default_config)) throw Error(std::string(k.name) + ": baked data has no DEFAULT config");

  // This model first; then other models of this compute capability, the most alike first.
  const BakedGpu* model = nullptr;
  std::vector<const BakedGpu*> same_arch;
  for (const BakedGpu& g : k.gpus) {
    if (g.cc_major != gpu.cc_major || g.cc_minor != gpu.cc_minor) continue;
    if (!model && gpu.name == g.name) model = &g;
    else same_arch.push_back(&g);
  }
  std::stable_sort(same_arch.begin(), same_arch.end(), [&](const BakedGpu* a, const BakedGpu* b) {
    return std::abs(a->sm_count - gpu.sm_count) < std::abs(b->sm_count - gpu.sm_count);
  });

  Choice c;
  const double near = std::log(options.near_factor);
  auto pick = [&](const BakedGpu* g, Rule exact_rule, Rule near_rule) {
    Nearest n = nearest_entry(*g, key);
    if (!n.entry) return false;
    c.table = g;
    c.key_distance = n.distance;
    if (n.distance <= near && valid(n.entry->config)) {
      c.config = n.entry->config;
      c.rule = n.exact ? exact_rule : near_rule;
    } else if (valid(g->common_best)) {
      c.config = g->common_best;
      c.rule = Rule::CommonBest;
    } else {
      return false;
    }
    return true;
  };
  bool found = !options.default_only && model && pick(model, Rule::Exact, Rule::NearestKey);
  for (std::size_t i = 0; !found && !options.default_only && i < same_arch.size(); ++i)
    found = pick(same_arch[i], Rule::SameArch, Rule::SameArch);
  if (!found) c = Choice{k.default_config, Rule::Default, ImageKind::Cubin, nullptr, 0};

  auto image = runnable_image(k, c.config, gpu, options);
  if (!image) {
    c = Choice{k.default_config, Rule::Default, ImageKind::Cubin, nullptr, 0};
    image = runnable_image(k, c.config, gpu, options);
    if (!image)
      throw Error(std::string(k.name) + ": nothing baked runs on " + gpu.name + " (sm_" +
                  std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor) + "): cubins are for sm_" +
                  std::to_string(k.cubin_arch.major) + std::to_string(k.cubin_arch.minor) +
                  (k.cubin_arch.arch_specific ? "a" : "") + ", the DEFAULT's PTX for compute_" +
                  std::to_string(k.ptx_arch.major) + std::to_string(k.ptx_arch.minor) +
                  "; build with KTUNE_CUDA_ARCH set for this GPU");
  }
  c.image = *image;
  return c;
}

}  // namespace ktune

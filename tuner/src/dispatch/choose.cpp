#include "ktune/choose.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <tuple>
#include <vector>

#include "ktune/error.hpp"

namespace ktune {

const char* to_string(Rule r) {
  switch (r) {
    case Rule::Exact:
      return "exact";
    case Rule::NearestKey:
      return "nearest-key";
    case Rule::SameArch:
      return "same-arch";
    case Rule::SameMajor:
      return "same-major";
    case Rule::CommonBest:
      return "common-best";
    case Rule::Default:
      return "default";
    case Rule::Online:
      return "online";
  }
  return "?";
}

const char* to_string(ImageKind k) { return k == ImageKind::Cubin ? "cubin" : "ptx"; }

std::string Choice::describe() const {
  std::string s = to_string(rule);
  if (table) s += std::string(" on ") + table->name;
  const bool known = arch.major != 0;  // a Choice made by hand may not say
  if (image == ImageKind::Cubin) return s + (known ? " (sm_" + arch_text(arch) + " cubin)" : " (cubin)");
  return s + (known ? " (compute_" + arch_text(arch) + " PTX, JIT)" : " (PTX, JIT)");
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

const BakedCubin* runnable_cubin(const BakedConfig& c, const GpuInfo& gpu) {
  const BakedCubin* best = nullptr;
  for (const BakedCubin& b : c.cubins) {
    if (b.image.empty() || !cubin_runs_on(b.arch, gpu.cc_major, gpu.cc_minor)) continue;
    if (!best || b.arch.minor > best->arch.minor || (b.arch.minor == best->arch.minor && b.arch.arch_specific))
      best = &b;
  }
  return best;
}

std::optional<ImageKind> runnable_image(const BakedKernel& k, int32_t index, const GpuInfo& gpu,
                                        const ChooseOptions& options) {
  const BakedConfig& bc = k.configs[static_cast<std::size_t>(index)];
  if (options.use_cubins && runnable_cubin(bc, gpu)) return ImageKind::Cubin;
  if (!bc.ptx.empty() && ptx_runs_on(k.ptx_arch, gpu.cc_major, gpu.cc_minor)) return ImageKind::Ptx;
  return std::nullopt;
}

BakedArch image_arch(const BakedKernel& k, int32_t index, ImageKind image, const GpuInfo& gpu) {
  if (image == ImageKind::Ptx) return k.ptx_arch;
  const BakedCubin* cubin = runnable_cubin(k.configs[static_cast<std::size_t>(index)], gpu);
  return cubin ? cubin->arch : BakedArch{};
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

// A tuned table and the rule its exact or near key is chosen by.
struct Candidate {
  const BakedGpu* table;
  Rule exact_rule, near_rule;
};

// The tables of this GPU's major version, in the order they are tried: this model, then
// models of its compute capability, then of other minors (those at most the GPU's first,
// the nearest minor first); within each, the closest SM count, then the closest memory size
// where both are known, then the order of the bake.
std::vector<Candidate> candidate_tables(const BakedKernel& k, const GpuInfo& gpu) {
  struct Ranked {
    std::tuple<int, int, int, uint64_t> rank;
    Candidate candidate;
  };
  std::vector<Ranked> ranked;
  bool model_seen = false;
  for (const BakedGpu& g : k.gpus) {
    if (g.cc_major != gpu.cc_major) continue;
    const int minor_gap = g.cc_minor - gpu.cc_minor;
    const bool model = !model_seen && minor_gap == 0 && gpu.name == g.name;
    model_seen = model_seen || model;
    const int group = model ? 0 : minor_gap == 0 ? 1 : 2;
    const int minor_order = minor_gap <= 0 ? -minor_gap : 100 + minor_gap;
    const bool memory_known = g.memory_bytes != 0 && gpu.memory_bytes != 0;
    const uint64_t memory_gap = !memory_known                       ? std::numeric_limits<uint64_t>::max()
                                : g.memory_bytes > gpu.memory_bytes ? g.memory_bytes - gpu.memory_bytes
                                                                    : gpu.memory_bytes - g.memory_bytes;
    const Candidate c = group == 0   ? Candidate{&g, Rule::Exact, Rule::NearestKey}
                        : group == 1 ? Candidate{&g, Rule::SameArch, Rule::SameArch}
                                     : Candidate{&g, Rule::SameMajor, Rule::SameMajor};
    ranked.push_back({{group, minor_order, std::abs(g.sm_count - gpu.sm_count), memory_gap}, c});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.rank < b.rank; });
  std::vector<Candidate> out;
  for (const Ranked& r : ranked) out.push_back(r.candidate);
  return out;
}

std::string nothing_runs_message(const BakedKernel& k, const GpuInfo& gpu, const ChooseOptions& options) {
  std::string cubins;
  for (const BakedArch& a : k.cubin_archs) cubins += (cubins.empty() ? "sm_" : ", sm_") + arch_text(a);
  std::string s = std::string(k.name) + ": nothing baked runs on " + gpu.name + " (sm_" + std::to_string(gpu.cc_major) +
                  std::to_string(gpu.cc_minor) + "): cubins are for " +
                  (cubins.empty() ? std::string("no architecture") : cubins) + ", the DEFAULT's PTX " +
                  (k.ptx_arch.major ? "for compute_" + arch_text(k.ptx_arch) : std::string("was not built"));
  if (!options.use_cubins) s += " (cubins are off: KTUNE_NO_CUBINS)";
  return s + "; build with KTUNE_CUDA_ARCH set for this GPU";
}

}  // namespace

Choice choose(const BakedKernel& k, const GpuInfo& gpu, std::span<const int64_t> key, const ChooseOptions& options) {
  if (key.size() != k.key_dims.size()) {
    std::string dims;
    for (const char* d : k.key_dims) dims += (dims.empty() ? "" : ", ") + std::string(d);
    throw Error(std::string(k.name) + ": a key of " + std::to_string(key.size()) + " values, but its keys have " +
                std::to_string(k.key_dims.size()) + " (" + dims + ")");
  }
  const auto config_count = static_cast<int32_t>(k.configs.size());
  auto valid = [&](int32_t i) { return i >= 0 && i < config_count; };
  if (!valid(k.default_config)) throw Error(std::string(k.name) + ": baked data has no DEFAULT config");

  // The choice of config `index` by `rule`, if it has an image that runs here.
  auto runnable = [&](int32_t index, Rule rule, const BakedGpu* table, double distance) -> std::optional<Choice> {
    const auto image = runnable_image(k, index, gpu, options);
    if (!image) return std::nullopt;
    return Choice{index, rule, *image, image_arch(k, index, *image, gpu), table, distance};
  };

  const double near = std::log(options.near_factor);
  if (!options.default_only)
    for (const Candidate& t : candidate_tables(k, gpu)) {
      const Nearest n = nearest_entry(*t.table, key);
      if (!n.entry) continue;
      std::optional<Choice> c;
      if (n.distance <= near && valid(n.entry->config))
        c = runnable(n.entry->config, n.exact ? t.exact_rule : t.near_rule, t.table, n.distance);
      else if (valid(t.table->common_best))
        c = runnable(t.table->common_best, Rule::CommonBest, t.table, n.distance);
      if (c) return *c;
    }

  // runnable_image tries the DEFAULT's cubin for this architecture first, then its PTX.
  if (auto c = runnable(k.default_config, Rule::Default, nullptr, 0)) return *c;
  throw Error(nothing_runs_message(k, gpu, options));
}

}  // namespace ktune

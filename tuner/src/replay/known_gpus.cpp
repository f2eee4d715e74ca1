// The table of well-known GPUs (ktune/known_gpus.hpp). SM counts are the CUDA cores NVIDIA
// lists divided by the cores per SM of the architecture (64 for 7.0, 7.5 and 8.0, 128 for
// 8.6, 8.9, 9.0 and 10.0).
#include "ktune/known_gpus.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ktune {
namespace {

constexpr KnownGpu kKnownGpus[] = {
    {"V100", 7, 0, 80},       {"T4", 7, 5, 40},
    {"A100", 8, 0, 108},      {"A800", 8, 0, 108},
    {"A30", 8, 0, 56},        {"A10", 8, 6, 72},
    {"A40", 8, 6, 84},        {"RTX A4000", 8, 6, 48},
    {"RTX A5000", 8, 6, 64},  {"RTX A6000", 8, 6, 84},
    {"L4", 8, 9, 58},         {"L40", 8, 9, 142},
    {"L40S", 8, 9, 142},      {"RTX 6000 Ada", 8, 9, 142},
    {"H100", 9, 0, 132},  // SXM5: the driver names it "NVIDIA H100 80GB HBM3"
    {"H100 PCIe", 9, 0, 114}, {"H100 NVL", 9, 0, 132},
    {"H200", 9, 0, 132},      {"GH200", 9, 0, 132},
    {"B200", 10, 0, 148},
};

// "NVIDIA A100-SXM4-80GB" -> {nvidia, a100, sxm4, 80gb}.
std::vector<std::string> known_gpu_words(const std::string& text) {
  std::vector<std::string> words(1);
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 128 && std::isalnum(u))
      words.back() += static_cast<char>(std::tolower(u));
    else if (!words.back().empty())
      words.emplace_back();
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

bool contains_words(const std::vector<std::string>& name, const std::vector<std::string>& words) {
  return std::search(name.begin(), name.end(), words.begin(), words.end()) != name.end();
}

}  // namespace

std::optional<KnownGpu> find_known_gpu(const std::string& gpu_name) {
  const std::vector<std::string> name = known_gpu_words(gpu_name);
  std::optional<KnownGpu> best;
  std::size_t best_words = 0;
  for (const KnownGpu& g : kKnownGpus) {
    const std::vector<std::string> words = known_gpu_words(g.words);
    if (words.size() > best_words && contains_words(name, words)) {
      best = g;
      best_words = words.size();
    }
  }
  // A MIG instance runs on a slice of the SMs, which its name gives only as a profile.
  if (best && contains_words(name, {"mig"})) best->sm_count = 0;
  return best;
}

std::span<const KnownGpu> known_gpus() { return kKnownGpus; }

}  // namespace ktune

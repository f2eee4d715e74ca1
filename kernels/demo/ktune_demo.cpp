// ktune-demo: every example kernel launched through its baked dispatcher, as an
// application would. Per kernel and declared key it prints the config chosen, the rule
// that chose it, the time, the throughput and the speedup over the DEFAULT config, after
// checking that the chosen config's output matches the DEFAULT's. Without a GPU it prints
// the baked tables and says it cannot run them.
// usage: ktune-demo [kernel name...]   (default: every example)
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples.hpp"

namespace {

void print_tables(const ktune::BakedKernel& k) {
  std::printf("%s: %s\n", k.name, k.note);
  for (const ktune::BakedGpu& g : k.gpus)
    for (const ktune::BakedEntry& e : g.entries)
      std::printf("  %-12s %-28s -> %s (%.4f ms when tuned)\n", g.name,
                  examples::key_text(k, {e.key.begin(), e.key.end()}).c_str(),
                  examples::config_text(k, e.config).c_str(), e.best_ms);
}

// Whether every element of `got` is within abs + rel |want| of `want`.
bool outputs_match(const std::vector<double>& got, const std::vector<double>& want, double abs, double rel) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= abs + rel * std::fabs(want[i]))) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line at a time: nothing lost if it is stopped
  std::vector<std::string> only(argv + 1, argv + argc);
  auto wanted = [&](const char* name) {
    if (only.empty()) return true;
    for (const auto& o : only)
      if (o == name) return true;
    return false;
  };
  const auto all = examples::all();
  for (const auto& ex : all)
    if (wanted(ex.baked->name)) print_tables(*ex.baked);

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("\nno GPU here: the tables above are what would launch; nothing was run\n");
    return 0;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("\non %s:\n%-16s %-26s %-12s %-50s %9s %10s %9s %8s  %s\n", prop.name, "kernel", "key", "rule",
              "config", "ms", "rate", "DEFAULT", "speedup", "output");
  int failures = 0;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  for (const auto& ex : all) {
    if (!wanted(ex.baked->name)) continue;
    try {
      for (auto& p : ex.problems()) {
        p.launch(true, stream);
        cudaStreamSynchronize(stream);
        const auto baseline_out = p.output();
        p.launch(false, stream);
        if (cudaStreamSynchronize(stream) != cudaSuccess) throw std::runtime_error("the tuned launch failed");
        const bool same = outputs_match(p.output(), baseline_out, p.abs_tol, p.rel_tol);
        const double tuned = examples::median_ms([&](CUstream s) { p.launch(false, s); }, stream);
        const double base = examples::median_ms([&](CUstream s) { p.launch(true, s); }, stream);
        const double rate = p.work / (tuned * 1e-3) / 1e9;
        char rate_text[32];
        std::snprintf(rate_text, sizeof rate_text, "%.0f %s", rate, p.flops ? "GFLOP/s" : "GB/s");
        std::printf("%-16s %-26s %-12s %-50s %9.4f %10s %9.4f %7.2fx  %s\n", ex.baked->name, p.key.c_str(),
                    ktune::to_string(p.choice.rule), p.config.c_str(), tuned, rate_text, base, base / tuned,
                    same ? "matches DEFAULT" : "DIFFERS from DEFAULT");
        failures += !same;
      }
    } catch (const std::exception& e) {
      std::printf("%-16s error: %s\n", ex.baked->name, e.what());
      ++failures;
    }
  }
  cudaStreamDestroy(stream);
  return failures ? 1 : 0;
}

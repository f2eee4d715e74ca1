// The example kernels on this GPU, all in one run: per kernel and declared key, the
// DEFAULT config's time, the tuned config's time and the speedup, and the tuned kernel
// against the best reference this build has: cuBLAS for the GEMMs (its time, and the
// tuned kernel's share of its throughput), a device-to-device copy of the same bytes for
// the memory-bound kernels (the tuned kernel's share of that bandwidth). fmha has no
// reference here (benchmarks/sdpa.py times PyTorch where it is installed).
// usage: bench_examples [kernel name...]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "examples.hpp"

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line at a time: nothing lost if it is stopped
  std::vector<std::string> only(argv + 1, argv + argc);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("bench_examples: no GPU here; nothing measured\n");
    return 0;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("examples on %s; median of 20 launches each, L2 flushed before every launch\n\n", prop.name);
  std::printf("%-16s %-26s %10s %10s %8s %12s  %-12s %10s %12s %7s\n", "kernel", "key", "DEFAULT ms", "tuned ms",
              "speedup", "tuned rate", "reference", "ref ms", "ref rate", "share");
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  int failures = 0;
  for (const auto& ex : examples::all()) {
    if (!only.empty() && std::find(only.begin(), only.end(), ex.baked->name) == only.end()) continue;
    try {
      for (auto& p : ex.problems()) {
        const double base = examples::median_ms([&](CUstream s) { p.launch(true, s); }, stream);
        const double tuned = examples::median_ms([&](CUstream s) { p.launch(false, s); }, stream);
        const char* unit = p.flops ? "GFLOP/s" : "GB/s";
        const double rate = p.work / (tuned * 1e-3) / 1e9;
        std::printf("%-16s %-26s %10.4f %10.4f %7.2fx %7.0f %-5s", ex.baked->name, p.key.c_str(), base, tuned,
                    base / tuned, rate, unit);
        if (p.reference) {
          const double ref = examples::median_ms(p.reference, stream);
          const double ref_rate = p.work / (ref * 1e-3) / 1e9;
          std::printf("  %-12s %10.4f %7.0f %-5s %6.1f%%\n", p.reference_name.c_str(), ref, ref_rate, unit,
                      100.0 * rate / ref_rate);
        } else {
          std::printf("  %-12s\n", "-");
        }
      }
    } catch (const std::exception& e) {
      std::printf("%-16s error: %s\n", ex.baked->name, e.what());
      ++failures;
    }
  }
  cudaStreamDestroy(stream);
  return failures ? 1 : 0;
}

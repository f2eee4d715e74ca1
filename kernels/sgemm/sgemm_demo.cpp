// The sgemm demo: what a user's application looks like. It links ktune::sgemm, prints the
// tables the bake gave it, and on a GPU multiplies matrices of a few sizes through
// ktune_sgemm::launch, checking sampled elements of C against the host and printing which
// rule chose each config. Without a GPU it says so and exits 0.
// usage: sgemm_demo [M N K]...   (default: the tuned keys and two untuned ones)
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <ktune_sgemm.hpp>

#include "sgemm_launch.hpp"

int main(int argc, char** argv) {
  const ktune::BakedKernel& k = ktune_sgemm::baked;
  std::printf("ktune_sgemm: %s\n", k.note);
  for (const ktune::BakedGpu& g : k.gpus)
    for (const ktune::BakedEntry& e : g.entries)
      std::printf("  %s: M=%lld N=%lld K=%lld -> config %s (%.4f ms when tuned)\n", g.name,
                  static_cast<long long>(e.key[0]), static_cast<long long>(e.key[1]),
                  static_cast<long long>(e.key[2]), k.configs[e.config].id, e.best_ms);

  std::vector<ktune_sgemm::Key> keys;
  for (int a = 1; a + 2 < argc; a += 3)
    keys.push_back({std::atoll(argv[a]), std::atoll(argv[a + 1]), std::atoll(argv[a + 2])});
  if (keys.empty()) keys = {{1024, 1024, 1024}, {2048, 384, 1000}, {1000, 1000, 1000}, {4096, 64, 4096}};

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU here: nothing launched\n");
    return 0;
  }
  int wrong = 0;
  for (const auto& key : keys) {
    const int M = static_cast<int>(key.M), N = static_cast<int>(key.N), K = static_cast<int>(key.K);
    std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& x : a) x = u(rng);
    for (auto& x : b) x = u(rng);
    float *A, *B, *C;
    cudaMalloc(&A, a.size() * 4);
    cudaMalloc(&B, b.size() * 4);
    cudaMalloc(&C, c.size() * 4);
    cudaMemcpy(A, a.data(), a.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(B, b.data(), b.size() * 4, cudaMemcpyHostToDevice);
    auto ptr = [](float* p) { return reinterpret_cast<CUdeviceptr>(p); };
    ktune_sgemm::launch(key, sgemm_launch(ptr(A), ptr(B), ptr(C), M, N, K));
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("M=%d N=%d K=%d: the kernel failed\n", M, N, K);
      return 1;
    }
    cudaMemcpy(c.data(), C, c.size() * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int s = 0; s < 64; ++s) {  // sampled elements against a host dot product
      const int i = (s * 7919) % M, j = (s * 104729) % N;
      double ref = 0;
      for (int p = 0; p < K; ++p) ref += double(a[size_t(i) * K + p]) * b[size_t(p) * N + j];
      bad += std::fabs(c[size_t(i) * N + j] - ref) > 1e-3 + 1e-4 * std::fabs(ref);
    }
    const ktune::Choice choice = ktune_sgemm::choice(key);
    const auto cfg = ktune_sgemm::Config::of(ktune_sgemm::dispatcher().config(key.values()));
    std::printf("M=%d N=%d K=%d: %s, TM=%lld TN=%lld TK=%lld OCC=%lld: %s\n", M, N, K,
                choice.describe().c_str(), static_cast<long long>(cfg.TM), static_cast<long long>(cfg.TN),
                static_cast<long long>(cfg.TK), static_cast<long long>(cfg.OCC), bad ? "WRONG" : "correct");
    wrong += bad > 0;
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
  return wrong ? 1 : 0;
}

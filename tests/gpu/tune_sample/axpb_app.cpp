// The sample's application: launches axpb through the baked dispatcher on each N given and
// checks y = 2x + 1. Prints, per N, the rule that chose the config, before and after the
// launch (online tuning settles on the first launch). Exits 1 on a wrong result.
// usage: axpb_app N...
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <ktune_axpb.hpp>

#include "axpb_launch.hpp"

int main(int argc, char** argv) {
  int bad = 0;
  for (int a = 1; a < argc; ++a) {
    const int n = std::atoi(argv[a]);
    std::vector<float> x(n), y(n, -7.0f);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>((i * 37) % 1000) / 1000.0f;
    float *dx = nullptr, *dy = nullptr;
    if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess || cudaMalloc(&dy, n * sizeof(float)) != cudaSuccess) {
      std::printf("cudaMalloc failed\n");
      return 2;
    }
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    const ktune_axpb::Key key{.N = n, .REF = 0};
    const ktune::Choice before = ktune_axpb::choice(key);
    try {
      ktune_axpb::launch(key, axpb_launch(dx, dy, n));
    } catch (const ktune::Error& e) {
      std::printf("N=%d: %s\n", n, e.what());
      return 1;
    }
    cudaDeviceSynchronize();
    cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += std::fabs(y[i] - (2.0f * x[i] + 1.0f)) > 1e-6f;
    const ktune::Choice after = ktune_axpb::choice(key);
    const ktune::Config& c = ktune_axpb::dispatcher().config(key.values());
    const auto typed = ktune_axpb::Config::of(c);
    std::printf("N=%d: before %s, after %s, config %s BLOCK=%lld UNROLL=%lld num_ctas=%lld: %s\n", n,
                before.describe().c_str(), after.describe().c_str(), c.id().c_str(),
                static_cast<long long>(typed.BLOCK), static_cast<long long>(typed.UNROLL),
                static_cast<long long>(typed.num_ctas), wrong ? "WRONG" : "correct");
    bad += wrong > 0;
    cudaFree(dx);
    cudaFree(dy);
  }
  return bad ? 1 : 0;
}

// The sample's application: launches axpb through the baked dispatcher on each N given and
// checks y = 2x + 1. Prints, per N, the rule that chose the config, before and after the
// launch (online tuning settles on the first launch). Exits 1 on a wrong result.
// usage: axpb_app N...            one launch per N, in order
//        axpb_app --threads T N... T threads at once, each launching every N 20 times
//                                  (first use of each key races between threads)
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <ktune_axpb.hpp>

#include "axpb_launch.hpp"

// Many threads, one dispatcher: every launch correct, one module per config and context.
int threaded(int threads, const std::vector<int>& sizes) {
  std::atomic<int> wrong{0}, errors{0};
  cudaFree(nullptr);  // makes the primary context current in this thread (and the process)
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      cudaSetDevice(0);
      cudaStream_t stream;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      for (int n : sizes) {
        std::vector<float> x(n), y(n);
        for (int i = 0; i < n; ++i) x[i] = static_cast<float>((i + t) % 97) / 97.0f;
        float *dx, *dy;
        cudaMalloc(&dx, n * sizeof(float));
        cudaMalloc(&dy, n * sizeof(float));
        cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        try {
          for (int rep = 0; rep < 20; ++rep) ktune_axpb::launch({.N = n, .REF = 0}, axpb_launch(dx, dy, n), stream);
        } catch (const ktune::Error& e) {
          std::printf("thread %d: %s\n", t, e.what());
          ++errors;
        }
        cudaStreamSynchronize(stream);
        cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
        for (int i = 0; i < n; ++i) wrong += std::fabs(y[i] - (2.0f * x[i] + 1.0f)) > 1e-6f;
        cudaFree(dx);
        cudaFree(dy);
      }
      cudaStreamDestroy(stream);
    });
  for (auto& th : pool) th.join();
  std::printf("threads=%d keys=%zu: %d wrong elements, %d errors\n", threads, sizes.size(), wrong.load(),
              errors.load());
  return wrong == 0 && errors == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--threads") {
    std::vector<int> sizes;
    for (int a = 3; a < argc; ++a) sizes.push_back(std::atoi(argv[a]));
    return threaded(std::atoi(argv[2]), sizes);
  }
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

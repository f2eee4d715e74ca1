#pragma once
// The example kernels as an application runs them: for each kernel and each key it was
// declared for, inputs on the GPU, a launch through the baked dispatcher (the tuned
// choice) and one through a DEFAULT-only dispatcher (the baseline), the work one launch
// does, and the best reference this build has (cuBLAS, a device copy). Shared by
// ktune-demo and benchmarks/bench_examples.
#include <cuda.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ktune/baked.hpp>
#include <ktune/choose.hpp>

namespace examples {

// One kernel at one key, its buffers allocated and filled.
struct Problem {
  std::string key;                                        // "M=4096 N=4096 K=4096"
  double work = 0;                                        // per launch: FLOPs, or bytes moved
  bool flops = true;                                      // else bytes: GB/s
  std::function<void(bool baseline, CUstream)> launch;    // baseline: the DEFAULT config
  ktune::Choice choice;                                   // what the dispatcher chose
  std::string config;                                     // "BM=128 BN=256 ..."
  std::function<std::vector<double>()> output;            // read back, as doubles
  double abs_tol = 0, rel_tol = 0;                        // tuned against DEFAULT outputs
  std::string reference_name;                             // "cuBLAS", "device copy", or empty
  std::function<void(CUstream)> reference;                // one launch of the reference
  std::vector<std::shared_ptr<void>> buffers;             // the device memory the launches use
};

struct Example {
  const ktune::BakedKernel* baked;
  // One problem per declared key; allocates on the current CUDA context's GPU.
  std::function<std::vector<Problem>()> problems;
};

// Every example kernel of this build, in the order the docs list them.
std::vector<Example> all();

// "A=1 B=2" for the kernel's declared keys, key by key.
std::vector<std::vector<int64_t>> declared_keys(const ktune::BakedKernel& k);
std::string key_text(const ktune::BakedKernel& k, const std::vector<int64_t>& key);
std::string config_text(const ktune::BakedKernel& k, int32_t config);

// Median milliseconds of `reps` launches, each timed alone after the L2 cache was
// flushed, so that memory-bound kernels read from HBM as they would in a real pipeline.
double median_ms(const std::function<void(CUstream)>& launch, CUstream stream, int reps = 20);

}  // namespace examples

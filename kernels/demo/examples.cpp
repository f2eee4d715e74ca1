#include "examples.hpp"

#include <cuda_runtime.h>
#if KTUNE_EXAMPLES_CUBLAS
#include <cublas_v2.h>
#endif

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>

#include <ktune/dispatcher.hpp>
#include <ktune/half.hpp>
#include <ktune_fmha_d128.hpp>
#include <ktune_fmha_d64.hpp>
#include <ktune_hgemm_bf16.hpp>
#include <ktune_hgemm_f16.hpp>
#include <ktune_hgemm_tma_bf16.hpp>
#include <ktune_hgemm_tma_f16.hpp>
#include <ktune_hgemm_wgmma_bf16.hpp>
#include <ktune_hgemm_wgmma_f16.hpp>
#include <ktune_sgemm.hpp>
#include <ktune_softmax_bf16.hpp>
#include <ktune_softmax_f32.hpp>
#include <ktune_transpose.hpp>

#include "fmha_launch.hpp"
#include "hgemm_launch.hpp"
#include "hgemm_tma_launch.hpp"
#include "hgemm_wgmma_launch.hpp"
#include "sgemm_launch.hpp"
#include "softmax_launch.hpp"
#include "transpose_launch.hpp"

namespace examples {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// A device buffer of n values of T, freed with its last copy.
template <typename T>
struct Device {
  std::shared_ptr<void> memory;
  std::size_t n = 0;
  CUdeviceptr ptr() const { return reinterpret_cast<CUdeviceptr>(memory.get()); }
};

template <typename T>
Device<T> allocate(std::size_t n) {
  void* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  return {std::shared_ptr<void>(p, [](void* q) { cudaFree(q); }), n};
}

// Uniform in [-1, 1), the same every run.
template <typename T>
Device<T> random_device(std::size_t n, uint32_t seed) {
  std::vector<T> host(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : host) v = T(u(rng));
  Device<T> d = allocate<T>(n);
  check(cudaMemcpy(d.memory.get(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  return d;
}

template <typename T>
std::vector<double> download(const Device<T>& d) {
  std::vector<T> host(d.n);
  check(cudaMemcpy(host.data(), d.memory.get(), d.n * sizeof(T), cudaMemcpyDeviceToHost), "download");
  std::vector<double> out(d.n);
  for (std::size_t i = 0; i < d.n; ++i) out[i] = static_cast<double>(host[i]);
  return out;
}

// A dispatcher that launches the DEFAULT whatever the tables say: the baseline.
std::shared_ptr<ktune::Dispatcher> baseline_of(const ktune::BakedKernel& k) {
  ktune::DispatchOptions o;
  o.choose.default_only = true;
  return std::make_shared<ktune::Dispatcher>(k, o);
}

// What every problem shares: its key, the tuned and baseline launches, the choice.
template <typename MakeTemplate>
Problem problem(const ktune::BakedKernel& k, ktune::Dispatcher& tuned, std::shared_ptr<ktune::Dispatcher> base,
                const std::vector<int64_t>& key, MakeTemplate launch_template) {
  Problem p;
  p.key = key_text(k, key);
  p.choice = tuned.choice(key);
  p.config = config_text(k, p.choice.config);
  p.launch = [&tuned, base, key, launch_template](bool baseline, CUstream s) {
    (baseline ? *base : tuned).launch(std::span<const int64_t>(key), launch_template, s);
  };
  return p;
}

#if KTUNE_EXAMPLES_CUBLAS
cublasHandle_t cublas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    return h;
  }();
  return handle;
}
// Row-major C = A B as cuBLAS's column-major C^T = B^T A^T.
void cublas_gemm(cudaDataType type, CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, int M, int N, int K,
                 CUstream s) {
  cublasSetStream(cublas(), s);
  const float one = 1, zero = 0;
  if (cublasGemmEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, reinterpret_cast<void*>(B), type, N,
                   reinterpret_cast<void*>(A), type, K, &zero, reinterpret_cast<void*>(C), type, N, CUBLAS_COMPUTE_32F,
                   CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("cublasGemmEx failed");
}
#endif

// A device-to-device copy of as many bytes as the kernel reads (and so writes): the
// bandwidth a memory-bound kernel is held against.
std::function<void(CUstream)> copy_of(CUdeviceptr from, CUdeviceptr to, std::size_t bytes) {
  return [=](CUstream s) {
    check(cudaMemcpyAsync(reinterpret_cast<void*>(to), reinterpret_cast<void*>(from), bytes,
                          cudaMemcpyDeviceToDevice, s),
          "cudaMemcpyAsync");
  };
}

// The GEMM kernels share a problem contract and differ in their launch.
enum class Gemm { sgemm, mma_sync, wgmma, tma };

template <typename T>
Example gemm(const ktune::BakedKernel& k, ktune::Dispatcher& tuned, Gemm path, cudaDataType type, double abs_tol,
             double rel_tol) {
  return {&k, [&k, &tuned, path, type, abs_tol, rel_tol] {
            auto base = baseline_of(k);
            std::vector<Problem> out;
            for (const auto& key : declared_keys(k)) {
              const int M = static_cast<int>(key[0]), N = static_cast<int>(key[1]), K = static_cast<int>(key[2]);
              auto A = random_device<T>(std::size_t(M) * K, 1), B = random_device<T>(std::size_t(K) * N, 2);
              auto C = allocate<T>(std::size_t(M) * N);
              Problem p =
                  path == Gemm::tma ? problem(k, tuned, base, key,
                                              hgemm_tma_launch(A.ptr(), B.ptr(), C.ptr(), M, N, K, type == CUDA_R_16BF))
                  : path == Gemm::wgmma    ? problem(k, tuned, base, key, hgemm_wgmma_launch(A.ptr(), B.ptr(), C.ptr(), M, N, K))
                  : path == Gemm::mma_sync ? problem(k, tuned, base, key, hgemm_launch(A.ptr(), B.ptr(), C.ptr(), M, N, K))
                                           : problem(k, tuned, base, key, sgemm_launch(A.ptr(), B.ptr(), C.ptr(), M, N, K));
              p.buffers = {A.memory, B.memory, C.memory};
              p.work = 2.0 * M * N * K;
              p.output = [C] { return download(C); };
              p.abs_tol = abs_tol;
              p.rel_tol = rel_tol;
#if KTUNE_EXAMPLES_CUBLAS
              auto R = allocate<T>(std::size_t(M) * N);
              p.reference_name = "cuBLAS";
              p.reference = [=](CUstream s) { cublas_gemm(type, A.ptr(), B.ptr(), R.ptr(), M, N, K, s); };
#else
              (void)type;
#endif
              out.push_back(std::move(p));
            }
            return out;
          }};
}

Example fmha(const ktune::BakedKernel& k, ktune::Dispatcher& tuned, int head_dim) {
  return {&k, [&k, &tuned, head_dim] {
            auto base = baseline_of(k);
            std::vector<Problem> out;
            for (const auto& key : declared_keys(k)) {
              const int BH = static_cast<int>(key[0]), S = static_cast<int>(key[1]), causal = static_cast<int>(key[2]);
              const std::size_t n = std::size_t(BH) * S * head_dim;
              auto Q = random_device<ktune::half>(n, 1), K = random_device<ktune::half>(n, 2),
                   V = random_device<ktune::half>(n, 3);
              auto O = allocate<ktune::half>(n);
              Problem p = problem(k, tuned, base, key,
                                  fmha_launch(Q.ptr(), K.ptr(), V.ptr(), O.ptr(), BH, S, head_dim, causal));
              p.buffers = {Q.memory, K.memory, V.memory, O.memory};
              // Q K^T and P V: 2 S^2 D multiply-adds per head; half of them with the causal mask.
              p.work = 4.0 * BH * double(S) * S * head_dim * (causal ? 0.5 : 1.0);
              p.output = [O] { return download(O); };
              p.abs_tol = 2e-3;
              p.rel_tol = 1e-2;
              out.push_back(std::move(p));
            }
            return out;
          }};
}

template <typename T>
Example softmax(const ktune::BakedKernel& k, ktune::Dispatcher& tuned, double abs_tol, double rel_tol) {
  return {&k, [&k, &tuned, abs_tol, rel_tol] {
            auto base = baseline_of(k);
            std::vector<Problem> out;
            for (const auto& key : declared_keys(k)) {
              const int rows = static_cast<int>(key[0]), cols = static_cast<int>(key[1]);
              const std::size_t n = std::size_t(rows) * cols;
              auto x = random_device<T>(n, 1);
              auto y = allocate<T>(n), copy = allocate<T>(n);
              Problem p = problem(k, tuned, base, key, softmax_launch(x.ptr(), y.ptr(), rows, cols));
              p.buffers = {x.memory, y.memory, copy.memory};
              p.work = 2.0 * n * sizeof(T);  // read x once, write y once: the least it can move
              p.flops = false;
              p.output = [y] { return download(y); };
              p.abs_tol = abs_tol;
              p.rel_tol = rel_tol;
              p.reference_name = "device copy";
              p.reference = copy_of(x.ptr(), copy.ptr(), n * sizeof(T));
              out.push_back(std::move(p));
            }
            return out;
          }};
}

Example transpose(const ktune::BakedKernel& k, ktune::Dispatcher& tuned) {
  return {&k, [&k, &tuned] {
            auto base = baseline_of(k);
            std::vector<Problem> out;
            for (const auto& key : declared_keys(k)) {
              const int rows = static_cast<int>(key[0]), cols = static_cast<int>(key[1]);
              const std::size_t n = std::size_t(rows) * cols;
              auto in = random_device<float>(n, 1);
              auto t = allocate<float>(n), copy = allocate<float>(n);
              Problem p = problem(k, tuned, base, key, transpose_launch(in.ptr(), t.ptr(), rows, cols));
              p.buffers = {in.memory, t.memory, copy.memory};
              p.work = 2.0 * n * sizeof(float);
              p.flops = false;
              p.output = [t] { return download(t); };
              p.reference_name = "device copy";
              p.reference = copy_of(in.ptr(), copy.ptr(), n * sizeof(float));
              out.push_back(std::move(p));
            }
            return out;
          }};
}

}  // namespace

std::vector<std::vector<int64_t>> declared_keys(const ktune::BakedKernel& k) {
  std::vector<std::vector<int64_t>> keys;
  const std::size_t dims = k.key_dims.size();
  for (std::size_t i = 0; dims && i + dims <= k.declared_keys.size(); i += dims)
    keys.emplace_back(k.declared_keys.begin() + i, k.declared_keys.begin() + i + dims);
  return keys;
}

std::string key_text(const ktune::BakedKernel& k, const std::vector<int64_t>& key) {
  std::string s;
  for (std::size_t d = 0; d < key.size() && d < k.key_dims.size(); ++d)
    s += (s.empty() ? "" : " ") + std::string(k.key_dims[d]) + "=" + std::to_string(key[d]);
  return s;
}

std::string config_text(const ktune::BakedKernel& k, int32_t config) {
  if (config < 0 || config >= static_cast<int32_t>(k.configs.size())) return "?";
  std::string s;
  const auto& values = k.configs[config].values;
  for (std::size_t i = 0; i < values.size() && i < k.parameters.size(); ++i)
    s += (s.empty() ? "" : " ") + std::string(k.parameters[i]) + "=" + std::to_string(values[i]);
  return s;
}

double median_ms(const std::function<void(CUstream)>& launch, CUstream stream, int reps) {
  static Device<char> scrub = [] {
    int device = 0, l2 = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
    return allocate<char>(std::max(2 * static_cast<std::size_t>(l2), std::size_t(1) << 20));
  }();
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  launch(stream);  // warm-up: module loads, first-use costs
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    check(cudaMemsetAsync(scrub.memory.get(), r, scrub.n, stream), "L2 flush");
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    launch(stream);
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "the launch");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::vector<Example> all() {
  return {
      gemm<float>(ktune_sgemm::baked, ktune_sgemm::dispatcher(), Gemm::sgemm, CUDA_R_32F, 1e-3, 1e-4),
      gemm<ktune::half>(ktune_hgemm_f16::baked, ktune_hgemm_f16::dispatcher(), Gemm::mma_sync, CUDA_R_16F, 2e-2, 1e-2),
      gemm<ktune::bfloat16>(ktune_hgemm_bf16::baked, ktune_hgemm_bf16::dispatcher(), Gemm::mma_sync, CUDA_R_16BF, 1e-1,
                            2e-2),
      gemm<ktune::half>(ktune_hgemm_wgmma_f16::baked, ktune_hgemm_wgmma_f16::dispatcher(), Gemm::wgmma, CUDA_R_16F, 2e-2,
                        1e-2),
      gemm<ktune::bfloat16>(ktune_hgemm_wgmma_bf16::baked, ktune_hgemm_wgmma_bf16::dispatcher(), Gemm::wgmma,
                            CUDA_R_16BF, 1e-1, 2e-2),
      gemm<ktune::half>(ktune_hgemm_tma_f16::baked, ktune_hgemm_tma_f16::dispatcher(), Gemm::tma, CUDA_R_16F, 2e-2,
                        1e-2),
      gemm<ktune::bfloat16>(ktune_hgemm_tma_bf16::baked, ktune_hgemm_tma_bf16::dispatcher(), Gemm::tma, CUDA_R_16BF,
                            1e-1, 2e-2),
      fmha(ktune_fmha_d64::baked, ktune_fmha_d64::dispatcher(), 64),
      fmha(ktune_fmha_d128::baked, ktune_fmha_d128::dispatcher(), 128),
      softmax<float>(ktune_softmax_f32::baked, ktune_softmax_f32::dispatcher(), 1e-6, 1e-5),
      softmax<ktune::bfloat16>(ktune_softmax_bf16::baked, ktune_softmax_bf16::dispatcher(), 1e-3, 1.6e-2),
      transpose(ktune_transpose::baked, ktune_transpose::dispatcher()),
  };
}

}  // namespace examples

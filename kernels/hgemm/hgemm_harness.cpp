// Tuning harness of the hgemm kernels: hgemm_f16, hgemm_bf16 (mma.sync) and hgemm_wgmma_f16,
// hgemm_wgmma_bf16, hgemm_tma_f16, hgemm_tma_bf16 (hgemm.cmake compiles it six times; HGEMM_BF16
// picks the element type, HGEMM_WGMMA or HGEMM_TMA the launch): random A and B in [-1, 1); C checked against cuBLAS (cublasGemmEx,
// fp32 compute, C rounded to the same type) where the build found it, else against the
// host reference (exact sums, one rounding) on all cores.
#include <ktune/harness.hpp>

#include <vector>

#if KTUNE_HGEMM_CUBLAS
#include <cublas_v2.h>
#endif

#include "hgemm_launch.hpp"
#include "hgemm_reference.hpp"
#include "hgemm_tma_launch.hpp"
#include "hgemm_wgmma_launch.hpp"

#ifndef HGEMM_BF16
#define HGEMM_BF16 0
#endif
#ifndef HGEMM_WGMMA
#define HGEMM_WGMMA 0
#endif
#ifndef HGEMM_TMA
#define HGEMM_TMA 0
#endif

namespace {

#if HGEMM_BF16
using Elem = ktune::bfloat16;
constexpr double kUlp = 1.0 / 128;  // bf16: 8 significant bits, relative spacing at most 2^-7
#if KTUNE_HGEMM_CUBLAS
constexpr cudaDataType_t kCudaType = CUDA_R_16BF;
#endif
#else
using Elem = ktune::half;
constexpr double kUlp = 1.0 / 1024;  // fp16: 11 significant bits, relative spacing at most 2^-10
#if KTUNE_HGEMM_CUBLAS
constexpr cudaDataType_t kCudaType = CUDA_R_16F;
#endif
#endif

// Both sides round an fp32 (or exact) sum once to the 16-bit type, so they may differ by
// one unit in the last place where the sums straddle a rounding boundary; cuBLAS's split-K
// shapes were seen 2 units off (M=128 N=4096 K=8192 on the H200): three units relative. Near zero, where that is tiny, the fp32 sums themselves differ by their
// accumulation order (and the tensor cores' rounding): K products of size <= 1, added
// to partial sums of size ~sqrt(K), a few 2^-24 each; K * 1e-6 bounds it with room. A
// wrong tile, a lost k step or a misplaced element costs O(0.1..1), far above both.
ktune::Tolerance hgemm_tolerance(int K) { return {1e-6 * K, 3 * kUlp}; }

}  // namespace

void ktune_harness(ktune::Harness& h) {
  const int M = static_cast<int>(h.key("M"));
  const int N = static_cast<int>(h.key("N"));
  const int K = static_cast<int>(h.key("K"));
  if (K % 8 != 0 || N % 8 != 0)
    throw ktune::Error("hgemm: K=" + std::to_string(K) + " N=" + std::to_string(N) +
                       ": K and N must be multiples of 8 (16-byte rows for cp.async); pad the matrices");
  auto A = h.input<Elem>(size_t(M) * K, ktune::fill::random(1));
  auto B = h.input<Elem>(size_t(K) * N, ktune::fill::random(2));
  auto C = h.output<Elem>(size_t(M) * N, ktune::fill::constant(0), hgemm_tolerance(K));
#if KTUNE_HGEMM_CUBLAS
  h.expect_on_device(C, [&](ktune::Buffer<Elem> ref, CUstream stream) {
    static cublasHandle_t handle = [] {
      cublasHandle_t made = nullptr;
      if (cublasCreate(&made) != CUBLAS_STATUS_SUCCESS) throw ktune::Error("cublasCreate failed");
      // Split-K partial sums in fp32, not in the 16-bit output type.
      cublasSetMathMode(made, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
      return made;
    }();
    cublasSetStream(handle, stream);
    // Row-major C = A B is column-major C^T = B^T A^T.
    const float one = 1, zero = 0;
    if (cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B.data(), kCudaType, N, A.data(),
                     kCudaType, K, &zero, ref.data(), kCudaType, N, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
      throw ktune::Error("cublasGemmEx failed");
  });
#else
  h.expect(C, [&](std::span<Elem> ref) {
    const auto a = h.host(A);
    const std::vector<float> b = hgemm_to_float(h.host(B));
    ktune::parallel_for(M, [&](size_t begin, size_t end) {
      hgemm_reference_rows<Elem>(a, b, ref, N, K, begin, end);
    });
  });
#endif
#if HGEMM_TMA
  h.launch(hgemm_tma_launch(A, B, C, M, N, K, HGEMM_BF16));
#elif HGEMM_WGMMA
  h.launch(hgemm_wgmma_launch(A, B, C, M, N, K));
#else
  h.launch(hgemm_launch(A, B, C, M, N, K));
#endif
}

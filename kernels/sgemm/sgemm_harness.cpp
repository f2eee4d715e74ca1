// Tuning harness of sgemm: random A and B; C checked against cuBLAS (pedantic fp32 math)
// where the build found it, else against a host GEMM in double on all cores.
#include <ktune/harness.hpp>

#include <vector>

#if KTUNE_SGEMM_CUBLAS
#include <cublas_v2.h>
#endif

#include "sgemm_launch.hpp"

void ktune_harness(ktune::Harness& h) {
  const int M = static_cast<int>(h.key("M"));
  const int N = static_cast<int>(h.key("N"));
  const int K = static_cast<int>(h.key("K"));
  auto A = h.input<float>(size_t(M) * K, ktune::fill::random(1));
  auto B = h.input<float>(size_t(K) * N, ktune::fill::random(2));
  // fp32 sums of K products of values in [-1, 1): absolute error grows like sqrt(K) ulps.
  auto C = h.output<float>(size_t(M) * N, ktune::fill::constant(0), {1e-3, 1e-4});
#if KTUNE_SGEMM_CUBLAS
  h.expect_on_device(C, [&](ktune::Buffer<float> ref, CUstream stream) {
    static cublasHandle_t handle = [] {
      cublasHandle_t made = nullptr;
      if (cublasCreate(&made) != CUBLAS_STATUS_SUCCESS) throw ktune::Error("cublasCreate failed");
      cublasSetMathMode(made, CUBLAS_PEDANTIC_MATH);  // plain fp32: no TF32 shortcuts
      return made;
    }();
    cublasSetStream(handle, stream);
    // Row-major C = A B is column-major C^T = B^T A^T.
    const float one = 1, zero = 0;
    if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B.data(), N, A.data(), K,
                    &zero, ref.data(), N) != CUBLAS_STATUS_SUCCESS)
      throw ktune::Error("cublasSgemm failed");
  });
#else
  h.expect(C, [&](std::span<float> ref) {
    auto a = h.host(A), b = h.host(B);
    ktune::parallel_for(M, [&](size_t begin, size_t end) {
      std::vector<double> row(N);
      for (size_t i = begin; i < end; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int k = 0; k < K; ++k) {
          const double aik = a[i * K + k];
          const float* bk = &b[size_t(k) * N];
          for (int j = 0; j < N; ++j) row[j] += aik * bk[j];
        }
        for (int j = 0; j < N; ++j) ref[i * N + j] = static_cast<float>(row[j]);
      }
    });
  });
#endif
  h.launch(sgemm_launch(A, B, C, M, N, K));
}

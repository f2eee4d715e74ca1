// Tuning harness of sgemm: random A and B, C checked against a host GEMM in double.
#include <ktune/harness.hpp>

#include <vector>

#include "sgemm_launch.hpp"

void ktune_harness(ktune::Harness& h) {
  const int M = static_cast<int>(h.key("M"));
  const int N = static_cast<int>(h.key("N"));
  const int K = static_cast<int>(h.key("K"));
  auto A = h.input<float>(size_t(M) * K, ktune::fill::random(1));
  auto B = h.input<float>(size_t(K) * N, ktune::fill::random(2));
  // fp32 sums of K products of values in [-1, 1): absolute error grows like sqrt(K) ulps.
  auto C = h.output<float>(size_t(M) * N, ktune::fill::constant(0), {1e-3, 1e-4});
  h.expect(C, [&](std::span<float> ref) {
    auto a = h.host(A), b = h.host(B);
    std::vector<double> row(N);
    for (int i = 0; i < M; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int k = 0; k < K; ++k) {
        const double aik = a[size_t(i) * K + k];
        const float* bk = &b[size_t(k) * N];
        for (int j = 0; j < N; ++j) row[j] += aik * bk[j];
      }
      for (int j = 0; j < N; ++j) ref[size_t(i) * N + j] = static_cast<float>(row[j]);
    }
  });
  h.launch(sgemm_launch(A, B, C, M, N, K));
}

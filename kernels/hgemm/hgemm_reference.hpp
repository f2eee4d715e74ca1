#pragma once
// Host reference of hgemm: C = A * B for row-major A (M×K), B (K×N), C (M×N) of
// ktune::half or ktune::bfloat16. Products and sums are exact in double (a 16-bit product
// has at most 22 significant bits) and the result is rounded once to T, so the reference
// is the correctly rounded answer that an fp32-accumulating kernel approaches.
#include <ktune/half.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

// double -> T rounded once. Through float, a double just above a tie of T could land on
// the tie and then round to even, the wrong way; rounding to float "to odd" (the inexact
// neighbour with an odd last bit) keeps the sticky information, and float has more than
// two bits beyond T's, so the second rounding is then the correct one.
template <typename T>
T hgemm_round(double d) {
  float f = static_cast<float>(d);
  if (std::isfinite(f) && static_cast<double>(f) != d && (std::bit_cast<uint32_t>(f) & 1u) == 0)
    f = std::nextafter(f, d > static_cast<double>(f) ? INFINITY : -INFINITY);
  return T(f);
}

// B's values as floats: converted once, so that the inner loop below is a plain,
// vectorisable multiply-add over a row.
template <typename T>
std::vector<float> hgemm_to_float(std::span<const T> values) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
  return out;
}

// Rows [row_begin, row_end) of C from A and B (B as floats, see hgemm_to_float); leaves
// the other rows alone, so that callers can split the rows over threads.
template <typename T>
void hgemm_reference_rows(std::span<const T> A, std::span<const float> B, std::span<T> C, int N, int K,
                          std::size_t row_begin, std::size_t row_end) {
  std::vector<double> row(static_cast<std::size_t>(N));
  for (std::size_t i = row_begin; i < row_end; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int k = 0; k < K; ++k) {
      const double aik = static_cast<float>(A[i * K + k]);
      const float* bk = &B[static_cast<std::size_t>(k) * N];
      for (int j = 0; j < N; ++j) row[j] += aik * bk[j];
    }
    for (int j = 0; j < N; ++j) C[i * N + j] = hgemm_round<T>(row[j]);
  }
}

// The whole of C on the calling thread: for tests and small problems.
template <typename T>
void hgemm_reference(std::span<const T> A, std::span<const T> B, std::span<T> C, int M, int N, int K) {
  const std::vector<float> b = hgemm_to_float(B);
  hgemm_reference_rows<T>(A, b, C, N, K, 0, static_cast<std::size_t>(M));
}

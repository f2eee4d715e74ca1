#pragma once
// Host reference of fused attention, written the plain way to be trusted: for one query
// row, every score in double, the softmax as exp(s - max) / sum, then the weighted sum of
// V's rows. No tiling, no online rescaling: nothing shared with the kernel's algorithm.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace fmha_ref {

// Row i of one head: out[0..D) = softmax_j(scale * q_i . k_j) v_j over keys j < S (j <= i
// when causal). q, k, v point at the head's [S][D] matrices; T converts to double (float,
// double, ktune::half). scores is scratch of at least S doubles.
template <typename T>
void attention_row(const T* q, const T* k, const T* v, int S, int D, int i, bool causal,
                   double scale, double* scores, double* out) {
  const int keys = causal ? std::min(i + 1, S) : S;
  const T* qi = q + static_cast<std::size_t>(i) * D;
  double max = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < keys; ++j) {
    const T* kj = k + static_cast<std::size_t>(j) * D;
    double dot = 0;
    for (int d = 0; d < D; ++d) dot += static_cast<double>(qi[d]) * static_cast<double>(kj[d]);
    scores[j] = scale * dot;
    max = std::max(max, scores[j]);
  }
  double sum = 0;
  for (int j = 0; j < keys; ++j) {
    scores[j] = std::exp(scores[j] - max);  // subtracting the max keeps exp finite
    sum += scores[j];
  }
  std::fill(out, out + D, 0.0);
  for (int j = 0; j < keys; ++j) {
    const T* vj = v + static_cast<std::size_t>(j) * D;
    const double w = scores[j] / sum;
    for (int d = 0; d < D; ++d) out[d] += w * static_cast<double>(vj[d]);
  }
}

// Rows [row_begin, row_end) of the flattened [BH * S] query rows of Q, K, V, O [BH][S][D],
// with scale 1/sqrt(D); OutT is constructible from double. Callers split the rows over
// threads (ktune::parallel_for in the harness).
template <typename T, typename OutT>
void attention_rows(const T* Q, const T* K, const T* V, OutT* O, int S, int D, bool causal,
                    std::size_t row_begin, std::size_t row_end) {
  std::vector<double> scores(S), out(D);
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  for (std::size_t r = row_begin; r < row_end; ++r) {
    const std::size_t head = r / S * static_cast<std::size_t>(S) * D;
    const int i = static_cast<int>(r % S);
    attention_row(Q + head, K + head, V + head, S, D, i, causal, scale, scores.data(), out.data());
    for (int d = 0; d < D; ++d) O[r * D + d] = OutT(out[d]);
  }
}

}  // namespace fmha_ref

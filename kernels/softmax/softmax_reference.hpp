#pragma once
// Host reference of softmax, one row at a time (the harness spreads rows over cores):
// in double, then rounded once to the output type, so it is the exactly rounded answer
// up to double's error. Works for float and ktune::bfloat16 (anything that converts to
// double explicitly and is constructible from float).
#include <algorithm>
#include <cmath>
#include <cstddef>

template <typename In, typename Out>
void softmax_reference_row(const In* x, Out* y, std::size_t cols) {
  double max = -INFINITY;
  for (std::size_t j = 0; j < cols; ++j) max = std::max(max, static_cast<double>(x[j]));
  double sum = 0;
  for (std::size_t j = 0; j < cols; ++j) sum += std::exp(static_cast<double>(x[j]) - max);
  for (std::size_t j = 0; j < cols; ++j)
    y[j] = Out(static_cast<float>(std::exp(static_cast<double>(x[j]) - max) / sum));
}

// Rows [row_begin, row_end) of a row-major [rows, cols] matrix.
template <typename In, typename Out>
void softmax_reference_rows(const In* x, Out* y, std::size_t cols, std::size_t row_begin,
                            std::size_t row_end) {
  for (std::size_t i = row_begin; i < row_end; ++i)
    softmax_reference_row(x + i * cols, y + i * cols, cols);
}

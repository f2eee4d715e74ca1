#pragma once
// Host reference of transpose: rows [row_begin, row_end) of a row-major [rows, cols]
// matrix `in` go to columns [row_begin, row_end) of the row-major [cols, rows] matrix `out`
// (the harness spreads row ranges over cores).
#include <cstddef>

template <typename T>
void transpose_reference_rows(const T* in, T* out, std::size_t rows, std::size_t cols,
                              std::size_t row_begin, std::size_t row_end) {
  for (std::size_t i = row_begin; i < row_end; ++i)
    for (std::size_t j = 0; j < cols; ++j) out[j * rows + i] = in[i * cols + j];
}

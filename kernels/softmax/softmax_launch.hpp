#pragma once
// The softmax launch, written once as a function of the config: used by the tuner through
// the harness and by applications through the baked dispatcher. The same for both
// variants (softmax_f32, softmax_bf16): only the element type of x and y differs.
#include <ktune/launch.hpp>

// y = softmax(x) along each row of a row-major [rows, cols] matrix.
inline auto softmax_launch(CUdeviceptr x, CUdeviceptr y, int rows, int cols) {
  return [=](const ktune::Config& c) {
    return ktune::Launch{.grid = {ktune::cdiv(rows, c["ROWS_PER_BLOCK"])},
                         .block = {static_cast<uint32_t>(c["BLOCK"])},
                         .args = ktune::args(x, y, rows, cols)};
  };
}

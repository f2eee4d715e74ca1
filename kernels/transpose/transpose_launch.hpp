#pragma once
// The transpose launch, written once as a function of the config: used by the tuner through
// the harness and by applications through the baked dispatcher.
#include <ktune/launch.hpp>

// out = in^T: in is a row-major [rows, cols] fp32 matrix, out a row-major [cols, rows] one.
// grid.y counts row tiles: rows up to 65535 * TILE (over a million even with TILE 16).
inline auto transpose_launch(CUdeviceptr in, CUdeviceptr out, int rows, int cols) {
  return [=](const ktune::Config& c) {
    const int64_t tile = c["TILE"];
    return ktune::Launch{.grid = {ktune::cdiv(cols, tile), ktune::cdiv(rows, tile)},
                         .block = {static_cast<uint32_t>(tile / c["VEC"]),
                                   static_cast<uint32_t>(c["BLOCK_Y"])},
                         .args = ktune::args(in, out, rows, cols)};
  };
}

#pragma once
// The fmha_wgmma launch (fmha_wgmma_d64, fmha_wgmma_d128), written once as a function of the
// config for the tuner's harness and the baked dispatcher. Q, K, V, O are [BH, S, D] fp16,
// row-major, 16-byte aligned; head_dim must be the HEAD_DIM the kernel was compiled for.
#include <ktune/launch.hpp>
#include <ktune/launch_resources.hpp>

#include <algorithm>
#include <cstdint>

// Dynamic shared memory of a config: the Q tile (CONSUMERS * 64 rows) and STAGES tiles each
// of K and V (TILE_N rows), fp16, 1024 bytes to align the swizzle atoms and 1024 for the
// barriers. fmha.cmake's WHERE bounds the same expression.
inline uint32_t fmha_wgmma_shared_bytes(const ktune::Config& c, int head_dim) {
  return static_cast<uint32_t>((c["CONSUMERS"] * 64 + 2 * c["STAGES"] * c["TILE_N"]) * head_dim * 2 + 2048);
}

inline auto fmha_wgmma_launch(CUdeviceptr Q, CUdeviceptr K, CUdeviceptr V, CUdeviceptr O, int BH, int S,
                              int head_dim, int causal) {
  return [=](const ktune::Config& c) {
    const uint32_t tile_m = static_cast<uint32_t>(c["CONSUMERS"] * 64), tile_n = static_cast<uint32_t>(c["TILE_N"]);
    // The [BH * S, D] arrays in boxes of 64 columns (128 bytes, the swizzle span).
    const uint64_t rows = std::max<uint64_t>(uint64_t(BH) * S, 1), cols = head_dim;
    auto map = [&](CUdeviceptr base, uint32_t box_rows) {
      return ktune::tensor_map_2d(base, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rows, cols, cols * 2, box_rows, 64,
                                  CU_TENSOR_MAP_SWIZZLE_128B);
    };
    return ktune::Launch{.grid = {ktune::cdiv(S, tile_m), static_cast<uint32_t>(BH)},
                         .block = {static_cast<uint32_t>(c["CONSUMERS"] * 128 + (c["SPLIT_REGS"] ? 128 : 32))},
                         .shared_bytes = fmha_wgmma_shared_bytes(c, head_dim),
                         .args = ktune::args(map(Q, tile_m), map(K, tile_n), map(V, tile_n), O, S, causal)};
  };
}

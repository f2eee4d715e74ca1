#pragma once
// The fmha launch, written once as a function of the config: used by the tuner through the
// harness and by applications through the baked dispatcher. Q, K, V, O are [BH, S, D] fp16;
// head_dim must be the HEAD_DIM the kernel was compiled for (fmha_d64 / fmha_d128).
#include <ktune/launch.hpp>

#include <cstdint>

// Dynamic shared memory of one block: the Q tile and STAGES tiles each of K and V, fp16.
constexpr uint32_t fmha_shared_bytes(int64_t tile_m, int64_t tile_n, int64_t stages, int64_t head_dim) {
  return static_cast<uint32_t>((tile_m + 2 * stages * tile_n) * head_dim * 2);
}

inline auto fmha_launch(CUdeviceptr Q, CUdeviceptr K, CUdeviceptr V, CUdeviceptr O, int BH, int S,
                        int head_dim, int causal) {
  return [=](const ktune::Config& c) {
    const int64_t tile_m = c["TILE_M"], tile_n = c["TILE_N"];
    const int64_t stages = c.get_or("STAGES", 1), ctas = c.get_or("num_ctas", 1);
    // Whole clusters along x: the kernel returns at once in the blocks past S.
    const uint32_t m_blocks = ktune::cdiv(ktune::cdiv(S, tile_m), ctas) * static_cast<uint32_t>(ctas);
    return ktune::Launch{.grid = {m_blocks, static_cast<uint32_t>(BH)},
                         .block = {static_cast<uint32_t>(c["WARPS"] * 32)},
                         .shared_bytes = fmha_shared_bytes(tile_m, tile_n, stages, head_dim),
                         .args = ktune::args(Q, K, V, O, S, causal)};
  };
}

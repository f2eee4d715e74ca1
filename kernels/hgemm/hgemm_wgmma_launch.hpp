#pragma once
// The hgemm_wgmma launch (hgemm_wgmma_f16 and hgemm_wgmma_bf16), written once as a function
// of the config for the tuner's harness and the baked dispatcher. The problem contract is
// hgemm's (hgemm_launch.hpp): row-major 16-bit A, B, C, 16-byte aligned, K and N multiples of 8.
#include <ktune/launch.hpp>

#include <cstdint>

// Dynamic shared memory of a config: STAGES buffers of an A tile (BM×64) and a B tile
// (64×BN) of 2-byte elements, plus 1024 bytes to align the swizzle atoms. hgemm.cmake's
// WHERE bounds the same expression.
inline uint32_t hgemm_wgmma_shared_bytes(const ktune::Config& c) {
  return static_cast<uint32_t>(c["STAGES"] * (c["BM"] + c["BN"]) * 64 * 2 + 1024);
}

inline auto hgemm_wgmma_launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, int M, int N, int K) {
  return [=](const ktune::Config& c) {
    // One block per tile (the kernel orders tiles itself, GROUP_M), rounded up to whole
    // clusters; the blocks beyond the tiles return at once.
    const uint32_t tiles = ktune::cdiv(M, c["BM"]) * ktune::cdiv(N, c["BN"]);
    const uint32_t cluster = static_cast<uint32_t>(c["num_ctas"]);
    return ktune::Launch{.grid = {ktune::cdiv(tiles, cluster) * cluster},
                         .block = {static_cast<uint32_t>(c["WARPGROUPS"] * 128)},
                         .shared_bytes = hgemm_wgmma_shared_bytes(c),
                         .args = ktune::args(A, B, C, M, N, K)};
  };
}

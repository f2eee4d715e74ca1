#pragma once
// The hgemm launch, written once as a function of the config: used by the tuner through
// the harness and by applications through the baked dispatcher. Same for hgemm_f16 and
// hgemm_bf16 (the element type is the kernel's, not the launch's).
//
// Requirements on the problem: row-major A (M×K), B (K×N), C (M×N) of 16-bit elements,
// each 16-byte aligned (cudaMalloc gives 256), K % 8 == 0 and N % 8 == 0 so that every row
// is whole 16-byte chunks for cp.async. M is free. C gets the inputs' type.
#include <ktune/launch.hpp>

#include <cstdint>

// Dynamic shared memory of a config: STAGES buffers of an A tile (BM×BK) and a B tile
// (BK×BN) of 2-byte elements. hgemm.cmake's WHERE bounds the same expression.
inline uint32_t hgemm_shared_bytes(const ktune::Config& c) {
  return static_cast<uint32_t>(c["STAGES"] * (c["BM"] * c["BK"] + c["BK"] * c["BN"]) * 2);
}

inline auto hgemm_launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, int M, int N, int K) {
  return [=](const ktune::Config& c) {
    // One block per tile in a 1-D grid (the kernel orders tiles itself, GROUP_M), rounded up
    // to whole clusters of num_ctas blocks; the blocks beyond the tiles return at once.
    const uint32_t tiles = ktune::cdiv(M, c["BM"]) * ktune::cdiv(N, c["BN"]);
    const uint32_t cluster = static_cast<uint32_t>(c["num_ctas"]);
    const uint32_t threads = static_cast<uint32_t>((c["BM"] / c["WM"]) * (c["BN"] / c["WN"]) * 32);
    return ktune::Launch{.grid = {ktune::cdiv(tiles, cluster) * cluster},
                         .block = {threads},
                         .shared_bytes = hgemm_shared_bytes(c),
                         .args = ktune::args(A, B, C, M, N, K)};
  };
}

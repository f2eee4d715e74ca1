#pragma once
// The hgemm_tma launch (hgemm_tma_f16 and hgemm_tma_bf16), written once as a function of the
// config for the tuner's harness and the baked dispatcher. The problem contract is hgemm's
// (hgemm_launch.hpp): row-major 16-bit A, B, C, 16-byte aligned, K and N multiples of 8.
#include <ktune/launch.hpp>
#include <ktune/launch_resources.hpp>

#include <algorithm>
#include <cstdint>

// Dynamic shared memory of a config: STAGES buffers of an A tile (BM×64) and a B tile
// (64×BN) of 2-byte elements or, where the cluster splits K (num_ctas > 1 without
// MULTICAST) and that is larger, the block's
// fp32 partial sums (BM rows of BN + 8), then 1024 bytes to align the swizzle atoms and 1024
// for the barriers. hgemm.cmake's WHERE bounds the same expression.
inline uint32_t hgemm_tma_shared_bytes(const ktune::Config& c) {
  const int64_t pipeline = c["STAGES"] * (c["BM"] + c["BN"]) * 64 * 2;
  const int64_t partials = c["num_ctas"] > 1 && !c["MULTICAST"] ? c["BM"] * (c["BN"] + 8) * 4 : 0;
  return static_cast<uint32_t>(std::max(pipeline, partials) + 2048);
}

inline auto hgemm_tma_launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, int M, int N, int K, bool bf16) {
  return [=](const ktune::Config& c) {
    const auto type = bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    // K == 0 loads nothing, but a descriptor needs a non-empty array: one row of 8.
    const uint64_t k = std::max(K, 8);
    const CUtensorMap a = ktune::tensor_map_2d(A, type, std::max(M, 1), k, k * 2, static_cast<uint32_t>(c["BM"]),
                                               64, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b = ktune::tensor_map_2d(B, type, k, std::max(N, 8), uint64_t(std::max(N, 8)) * 2, 64, 64,
                                               CU_TENSOR_MAP_SWIZZLE_128B);
    // A cluster of num_ctas blocks per unit of work: a tile (split-K: its K shared by the
    // cluster) or, with MULTICAST, two tiles on top of each other. Persistent: as many
    // clusters as fit the SMs (OCC blocks each) walk the units; without a GPU (the build's
    // host check) one per unit.
    const uint32_t cluster = static_cast<uint32_t>(c["num_ctas"]);
    const uint32_t units = ktune::cdiv(ktune::cdiv(M, c["BM"]), c["MULTICAST"] ? 2 : 1) * ktune::cdiv(N, c["BN"]);
    const uint32_t resident = static_cast<uint32_t>(ktune::current_sm_count() * c["OCC"]) / cluster;
    const uint32_t blocks = (c["PERSISTENT"] && resident ? std::min(units, resident) : units) * cluster;
    return ktune::Launch{.grid = {blocks},
                         .block = {static_cast<uint32_t>((c["CONSUMERS"] + 1) * 128)},
                         .shared_bytes = hgemm_tma_shared_bytes(c),
                         .args = ktune::args(a, b, C, M, N, K)};
  };
}

#pragma once
// What a launch template may need from the GPU beside its config, made on the host at each
// launch: the SM count (for persistent kernels, one block per SM) and TMA descriptors.
// Both work without a GPU, as the build's host check of launch templates (launch_check.hpp)
// needs: there they give 0 and a zeroed descriptor, after the same argument checks.
//
//   const CUtensorMap a = ktune::tensor_map_2d(A, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, M, K, K * 2,
//                                              c["BM"], 64, CU_TENSOR_MAP_SWIZZLE_128B);
//   ... .args = ktune::args(a, C, M, N, K)   // kernel: (const __grid_constant__ CUtensorMap a, ...)
#include <cuda.h>

#include <cstdint>

namespace ktune {

// SMs of the current context's GPU; 0 with no driver or no current context.
int current_sm_count();

// A TMA descriptor of a row-major 2-D array at `base`: `rows` × `cols` elements of `type`,
// rows `row_bytes` apart, copied in boxes of `box_rows` × `box_cols` elements, with `swizzle`;
// elements outside the array read as zeros. Throws Error naming what CUDA refuses (alignment,
// box sizes, a row of the box wider than the swizzle span) on every machine, and CudaError
// when the driver refuses the rest.
CUtensorMap tensor_map_2d(CUdeviceptr base, CUtensorMapDataType type, uint64_t rows, uint64_t cols, uint64_t row_bytes,
                          uint32_t box_rows, uint32_t box_cols, CUtensorMapSwizzle swizzle);

}  // namespace ktune

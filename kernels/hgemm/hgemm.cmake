# hgemm: fp16 and bf16 tensor-core GEMMs, one harness and one launch contract, two paths:
#   hgemm_f16, hgemm_bf16              mma.sync m16n8k16, ldmatrix, cp.async pipeline (hgemm.cu)
#   hgemm_wgmma_f16, hgemm_wgmma_bf16  Hopper's wgmma on swizzled shared memory (hgemm_wgmma.cu),
#                                      built for sm_90a, the only architecture that has wgmma
#   hgemm_tma_f16, hgemm_tma_bf16      the same wgmma, fed by TMA copies and a producer
#                                      warpgroup through mbarriers; persistent blocks (hgemm_tma.cu)
# Included by kernels/CMakeLists.txt.
#
# The mma.sync space:
# WHERE keeps what can run: whole warp tiles in the block tile, 32..1024 threads, the
# pipeline's dynamic shared memory within the 227 KiB a block may opt in to (and OCC blocks,
# each with 1 KiB the system reserves, within the SM's 228 KiB), and registers: the
# accumulators (WM*WN/32 a thread), the A and B fragments (WM/4 + WN/4) and about 40 for
# addresses must fit OCC blocks in the SM's 64 K registers, or ptxas would spill to meet
# __launch_bounds__.
set(_hgemm_params
  "BM=64,128,256" "BN=64,128,256" "BK=16,32,64"
  "WM=32,64" "WN=32,64"
  "STAGES=2..5" "GROUP_M=1,8,16" "OCC=1,2" "num_ctas=1,2")
set(_hgemm_where
  "BM % WM == 0 and BN % WN == 0"
  "32 <= (BM // WM) * (BN // WN) * 32 <= 1024"
  "STAGES * (BM * BK + BK * BN) * 2 <= 227 * 1024"
  "OCC * (STAGES * (BM * BK + BK * BN) * 2 + 1024) <= 228 * 1024"
  "(WM * WN // 32 + WM // 4 + WN // 4 + 40) * (BM // WM) * (BN // WN) * 32 * OCC <= 65536")
set(_hgemm_default "BM=128 BN=128 BK=32 WM=64 WN=64 STAGES=3 GROUP_M=8 OCC=1 num_ctas=1")
# Square, small square, tall-skinny, sizes off every tile (K, N still multiples of 8),
# and a short-wide one with a long K.
set(_hgemm_keys
  "M=4096 N=4096 K=4096" "M=1024 N=1024 K=1024" "M=8192 N=256 K=4096"
  "M=1000 N=1032 K=1000" "M=128 N=4096 K=8192")

# The wgmma space. WHERE keeps what can run: each warpgroup takes one or two 64-row slices,
# at most 128 fp32 accumulators a thread (MI * BN / 2, MI = BM / (64 * WARPGROUPS)), the
# pipeline's shared memory (+1 KiB of alignment) within 227 KiB and OCC blocks within the SM's
# 228 KiB, and registers (accumulators and about 80 more, as ptxas reports) for OCC blocks.
set(_hgemm_wgmma_params
  "BM=64,128,256" "BN=64,128,256" "WARPGROUPS=1,2"
  "STAGES=3..6" "GROUP_M=1,8,16" "OCC=1,2" "num_ctas=1,2")
set(_hgemm_wgmma_where
  "BM % (64 * WARPGROUPS) == 0 and BM // (64 * WARPGROUPS) <= 2"
  "BM // (64 * WARPGROUPS) * BN <= 256"
  "STAGES * (BM + BN) * 128 + 1024 <= 227 * 1024"
  "OCC * (STAGES * (BM + BN) * 128 + 2048) <= 228 * 1024"
  "(BM // (64 * WARPGROUPS) * BN // 2 + 80) * WARPGROUPS * 128 * OCC <= 65536")
set(_hgemm_wgmma_default "BM=128 BN=128 WARPGROUPS=2 STAGES=4 GROUP_M=8 OCC=1 num_ctas=1")

# On an H100 (scripts/gpu-machine.sh, 2026-12-07; bench_examples, against cuBLAS in the same
# run) the tuned TMA kernel reached 88.7 % (f16) and 88.2 % (bf16) of cuBLAS at 4096^3, where
# hgemm_wgmma reached 75 % (the f16 space of 1128 configs before multicast, measured whole,
# has its optimum there at 0.1985 ms: benchmarks/recordings/hgemm_tma_f16_H100), and with
# split-K 98.5 % / 94.7 % at M=128 N=4096 K=8192 (hgemm_wgmma 82 % / 81 %); on the other keys
# it is level with hgemm_wgmma or slower, by up to 11 % (1024^3 f16: 0.0109 against 0.0100 ms).
# TMA multicast of B (MULTICAST=1: a cluster of two blocks on tiles on top of each other, each
# loading half of B into both). Its first version (commit 6fa759d) released each stage to the
# other block with a cluster-scope release (.release.cluster, which orders the warp's earlier
# memory operations cluster-wide first): 1.5-2.7x slower than the same configs without it at
# 4096^3 on an H100. With the default CTA-scope arrival instead (two lanes arriving at once,
# one on each block's barrier) it is level: benchmarks/probe_configs.sh on an H100
# (2026-12-07), 24 pairs each with and without multicast (2 consumers, OCC=1, GROUP_M=8, BN >=
# 128, every config correct), multicast / without: 4096^3 0.89-1.11 (median 1.04: 128x128
# tiles with 6 or 7 stages gain 4-11 %, likely where a deep pipeline hides the two blocks'
# lockstep; with 2 or 3 stages it costs up to 11 %; the best with it 0.2018 against 0.2033 ms
# without), M=8192 N=256 0.88-1.08, M=1000 N=1032 K=1000 1.00-1.09. The H100's tuned configs
# do not use it (at 4096^3 GROUP_M=16 without it reached 0.2014 ms, the same L2 reuse by
# rasterisation); the H200's bf16 tune picked it at 4096^3, 0.6 % ahead of the best config
# without it.
# The TMA space (hgemm_tma.cu): the wgmma tiles, loaded by TMA and a producer warpgroup, the
# consumers sharing each tile or taking tiles in turn (PINGPONG), blocks persistent or not.
# WHERE keeps what can run, and ping-pong only with persistent blocks (a block of one tile
# leaves its second consumer idle). Each consumer warpgroup takes one or two 64-row slices
# of its tile (S warpgroups share a tile: CONSUMERS, or 1 in ping-pong), at most 128 fp32
# accumulators a thread, the pipeline's shared memory (+2 KiB: alignment and barriers)
# within 227 KiB and OCC blocks within the SM's 228 KiB, and registers: the accumulators and
# about 40 more (ptxas: 156 for 128 accumulators) for every thread, the producer's included,
# of OCC blocks. A cluster of num_ctas blocks (MULTICAST=0) splits K of one tile and sums in
# distributed shared memory, only with a block per tile and shared tiles, its fp32 partial
# sums (BM * (BN + 8) * 4 bytes, in the pipeline's buffers) in the shared memory too; with
# MULTICAST=1 a cluster of two takes two tiles on top of each other and shares B (at least
# two 64-column boxes, one loaded by each).
set(_hgemm_tma_params
  "BM=64,128,256" "BN=64,128,256" "CONSUMERS=1,2" "PINGPONG=0,1"
  "STAGES=2..8" "GROUP_M=1,8,16" "OCC=1,2" "PERSISTENT=0,1" "num_ctas=1,2,4,8" "MULTICAST=0,1")
set(_hgemm_tma_where
  "PINGPONG == 0 or (CONSUMERS == 2 and PERSISTENT == 1)"
  "num_ctas == 1 or MULTICAST == 1 or (PERSISTENT == 0 and PINGPONG == 0)"
  "MULTICAST == 0 or (num_ctas == 2 and BN >= 128 and PINGPONG == 0)"
  "BM % (64 * (1 if PINGPONG else CONSUMERS)) == 0 and BM // (64 * (1 if PINGPONG else CONSUMERS)) <= 2"
  "BM // (64 * (1 if PINGPONG else CONSUMERS)) * BN <= 256"
  "max(STAGES * (BM + BN) * 128, BM * (BN + 8) * 4 if num_ctas > 1 and MULTICAST == 0 else 0) + 2048 <= 227 * 1024"
  "OCC * (max(STAGES * (BM + BN) * 128, BM * (BN + 8) * 4 if num_ctas > 1 and MULTICAST == 0 else 0) + 3072) <= 228 * 1024"
  "(BM // (64 * (1 if PINGPONG else CONSUMERS)) * BN // 2 + 40) * (CONSUMERS + 1) * 128 * OCC <= 65536")
set(_hgemm_tma_default "BM=128 BN=256 CONSUMERS=2 PINGPONG=0 STAGES=4 GROUP_M=8 OCC=1 PERSISTENT=1 num_ctas=1 MULTICAST=0")

foreach(_hgemm_type f16 bf16)
  if(_hgemm_type STREQUAL "bf16")
    set(_hgemm_bf16 1)
  else()
    set(_hgemm_bf16 0)
  endif()
  ktune_add_kernel(hgemm_${_hgemm_type}
    SOURCE  ${CMAKE_CURRENT_LIST_DIR}/hgemm.cu
    PARAMS  ${_hgemm_params}
    WHERE   ${_hgemm_where}
    DEFAULT "${_hgemm_default}"
    FLAGS   -O3 -lineinfo -DHGEMM_BF16=${_hgemm_bf16}
    ENTRY   hgemm_${_hgemm_type}
    KEYS    ${_hgemm_keys}
    HARNESS ${CMAKE_CURRENT_LIST_DIR}/hgemm_harness.cpp
    # 3444 configs: compiled on demand, searched, not measured whole.
    STRATEGY genetic
    BUDGET   32
    SEED     1
    DB_DIRS  ${KTUNE_ROOT}/generated/hgemm_${_hgemm_type})  # tuned on the H200 and H100, used without a GPU
  if(TARGET ktune_hgemm_${_hgemm_type}_tuner)
    # The harness picks its element type with the same macro as the kernel.
    target_compile_definitions(ktune_hgemm_${_hgemm_type}_tuner PRIVATE HGEMM_BF16=${_hgemm_bf16})
  endif()

  ktune_add_kernel(hgemm_wgmma_${_hgemm_type}
    SOURCE  ${CMAKE_CURRENT_LIST_DIR}/hgemm_wgmma.cu
    PARAMS  ${_hgemm_wgmma_params}
    WHERE   ${_hgemm_wgmma_where}
    DEFAULT "${_hgemm_wgmma_default}"
    FLAGS   -O3 -lineinfo -DHGEMM_BF16=${_hgemm_bf16}
    ARCH    90a
    ENTRY   hgemm_wgmma_${_hgemm_type}
    KEYS    ${_hgemm_keys}
    HARNESS ${CMAKE_CURRENT_LIST_DIR}/hgemm_harness.cpp
    STRATEGY genetic
    BUDGET   32
    SEED     1
    DB_DIRS  ${KTUNE_ROOT}/generated/hgemm_wgmma_${_hgemm_type})
  if(TARGET ktune_hgemm_wgmma_${_hgemm_type}_tuner)
    target_compile_definitions(ktune_hgemm_wgmma_${_hgemm_type}_tuner PRIVATE HGEMM_BF16=${_hgemm_bf16} HGEMM_WGMMA=1)
  endif()

  ktune_add_kernel(hgemm_tma_${_hgemm_type}
    SOURCE  ${CMAKE_CURRENT_LIST_DIR}/hgemm_tma.cu
    PARAMS  ${_hgemm_tma_params}
    WHERE   ${_hgemm_tma_where}
    DEFAULT "${_hgemm_tma_default}"
    FLAGS   -O3 -lineinfo -DHGEMM_BF16=${_hgemm_bf16}
    ARCH    90a
    ENTRY   hgemm_tma_${_hgemm_type}
    KEYS    ${_hgemm_keys}
    HARNESS ${CMAKE_CURRENT_LIST_DIR}/hgemm_harness.cpp
    # 1320 configs, more than half of them clusters (split-K or multicast): twice the others'
    # budget, 4.8 % of the space.
    STRATEGY genetic
    BUDGET   64
    SEED     1
    DB_DIRS  ${KTUNE_ROOT}/generated/hgemm_tma_${_hgemm_type})  # tuned on the H200 and H100, used without a GPU
  if(TARGET ktune_hgemm_tma_${_hgemm_type}_tuner)
    target_compile_definitions(ktune_hgemm_tma_${_hgemm_type}_tuner PRIVATE HGEMM_BF16=${_hgemm_bf16} HGEMM_TMA=1)
  endif()

  # The reference is cuBLAS where the toolkit has it (the host reference otherwise).
  find_package(CUDAToolkit QUIET)
  foreach(_hgemm_kernel hgemm_${_hgemm_type} hgemm_wgmma_${_hgemm_type} hgemm_tma_${_hgemm_type})
    if(TARGET ktune_${_hgemm_kernel}_tuner AND TARGET CUDA::cublas)
      target_link_libraries(ktune_${_hgemm_kernel}_tuner PRIVATE CUDA::cublas)
      target_compile_definitions(ktune_${_hgemm_kernel}_tuner PRIVATE KTUNE_HGEMM_CUBLAS=1)
    endif()
  endforeach()
endforeach()

# fmha: fused multi-head attention forward (flash-attention style), one source compiled
# per head dimension. Included by kernels/CMakeLists.txt.
#
# Constraints, per head dimension D (the kernel's static_asserts say the same):
# - each warp owns a whole number of m16 tiles;
# - shared memory (Q tile + STAGES K and V tiles, fp16) fits a block's 227 KiB, and OCC
#   blocks of it (plus 1 KiB the SM reserves per block) fit the SM's 228 KiB;
# - registers: the fp32 accumulators of O (D/2 per m16 tile) and of the scores (TILE_N/2),
#   Q's fragments with QREG (D/4), plus about 40 for addresses and softmax state, must fit
#   the __launch_bounds__ cap (65536 / threads / OCC, at most 255); configs over it spill.
# The tuner of kernel `name` (head dimension D) with its harness's macros (ARGN: more of
# them). The host reference runs once per key (up to ~35 G multiply-adds): never at -O0.
function(_fmha_tuner_options name D)
  if(TARGET ktune_${name}_tuner)
    target_compile_definitions(ktune_${name}_tuner PRIVATE FMHA_HEAD_DIM=${D} ${ARGN})
    if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES
       AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
      target_compile_options(ktune_${name}_tuner PRIVATE -O2)
    endif()
  endif()
endfunction()

function(_fmha_add_kernel D)
  set(smem "(TILE_M + 2 * STAGES * TILE_N) * ${D} * 2")
  ktune_add_kernel(fmha_d${D}
    SOURCE  ${CMAKE_CURRENT_LIST_DIR}/fmha.cu
    PARAMS  "TILE_M=64,128" "TILE_N=32,64,128" "WARPS=4,8" "STAGES=1,2" "QREG=0,1"
            "OCC=1,2" "num_ctas=1,2"
    WHERE   "(TILE_M // WARPS) % 16 == 0"
            "${smem} <= 232448"
            "OCC * (${smem} + 1024) <= 233472"
            "(TILE_M // WARPS // 16) * ((${D} + TILE_N) // 2 + QREG * ${D} // 4) + 40 <= min(255, 65536 // (WARPS * 32 * OCC))"
    DEFAULT "TILE_M=64 TILE_N=64 WARPS=4 STAGES=1 QREG=0 OCC=1 num_ctas=1"
    FLAGS   -DHEAD_DIM=${D} -O3 -lineinfo
    ENTRY   fmha_d${D}
    KEYS    ${ARGN}
    HARNESS ${CMAKE_CURRENT_LIST_DIR}/fmha_harness.cpp
    STRATEGY genetic  # a budget per key: the examples are tuned within a build's time
    BUDGET   32
    SEED     1
    DB_DIRS  ${KTUNE_ROOT}/generated/fmha_d${D})  # tuned on the H200 and H100, used without a GPU
  _fmha_tuner_options(fmha_d${D} ${D})
endfunction()

set(_fmha_keys_64
  "BH=64 S=512 CAUSAL=0" "BH=32 S=2048 CAUSAL=0" "BH=32 S=2048 CAUSAL=1"
  "BH=128 S=2048 CAUSAL=0" "BH=8 S=1000 CAUSAL=0")
set(_fmha_keys_128
  "BH=64 S=512 CAUSAL=0" "BH=32 S=2048 CAUSAL=0" "BH=32 S=2048 CAUSAL=1"
  "BH=16 S=4096 CAUSAL=1" "BH=8 S=1000 CAUSAL=0" "BH=8 S=1000 CAUSAL=1")
_fmha_add_kernel(64 ${_fmha_keys_64})
_fmha_add_kernel(128 ${_fmha_keys_128})

# fmha_wgmma is declared on request: on an H100 (scripts/gpu-kernel.sh, 2026-12-07) every
# config of every key was correct, but its tuned best (the tuner's median) was slower than
# fmha's (bench_examples) on 9 of the 11 keys and level on two causal ones (d128 BH=32
# S=2048: 0.218 against 0.209 ms; d64 BH=32 S=2048: 0.172 against 0.115 ms; d128 BH=32
# S=2048 causal: 0.147 against 0.149 ms).
# PIPELINE=1 is FA3's overlap of tile j's S and softmax with tile j-1's P V. Its first
# version (commit b54c95c) ran 4-13 % slower on every key of an H100: ptxas serialized its
# wgmmas (C7513), because the softmax scaled S in S's registers and P was copied from one
# buffer to the other, and the scheduler moved those writes between the start and the end of
# a wgmma stage that reads them. Now the softmax only reads S and P is double-buffered, and
# ptxas reports no C7513; it is still slower. Every config of d128 with 2 or 3 consumers at
# BH=32 S=2048, one H100 (benchmarks/probe_configs.sh, 2026-12-07): best 0.2415 ms without
# PIPELINE, 0.2825 ms with it, 0.2856 ms with PINGPONG as well; SPLIT_REGS lets TILE_N=128
# run without spilling (0.2431 against 0.2645 ms, 3 stages) and is the best by 0.4 %
# (0.2415 against 0.2424 ms). The build's tune (genetic, 32 a key) picked one consumer and
# no PIPELINE on 10 of the 11 keys; fmha (mma.sync) stays faster: 0.2097 ms at that key.
# Since those runs the softmax is leaner (one multiply-add and one ex2 a score, the mask only
# on tiles that need it: about 4 instructions a score instead of 11, as fmha's); it compiles
# without spills but has not yet been run on a GPU.
option(KTUNE_EXAMPLE_FMHA_WGMMA "Declare the example kernels fmha_wgmma_d64 and fmha_wgmma_d128 (slower than fmha so far)" OFF)

# fmha_wgmma (fmha_wgmma.cu): wgmma with TMA loads from a producer warp, 64 query rows per
# consumer warpgroup. WHERE keeps what can run: the shared memory (+2 KiB: alignment and
# barriers) within a block's 227 KiB and OCC blocks within the SM's 228 KiB, and registers:
# S's and O's accumulators, with PIPELINE a second P and a few more, and about 40 more a
# thread ((TILE_N + D) / 2 + PIPELINE * (TILE_N / 4 + 20) + 40; ptxas: 96 to 254, no spills),
# within what ptxas gives a thread when each of the SM's four register files (16,384
# registers) holds a quarter of the resident warps, rounded up; with SPLIT_REGS (a producer
# warpgroup that lowers its registers with setmaxnreg, OCC 1), within what a consumer's
# thread is raised to: 240 with 2 consumers, 160 with 3. That lets d128 run FlashAttention-3's
# tile (128 query rows in 2 consumers, TILE_N 128, PIPELINE), which spills at 168.
function(_fmha_wgmma_add_kernel D)
  set(smem "(CONSUMERS * 64 + 2 * STAGES * TILE_N) * ${D} * 2 + 2048")
  set(regs "((TILE_N + ${D}) // 2 + PIPELINE * (TILE_N // 4 + 20) + 40)")
  ktune_add_kernel(fmha_wgmma_d${D}
    SOURCE  ${CMAKE_CURRENT_LIST_DIR}/fmha_wgmma.cu
    PARAMS  "CONSUMERS=1..3" "TILE_N=64,128" "STAGES=2..4" "OCC=1,2" "PIPELINE=0,1" "PINGPONG=0,1" "SPLIT_REGS=0,1"
    WHERE   "${smem} <= 232448"
            "OCC * (${smem} + 1024) <= 233472"
            "SPLIT_REGS == 1 or ${regs} * (((4 * CONSUMERS + 1) * OCC + 3) // 4) <= 512"
            "SPLIT_REGS == 0 or (CONSUMERS >= 2 and OCC == 1 and ${regs} <= 240 - 80 * (CONSUMERS - 2))"
            "PINGPONG == 0 or (PIPELINE == 1 and CONSUMERS >= 2)"
    DEFAULT "CONSUMERS=2 TILE_N=128 STAGES=2 OCC=1 PIPELINE=0 PINGPONG=0 SPLIT_REGS=0"
    FLAGS   -DHEAD_DIM=${D} -O3 -lineinfo
    ARCH    90a
    ENTRY   fmha_wgmma_d${D}
    KEYS    ${ARGN}
    HARNESS ${CMAKE_CURRENT_LIST_DIR}/fmha_harness.cpp)
  _fmha_tuner_options(fmha_wgmma_d${D} ${D} FMHA_WGMMA=1)
endfunction()

if(KTUNE_EXAMPLE_FMHA_WGMMA)
  _fmha_wgmma_add_kernel(64 ${_fmha_keys_64})
  _fmha_wgmma_add_kernel(128 ${_fmha_keys_128})
endif()

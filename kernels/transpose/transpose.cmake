# Out-of-place fp32 transpose through shared-memory tiles (included by kernels/CMakeLists.txt).
ktune_add_kernel(transpose
  SOURCE  ${CMAKE_CURRENT_LIST_DIR}/transpose.cu
  PARAMS  "TILE=16,32,64" "BLOCK_Y=2,4,8,16,32" "PAD=0,1" "VEC=1,2,4" "OCC=1,2,4"
  WHERE   "BLOCK_Y <= TILE"
          # The block, (TILE / VEC) x BLOCK_Y threads, between a warp and the hardware limit.
          "32 <= TILE // VEC * BLOCK_Y <= 1024"
          # The occupancy hint only where it changes the register budget (below 64 per thread).
          "OCC == 1 or 1024 <= TILE // VEC * BLOCK_Y * OCC <= 2048"
  DEFAULT "TILE=32 BLOCK_Y=8 PAD=1 VEC=1 OCC=1"
  FLAGS   -O3 -lineinfo
  KEYS    "ROWS=8192 COLS=8192" "ROWS=4096 COLS=16384" "ROWS=65536 COLS=64"
          "ROWS=1000 COLS=3000"   # edge tiles on both sides (not multiples of any TILE)
          "ROWS=2047 COLS=1025"   # odd sizes: the scalar path of every config
  HARNESS ${CMAKE_CURRENT_LIST_DIR}/transpose_harness.cpp
  STRATEGY genetic  # a budget per key: the examples are tuned within a build's time
  BUDGET   40
  SEED     1
  DB_DIRS  ${KTUNE_ROOT}/generated/transpose)  # tuned on the H200 and H100, used without a GPU

# Row-wise softmax, fp32 and bf16 from one source (included by kernels/CMakeLists.txt).
# The two variants share the space except VEC, whose bound is 16 bytes per load: 4 fp32,
# 8 bf16. Whether the best row tile grows as the type shrinks is what the tuner shows.
set(_softmax_where
  # A row gets BLOCK / ROWS_PER_BLOCK threads: at least 8 (a shuffle group).
  "BLOCK // ROWS_PER_BLOCK >= 8"
  # The occupancy hint only where it changes the register budget (below 64 per thread).
  "OCC == 1 or 1024 <= BLOCK * OCC <= 2048"
  # 32 registers per thread (2048 threads per SM) leave no room for a cached row.
  "not (CACHE_ROW == 1 and BLOCK * OCC >= 2048)")
set(_softmax_keys
  "ROWS=16384 COLS=1024" "ROWS=4096 COLS=4096" "ROWS=1024 COLS=16384"
  "ROWS=65536 COLS=128"
  "ROWS=8192 COLS=1000"   # not a multiple of any row tile: partial last passes
  "ROWS=2048 COLS=999")   # not a multiple of VEC: rows start at every offset of a pack

# One variant: its name, SOFTMAX_BF16 and the VEC values whose loads are 16 bytes at most.
function(_softmax_add_kernel type bf16 vec)
  ktune_add_kernel(softmax_${type}
    SOURCE  ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/softmax.cu
    ENTRY   softmax_${type}
    PARAMS  "BLOCK=64,128,256,512,1024" "ROWS_PER_BLOCK=1,2,4,8,16" "VEC=${vec}"
            "CACHE_ROW=0,1" "OCC=1,2,4"
    WHERE   ${_softmax_where}
    DEFAULT "BLOCK=256 ROWS_PER_BLOCK=1 VEC=4 CACHE_ROW=0 OCC=1"
    FLAGS   -DSOFTMAX_BF16=${bf16} -O3 -lineinfo
    KEYS    ${_softmax_keys}
    HARNESS ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/softmax_harness.cpp
    STRATEGY genetic  # a budget per key: the examples are tuned within a build's time
    BUDGET   40
    SEED     1
    DB_DIRS  ${KTUNE_ROOT}/generated/softmax_${type})  # tuned on the H200 and H100, used without a GPU
  target_compile_definitions(ktune_softmax_${type}_tuner PRIVATE SOFTMAX_BF16=${bf16})
endfunction()

_softmax_add_kernel(f32 0 "1,2,4")
_softmax_add_kernel(bf16 1 "1,2,4,8")

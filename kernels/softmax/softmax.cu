// Row-wise softmax of a row-major [rows, cols] matrix, numerically stable: the ktune example
// of a memory-bound space whose best tile depends on the element type.
// One source, two variants: SOFTMAX_BF16=0 (fp32 in and out, entry softmax_f32) and
// SOFTMAX_BF16=1 (bf16 in and out, fp32 math, entry softmax_bf16).
// Tunable parameters arrive as macros:
//   BLOCK           threads per block
//   ROWS_PER_BLOCK  rows a block handles; each row gets BLOCK / ROWS_PER_BLOCK threads (>= 8)
//   VEC             elements per vector load (VEC * element size <= 16 bytes)
//   CACHE_ROW       1: each thread keeps up to 128 bytes of its part of the row in registers
//                   (what does not fit is read again); 0: the row is read twice
//   OCC             minimum resident blocks per SM (__launch_bounds__ occupancy hint)
// Launch: grid ceil(rows / ROWS_PER_BLOCK), block BLOCK, no dynamic shared memory.
//
// One pass computes the row's max and sum together (online softmax: the running sum is
// rescaled when the max grows), so the row is reduced once; a second pass writes the output.
// Every row is vectorised, whatever its length and start: the packs of a row are the whole
// VEC-aligned ones inside it, and the few elements before the first and after the last
// (fewer than VEC each) are read one by one by the row's first threads. With cols not a
// multiple of VEC (2048 x 999) the rows start at every offset; a copy kernel reads them at
// full width, and so must softmax. Only x and y misaligned against each other (not from one
// allocator) take the scalar path, so every config is correct for every shape.
#include <cuda_bf16.h>

#include <cfloat>
#include <cstdint>

#ifndef SOFTMAX_BF16
#error "SOFTMAX_BF16 must be defined: 0 (fp32) or 1 (bf16), e.g. -DSOFTMAX_BF16=1"
#endif
#ifndef BLOCK
#error "BLOCK (threads per block) must be defined, e.g. -DBLOCK=256"
#endif
#ifndef ROWS_PER_BLOCK
#error "ROWS_PER_BLOCK (rows per block) must be defined, e.g. -DROWS_PER_BLOCK=1"
#endif
#ifndef VEC
#error "VEC (elements per vector load) must be defined, e.g. -DVEC=4"
#endif
#ifndef CACHE_ROW
#error "CACHE_ROW (0: read the row twice, 1: keep it in registers) must be defined, e.g. -DCACHE_ROW=1"
#endif
#ifndef OCC
#define OCC 1
#endif

#if SOFTMAX_BF16
using T = __nv_bfloat16;
#define SOFTMAX_ENTRY softmax_bf16
#else
using T = float;
#define SOFTMAX_ENTRY softmax_f32
#endif

constexpr int kThreadsPerRow = BLOCK / ROWS_PER_BLOCK;
constexpr int kWarpsPerRow = kThreadsPerRow / 32;  // 0 when a row is a part of a warp
static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK must be a multiple of 32 in 32..1024");
static_assert(BLOCK % ROWS_PER_BLOCK == 0, "ROWS_PER_BLOCK must divide BLOCK");
static_assert(kThreadsPerRow >= 8 && (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
              "BLOCK / ROWS_PER_BLOCK must be a power of two >= 8 (shuffle groups)");
static_assert(VEC >= 1 && VEC * sizeof(T) <= 16 && (VEC & (VEC - 1)) == 0,
              "VEC must be a power of two of at most 16 bytes of elements");
static_assert(VEC <= kThreadsPerRow, "a row's edge elements (fewer than VEC) need a lane each");

// CACHE_ROW: 64 bytes of the row per thread in registers (16 registers; a 16-bit element
// alone still takes one). More would cost occupancy that a memory-bound kernel needs.
constexpr int kCacheRegs = 16;

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ void store_as(float& y, float v) { y = v; }
__device__ __forceinline__ void store_as(__nv_bfloat16& y, float v) { y = __float2bfloat16_rn(v); }

// V elements in one load or store; the alignment makes it a single vector instruction.
template <int V>
struct alignas(V * sizeof(T)) Pack {
  T v[V];
};

// By value: read through a reference, the compiler may split a pack into scalar loads.
template <int V>
__device__ __forceinline__ Pack<V> load(const Pack<V>* p) {
  return *p;
}

// Running (max, sum of exp(x - max)). -FLT_MAX rather than -inf as the empty max, so that
// combining two empty states gives exp(0) * 0 instead of exp(-inf + inf) = NaN.
struct MaxSum {
  float m = -FLT_MAX;
  float s = 0.0f;
  __device__ void add(const MaxSum& o) {
    const float nm = fmaxf(m, o.m);
    s = s * __expf(m - nm) + o.s * __expf(o.m - nm);
    m = nm;
  }
  template <int V>
  __device__ void add(const Pack<V>& p) {
    float pm = m;
#pragma unroll
    for (int j = 0; j < V; ++j) pm = fmaxf(pm, to_float(p.v[j]));
    s *= __expf(m - pm);  // one rescale per pack, not per element
#pragma unroll
    for (int j = 0; j < V; ++j) s += __expf(to_float(p.v[j]) - pm);
    m = pm;
  }
};

// Reduces the state over the row's threads: shuffles inside a warp, then, for rows wider
// than a warp, one exchange through shared memory that every warp of the row reduces again
// (no second barrier).
__device__ MaxSum reduce_row(MaxSum st, int lane_in_row, int row_in_block) {
  constexpr int kWidth = kThreadsPerRow < 32 ? kThreadsPerRow : 32;
#pragma unroll
  for (int off = kWidth / 2; off > 0; off /= 2) {
    MaxSum o;
    o.m = __shfl_xor_sync(0xffffffffu, st.m, off);
    o.s = __shfl_xor_sync(0xffffffffu, st.s, off);
    st.add(o);
  }
  if constexpr (kWarpsPerRow > 1) {
    __shared__ MaxSum partial[ROWS_PER_BLOCK][kWarpsPerRow > 1 ? kWarpsPerRow : 1];
    const int warp = lane_in_row / 32, lane = lane_in_row % 32;
    if (lane == 0) partial[row_in_block][warp] = st;
    __syncthreads();
    st = lane < kWarpsPerRow ? partial[row_in_block][lane] : MaxSum{};
#pragma unroll
    for (int off = kWarpsPerRow / 2; off > 0; off /= 2) {
      MaxSum o;
      o.m = __shfl_xor_sync(0xffffffffu, st.m, off);
      o.s = __shfl_xor_sync(0xffffffffu, st.s, off);
      st.add(o);
    }
    // The butterfly above spans lanes 0..kWarpsPerRow-1 only: give lane 0's result to all.
    st.m = __shfl_sync(0xffffffffu, st.m, 0);
    st.s = __shfl_sync(0xffffffffu, st.s, 0);
  }
  return st;
}

template <int V>
__device__ void write_pack(Pack<V>* y, const Pack<V>& x, float m, float inv_sum) {
  Pack<V> r;
#pragma unroll
  for (int j = 0; j < V; ++j) store_as(r.v[j], __expf(to_float(x.v[j]) - m) * inv_sum);
  *y = r;
}

// The row of this thread's group: `head` elements up to the first V-aligned one, then
// `packs` aligned packs of V elements, then `tail` elements. Thread `lane` of the row handles
// packs lane, lane + kThreadsPerRow, ...: consecutive threads read consecutive packs; the
// first kCached of them stay in registers between the two passes. Lanes below head and tail
// (both < V <= 8 <= kThreadsPerRow) take one edge element each, kept in registers too.
template <int V, int kCached>
__device__ void softmax_row(const T* __restrict__ x_row, T* __restrict__ y_row, int cols, int lane,
                            int row_in_block) {
  int head = 0;
  if constexpr (V > 1) {
    const int misaligned = static_cast<int>((reinterpret_cast<uintptr_t>(x_row) / sizeof(T)) % V);
    head = misaligned ? min(V - misaligned, cols) : 0;
  }
  const int packs = (cols - head) / V;
  const int tail = cols - head - packs * V;
  const Pack<V>* x = reinterpret_cast<const Pack<V>*>(x_row + head);
  Pack<V>* y = reinterpret_cast<Pack<V>*>(y_row + head);
  const int first_uncached = lane + kCached * kThreadsPerRow;

  MaxSum st;
  // The edge elements of this lane: index and value (unused where the lane has none).
  const int head_at = lane, tail_at = head + packs * V + lane;
  Pack<1> head_x, tail_x;
  if (V > 1 && lane < head) head_x = load(reinterpret_cast<const Pack<1>*>(x_row + head_at));
  if (V > 1 && lane < tail) tail_x = load(reinterpret_cast<const Pack<1>*>(x_row + tail_at));
  Pack<V> cache[kCached > 0 ? kCached : 1];
  if constexpr (kCached > 0) {
    // All loads first, so that they are in flight together.
#pragma unroll
    for (int k = 0; k < kCached; ++k) {
      const int p = lane + k * kThreadsPerRow;
      if (p < packs) cache[k] = load(x + p);
    }
#pragma unroll
    for (int k = 0; k < kCached; ++k)
      if (lane + k * kThreadsPerRow < packs) st.add(cache[k]);
  }
  if (V > 1 && lane < head) st.add(head_x);
  if (V > 1 && lane < tail) st.add(tail_x);
#pragma unroll 4
  for (int p = first_uncached; p < packs; p += kThreadsPerRow) st.add(load(x + p));

  st = reduce_row(st, lane, row_in_block);
  const float inv_sum = 1.0f / st.s;  // s >= 1: the max itself contributes exp(0)

  if (V > 1 && lane < head) write_pack(reinterpret_cast<Pack<1>*>(y_row + head_at), head_x, st.m, inv_sum);
  if (V > 1 && lane < tail) write_pack(reinterpret_cast<Pack<1>*>(y_row + tail_at), tail_x, st.m, inv_sum);
  if constexpr (kCached > 0) {
#pragma unroll
    for (int k = 0; k < kCached; ++k) {
      const int p = lane + k * kThreadsPerRow;
      if (p < packs) write_pack(&y[p], cache[k], st.m, inv_sum);
    }
  }
  // The second read of a row mostly hits L2: the row was read moments ago.
#pragma unroll 4
  for (int p = first_uncached; p < packs; p += kThreadsPerRow)
    write_pack(&y[p], load(x + p), st.m, inv_sum);
}

extern "C" __global__ void __launch_bounds__(BLOCK, OCC)
SOFTMAX_ENTRY(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
  const int row_in_block = threadIdx.x / kThreadsPerRow;
  const int lane = threadIdx.x % kThreadsPerRow;
  const int row = blockIdx.x * ROWS_PER_BLOCK + row_in_block;
  // Threads past the last row still reach the barrier of reduce_row, with nothing to do.
  const int valid_cols = row < rows ? cols : 0;
  const T* x_row = x + static_cast<size_t>(row < rows ? row : 0) * cols;
  T* y_row = y + static_cast<size_t>(row < rows ? row : 0) * cols;
  constexpr unsigned kPackBytes = VEC * sizeof(T);
  constexpr int kPackRegs = (kPackBytes + 3) / 4;
  constexpr int kCached = CACHE_ROW ? kCacheRegs / kPackRegs : 0;
  // Uniform over the grid: a row of y starts as far from a pack boundary as its row of x
  // (so one head serves both) when x and y are misaligned alike.
  const bool vector_ok = (reinterpret_cast<uintptr_t>(x) - reinterpret_cast<uintptr_t>(y)) % kPackBytes == 0;
  if constexpr (VEC > 1) {
    if (!vector_ok) {
      // x and y misaligned against each other: plain loads, no cache (its registers would
      // count for every config, the kernel is allocated for its worst path).
      softmax_row<1, 0>(x_row, y_row, valid_cols, lane, row_in_block);
      return;
    }
  }
  softmax_row<VEC, kCached>(x_row, y_row, valid_cols, lane, row_in_block);
}

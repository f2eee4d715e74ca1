// Out-of-place transpose of a row-major [rows, cols] fp32 matrix into [cols, rows], through
// a shared-memory tile so that both the reads and the writes of global memory are coalesced.
// Tunable parameters arrive as macros:
//   TILE     the square tile a block moves (TILE x TILE elements)
//   BLOCK_Y  block height: the block is (TILE / VEC) x BLOCK_Y threads, each moving
//            TILE / BLOCK_Y rows of the tile
//   PAD      1: one extra column per tile row, so that reading a tile column hits 32 banks
//   VEC      elements per global load and store (1, 2, 4: up to 16 bytes)
//   OCC      minimum resident blocks per SM (__launch_bounds__ occupancy hint)
// Launch: grid (ceil(cols / TILE), ceil(rows / TILE)), block (TILE / VEC, BLOCK_Y), no
// dynamic shared memory (the tile is static: at most 64 x 65 floats).
//
// Edge tiles check every row and column. Vector accesses need rows and cols to be
// multiples of VEC (both are row lengths, of the input and of the output) and aligned
// pointers; otherwise the kernel takes the scalar path of the same code, so every config
// is correct for every shape.
#include <cstdint>

#ifndef TILE
#error "TILE (tile side) must be defined, e.g. -DTILE=32"
#endif
#ifndef BLOCK_Y
#error "BLOCK_Y (block height) must be defined, e.g. -DBLOCK_Y=8"
#endif
#ifndef PAD
#error "PAD (0 or 1: shared-memory padding column) must be defined, e.g. -DPAD=1"
#endif
#ifndef VEC
#error "VEC (elements per vector access) must be defined, e.g. -DVEC=1"
#endif
#ifndef OCC
#define OCC 1
#endif

constexpr int kThreadsX = TILE / VEC;
constexpr int kThreads = kThreadsX * BLOCK_Y;
constexpr int kRowStride = TILE + PAD;
static_assert(VEC == 1 || VEC == 2 || VEC == 4, "VEC must be 1, 2 or 4 (16 bytes of fp32 at most)");
static_assert(TILE % VEC == 0 && TILE % BLOCK_Y == 0, "VEC and BLOCK_Y must divide TILE");
static_assert(kThreads >= 32 && kThreads <= 1024, "the block (TILE / VEC) * BLOCK_Y must hold 32..1024 threads");

template <int V>
struct alignas(V * sizeof(float)) Pack {
  float v[V];
};

// V = VEC: thread x moves the pack at column x * VEC of a tile row. V = 1 (the scalar path):
// it moves columns x, x + TILE / VEC, ..., so consecutive threads still touch consecutive
// addresses.
template <int V>
__device__ __forceinline__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out,
                                               int rows, int cols, float (*tile)[kRowStride]) {
  constexpr int kPacks = VEC / V;  // packs per thread per tile row
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
  // Interior tiles skip the bounds checks (uniform over the block).
  const bool full = r0 + TILE <= rows && c0 + TILE <= cols;

#pragma unroll
  for (int i = 0; i < TILE / BLOCK_Y; ++i) {
    const int r = threadIdx.y + i * BLOCK_Y;
#pragma unroll
    for (int q = 0; q < kPacks; ++q) {
      const int c = (threadIdx.x + q * kThreadsX) * V;
      // cols % V == 0 here: a pack is wholly inside the matrix or wholly outside.
      if (full || (r0 + r < rows && c0 + c < cols)) {
        const Pack<V> p = *reinterpret_cast<const Pack<V>*>(in + size_t(r0 + r) * cols + c0 + c);
#pragma unroll
        for (int j = 0; j < V; ++j) tile[r][c + j] = p.v[j];
      }
    }
  }
  __syncthreads();
  // Tile row r becomes output column r0 + r: the block writes output rows c0 + r, reading
  // the tile by columns.
#pragma unroll
  for (int i = 0; i < TILE / BLOCK_Y; ++i) {
    const int r = threadIdx.y + i * BLOCK_Y;
#pragma unroll
    for (int q = 0; q < kPacks; ++q) {
      const int c = (threadIdx.x + q * kThreadsX) * V;
      if (full || (c0 + r < cols && r0 + c < rows)) {
        Pack<V> p;
#pragma unroll
        for (int j = 0; j < V; ++j) p.v[j] = tile[c + j][r];
        *reinterpret_cast<Pack<V>*>(out + size_t(c0 + r) * rows + r0 + c) = p;
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(kThreads, OCC)
transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE][kRowStride];
  if constexpr (VEC > 1) {
    // Uniform over the grid: every input row and output row starts on a pack boundary.
    constexpr unsigned kPackBytes = VEC * sizeof(float);
    const bool vector_ok = rows % VEC == 0 && cols % VEC == 0 &&
                           reinterpret_cast<uintptr_t>(in) % kPackBytes == 0 &&
                           reinterpret_cast<uintptr_t>(out) % kPackBytes == 0;
    if (!vector_ok) {
      transpose_tile<1>(in, out, rows, cols, tile);
      return;
    }
  }
  transpose_tile<VEC>(in, out, rows, cols, tile);
}

// Fused multi-head attention forward, flash-attention style, the ktune example space.
// O = softmax(Q K^T / sqrt(D) [+ causal mask]) V for Q, K, V, O of shape [BH, S, D], fp16,
// row-major; fp32 accumulation. One block takes TILE_M query rows of one head and streams
// the keys in tiles of TILE_N, keeping a running row max and sum (online softmax), so the
// S×S score matrix never leaves registers. Tensor cores: mma.sync m16n8k16 (fp16 in, fp32
// accumulate) for Q·K^T and P·V, operands from shared memory through ldmatrix; K and V tiles
// arrive through cp.async, STAGES deep.
//
// Compile-time: HEAD_DIM (64 or 128) picks the entry point fmha_d<HEAD_DIM>.
// Tunable parameters arrive as macros:
//   TILE_M  query rows per block            TILE_N  keys per step
//   WARPS   warps per block; each owns TILE_M/WARPS rows (a multiple of 16)
//   STAGES  K/V tiles in flight (1: K of the next step loads during P·V, V during Q·K^T)
//   QREG    1: Q's fragments stay in registers; 0: re-read from shared memory every step
//   OCC     minimum resident blocks per SM (__launch_bounds__)
//   num_ctas  cluster size, set by the launcher; the kernel only skips padding blocks
// Launch (fmha_launch.hpp): grid (ceil(S/TILE_M) rounded up to num_ctas, BH), block
// WARPS*32, dynamic shared memory (TILE_M + 2*STAGES*TILE_N) * HEAD_DIM * 2 bytes.
// Arguments: (const __half* Q, const __half* K, const __half* V, __half* O, int S, int causal).
#include <cuda_fp16.h>

#include <cstdint>

#ifndef HEAD_DIM
#error "HEAD_DIM (head dimension, 64 or 128) must be defined, e.g. -DHEAD_DIM=64"
#endif
#ifndef TILE_M
#error "TILE_M (query rows per block) must be defined, e.g. -DTILE_M=64"
#endif
#ifndef TILE_N
#error "TILE_N (keys per step) must be defined, e.g. -DTILE_N=64"
#endif
#ifndef WARPS
#error "WARPS (warps per block) must be defined, e.g. -DWARPS=4"
#endif
#ifndef STAGES
#define STAGES 1
#endif
#ifndef QREG
#define QREG 0
#endif
#ifndef OCC
#define OCC 1
#endif

#define FMHA_CAT2(a, b) a##b
#define FMHA_CAT(a, b) FMHA_CAT2(a, b)
#define FMHA_ENTRY FMHA_CAT(fmha_d, HEAD_DIM)

namespace {

constexpr int D = HEAD_DIM;
constexpr int kThreads = WARPS * 32;
constexpr int kWarpRows = TILE_M / WARPS;  // query rows of one warp
constexpr int kMT = kWarpRows / 16;        // m16 tiles of one warp
constexpr int kNT = TILE_N / 8;            // n8 tiles of the scores (keys)
constexpr int kKD = D / 16;                // k16 steps over the head dimension
constexpr int kDT = D / 8;                 // n8 tiles of the output (head dimension)
constexpr int kChunks = D / 8;             // 16-byte chunks in one row

static_assert(D == 64 || D == 128, "HEAD_DIM must be 64 or 128");
static_assert(TILE_M % WARPS == 0 && kWarpRows % 16 == 0, "TILE_M / WARPS must be a multiple of 16");
static_assert(TILE_N % 16 == 0, "TILE_N must be a multiple of 16");
static_assert(STAGES >= 1, "STAGES must be at least 1");
// The tile loaders give every thread the same number of 16-byte copies.
static_assert(TILE_N * kChunks % kThreads == 0 && TILE_M * kChunks % kThreads == 0,
              "tiles must split evenly over the block's threads");

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Element offset of (row, 16-byte chunk) in a [rows][D] tile. XOR-ing the chunk with the
// row spreads the 8 rows that one ldmatrix (or cp.async wave) touches over all 32 banks.
__device__ __forceinline__ int swizzle(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}

__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, bool valid) {
  // src-size 0 zero-fills: rows past S read nothing and contribute nothing.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Rows [row0, row0 + ROWS) of a [S][D] matrix into a swizzled tile; rows past S are zeros.
// A thread copies the same chunk of rows kRowStep apart: its swizzle is fixed.
template <int ROWS>
__device__ __forceinline__ void load_tile(__half* tile, const __half* g, int row0, int S, int tid) {
  constexpr int kRowStep = kThreads / kChunks;
  static_assert(kRowStep % 8 == 0, "a thread's rows must share their swizzle");
  const int r = tid / kChunks, c = tid % kChunks;
  const uint32_t dst = smem_addr(tile) + 2 * swizzle(r, c);
  const __half* src = g + (size_t)(row0 + r) * D + c * 8;
#pragma unroll
  for (int it = 0; it < ROWS / kRowStep; ++it) {
    const bool valid = row0 + r + it * kRowStep < S;
    cp_async_16(dst + 2 * it * kRowStep * D, valid ? src + (size_t)it * kRowStep * D : g, valid);
  }
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// c += a (16x16, row) * b (16x8, col), fp16 in, fp32 accumulate.
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                          uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}

// Byte offsets, for one lane, of the 16-byte chunks that an ldmatrix.x4 reads at chunk
// pair 2*i (i = 0..3) of rows row_lane (the lane's row within the 8-aligned block), with
// half the lanes one chunk to the right. The swizzle of chunk 8*q + 2*i + x is then
// 8*q + ((2*i + x) ^ (row & 7)): 4 offsets per lane, and everything else is a constant
// added to them, so the unrolled loops need no address arithmetic.
__device__ __forceinline__ void chunk_offsets(uint32_t (&off)[4], int row_lane, int x) {
#pragma unroll
  for (int i = 0; i < 4; ++i) off[i] = 2 * (row_lane * D) + 16 * ((2 * i) ^ (x ^ (row_lane & 7)));
}
// Byte offset of chunk pair kk (16 columns) for offsets made by chunk_offsets.
__device__ __forceinline__ uint32_t chunk_pair(const uint32_t (&off)[4], int kk) {
  return off[kk % 4] + 128 * (kk / 4);
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads, OCC)
FMHA_ENTRY(const __half* __restrict__ Q, const __half* __restrict__ K,
           const __half* __restrict__ V, __half* __restrict__ O, int S, int causal) {
  extern __shared__ __align__(128) unsigned char smem[];
  __half* sQ = reinterpret_cast<__half*>(smem);
  __half* sK = sQ + TILE_M * D;
  __half* sV = sK + STAGES * TILE_N * D;

  // The last query tiles have the most keys under a causal mask: start them first.
  const int m0 = (gridDim.x - 1 - blockIdx.x) * TILE_M;
  if (m0 >= S) return;  // padding of the grid to whole clusters
  const size_t head = (size_t)blockIdx.y * S * D;
  Q += head;
  K += head;
  V += head;
  O += head;

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t4 = lane % 4;  // the mma's row group and column pair
  const int wr0 = warp * kWarpRows;       // the warp's first row in the tile
  const int n_end = causal ? min(S, m0 + TILE_M) : S;
  const int n_tiles = (n_end + TILE_N - 1) / TILE_N;
  const float scale_log2 = rsqrtf(float(D)) * 1.4426950408889634f;

  const uint32_t sQa = smem_addr(sQ), sKa = smem_addr(sK), sVa = smem_addr(sV);
  constexpr uint32_t kTileBytes = TILE_N * D * 2;
  constexpr uint32_t kRow16 = 16 * D * 2;  // bytes of 16 rows
  // ldmatrix lanes: Q (A operand) rows 0-15, columns +8 for lanes 16-31; K (B operand,
  // two n8 tiles) rows 0-7 and 8-15 from lanes 0-7/16-23 and 8-15/24-31, columns +8 for
  // lanes 8-15 and 24-31; V (B operand, transposed) rows +8 for lanes 8-15 and 24-31,
  // columns +8 for lanes 16-31.
  uint32_t q_off[4], k_off[4], v_off[4];
  chunk_offsets(q_off, wr0 + (lane & 15), lane >> 4);
  chunk_offsets(k_off, (lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1);
  chunk_offsets(v_off, (lane & 7) + (((lane >> 3) & 1) << 3), lane >> 4);

  // Commit groups go K(0), V(0), K(1), V(1), ...; K(t) and V(t) are issued STAGES-1 tiles
  // ahead of their use, so a wait leaves the 2*(STAGES-1) newest groups in flight.
  load_tile<TILE_M>(sQ, Q, m0, S, tid);
  cp_async_commit();
  load_tile<TILE_N>(sK, K, 0, S, tid);
  cp_async_commit();
#pragma unroll
  for (int t = 0; t < STAGES - 1; ++t) {
    if (t < n_tiles) load_tile<TILE_N>(sV + t * TILE_N * D, V, t * TILE_N, S, tid);
    cp_async_commit();
    if (t + 1 < n_tiles) load_tile<TILE_N>(sK + (t + 1) * TILE_N * D, K, (t + 1) * TILE_N, S, tid);
    cp_async_commit();
  }

  float acc[kMT][kDT][4];
  float row_max[kMT][2], row_sum[kMT][2];  // per thread: rows g and g+8 of each m-tile
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int dt = 0; dt < kDT; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][dt][e] = 0.f;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      row_max[mt][h] = -INFINITY;
      row_sum[mt][h] = 0.f;
    }
  }

#if QREG
  // Q's group is the oldest: wait for it alone, then keep its fragments for every step.
  uint32_t qf[kMT][kKD][4];
  cp_async_wait<1 + 2 * (STAGES - 1)>();
  __syncthreads();
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int kk = 0; kk < kKD; ++kk) ldmatrix_x4(qf[mt][kk], sQa + chunk_pair(q_off, kk) + mt * kRow16);
#endif

  for (int j = 0; j < n_tiles; ++j) {
    const int stage = j % STAGES;
    const int n0 = j * TILE_N;
    cp_async_wait<2 * (STAGES - 1)>();  // K(j) (and Q) landed
    __syncthreads();                    // ... for every thread; V(j-1)'s buffer is free
    {
      const int t = j + STAGES - 1;
      if (t < n_tiles) load_tile<TILE_N>(sV + (t % STAGES) * TILE_N * D, V, t * TILE_N, S, tid);
      cp_async_commit();
    }
    // A warp whose rows all lie above the tile's first key (causal) has nothing to add.
    const bool active = !causal || n0 <= m0 + wr0 + kWarpRows - 1;
    uint32_t p[kMT][kNT / 2][4];
    if (active) {
      // Scores S = Q K^T for the warp's rows and this tile's keys.
      float s[kMT][kNT][4];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) s[mt][nt][e] = 0.f;
      const uint32_t kTile = sKa + stage * kTileBytes;
#pragma unroll
      for (int kk = 0; kk < kKD; ++kk) {
        uint32_t a[kMT][4];
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
#if QREG
#pragma unroll
          for (int e = 0; e < 4; ++e) a[mt][e] = qf[mt][kk][e];
#else
          ldmatrix_x4(a[mt], sQa + chunk_pair(q_off, kk) + mt * kRow16);
#endif
        }
#pragma unroll
        for (int np = 0; np < kNT / 2; ++np) {
          // Keys np*16..+15 as two B fragments: K rows are B's columns, no transpose.
          uint32_t b[4];
          ldmatrix_x4(b, kTile + chunk_pair(k_off, kk) + np * kRow16);
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) {
            mma_16816(s[mt][2 * np], a[mt], b[0], b[1]);
            mma_16816(s[mt][2 * np + 1], a[mt], b[2], b[3]);
          }
        }
      }

      // Mask keys past S and, under causal, keys after the row; only tiles that need it.
      if (n0 + TILE_N > S || (causal && n0 + TILE_N - 1 > m0 + wr0)) {
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int row = m0 + wr0 + mt * 16 + g + (e >= 2 ? 8 : 0);
              const int col = n0 + nt * 8 + 2 * t4 + (e & 1);
              if (col >= S || (causal && col > row)) s[mt][nt][e] = -INFINITY;
            }
      }

      // Online softmax: rescale what was summed so far to the new running max.
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float mx = -INFINITY;
#pragma unroll
          for (int nt = 0; nt < kNT; ++nt) mx = fmaxf(mx, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
          // A row's values sit in the 4 lanes of its quad.
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
          const float m_new = fmaxf(row_max[mt][h], mx);
          // A row with every key masked so far keeps exp2(-inf) = 0 rather than NaN.
          const float base = m_new == -INFINITY ? 0.f : m_new * scale_log2;
          const float alpha = exp2_approx(row_max[mt][h] * scale_log2 - base);
          row_max[mt][h] = m_new;
          float sum = 0.f;
#pragma unroll
          for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
            for (int e = 2 * h; e < 2 * h + 2; ++e) {
              const float pe = exp2_approx(s[mt][nt][e] * scale_log2 - base);
              s[mt][nt][e] = pe;
              sum += pe;
            }
          // The quad's partial sums are added once, at the end.
          row_sum[mt][h] = row_sum[mt][h] * alpha + sum;
#pragma unroll
          for (int dt = 0; dt < kDT; ++dt) {
            acc[mt][dt][2 * h] *= alpha;
            acc[mt][dt][2 * h + 1] *= alpha;
          }
        }

      // P in fp16 as A fragments: the accumulator layout of two n8 tiles is the A layout
      // of one k16 step, so no shuffles.
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int kp = 0; kp < kNT / 2; ++kp) {
          p[mt][kp][0] = pack_half2(s[mt][2 * kp][0], s[mt][2 * kp][1]);
          p[mt][kp][1] = pack_half2(s[mt][2 * kp][2], s[mt][2 * kp][3]);
          p[mt][kp][2] = pack_half2(s[mt][2 * kp + 1][0], s[mt][2 * kp + 1][1]);
          p[mt][kp][3] = pack_half2(s[mt][2 * kp + 1][2], s[mt][2 * kp + 1][3]);
        }
    }

    cp_async_wait<2 * (STAGES - 1)>();  // V(j) landed
    __syncthreads();                    // ... for every thread; K(j)'s buffer is free
    {
      const int t = j + STAGES;
      if (t < n_tiles) load_tile<TILE_N>(sK + stage * TILE_N * D, K, t * TILE_N, S, tid);
      cp_async_commit();
    }

    if (active) {
      // O += P V: V rows are B's k dimension, so ldmatrix transposes.
      const uint32_t vTile = sVa + stage * kTileBytes;
#pragma unroll
      for (int kp = 0; kp < kNT / 2; ++kp) {
#pragma unroll
        for (int dp = 0; dp < kDT / 2; ++dp) {
          uint32_t b[4];
          ldmatrix_x4_trans(b, vTile + chunk_pair(v_off, dp) + kp * kRow16);
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) {
            mma_16816(acc[mt][2 * dp], p[mt][kp], b[0], b[1]);
            mma_16816(acc[mt][2 * dp + 1], p[mt][kp], b[2], b[3]);
          }
        }
      }
    }
  }
  cp_async_wait<0>();  // only empty groups are left; none may outlive the block

  // Normalise, stage the warp's rows in its own part of sQ (no other warp reads them),
  // then write whole 16-byte chunks to O.
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float l = row_sum[mt][h];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = l > 0.f ? 1.f / l : 0.f;
      const int row = wr0 + mt * 16 + g + 8 * h;
#pragma unroll
      for (int dt = 0; dt < kDT; ++dt) {
        const uint32_t v = pack_half2(acc[mt][dt][2 * h] * inv, acc[mt][dt][2 * h + 1] * inv);
        *reinterpret_cast<uint32_t*>(sQ + swizzle(row, dt) + 2 * t4) = v;
      }
    }
  __syncwarp();
#pragma unroll
  for (int it = 0; it < kWarpRows * kChunks / 32; ++it) {
    const int i = it * 32 + lane;
    const int r = i / kChunks, c = i % kChunks;
    const int row = m0 + wr0 + r;
    if (row < S)
      *reinterpret_cast<uint4*>(O + (size_t)row * D + c * 8) =
          *reinterpret_cast<const uint4*>(sQ + swizzle(wr0 + r, c));
  }
}

// fp16 / bf16 tensor-core GEMM with fp32 accumulation, C = A * B, the ktune example space.
// Row-major A (M×K), B (K×N) and C (M×N); C has the inputs' type (rounded to nearest).
// Requires K % 8 == 0 and N % 8 == 0 (rows of 16 bytes for cp.async) and 16-byte aligned
// A, B, C; M is free. Loads beyond the matrices are zero-filled, stores are guarded.
//
// One source, two kernels: HGEMM_BF16=0 defines hgemm_f16, HGEMM_BF16=1 hgemm_bf16.
// Tunable parameters arrive as macros:
//   BM, BN, BK   block tile (rows of C, columns of C, depth of one pipeline stage)
//   WM, WN       warp tile; (BM/WM)*(BN/WN) warps a block
//   STAGES       shared-memory buffers of the cp.async pipeline (2..5)
//   GROUP_M      block rasterisation: GROUP_M rows of tiles walked column by column, so
//                neighbouring blocks share A and B tiles in L2 (1: plain row-major order)
//   OCC          minimum resident blocks per SM (__launch_bounds__ occupancy hint)
//   num_ctas     thread block cluster size along x (1 or 2), set by the launcher
// Launch (hgemm_launch.hpp): 1-D grid of cdiv(M,BM)*cdiv(N,BN) blocks rounded up to a
// multiple of num_ctas, block (BM/WM)*(BN/WN)*32, STAGES*(BM*BK+BK*BN)*2 bytes of dynamic
// shared memory. The C tile leaves through those buffers (16-byte stores) when it fits in
// them, else straight from the accumulators (4-byte stores).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#ifndef HGEMM_BF16
#define HGEMM_BF16 0
#endif
#ifndef BM
#error "BM (block tile rows) must be defined, e.g. -DBM=128"
#endif
#ifndef BN
#error "BN (block tile columns) must be defined, e.g. -DBN=128"
#endif
#ifndef BK
#error "BK (block tile depth) must be defined, e.g. -DBK=32"
#endif
#ifndef WM
#error "WM (warp tile rows) must be defined, e.g. -DWM=64"
#endif
#ifndef WN
#error "WN (warp tile columns) must be defined, e.g. -DWN=64"
#endif
#ifndef STAGES
#error "STAGES (pipeline depth, 2..5) must be defined, e.g. -DSTAGES=3"
#endif
#ifndef GROUP_M
#error "GROUP_M (rasterisation group, 1 = row-major order) must be defined, e.g. -DGROUP_M=8"
#endif
#ifndef OCC
#error "OCC (minimum blocks per SM) must be defined, e.g. -DOCC=1"
#endif
#ifndef num_ctas
#error "num_ctas (cluster size along x, 1 or 2) must be defined, e.g. -Dnum_ctas=1"
#endif

#if HGEMM_BF16
#define HGEMM_ENTRY hgemm_bf16
#define HGEMM_PTX_TYPE "bf16"
using elem_t = __nv_bfloat16;
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}
#else
#define HGEMM_ENTRY hgemm_f16
#define HGEMM_PTX_TYPE "f16"
using elem_t = __half;
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}
#endif

namespace {

constexpr int kWarpsM = BM / WM;
constexpr int kWarpsN = BN / WN;
constexpr int kThreads = kWarpsM * kWarpsN * 32;
constexpr int kMI = WM / 16;  // m16 tiles of a warp
constexpr int kNI = WN / 8;   // n8 tiles of a warp
// Shared tiles are stored in 16-byte chunks (8 elements): A as BM rows of BK, B as BK rows of BN.
constexpr int kAChunksRow = BK / 8;
constexpr int kBChunksRow = BN / 8;
constexpr int kAChunks = BM * kAChunksRow;
constexpr int kBChunks = BK * kBChunksRow;
constexpr int kAIters = (kAChunks + kThreads - 1) / kThreads;
constexpr int kBIters = (kBChunks + kThreads - 1) / kThreads;
constexpr uint32_t kAStageBytes = BM * BK * 2;
constexpr uint32_t kBStageBytes = BK * BN * 2;
// The C tile goes out through shared memory when the pipeline's buffers can hold it.
constexpr bool kStagedEpilogue = BM * BN * 2 <= STAGES * (kAStageBytes + kBStageBytes);

static_assert(BM % WM == 0 && BN % WN == 0, "the block tile must be a whole number of warp tiles");
static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles are made of m16n8k16 tiles (WN: pairs of n8)");
static_assert(BK % 16 == 0 && BK <= 64, "BK is a multiple of the mma depth 16, at most 64");
static_assert(kThreads >= 32 && kThreads <= 1024, "threads a block out of range");
static_assert(STAGES >= 2 && STAGES <= 5, "STAGES is 2..5");
static_assert(GROUP_M >= 1, "GROUP_M is at least 1");
static_assert(num_ctas == 1 || num_ctas == 2, "num_ctas is 1 or 2");
// Each thread copies the same column chunk in every row it loads (see the loaders).
static_assert(kThreads % kAChunksRow == 0 && kThreads % kBChunksRow == 0, "rows wider than a block");

__host__ __device__ constexpr int log2i(int v) { return v <= 1 ? 0 : 1 + log2i(v / 2); }

// Bank-conflict avoidance: ldmatrix reads one 16-byte chunk from each of 8 consecutive rows,
// and those 8 chunks must fall in 8 different 16-byte bank groups of a 128-byte line. The
// chunk index is XORed with a key taken from the row: with 8 or more chunks a row the
// key is row % 8; with fewer, 8/chunks rows share a line and the key separates the rows
// that would otherwise land on the same group. The key depends only on row % 8.
template <int kChunksRow>
__device__ __forceinline__ int swizzle_key(int row) {
  if constexpr (kChunksRow >= 8) return row & 7;
  else return (row >> log2i(8 / kChunksRow)) & (kChunksRow - 1);
}
template <int kChunksRow>
__device__ __forceinline__ uint32_t swizzled_offset(int row, int chunk) {  // bytes
  return static_cast<uint32_t>(row * kChunksRow + (chunk ^ swizzle_key<kChunksRow>(row))) * 16u;
}

// 16 bytes global -> shared without a register round trip; src_bytes 0 fills zeros.
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
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

__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32." HGEMM_PTX_TYPE "." HGEMM_PTX_TYPE ".f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads, OCC)
HGEMM_ENTRY(const elem_t* __restrict__ A, const elem_t* __restrict__ B, elem_t* __restrict__ C,
            int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem[];

  // Block -> tile, grouped: GROUP_M tile rows are walked column by column so that the
  // blocks resident at once reuse a few A row panels and B column panels from L2.
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int pid = blockIdx.x;
  if (pid >= tiles_m * tiles_n) return;  // the grid is rounded up to whole clusters
  const int per_group = GROUP_M * tiles_n;
  const int group = pid / per_group;
  const int first_m = group * GROUP_M;
  const int group_rows = min(tiles_m - first_m, GROUP_M);
  const int in_group = pid - group * per_group;
  const int m0 = (first_m + in_group % group_rows) * BM;
  const int n0 = (in_group / group_rows) * BN;

  const int tid = threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5;
  const int wm0 = (warp / kWarpsN) * WM, wn0 = (warp % kWarpsN) * WN;

  const uint32_t smem_a = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const uint32_t smem_b = smem_a + STAGES * kAStageBytes;

  // Loaders: thread tid copies column chunk tid % chunks_row of rows tid / chunks_row + i * step.
  // K % 8 == 0 and N % 8 == 0 make every chunk wholly inside or wholly outside the matrix.
  constexpr int kARowStep = kThreads / kAChunksRow;
  constexpr int kBRowStep = kThreads / kBChunksRow;
  const int a_row = tid / kAChunksRow, a_chunk = tid % kAChunksRow;
  const int b_row = tid / kBChunksRow, b_chunk = tid % kBChunksRow;
  const bool b_col_ok = n0 + b_chunk * 8 < N;

  auto load_tile = [&](int stage, int kt) {
    const int k0 = kt * BK;
    const bool a_k_ok = k0 + a_chunk * 8 < K;
#pragma unroll
    for (int i = 0; i < kAIters; ++i) {
      const int row = a_row + i * kARowStep;
      if (kAChunks % kThreads == 0 || row < BM) {
        const bool ok = a_k_ok && m0 + row < M;
        const elem_t* src = ok ? A + (size_t)(m0 + row) * K + k0 + a_chunk * 8 : A;
        cp_async16(smem_a + stage * kAStageBytes + swizzled_offset<kAChunksRow>(row, a_chunk), src, ok);
      }
    }
#pragma unroll
    for (int i = 0; i < kBIters; ++i) {
      const int row = b_row + i * kBRowStep;
      if (kBChunks % kThreads == 0 || row < BK) {
        const bool ok = b_col_ok && k0 + row < K;
        const elem_t* src = ok ? B + (size_t)(k0 + row) * N + n0 + b_chunk * 8 : B;
        cp_async16(smem_b + stage * kBStageBytes + swizzled_offset<kBChunksRow>(row, b_chunk), src, ok);
      }
    }
  };

  // ldmatrix addressing. A (x4): lanes 0-7 / 8-15 / 16-23 / 24-31 give the rows of the
  // 8x8 matrices (rows 0-7, k 0-7) (rows 8-15, k 0-7) (rows 0-7, k 8-15) (rows 8-15, k 8-15),
  // which is the m16n8k16 A fragment order a0..a3. B (x4.trans over row-major k x n):
  // (k 0-7, n 0-7) (k 8-15, n 0-7) (k 0-7, n 8-15) (k 8-15, n 8-15) give b0,b1 of two n8 tiles.
  // Every row a lane addresses is lane % 8 plus a multiple of 8, so its swizzle key is fixed.
  const int lrow = (lane & 7) + ((lane >> 3) & 1) * 8;
  const int lhi = lane >> 4;
  const int a_key = swizzle_key<kAChunksRow>(lane & 7);
  const int b_key = swizzle_key<kBChunksRow>(lane & 7);
  const uint32_t a_frag_base = static_cast<uint32_t>((wm0 + lrow) * kAChunksRow) * 16u;
  const uint32_t b_frag_base = static_cast<uint32_t>(lrow * kBChunksRow) * 16u;

  float acc[kMI][kNI][4];
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < kNI; ++ni)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mi][ni][r] = 0.f;

  const int ktiles = (K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) load_tile(s, s);
    cp_async_commit();  // empty groups keep the wait count uniform
  }

  int stage = 0;
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // tile kt has landed (for this thread's copies)...
    __syncthreads();              // ...and everyone's; also: all are done reading tile kt-1
    {
      const int next = kt + STAGES - 1;
      int next_stage = stage + STAGES - 1;
      if (next_stage >= STAGES) next_stage -= STAGES;
      if (next < ktiles) load_tile(next_stage, next);  // into the buffer tile kt-1 used
      cp_async_commit();
    }

    const uint32_t a_stage = smem_a + stage * kAStageBytes + a_frag_base;
    const uint32_t b_stage = smem_b + stage * kBStageBytes + b_frag_base;
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      uint32_t af[kMI][4];
      uint32_t bf[kNI / 2][4];
      const uint32_t a_col = static_cast<uint32_t>((kk * 2 + lhi) ^ a_key) * 16u;
#pragma unroll
      for (int mi = 0; mi < kMI; ++mi)
        ldmatrix_x4(af[mi], a_stage + mi * 16 * kAChunksRow * 16 + a_col);
#pragma unroll
      for (int nj = 0; nj < kNI / 2; ++nj) {
        const uint32_t b_col = static_cast<uint32_t>(((wn0 >> 3) + nj * 2 + lhi) ^ b_key) * 16u;
        ldmatrix_x4_trans(bf[nj], b_stage + kk * 16 * kBChunksRow * 16 + b_col);
      }
#pragma unroll
      for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
        for (int ni = 0; ni < kNI; ++ni)
          mma16816(acc[mi][ni], af[mi], bf[ni / 2][(ni & 1) * 2], bf[ni / 2][(ni & 1) * 2 + 1]);
    }
    if (++stage == STAGES) stage = 0;
  }
  cp_async_wait<0>();  // only empty groups remain; leave nothing in flight

  // Epilogue. The accumulator layout gives each lane two adjacent columns of rows g and
  // g + 8 (g = lane / 4); N even makes col < N cover col + 1 too.
  const int g = lane >> 2, t2 = (lane & 3) * 2;
  if constexpr (kStagedEpilogue) {
    // Through shared memory (the pipeline's buffers, now idle), so that global stores are
    // whole 16-byte chunks of a row instead of 4-byte pieces of 8 rows. The tile uses B's
    // swizzle (BN/8 chunks a row): the 8 rows a warp writes at once hit 8 bank groups.
    __syncthreads();  // every warp is done reading the last stage
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) {
      const int row = wm0 + mi * 16 + g;
#pragma unroll
      for (int ni = 0; ni < kNI; ++ni) {
        const int col = wn0 + ni * 8 + t2;
        const uint32_t within = static_cast<uint32_t>(col & 7) * 2u;
        *reinterpret_cast<uint32_t*>(smem + swizzled_offset<kBChunksRow>(row, col >> 3) + within) =
            pack2(acc[mi][ni][0], acc[mi][ni][1]);
        *reinterpret_cast<uint32_t*>(smem + swizzled_offset<kBChunksRow>(row + 8, col >> 3) + within) =
            pack2(acc[mi][ni][2], acc[mi][ni][3]);
      }
    }
    __syncthreads();
    constexpr int kCIters = (BM * kBChunksRow + kThreads - 1) / kThreads;
    const bool c_col_ok = n0 + b_chunk * 8 < N;  // each thread keeps one column chunk, as B's loader
#pragma unroll
    for (int i = 0; i < kCIters; ++i) {
      const int row = b_row + i * kBRowStep;
      if ((BM * kBChunksRow % kThreads == 0 || row < BM) && c_col_ok && m0 + row < M) {
        const uint4 v = *reinterpret_cast<const uint4*>(smem + swizzled_offset<kBChunksRow>(row, b_chunk));
        *reinterpret_cast<uint4*>(C + (size_t)(m0 + row) * N + n0 + b_chunk * 8) = v;
      }
    }
  } else {
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) {
      const int row = m0 + wm0 + mi * 16 + g;
#pragma unroll
      for (int ni = 0; ni < kNI; ++ni) {
        const int col = n0 + wn0 + ni * 8 + t2;
        if (col >= N) continue;
        if (row < M)
          *reinterpret_cast<uint32_t*>(C + (size_t)row * N + col) = pack2(acc[mi][ni][0], acc[mi][ni][1]);
        if (row + 8 < M)
          *reinterpret_cast<uint32_t*>(C + (size_t)(row + 8) * N + col) = pack2(acc[mi][ni][2], acc[mi][ni][3]);
      }
    }
  }
}

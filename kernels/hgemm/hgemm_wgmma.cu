// fp16 / bf16 GEMM on Hopper's warpgroup tensor-core instructions (wgmma), fp32 accumulation:
// C = A * B with the same problem contract as hgemm.cu (row-major A M×K, B K×N, C M×N,
// K % 8 == 0, N % 8 == 0, 16-byte aligned; M free; C in the inputs' type).
//
// One source, two kernels: HGEMM_BF16=0 defines hgemm_wgmma_f16, HGEMM_BF16=1 hgemm_wgmma_bf16.
// Tunable parameters arrive as macros:
//   BM, BN       block tile; the depth of a pipeline stage is fixed at 64 (one 128-byte
//                swizzle row of 16-bit elements)
//   WARPGROUPS   warpgroups of 128 threads (1 or 2), stacked along M: each computes
//                BM / WARPGROUPS rows (64 or 128: one or two m64nBNk16 per k16 step)
//   STAGES       shared-memory buffers of the cp.async pipeline (3..6); STAGES - 2 tiles
//                are in flight while one is multiplied and one may still be read
//   GROUP_M      block rasterisation, as in hgemm.cu
//   OCC          minimum resident blocks per SM (__launch_bounds__)
//   num_ctas     thread block cluster size along x (1 or 2), set by the launcher
// Launch (hgemm_wgmma_launch.hpp): 1-D grid of cdiv(M,BM)*cdiv(N,BN) blocks rounded up to a
// multiple of num_ctas, WARPGROUPS*128 threads, STAGES*(BM+BN)*128 + 1024 bytes of dynamic
// shared memory (the 1024: the swizzle atoms need 1024-byte alignment).
//
// Shared layouts are wgmma's 128-byte-swizzled canonical ones, written by cp.async:
//   A stage (K-major): BM rows of 64 elements, row r at r*128 bytes, its 16-byte chunk c at
//     chunk c ^ (r % 8). 8 rows form a 1024-byte atom.
//   B stage (N-major): 1024-byte atoms of 8 k-rows × 64 columns; atom (n/64, k/8) at
//     ((n/64)*8 + k/8) * 1024, row k%8 at 128 bytes a row, chunk (n%64)/8 XOR k%8.
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
#error "BN (block tile columns: 64, 128 or 256) must be defined, e.g. -DBN=256"
#endif
#ifndef WARPGROUPS
#error "WARPGROUPS (1 or 2) must be defined, e.g. -DWARPGROUPS=2"
#endif
#ifndef STAGES
#error "STAGES (pipeline depth, 3..6) must be defined, e.g. -DSTAGES=4"
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
#define HGEMM_ENTRY hgemm_wgmma_bf16
#define HGEMM_PTX_TYPE "bf16"
using elem_t = __nv_bfloat16;
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}
#else
#define HGEMM_ENTRY hgemm_wgmma_f16
#define HGEMM_PTX_TYPE "f16"
using elem_t = __half;
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}
#endif

#include "wgmma_ops.cuh"

namespace {

constexpr int BK = 64;
constexpr int kThreads = WARPGROUPS * 128;
constexpr int kMI = BM / (64 * WARPGROUPS);  // m64 wgmmas a warpgroup per k16 step
constexpr uint32_t kAStageBytes = BM * BK * 2;
constexpr uint32_t kBStageBytes = BK * BN * 2;
constexpr uint32_t kStageBytes = kAStageBytes + kBStageBytes;

static_assert(WARPGROUPS == 1 || WARPGROUPS == 2, "WARPGROUPS is 1 or 2");
static_assert(BM % (64 * WARPGROUPS) == 0 && (kMI == 1 || kMI == 2), "a warpgroup takes 64 or 128 rows");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN is a wgmma N: 64, 128 or 256");
static_assert(kMI * BN <= 256, "accumulators: at most 128 fp32 registers a thread");
static_assert(STAGES >= 3 && STAGES <= 6, "STAGES is 3..6");
static_assert(GROUP_M >= 1, "GROUP_M is at least 1");
static_assert(num_ctas == 1 || num_ctas == 2, "num_ctas is 1 or 2");
static_assert(BM * BN * 2 <= STAGES * kStageBytes, "the C tile leaves through the pipeline's buffers");

__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}
// cp.async writes shared memory through the generic proxy; wgmma reads it through the
// async proxy. Each writer fences after its copies landed, before the barrier.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across the asynchronous
// wgmmas that own the registers.
template <int kN>
__device__ __forceinline__ void fence_registers(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Shared-memory matrix descriptor, 128-byte swizzle: start address, leading and stride
// byte offsets, each in 16-byte units (PTX ISA, "Matrix Descriptor Format").
__device__ __forceinline__ uint64_t descriptor(uint32_t addr, uint32_t leading, uint32_t stride) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | static_cast<uint64_t>(leading >> 4) << 16 |
         static_cast<uint64_t>(stride >> 4) << 32 | 1ull << 62;
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads, OCC)
HGEMM_ENTRY(const elem_t* __restrict__ A, const elem_t* __restrict__ B, elem_t* __restrict__ C,
            int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem_raw[];

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
  const int warpgroup = tid / 128;

  // The swizzle repeats every 1024 bytes of address, so the atoms start on 1024.
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t base = (raw + 1023u) & ~1023u;
  unsigned char* smem = smem_raw + (base - raw);
  auto a_stage = [&](int s) { return base + s * kStageBytes; };
  auto b_stage = [&](int s) { return base + s * kStageBytes + kAStageBytes; };

  // Loaders: A as BM rows of 8 chunks, B as 64 k-rows of BN/8 chunks; each thread keeps
  // one chunk column. K % 8 == 0 and N % 8 == 0 keep every chunk wholly in or out.
  constexpr int kBChunksRow = BN / 8;
  constexpr int kARowStep = kThreads / 8, kBRowStep = kThreads / kBChunksRow;
  static_assert(kThreads % kBChunksRow == 0 && BM % kARowStep == 0 && BK % kBRowStep == 0, "loader shape");
  const int a_row = tid / 8, a_chunk = tid % 8;
  const int b_row = tid / kBChunksRow, b_chunk = tid % kBChunksRow;
  const bool b_col_ok = n0 + b_chunk * 8 < N;
  // B's chunk lands in atom column b_chunk / 8, at chunk b_chunk % 8 of its row.
  const uint32_t b_atom = static_cast<uint32_t>(b_chunk / 8) * 8u * 1024u;

  auto load_tile = [&](int s, int kt) {
    const int k0 = kt * BK;
    const bool a_k_ok = k0 + a_chunk * 8 < K;
#pragma unroll
    for (int i = 0; i < BM / kARowStep; ++i) {
      const int row = a_row + i * kARowStep;
      const bool ok = a_k_ok && m0 + row < M;
      const elem_t* src = ok ? A + (size_t)(m0 + row) * K + k0 + a_chunk * 8 : A;
      cp_async16(a_stage(s) + row * 128 + ((a_chunk ^ (row & 7)) * 16), src, ok);
    }
#pragma unroll
    for (int i = 0; i < BK / kBRowStep; ++i) {
      const int k = b_row + i * kBRowStep;
      const bool ok = b_col_ok && k0 + k < K;
      const elem_t* src = ok ? B + (size_t)(k0 + k) * N + n0 + b_chunk * 8 : B;
      cp_async16(b_stage(s) + b_atom + (k / 8) * 1024 + (k & 7) * 128 + (((b_chunk & 7) ^ (k & 7)) * 16), src, ok);
    }
  };

  // The first wgmma overwrites the accumulators (accumulate = 0) rather than adding to
  // zeros: registers a non-wgmma instruction defines would make ptxas serialize the wgmmas.
  float acc[kMI][BN / 2];

  const int ktiles = (K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 2; ++s) {
    if (s < ktiles) load_tile(s, s);
    cp_async_commit();  // empty groups keep the wait count uniform
  }

  for (int kt = 0; kt < ktiles; ++kt) {
    const int stage = kt % STAGES;
    cp_async_wait<STAGES - 3>();  // tile kt has landed (this thread's copies)
    fence_proxy_async();
    __syncthreads();  // everyone's copies; and every warpgroup is done with tile kt - 2
    {
      const int next = kt + STAGES - 2;  // into the buffer of tile kt - 2
      if (next < ktiles) load_tile(next % STAGES, next);
      cp_async_commit();
    }
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) fence_registers(acc[mi]);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // B: 16 k-rows are two atom rows (stride 1024); columns step 8 KiB an atom.
      const uint64_t b_desc = descriptor(b_stage(stage) + kk * 2048, 8 * 1024, 1024);
#pragma unroll
      for (int mi = 0; mi < kMI; ++mi) {
        // A: this warpgroup's 64-row slice; k16 steps move 32 bytes within the swizzled row
        // (the hardware applies the swizzle to the final address); 8-row groups 1024 apart.
        const uint32_t a_addr = a_stage(stage) + (warpgroup * kMI + mi) * 64 * 128 + kk * 32;
        wgmma_m64nNk16<BN>(acc[mi], descriptor(a_addr, 16, 1024), b_desc, kt > 0 || kk > 0);
      }
    }
    wgmma_commit();
    wgmma_wait<1>();  // tile kt - 1's wgmmas are done: its buffer may be refilled next time
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) fence_registers(acc[mi]);
  }
  wgmma_wait<0>();
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi) fence_registers(acc[mi]);
  cp_async_wait<0>();  // only empty groups remain

  // Epilogue through shared memory, so global stores are whole 16-byte chunks of a row.
  // Accumulator layout (per m64 slice): warp w of the warpgroup holds rows 16w + lane/4 and
  // + 8, columns 8j + 2(lane%4) and + 1 in registers 4j..4j+3. The staged tile is BM rows of
  // BN/8 chunks with chunk c of row r at c ^ (r % 8): the 8 rows a warp writes at once hit
  // 8 different bank groups.
  __syncthreads();  // every warpgroup is done with the pipeline's buffers
  const int lane = tid & 31, warp = (tid / 32) & 3;
  const bool no_k = ktiles == 0;  // K == 0: C = 0, and no wgmma ever wrote the accumulators
  auto staged = [&](int row, int col) {
    return smem + (row * kBChunksRow + ((col >> 3) ^ (row & 7))) * 16 + (col & 7) * 2;
  };
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi) {
    const int row = (warpgroup * kMI + mi) * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = j * 8 + (lane & 3) * 2;
      const float* d = &acc[mi][4 * j];
      *reinterpret_cast<uint32_t*>(staged(row, col)) = no_k ? 0u : pack2(d[0], d[1]);
      *reinterpret_cast<uint32_t*>(staged(row + 8, col)) = no_k ? 0u : pack2(d[2], d[3]);
    }
  }
  __syncthreads();
  const bool c_col_ok = n0 + b_chunk * 8 < N;
#pragma unroll
  for (int i = 0; i < BM / kBRowStep; ++i) {
    const int row = b_row + i * kBRowStep;
    if (c_col_ok && m0 + row < M) {
      const uint4 v = *reinterpret_cast<const uint4*>(staged(row, b_chunk * 8));
      *reinterpret_cast<uint4*>(C + (size_t)(m0 + row) * N + n0 + b_chunk * 8) = v;
    }
  }
}

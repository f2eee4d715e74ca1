// fp16 / bf16 GEMM for Hopper with the copy engine doing the loads: TMA copies the tiles
// into shared memory and signals mbarriers, one producer thread keeps STAGES tiles in
// flight, and consumer warpgroups multiply with wgmma, freeing each buffer as soon as its
// wgmmas are done (warp specialisation). Blocks may be persistent: each walks tiles
// blockIdx.x, + gridDim.x, ..., so the producer loads the next tile while the consumers
// store this one. Or the blocks of a thread block cluster may split K: each multiplies a
// range of K for the same tile, and the partial sums meet in distributed shared memory
// (split-K without a workspace in global memory or a second kernel), for shapes with too
// few tiles to fill the GPU. Or a cluster of two blocks may take two tiles on top of each
// other and share their B tile: each block loads half of it and TMA multicasts it into both,
// halving what B costs the L2. Same problem contract as hgemm.cu (row-major A M×K, B K×N, C M×N,
// K % 8 == 0, N % 8 == 0, 16-byte aligned; M free; C in the inputs' type).
//
// One source, two kernels: HGEMM_BF16=0 defines hgemm_tma_f16, HGEMM_BF16=1 hgemm_tma_bf16.
// Tunable parameters arrive as macros:
//   BM, BN       block tile; a pipeline stage is 64 deep (one 128-byte swizzle row of
//                16-bit elements), as in hgemm_wgmma.cu
//   CONSUMERS    consumer warpgroups (1 or 2); one more warpgroup produces
//   PINGPONG     0 (cooperative): the consumers share each tile, stacked along M, BM / CONSUMERS
//                rows each (64 or 128). 1 (ping-pong, CONSUMERS = 2): each consumer takes
//                whole tiles of BM rows (64 or 128), the two in turn, so that one's epilogue
//                runs while the other multiplies
//   STAGES       shared-memory buffers (2..8)
//   GROUP_M      tile rasterisation, as in hgemm.cu
//   OCC          minimum resident blocks per SM (__launch_bounds__)
//   PERSISTENT   1: blocks walk the tiles, as many as fit the SMs (OCC each); 0: one per tile
//   num_ctas     blocks of a thread block cluster (1, 2, 4 or 8), set by the launcher
//   MULTICAST    0: the cluster's blocks split K of one tile (PERSISTENT=0 and PINGPONG=0:
//                the partial sums reuse the pipeline's buffers, which a persistent block
//                refills). 1 (num_ctas = 2, BN >= 128, PINGPONG=0): the two blocks take tiles
//                m and m + 1 of one column of tiles and share B through TMA multicast
// Launch (hgemm_tma_launch.hpp): TMA descriptors of A (boxes of BM rows × 64) and B (boxes
// of 64 k-rows × 64 columns), both with the 128-byte swizzle; (CONSUMERS + 1) * 128 threads;
// grid: clusters of num_ctas blocks along x, one per unit of work (a tile; with MULTICAST a
// pair of tiles) or, PERSISTENT=1, min(units, SMs * OCC / num_ctas) of them; dynamic shared
// memory: the larger of the pipeline's STAGES * (BM + BN) * 128 bytes and, when the cluster
// splits K, the partial sums' BM * (BN + 8) * 4 bytes, plus 2048 (1024 to align the swizzle
// atoms, the rest for the barriers).
//
// Shared layouts are the ones hgemm_wgmma.cu writes with cp.async, here written by TMA's
// 128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r % 8), 8 rows an atom of 1024 bytes):
//   A stage: one box, BM rows of 64 elements, K-major.
//   B stage: BN / 64 boxes of 64 k-rows × 64 columns, 8 KiB apart, N-major.
#include <cuda.h>  // CUtensorMap
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#ifndef HGEMM_BF16
#define HGEMM_BF16 0
#endif
#ifndef BM
#error "BM (block tile rows: 64, 128 or 256) must be defined, e.g. -DBM=128"
#endif
#ifndef BN
#error "BN (block tile columns: 64, 128 or 256) must be defined, e.g. -DBN=256"
#endif
#ifndef CONSUMERS
#error "CONSUMERS (consumer warpgroups, 1 or 2) must be defined, e.g. -DCONSUMERS=2"
#endif
#ifndef STAGES
#error "STAGES (pipeline buffers, 2..8) must be defined, e.g. -DSTAGES=4"
#endif
#ifndef GROUP_M
#error "GROUP_M (rasterisation group, 1 = row-major order) must be defined, e.g. -DGROUP_M=8"
#endif
#ifndef OCC
#error "OCC (minimum blocks per SM) must be defined, e.g. -DOCC=1"
#endif
#ifndef PINGPONG
#error "PINGPONG (0: consumers share a tile, 1: they take tiles in turn) must be defined, e.g. -DPINGPONG=0"
#endif
#ifndef PERSISTENT
#error "PERSISTENT (0 or 1, read by the launcher) must be defined, e.g. -DPERSISTENT=1"
#endif
#ifndef num_ctas
#error "num_ctas (blocks of a thread block cluster: 1, 2, 4 or 8) must be defined, e.g. -Dnum_ctas=1"
#endif
#ifndef MULTICAST
#error "MULTICAST (0: a cluster splits K, 1: two blocks share B) must be defined, e.g. -DMULTICAST=0"
#endif

#if HGEMM_BF16
#define HGEMM_ENTRY hgemm_tma_bf16
#define HGEMM_PTX_TYPE "bf16"
using elem_t = __nv_bfloat16;
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}
#else
#define HGEMM_ENTRY hgemm_tma_f16
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
constexpr int kThreads = (CONSUMERS + 1) * 128;
// Warpgroups that share one tile, and the m64 wgmmas each issues per k16 step.
constexpr int kSharing = PINGPONG ? 1 : CONSUMERS;
constexpr int kMI = BM / (64 * kSharing);
constexpr uint32_t kAStageBytes = BM * BK * 2;
constexpr uint32_t kBStageBytes = BK * BN * 2;
constexpr uint32_t kStageBytes = kAStageBytes + kBStageBytes;
// Split-K: a block's partial sums, fp32 rows of BN padded by 8 floats (32 bytes) so that the
// four rows a half-warp stores fall in different banks; they reuse the pipeline's buffers.
constexpr int kSplit = MULTICAST ? 1 : num_ctas;
// Multicast: blocks that share each B tile, each loading BN / 64 / kPair of its boxes.
constexpr int kPair = MULTICAST ? 2 : 1;
constexpr int kPartialStride = BN + 8;
constexpr uint32_t kPartialBytes = kSplit > 1 ? BM * kPartialStride * 4 : 0;
constexpr uint32_t kDataBytes = STAGES * kStageBytes > kPartialBytes ? STAGES * kStageBytes : kPartialBytes;

static_assert(CONSUMERS == 1 || CONSUMERS == 2, "CONSUMERS is 1 or 2");
static_assert(PINGPONG == 0 || (PINGPONG == 1 && CONSUMERS == 2), "ping-pong takes two consumers");
static_assert(BM % (64 * kSharing) == 0 && (kMI == 1 || kMI == 2), "a consumer takes 64 or 128 rows");
static_assert(BM <= 256, "a TMA box has at most 256 rows");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN is a wgmma N: 64, 128 or 256");
static_assert(kMI * BN <= 256, "accumulators: at most 128 fp32 registers a thread");
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES is 2..8");
static_assert(GROUP_M >= 1, "GROUP_M is at least 1");
static_assert(PERSISTENT == 0 || PERSISTENT == 1, "PERSISTENT is 0 or 1");
static_assert(kSplit == 1 || kSplit == 2 || kSplit == 4 || kSplit == 8, "num_ctas is 1, 2, 4 or 8");
static_assert(kSplit == 1 || (PERSISTENT == 0 && PINGPONG == 0), "split-K takes PERSISTENT=0 and PINGPONG=0");
static_assert(MULTICAST == 0 || (MULTICAST == 1 && num_ctas == 2 && BN >= 128 && PINGPONG == 0),
              "multicast takes num_ctas=2, BN >= 128 and PINGPONG=0");

// mbarriers (PTX ISA, "Parallel Synchronization and Communication Instructions: mbarrier").
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// One arrival that also says how many bytes the copies signalling this phase will bring.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Waits until the phase of parity `parity` has completed. A fresh barrier is in phase 0, so
// waiting for parity 1 passes at once: the producer's first pass over empty buffers.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// A 2-D tile copy global -> shared; the barrier counts its bytes. Coordinates are
// (column, row) in elements; what lies outside the array arrives as zeros.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int col, int row) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(col), "r"(row)
      : "memory");
}
// The same copy, landing at the same offsets in the shared memory of every block of the
// cluster in `mask`, and signalling the barrier at the same offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar, int col,
                                                      int row, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(col), "r"(row), "h"(mask)
      : "memory");
}
// Named barriers (1 and 2; 0 is __syncthreads') that order the ping-pong consumers' main
// loops: one arrives as its main loop is issued, the other waits for that before its own.
// The ids are immediates: with an id in a register ptxas reserves all 16 barriers.
template <int kId>
__device__ __forceinline__ void order_arrive() {
  asm volatile("bar.arrive %0, 256;\n" ::"n"(kId) : "memory");
}
template <int kId>
__device__ __forceinline__ void order_wait() {
  asm volatile("bar.sync %0, 256;\n" ::"n"(kId) : "memory");
}
// Cluster-wide: every block's threads arrive, and what each wrote to its shared memory before
// is visible to the others after (release / acquire).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// The same shared-memory offset in block `rank` of the cluster, and a 16-byte load from it.
__device__ __forceinline__ uint32_t map_to_block(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ float4 load_cluster(uint32_t addr) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
// One arrival on the barrier at this offset in block `rank` of the cluster. The default
// (CTA-scope) release, as for a local arrival: it only says that this warp's wgmmas have
// finished reading the stage. A cluster-scope release would first wait for the warp's
// earlier global stores (the last tile's epilogue) on every k-step.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t rank) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(rank)
      : "memory");
}
// A consumers-only barrier (id 3): every wgmma of the block is done before the partial sums
// overwrite the stages it read.
__device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 3, %0;\n" ::"n"(CONSUMERS * 128) : "memory"); }
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

// The origin of tile `t` in GROUP_M-row rasterisation (hgemm.cu's order), tiles of kRows rows.
template <int kRows>
__device__ __forceinline__ void tile_origin(int t, int tiles_m, int tiles_n, int& m0, int& n0) {
  const int per_group = GROUP_M * tiles_n;
  const int group = t / per_group;
  const int first_m = group * GROUP_M;
  const int group_rows = min(tiles_m - first_m, GROUP_M);
  const int in_group = t - group * per_group;
  m0 = (first_m + in_group % group_rows) * kRows;
  n0 = (in_group / group_rows) * BN;
}

// Split-K's end: block `rank` of the cluster sums rows rank * BM / kSplit, ... of the tile over
// every block's partial sums (in order of rank, so the result does not depend on timing) and
// stores them, 8 columns (16 bytes) a thread at a time. Every thread of the block takes part.
__device__ __forceinline__ void reduce_partials(uint32_t partials, uint32_t rank, int m0, int n0,
                                                elem_t* __restrict__ C, int M, int N) {
  constexpr int kRows = BM / kSplit, kGroups = BN / 8;
  for (int g = threadIdx.x; g < kRows * kGroups; g += kThreads) {
    const int r = rank * kRows + g / kGroups, c = (g % kGroups) * 8;
    const int row = m0 + r, col = n0 + c;
    if (row >= M || col >= N) continue;  // N % 8 == 0: the 8 columns are all in or all out
    const uint32_t at = partials + (r * kPartialStride + c) * 4;
    float s[8] = {};
#pragma unroll
    for (int q = 0; q < kSplit; ++q) {
      const uint32_t there = map_to_block(at, q);
      const float4 lo = load_cluster(there), hi = load_cluster(there + 16);
      s[0] += lo.x, s[1] += lo.y, s[2] += lo.z, s[3] += lo.w;
      s[4] += hi.x, s[5] += hi.y, s[6] += hi.z, s[7] += hi.w;
    }
    const uint4 v = {pack2(s[0], s[1]), pack2(s[2], s[3]), pack2(s[4], s[5]), pack2(s[6], s[7])};
    *reinterpret_cast<uint4*>(C + (size_t)row * N + col) = v;
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads, OCC)
HGEMM_ENTRY(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
            elem_t* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  // The swizzle repeats every 1024 bytes of address, so the stages start on 1024.
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t base = (raw + 1023u) & ~1023u;
  auto a_stage = [&](int s) { return base + s * kStageBytes; };
  auto b_stage = [&](int s) { return base + s * kStageBytes + kAStageBytes; };
  // full[s]: stage s holds its tile (the producer's arrival and the copies' bytes);
  // empty[s]: every consumer warp is done reading it.
  const uint32_t full = base + kDataBytes;
  const uint32_t empty = full + STAGES * 8;

  const int tid = threadIdx.x;
  const int warpgroup = tid / 128;
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int ktiles = (K + BK - 1) / BK;
  // Units of work, one per cluster at a time: a tile or, with multicast, a pair of tiles on
  // top of each other, of which block `rank` takes tile `rank`.
  const int units_m = (tiles_m + kPair - 1) / kPair;
  const int units = units_m * tiles_n;
  const uint32_t rank = num_ctas > 1 ? cluster_rank() : 0;
  const int first_unit = blockIdx.x / num_ctas, unit_step = gridDim.x / num_ctas;
  auto origin = [&](int u, int& m0, int& n0) {
    tile_origin<BM * kPair>(u, units_m, tiles_n, m0, n0);
    if (MULTICAST) m0 += rank * BM;
  };
  // Split-K: the cluster's blocks share a tile, block `rank` takes k-tiles [kbegin, kend).
  const uint32_t split_rank = kSplit > 1 ? rank : 0;
  const int kbegin = split_rank * ktiles / kSplit, kend = (split_rank + 1) * ktiles / kSplit;
  // Split-K's end, for every thread of the block, producers included: once every block's
  // partial sums are written, block `rank` sums its rows of the tile, and no block leaves
  // while another may still read its shared memory.
  auto finish_split = [&] {
    int m0, n0;
    origin(first_unit, m0, n0);
    cluster_sync();
    reduce_partials(base, rank, m0, n0, C, M, N);
    cluster_sync();
  };

  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full + s * 8, 1);
      // One arrival per warp that reads the stage, in both blocks with multicast: either's
      // producer writes the stage in both.
      mbar_init(empty + s * 8, kSharing * 4 * kPair);
    }
    // The barriers' initialisation, visible to the copy engine before any copy signals one.
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if constexpr (MULTICAST) cluster_sync();  // and to the other block's copies and arrivals

  if (warpgroup == CONSUMERS) {
    // The producer: one thread issues every copy; the rest of its warpgroup has nothing to do.
    if (tid == CONSUMERS * 128) {
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&a_map)) : "memory");
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&b_map)) : "memory");
      int stage = 0;
      uint32_t phase = 0;
      for (int u = first_unit; u < units; u += unit_step) {
        int m0, n0;
        origin(u, m0, n0);
        for (int kt = kbegin; kt < kend; ++kt) {
          mbar_wait(empty + stage * 8, phase ^ 1);
          const uint32_t bar = full + stage * 8;
          mbar_arrive_expect_tx(bar, kStageBytes);  // with multicast, half of B comes from the other block
          tma_load_2d(a_stage(stage), &a_map, bar, kt * BK, m0);
#pragma unroll
          for (int j = 0; j < BN / 64 / kPair; ++j) {
            const int box = rank * (BN / 64 / kPair) * MULTICAST + j;
            if constexpr (MULTICAST)
              tma_load_2d_multicast(b_stage(stage) + box * 8192, &b_map, bar, n0 + box * 64, kt * BK, 0b11);
            else
              tma_load_2d(b_stage(stage) + box * 8192, &b_map, bar, n0 + box * 64, kt * BK);
          }
          if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
      // Multicast: the block stays until both blocks' consumers have freed every stage, so
      // that no arrival of the other block's consumers finds it gone.
      if constexpr (MULTICAST) {
        for (int s = 0; s < STAGES; ++s) {
          mbar_wait(empty + stage * 8, phase ^ 1);
          if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
    }
    if constexpr (kSplit > 1) finish_split();
    return;
  }

  // The consumers. Accumulator layout (per m64 slice): warp w of the warpgroup holds rows
  // 16w + lane/4 and + 8, columns 8j + 2(lane%4) and + 1 in registers 4j..4j+3.
  const int lane = tid & 31, warp = (tid / 32) & 3;
  // Cooperative: every consumer takes every tile of the block, rows by warpgroup. Ping-pong:
  // consumer c takes the block's tiles c, c + 2, ...; the stages of the other's tiles pass by.
  // Their main loops take turns (order_wait / order_arrive): a consumer waits on a stage's
  // full barrier only once the other has passed its own waits, so no barrier is ever more
  // than one phase away from the one awaited, which a parity wait needs (a consumer running
  // a whole tile ahead would take a phase of the same parity for its own).
  const int slice = PINGPONG ? 0 : warpgroup;
  const int turn = PINGPONG ? 2 : 1;
  int stage = 0;
  uint32_t phase = 0;
  auto pass = [&](int n) {
    stage += n;
    phase ^= (stage / STAGES) & 1;
    stage %= STAGES;
  };
  // A stage read, freed for the producers: this block's and, with multicast, the other's.
  // With multicast, lanes 0 and 1 arrive at once, on this block's barrier and the other's.
  auto release = [&](int s) {
    if constexpr (MULTICAST)
      mbar_arrive_cluster(empty + s * 8, rank ^ lane);
    else
      mbar_arrive(empty + s * 8);
  };
  if (PINGPONG && warpgroup == 1) pass(first_unit < units ? ktiles : 0);
  for (int t = first_unit + (PINGPONG ? warpgroup : 0) * unit_step; t < units; t += turn * unit_step) {
    int m0, n0;
    origin(t, m0, n0);
    // The first wgmma overwrites the accumulators (accumulate = 0) rather than adding to
    // zeros: registers a non-wgmma instruction defines would make ptxas serialize the wgmmas.
    float acc[kMI][BN / 2];
    int last = -1;  // the stage whose wgmmas may still be reading
    // Ping-pong: consumer 1 waits for consumer 0's main loop of the tile before (barrier 1),
    // consumer 0 for consumer 1's (barrier 2), but not before the block's first tile.
    if (PINGPONG && warpgroup == 1) order_wait<1>();
    if (PINGPONG && warpgroup == 0 && t != first_unit) order_wait<2>();
    for (int kt = kbegin; kt < kend; ++kt) {
      mbar_wait(full + stage * 8, phase);
#pragma unroll
      for (int mi = 0; mi < kMI; ++mi) fence_registers(acc[mi]);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        // B: 16 k-rows are two atom rows (stride 1024); columns step 8 KiB a box.
        const uint64_t b_desc = descriptor(b_stage(stage) + kk * 2048, 8 * 1024, 1024);
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi) {
          // A: this warpgroup's 64-row slice; k16 steps move 32 bytes within the swizzled
          // row (the hardware applies the swizzle to the final address).
          const uint32_t a_addr = a_stage(stage) + (slice * kMI + mi) * 64 * 128 + kk * 32;
          wgmma_m64nNk16<BN>(acc[mi], descriptor(a_addr, 16, 1024), b_desc, kt > kbegin || kk > 0);
        }
      }
      wgmma_commit();
      wgmma_wait<1>();  // the previous stage's wgmmas are done: free its buffer
#pragma unroll
      for (int mi = 0; mi < kMI; ++mi) fence_registers(acc[mi]);
      if (last >= 0 && lane < kPair) release(last);
      last = stage;
      if (++stage == STAGES) {
        stage = 0;
        phase ^= 1;
      }
    }
    // Its waits passed, the other consumer's main loop of the next tile may start.
    if (PINGPONG && t + unit_step < units) warpgroup == 0 ? order_arrive<1>() : order_arrive<2>();
    wgmma_wait<0>();
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) fence_registers(acc[mi]);
    if (last >= 0 && lane < kPair) release(last);

    // K == 0 (or a split with no k-tiles): C = 0, and no wgmma ever wrote the accumulators.
    const bool no_k = kend == kbegin;
    if constexpr (kSplit > 1) {
      // The partial sums, in the accumulators' layout, once no wgmma reads a stage any more;
      // the cluster sums them below.
      consumers_sync();
      float* partial = reinterpret_cast<float*>(smem_raw + (base - raw));
#pragma unroll
      for (int mi = 0; mi < kMI; ++mi) {
        const int r = (slice * kMI + mi) * 64 + warp * 16 + lane / 4;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const int c = j * 8 + (lane & 3) * 2;
          const float* d = &acc[mi][4 * j];
          *reinterpret_cast<float2*>(partial + r * kPartialStride + c) = no_k ? float2{} : float2{d[0], d[1]};
          *reinterpret_cast<float2*>(partial + (r + 8) * kPartialStride + c) = no_k ? float2{} : float2{d[2], d[3]};
        }
      }
    } else {
      // Straight from registers to global memory: each quad of lanes writes 16 contiguous
      // bytes of a row. The producer is already loading the next tile meanwhile.
#pragma unroll
      for (int mi = 0; mi < kMI; ++mi) {
        const int row = m0 + (slice * kMI + mi) * 64 + warp * 16 + lane / 4;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const int col = n0 + j * 8 + (lane & 3) * 2;
          if (col >= N) continue;  // N % 8 == 0: col and col + 1 are both in or both out
          const float* d = &acc[mi][4 * j];
          if (row < M) *reinterpret_cast<uint32_t*>(C + (size_t)row * N + col) = no_k ? 0u : pack2(d[0], d[1]);
          if (row + 8 < M)
            *reinterpret_cast<uint32_t*>(C + (size_t)(row + 8) * N + col) = no_k ? 0u : pack2(d[2], d[3]);
        }
      }
    }
    if (PINGPONG && t + unit_step < units) pass(ktiles);  // the other consumer's next tile
  }
  if constexpr (kSplit > 1) finish_split();
}

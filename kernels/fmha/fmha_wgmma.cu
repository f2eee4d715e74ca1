// Fused multi-head attention forward for Hopper: the same problem as fmha.cu (O =
// softmax(Q K^T / sqrt(D) [+ causal mask]) V, Q, K, V, O of shape [BH, S, D], fp16,
// row-major, fp32 accumulation), on wgmma with TMA loads.
//
// A block takes CONSUMERS * 64 query rows of one head. One producer warp copies the Q tile
// once and then K and V tiles of TILE_N keys, STAGES deep, through TMA and mbarriers
// (full: the tile arrived; empty: every consumer warp is done with it). Each consumer
// warpgroup owns 64 query rows: S = Q K^T with both operands from shared memory, the
// online softmax on S's accumulators, then O += P V with P straight from those registers
// (the wgmma accumulator layout is the m16n8k16 A-fragment layout, so P never touches
// shared memory). The consumer warpgroups run independently, so one's softmax overlaps the
// other's matrix products on the tensor cores.
//
// Compile-time: HEAD_DIM (64 or 128) picks the entry point fmha_wgmma_d<HEAD_DIM>.
// Tunable parameters arrive as macros:
//   CONSUMERS  consumer warpgroups (1..3), 64 query rows each
//   TILE_N     keys per step (64 or 128: the N of S's wgmma)
//   STAGES     K/V tiles in flight (2..4)
//   OCC        minimum resident blocks per SM (__launch_bounds__)
//   PIPELINE   0: S, softmax and P V of a tile in turn, each waited for; 1: tile j's S is
//              issued with tile j-1's P V, and its softmax runs while that P V does
//   PINGPONG   1 (PIPELINE=1, 2 or 3 consumers): the consumers take turns to issue their
//              matrix products (named barriers, round robin), so one's softmax runs while
//              the next one's products have the tensor cores (FlashAttention-3's ping-pong)
//   SPLIT_REGS 0: the producer is one warp; 1: a whole warpgroup, which hands registers
//              to the consumers (setmaxnreg: 24 or 32 left to it, 240 or 160 to each
//              consumer thread with 2 or 3 consumers), where launch bounds alone give every
//              thread of 9 or 13 warps 168 or 128
// Launch (fmha_wgmma_launch.hpp): TMA descriptors of Q (boxes of CONSUMERS * 64 rows × 64
// columns), K and V (TILE_N rows × 64 columns), all with the 128-byte swizzle, over the
// [BH * S, D] arrays; grid (ceil(S / (CONSUMERS * 64)), BH); CONSUMERS * 128 + 32 threads
// (+ 128 with SPLIT_REGS);
// (CONSUMERS * 64 + 2 * STAGES * TILE_N) * HEAD_DIM * 2 + 2048 bytes of dynamic shared memory.
// Arguments: (q_map, k_map, v_map, __half* O, int S, int causal).
//
// Shared layouts, each tile as HEAD_DIM / 64 boxes of its rows × 64 columns (128 bytes, one
// swizzle row: 16-byte chunk c of row r at chunk c ^ (r % 8)), box after box:
//   Q and K are read K-major (rows of D), as hgemm_wgmma.cu reads A;
//   V is read N-major (k-rows of keys, D along N), as hgemm_wgmma.cu reads B.
// A K tile that runs past S reads the next head's rows (or zeros past the array): those
// keys are masked to -inf, so their V rows are multiplied by 0.
#include <cuda.h>  // CUtensorMap
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#ifndef HEAD_DIM
#error "HEAD_DIM (head dimension, 64 or 128) must be defined, e.g. -DHEAD_DIM=64"
#endif
#ifndef CONSUMERS
#error "CONSUMERS (consumer warpgroups, 1..3) must be defined, e.g. -DCONSUMERS=2"
#endif
#ifndef TILE_N
#error "TILE_N (keys per step, 64 or 128) must be defined, e.g. -DTILE_N=128"
#endif
#ifndef STAGES
#error "STAGES (K/V tiles in flight, 2..4) must be defined, e.g. -DSTAGES=2"
#endif
#ifndef OCC
#error "OCC (minimum blocks per SM) must be defined, e.g. -DOCC=1"
#endif
#ifndef PIPELINE
#error "PIPELINE (1: a tile's scores overlap the previous tile's P V) must be defined, e.g. -DPIPELINE=1"
#endif

#ifndef SPLIT_REGS
#error "SPLIT_REGS (1: a producer warpgroup gives its registers to the consumers) must be defined, e.g. -DSPLIT_REGS=0"
#endif

#ifndef PINGPONG
#error "PINGPONG (1: the consumers take turns to issue their matrix products) must be defined, e.g. -DPINGPONG=0"
#endif

#include "fmha_wgmma_ops.cuh"

#define FMHA_CAT2(a, b) a##b
#define FMHA_CAT(a, b) FMHA_CAT2(a, b)
#define FMHA_ENTRY FMHA_CAT(fmha_wgmma_d, HEAD_DIM)

namespace {

constexpr int D = HEAD_DIM;
constexpr int TILE_M = CONSUMERS * 64;
constexpr int kThreads = CONSUMERS * 128 + (SPLIT_REGS ? 128 : 32);
// With SPLIT_REGS, registers a thread of the producer warpgroup keeps and a consumer's
// thread gets; the block's 65,536 at most (FlashAttention-3's split).
constexpr int kProducerRegs = CONSUMERS == 2 ? 24 : 32;
constexpr int kConsumerRegs = CONSUMERS == 2 ? 240 : 160;
constexpr int kBoxes = D / 64;  // 64-column boxes of a row
constexpr uint32_t kQBytes = TILE_M * D * 2;
constexpr uint32_t kKVBytes = TILE_N * D * 2;  // one of K or V

static_assert(D == 64 || D == 128, "HEAD_DIM is 64 or 128");
static_assert(CONSUMERS >= 1 && CONSUMERS <= 3, "CONSUMERS is 1..3");
static_assert(TILE_N == 64 || TILE_N == 128, "TILE_N is 64 or 128");
static_assert(STAGES >= 2 && STAGES <= 4, "STAGES is 2..4");
static_assert(!SPLIT_REGS || (CONSUMERS >= 2 && OCC == 1), "SPLIT_REGS needs 2 or 3 consumers and OCC 1");
static_assert(!PINGPONG || (PIPELINE && CONSUMERS >= 2), "PINGPONG needs PIPELINE and 2 or 3 consumers");
static_assert(!SPLIT_REGS || kProducerRegs * 128 + kConsumerRegs * CONSUMERS * 128 <= 65536, "over the SM's registers");

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
// Waits until the phase of parity `parity` has completed; a fresh barrier passes parity 1.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// A 2-D tile copy global -> shared, (column, row) in elements; the barrier counts its bytes.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int col, int row) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(col), "r"(row)
      : "memory");
}
// The warpgroup's register allocation per thread, lowered or raised (all its threads at once).
template <int kRegs>
__device__ __forceinline__ void regs_lower() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void regs_raise() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
// Named barriers 1..CONSUMERS (0 is __syncthreads'): consumer warpgroup w waits at its own,
// w + 1 arrives at it; each completes with the 256 threads of the two.
#if PINGPONG
__device__ __forceinline__ void turn_wait(int id) { asm volatile("bar.sync %0, 256;\n" ::"r"(id) : "memory"); }
__device__ __forceinline__ void turn_pass(int id) { asm volatile("bar.arrive %0, 256;\n" ::"r"(id) : "memory"); }
#endif
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across the asynchronous wgmmas.
template <int kN>
__device__ __forceinline__ void fence_registers(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// Shared-memory matrix descriptor, 128-byte swizzle (PTX ISA, "Matrix Descriptor Format").
__device__ __forceinline__ uint64_t descriptor(uint32_t addr, uint32_t leading, uint32_t stride) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | static_cast<uint64_t>(leading >> 4) << 16 |
         static_cast<uint64_t>(stride >> 4) << 32 | 1ull << 62;
}
// 2^x in one instruction (MUFU.EX2), subnormal results flushed to zero: exp2f without
// fast-math adds the subnormal handling around it.
__device__ __forceinline__ float exp2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads, OCC)
FMHA_ENTRY(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
           const __grid_constant__ CUtensorMap v_map, __half* __restrict__ O, int S, int causal) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  // The swizzle repeats every 1024 bytes of address, so the tiles start on 1024.
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t q_tile = (raw + 1023u) & ~1023u;
  auto k_tile = [&](int s) { return q_tile + kQBytes + s * 2 * kKVBytes; };
  auto v_tile = [&](int s) { return k_tile(s) + kKVBytes; };
  const uint32_t q_full = q_tile + kQBytes + STAGES * 2 * kKVBytes;
  const uint32_t full = q_full + 8, empty = full + STAGES * 8;

  const int tid = threadIdx.x;
  const int m0 = blockIdx.x * TILE_M;
  const int head_row = blockIdx.y * S;  // the head's first row in the [BH * S, D] arrays
  // Key tiles this block reads: under the causal mask none past its last query row.
  const int keys = causal ? min(S, m0 + TILE_M) : S;
  const int ntiles = (keys + TILE_N - 1) / TILE_N;

  if (tid == 0) {
    mbar_init(q_full, 1);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full + s * 8, 1);
      mbar_init(empty + s * 8, CONSUMERS * 4);  // one arrival per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  if (tid >= CONSUMERS * 128) {
#if SPLIT_REGS
    regs_lower<kProducerRegs>();
#endif
    // The producer warp: one thread issues every copy.
    if (tid == CONSUMERS * 128) {
      mbar_arrive_expect_tx(q_full, kQBytes);
#pragma unroll
      for (int b = 0; b < kBoxes; ++b) tma_load_2d(q_tile + b * TILE_M * 128, &q_map, q_full, b * 64, head_row + m0);
      int stage = 0;
      uint32_t phase = 0;
      for (int j = 0; j < ntiles; ++j) {
        mbar_wait(empty + stage * 8, phase ^ 1);
        const uint32_t bar = full + stage * 8;
        mbar_arrive_expect_tx(bar, 2 * kKVBytes);
        const int row = head_row + j * TILE_N;
#pragma unroll
        for (int b = 0; b < kBoxes; ++b) {
          tma_load_2d(k_tile(stage) + b * TILE_N * 128, &k_map, bar, b * 64, row);
          tma_load_2d(v_tile(stage) + b * TILE_N * 128, &v_map, bar, b * 64, row);
        }
        if (++stage == STAGES) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    return;
  }

#if SPLIT_REGS
  regs_raise<kConsumerRegs>();
#endif
  // A consumer warpgroup: rows m0 + 64 * wg + 16 * warp + lane / 4 (+ 8) of the accumulators
  // (warp w of a warpgroup holds rows 16w + lane/4 and + 8, columns 8j + 2(lane%4) and + 1
  // in registers 4j..4j+3).
  const int wg = tid / 128, warp = (tid / 32) & 3, lane = tid & 31;
  const int row0 = m0 + wg * 64 + warp * 16 + lane / 4;  // and row0 + 8
  // exp(x / sqrt(D)) as exp2(x * scale).
  const float scale = 1.4426950408889634f * rsqrtf(static_cast<float>(D));
  float o[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o[i] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.f, 0.f};  // this thread's part; the quad's are added at the end

  // S = Q K^T of the tile in `stage`, issued and committed (the caller waits): k16 steps
  // over D; within a box a step moves 32 bytes along the swizzled row.
  auto issue_s = [&](float (&sc)[TILE_N / 2], int stage) {
    wgmma_fence();
    auto a = [&](int kk) {
      return descriptor(q_tile + (kk / 4) * TILE_M * 128 + wg * 64 * 128 + (kk % 4) * 32, 16, 1024);
    };
    auto b = [&](int kk) { return descriptor(k_tile(stage) + (kk / 4) * TILE_N * 128 + (kk % 4) * 32, 16, 1024); };
    wgmma_qk<TILE_N, 0>(sc, a(0), b(0));
#pragma unroll
    for (int kk = 1; kk < D / 16; ++kk) wgmma_qk<TILE_N, 1>(sc, a(kk), b(kk));
    wgmma_commit();
  };
  // O += P V of the tile in `stage`, issued and committed: k16 steps over the tile's keys,
  // 16 k-rows (2048 bytes) each; along D the boxes are TILE_N * 128 bytes apart. The caller
  // fences O's registers first, before any wgmma it has in flight: ptxas serializes the
  // wgmmas when a register they read is defined while one runs.
  auto issue_pv = [&](const uint32_t (&pc)[TILE_N / 16][4], int stage) {
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < TILE_N / 16; ++kk)
      wgmma_pv<D>(o, pc[kk], descriptor(v_tile(stage) + kk * 2048, TILE_N * 128, 1024), 1);
    wgmma_commit();
  };
  // The online softmax of tile j's scores: masked keys (past S, or after the row under the
  // causal mask) are -inf; P packed as the A fragments of the k16 steps over the tile's
  // keys; `correction` rescales what O and the row sums hold to the new row maxima. The row
  // maxima are kept unscaled, so that each exponential is one multiply-add and one ex2; only
  // a tile with a masked key (the last past S, those across the causal diagonal) checks each
  // key. Per score that is about 4 instructions instead of 11; at d64 an SM's 128 lanes would
  // take longer over 11 than its tensor cores over the score's 256 flops (4,096 a clock).
  auto softmax = [&](float (&sc)[TILE_N / 2], int j, uint32_t (&pc)[TILE_N / 16][4], float (&correction)[2]) {
    const int key0 = j * TILE_N + 2 * (lane & 3);
    auto tile = [&](auto masked_tile) {
      constexpr bool kMasked = decltype(masked_tile)::value;
      auto masked = [&](int jj, int e) {
        const int key = key0 + jj * 8 + (e & 1), row = row0 + (e >> 1) * 8;
        return key >= S || (causal && key > row);
      };
      float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int jj = 0; jj < TILE_N / 8; ++jj)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          float x = sc[4 * jj + e];
          if constexpr (kMasked) {
            if (masked(jj, e)) x = -INFINITY;
#if !PIPELINE
            // S's registers may be written here; with PIPELINE they are read while the P V
            // wgmma is in flight, and a write would serialize the wgmmas (C7513).
            sc[4 * jj + e] = x;
#endif
          }
          tile_max[e >> 1] = fmaxf(tile_max[e >> 1], x);
        }
      float base[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xffffffffu, tile_max[h], 1));
        tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xffffffffu, tile_max[h], 2));
        const float new_max = fmaxf(row_max[h], tile_max[h]);
        // A row with no unmasked key yet keeps -inf: exp2 of (-inf) - (-inf) would be NaN.
        correction[h] = new_max == -INFINITY ? 1.f : exp2_ftz((row_max[h] - new_max) * scale);
        base[h] = new_max == -INFINITY ? 0.f : new_max * scale;
        row_max[h] = new_max;
        row_sum[h] *= correction[h];
      }
#pragma unroll
      for (int jj = 0; jj < TILE_N / 8; ++jj) {
        float e4[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          e4[e] = exp2_ftz(fmaf(sc[4 * jj + e], scale, -base[e >> 1]));
#if PIPELINE
          if constexpr (kMasked) e4[e] = masked(jj, e) ? 0.f : e4[e];
#endif
          row_sum[e >> 1] += e4[e];
        }
        pc[jj / 2][(jj % 2) * 2 + 0] = pack_half2(e4[0], e4[1]);
        pc[jj / 2][(jj % 2) * 2 + 1] = pack_half2(e4[2], e4[3]);
      }
    };
    const int wg_row0 = m0 + wg * 64;  // the warpgroup's first row
    if ((j + 1) * TILE_N > S || (causal && (j + 1) * TILE_N - 1 > wg_row0))
      tile(std::true_type{});
    else
      tile(std::false_type{});
  };
  auto rescale = [&](const float (&correction)[2]) {
#pragma unroll
    for (int jj = 0; jj < D / 8; ++jj) {
      o[4 * jj + 0] *= correction[0];
      o[4 * jj + 1] *= correction[0];
      o[4 * jj + 2] *= correction[1];
      o[4 * jj + 3] *= correction[1];
    }
  };
  auto release = [&](int stage) {
    if (lane == 0) mbar_arrive(empty + stage * 8);
  };

  mbar_wait(q_full, 0);
  int stage = 0;
  uint32_t phase = 0;
  auto advance = [&] {
    if (++stage == STAGES) {
      stage = 0;
      phase ^= 1;
    }
  };
  float sc[TILE_N / 2];
  uint32_t pc[TILE_N / 16][4];
  float correction[2];
#if PIPELINE
  // PINGPONG: warpgroup wg issues its products once warpgroup wg - 1 has issued its own
  // (the first starts), then lets wg + 1 go. Every warpgroup issues ntiles + 1 times; the
  // first one claims the last one's final pass at the end, so every barrier ends balanced.
  auto my_turn = [&] {
#if PINGPONG
    turn_wait(1 + wg);
#endif
  };
  auto next_turn = [&] {
#if PINGPONG
    turn_pass(1 + (wg + 1) % CONSUMERS);
#endif
  };
#if PINGPONG
  if (wg == 0) turn_pass(1);
#endif
  // Tile j's scores are multiplied while tile j-1's P V runs, and its softmax overlaps
  // that P V on the tensor cores; O is rescaled once that P V is done.
  if (ntiles > 0) {
    mbar_wait(full + stage * 8, phase);
    my_turn();
    issue_s(sc, stage);
    next_turn();
    wgmma_wait<0>();
    fence_registers(sc);
    softmax(sc, 0, pc, correction);
  }
  // P double-buffered: tile j's softmax writes the buffer the next P V reads, while tile j-1's
  // P V reads the other; a copy between them would be moved by the scheduler into the next
  // stage, where it defines a register a wgmma in flight reads, and ptxas would serialize.
  uint32_t pd[TILE_N / 16][4];
  auto step = [&](int j, const uint32_t (&pin)[TILE_N / 16][4], uint32_t (&pout)[TILE_N / 16][4]) {
    const int previous = stage;
    advance();
    mbar_wait(full + stage * 8, phase);
    fence_registers(o);
    my_turn();
    issue_s(sc, stage);
    issue_pv(pin, previous);
    next_turn();
    wgmma_wait<1>();  // S of tile j done; P V of tile j-1 may still run
    fence_registers(sc);
    float next_correction[2];
    softmax(sc, j, pout, next_correction);
    wgmma_wait<0>();
    fence_registers(o);
    release(previous);
    rescale(next_correction);
  };
  int j = 1;
  for (; j + 1 < ntiles; j += 2) {
    step(j, pc, pd);
    step(j + 1, pd, pc);
  }
  const bool in_d = j < ntiles;
  if (in_d) step(j, pc, pd);
  if (ntiles > 0) {
    fence_registers(o);
    my_turn();
    if (in_d)
      issue_pv(pd, stage);
    else
      issue_pv(pc, stage);
    next_turn();
    wgmma_wait<0>();
    fence_registers(o);
    release(stage);
#if PINGPONG
    if (wg == 0) my_turn();
#endif
  }
#else
  // Each tile in turn: S, its softmax, then P V, each waited for.
  for (int j = 0; j < ntiles; ++j) {
    mbar_wait(full + stage * 8, phase);
    issue_s(sc, stage);
    wgmma_wait<0>();
    fence_registers(sc);
    softmax(sc, j, pc, correction);
    rescale(correction);
    fence_registers(o);
    issue_pv(pc, stage);
    wgmma_wait<0>();
    fence_registers(o);
    release(stage);
    advance();
  }
#endif

  // O = the weighted sum over the row's total weight; rows past S are not written.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = row0 + h * 8;
    if (row >= S) continue;
    const float inv = row_sum[h] > 0.f ? 1.f / row_sum[h] : 0.f;
    __half* out = O + static_cast<size_t>(head_row + row) * D + 2 * (lane & 3);
#pragma unroll
    for (int jj = 0; jj < D / 8; ++jj)
      *reinterpret_cast<uint32_t*>(out + jj * 8) = pack_half2(o[4 * jj + 2 * h] * inv, o[4 * jj + 2 * h + 1] * inv);
  }
}

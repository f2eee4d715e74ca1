// fp32 tiled GEMM, C = A * B (row-major; A is M×K, B is K×N), the ktune example space.
// Tunable parameters arrive as macros:
//   TM, TN  block tile (rows of C, columns of C)      TK  depth of one shared-memory step
//   OCC     minimum resident blocks per SM (__launch_bounds__ occupancy hint)
// 256 threads as a 16×16 grid; each computes a (TM/16)×(TN/16) patch of C in registers.
// Launch: grid (ceil(N/TN), ceil(M/TM)), block 256, no dynamic shared memory.
#ifndef TM
#error "TM (block tile rows) must be defined, e.g. -DTM=64"
#endif
#ifndef TN
#error "TN (block tile columns) must be defined, e.g. -DTN=64"
#endif
#ifndef TK
#error "TK (tile depth) must be defined, e.g. -DTK=16"
#endif
#ifndef OCC
#define OCC 1
#endif

constexpr int kThreads = 256;
constexpr int kRowsPerThread = TM / 16;
constexpr int kColsPerThread = TN / 16;
static_assert(TM % 16 == 0 && TN % 16 == 0, "TM and TN must be multiples of 16");

extern "C" __global__ void __launch_bounds__(kThreads, OCC)
sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
      int M, int N, int K) {
  // A's tile is stored transposed (k-major) so the inner loop reads both tiles by row.
  __shared__ float As[TK][TM];
  __shared__ float Bs[TK][TN];

  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;

  float acc[kRowsPerThread][kColsPerThread] = {};

  for (int k0 = 0; k0 < K; k0 += TK) {
    for (int i = tid; i < TM * TK; i += kThreads) {
      const int r = i / TK, k = i % TK;
      const int gr = row0 + r, gk = k0 + k;
      As[k][r] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f;
    }
    for (int i = tid; i < TK * TN; i += kThreads) {
      const int k = i / TN, c = i % TN;
      const int gk = k0 + k, gc = col0 + c;
      Bs[k][c] = (gk < K && gc < N) ? B[(size_t)gk * N + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TK; ++k) {
      float a[kRowsPerThread], b[kColsPerThread];
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i)
#pragma unroll
        for (int j = 0; j < kColsPerThread; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int r = row0 + ty + 16 * i;
#pragma unroll
    for (int j = 0; j < kColsPerThread; ++j) {
      const int c = col0 + tx + 16 * j;
      if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
    }
  }
}

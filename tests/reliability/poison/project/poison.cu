// y = 2 x + 1. FAULT selects one deliberate failure per config; the launch template
// (poison_launch.hpp) makes faults 2 to 4:
//   0 none                  4 a block the launch rejects   8 never finishes
//   1 does not compile      5 illegal memory access        9 wrong result
//   2 too much shared memory 6 trap                        10 right only on the first launch
//   3 too many threads      7 failed assert
#include <cassert>

#if FAULT == 1
#error "FAULT=1: this config does not compile, on purpose"
#endif

// FAULT=10: counts the blocks launched since the module was loaded.
__device__ unsigned int blocks_launched;

extern "C" __global__ void poison(const float* x, float* y, int n) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
#if FAULT == 8
  while (x[0] < 1e30f) __nanosleep(100);  // inputs are in [-1, 1): never leaves
#endif
#if FAULT == 10
  __shared__ bool first;
  if (threadIdx.x == 0) first = atomicAdd(&blocks_launched, 1u) < gridDim.x;
  __syncthreads();
#endif
  if (i >= n) return;
#if FAULT == 5
  y[i + (1L << 40)] = 0.0f;
#elif FAULT == 6
  if (i == n / 2) __trap();
  y[i] = 2.0f * x[i] + 1.0f;
#elif FAULT == 7
  assert(x[i] > 2.0f);
  y[i] = 2.0f * x[i] + 1.0f;
#elif FAULT == 9
  y[i] = 2.0f * x[i] + 1.5f;
#elif FAULT == 10
  y[i] = first ? 2.0f * x[i] + 1.0f : 2.0f * x[i] + 1.25f;
#else
  y[i] = 2.0f * x[i] + 1.0f;
#endif
}

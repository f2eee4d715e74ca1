// A small tunable kernel for ktune's cmake tests: y = a * x + y, UNROLL elements a thread.
#include "tiny_common.cuh"

#if BLOCK == 128 && UNROLL == 2
#error "this config is broken on purpose: the compile-failure test expects it to fail"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) tiny(float a, const float* x, float* y, int n) {
  const int base = (blockIdx.x * BLOCK + threadIdx.x) * UNROLL;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u < n) y[base + u] = axpy(a, x[base + u], y[base + u]);
}

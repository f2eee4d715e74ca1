// y = a * x, UNROLL elements a thread.
extern "C" __global__ void __launch_bounds__(BLOCK) scale(float a, const float* x, float* y, int n) {
  const int base = (blockIdx.x * BLOCK + threadIdx.x) * UNROLL;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u < n) y[base + u] = a * x[base + u];
}

// y = 2 x + 1, UNROLL elements a thread. BUG selects a deliberate fault (see CMakeLists).
#if BLOCK <= 1024
#define BOUNDS __launch_bounds__(BLOCK)
#else
#define BOUNDS  // 2048 threads: the tuner must refuse the launch
#endif

extern "C" __global__ void BOUNDS axpb(const float* x, float* y, int n) {
  const long base = (long(blockIdx.x) * blockDim.x + threadIdx.x) * UNROLL;
#if BUG == 3
  while (x[0] < 1e30f) {  // never true for inputs in [-1, 1): hangs
    __nanosleep(100);
  }
#endif
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const long i = base + u;
    if (i < n) {
#if BUG == 1
      y[i] = 2.0f * x[i] + 1.5f;  // wrong result
#elif BUG == 2
      y[i + (1L << 40)] = 0.0f;  // illegal address: poisons the context
#else
      y[i] = 2.0f * x[i] + 1.0f;
#endif
    }
  }
}

// A small T1 test kernel for `ktune tune --t1` (tests/gpu/t1_tune.sh, tests/cmake/t1_tune.sh):
// every argument kind the generic harness makes (a read-write output with a random fill,
// float and int32 inputs, float and int32 scalars by value, an array copied to the
// __constant__ variable `weights`), a grid that does not divide the problem size, and a
// parameter `bug` whose value 1 makes the config write a wrong last element: those configs
// must come out wrong-result, the others ok. scaled_sum_big.T1.json adds two parameters,
// pad_a and pad_b, that the kernel ignores: a space of 120,000 configs to tune with a budget.
//
//   y[i] = alpha * x[i] + weights[i % 4] + counts[i] + y[i]   for i < n
//
// As in Kernel Tuner, an argument in constant memory is passed as a kernel argument too
// (a device copy): weights_array, unused here.

__constant__ float weights[4];

__global__ void scaled_sum(float* y, const float* x, const int* counts, float alpha, int n,
                           const float* weights_array) {
  const int first = blockIdx.x * block_size_x * tile_size_x + threadIdx.x;
  for (int t = 0; t < tile_size_x; t++) {
    const int i = first + t * block_size_x;
    if (i >= n) return;
    float v = alpha * x[i] + weights[i % 4] + static_cast<float>(counts[i]) + y[i];
#if bug
    if (i == n - 1) v += 1.0f;
#endif
    y[i] = v;
  }
}

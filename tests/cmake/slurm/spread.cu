// y = MODE + TIME: a kernel whose configs differ only in what the fake measuring worker reads.
extern "C" __global__ void spread(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = MODE + TIME;
}

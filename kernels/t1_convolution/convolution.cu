// 2-D convolution written in Kernel Tuner's style, tuned from its T1 spec with no C++ to
// write: `ktune tune --t1 kernels/t1_convolution/convolution.T1.json` (docs/t1.md).
//
//   output[y][x] = sum over i < filter_height, j < filter_width of input[y + i][x + j] * filter[i][j]
//
// output is image_height x image_width, input (image_height + filter_height - 1) x
// (image_width + filter_width - 1), both row-major floats. As in Kernel Tuner, every
// tunable parameter arrives as a macro, with block_size_x/y/z, and the source is compiled
// with C linkage (ktune wraps it in an extern C block, as Kernel Tuner does):
//   block_size_x, block_size_y  threads of a block in x and y
//   tile_size_x, tile_size_y    outputs per thread in x and y, block_size_* apart
//   use_shmem                   1: the block's input tile is staged in shared memory
//   use_cmem                    1: the filter is read from the __constant__ array d_filter
//                               (ktune copies the argument of that name into it, as Kernel
//                               Tuner's cmem_args), 0: from the filter argument
//   filter_width, filter_height the filter's size (one value each in the spec)
// Each block computes block_size_x * tile_size_x by block_size_y * tile_size_y outputs;
// the grid is ceil(ProblemSize / (block_size * tile_size)) in x and y (the spec's GridDivX
// and GridDivY). The image size is the grid's extent, so the problem size must be a
// multiple of the largest block_size_x * tile_size_x (512) in x and block_size_y *
// tile_size_y (16) in y.
//
// Every config adds the products in the same order (i, then j, one fused multiply-add
// each), so all configs agree with the Default config bit for bit.

#ifndef filter_width
#define filter_width 15
#endif
#ifndef filter_height
#define filter_height 15
#endif

__constant__ float d_filter[filter_width * filter_height];

#if use_cmem
#define FILTER(i) d_filter[i]
#else
#define FILTER(i) filter[i]
#endif

__global__ void convolution_kernel(float* __restrict__ output, const float* __restrict__ input,
                                   const float* __restrict__ filter) {
  const int image_width = gridDim.x * block_size_x * tile_size_x;
  const int input_width = image_width + filter_width - 1;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * block_size_x * tile_size_x;  // the block's first output column
  const int y0 = blockIdx.y * block_size_y * tile_size_y;  // and row

  float sum[tile_size_y][tile_size_x];
#pragma unroll
  for (int yi = 0; yi < tile_size_y; yi++)
#pragma unroll
    for (int xi = 0; xi < tile_size_x; xi++) sum[yi][xi] = 0.0f;

#if use_shmem
  // The input the block reads: its outputs plus the filter's halo.
  constexpr int sh_width = block_size_x * tile_size_x + filter_width - 1;
  constexpr int sh_height = block_size_y * tile_size_y + filter_height - 1;
  __shared__ float sh_input[sh_height][sh_width];
  for (int i = ty; i < sh_height; i += block_size_y)
    for (int j = tx; j < sh_width; j += block_size_x) sh_input[i][j] = input[(y0 + i) * input_width + x0 + j];
  __syncthreads();
#define INPUT(row, col) sh_input[row][col]
#else
#define INPUT(row, col) input[(y0 + (row)) * input_width + x0 + (col)]
#endif

  for (int i = 0; i < filter_height; i++) {
    for (int j = 0; j < filter_width; j++) {
      const float f = FILTER(i * filter_width + j);
#pragma unroll
      for (int yi = 0; yi < tile_size_y; yi++)
#pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++)
          sum[yi][xi] = fmaf(INPUT(ty + yi * block_size_y + i, tx + xi * block_size_x + j), f, sum[yi][xi]);
    }
  }

#pragma unroll
  for (int yi = 0; yi < tile_size_y; yi++)
#pragma unroll
    for (int xi = 0; xi < tile_size_x; xi++)
      output[(y0 + ty + yi * block_size_y) * image_width + x0 + tx + xi * block_size_x] = sum[yi][xi];
}

#!/usr/bin/env python3
"""Writes wgmma_ops.cuh: the wgmma.mma_async wrappers hgemm_wgmma.cu uses.

PTX takes a wgmma's accumulators as N/2 separate registers, so each N needs its own
operand list; they are written out here rather than by hand. Run it after editing:
    python3 kernels/hgemm/wgmma_ops.py > kernels/hgemm/wgmma_ops.cuh
"""

SHAPES = (64, 128, 256)

print("""#pragma once
// Written by wgmma_ops.py (its docstring says why); edit that, not this.
//
// wgmma_m64nNk16<N>(d, a_desc, b_desc, accumulate): d (64 x N, fp32, N/2 a thread) =
// A (64 x 16, K-major, from shared memory) * B (16 x N, N-major, from shared memory)
// (+ d when accumulate != 0), element type HGEMM_PTX_TYPE. The caller fences, commits and
// waits (wgmma.fence / commit / wait).
#include <cstdint>

template <int N>
__device__ void wgmma_m64nNk16(float (&d)[N / 2], uint64_t a_desc, uint64_t b_desc, int accumulate);
""")
for n in SHAPES:
    regs = n // 2
    names = ", ".join(f"%{i}" for i in range(regs))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(regs))
    print(f"""template <>
__device__ __forceinline__ void wgmma_m64nNk16<{n}>(float (&d)[{regs}], uint64_t a_desc, uint64_t b_desc,
                                                       int accumulate) {{
  // scale-d from accumulate, scale-a and scale-b 1, A K-major (0), B N-major (1).
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32." HGEMM_PTX_TYPE "." HGEMM_PTX_TYPE " "
      "{{{names}}}, %{regs}, %{regs + 1}, p, 1, 1, 0, 1;\\n}}\\n"
      : {outs}
      : "l"(a_desc), "l"(b_desc), "r"(accumulate));
}}
""")

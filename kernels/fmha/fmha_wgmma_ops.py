#!/usr/bin/env python3
"""Writes fmha_wgmma_ops.cuh: the wgmma.mma_async wrappers fmha_wgmma.cu uses.

PTX takes a wgmma's accumulators as N/2 separate registers, so each N needs its own
operand list; they are written out here rather than by hand. Run it after editing:
    python3 kernels/fmha/fmha_wgmma_ops.py > kernels/fmha/fmha_wgmma_ops.cuh
"""

SHAPES = (64, 128)

print("""#pragma once
// Written by fmha_wgmma_ops.py (its docstring says why); edit that, not this.
//
// fp16 inputs, fp32 accumulators d (64 x N, N/2 a thread), d += (or, with accumulate == 0,
// d =) A * B. The caller fences, commits and waits (wgmma.fence / commit / wait).
//   wgmma_qk<N, kAccumulate>(d, a_desc, b_desc): A (64 x 16) and B (16 x N) both from shared
//     memory and both K-major (B stored N rows of K): S = Q K^T with K's rows as they are.
//     kAccumulate is a constant: with a run-time flag ptxas takes d for an input of the
//     first wgmma too, and serializes the wgmmas when d is written while another runs.
//   wgmma_pv<N>(d, a, b_desc, accumulate): A from registers (four b32 of two fp16 each, the
//     m16n8k16 A fragment of the thread's warp), B (16 x N) N-major from shared memory:
//     O += P V with P the softmax of S, still in the registers S was accumulated in.
#include <cstdint>

template <int N, int kAccumulate>
__device__ void wgmma_qk(float (&d)[N / 2], uint64_t a_desc, uint64_t b_desc);
template <int N>
__device__ void wgmma_pv(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t b_desc, int accumulate);
""")
for n in SHAPES:
    regs = n // 2
    names = ", ".join(f"%{i}" for i in range(regs))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(regs))
    for acc in (0, 1):
        # Without accumulation d is written only ("=f"): no register it holds is read.
        outs_qk = outs if acc else outs.replace('"+f"', '"=f"')
        print(f"""template <>
__device__ __forceinline__ void wgmma_qk<{n}, {acc}>(float (&d)[{regs}], uint64_t a_desc, uint64_t b_desc) {{
  // scale-d {acc}, scale-a and scale-b 1, A and B K-major (0, 0).
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, {acc}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 "
      "{{{names}}}, %{regs}, %{regs + 1}, p, 1, 1, 0, 0;\\n}}\\n"
      : {outs_qk}
      : "l"(a_desc), "l"(b_desc));
}}
""")
    print(f"""template <>
__device__ __forceinline__ void wgmma_pv<{n}>(float (&d)[{regs}], const uint32_t (&a)[4], uint64_t b_desc,
                                              int accumulate) {{
  // scale-d from accumulate, scale-a and scale-b 1, B N-major (1).
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 5}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 "
      "{{{names}}}, {{%{regs}, %{regs + 1}, %{regs + 2}, %{regs + 3}}}, %{regs + 4}, p, 1, 1, 1;\\n}}\\n"
      : {outs}
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(accumulate));
}}
""")

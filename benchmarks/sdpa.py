#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention on the fmha example's keys (fp16, [B*H, S, D]),
the reference bench_examples holds fmha against. Median of 20 launches, CUDA events, L2
flushed before each. Prints one line per key, or says why it cannot run."""
import sys

KEYS = [(64, 64, 512, 0), (64, 32, 2048, 0), (64, 32, 2048, 1), (64, 128, 2048, 0), (64, 8, 1000, 0),
        (128, 64, 512, 0), (128, 32, 2048, 0), (128, 32, 2048, 1), (128, 16, 4096, 1), (128, 8, 1000, 0),
        (128, 8, 1000, 1)]  # (D, BH, S, causal), as kernels/fmha/fmha.cmake declares them

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("sdpa: PyTorch is not installed here; no fmha reference measured")
    sys.exit(0)
if not torch.cuda.is_available():
    print("sdpa: no GPU visible to PyTorch; nothing measured")
    sys.exit(0)

scrub = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
print(f"sdpa: PyTorch {torch.__version__} on {torch.cuda.get_device_name()}")
for d, bh, s, causal in KEYS:
    q, k, v = (torch.rand(1, bh, s, d, device="cuda", dtype=torch.float16) * 2 - 1 for _ in range(3))
    F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
    times = []
    for _ in range(20):
        scrub.zero_()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    ms = sorted(times)[len(times) // 2]
    flops = 4.0 * bh * s * s * d * (0.5 if causal else 1.0)
    print(f"fmha_d{d:<4} BH={bh} S={s} CAUSAL={causal}: {ms:.4f} ms, {flops / ms / 1e9:.0f} TFLOP/s")

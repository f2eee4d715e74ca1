// The poison launch: faults 2 to 4 are in the launch, not in the kernel.
#pragma once
#include <ktune/launch.hpp>

template <typename X, typename Y>
auto poison_launch(X x, Y y, int n) {
  return [=](const ktune::Config& c) {
    const int64_t fault = c["FAULT"];
    const auto block = static_cast<uint32_t>(c["BLOCK"]);
    ktune::Launch l{.grid = {ktune::cdiv(n, block)}, .block = {block}, .args = ktune::args(x, y, n)};
    if (fault == 2) l.shared_bytes = 300 * 1024;  // more than any GPU's block may have
    if (fault == 3) l.block = {2048};             // more threads than a block may have
    if (fault == 4) l.block = {1, 1, 128};        // 128 threads, but blockDim.z is at most 64
    return l;
  };
}

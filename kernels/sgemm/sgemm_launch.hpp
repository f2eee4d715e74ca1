#pragma once
// The sgemm launch, written once as a function of the config: used by the tuner through
// the harness and by applications through the baked dispatcher.
#include <ktune/launch.hpp>

inline auto sgemm_launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, int M, int N, int K) {
  return [=](const ktune::Config& c) {
    return ktune::Launch{.grid = {ktune::cdiv(N, c["TN"]), ktune::cdiv(M, c["TM"])},
                         .block = {256},
                         .args = ktune::args(A, B, C, M, N, K)};
  };
}

// The launch template of scale, shared by the harness and the application.
#pragma once
#include <ktune/launch.hpp>

template <typename X, typename Y>
auto scale_launch(float a, X x, Y y, int n) {
  return [=](const ktune::Config& c) {
    return ktune::Launch{.grid = {ktune::cdiv(n, c["BLOCK"] * c["UNROLL"])},
                         .block = {static_cast<uint32_t>(c["BLOCK"])},
                         .args = ktune::args(a, x, y, n)};
  };
}

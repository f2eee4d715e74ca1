// The launch template of axpb, written once: the tuner's harness and the application use it.
#pragma once
#include <ktune/launch.hpp>

template <typename X, typename Y>
auto axpb_launch(X x, Y y, int n) {
  return [=](const ktune::Config& c) {
    // A cluster launch needs a grid of whole clusters: round up (the kernel checks bounds).
    const int64_t ctas = c["num_ctas"];
    return ktune::Launch{
        .grid = {ktune::cdiv(ktune::cdiv(n, c["BLOCK"] * c["UNROLL"]), ctas) * static_cast<uint32_t>(ctas)},
        .block = {static_cast<uint32_t>(c["BLOCK"])},
        .args = ktune::args(x, y, n)};
  };
}

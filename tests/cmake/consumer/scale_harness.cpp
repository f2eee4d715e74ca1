// The harness of scale: one input, one output checked against a host reference.
#include <ktune/harness.hpp>

#include "scale_launch.hpp"

void ktune_harness(ktune::Harness& h) {
  const auto n = static_cast<int>(h.key("N"));
  auto x = h.input<float>(n, ktune::fill::random(1));
  auto y = h.output<float>(n);
  h.expect(y, [&](std::span<float> ref) {
    auto in = h.host(x);
    for (int i = 0; i < n; ++i) ref[i] = 3.0f * in[i];
  });
  h.launch(scale_launch(3.0f, x, y, n));
}

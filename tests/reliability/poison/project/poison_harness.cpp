// The poison harness: one input in [-1, 1), one output checked against the host.
#include <ktune/harness.hpp>

#include "poison_launch.hpp"

void ktune_harness(ktune::Harness& h) {
  const auto n = static_cast<int>(h.key("N"));
  auto x = h.input<float>(n, ktune::fill::random(7));
  auto y = h.output<float>(n, ktune::fill::constant(-7));
  h.expect(y, [&](std::span<float> ref) {
    auto in = h.host(x);
    for (int i = 0; i < n; ++i) ref[i] = 2.0f * in[i] + 1.0f;
  });
  h.launch(poison_launch(x, y, n));
}

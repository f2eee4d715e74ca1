// The harness of the axpb sample: one input, one output, a host reference.
#include <ktune/harness.hpp>

void ktune_harness(ktune::Harness& h) {
  const auto n = static_cast<int>(h.key("N"));
  auto x = h.input<float>(n, ktune::fill::random(42));
  auto y = h.output<float>(n, ktune::fill::constant(-7));
  h.expect(y, [&](std::span<float> ref) {
    auto in = h.host(x);
    for (int i = 0; i < n; ++i) ref[i] = 2.0f * in[i] + 1.0f;
  });
  h.launch([=](const ktune::Config& c) {
    // A cluster launch needs a grid of whole clusters: round up (the kernel checks bounds).
    const int64_t ctas = c["num_ctas"];
    return ktune::Launch{.grid = {ktune::cdiv(ktune::cdiv(n, c["BLOCK"] * c["UNROLL"]), ctas) *
                                  static_cast<uint32_t>(ctas)},
                         .block = {static_cast<uint32_t>(c["BLOCK"])},
                         .args = ktune::args(x, y, n)};
  });
}

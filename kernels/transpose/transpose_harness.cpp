// Tuning harness of transpose: a random matrix; the output must equal the host transpose
// exactly (the kernel only moves values).
#include <ktune/harness.hpp>

#include <cmath>

#include "transpose_launch.hpp"
#include "transpose_reference.hpp"

void ktune_harness(ktune::Harness& h) {
  const int rows = static_cast<int>(h.key("ROWS"));
  const int cols = static_cast<int>(h.key("COLS"));
  auto in = h.input<float>(size_t(rows) * cols, ktune::fill::random(1));
  // NaN never matches: an element the kernel does not write fails the check.
  auto out = h.output<float>(size_t(rows) * cols, ktune::fill::constant(NAN), {0, 0});
  h.expect(out, [&](std::span<float> ref) {
    const float* x = h.host(in).data();
    ktune::parallel_for(rows, [&](size_t begin, size_t end) {
      transpose_reference_rows(x, ref.data(), rows, cols, begin, end);
    });
  });
  h.launch(transpose_launch(in, out, rows, cols));
}

// Tuning harness of softmax, for both variants (the build defines SOFTMAX_BF16 as the
// kernel's FLAGS do): one input matrix, the output checked against a host reference in
// double on all cores.
#include <ktune/harness.hpp>

#include <cstdint>
#include <vector>

#include "softmax_launch.hpp"
#include "softmax_reference.hpp"

#ifndef SOFTMAX_BF16
#error "SOFTMAX_BF16 must be defined: 0 (fp32) or 1 (bf16); softmax.cmake sets it per tuner"
#endif

#if SOFTMAX_BF16
using Elem = ktune::bfloat16;
// The kernel rounds its fp32 result once; near a rounding midpoint that is one bf16 ulp
// away from the reference, which is at most 2^-7 of the value.
constexpr ktune::Tolerance kTolerance{1e-8, 0x1.0p-7 + 1e-6};
#else
using Elem = float;
// Outputs are >= 1e-10 here, so the absolute part stays far below the values checked.
constexpr ktune::Tolerance kTolerance{1e-8, 1e-5};
#endif

namespace {

// Uniform in [-8, 8) plus a row offset of 0, 30, 60 or 90: exp of the last rows overflows
// fp32 unless the row max is subtracted first, so an unstable kernel fails here.
std::vector<Elem> softmax_input(int rows, int cols) {
  std::vector<Elem> x(size_t(rows) * cols);
  ktune::parallel_for(rows, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      for (size_t j = 0; j < size_t(cols); ++j) {
        uint64_t z = (i * cols + j + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64: same everywhere
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        const double u = double(z >> 11) * 0x1.0p-53;
        x[i * cols + j] = Elem(static_cast<float>(16 * u - 8 + 30 * double(i % 4)));
      }
  });
  return x;
}

}  // namespace

void ktune_harness(ktune::Harness& h) {
  const int rows = static_cast<int>(h.key("ROWS"));
  const int cols = static_cast<int>(h.key("COLS"));
  auto x = h.input<Elem>(size_t(rows) * cols, ktune::fill::data(softmax_input(rows, cols)));
  // -1 is no softmax value: an element the kernel does not write fails the check.
  auto y = h.output<Elem>(size_t(rows) * cols, ktune::fill::constant(-1), kTolerance);
  h.expect(y, [&](std::span<Elem> ref) {
    const Elem* in = h.host(x).data();
    ktune::parallel_for(rows, [&](size_t begin, size_t end) {
      softmax_reference_rows(in, ref.data(), cols, begin, end);
    });
  });
  h.launch(softmax_launch(x, y, rows, cols));
}

// The harness of spread. The Slurm test measures with the fake worker, which reads only the
// parameters, so this is the shape of a harness rather than a check of the kernel.
#include <ktune/harness.hpp>

void ktune_harness(ktune::Harness& h) {
  const int n = static_cast<int>(h.key("N"));
  auto y = h.output<float>(n);
  h.launch([=](const ktune::Config&) {
    return ktune::Launch{.grid = {ktune::cdiv(n, 128)}, .block = {128}, .args = ktune::args(y, n)};
  });
}

// Tuning harness of fmha (fmha_d64 and fmha_d128, and with FMHA_WGMMA=1 fmha_wgmma_d64 and
// fmha_wgmma_d128; fmha.cmake defines FMHA_HEAD_DIM for each tuner): random Q, K, V in
// [-1, 1); O checked against the host reference of fmha_reference.hpp in double, its rows
// split over all cores.
#include <ktune/harness.hpp>

#include <vector>

#include "fmha_launch.hpp"
#include "fmha_reference.hpp"
#include "fmha_wgmma_launch.hpp"

#ifndef FMHA_HEAD_DIM
#error "FMHA_HEAD_DIM (the kernel's HEAD_DIM) must be defined for the tuner, see fmha.cmake"
#endif
#ifndef FMHA_WGMMA
#define FMHA_WGMMA 0
#endif

namespace {

std::vector<float> to_float(std::span<const ktune::half> values) {
  std::vector<float> out(values.size());
  ktune::parallel_for(values.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) out[i] = static_cast<float>(values[i]);
  });
  return out;
}

}  // namespace

void ktune_harness(ktune::Harness& h) {
  const int BH = static_cast<int>(h.key("BH"));
  const int S = static_cast<int>(h.key("S"));
  const int causal = static_cast<int>(h.key("CAUSAL"));
  const int D = FMHA_HEAD_DIM;
  if (causal != 0 && causal != 1) throw ktune::Error("fmha: CAUSAL must be 0 or 1, got " + std::to_string(causal));
  const size_t n = size_t(BH) * S * D;
  auto Q = h.input<ktune::half>(n, ktune::fill::random(1));
  auto K = h.input<ktune::half>(n, ktune::fill::random(2));
  auto V = h.input<ktune::half>(n, ktune::fill::random(3));
  // fp16 output (about 5e-4 relative) of fp32 sums of fp16-rounded probabilities: the
  // default fp16 tolerance. Rows see about as much as V's magnitude early under causal
  // masking and about 1/sqrt(S) of it late, so the absolute part matters for late rows.
  auto O = h.output<ktune::half>(n, ktune::fill::constant(0));
  h.expect(O, [&](std::span<ktune::half> ref) {
    // fp16 to float once: the inner loops then convert float to double, which vectorises.
    const auto q = to_float(h.host(Q)), k = to_float(h.host(K)), v = to_float(h.host(V));
    ktune::parallel_for(size_t(BH) * S, [&](size_t begin, size_t end) {
      fmha_ref::attention_rows(q.data(), k.data(), v.data(), ref.data(), S, D, causal != 0, begin, end);
    });
  });
#if FMHA_WGMMA
  h.launch(fmha_wgmma_launch(Q, K, V, O, BH, S, D, causal));
#else
  h.launch(fmha_launch(Q, K, V, O, BH, S, D, causal));
#endif
}
